//! The unwinder: CFI first, then the frame-pointer and link-register rules.

use std::collections::HashMap;
use std::sync::Arc;

use gimli::{DebugFrame, EhFrame, EvaluationResult, Expression, UnwindContext, Value};

use crate::analysis::{analyse, Analysis};
use crate::cfi::{Cfa, Row, Rule, Table, R};
use crate::elf::Layout;
use crate::emulate::{run_to_return, scan_leaf, sets_frame_pointer, Overlay, Regs, WithOverlay};
use crate::insn::call_site;
use crate::{Error, Frame, FrameSource, Registers, Stack, StackEnd, UnwindMemory};

/// DWARF register numbers of the RISC-V integer registers used by the
/// fallback rules (RISC-V ELF psABI, "DWARF Register Numbers").
const RA: usize = 1;
const SP: usize = 2;
const FP: usize = 8;

/// Largest frame the frame-pointer rule accepts (`s0 - sp`), bytes: a
/// frame pointer further away is taken for garbage.
const MAX_FP_FRAME: u64 = 64 << 20;

/// Longest stretch from a function's start to the pc that the
/// link-register rule scans for a frame being set up, bytes.
const MAX_LEAF_SCAN: u64 = 4096;

/// Default of [`Unwinder::max_frames`].
pub const DEFAULT_MAX_FRAMES: usize = 4096;

/// What the row cache holds for an address.
#[derive(Clone, Debug)]
enum Cached {
    /// No FDE covers it.
    NoFde,
    /// An FDE covers it but could not be evaluated.
    Bad,
    /// The row.
    Row(Arc<Row>),
}

/// `table`, or `None` with a warning naming the section if it could not
/// be read.
fn usable<T>(table: Result<T, Error>, warnings: &mut Vec<String>) -> Option<T> {
    match table {
        Ok(t) => Some(t),
        Err(e) => {
            warnings.push(format!(
                "{e}; unwinding without it (frame pointers and code analysis)"
            ));
            None
        }
    }
}

/// A stack unwinder for one program. Build it once (it indexes every FDE)
/// and call [`Unwinder::unwind`] for each stop. Rows are cached per lookup
/// address, so repeated samples of the same code cost a lookup each.
pub struct Unwinder {
    layout: Layout,
    eh: Option<Table<EhFrame<R>>>,
    debug: Option<Table<DebugFrame<R>>>,
    ctx: Box<UnwindContext<usize>>,
    rows: HashMap<u64, Cached>,
    /// Code analyses of functions without CFI, by start address.
    analyses: HashMap<u64, Option<Arc<Analysis>>>,
    entry_function: Option<(u64, u64)>,
    max_frames: usize,
    code_analysis: bool,
    /// Call-frame sections left out because they could not be read.
    warnings: Vec<String>,
}

impl std::fmt::Debug for Unwinder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Unwinder")
            .field("layout", &self.layout)
            .field("eh_frame_fdes", &self.eh.as_ref().map_or(0, |t| t.len()))
            .field(
                "debug_frame_fdes",
                &self.debug.as_ref().map_or(0, |t| t.len()),
            )
            .field("max_frames", &self.max_frames)
            .finish()
    }
}

impl Unwinder {
    /// An unwinder for the RISC-V ELF file `elf` (its contents): layout
    /// from the program headers and symbol table, CFI from `.eh_frame` and
    /// `.debug_frame` (either may be absent: the fallback rules then do
    /// all the work).
    ///
    /// # Errors
    /// [`Error::Elf`] if the file is not ELF, [`Error::NotRiscv`] for
    /// another architecture. A call-frame section whose entries cannot be
    /// iterated (corrupt CFI) is left out, as if the program had none, and
    /// named in [`Unwinder::warnings`].
    pub fn from_elf(elf: &[u8]) -> Result<Unwinder, Error> {
        let parts = crate::elf::read(elf)?;
        Unwinder::build(parts.layout, parts.eh_frame, parts.debug_frame, parts.text)
    }

    /// An unwinder from its parts: `eh_frame` is the section's address and
    /// contents, `debug_frame` the contents of `.debug_frame` (text-relative
    /// pointer encodings are not supported this way: the text base is 0).
    ///
    /// A section whose entries cannot be iterated is left out and named in
    /// [`Unwinder::warnings`].
    ///
    /// # Errors
    /// None today; the `Result` keeps room for layout checks.
    pub fn new(
        layout: Layout,
        eh_frame: Option<(u64, Vec<u8>)>,
        debug_frame: Option<Vec<u8>>,
    ) -> Result<Unwinder, Error> {
        Unwinder::build(layout, eh_frame, debug_frame, 0)
    }

