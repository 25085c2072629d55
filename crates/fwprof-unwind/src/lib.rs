//! Stack unwinding for RISC-V programs (RV32 and RV64), the way a profiler
//! on hardware must do it: from the registers of a stopped hart and reads
//! of its memory, guided by the program's DWARF call-frame information.
//!
//! The crate knows nothing about where registers and memory come from: a
//! simulator, a core dump or a GDB remote connection all fit behind
//! [`UnwindMemory`] and [`Registers`].
//!
//! # Algorithm
//!
//! Frame 0 is the stopped pc. For every frame, the unwinder looks up the
//! frame's *lookup address*: the pc for frame 0, the call site (the call
//! instruction before the return address) for the frames above it, as
//! unwinders do, so that a call at the very end of a function (a
//! `noreturn` call) finds its own function's rules rather than the next
//! function's. Then, in this order:
//!
//! 1. **Root by entry.** If the lookup address lies in the *entry function*
//!    (the function containing the ELF entry point, e.g. `_start`), the
//!    stack is complete: nothing called it.
//! 2. **Epilogue execution** (frames whose registers are all known: frame
//!    0, and frames reached by this rule). If the code from the frame's pc
//!    to a return (`jalr x0, 0(ra)` or `jalr x0, 0(t0)`) only reloads
//!    registers from the stack, frees the frame, does arithmetic and jumps
//!    unconditionally, it is executed on a copy of the registers (stores
//!    go to an overlay, memory is never written): the result is the
//!    caller's state exactly, whatever the CFI says. This covers samples in
//!    epilogues, at GCC's tail jump to `__riscv_restore_N` (where its CFI
//!    already describes the frame as freed) and inside the
//!    `__riscv_save_N`/`__riscv_restore_N` millicode of `-msave-restore`
//!    code (which has no CFI); a return through `t0` (from a save routine)
//!    lands in the function's prologue, whose row is then looked up at the
//!    return address itself.
//! 3. **CFI.** If an FDE of `.eh_frame` (searched first) or `.debug_frame`
//!    covers the lookup address, the row for it gives the CFA rule
//!    (register + offset, or a DWARF expression) and the rules of the
//!    registers saved by the frame (DWARF Standard v5, §6.4.1). The
//!    caller's registers are the recovered ones; registers without a rule
//!    keep their value ("same value"), the stack pointer becomes the CFA,
//!    and the caller's pc is the value of the CIE's return-address column
//!    (normally `ra`, DWARF register 1). A return-address column the FDE or
//!    CIE declares `DW_CFA_undefined` (glibc's `_start`) is a root.
//! 4. **No FDE: code analysis.** A stack-height analysis of the function's
//!    code (its control-flow graph from the symbol's start, as objtool
//!    derives ORC unwind tables) gives, at the lookup address, the CFA
//!    (`sp` + height, or from a frame pointer in `s0`) and where `ra` and
//!    `s0`-`s11` are saved. Used when the analysis knows the state there and
//!    the return address it yields follows a call (above frame 0, `ra` must
//!    have been saved). Can be switched off
//!    ([`Unwinder::set_code_analysis`]).
//! 5. **No FDE, frame 0, otherwise.** If `s0` looks like a frame pointer of
//!    the GCC RISC-V layout (`-fno-omit-frame-pointer`: `s0` = CFA, `ra`
//!    saved at `s0 - XLEN/8`, the caller's `s0` at `s0 - 2*XLEN/8`) whose
//!    saved `ra` equals the `ra` register, that frame is used. Otherwise, if
//!    `ra` holds a return address (inside the program, right after a call
//!    instruction) into another function and no instruction from the
//!    function's start to the pc saves `ra` or changes `sp` other than by
//!    allocating (`addi sp, sp, -N`), `ra` is used with CFA = `sp` + the
//!    bytes allocated, and saved `s0`-`s11` are reloaded from where those
//!    instructions stored them (the link-register rule). Otherwise the
//!    frame-pointer rule is tried alone.
//! 6. **No FDE, frames above 0, otherwise.** The frame-pointer rule: the
//!    frame pointer must be above `sp`, aligned, and the saved `ra` a
//!    return address.
//!
//! The frame-pointer rule (5, 6) applies only to a function whose code
//! sets `s0` from `sp` (`addi s0, sp, N`) before the lookup address: in
//! other code `s0` is still the caller's frame pointer (using it would
//! skip the caller) or an ordinary register.
//!
//! A step is accepted only if the new CFA is at least the frame's `sp` and
//! above the previous frame's CFA (the stack grows down, so callers'
//! frames lie at higher addresses): a CFA that does not grow would loop.
//!
//! # Roots and truncation
//!
//! Unwinding ends at a *root* ([`StackEnd::is_root`]) when the lookup
//! address is in the entry function, the return address is 0 (the reset
//! value of `ra`: bare-metal start code that was not called; only from
//! CFI, a frame pointer's saved 0 is not trusted), the CFI marks the
//! return address undefined, or no rule applies at the frame of the
//! function that called `main` (start-up code such as picolibc's
//! `_cstart` or glibc's `__libc_start_call_main` is often built without
//! unwind information or frame pointers). It ends *truncated* when a rule
//! cannot be applied (no CFI and no usable frame pointer, a register the
//! rule needs is unknown, a memory read fails, a return address outside
//! the program's executable segments, a CFA that does not grow, or more
//! than [`Unwinder::max_frames`] frames). A truncated stack keeps the frames
//! found so far.
//!
//! ```
//! use fwprof_unwind::{Layout, Registers, Unwinder, UnwindMemory};
//!
//! struct NoMemory;
//! impl UnwindMemory for NoMemory {
//!     fn read_u32(&mut self, _: u64) -> Option<u32> { None }
//!     fn read_u64(&mut self, _: u64) -> Option<u64> { None }
//! }
//! // A program whose entry function is [0x1000, 0x1010): a pc there is a root.
//! let layout = Layout {
//!     address_size: 8,
//!     entry: 0x1000,
//!     code: vec![(0x1000, 0x2000)],
//!     functions: vec![(0x1000, 0x1010), (0x1010, 0x2000)],
//!     main: None,
//! };
//! let mut u = Unwinder::new(layout, None, None).unwrap();
//! let regs = Registers { x: [0; 32], pc: 0x1004 };
//! let stack = u.unwind(&regs, &mut NoMemory);
//! assert_eq!(stack.frames.len(), 1);
//! assert!(!stack.truncated());
//! ```
#![deny(missing_docs)]

