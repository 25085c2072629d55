//! Lowering one block's micro-ops to Cranelift IR.
//!
//! The function made here does what [`crate::uop::exec_block`] does for the
//! same micro-ops, value for value: it takes a [`super::JitCall`] and
//! returns the same status. Guest integer registers live in Cranelift
//! variables inside the block (loaded from the hart at first use, written
//! back at every exit and before a helper that reads or writes them), so a
//! value computed by one instruction reaches the next in a host register.
//!
//! Every arithmetic rule below mirrors the interpreter's arm of the same
//! kind in `uop.rs` (RV32 values are kept sign-extended in 64 bits, results
//! are sign-extended from bit 31 on RV32; division by zero and overflow per
//! Unprivileged ISA 20191213, Table 7.1). The QEMU differential suite and
//! the interpreter-vs-translation tests (`jit/tests.rs`) check them.

use super::{helpers, JitCall};
use crate::block::{Block, BlockInfo, AFTER_JUMP, NO_BLOCK};
use crate::hart::Hart;
use crate::hooks::Hooks;
use crate::memory::FAST_PATH;
use crate::pipelined::{self, record};
use crate::uop::{Uop, K};
use crate::EventLog;
use cranelift_codegen::ir::condcodes::IntCC;
use cranelift_codegen::ir::{
    types, AbiParam, Block as IrBlock, InstBuilder, InstructionData, MemFlagsData, Opcode, SigRef,
    Signature, Type, Value,
};
use cranelift_codegen::isa::CallConv;
use cranelift_frontend::{FunctionBuilder, Switch, Variable};
use std::mem::offset_of;

const I64: Type = types::I64;
const I32: Type = types::I32;

/// Where a guest register's current value is.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Reg {
    /// In the hart (not loaded yet, or a helper may have changed it).
    InHart,
    /// In its variable, equal to the hart's copy.
    Clean,
    /// In its variable only: to be written back.
    Dirty,
}

/// Why a block cannot be translated (it then runs in the interpreter).
#[derive(Debug)]
pub(super) struct Unsupported;

/// The hooks' inline-count table as translated code holds it (see
/// [`crate::InlineCounts`]): the table's base and the current tag in
/// variables, read on entry and again after every helper call (only a
/// hook changes them); where the current tag lives.
#[derive(Clone, Copy)]
struct Inline {
    base: Variable,
    current: Variable,
    current_ptr: Value,
}

/// A block of the region being translated: its id, entry pc, length in
/// instructions, and the IR block its code starts at.
struct Member {
    id: u32,
    start: u64,
    count: u16,
    ir: IrBlock,
}

/// What the emitter is told about the region it translates (see
/// `mod.rs`, `Jit::build`): its blocks (the first is the one the function
/// is entered for) as `(id, start pc, length)`, and, over all their
/// micro-ops, the guest registers used and written (`x0` excluded).
pub(super) struct RegionPlan {
    pub blocks: Vec<(u32, u64, u16)>,
    pub used: [bool; 32],
    pub written: [bool; 32],
    /// Guest registers live in variables across the whole region (loaded
    /// once on entry, stored on every exit): true when control can pass
    /// from block to block inside the function.
    pub multi: bool,
}

/// The emitter of one block.
pub(super) struct Emitter<'a, 'f> {
    b: &'a mut FunctionBuilder<'f>,
    call: Value,
    hart: Value,
    mem: Value,
    vars: [Variable; 32],
    regs: [Reg; 32],
    rv64: bool,
    sigs: Sigs,
    /// The id of the block being emitted and the arena index of its first
    /// instruction.
    id: u32,
    first: u32,
    /// `Hart::executed` as of the current block's start (stored back to
    /// the hart before a helper that reads it and on every exit).
    done: Variable,
    members: Vec<Member>,
    used: [bool; 32],
    written: [bool; 32],
    multi: bool,
    /// With the hooks' inline counts (translated code counts blocks).
    inline: Option<Inline>,
    /// The current block's final transfer: its address, row group (0
    /// conditional branch, 1 `jal`, 2 `jalr`; see `crate::branch_row`) and
    /// the target its encoding fixes (0 for `jalr`), for the inline
    /// predictor.
    term_pc: u64,
    term_class: u8,
    term_target: u64,
}

/// Signatures of the helpers, imported once per function.
struct Sigs {
    load: SigRef,
    store: SigRef,
    hook4: SigRef,
    hook3: SigRef,
    general: SigRef,
    value: SigRef,
    block_exec: SigRef,
    jump: SigRef,
    tail: SigRef,
}

/// The addresses of the helpers for one XLEN and hooks type.
#[derive(Clone, Copy)]
pub(super) struct HelperAddrs {
    load: usize,
    store: usize,
    mem_hook: usize,
    operands_hook: usize,
    general: usize,
    bitmanip: usize,
    block_exec: usize,
    jump_hook: usize,
    branch_hook: usize,
    branch_front_hook: usize,
    wants_jumps: bool,
    wants_branches: bool,
    wants_memory: bool,
    wants_operands: bool,
    wants_block_exec: bool,
    /// The hooks have an event log (`Hooks::EVENT_LOG`): block starts,
    /// data accesses and branch outcomes are appended to it inline.
    log: bool,
    /// The log takes raw branch records (`Hooks::EVENT_LOG_BRANCHES`).
    log_branches: bool,
    /// The hooks' inline branch predictor (`Hooks::inline_predictor`):
    /// translated code predicts and records the verdicts itself.
    predictor: Option<crate::InlinePredictor>,
    /// The hooks' inline data cache (`Hooks::inline_dcache`): translated
    /// code settles most accesses itself and calls
    /// [`helpers::mem_unsettled_hook`] for the others.
    dcache: Option<crate::InlineDcache>,
    mem_unsettled_hook: usize,
    /// The hooks' inline counts layout: stride, count and tag offsets.
    inline: Option<(usize, usize, usize)>,
    /// Translated code may run the next block itself after a branch, a
    /// fall-through or a `jal`/`jalr` (which it reports itself): nothing
    /// else the run loop does between two such blocks is needed by these
    /// hooks.
    pub(super) chain: bool,
}

impl HelperAddrs {
    pub(super) fn of<const RV64: bool, H: Hooks>(
        inline: Option<crate::InlineCounts>,
        predictor: Option<crate::InlinePredictor>,
        dcache: Option<crate::InlineDcache>,
    ) -> HelperAddrs {
        HelperAddrs {
            load: helpers::load_slow::<H> as *const () as usize,
            store: helpers::store_slow::<H> as *const () as usize,
            mem_hook: helpers::mem_hook::<H> as *const () as usize,
            operands_hook: helpers::operands_hook::<H> as *const () as usize,
            general: helpers::general::<RV64, H> as *const () as usize,
            bitmanip: helpers::bitmanip::<RV64> as *const () as usize,
            block_exec: helpers::block_exec::<H> as *const () as usize,
            jump_hook: helpers::jump_hook::<H> as *const () as usize,
            branch_hook: helpers::branch_hook::<H> as *const () as usize,
            branch_front_hook: helpers::branch_front_hook::<H> as *const () as usize,
            wants_jumps: H::WANTS_JUMPS,
            wants_branches: H::WANTS_BRANCHES,
            wants_memory: H::WANTS_MEMORY,
            wants_operands: H::WANTS_OPERANDS,
            wants_block_exec: H::WANTS_BLOCK_EXEC,
            log: H::EVENT_LOG,
            log_branches: H::EVENT_LOG_BRANCHES,
            predictor: predictor.filter(|_| H::EVENT_LOG),
            dcache: dcache.filter(|_| H::EVENT_LOG && H::WANTS_MEMORY),
            mem_unsettled_hook: helpers::mem_unsettled_hook::<H> as *const () as usize,
            inline: inline.map(|i| (i.stride, i.count, i.tag)),
            chain: super::chains::<H>(),
        }
    }
}

fn sig(call_conv: CallConv, params: usize, ret: bool) -> Signature {
    let mut s = Signature::new(call_conv);
    s.params.extend((0..params).map(|_| AbiParam::new(I64)));
    if ret {
        s.returns.push(AbiParam::new(I64));
    }
    s
}

/// Trusted: in-bounds, aligned, never trapping accesses to host structures.
fn host() -> MemFlagsData {
    MemFlagsData::trusted()
}

/// Guest data through a host pointer: any alignment.
fn guest() -> MemFlagsData {
    MemFlagsData::new().with_notrap()
}