    fn build(
        layout: Layout,
        eh_frame: Option<(u64, Vec<u8>)>,
        debug_frame: Option<Vec<u8>>,
        text: u64,
    ) -> Result<Unwinder, Error> {
        let size = layout.address_size;
        let keep = |a: u64| layout.in_code(a);
        // Corrupt CFI is treated like missing CFI (the fallback rules
        // unwind without it), with one warning per section.
        let mut warnings = Vec::new();
        let eh = eh_frame.and_then(|(addr, data)| {
            usable(
                Table::eh_frame(addr, data, text, size, &keep),
                &mut warnings,
            )
        });
        let debug = debug_frame
            .and_then(|data| usable(Table::debug_frame(data, size, &keep), &mut warnings));
        let entry_function = layout.function_of(layout.entry);
        Ok(Unwinder {
            layout,
            eh,
            debug,
            ctx: Box::new(UnwindContext::new()),
            rows: HashMap::new(),
            analyses: HashMap::new(),
            entry_function,
            max_frames: DEFAULT_MAX_FRAMES,
            code_analysis: true,
            warnings,
        })
    }

    /// One line per call-frame section (`.eh_frame`, `.debug_frame`) that
    /// was left out because it could not be read, naming the section and
    /// the cause, e.g. `cannot read .eh_frame: Hit the end of input before
    /// it was expected; unwinding without it (frame pointers and code
    /// analysis)`. Empty when all CFI was usable.
    pub fn warnings(&self) -> &[String] {
        &self.warnings
    }

    /// The program layout in use.
    pub fn layout(&self) -> &Layout {
        &self.layout
    }

    /// Most frames a stack may have before it is cut as
    /// [`StackEnd::TooDeep`] (default 4096).
    pub fn max_frames(&self) -> usize {
        self.max_frames
    }

    /// Set [`Unwinder::max_frames`] (at least 1).
    pub fn set_max_frames(&mut self, n: usize) {
        self.max_frames = n.max(1);
    }

    /// Use the code analysis for frames without CFI (default true); off,
    /// only the frame-pointer and link-register rules remain, as in
    /// unwinders that do not read code.
    pub fn set_code_analysis(&mut self, on: bool) {
        self.code_analysis = on;
    }

    /// Number of FDEs indexed from `.eh_frame` and from `.debug_frame`.
    pub fn fde_counts(&self) -> (usize, usize) {
        (
            self.eh.as_ref().map_or(0, |t| t.len()),
            self.debug.as_ref().map_or(0, |t| t.len()),
        )
    }

    /// True if an FDE covers `addr`.
    pub fn has_cfi(&mut self, addr: u64) -> bool {
        !matches!(self.lookup(addr), Cached::NoFde)
    }

    /// The (cached) row for `addr`: `.eh_frame` first, then `.debug_frame`.
    fn lookup(&mut self, addr: u64) -> Cached {
        if let Some(c) = self.rows.get(&addr) {
            return c.clone();
        }
        let found = match self.eh.as_ref().and_then(|t| t.row(addr, &mut self.ctx)) {
            Some(r) => Some(r),
            None => self.debug.as_ref().and_then(|t| t.row(addr, &mut self.ctx)),
        };
        let c = match found {
            None => Cached::NoFde,
            Some(Ok(row)) => Cached::Row(Arc::new(row)),
            Some(Err(())) => Cached::Bad,
        };
        self.rows.insert(addr, c.clone());
        c
    }

    fn in_entry_function(&self, addr: u64) -> bool {
        self.entry_function
            .is_some_and(|(lo, hi)| lo <= addr && addr < hi)
    }

    fn word(&self) -> u64 {
        u64::from(self.layout.address_size)
    }

    fn rv64(&self) -> bool {
        self.layout.address_size == 8
    }

    /// Read one saved register (XLEN bits) at `addr`.
    fn read_word(&self, mem: &mut dyn UnwindMemory, addr: u64) -> Result<u64, StackEnd> {
        let v = if self.rv64() {
            mem.read_u64(addr)
        } else {
            mem.read_u32(addr).map(u64::from)
        };
        v.ok_or(StackEnd::MemoryUnreadable(addr))
    }