mod analysis;
mod cfi;
mod elf;
mod emulate;
mod insn;
mod unwind;

#[cfg(test)]
mod tests;

pub use elf::Layout;
pub use insn::call_site;
pub use unwind::{Unwinder, DEFAULT_MAX_FRAMES};

/// Guest memory as the unwinder reads it: little-endian values at any
/// byte address (no alignment required). `None` if the address cannot be
/// read; the stack is then truncated there.
pub trait UnwindMemory {
    /// The 32-bit little-endian value at `addr`.
    fn read_u32(&mut self, addr: u64) -> Option<u32>;
    /// The 64-bit little-endian value at `addr`.
    fn read_u64(&mut self, addr: u64) -> Option<u64>;
}

/// The integer registers and pc of the stopped hart. `x[0]` is ignored
/// (it reads as zero); on RV32 the values are zero-extended 32-bit values.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Registers {
    /// `x0`..`x31` (DWARF registers 0..31 on RISC-V).
    pub x: [u64; 32],
    /// The pc: the next instruction to execute.
    pub pc: u64,
}

/// How a frame was found.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum FrameSource {
    /// Frame 0: the stopped pc.
    Pc,
    /// The callee's DWARF call-frame information gave its return address.
    Cfi,
    /// The callee had no CFI: the frame-pointer chain gave the return
    /// address.
    FramePointer,
    /// The callee (frame 0) had no CFI: the return address was the live
    /// `ra` register.
    LinkRegister,
    /// The callee was stopped in its epilogue (or in `-msave-restore`
    /// millicode): executing the remaining instructions up to its return
    /// on a copy of the registers gave the caller's state exactly.
    Epilogue,
    /// The callee had no CFI: a stack-height analysis of its code gave the
    /// CFA and where its return address was saved.
    CodeAnalysis,
}