impl<'a, 'f> Emitter<'a, 'f> {
    /// Start the function of the region `plan` (entered for its first
    /// block): entry block, the call pointer, the executed count and the
    /// register variables (with `plan.multi`, every used register loaded).
    /// `call_conv` is the helpers' (the host's C convention). Emit each
    /// block after [`Emitter::begin`].
    pub(super) fn new(
        b: &'a mut FunctionBuilder<'f>,
        call_conv: CallConv,
        rv64: bool,
        plan: &RegionPlan,
        h: &HelperAddrs,
    ) -> Self {
        let entry = b.create_block();
        b.append_block_params_for_function_params(entry);
        b.switch_to_block(entry);
        b.seal_block(entry);
        let call = b.block_params(entry)[0];
        let hart = b
            .ins()
            .load(I64, host(), call, offset_of!(JitCall, hart) as i32);
        let mem = b
            .ins()
            .load(I64, host(), call, offset_of!(JitCall, mem) as i32);
        let vars = std::array::from_fn(|_| b.declare_var(I64));
        let done = b.declare_var(I64);
        let executed = b
            .ins()
            .load(I64, host(), hart, offset_of!(Hart, executed) as i32);
        b.def_var(done, executed);
        let sigs = Sigs {
            load: b.import_signature(sig(call_conv, 4, true)),
            store: b.import_signature(sig(call_conv, 5, true)),
            hook4: b.import_signature(sig(call_conv, 5, false)),
            hook3: b.import_signature(sig(call_conv, 4, false)),
            general: b.import_signature(sig(call_conv, 5, true)),
            value: b.import_signature(sig(call_conv, 5, true)),
            block_exec: b.import_signature(sig(call_conv, 3, false)),
            jump: b.import_signature(sig(call_conv, 5, false)),
            tail: b.import_signature(sig(CallConv::Tail, 2, true)),
        };
        let index = b.block_params(entry)[1];
        let head = plan.blocks[0].0;
        let members: Vec<Member> = plan
            .blocks
            .iter()
            .map(|&(id, start, count)| Member {
                id,
                start,
                count,
                ir: b.create_block(),
            })
            .collect();
        let mut e = Emitter {
            b,
            call,
            hart,
            mem,
            vars,
            regs: [Reg::InHart; 32],
            rv64,
            sigs,
            id: head,
            first: 0,
            done,
            members,
            used: plan.used,
            written: plan.written,
            multi: plan.multi,
            inline: None,
            term_pc: 0,
            term_class: 0,
            term_target: 0,
        };
        if h.inline.is_some() && h.wants_block_exec && h.chain {
            let at = offset_of!(JitCall, inline_current) as i32;
            let current_ptr = e.b.ins().load(I64, host(), call, at);
            e.inline = Some(Inline {
                base: e.b.declare_var(I64),
                current: e.b.declare_var(I32),
                current_ptr,
            });
            e.load_inline();
        }
        if e.multi {
            e.reload_used();
        }
        // The caller names the member to start at (the run loop, or a
        // chain slot, has set `JitCall::block` to its id).
        let mut switch = Switch::new();
        for (k, m) in e.members.iter().enumerate().skip(1) {
            switch.set_entry(k as u128, m.ir);
        }
        let first = e.members[0].ir;
        switch.emit(e.b, index, first);
        e
    }

    /// Load every register the region uses from the hart.
    fn reload_used(&mut self) {
        for r in 1..32u8 {
            let i = usize::from(r);
            if self.used[i] {
                let v = self.b.ins().load(I64, host(), self.hart, Self::x_offset(r));
                self.b.def_var(self.vars[i], v);
                self.regs[i] = Reg::Clean;
            }
        }
    }

    /// Start emitting block `id` (its first instruction at arena index
    /// `first`), a member of the region. In a multi-block region every
    /// register the region writes counts as dirty here, whatever path led
    /// here (writing back an unchanged value is harmless).
    pub(super) fn begin(&mut self, id: u32, first: u32) {
        let ir = self.member(id).expect("a member").ir;
        self.b.switch_to_block(ir);
        self.id = id;
        self.first = first;
        if self.multi {
            for i in 1..32 {
                self.regs[i] = if self.written[i] {
                    Reg::Dirty
                } else if self.used[i] {
                    Reg::Clean
                } else {
                    Reg::InHart
                };
            }
        }
    }

    fn member(&self, id: u32) -> Option<&Member> {
        self.members.iter().find(|m| m.id == id)
    }

    /// Store what a helper or the run loop reads of the current block's
    /// state besides the registers: the executed count at its start and
    /// its id.
    fn sync(&mut self) {
        let done = self.b.use_var(self.done);
        self.b
            .ins()
            .store(host(), done, self.hart, offset_of!(Hart, executed) as i32);
        let idv = self.b.ins().iconst(I32, i64::from(self.id));
        self.b
            .ins()
            .store(host(), idv, self.call, offset_of!(JitCall, block) as i32);
    }

    fn x_offset(r: u8) -> i32 {
        (offset_of!(Hart, x) + 8 * usize::from(r)) as i32
    }

    /// The current value of `x[r]`.
    fn get(&mut self, r: u8) -> Value {
        if r == 0 {
            return self.b.ins().iconst(I64, 0);
        }
        let i = usize::from(r);
        if self.regs[i] == Reg::InHart {
            let v = self.b.ins().load(I64, host(), self.hart, Self::x_offset(r));
            self.b.def_var(self.vars[i], v);
            self.regs[i] = Reg::Clean;
        }
        self.b.use_var(self.vars[i])
    }

    /// Write `x[rd]` (never `x0` for the kinds that write).
    fn set(&mut self, rd: u8, v: Value) {
        let i = usize::from(rd);
        debug_assert!(rd != 0);
        self.b.def_var(self.vars[i], v);
        self.regs[i] = Reg::Dirty;
    }

    /// Write every dirty register back to the hart (they stay valid in
    /// their variables).
    fn write_back(&mut self) {
        for r in 1..32u8 {
            let i = usize::from(r);
            if self.regs[i] == Reg::Dirty {
                let v = self.b.use_var(self.vars[i]);
                self.b.ins().store(host(), v, self.hart, Self::x_offset(r));
                self.regs[i] = Reg::Clean;
            }
        }
    }

    /// Store the dirty registers without changing their state (on a side
    /// path that leaves the function).
    fn write_back_on_exit(&mut self) {
        let saved = self.regs;
        self.write_back();
        self.regs = saved;
    }

    fn konst(&mut self, v: u64) -> Value {
        self.b.ins().iconst(I64, v as i64)
    }

    /// Call a helper; with the hooks' inline counts, the current block's id
    /// is stored as their last block first, and their table and current
    /// tag are read again after it (a hook may have moved or changed them).
    fn call_helper(&mut self, sig: SigRef, addr: usize, args: &[Value]) -> Option<Value> {
        if self.inline.is_some() {
            // The inline counts leave the last block started to be stored
            // before a hook may read it ([`crate::InlineCounts::last`]):
            // this block (at a transition, the one just done).
            let at = offset_of!(JitCall, inline_last) as i32;
            let last = self.b.ins().load(I64, host(), self.call, at);
            let id = self.b.ins().iconst(I32, i64::from(self.id));
            self.b.ins().store(host(), id, last, 0);
        }
        let f = self.b.ins().iconst(I64, addr as i64);
        let inst = self.b.ins().call_indirect(sig, f, args);
        let result = self.b.inst_results(inst).first().copied();
        if self.inline.is_some() {
            self.load_inline();
        }
        result
    }

    /// (Re)load the inline-count table's base and the current tag.
    fn load_inline(&mut self) {
        let Some(inl) = self.inline else {
            return;
        };
        let at = offset_of!(JitCall, inline_base) as i32;
        let base = self.b.ins().load(I64, host(), self.call, at);
        self.b.def_var(inl.base, base);
        let cur = self.b.ins().load(I32, host(), inl.current_ptr, 0);
        self.b.def_var(inl.current, cur);
    }

    /// If `status` (a helper's result) is not zero, return it from the
    /// function, with the registers, the count and the block id stored
    /// (the helpers that return a status read none of them).
    fn exit_if_nonzero(&mut self, status: Value) {
        let exit = self.b.create_block();
        let cont = self.b.create_block();
        self.b.ins().brif(status, exit, &[], cont, &[]);
        self.b.switch_to_block(exit);
        self.b.seal_block(exit);
        self.write_back_on_exit();
        self.sync();
        self.b.ins().return_(&[status]);
        self.b.switch_to_block(cont);
        self.b.seal_block(cont);
    }

    /// A memory helper's `info` argument: index `n` in the block, size in
    /// bytes, arena index (`helpers.rs`, `unpack`).
    fn mem_info(&mut self, n: u64, size: u64) -> Value {
        let k = u64::from(self.first) + n;
        self.konst(n | size << 8 | k << 16)
    }

    /// Sign-extend bits 31..0 of `v`.
    fn sext32(&mut self, v: Value) -> Value {
        let w = self.b.ins().ireduce(I32, v);
        self.b.ins().sextend(I64, w)
    }