    /// True if `ra` is a plausible return address: in the program's code,
    /// right after a call instruction.
    fn is_return_address(&self, mem: &mut dyn UnwindMemory, ra: u64) -> bool {
        self.layout.in_code(ra) && call_site(mem, ra, self.rv64()).is_some()
    }

    /// Unwind the stack of a hart stopped with `regs`, reading its memory
    /// through `mem` (read-only). Never fails: a stack that cannot be
    /// unwound to a root is returned as far as it went, with the reason.
    pub fn unwind(&mut self, regs: &Registers, mem: &mut dyn UnwindMemory) -> Stack {
        let rv64 = self.rv64();
        let mask = if rv64 { u64::MAX } else { 0xffff_ffff };
        let mut x: Regs = regs.x.map(|v| Some(v & mask));
        x[0] = Some(0);
        let pc = regs.pc & mask;
        let mut frames = vec![Frame {
            address: pc,
            return_address: None,
            cfa: None,
            source: FrameSource::Pc,
        }];
        let mut prev_cfa: Option<u64> = None;
        // Stores made by executed code (millicode saves).
        let mut overlay = Overlay::default();
        // Where the current frame resumes, where its CFI row is looked up,
        // and whether all its registers are known exactly (frame 0, and
        // frames reached by executing code).
        let mut cur_pc = pc;
        let mut lookup = pc;
        let mut exact = true;
        loop {
            let k = frames.len() - 1;
            if self.in_entry_function(frames[k].address) {
                return Stack {
                    frames,
                    end: StackEnd::EntryFunction,
                };
            }
            if frames.len() >= self.max_frames {
                return Stack {
                    frames,
                    end: StackEnd::TooDeep,
                };
            }
            let mut m = WithOverlay {
                mem: &mut *mem,
                overlay: &overlay,
            };
            let sp = x[SP].unwrap_or(0);
            if exact {
                // A return must land after a call (`jr t0` in hand-written
                // code may be a computed jump, not a millicode return).
                let returned = run_to_return(&x, cur_pc, &mut m, &overlay, rv64).filter(|r| {
                    let t = r.target & mask;
                    (t == 0 && r.via == 1) || self.is_return_address(&mut m, t)
                });
                if let Some(r) = returned {
                    let target = r.target & mask;
                    let millicode = r.via == 5;
                    let cfa = r.regs[SP].unwrap_or(0);
                    if !millicode {
                        if target == 0 {
                            return Stack {
                                frames,
                                end: StackEnd::ReturnAddressZero,
                            };
                        }
                        if cfa < sp || prev_cfa.is_some_and(|p| cfa <= p) {
                            return self.ended(frames, StackEnd::CfaNotGrowing);
                        }
                        frames[k].cfa = Some(cfa);
                    }
                    if !self.layout.in_code(target) {
                        return self.ended(frames, StackEnd::OutsideProgram(target));
                    }
                    let site = call_site(&mut m, target, rv64).unwrap_or(target.wrapping_sub(2));
                    frames.push(Frame {
                        address: site,
                        return_address: Some(target),
                        cfa: None,
                        source: FrameSource::Epilogue,
                    });
                    x = r.regs;
                    overlay = r.overlay;
                    cur_pc = target;
                    // After a millicode save routine's `jr t0` the function
                    // is mid-prologue: its row is the one at the return.
                    lookup = if millicode { target } else { site };
                    if !millicode {
                        prev_cfa = Some(cfa);
                    }
                    continue;
                }
            }
            let step = match self.lookup(lookup) {
                Cached::Row(row) => self.step_cfi(&row, &x, &mut m),
                Cached::NoFde => match self.step_analysis(lookup, k == 0, &x, &mut m) {
                    Some(s) => Ok(s),
                    None if exact => self.step_no_cfi_leaf(cur_pc, &x, &mut m),
                    None if self.uses_frame_pointer(lookup, &mut m) => {
                        self.step_frame_pointer(&x, &mut m)
                    }
                    None => Err(StackEnd::NoUnwindInfo),
                },
                Cached::Bad => Err(StackEnd::BadCfi),
            };
            let (caller, ra, cfa, source) = match step {
                Ok(s) => s,
                Err(end) => return self.ended(frames, end),
            };
            let ra = match ra {
                None => {
                    return Stack {
                        frames,
                        end: StackEnd::UndefinedReturnAddress,
                    }
                }
                Some(v) => v & mask,
            };
            if cfa < sp || prev_cfa.is_some_and(|p| cfa <= p) {
                return self.ended(frames, StackEnd::CfaNotGrowing);
            }
            frames[k].cfa = Some(cfa);
            if ra == 0 {
                return Stack {
                    frames,
                    end: StackEnd::ReturnAddressZero,
                };
            }
            if !self.layout.in_code(ra) {
                return self.ended(frames, StackEnd::OutsideProgram(ra));
            }
            let site = call_site(&mut m, ra, rv64).unwrap_or(ra.wrapping_sub(2));
            frames.push(Frame {
                address: site,
                return_address: Some(ra),
                cfa: None,
                source,
            });
            x = caller;
            prev_cfa = Some(cfa);
            cur_pc = ra;
            lookup = site;
            exact = false;
        }
    }