/// One frame of an unwound stack.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Frame {
    /// Frame 0: the pc. Other frames: the address of the call instruction
    /// that made the call (the return address minus the length of the
    /// `jal`/`jalr`/`c.jalr`/`c.jal` before it; the return address minus 2
    /// if no call instruction is found there, which still lies inside the
    /// instruction before the return address).
    pub address: u64,
    /// The return address this frame was found by (`None` for frame 0).
    pub return_address: Option<u64>,
    /// The frame's canonical frame address (the `sp` before the call into
    /// it), when the unwinder computed it (every frame but the outermost).
    pub cfa: Option<u64>,
    /// How the frame was found.
    pub source: FrameSource,
}

/// Why unwinding ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum StackEnd {
    /// Root: the outermost frame is in the entry function.
    EntryFunction,
    /// Root: the return address is 0.
    ReturnAddressZero,
    /// Root: the CFI marks the return address undefined.
    UndefinedReturnAddress,
    /// Root: unwinding could not continue past the frame of `main`'s
    /// caller (start-up code often has no unwind information; nothing
    /// above it belongs to the program proper).
    MainCaller,
    /// Truncated: no CFI covers the frame and the frame-pointer (and, for
    /// frame 0, link-register) rule does not apply.
    NoUnwindInfo,
    /// Truncated: a rule needs a register whose value is unknown here.
    RegisterUnknown,
    /// Truncated: a memory read at this address failed.
    MemoryUnreadable(u64),
    /// Truncated: the return address is outside the program's executable
    /// segments.
    OutsideProgram(u64),
    /// Truncated: the CFA did not grow (or is below `sp`).
    CfaNotGrowing,
    /// Truncated: the CFI could not be evaluated (an unsupported rule or
    /// malformed data).
    BadCfi,
    /// Truncated: more than [`Unwinder::max_frames`] frames.
    TooDeep,
}

impl StackEnd {
    /// True if the stack reached a root (it is complete).
    pub fn is_root(self) -> bool {
        matches!(
            self,
            StackEnd::EntryFunction
                | StackEnd::ReturnAddressZero
                | StackEnd::UndefinedReturnAddress
                | StackEnd::MainCaller
        )
    }
}

/// An unwound stack.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Stack {
    /// Frames, innermost (the pc) first.
    pub frames: Vec<Frame>,
    /// Why unwinding ended.
    pub end: StackEnd,
}

impl Stack {
    /// True if unwinding stopped before reaching a root.
    pub fn truncated(&self) -> bool {
        !self.end.is_root()
    }

    /// True if every frame above the first was found by an exact rule —
    /// CFI, or executing an epilogue ([`FrameSource::Epilogue`]) — and the
    /// stack ended at the entry function, a return address of 0 or one the
    /// CFI declares undefined: no heuristic (link register, frame pointer)
    /// was used and [`StackEnd::MainCaller`] was not needed.
    pub fn exact_rules_only(&self) -> bool {
        matches!(
            self.end,
            StackEnd::EntryFunction
                | StackEnd::ReturnAddressZero
                | StackEnd::UndefinedReturnAddress
        ) && self.frames[1..]
            .iter()
            .all(|f| matches!(f.source, FrameSource::Cfi | FrameSource::Epilogue))
    }

    /// The frame addresses, innermost first (frame 0's pc, then call sites).
    pub fn addresses(&self) -> Vec<u64> {
        self.frames.iter().map(|f| f.address).collect()
    }
}

/// Errors of building an [`Unwinder`].
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The ELF file could not be parsed.
    #[error("not a readable ELF file: {0}")]
    Elf(String),
    /// The ELF is not a 32- or 64-bit RISC-V program.
    #[error("not a RISC-V program ({0})")]
    NotRiscv(String),
    /// A call-frame section could not be read (an [`Unwinder`] leaves such
    /// a section out and reports it in [`Unwinder::warnings`]).
    #[error("cannot read {section}: {message}")]
    Cfi {
        /// `.eh_frame` or `.debug_frame`.
        section: &'static str,
        /// What went wrong.
        message: String,
    },
}