    fn zext32(&mut self, v: Value) -> Value {
        let w = self.b.ins().ireduce(I32, v);
        self.b.ins().uextend(I64, w)
    }

    fn bool64(&mut self, cc: IntCC, a: Value, b: Value) -> Value {
        let c = self.b.ins().icmp(cc, a, b);
        self.b.ins().uextend(I64, c)
    }

    /// Effective address (RV32: 32 bits).
    fn ea(&mut self, base: Value, imm: u64) -> Value {
        let a = self.b.ins().iadd_imm_s(base, imm as i64);
        if self.rv64 {
            a
        } else {
            self.zext32(a)
        }
    }

    /// Emit micro-op `u` (index `n`, at `pc`) of block `id`; `last` when it
    /// is the last one this function runs.
    pub(super) fn uop(
        &mut self,
        h: &HelperAddrs,
        id: u32,
        u: &Uop,
        pc: u64,
        last: bool,
    ) -> Result<(), Unsupported> {
        let n = u64::from(u.idx);
        let rv64 = self.rv64;
        if h.wants_operands && u.kind.operands_matter() {
            let (a, b) = (self.get(u.rs1), self.get(u.rs2));
            let (call, nk) = (self.call, self.konst(n));
            self.call_helper(self.sigs.hook3, h.operands_hook, &[call, nk, a, b]);
        }
        let imm = u.imm;
        let v = match u.kind {
            K::Nop => return Ok(()),
            K::General => {
                self.write_back();
                self.sync();
                let id_k = u64::from(id) | (u64::from(self.first) + n) << 32;
                let args = [
                    self.call,
                    self.konst(id_k),
                    self.konst(n),
                    self.konst(pc),
                    self.konst(u64::from(last)),
                ];
                let st = self
                    .call_helper(self.sigs.general, h.general, &args)
                    .expect("returns");
                self.exit_if_nonzero(st);
                // The instruction may have read or written any register.
                if self.multi {
                    self.reload_used();
                } else {
                    self.regs = [Reg::InHart; 32];
                }
                return Ok(());
            }
            K::Li => self.konst(imm),
            K::Lb | K::Lh | K::Lw | K::Lbu | K::Lhu | K::Lwu | K::Ld => {
                let v = self.load(h, u, pc)?;
                self.set(u.rd, v);
                return Ok(());
            }
            K::Sb | K::Sh | K::Sw | K::Sd => {
                self.store(h, u, pc);
                return Ok(());
            }
            K::Beq | K::Bne | K::Blt | K::Bge | K::Bltu | K::Bgeu | K::Jal | K::Jalr => {
                // Block terminators run in the run loop, never here.
                return Err(Unsupported);
            }
            K::Bitmanip | K::Rotate => {
                let (a, b) = (self.get(u.rs1), self.get(u.rs2));
                let k = u64::from(self.first) + n;
                let args = [self.call, self.konst(k), a, b, self.konst(imm)];
                self.call_helper(self.sigs.value, h.bitmanip, &args)
                    .expect("returns")
            }
            kind => {
                let a = self.get(u.rs1);
                let b = self.get(u.rs2);
                self.alu(kind, a, b, imm)?
            }
        };
        let v = if rv64 { v } else { self.sext32(v) };
        self.set(u.rd, v);
        Ok(())
    }

    /// The integer operations: `a` = `x[rs1]`, `b` = `x[rs2]`.
    fn alu(&mut self, kind: K, a: Value, b: Value, imm: u64) -> Result<Value, Unsupported> {
        let rv64 = self.rv64;
        let v = match kind {
            K::Addi => self.b.ins().iadd_imm_s(a, imm as i64),
            K::Slti => {
                let k = self.konst(imm);
                self.bool64(IntCC::SignedLessThan, a, k)
            }
            K::Sltiu => {
                let k = self.konst(imm);
                self.bool64(IntCC::UnsignedLessThan, a, k)
            }
            K::Xori => self.b.ins().bxor_imm_s(a, imm as i64),
            K::Ori => self.b.ins().bor_imm_s(a, imm as i64),
            K::Andi => self.b.ins().band_imm_s(a, imm as i64),
            K::Slli => self.b.ins().ishl_imm_u(a, imm as i64),
            K::Srli => {
                if rv64 {
                    self.b.ins().ushr_imm_u(a, imm as i64)
                } else {
                    let z = self.zext32(a);
                    self.b.ins().ushr_imm_u(z, imm as i64)
                }
            }
            K::Srai => {
                if rv64 {
                    self.b.ins().sshr_imm_u(a, imm as i64)
                } else {
                    let a32 = self.b.ins().ireduce(I32, a);
                    let r = self.b.ins().sshr_imm_u(a32, imm as i64);
                    self.b.ins().sextend(I64, r)
                }
            }
            K::Add => self.b.ins().iadd(a, b),
            K::Sub => self.b.ins().isub(a, b),
            K::Sll => {
                let s = self.b.ins().band_imm_s(b, if rv64 { 63 } else { 31 });
                self.b.ins().ishl(a, s)
            }
            K::Slt => self.bool64(IntCC::SignedLessThan, a, b),
            K::Sltu => self.bool64(IntCC::UnsignedLessThan, a, b),
            K::Xor => self.b.ins().bxor(a, b),
            K::Srl => {
                if rv64 {
                    self.b.ins().ushr(a, b)
                } else {
                    let (a32, b32) = (self.b.ins().ireduce(I32, a), self.b.ins().ireduce(I32, b));
                    let r = self.b.ins().ushr(a32, b32);
                    self.b.ins().uextend(I64, r)
                }
            }
            K::Sra => {
                if rv64 {
                    self.b.ins().sshr(a, b)
                } else {
                    let (a32, b32) = (self.b.ins().ireduce(I32, a), self.b.ins().ireduce(I32, b));
                    let r = self.b.ins().sshr(a32, b32);
                    self.b.ins().sextend(I64, r)
                }
            }
            K::Or => self.b.ins().bor(a, b),
            K::And => self.b.ins().band(a, b),
            K::Addiw => {
                let s = self.b.ins().iadd_imm_s(a, imm as i64);
                self.sext32(s)
            }
            K::Slliw => {
                let s = self.b.ins().ishl_imm_u(a, imm as i64);
                self.sext32(s)
            }
            K::Srliw => {
                let a32 = self.b.ins().ireduce(I32, a);
                let r = self.b.ins().ushr_imm_u(a32, imm as i64);
                self.b.ins().sextend(I64, r)
            }
            K::Sraiw => {
                let a32 = self.b.ins().ireduce(I32, a);
                let r = self.b.ins().sshr_imm_u(a32, imm as i64);
                self.b.ins().sextend(I64, r)
            }
            K::Addw => {
                let s = self.b.ins().iadd(a, b);
                self.sext32(s)
            }
            K::Subw => {
                let s = self.b.ins().isub(a, b);
                self.sext32(s)
            }
            K::Sllw | K::Srlw | K::Sraw | K::Mulw => {
                // Cranelift masks a shift amount to the type's width, as
                // `b & 31` does.
                let (a32, b32) = (self.b.ins().ireduce(I32, a), self.b.ins().ireduce(I32, b));
                let r = match kind {
                    K::Sllw => self.b.ins().ishl(a32, b32),
                    K::Srlw => self.b.ins().ushr(a32, b32),
                    K::Sraw => self.b.ins().sshr(a32, b32),
                    _ => self.b.ins().imul(a32, b32),
                };
                self.b.ins().sextend(I64, r)
            }
            K::Mul => self.b.ins().imul(a, b),
            K::Mulh => {
                if rv64 {
                    self.b.ins().smulhi(a, b)
                } else {
                    let p = self.b.ins().imul(a, b);
                    self.b.ins().sshr_imm_u(p, 32)
                }
            }
            K::Mulhsu => {
                if rv64 {
                    // hi(a * b) signed-by-unsigned = umulhi(a, b) - (a < 0 ? b : 0).
                    let hi = self.b.ins().umulhi(a, b);
                    let neg = self.b.ins().sshr_imm_u(a, 63);
                    let fix = self.b.ins().band(neg, b);
                    self.b.ins().isub(hi, fix)
                } else {
                    let bz = self.zext32(b);
                    let p = self.b.ins().imul(a, bz);
                    self.b.ins().sshr_imm_u(p, 32)
                }
            }
            K::Mulhu => {
                if rv64 {
                    self.b.ins().umulhi(a, b)
                } else {
                    let (az, bz) = (self.zext32(a), self.zext32(b));
                    let p = self.b.ins().imul(az, bz);
                    self.b.ins().ushr_imm_u(p, 32)
                }
            }
            K::Div | K::Rem => self.signed_div(kind == K::Rem, I64, a, b),
            K::Divw | K::Remw => {
                let (a32, b32) = (self.b.ins().ireduce(I32, a), self.b.ins().ireduce(I32, b));
                let r = self.signed_div(kind == K::Remw, I32, a32, b32);
                self.b.ins().sextend(I64, r)
            }
            K::Divu | K::Remu => {
                if rv64 {
                    self.unsigned_div(kind == K::Remu, I64, a, b)
                } else {
                    let (a32, b32) = (self.b.ins().ireduce(I32, a), self.b.ins().ireduce(I32, b));
                    let r = self.unsigned_div(kind == K::Remu, I32, a32, b32);
                    // Divu by zero is u32::MAX zero-extended; the caller
                    // sign-extends every RV32 result anyway.
                    self.b.ins().uextend(I64, r)
                }
            }
            K::Divuw | K::Remuw => {
                let (a32, b32) = (self.b.ins().ireduce(I32, a), self.b.ins().ireduce(I32, b));
                let r = self.unsigned_div(kind == K::Remuw, I32, a32, b32);
                self.b.ins().sextend(I64, r)
            }
            _ => return Err(Unsupported),
        };
        Ok(v)
    }