    /// The stack as far as it went, ending with `end`, unless the frame
    /// that could not be unwound is `main`'s caller (the frame below it is
    /// in `main`): that is a root ([`StackEnd::MainCaller`]).
    fn ended(&self, frames: Vec<Frame>, end: StackEnd) -> Stack {
        let k = frames.len();
        let below_in_main = k >= 2
            && self
                .layout
                .main
                .is_some_and(|(lo, hi)| (lo..hi).contains(&frames[k - 2].address));
        let end = if below_in_main && !end.is_root() {
            StackEnd::MainCaller
        } else {
            end
        };
        Stack { frames, end }
    }

    /// Apply a CFI row: the caller's registers, return address (`None` if
    /// undefined) and this frame's CFA.
    #[allow(clippy::type_complexity)]
    fn step_cfi(
        &self,
        row: &Row,
        x: &Regs,
        mem: &mut dyn UnwindMemory,
    ) -> Result<(Regs, Option<u64>, u64, FrameSource), StackEnd> {
        let cfa = match &row.cfa {
            Cfa::RegOffset(reg, off) => {
                let base = reg_value(x, *reg)?;
                base.wrapping_add(*off as u64)
            }
            Cfa::Expr(e) => self.evaluate(e, row, x, mem, None)?,
        };
        let mut caller = *x;
        caller[SP] = Some(cfa);
        let mut ra_rule_seen = false;
        for (reg, rule) in &row.regs {
            let value = match rule {
                Rule::Undefined => None,
                Rule::Offset(n) => Some(self.read_word(mem, cfa.wrapping_add(*n as u64))?),
                Rule::ValOffset(n) => Some(cfa.wrapping_add(*n as u64)),
                Rule::Register(r) => Some(reg_value(x, *r)?),
                Rule::Expr(e) => {
                    let addr = self.evaluate(e, row, x, mem, Some(cfa))?;
                    Some(self.read_word(mem, addr)?)
                }
                Rule::ValExpr(e) => Some(self.evaluate(e, row, x, mem, Some(cfa))?),
                Rule::Constant(c) => Some(*c),
                Rule::Unsupported => return Err(StackEnd::BadCfi),
            };
            if *reg == row.ra_column {
                ra_rule_seen = true;
            }
            if let Some(slot) = caller.get_mut(usize::from(*reg)) {
                if *reg != 0 {
                    *slot = value;
                }
            }
        }
        let ra_col = usize::from(row.ra_column);
        let ra = if ra_col >= 32 {
            return Err(StackEnd::BadCfi);
        } else if !ra_rule_seen && row.ra_undefined {
            None
        } else {
            match caller[ra_col] {
                Some(v) => Some(v),
                // An explicit undefined rule for the return-address column.
                None if ra_rule_seen => None,
                None => return Err(StackEnd::RegisterUnknown),
            }
        };
        Ok((caller, ra, cfa, FrameSource::Cfi))
    }

