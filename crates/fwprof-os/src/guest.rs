//! Small typed accessors over [`GuestMemory`]: XLEN-sized words, C strings,
//! little-endian integers. Every accessor returns [`MemFault`] instead of
//! panicking, so guest pointers can be passed through unchecked.

use crate::{EnvError, GuestMemory, MemFault};

/// `len` zero bytes for a host buffer whose size comes from the guest,
/// allocated fallibly: a host allocation failure is an
/// [`EnvError::HostMemory`] naming `what`, never an abort.
pub(crate) fn try_zeroed(len: usize, what: &'static str) -> Result<Vec<u8>, EnvError> {
    let mut v = Vec::new();
    v.try_reserve_exact(len).map_err(|_| EnvError::HostMemory {
        what,
        bytes: len as u64,
    })?;
    v.resize(len, 0);
    Ok(v)
}

/// Longest C string the environment reads from the guest (Linux `PATH_MAX`
/// is 4096; semihosting strings are bounded by the same limit).
pub(crate) const MAX_CSTR: usize = 4096;

/// Read `len` bytes at `addr`.
pub(crate) fn read_bytes(
    mem: &mut dyn GuestMemory,
    addr: u64,
    len: usize,
) -> Result<Vec<u8>, MemFault> {
    let mut buf = vec![0u8; len];
    if len > 0 {
        mem.read(addr, &mut buf)?;
    }
    Ok(buf)
}

/// Read a little-endian u32.
pub(crate) fn read_u32(mem: &mut dyn GuestMemory, addr: u64) -> Result<u32, MemFault> {
    let mut b = [0u8; 4];
    mem.read(addr, &mut b)?;
    Ok(u32::from_le_bytes(b))
}

/// Read a little-endian u64.
pub(crate) fn read_u64(mem: &mut dyn GuestMemory, addr: u64) -> Result<u64, MemFault> {
    let mut b = [0u8; 8];
    mem.read(addr, &mut b)?;
    Ok(u64::from_le_bytes(b))
}

/// Read an XLEN-sized unsigned word (zero-extended on RV32).
pub(crate) fn read_word(mem: &mut dyn GuestMemory, addr: u64, rv64: bool) -> Result<u64, MemFault> {
    if rv64 {
        read_u64(mem, addr)
    } else {
        read_u32(mem, addr).map(u64::from)
    }
}

/// Write an XLEN-sized word (truncated to 32 bits on RV32).
pub(crate) fn write_word(
    mem: &mut dyn GuestMemory,
    addr: u64,
    value: u64,
    rv64: bool,
) -> Result<(), MemFault> {
    if rv64 {
        mem.write(addr, &value.to_le_bytes())
    } else {
        mem.write(addr, &(value as u32).to_le_bytes())
    }
}

/// Size of an XLEN word in bytes.
pub(crate) fn word_size(rv64: bool) -> u64 {
    if rv64 {
        8
    } else {
        4
    }
}

/// Read a NUL-terminated string at `addr` (without the NUL). Reads in small
/// chunks so a string ending just before an unmapped page does not fault.
/// A string longer than `max` bytes is a fault at the byte after the limit
/// (callers map it to `ENAMETOOLONG`/`EFAULT`).
pub(crate) fn read_cstr(
    mem: &mut dyn GuestMemory,
    addr: u64,
    max: usize,
) -> Result<Vec<u8>, CStrError> {
    const CHUNK: u64 = 64;
    let mut out = Vec::new();
    let mut at = addr;
    loop {
        let chunk_end = (at | (CHUNK - 1)).wrapping_add(1);
        let n = chunk_end.wrapping_sub(at).min(CHUNK) as usize;
        let mut buf = vec![0u8; n];
        if mem.read(at, &mut buf).is_err() {
            // Fall back to single bytes to find the exact end of the mapping.
            for i in 0..n {
                let mut b = [0u8; 1];
                mem.read(at.wrapping_add(i as u64), &mut b)
                    .map_err(CStrError::Fault)?;
                if b[0] == 0 {
                    return Ok(out);
                }
                out.push(b[0]);
                if out.len() > max {
                    return Err(CStrError::TooLong);
                }
            }
        } else if let Some(z) = buf.iter().position(|&b| b == 0) {
            out.extend_from_slice(&buf[..z]);
            return if out.len() > max {
                Err(CStrError::TooLong)
            } else {
                Ok(out)
            };
        } else {
            out.extend_from_slice(&buf);
            if out.len() > max {
                return Err(CStrError::TooLong);
            }
        }
        at = at.wrapping_add(n as u64);
        if at == 0 {
            return Err(CStrError::Fault(MemFault { addr: 0 }));
        }
    }
}

/// Why a C string could not be read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum CStrError {
    /// An unmapped byte before the terminating NUL.
    Fault(MemFault),
    /// No NUL within the limit.
    TooLong,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_buffer_the_host_cannot_allocate_is_an_error_not_an_abort() {
        assert!(matches!(
            try_zeroed(usize::MAX / 2, "read buffer"),
            Err(EnvError::HostMemory {
                what: "read buffer",
                ..
            })
        ));
        assert_eq!(try_zeroed(3, "x").unwrap(), vec![0, 0, 0]);
    }
}