    /// Signed division or remainder at width `ty`: by zero gives -1 (the
    /// remainder: `a`), overflow (MIN / -1) gives MIN (remainder 0).
    fn signed_div(&mut self, rem: bool, ty: Type, a: Value, b: Value) -> Value {
        let zero = self.b.ins().icmp_imm_s(IntCC::Equal, b, 0);
        let minus1 = self.b.ins().icmp_imm_s(IntCC::Equal, b, -1);
        let special = self.b.ins().bor(zero, minus1);
        let one = self.b.ins().iconst(ty, 1);
        let safe = self.b.ins().select(special, one, b);
        if rem {
            let r = self.b.ins().srem(a, safe);
            // a % 1 = 0 = a % -1; by zero the remainder is a.
            self.b.ins().select(zero, a, r)
        } else {
            let q = self.b.ins().sdiv(a, safe);
            // a / 1 = a; by -1 it is -a (wrapping: MIN stays MIN).
            let neg = self.b.ins().ineg(q);
            let q = self.b.ins().select(minus1, neg, q);
            let all = self.b.ins().iconst(ty, -1);
            self.b.ins().select(zero, all, q)
        }
    }

    /// Unsigned division or remainder at width `ty`: by zero gives all ones
    /// (the remainder: `a`).
    fn unsigned_div(&mut self, rem: bool, ty: Type, a: Value, b: Value) -> Value {
        let zero = self.b.ins().icmp_imm_s(IntCC::Equal, b, 0);
        let one = self.b.ins().iconst(ty, 1);
        let safe = self.b.ins().select(zero, one, b);
        if rem {
            let r = self.b.ins().urem(a, safe);
            self.b.ins().select(zero, a, r)
        } else {
            let q = self.b.ins().udiv(a, safe);
            let all = self.b.ins().iconst(ty, -1);
            self.b.ins().select(zero, all, q)
        }
    }

    /// Test `addr` against a memory hit cache (`fields`: offsets in
    /// [`crate::Memory`] of its start, fast length and pointer), then
    /// against its victim (the same fields `victim` bytes further): jump to
    /// `fast` with the host address on a hit, else to `slow`. For a store,
    /// `code` (offsets of the cache's code extent, and the access size)
    /// also requires the bytes to lie outside that extent.
    fn probe(
        &mut self,
        addr: Value,
        fields: (i32, i32, i32),
        code: Option<(i32, i32, u64)>,
        victim: i32,
        fast: IrBlock,
        slow: IrBlock,
    ) {
        let (start_at, len_at, ptr_at) = fields;
        for (k, shift) in [0, victim].into_iter().enumerate() {
            let ld = |e: &mut Self, at: i32| e.b.ins().load(I64, host(), e.mem, at + shift);
            let start = ld(self, start_at);
            let fast_len = ld(self, len_at);
            let off = self.b.ins().isub(addr, start);
            let mut hit = self.b.ins().icmp(IntCC::UnsignedLessThan, off, fast_len);
            if let Some((lo_at, hi_at, size)) = code {
                let (lo, hi) = (ld(self, lo_at), ld(self, hi_at));
                let above = self
                    .b
                    .ins()
                    .icmp(IntCC::UnsignedGreaterThanOrEqual, addr, hi);
                let top = self.b.ins().iadd_imm_s(addr, size as i64 - 1);
                let below = self.b.ins().icmp(IntCC::UnsignedLessThan, top, lo);
                let no_code = self.b.ins().bor(above, below);
                hit = self.b.ins().band(hit, no_code);
            }
            let this = self.b.create_block();
            let next = if k == 0 { self.b.create_block() } else { slow };
            self.b.ins().brif(hit, this, &[], next, &[]);
            self.b.switch_to_block(this);
            self.b.seal_block(this);
            let ptr = ld(self, ptr_at);
            let a = self.b.ins().iadd(ptr, off);
            self.b.ins().jump(fast, &[a.into()]);
            if k == 0 {
                self.b.switch_to_block(next);
                self.b.seal_block(next);
            }
        }
    }

    /// A load: inline when the address is in the load hit cache's region,
    /// else through [`helpers::load_slow`].
    fn load(&mut self, h: &HelperAddrs, u: &Uop, pc: u64) -> Result<Value, Unsupported> {
        let (size, ty, signed) = match u.kind {
            K::Lb => (1, types::I8, true),
            K::Lbu => (1, types::I8, false),
            K::Lh => (2, types::I16, true),
            K::Lhu => (2, types::I16, false),
            K::Lw => (4, I32, true),
            K::Lwu => (4, I32, false),
            K::Ld => (8, I64, false),
            _ => return Err(Unsupported),
        };
        let n = u64::from(u.idx);
        let base = self.get(u.rs1);
        let addr = self.ea(base, u.imm);
        let fast = self.b.create_block();
        let at = self.b.append_block_param(fast, I64);
        let slow = self.b.create_block();
        let done = self.b.create_block();
        let raw = self.b.append_block_param(done, I64);
        // The load cache, then its victim (as `Memory::load_u*`).
        let f = &FAST_PATH;
        let fields = (f.load_start, f.load_fast_len, f.load_ptr);
        self.probe(addr, fields, None, f.load_victim, fast, slow);

        self.b.switch_to_block(fast);
        self.b.seal_block(fast);
        let v = self.b.ins().load(ty, guest(), at, 0);
        let v = if ty == I64 {
            v
        } else {
            self.b.ins().uextend(I64, v)
        };
        if h.wants_memory {
            self.report_mem(h, n, addr, size, false);
        }
        self.b.ins().jump(done, &[v.into()]);

        self.b.switch_to_block(slow);
        self.b.seal_block(slow);
        let info = self.mem_info(n, size);
        let args = [self.call, addr, info, self.konst(pc)];
        let st = self
            .call_helper(self.sigs.load, h.load, &args)
            .expect("returns");
        self.exit_if_nonzero(st);
        let v = self
            .b
            .ins()
            .load(I64, host(), self.call, offset_of!(JitCall, value) as i32);
        self.b.ins().jump(done, &[v.into()]);

        self.b.switch_to_block(done);
        self.b.seal_block(done);
        let v = if signed {
            let w = self.b.ins().ireduce(ty, raw);
            self.b.ins().sextend(I64, w)
        } else {
            raw
        };
        Ok(v)
    }

    /// Report data access `n` of the block (`size` bytes at `addr`, a
    /// store if `write`) to the hooks: appended to their event log when it
    /// has one and the one-word record holds it, else through
    /// [`helpers::mem_hook`].
    fn report_mem(&mut self, h: &HelperAddrs, n: u64, addr: Value, size: u64, write: bool) {
        let call_hook = |e: &mut Self| e.call_mem_helper(h.mem_hook, n, addr, size, write);
        if let Some(d) = h.dcache {
            return self.check_dcache(h, d, n, addr, size, write);
        }
        let fits = n < 1 << pipelined::INDEX_BITS && matches!(size, 1 | 2 | 4 | 8);
        if !h.log || !fits {
            call_hook(self);
            return;
        }
        let head =
            record::MEM1 | u64::from(write) << 8 | u64::from(size.trailing_zeros()) << 9 | n << 11;
        self.append(
            |e, _| {
                let shifted =
                    e.b.ins()
                        .ishl_imm_u(addr, i64::from(64 - pipelined::ADDR_BITS));
                let word = e.b.ins().bor_imm_u(shifted, head as i64);
                let small = e.b.ins().icmp_imm_u(
                    IntCC::UnsignedLessThan,
                    addr,
                    1i64 << pipelined::ADDR_BITS,
                );
                (vec![word], Some(small))
            },
            |_, _, _| {},
            call_hook,
        );
    }