    /// A frame without CFI, by the code analysis of its function at `addr`
    /// (the pc, or the call site above frame 0): `None` if the function is
    /// unknown, its state there is unknown, a value cannot be read, or the
    /// return address found is not one (inside the program, after a call).
    /// Above frame 0 the return address must have been saved (a function
    /// that made a call saved `ra`).
    #[allow(clippy::type_complexity)]
    fn step_analysis(
        &mut self,
        addr: u64,
        leaf: bool,
        x: &Regs,
        mem: &mut dyn UnwindMemory,
    ) -> Option<(Regs, Option<u64>, u64, FrameSource)> {
        if !self.code_analysis {
            return None;
        }
        let (start, end) = self.layout.function_of(addr)?;
        let rv64 = self.rv64();
        let analysis = self
            .analyses
            .entry(start)
            .or_insert_with(|| analyse(mem, start, end, rv64).map(Arc::new))
            .clone()?;
        let st = analysis.at(addr)?;
        let cfa = match (st.height, st.fp) {
            (Some(h), _) if x[SP].is_some() => x[SP]?.wrapping_add(h as u64),
            (_, Some(f)) => x[FP]?.wrapping_sub(f as u64),
            _ => return None,
        };
        if !leaf && st.saved[RA].is_none() {
            return None;
        }
        let mut caller = *x;
        for (r, off) in st.saved.iter().enumerate() {
            if let Some(off) = off {
                caller[r] = Some(self.read_word(mem, cfa.wrapping_add(*off as u64)).ok()?);
            }
        }
        caller[SP] = Some(cfa);
        let ra = caller[RA]?;
        if ra != 0 && !self.is_return_address(mem, ra) {
            return None;
        }
        Some((caller, Some(ra), cfa, FrameSource::CodeAnalysis))
    }

    /// Frame 0 without CFI: the frame pointer if its saved `ra` equals
    /// the `ra` register; else, if `ra` is live (a return address into
    /// another function, and the function has not saved `ra` before the
    /// pc), `ra` with the CFA found by scanning the function's start for
    /// stack allocations and register saves; else the frame pointer alone.
    #[allow(clippy::type_complexity)]
    fn step_no_cfi_leaf(
        &self,
        pc: u64,
        x: &Regs,
        mem: &mut dyn UnwindMemory,
    ) -> Result<(Regs, Option<u64>, u64, FrameSource), StackEnd> {
        let fp_step = if self.uses_frame_pointer(pc, mem) {
            self.step_frame_pointer(x, mem)
        } else {
            Err(StackEnd::NoUnwindInfo)
        };
        let own = self.layout.function_of(pc);
        let live_ra = x[RA].filter(|&ra| {
            let other_function = own.is_none() || own != self.layout.function_of(ra);
            other_function && self.is_return_address(mem, ra)
        });
        if let (Ok(s), Some(ra)) = (&fp_step, live_ra) {
            if s.1 == Some(ra) {
                return fp_step;
            }
        }
        if let Some(ra) = live_ra {
            let sp = x[SP].ok_or(StackEnd::RegisterUnknown)?;
            // Outside any known function (a linker stub): nothing set up.
            let frame = match own {
                None => Some(Default::default()),
                Some((start, _)) => scan_leaf(mem, start, pc, self.rv64(), MAX_LEAF_SCAN),
            };
            if let Some(frame) = frame {
                let cfa = sp.wrapping_add(frame.size);
                let mut caller = *x;
                caller[SP] = Some(cfa);
                for (reg, off) in frame.saved {
                    let slot = usize::from(reg);
                    // Callee-saved registers (s0-s11) come back from their
                    // slots; the others are dead across the call anyway.
                    if matches!(slot, 8 | 9 | 18..=27) {
                        caller[slot] = Some(self.read_word(mem, cfa.wrapping_add(off as u64))?);
                    }
                }
                return Ok((caller, Some(ra), cfa, FrameSource::LinkRegister));
            }
        }
        fp_step
    }

    /// True if the function containing `addr` sets `s0` from `sp` before
    /// `addr` (so `s0` may be its frame pointer there): the frame-pointer
    /// rule is not applied to code that never sets one up, where `s0` is
    /// still the caller's frame pointer or an ordinary register.
    fn uses_frame_pointer(&self, addr: u64, mem: &mut dyn UnwindMemory) -> bool {
        self.layout.function_of(addr).is_some_and(|(start, _)| {
            sets_frame_pointer(mem, start, addr, self.rv64(), MAX_LEAF_SCAN)
        })
    }

