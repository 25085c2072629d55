//! The contract between the simulator and the guest environment.
//! (Filled in by the os implementation; the signatures here are fixed.)

/// Access permissions of a guest memory mapping.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct Perm {
    /// Readable.
    pub read: bool,
    /// Writable.
    pub write: bool,
    /// Executable.
    pub exec: bool,
}

/// A guest address that is not mapped (or not with the needed permission).
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
#[error("guest memory fault at {addr:#x}")]
pub struct MemFault {
    /// First faulting guest address.
    pub addr: u64,
}

/// Guest memory as the environment sees it. Implemented by the simulator's
/// memory. Addresses are guest virtual addresses; lengths are bytes.
pub trait GuestMemory {
    /// Copy `buf.len()` bytes from guest address `addr`.
    ///
    /// # Errors
    /// [`MemFault`] if any byte is not mapped readable.
    fn read(&mut self, addr: u64, buf: &mut [u8]) -> Result<(), MemFault>;
    /// Copy `data` to guest address `addr`.
    ///
    /// # Errors
    /// [`MemFault`] if any byte is not mapped writable.
    fn write(&mut self, addr: u64, data: &[u8]) -> Result<(), MemFault>;
    /// Map `len` zero-filled bytes at `addr` (page-aligned for Linux; any
    /// alignment for bare-metal RAM), replacing whatever was mapped there.
    ///
    /// # Errors
    /// [`MemFault`] if the range wraps around the address space.
    fn map(&mut self, addr: u64, len: u64, perm: Perm) -> Result<(), MemFault>;
    /// Unmap `[addr, addr+len)`; unmapped parts are ignored.
    fn unmap(&mut self, addr: u64, len: u64);
    /// Change the permissions of `[addr, addr+len)`.
    ///
    /// # Errors
    /// [`MemFault`] if part of the range is unmapped.
    fn protect(&mut self, addr: u64, len: u64, perm: Perm) -> Result<(), MemFault>;
    /// True if any byte of `[addr, addr+len)` is mapped.
    fn is_mapped(&self, addr: u64, len: u64) -> bool;
}

/// What the environment asks the simulator to do after a call.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum EnvOutcome {
    /// Resume at the next instruction (result, if any, already in `a0`).
    Continue,
    /// The guest asked to stop with this process exit status (0..=255 for
    /// Linux `exit_group`; QEMU's mapping for semihosting exits).
    Exit(i32),
}