    /// The inline data-cache check of access `n` (as
    /// `crate::InlineDcache` describes it): if the line of `addr` is the
    /// most recent of its set, the access is settled here (a store to a
    /// write-back cache marks it dirty); else it goes to
    /// [`helpers::mem_unsettled_hook`].
    fn check_dcache(
        &mut self,
        h: &HelperAddrs,
        d: crate::InlineDcache,
        n: u64,
        addr: Value,
        size: u64,
        write: bool,
    ) {
        let tags = self
            .b
            .ins()
            .load(I64, host(), self.call, offset_of!(JitCall, dcache) as i32);
        let line = self.b.ins().ushr_imm_u(addr, i64::from(d.line_shift));
        let set = self.b.ins().band_imm_u(line, d.set_mask as i64);
        let first = self.b.ins().imul_imm_u(set, (d.ways * 8) as i64);
        let at = self.b.ins().iadd(tags, first);
        let tag = self.b.ins().load(I64, host(), at, 0);
        let key = self.b.ins().ishl_imm_u(line, 1);
        let clean = self.b.ins().band_imm_s(tag, !1);
        let hit = self.b.ins().icmp(IntCC::Equal, clean, key);
        self.if_else(
            hit,
            |e| {
                if write && d.write_back {
                    let dirty = e.b.ins().bor_imm_u(tag, 1);
                    e.b.ins().store(host(), dirty, at, 0);
                }
            },
            |e| e.call_mem_helper(h.mem_unsettled_hook, n, addr, size, write),
            true,
        );
    }

    /// Call `helper`, a hook helper of data accesses
    /// ([`helpers::mem_hook`], [`helpers::mem_unsettled_hook`]), for
    /// access `n` of the block (`size` bytes at `addr`, a store if
    /// `write`).
    fn call_mem_helper(&mut self, helper: usize, n: u64, addr: Value, size: u64, write: bool) {
        let args = [
            self.call,
            self.konst(n),
            addr,
            self.konst(size),
            self.konst(u64::from(write)),
        ];
        self.call_helper(self.sigs.hook4, helper, &args);
    }

    /// `if cond { then } else { other }`, code after both continuing in a
    /// new block; `cold`: the `else` side is rarely taken (Cranelift lays
    /// it out of line).
    fn if_else(
        &mut self,
        cond: Value,
        then: impl FnOnce(&mut Self),
        other: impl FnOnce(&mut Self),
        cold: bool,
    ) {
        let (yes, no, join) = (
            self.b.create_block(),
            self.b.create_block(),
            self.b.create_block(),
        );
        self.b.ins().brif(cond, yes, &[], no, &[]);

        self.b.switch_to_block(yes);
        self.b.seal_block(yes);
        then(self);
        self.b.ins().jump(join, &[]);

        self.b.switch_to_block(no);
        self.b.seal_block(no);
        if cold {
            self.b.set_cold_block(no);
        }
        other(self);
        self.b.ins().jump(join, &[]);

        self.b.switch_to_block(join);
        self.b.seal_block(join);
    }

    /// Append a record to the hooks' event log ([`crate::EventLog`]):
    /// `build` makes its words and an extra condition from the log's
    /// address; if the words fit before the log's limit and the condition
    /// holds, they are stored, the log advanced and `then` run (with the
    /// log's address and the record's), else `slow` runs (a call to the
    /// hook).
    fn append(
        &mut self,
        build: impl FnOnce(&mut Self, Value) -> (Vec<Value>, Option<Value>),
        then: impl FnOnce(&mut Self, Value, Value),
        slow: impl FnOnce(&mut Self),
    ) {
        let log = self
            .b
            .ins()
            .load(I64, host(), self.call, offset_of!(JitCall, log) as i32);
        let (words, cond) = build(self, log);
        let next = self
            .b
            .ins()
            .load(I64, host(), log, offset_of!(EventLog, next) as i32);
        let limit = self
            .b
            .ins()
            .load(I64, host(), log, offset_of!(EventLog, limit) as i32);
        let end = self.b.ins().iadd_imm_s(next, 8 * words.len() as i64);
        let fits = self
            .b
            .ins()
            .icmp(IntCC::UnsignedLessThanOrEqual, end, limit);
        let ok = match cond {
            Some(c) => self.b.ins().band(fits, c),
            None => fits,
        };
        self.if_else(
            ok,
            |e| {
                for (i, &w) in words.iter().enumerate() {
                    e.b.ins().store(host(), w, next, 8 * i as i32);
                }
                e.b.ins()
                    .store(host(), end, log, offset_of!(EventLog, next) as i32);
                then(e, log, next);
            },
            slow,
            false,
        );
    }

    /// A store: inline when the address is in the store hit cache's region
    /// and outside its code extent, else through [`helpers::store_slow`].
    fn store(&mut self, h: &HelperAddrs, u: &Uop, pc: u64) {
        let (size, ty) = match u.kind {
            K::Sb => (1u64, types::I8),
            K::Sh => (2, types::I16),
            K::Sw => (4, I32),
            _ => (8, I64),
        };
        let n = u64::from(u.idx);
        let base = self.get(u.rs1);
        let value = self.get(u.rs2);
        let addr = self.ea(base, u.imm);
        let fast = self.b.create_block();
        let at = self.b.append_block_param(fast, I64);
        let slow = self.b.create_block();
        let done = self.b.create_block();
        // The store cache, then its victim, each outside its region's code
        // extent (as `Memory::store_u*`, without the per-line test).
        let f = &FAST_PATH;
        let fields = (f.store_start, f.store_fast_len, f.store_ptr);
        let code = Some((f.store_code_lo, f.store_code_hi, size));
        self.probe(addr, fields, code, f.store_victim, fast, slow);

        self.b.switch_to_block(fast);
        self.b.seal_block(fast);
        let v = if ty == I64 {
            value
        } else {
            self.b.ins().ireduce(ty, value)
        };
        self.b.ins().store(guest(), v, at, 0);
        if h.wants_memory {
            self.report_mem(h, n, addr, size, true);
        }
        self.b.ins().jump(done, &[]);

        self.b.switch_to_block(slow);
        self.b.seal_block(slow);
        let info = self.mem_info(n, size);
        let args = [self.call, addr, value, info, self.konst(pc)];
        let st = self
            .call_helper(self.sigs.store, h.store, &args)
            .expect("returns");
        self.exit_if_nonzero(st);
        self.b.ins().jump(done, &[]);

        self.b.switch_to_block(done);
        self.b.seal_block(done);
    }

    /// End the current block after its straight-line part when it has no
    /// final branch or jump (`end`: the fall-through pc): go on to `fall`
    /// (a member of the region) if it is given, else hand the block to the
    /// run loop or run the next one (see [`Emitter::leave`]).
    /// `general_last`: the last instruction ran on the general path, which
    /// set `JitCall::next` itself (the caller preset it to `end`).
    pub(super) fn finish(
        &mut self,
        h: &HelperAddrs,
        count: usize,
        end: u64,
        after: u8,
        general_last: bool,
        fall: Option<u32>,
    ) {
        let zero = self.b.ins().iconst(I32, 0);
        if let (Some(t), false) = (fall, general_last) {
            self.transition(h, count, count, t, zero, None, false, end);
            return;
        }
        let next = if general_last {
            self.b
                .ins()
                .load(I64, host(), self.call, offset_of!(JitCall, next) as i32)
        } else {
            self.konst(end)
        };
        let chain = (h.chain && after == 0).then_some(false);
        self.leave(h, count, count, next, zero, chain, None, false, end);
    }

