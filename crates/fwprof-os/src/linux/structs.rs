//! Guest structure layouts for RISC-V Linux (little-endian), built from the
//! host's values. Layouts: `include/uapi/asm-generic/stat.h` (`struct stat`,
//! 128 bytes on riscv64), `include/uapi/linux/stat.h` (`struct statx`, 256
//! bytes, identical on every architecture), `include/uapi/linux/utsname.h`
//! (`struct new_utsname`, six 65-byte fields), `struct timespec` (two
//! 64-bit fields on riscv64 and for the riscv32 `*_time64` calls).

/// Size of the riscv64 `struct stat`.
pub const STAT_SIZE: usize = 128;
/// Size of `struct statx`.
pub const STATX_SIZE: usize = 256;
/// Size of one `struct new_utsname` field.
pub const UTS_FIELD: usize = 65;

fn put(buf: &mut [u8], off: usize, bytes: &[u8]) {
    buf[off..off + bytes.len()].copy_from_slice(bytes);
}

/// The riscv64 `struct stat` for a host `stat` (QEMU `host_to_target_stat64`).
///
/// Offsets: dev 0, ino 8, mode 16, nlink 20, uid 24, gid 28, rdev 32,
/// size 48, blksize 56, blocks 64, atime 72/80, mtime 88/96, ctime 104/112.
#[allow(clippy::unnecessary_cast)] // field types differ between host architectures
pub fn stat_bytes(st: &libc::stat) -> [u8; STAT_SIZE] {
    let mut b = [0u8; STAT_SIZE];
    put(&mut b, 0, &(st.st_dev as u64).to_le_bytes());
    put(&mut b, 8, &(st.st_ino as u64).to_le_bytes());
    put(&mut b, 16, &(st.st_mode as u32).to_le_bytes());
    put(&mut b, 20, &(st.st_nlink as u32).to_le_bytes());
    put(&mut b, 24, &(st.st_uid as u32).to_le_bytes());
    put(&mut b, 28, &(st.st_gid as u32).to_le_bytes());
    put(&mut b, 32, &(st.st_rdev as u64).to_le_bytes());
    put(&mut b, 48, &(st.st_size as i64).to_le_bytes());
    put(&mut b, 56, &(st.st_blksize as i32).to_le_bytes());
    put(&mut b, 64, &(st.st_blocks as i64).to_le_bytes());
    put(&mut b, 72, &(st.st_atime as i64).to_le_bytes());
    put(&mut b, 80, &(st.st_atime_nsec as u64).to_le_bytes());
    put(&mut b, 88, &(st.st_mtime as i64).to_le_bytes());
    put(&mut b, 96, &(st.st_mtime_nsec as u64).to_le_bytes());
    put(&mut b, 104, &(st.st_ctime as i64).to_le_bytes());
    put(&mut b, 112, &(st.st_ctime_nsec as u64).to_le_bytes());
    b
}

/// The guest `struct statx` for a host one (field by field, as QEMU
/// `host_to_target_statx`).
pub fn statx_bytes(s: &libc::statx) -> [u8; STATX_SIZE] {
    let mut b = [0u8; STATX_SIZE];
    put(&mut b, 0, &s.stx_mask.to_le_bytes());
    put(&mut b, 4, &s.stx_blksize.to_le_bytes());
    put(&mut b, 8, &s.stx_attributes.to_le_bytes());
    put(&mut b, 16, &s.stx_nlink.to_le_bytes());
    put(&mut b, 20, &s.stx_uid.to_le_bytes());
    put(&mut b, 24, &s.stx_gid.to_le_bytes());
    put(&mut b, 28, &s.stx_mode.to_le_bytes());
    put(&mut b, 32, &s.stx_ino.to_le_bytes());
    put(&mut b, 40, &s.stx_size.to_le_bytes());
    put(&mut b, 48, &s.stx_blocks.to_le_bytes());
    put(&mut b, 56, &s.stx_attributes_mask.to_le_bytes());
    for (off, t) in [
        (64, &s.stx_atime),
        (80, &s.stx_btime),
        (96, &s.stx_ctime),
        (112, &s.stx_mtime),
    ] {
        put(&mut b, off, &t.tv_sec.to_le_bytes());
        put(&mut b, off + 8, &t.tv_nsec.to_le_bytes());
    }
    put(&mut b, 128, &s.stx_rdev_major.to_le_bytes());
    put(&mut b, 132, &s.stx_rdev_minor.to_le_bytes());
    put(&mut b, 136, &s.stx_dev_major.to_le_bytes());
    put(&mut b, 140, &s.stx_dev_minor.to_le_bytes());
    b
}

/// A `struct stat` for an in-memory (captured) stream: a FIFO owned by the
/// current user, as a pipe would look.
pub fn pipe_stat() -> [u8; STAT_SIZE] {
    let mut b = [0u8; STAT_SIZE];
    let ids = super::misc::host_ids();
    put(&mut b, 16, &(libc::S_IFIFO | 0o600).to_le_bytes());
    put(&mut b, 20, &1u32.to_le_bytes());
    put(&mut b, 24, &(ids[0] as u32).to_le_bytes());
    put(&mut b, 28, &(ids[2] as u32).to_le_bytes());
    put(&mut b, 56, &4096i32.to_le_bytes());
    b
}

/// A 16-byte `struct timespec` (seconds, nanoseconds).
pub fn timespec_bytes(sec: i64, nsec: i64) -> [u8; 16] {
    let mut b = [0u8; 16];
    put(&mut b, 0, &sec.to_le_bytes());
    put(&mut b, 8, &nsec.to_le_bytes());
    b
}

/// `struct new_utsname` from six strings (each truncated to 64 bytes + NUL).
pub fn utsname_bytes(fields: [&[u8]; 6]) -> [u8; 6 * UTS_FIELD] {
    let mut b = [0u8; 6 * UTS_FIELD];
    for (i, f) in fields.iter().enumerate() {
        let n = f.len().min(UTS_FIELD - 1);
        put(&mut b, i * UTS_FIELD, &f[..n]);
    }
    b
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stat_layout_offsets() {
        // SAFETY: all-zero is a valid libc::stat.
        let mut st: libc::stat = unsafe { std::mem::zeroed() };
        st.st_ino = 0x1122;
        st.st_mode = 0o100644;
        st.st_size = 0x12_3456_789a;
        st.st_mtime = 77;
        st.st_blksize = 4096;
        let b = stat_bytes(&st);
        assert_eq!(u64::from_le_bytes(b[8..16].try_into().unwrap()), 0x1122);
        assert_eq!(u32::from_le_bytes(b[16..20].try_into().unwrap()), 0o100644);
        assert_eq!(
            i64::from_le_bytes(b[48..56].try_into().unwrap()),
            0x12_3456_789a
        );
        assert_eq!(i32::from_le_bytes(b[56..60].try_into().unwrap()), 4096);
        assert_eq!(i64::from_le_bytes(b[88..96].try_into().unwrap()), 77);
    }

    #[test]
    fn utsname_fields_are_65_bytes() {
        let b = utsname_bytes([b"Linux", b"host", b"6.1", b"#1", b"riscv64", b"(none)"]);
        assert_eq!(&b[0..6], b"Linux\0");
        assert_eq!(&b[4 * 65..4 * 65 + 8], b"riscv64\0");
        assert_eq!(&b[5 * 65..5 * 65 + 6], b"(none)");
    }
}
