//! The call-frame information of one section (`.eh_frame` or
//! `.debug_frame`): every FDE indexed by address, and the unwind row for
//! an address reduced to the rules the unwinder applies.

use gimli::{
    BaseAddresses, CallFrameInstruction, CfaRule, CieOrFde, DebugFrame, EhFrame, Encoding,
    Expression, FrameDescriptionEntry, Register, RegisterRule, RunTimeEndian, UnwindContext,
    UnwindSection,
};
use std::sync::Arc;

use crate::Error;

/// The reader: sections are owned, shared by every FDE and expression.
pub(crate) type R = gimli::EndianArcSlice<RunTimeEndian>;

/// How to compute the CFA.
#[derive(Clone, Debug)]
pub(crate) enum Cfa {
    /// Register (DWARF number) plus offset.
    RegOffset(u16, i64),
    /// A DWARF expression whose result is the CFA.
    Expr(Expression<R>),
}

/// How to recover one register of the caller.
#[derive(Clone, Debug)]
pub(crate) enum Rule {
    /// No recoverable value.
    Undefined,
    /// Saved at CFA + offset.
    Offset(i64),
    /// The value CFA + offset.
    ValOffset(i64),
    /// In another register.
    Register(u16),
    /// Saved at the address the expression computes (CFA pushed first).
    Expr(Expression<R>),
    /// The value the expression computes (CFA pushed first).
    ValExpr(Expression<R>),
    /// A constant.
    Constant(u64),
    /// Something this unwinder does not apply (architectural rules).
    Unsupported,
}

/// The unwind row for one address.
#[derive(Clone, Debug)]
pub(crate) struct Row {
    pub cfa: Cfa,
    /// Explicit rules; registers without one keep their value.
    pub regs: Vec<(u16, Rule)>,
    /// The CIE's return-address column.
    pub ra_column: u16,
    /// The FDE or its CIE declares the return-address column undefined
    /// (`DW_CFA_undefined`): an outermost frame.
    pub ra_undefined: bool,
    /// Encoding for expression evaluation.
    pub encoding: Encoding,
}

/// One section's FDEs, sorted by start address.
pub(crate) struct Table<S: UnwindSection<R>> {
    section: S,
    bases: BaseAddresses,
    fdes: Vec<FrameDescriptionEntry<R>>,
}

/// A section's FDEs that cover code (`.debug_frame` of a linked program
/// keeps FDEs of discarded functions at address 0: `keep` drops them).
fn index<S: UnwindSection<R>>(
    section: &S,
    bases: &BaseAddresses,
    keep: &dyn Fn(u64) -> bool,
    name: &'static str,
) -> Result<Vec<FrameDescriptionEntry<R>>, Error> {
    let mut fdes = Vec::new();
    let mut entries = section.entries(bases);
    loop {
        let entry = entries.next().map_err(|e| Error::Cfi {
            section: name,
            message: e.to_string(),
        })?;
        match entry {
            None => break,
            Some(CieOrFde::Cie(_)) => {}
            Some(CieOrFde::Fde(partial)) => {
                // A malformed FDE is skipped: the others stay usable.
                if let Ok(fde) = partial.parse(S::cie_from_offset) {
                    if fde.len() > 0 && keep(fde.initial_address()) {
                        fdes.push(fde);
                    }
                }
            }
        }
    }
    fdes.sort_by_key(|f| f.initial_address());
    Ok(fdes)
}

impl Table<EhFrame<R>> {
    /// `.eh_frame` at `address` with `data`; `text` is the `.text` base.
    pub fn eh_frame(
        address: u64,
        data: Vec<u8>,
        text: u64,
        address_size: u8,
        keep: &dyn Fn(u64) -> bool,
    ) -> Result<Self, Error> {
        let reader = R::new(Arc::from(data), RunTimeEndian::Little);
        let mut section = EhFrame::from(reader);
        section.set_address_size(address_size);
        let bases = BaseAddresses::default()
            .set_eh_frame(address)
            .set_text(text);
        let fdes = index(&section, &bases, keep, ".eh_frame")?;
        Ok(Table {
            section,
            bases,
            fdes,
        })
    }
}