    /// Emit the current block's final branch or jump `u` (`end`: the
    /// fall-through pc and link value), then go on to the region's member
    /// on that path (`fall`, `taken`: members, if any) or leave as
    /// [`Emitter::finish`] does; `count` is the block's length, `body` the
    /// instructions before `u`.
    pub(super) fn finish_term(
        &mut self,
        h: &HelperAddrs,
        u: &Uop,
        blk: &Block,
        info: &BlockInfo,
        fall: Option<u32>,
        taken_member: Option<u32>,
    ) -> Result<(), Unsupported> {
        let (count, end, after) = (usize::from(blk.count), blk.end, blk.after);
        let body = count - 1;
        let rv64 = self.rv64;
        let a = self.get(u.rs1);
        let b = self.get(u.rs2);
        let link = if rv64 {
            end
        } else {
            end as u32 as i32 as i64 as u64
        };
        let jump = matches!(u.kind, K::Jal | K::Jalr);
        (self.term_pc, self.term_class, self.term_target) = match u.kind {
            K::Jal => (info.last_pc, 1, u.imm),
            K::Jalr => (info.last_pc, 2, 0),
            _ => (info.last_pc, 0, u.imm),
        };
        let chain = h.chain && (after == 0 || (jump && after == AFTER_JUMP));
        // With chaining, translated code reports the outcome itself.
        let branch = h.wants_branches && h.chain;
        let report = match info.jump {
            Some(kind) if jump && h.wants_jumps && h.chain => {
                let k = helpers::JUMP_KINDS
                    .iter()
                    .position(|&j| j == kind)
                    .ok_or(Unsupported)? as u64;
                Some((k, info.last_pc))
            }
            _ => None,
        };
        if jump {
            let t = if u.kind == K::Jal {
                self.konst(u.imm)
            } else {
                let s = self.b.ins().iadd_imm_s(a, u.imm as i64);
                let s = self.b.ins().band_imm_s(s, -2);
                if rv64 {
                    s
                } else {
                    self.zext32(s)
                }
            };
            if u.rd != 0 {
                let l = self.konst(link);
                self.set(u.rd, l);
            }
            let one = self.b.ins().iconst(I32, 1);
            match taken_member {
                Some(m) if u.kind == K::Jal => {
                    self.transition(h, count, body, m, one, report, branch, end);
                }
                _ => {
                    let probe = u.kind == K::Jalr;
                    let chain = chain.then_some(probe);
                    self.leave(h, count, body, t, one, chain, report, branch, end)
                }
            }
            return Ok(());
        }
        let cc = match u.kind {
            K::Beq => IntCC::Equal,
            K::Bne => IntCC::NotEqual,
            K::Blt => IntCC::SignedLessThan,
            K::Bge => IntCC::SignedGreaterThanOrEqual,
            K::Bltu => IntCC::UnsignedLessThan,
            K::Bgeu => IntCC::UnsignedGreaterThanOrEqual,
            _ => return Err(Unsupported),
        };
        let c = self.b.ins().icmp(cc, a, b);
        if fall.is_none() && taken_member.is_none() {
            let (t, f) = (self.konst(u.imm), self.konst(end));
            let next = self.b.ins().select(c, t, f);
            let taken = self.b.ins().uextend(I32, c);
            let chain = chain.then_some(false);
            self.leave(h, count, body, next, taken, chain, None, branch, end);
            return Ok(());
        }
        // Each outcome on its own path: one of them stays in the region.
        let (tb, fb) = (self.b.create_block(), self.b.create_block());
        self.b.ins().brif(c, tb, &[], fb, &[]);
        let saved = self.regs;
        for (ir, member, target, taken) in [(tb, taken_member, u.imm, 1), (fb, fall, end, 0)] {
            self.regs = saved;
            self.b.switch_to_block(ir);
            self.b.seal_block(ir);
            let tk = self.b.ins().iconst(I32, taken);
            match member {
                Some(m) => self.transition(h, count, body, m, tk, None, branch, end),
                None => {
                    let next = self.konst(target);
                    let chain = chain.then_some(false);
                    self.leave(h, count, body, next, tk, chain, None, branch, end);
                }
            }
        }
        Ok(())
    }

    /// Go from the current block (done: `count` instructions; `status`:
    /// what `exec_block` would return for it) to block `to`, a member of
    /// the region, without leaving the function: the count stays in a
    /// variable and the registers in theirs. As the run loop would, only if
    /// `to` fits before `JitCall::checkpoint`; the hooks hear of it as in
    /// [`Emitter::leave`]. Otherwise the run loop takes over at `to`'s pc.
    /// `taken` (i32), `report` and `branch` as for [`Emitter::leave`].
    #[allow(clippy::too_many_arguments)]
    fn transition(
        &mut self,
        h: &HelperAddrs,
        count: usize,
        status: usize,
        to: u32,
        taken: Value,
        report: Option<(u64, u64)>,
        branch: bool,
        end: u64,
    ) {
        let m = self.member(to).expect("a member");
        let (ir, start, ncount) = (m.ir, m.start, m.count);
        let done0 = self.b.use_var(self.done);
        let done = self.b.ins().iadd_imm_s(done0, count as i64);
        if branch {
            let next = self.konst(start);
            self.report_branch(h, taken, next);
        }
        if let Some((kind, pc)) = report {
            self.write_back_on_exit();
            self.b
                .ins()
                .store(host(), done, self.hart, offset_of!(Hart, executed) as i32);
            let next = self.konst(start);
            self.report_jump(h, kind, pc, next, end);
        }
        // (`to` still stands: a region with a killed member is never
        // entered again, see `Jit::killed`, and blocks die only between
        // runs of translated code.)
        // (From `done0`: one `lea`, where an add to `done` is two.)
        let upto = self
            .b
            .ins()
            .iadd_imm_s(done0, count as i64 + i64::from(ncount));
        let checkpoint = self.b.ins().load(
            I64,
            host(),
            self.call,
            offset_of!(JitCall, checkpoint) as i32,
        );
        let fits = self
            .b
            .ins()
            .icmp(IntCC::UnsignedLessThanOrEqual, upto, checkpoint);
        let (go, exit) = (self.b.create_block(), self.b.create_block());
        self.b.ins().brif(fits, go, &[], exit, &[]);

        self.b.switch_to_block(exit);
        self.b.seal_block(exit);
        let saved = self.regs;
        self.write_back();
        self.regs = saved;
        let next = self.konst(start);
        self.exit_to_loop(done, next, taken, status);

        self.b.switch_to_block(go);
        self.b.seal_block(go);
        if h.wants_block_exec {
            let nid64 = self.konst(u64::from(to));
            self.block_exec(h, nid64, done, Some(to));
        }
        self.b.def_var(self.done, done);
        self.b.ins().jump(ir, &[]);
    }

    /// Report the outcome of the current block's final branch or jump
    /// (`taken`, i32; to `next`) to the hooks ([`helpers::branch_hook`]).
    /// Appended to the hooks' event log when they have one: raw, or
    /// resolved in line by their predictor ([`Emitter::predict`]).
    fn report_branch(&mut self, h: &HelperAddrs, taken: Value, next: Value) {
        let known = self.constant(taken).map(|v| v != 0);
        let taken = self.b.ins().uextend(I64, taken);
        let id = u64::from(self.id);
        let call_hook = |e: &mut Self| {
            let args = [e.call, e.konst(id), taken, next];
            e.call_helper(e.sigs.hook3, h.branch_hook, &args);
        };
        if let Some(p) = h.predictor {
            self.predict(h, p, taken, known, next);
            return;
        }
        if !h.log || !h.log_branches {
            call_hook(self);
            return;
        }
        self.append(
            |e, _| {
                let t = e.b.ins().ishl_imm_u(taken, 40);
                let head = e.b.ins().bor_imm_u(t, (record::BRANCH | id << 8) as i64);
                (vec![head, next], None)
            },
            |_, _, _| {},
            call_hook,
        );
    }

    /// The value of `v` if an `iconst` defines it.
    fn constant(&self, v: Value) -> Option<i64> {
        let dfg = &self.b.func.dfg;
        let inst = dfg.value_def(v).inst()?;
        match dfg.insts[inst] {
            InstructionData::UnaryImm {
                opcode: Opcode::Iconst,
                imm,
            } => Some(imm.bits()),
            _ => None,
        }
    }