    /// The frame-pointer rule (GCC's RISC-V layout with
    /// `-fno-omit-frame-pointer`): `s0` is the CFA, the return address is
    /// at `s0 - XLEN/8` and the caller's `s0` at `s0 - 2*XLEN/8`.
    #[allow(clippy::type_complexity)]
    fn step_frame_pointer(
        &self,
        x: &Regs,
        mem: &mut dyn UnwindMemory,
    ) -> Result<(Regs, Option<u64>, u64, FrameSource), StackEnd> {
        let w = self.word();
        let (Some(fp), Some(sp)) = (x[FP], x[SP]) else {
            return Err(StackEnd::NoUnwindInfo);
        };
        if fp % w != 0 || fp < sp.saturating_add(2 * w) || fp - sp > MAX_FP_FRAME {
            return Err(StackEnd::NoUnwindInfo);
        }
        let ra = self
            .read_word(mem, fp - w)
            .map_err(|_| StackEnd::NoUnwindInfo)?;
        let caller_fp = self
            .read_word(mem, fp - 2 * w)
            .map_err(|_| StackEnd::NoUnwindInfo)?;
        // A saved 0 is not taken for a root here: memory that is not a
        // frame is often zero.
        if !self.is_return_address(mem, ra) {
            return Err(StackEnd::NoUnwindInfo);
        }
        let mut caller: Regs = [None; 32];
        caller[0] = Some(0);
        caller[RA] = Some(ra);
        caller[SP] = Some(fp);
        caller[FP] = Some(caller_fp);
        Ok((caller, Some(ra), fp, FrameSource::FramePointer))
    }

    /// Evaluate a CFI expression; `cfa` is pushed first for register rules
    /// (DWARF v5 §6.4.1: DW_CFA_expression, DW_CFA_val_expression).
    fn evaluate(
        &self,
        e: &Expression<R>,
        row: &Row,
        x: &Regs,
        mem: &mut dyn UnwindMemory,
        cfa: Option<u64>,
    ) -> Result<u64, StackEnd> {
        let mut eval = e.clone().evaluation(row.encoding);
        if let Some(c) = cfa {
            eval.set_initial_value(c);
        }
        let mut step = eval.evaluate().map_err(|_| StackEnd::BadCfi)?;
        for _ in 0..256 {
            step = match step {
                EvaluationResult::Complete => {
                    let pieces = eval.result();
                    return match pieces.first().map(|p| &p.location) {
                        Some(gimli::Location::Address { address }) => Ok(*address),
                        Some(gimli::Location::Value { value }) => {
                            value.to_u64(u64::MAX).map_err(|_| StackEnd::BadCfi)
                        }
                        Some(gimli::Location::Register { register }) => reg_value(x, register.0),
                        _ => Err(StackEnd::BadCfi),
                    };
                }
                EvaluationResult::RequiresRegister { register, .. } => {
                    let v = reg_value(x, register.0)?;
                    eval.resume_with_register(Value::Generic(v))
                        .map_err(|_| StackEnd::BadCfi)?
                }
                EvaluationResult::RequiresMemory { address, size, .. } => {
                    let v = match size {
                        4 => u64::from(
                            mem.read_u32(address)
                                .ok_or(StackEnd::MemoryUnreadable(address))?,
                        ),
                        8 => mem
                            .read_u64(address)
                            .ok_or(StackEnd::MemoryUnreadable(address))?,
                        1 | 2 => {
                            let v = mem
                                .read_u32(address)
                                .ok_or(StackEnd::MemoryUnreadable(address))?;
                            u64::from(v) & ((1u64 << (8 * size)) - 1)
                        }
                        _ => return Err(StackEnd::BadCfi),
                    };
                    eval.resume_with_memory(Value::Generic(v))
                        .map_err(|_| StackEnd::BadCfi)?
                }
                EvaluationResult::RequiresCallFrameCfa => match cfa {
                    Some(c) => eval
                        .resume_with_call_frame_cfa(c)
                        .map_err(|_| StackEnd::BadCfi)?,
                    None => return Err(StackEnd::BadCfi),
                },
                _ => return Err(StackEnd::BadCfi),
            };
        }
        Err(StackEnd::BadCfi)
    }
}

/// The value of DWARF register `reg` (an integer register) in `x`.
fn reg_value(x: &Regs, reg: u16) -> Result<u64, StackEnd> {
    x.get(usize::from(reg))
        .copied()
        .flatten()
        .ok_or(StackEnd::RegisterUnknown)
}