impl Table<DebugFrame<R>> {
    /// `.debug_frame` with `data`.
    pub fn debug_frame(
        data: Vec<u8>,
        address_size: u8,
        keep: &dyn Fn(u64) -> bool,
    ) -> Result<Self, Error> {
        let reader = R::new(Arc::from(data), RunTimeEndian::Little);
        let mut section = DebugFrame::from(reader);
        section.set_address_size(address_size);
        let bases = BaseAddresses::default();
        let fdes = index(&section, &bases, keep, ".debug_frame")?;
        Ok(Table {
            section,
            bases,
            fdes,
        })
    }
}

impl<S: UnwindSection<R>> Table<S> {
    /// Number of FDEs.
    pub fn len(&self) -> usize {
        self.fdes.len()
    }

    /// The FDE covering `addr`.
    fn fde(&self, addr: u64) -> Option<&FrameDescriptionEntry<R>> {
        let i = self.fdes.partition_point(|f| f.initial_address() <= addr);
        // Overlapping FDEs are rare; look back a little for one that covers.
        self.fdes[..i]
            .iter()
            .rev()
            .take(4)
            .find(|f| f.contains(addr))
    }

    /// The row for `addr`: `None` if no FDE covers it, `Some(Err(()))` if
    /// the FDE could not be evaluated.
    pub fn row(&self, addr: u64, ctx: &mut UnwindContext<usize>) -> Option<Result<Row, ()>> {
        let fde = self.fde(addr)?;
        Some(self.make_row(fde, addr, ctx))
    }

    fn make_row(
        &self,
        fde: &FrameDescriptionEntry<R>,
        addr: u64,
        ctx: &mut UnwindContext<usize>,
    ) -> Result<Row, ()> {
        let ra_column = fde.cie().return_address_register();
        let ra_undefined = self.declares_undefined(fde, ra_column);
        let row = fde
            .unwind_info_for_address(&self.section, &self.bases, ctx, addr)
            .map_err(|_| ())?;
        let cfa = match row.cfa() {
            CfaRule::RegisterAndOffset { register, offset } => Cfa::RegOffset(register.0, *offset),
            CfaRule::Expression(e) => Cfa::Expr(e.get(&self.section).map_err(|_| ())?),
        };
        let mut regs = Vec::new();
        for (reg, rule) in row.registers() {
            let r = match rule {
                RegisterRule::Undefined => Rule::Undefined,
                RegisterRule::SameValue => continue,
                RegisterRule::Offset(n) => Rule::Offset(*n),
                RegisterRule::ValOffset(n) => Rule::ValOffset(*n),
                RegisterRule::Register(r) => Rule::Register(r.0),
                RegisterRule::Expression(e) => Rule::Expr(e.get(&self.section).map_err(|_| ())?),
                RegisterRule::ValExpression(e) => {
                    Rule::ValExpr(e.get(&self.section).map_err(|_| ())?)
                }
                RegisterRule::Constant(c) => Rule::Constant(*c),
                _ => Rule::Unsupported,
            };
            regs.push((reg.0, r));
        }
        Ok(Row {
            cfa,
            regs,
            ra_column: ra_column.0,
            ra_undefined,
            encoding: fde.cie().encoding(),
        })
    }

    /// True if the CIE's initial instructions or the FDE's instructions
    /// contain `DW_CFA_undefined` for `reg` (gimli folds an undefined rule
    /// into "no rule", so it is looked for here).
    fn declares_undefined(&self, fde: &FrameDescriptionEntry<R>, reg: Register) -> bool {
        let is_undef = |i: &CallFrameInstruction<usize>| matches!(i, CallFrameInstruction::Undefined { register } if *register == reg);
        let mut found = false;
        let mut it = fde.cie().instructions(&self.section, &self.bases);
        while let Ok(Some(i)) = it.next() {
            found |= is_undef(&i);
        }
        let mut it = fde.instructions(&self.section, &self.bases);
        while let Ok(Some(i)) = it.next() {
            found |= is_undef(&i);
        }
        found
    }
}
