//! The A extension's operations (Unprivileged ISA 20191213, Chapter 8):
//! the one list of every `lr`, `sc` and AMO with the kind and width of its
//! memory access. The simulator's executor and access reports and the
//! timing model's operand facts ask [`Op::atomic`] instead of listing the
//! opcodes again. (The decoder and the disassembler keep their exhaustive
//! per-encoding and per-syntax matches, which the compiler checks cover
//! every [`Op`].)

use crate::inst::Op;

/// How an A-extension operation accesses memory.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum AtomicKind {
    /// `lr.w`/`lr.d`: a load that reserves the address (§8.2).
    LoadReserved,
    /// `sc.w`/`sc.d`: a store that succeeds only under a reservation (§8.2).
    StoreConditional,
    /// `amo*.w`/`amo*.d`: read, modify and write one word atomically (§8.4).
    ReadModifyWrite,
}

/// The memory access of an A-extension operation.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Atomic {
    /// Load-reserved, store-conditional or AMO.
    pub kind: AtomicKind,
    /// Bytes accessed: 4 for the `.w` forms, 8 for the `.d` forms (RV64 only).
    pub width: u8,
}

impl AtomicKind {
    /// Whether the operation reads memory (everything but `sc`).
    pub fn reads(self) -> bool {
        self != AtomicKind::StoreConditional
    }

    /// Whether the operation writes memory (everything but `lr`; a failed
    /// `sc` writes nothing, which only execution can tell).
    pub fn writes(self) -> bool {
        self != AtomicKind::LoadReserved
    }
}

impl Op {
    /// The memory access of an A-extension operation (`lr`, `sc` or an
    /// AMO, `.w` or `.d`); `None` for every other operation. Exactly the
    /// operations of class [`crate::InstClass::Atomic`].
    pub const fn atomic(self) -> Option<Atomic> {
        use AtomicKind::{LoadReserved as Lr, ReadModifyWrite as Amo, StoreConditional as Sc};
        let (kind, width) = match self {
            Op::LrW => (Lr, 4),
            Op::ScW => (Sc, 4),
            Op::AmoswapW
            | Op::AmoaddW
            | Op::AmoxorW
            | Op::AmoandW
            | Op::AmoorW
            | Op::AmominW
            | Op::AmomaxW
            | Op::AmominuW
            | Op::AmomaxuW => (Amo, 4),
            Op::LrD => (Lr, 8),
            Op::ScD => (Sc, 8),
            Op::AmoswapD
            | Op::AmoaddD
            | Op::AmoxorD
            | Op::AmoandD
            | Op::AmoorD
            | Op::AmominD
            | Op::AmomaxD
            | Op::AmominuD
            | Op::AmomaxuD => (Amo, 8),
            _ => return None,
        };
        Some(Atomic { kind, width })
    }
}

#[cfg(test)]
mod tests {
    use crate::{AtomicKind, InstClass, Op};

    #[test]
    fn atomic_is_exactly_the_atomic_class() {
        let mut n = 0;
        for &op in Op::ALL {
            let a = op.atomic();
            assert_eq!(a.is_some(), op.class() == InstClass::Atomic, "{op:?}");
            if let Some(a) = a {
                n += 1;
                // The `.d` forms are RV64A (§8.1) and their mnemonics end in `.d`.
                assert_eq!(a.width == 8, op.rv64_only(), "{op:?}");
                let mn = op.mnemonic();
                assert!(mn.ends_with(if a.width == 8 { ".d" } else { ".w" }), "{mn}");
                let kind = match &mn[..3] {
                    "lr." => AtomicKind::LoadReserved,
                    "sc." => AtomicKind::StoreConditional,
                    _ => AtomicKind::ReadModifyWrite,
                };
                assert_eq!(a.kind, kind, "{mn}");
            }
        }
        assert_eq!(n, 22, "lr, sc and 9 AMOs, each .w and .d");
    }
}