    /// Run predictor `p` on the current block's final transfer (`taken`,
    /// i64 0 or 1, a constant `known` on a path of its own; `next`: where
    /// it went), exactly as `crate::InlinePredictor` describes it, and
    /// append the verdict to the log if `p.delivered` asks for it (through
    /// [`helpers::branch_front_hook`] when the log is full).
    fn predict(
        &mut self,
        h: &HelperAddrs,
        p: crate::InlinePredictor,
        taken: Value,
        known: Option<bool>,
        next: Value,
    ) {
        use crate::Direction;
        let (pc, class) = (self.term_pc, self.term_class);
        let conditional = class == 0;
        // A conditional branch is scored against its own target, also
        // when not taken; a jump against where it went (and is taken).
        let (taken, known, target) = if conditional {
            (taken, known, self.konst(self.term_target))
        } else {
            (self.konst(1), Some(true), next)
        };
        let tables = offset_of!(JitCall, tables) as i32;
        let table =
            |e: &mut Self, field: usize| e.b.ins().load(I64, host(), e.call, tables + field as i32);
        let zero = self.konst(0);
        let one = self.konst(1);
        // Direction predicted (i64 0/1), or nothing predicted at all.
        let predicted = match p.direction {
            Direction::None => None,
            _ if !conditional => Some(one),
            Direction::Static => Some(self.konst(u64::from(self.term_target < pc))),
            Direction::Counters => {
                let slot = crate::predictor_slot(pc, p.counter_mask);
                let counters = table(self, offset_of!(crate::PredictorTables, counters));
                // Gshare only: the history word and where it is.
                let history = (p.history_mask != 0).then(|| {
                    let at = table(self, offset_of!(crate::PredictorTables, history));
                    (at, self.b.ins().load(I64, host(), at, 0))
                });
                let at = match history {
                    None => self.b.ins().iadd_imm_s(counters, slot as i64),
                    Some((_, hv)) => {
                        let i = self.b.ins().bxor_imm_u(hv, slot as i64);
                        let i = self.b.ins().band_imm_u(i, p.counter_mask as i64);
                        self.b.ins().iadd(counters, i)
                    }
                };
                let c8 = self.b.ins().uload8(I32, host(), at, 0);
                let c = self.b.ins().uextend(I64, c8);
                let pred = self.b.ins().ushr_imm_u(c, 1);
                // The 2-bit counter saturates towards the outcome.
                let up = {
                    let below = self.b.ins().icmp_imm_u(IntCC::UnsignedLessThan, c, 3);
                    let below = self.b.ins().uextend(I64, below);
                    self.b.ins().iadd(c, below)
                };
                let down = {
                    let above = self.b.ins().icmp_imm_u(IntCC::NotEqual, c, 0);
                    let above = self.b.ins().uextend(I64, above);
                    self.b.ins().isub(c, above)
                };
                let new = match known {
                    Some(true) => up,
                    Some(false) => down,
                    None => self.b.ins().select(taken, up, down),
                };
                let new8 = self.b.ins().ireduce(I32, new);
                self.b.ins().istore8(host(), new8, at, 0);
                if let Some((hist_at, hv)) = history {
                    let shifted = self.b.ins().ishl_imm_u(hv, 1);
                    let shifted = self.b.ins().bor(shifted, taken);
                    let masked = self.b.ins().band_imm_u(shifted, p.history_mask as i64);
                    self.b.ins().store(host(), masked, hist_at, 0);
                }
                Some(pred)
            }
        };
        let (mispredicted, btb_hit) = match predicted {
            None => (zero, zero),
            Some(pred) => {
                let wrong = self.b.ins().bxor(pred, taken);
                match p.btb_mask {
                    None => (wrong, zero),
                    Some(mask) => {
                        let off = crate::predictor_slot(pc, mask) * 16;
                        let btb = table(self, offset_of!(crate::PredictorTables, btb));
                        let entry = self.b.ins().iadd_imm_s(btb, off as i64);
                        let tag = self.b.ins().load(I64, host(), entry, 0);
                        let old = self.b.ins().load(I64, host(), entry, 8);
                        let pc_v = self.konst(pc);
                        let tag_hit = self.b.ins().icmp(IntCC::Equal, tag, pc_v);
                        let tag_hit = self.b.ins().uextend(I64, tag_hit);
                        let right = self.b.ins().icmp(IntCC::Equal, old, target);
                        let right = self.b.ins().uextend(I64, right);
                        // Looked up only when predicted taken.
                        let hit = self.b.ins().band(pred, tag_hit);
                        let good = self.b.ins().band(hit, right);
                        let bad = self.b.ins().bxor_imm_u(good, 1);
                        let bad = self.b.ins().band(bad, taken);
                        let bad = self.b.ins().band(bad, pred);
                        let mis = self.b.ins().bor(wrong, bad);
                        match known {
                            Some(false) => {}
                            Some(true) => {
                                self.b.ins().store(host(), pc_v, entry, 0);
                                self.b.ins().store(host(), target, entry, 8);
                            }
                            None => {
                                let t = self.b.ins().select(taken, pc_v, tag);
                                let v = self.b.ins().select(taken, target, old);
                                self.b.ins().store(host(), t, entry, 0);
                                self.b.ins().store(host(), v, entry, 8);
                            }
                        }
                        (mis, hit)
                    }
                }
            }
        };
        let row = self.b.ins().ishl_imm_u(mispredicted, 2);
        let t2 = self.b.ins().ishl_imm_u(taken, 1);
        let row = self.b.ins().bor(row, t2);
        let row = self.b.ins().bor(row, btb_hit);
        let row = self.b.ins().bor_imm_u(row, i64::from(class) << 3);
        let mask = self.konst(u64::from(p.delivered));
        let bit = self.b.ins().ushr(mask, row);
        let bit = self.b.ins().band_imm_u(bit, 1);
        let (deliver, join) = (self.b.create_block(), self.b.create_block());
        self.b.set_cold_block(deliver);
        self.b.ins().brif(bit, deliver, &[], join, &[]);
        self.b.switch_to_block(deliver);
        self.b.seal_block(deliver);
        let id = u64::from(self.id);
        self.append(
            |e, _| {
                let w = e.b.ins().ishl_imm_u(row, 40);
                let head =
                    e.b.ins()
                        .bor_imm_u(w, (record::BRANCH_FRONT1 | id << 8) as i64);
                (vec![head], None)
            },
            |_, _, _| {},
            |e| {
                let args = [e.call, e.konst(id), row];
                e.call_helper(e.sigs.block_exec, h.branch_front_hook, &args);
            },
        );
        self.b.ins().jump(join, &[]);
        self.b.switch_to_block(join);
        self.b.seal_block(join);
    }

    /// Report the current block's `jal`/`jalr` (its kind's index in
    /// [`helpers::JUMP_KINDS`], at `pc`, to `next`, link value `end`) to the
    /// hooks ([`helpers::jump_hook`]); its registers and count are in the
    /// hart.
    fn report_jump(&mut self, h: &HelperAddrs, kind: u64, pc: u64, next: Value, end: u64) {
        let args = [
            self.call,
            self.konst(u64::from(self.id) | kind << 32),
            next,
            self.konst(pc),
            self.konst(end),
        ];
        self.call_helper(self.sigs.jump, h.jump_hook, &args);
    }

    /// Return to the run loop with the current block done: its count added
    /// (`done`), `next` and `taken` in the call, and `status`.
    fn exit_to_loop(&mut self, done: Value, next: Value, taken: Value, status: usize) {
        self.b
            .ins()
            .store(host(), done, self.hart, offset_of!(Hart, executed) as i32);
        self.b
            .ins()
            .store(host(), next, self.call, offset_of!(JitCall, next) as i32);
        self.b
            .ins()
            .store(host(), taken, self.call, offset_of!(JitCall, taken) as i32);
        if self.multi {
            let idv = self.b.ins().iconst(I32, i64::from(self.id));
            self.b
                .ins()
                .store(host(), idv, self.call, offset_of!(JitCall, block) as i32);
        }
        let st = self.konst(status as u64);
        self.b.ins().return_(&[st]);
    }

    /// Tell the hooks that block `nid64` (`known` when it is a constant)
    /// starts, `done` instructions into the run: inline when
    /// their [`crate::InlineCounts`] say the hook would only count it, else
    /// through the hook.
    fn block_exec(&mut self, h: &HelperAddrs, nid64: Value, done: Value, known: Option<u32>) {
        let Some((stride, count, tag)) = h.inline else {
            let call_hook = |e: &mut Self| {
                e.call_helper(e.sigs.block_exec, h.block_exec, &[e.call, nid64, done]);
            };
            if !h.log {
                call_hook(self);
                return;
            }
            let last_at = offset_of!(EventLog, last_executed) as i32;
            self.append(
                |e, log| {
                    let last = e.b.ins().load(I64, host(), log, last_at);
                    let delta = e.b.ins().isub(done, last);
                    let small = e.b.ins().icmp_imm_u(
                        IntCC::UnsignedLessThan,
                        delta,
                        1i64 << pipelined::DELTA_BITS,
                    );
                    let d = e.b.ins().ishl_imm_u(delta, 40);
                    let id = e.b.ins().ishl_imm_u(nid64, 8);
                    let head = e.b.ins().bor(d, id);
                    let head = e.b.ins().bor_imm_u(head, record::EXEC1 as i64);
                    (vec![head], Some(small))
                },
                |e, log, _| {
                    e.b.ins().store(host(), done, log, last_at);
                },
                call_hook,
            );
            return;
        };
        let inl = self.inline.expect("set up with the hooks' inline counts");
        let base = self.b.use_var(inl.base);
        let e = match known {
            // A member of the region: its entry at a constant offset.
            Some(id) => self.b.ins().iadd_imm_s(base, i64::from(id) * stride as i64),
            None => {
                let off = self.b.ins().imul_imm_s(nid64, stride as i64);
                self.b.ins().iadd(base, off)
            }
        };
        let t = self.b.ins().load(I32, host(), e, tag as i32);
        let cur = self.b.use_var(inl.current);
        let same = self.b.ins().icmp(IntCC::Equal, t, cur);
        let fast = self.b.create_block();
        let slow = self.b.create_block();
        let join = self.b.create_block();
        self.b.ins().brif(same, fast, &[], slow, &[]);

        self.b.switch_to_block(fast);
        self.b.seal_block(fast);
        let c = self.b.ins().load(I64, host(), e, count as i32);
        let c = self.b.ins().iadd_imm_s(c, 1);
        self.b.ins().store(host(), c, e, count as i32);
        self.b.ins().jump(join, &[]);

        self.b.switch_to_block(slow);
        self.b.seal_block(slow);
        self.call_helper(
            self.sigs.block_exec,
            h.block_exec,
            &[self.call, nid64, done],
        );
        self.b.ins().jump(join, &[]);

        self.b.switch_to_block(join);
        self.b.seal_block(join);
    }

    /// Look `next` up in the block cache's direct-mapped table
    /// (`JitCall::direct`, at `BlockCache::slot`'s index): whether it
    /// holds a live block of this address space and cache generation
    /// there, and that block's id (i32).
    fn probe_direct(&mut self, next: Value) -> (Value, Value) {
        let direct = self
            .b
            .ins()
            .load(I64, host(), self.call, offset_of!(JitCall, direct) as i32);
        let half = self.b.ins().ushr_imm_u(next, 1);
        let slot = self
            .b
            .ins()
            .band_imm_u(half, (crate::block::DIRECT_SLOTS - 1) as i64);
        let off = self
            .b
            .ins()
            .imul_imm_s(slot, size_of::<crate::block::Direct>() as i64);
        let d = self.b.ins().iadd(direct, off);
        let field = |e: &mut Self, ty, at: usize| e.b.ins().load(ty, host(), d, at as i32);
        let dpc = field(self, I64, offset_of!(crate::block::Direct, pc));
        let dkey = field(self, I64, offset_of!(crate::block::Direct, key));
        let did = field(self, I32, offset_of!(crate::block::Direct, id));
        let dgen = field(self, I32, offset_of!(crate::block::Direct, generation));
        let key = self
            .b
            .ins()
            .load(I64, host(), self.call, offset_of!(JitCall, key) as i32);
        let generation = self.b.ins().load(
            I32,
            host(),
            self.call,
            offset_of!(JitCall, generation) as i32,
        );
        let pc_ok = self.b.ins().icmp(IntCC::Equal, dpc, next);
        let key_ok = self.b.ins().icmp(IntCC::Equal, dkey, key);
        let gen_ok = self.b.ins().icmp(IntCC::Equal, dgen, generation);
        let ok = self.b.ins().band(pc_ok, key_ok);
        (self.b.ins().band(ok, gen_ok), did)
    }

    /// Leave the function with the block done, its registers written back
    /// to the hart: `next` is the next pc, `taken` (i32) whether a final branch or jump
    /// left the straight line, `status` what `exec_block` would return.
    ///
    /// With `chain`, first try to run the next block here: the block the
    /// run loop chained after this one on that path (`Block::fall` or
    /// `Block::taken`, the slot the loop would follow) if it starts at
    /// `next`, else, with `chain == Some(true)` (a `jalr`), the block the
    /// cache's direct-mapped table holds for `next` (`JitCall::direct`,
    /// the run loop's first lookup: a `ret` to another call site than last
    /// time), if it is translated and fits before `JitCall::checkpoint` —
    /// the run loop would then run it whole without stopping. This block's
    /// instructions are then added to the hart's count, the hooks hear of
    /// the next block as the run loop would tell them, and its code is
    /// entered by a tail call. Otherwise the run loop takes over.
    ///
    /// Either way the block's instructions are added to the hart's count
    /// first; with `branch` the outcome of its final branch or jump is
    /// reported to the hooks ([`helpers::branch_hook`]), then with `report`
    /// (its jump kind's index and pc) the block's `jal`/`jalr`
    /// ([`helpers::jump_hook`]), as the run loop would report them; `end` is
    /// the block's end (the link value).
    #[allow(clippy::too_many_arguments)]
    fn leave(
        &mut self,
        h: &HelperAddrs,
        count: usize,
        status: usize,
        next: Value,
        taken: Value,
        chain: Option<bool>,
        report: Option<(u64, u64)>,
        branch: bool,
        end: u64,
    ) {
        self.write_back();
        let exit = self.b.create_block();
        let executed = self.b.use_var(self.done);
        let done = self.b.ins().iadd_imm_s(executed, count as i64);
        self.b
            .ins()
            .store(host(), done, self.hart, offset_of!(Hart, executed) as i32);
        if branch {
            self.report_branch(h, taken, next);
        }
        if let Some((kind, pc)) = report {
            self.report_jump(h, kind, pc, next, end);
        }
        if let Some(probe_direct) = chain {
            let blocks =
                self.b
                    .ins()
                    .load(I64, host(), self.call, offset_of!(JitCall, blocks) as i32);
            let this = size_of::<Block>() as i64 * i64::from(self.id);
            let fall_at = this + offset_of!(Block, fall) as i64;
            let taken_at = this + offset_of!(Block, taken) as i64;
            let fall = self.b.ins().load(I32, host(), blocks, fall_at as i32);
            let tk = self.b.ins().load(I32, host(), blocks, taken_at as i32);
            let slot = self.b.ins().select(taken, tk, fall);
            let none = self
                .b
                .ins()
                .icmp_imm_s(IntCC::Equal, slot, i64::from(NO_BLOCK));
            let check_start = self.b.create_block();
            let probe = if probe_direct {
                self.b.create_block()
            } else {
                exit
            };
            // Block `nid` starts at `next` (params: its id, as i64, and
            // its `Block`'s address).
            let have = self.b.create_block();
            let nid = self.b.append_block_param(have, I32);
            let nid64 = self.b.append_block_param(have, I64);
            let nb = self.b.append_block_param(have, I64);
            let entry = |e: &mut Self, id: Value| {
                let id64 = e.b.ins().uextend(I64, id);
                let scaled = e.b.ins().imul_imm_s(id64, size_of::<Block>() as i64);
                (id64, e.b.ins().iadd(blocks, scaled))
            };
            self.b.ins().brif(none, probe, &[], check_start, &[]);

            // The chain slot's block, if it starts at `next`.
            self.b.switch_to_block(check_start);
            self.b.seal_block(check_start);
            let (slot64, slot_b) = entry(self, slot);
            let start = self
                .b
                .ins()
                .load(I64, host(), slot_b, offset_of!(Block, start) as i32);
            let same = self.b.ins().icmp(IntCC::Equal, start, next);
            let args = [slot.into(), slot64.into(), slot_b.into()];
            self.b.ins().brif(same, have, &args, probe, &[]);

            // Else, after a `jalr`, the block cache's direct-mapped table,
            // as the run loop looks first (a `ret` of a function called
            // from several places, an indirect jump with several targets;
            // after a branch or `jal` the slot fails only until the run
            // loop has chained it once).
            if probe_direct {
                self.b.switch_to_block(probe);
                self.b.seal_block(probe);
                let (hit, id) = self.probe_direct(next);
                let (id64, id_b) = entry(self, id);
                let args = [id.into(), id64.into(), id_b.into()];
                self.b.ins().brif(hit, have, &args, exit, &[]);
            }

            // Run it here if it fits.
            self.b.switch_to_block(have);
            self.b.seal_block(have);
            let ncount = self
                .b
                .ins()
                .load(types::I16, host(), nb, offset_of!(Block, count) as i32);
            let ncount = self.b.ins().uextend(I64, ncount);
            let upto = self.b.ins().iadd(done, ncount);
            let checkpoint = self.b.ins().load(
                I64,
                host(),
                self.call,
                offset_of!(JitCall, checkpoint) as i32,
            );
            let ok = self
                .b
                .ins()
                .icmp(IntCC::UnsignedLessThanOrEqual, upto, checkpoint);
            let check_code = self.b.create_block();
            self.b.ins().brif(ok, check_code, &[], exit, &[]);

            self.b.switch_to_block(check_code);
            self.b.seal_block(check_code);
            let entries =
                self.b
                    .ins()
                    .load(I64, host(), self.call, offset_of!(JitCall, entries) as i32);
            let escaled = self
                .b
                .ins()
                .imul_imm_s(nid64, size_of::<super::Entry>() as i64);
            let ne = self.b.ins().iadd(entries, escaled);
            let code = self
                .b
                .ins()
                .load(I64, host(), ne, offset_of!(super::Entry, code) as i32);
            let go = self.b.create_block();
            self.b.ins().brif(code, go, &[], exit, &[]);

            self.b.switch_to_block(go);
            self.b.seal_block(go);
            let index = self
                .b
                .ins()
                .load(I32, host(), ne, offset_of!(super::Entry, index) as i32);
            let index = self.b.ins().uextend(I64, index);
            self.b
                .ins()
                .store(host(), nid, self.call, offset_of!(JitCall, block) as i32);
            if h.wants_block_exec {
                self.block_exec(h, nid64, done, None);
            }
            self.b
                .ins()
                .return_call_indirect(self.sigs.tail, code, &[self.call, index]);
        } else {
            self.b.ins().jump(exit, &[]);
        }
        self.b.switch_to_block(exit);
        self.b.seal_block(exit);
        self.exit_to_loop(done, next, taken, status);
    }
}
