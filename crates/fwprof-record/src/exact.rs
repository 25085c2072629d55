//! `--method exact`: every executed instruction counted, the call graph
//! and calling contexts tracked from the return-address-stack hints, and
//! with a core model every timing event beside instructions.

use std::collections::BTreeMap;

use fwprof_collect::{ExactCollector, ExactData, FunctionMap, StackOwner};
use fwprof_profile::{
    events, AddressCost, AddressSpace, AddressSpaceSection, Arc, ContextRecord, FunctionId, Meta,
    Profile, SpaceFunctionCost, StackRecord, StackSection, TaskRecord, TaskSection, ThreadRecord,
    ThreadSection, TrapRecord,
};
use fwprof_sim::Pipelined;
use fwprof_timing::{CoreConfig, TimingModel};

use crate::meta::{function_records, locate};
use crate::session::{Control, Prepared, RunEnd, Steady};
use crate::symbol_files::Symbols;
use crate::Error;

/// Per-(address, space) costs and totals of the timing model's events (all
/// of [`fwprof_timing::EVENTS`], `instructions` first), with a core model.
type Timing = (Vec<(u64, u64, fwprof_timing::Costs)>, fwprof_timing::Costs);

/// What an exact run gathered.
pub(crate) struct Exact {
    data: ExactData,
    timing: Option<Timing>,
    /// The run's harts, with several.
    threads: Option<ThreadSection>,
    /// Task detection ran (with the `--task-hint` symbol's name, if any).
    tasks: Option<Option<String>>,
}

/// Run the program under the exact collector (and the core's timing model,
/// on a second thread beside the simulator: the same calls in the same
/// order, so the same profile). `tasks`: tell an operating system's tasks
/// apart, with the `--task-hint` function's address and name if any.
pub(crate) fn run(
    p: &Prepared,
    ctl: &Control,
    map: FunctionMap,
    core: Option<CoreConfig>,
    tasks: Option<(Option<u64>, Option<String>)>,
) -> Result<(RunEnd, Exact), Error> {
    let hint_name = tasks.as_ref().map(|t| t.1.clone());
    let tasks = tasks.map(|t| t.0);
    Ok(match core {
        None => {
            let sim = p.launch(ctl, |prog| {
                let mut c = ExactCollector::new(boot_code(map, prog), prog.start, prog.sp);
                if let Some(hint) = tasks {
                    c.detect_tasks(hint);
                }
                c
            })?;
            let (end, hooks) = sim.run(ctl, &mut Steady);
            let data = hooks.finish(end.running_executed());
            let threads =
                thread_section(&end, &data.strands, &data.context_strands, &data.contexts);
            (
                end,
                Exact {
                    data,
                    timing: None,
                    threads,
                    tasks: hint_name.clone(),
                },
            )
        }
        Some(core) => {
            let sim = p.launch(ctl, |prog| {
                let mut model = TimingModel::new(core, prog.rv64);
                let front = model.front();
                let map = boot_code(map, prog);
                let mut collector = ExactCollector::with_model(map, prog.start, prog.sp, model);
                if let Some(hint) = tasks {
                    collector.detect_tasks(hint);
                }
                Pipelined::with_front(collector, front)
            })?;
            let (end, hooks) = sim.run(ctl, &mut Steady);
            let (data, model) = hooks.finish().finish_with_model(end.running_executed());
            let timing = Some(model.finish_by_space());
            let threads =
                thread_section(&end, &data.strands, &data.context_strands, &data.contexts);
            (
                end,
                Exact {
                    data,
                    timing,
                    threads,
                    tasks: hint_name,
                },
            )
        }
    })
}

/// The `threads` section of a run on several harts (or Linux threads):
/// each one's roots
/// in the calling-context tree (`strands`: the harts in order of first
/// appearance, `context_strands`: each context's index in it). `None` on
/// a machine with one hart.
pub(crate) fn thread_section(
    end: &RunEnd,
    strands: &[u32],
    context_strands: &[u32],
    contexts: &[fwprof_collect::ContextStats],
) -> Option<ThreadSection> {
    if end.hart_executed.len() < 2 {
        return None;
    }
    let threads = strands
        .iter()
        .enumerate()
        .map(|(i, &hart)| ThreadRecord {
            hart,
            tid: end.thread_ids.get(hart as usize).copied(),
            name: match end.thread_ids.get(hart as usize) {
                Some(tid) => format!("thread {tid}"),
                None => format!("hart {hart}"),
            },
            executed: end.hart_executed.get(hart as usize).copied().unwrap_or(0),
            roots: contexts
                .iter()
                .zip(context_strands)
                .enumerate()
                .filter(|(_, (c, &s))| c.parent.is_none() && s as usize == i)
                .map(|(k, _)| k as u32)
                .collect(),
        })
        .collect();
    Some(ThreadSection {
        threads,
        switches: end.hart_switches,
        quantum: end.quantum,
    })
}

/// `map` with the boot code marked when the hart starts outside the
/// program (bare metal: QEMU `virt`'s reset ROM).
pub(crate) fn boot_code(mut map: FunctionMap, prog: &fwprof_os::LoadedProgram) -> FunctionMap {
    if prog.start != prog.entry {
        map.set_boot_code(prog.start);
    }
    map
}

/// The exact profile: the collector's per-address counts and call graph,
/// merged with the timing model's per-address costs when there is one.
/// `latency_cycles`: the core model drove guest time, so interrupt latency
/// is also stored in cycles.
pub(crate) fn profile(
    mut meta: Meta,
    run: &Exact,
    program: &Symbols,
    latency_cycles: bool,
) -> Profile {
    let (data, timing) = (&run.data, run.timing.as_ref());
    if data.contexts_folded {
        meta.warnings.push(crate::meta::contexts_folded_warning());
    }
    let events: Vec<String> = match timing {
        None => vec![events::INSTRUCTIONS.to_string()],
        Some(_) => events::TIMING.iter().map(|e| e.to_string()).collect(),
    };
    let n = events.len();
    let x = data.extra;
    let meta_xlen = meta.xlen;
    // The extra events of item `i` in a flat, item-major vector.
    let extra = |v: &[u64], i: usize, dst: &mut [u64]| {
        if x > 0 && n > 1 {
            if let Some(e) = v.get(i * x..i * x + x) {
                dst[1..].copy_from_slice(&e[..n - 1]);
            }
        }
    };
    let mut functions = function_records(program, &data.map);
    for (i, f) in functions.iter_mut().enumerate() {
        let stats = data.functions.get(i).copied().unwrap_or_default();
        f.calls = stats.calls;
        f.inclusive = vec![0; n];
        f.inclusive[0] = stats.inclusive;
        extra(&data.functions_extra, i, &mut f.inclusive);
        f.self_cost = vec![0; n];
    }
    // One entry per (address, function): the same function's code at one
    // address in several address spaces (a kernel's, in each process's
    // space) is added up; different code at one virtual address is not.
    let mut per_addr: BTreeMap<(u64, u32), (u8, u32, Vec<u64>)> = BTreeMap::new();
    let mut spaces = SpaceCosts::new(&data.map, n);
    // The model's costs are sorted by (address, space), like the sites.
    let mut timed = timing.map(|t| t.0.iter().peekable());
    for s in &data.sites {
        let mut cost = vec![0; n];
        cost[0] = s.count;
        if let Some(it) = timed.as_mut() {
            let key = (s.addr, s.space);
            while it.next_if(|(pc, sp, _)| (*pc, *sp) < key).is_some() {}
            if let Some((_, _, c)) = it.next_if(|(pc, sp, _)| (*pc, *sp) == key) {
                cost[1..].copy_from_slice(&c[1..n]);
            }
        }
        add(&mut functions[s.function as usize].self_cost, &cost);
        spaces.add(s.space, s.function, &cost);
        let e = per_addr
            .entry((s.addr, s.function))
            .or_insert_with(|| (s.len, s.raw, vec![0; n]));
        add(&mut e.2, &cost);
    }
    let mut costs = fwprof_profile::AddressCosts::new(n);
    for ((addr, function), (len, raw, cost)) in per_addr {
        // Sorted, unique keys and one cost per event: push cannot fail.
        let _ = costs.push(AddressCost {
            addr,
            function: FunctionId(function),
            len,
            raw,
            cost,
        });
    }
    locate(&mut functions, program, |_, f| {
        f.self_cost[0] > 0 || f.inclusive[0] > 0
    });
    let arcs = data
        .arcs
        .iter()
        .enumerate()
        .map(|(i, a)| {
            let mut inclusive = vec![0; n];
            inclusive[0] = a.inclusive;
            extra(&data.arcs_extra, i, &mut inclusive);
            Arc {
                caller: a.caller.map(FunctionId),
                callee: FunctionId(a.callee),
                call_site: a.call_site,
                calls: a.calls,
                tail: a.tail,
                inclusive,
            }
        })
        .collect();
    let traps = data
        .traps
        .iter()
        .map(|t| TrapRecord {
            // The collector flags interrupts in bit 63; the profile in
            // the top bit of XLEN, as `mcause` holds it.
            cause: if t.cause >> 63 == 1 && meta_xlen == 32 {
                t.cause & !(1 << 63) | 1 << 31
            } else {
                t.cause
            },
            pc: t.pc,
            count: t.count,
        })
        .collect();
    let mut totals = vec![0; n];
    totals[0] = data.total;
    if let Some((_, t)) = timing {
        totals[1..].copy_from_slice(&t[1..n]);
    }
    let contexts = data
        .contexts
        .iter()
        .enumerate()
        .map(|(i, c)| {
            let mut self_cost = vec![0; n];
            self_cost[0] = c.self_cost;
            extra(&data.contexts_extra, i, &mut self_cost);
            ContextRecord {
                parent: c.parent,
                function: FunctionId(c.function),
                calls: c.calls,
                self_cost,
            }
        })
        .collect();
    let mut profile = Profile {
        contexts,
        meta,
        events,
        functions,
        costs,
        arcs,
        traps,
        totals,
        samples: Vec::new(),
        instrumented: Vec::new(),
        sections: Default::default(),
    };
    let per_context = data.contexts_by_privilege.iter().map(|(c, p, v, x)| {
        let mut cost = vec![0; n];
        cost[0] = *v;
        if n > 1 {
            cost[1..].copy_from_slice(&x[..n - 1]);
        }
        (*c, *p, cost)
    });
    crate::trap_sections::add_trap_sections(
        &mut profile,
        &data.trap_causes,
        per_context,
        latency_cycles,
    );
    crate::meta::add_image_section(&mut profile, program, &data.map);
    spaces.store(&mut profile);
    if let Some(t) = &run.threads {
        let _ = profile.set_section(t);
    }
    // A run that never switched tasks has nothing to split.
    let tasks = run
        .tasks
        .as_ref()
        .filter(|_| data.tasks.len() > 1)
        .map(|hint| task_section(data, &profile, hint.clone()));
    if let Some(t) = &tasks {
        let _ = profile.set_section(t);
    }
    let stacks = stack_section(data, &profile, run.threads.as_ref(), tasks.as_ref());
    if !stacks.stacks.is_empty() {
        let _ = profile.set_section(&stacks);
    }
    profile
}

/// The roots in the calling-context tree of strand index `i`.
fn strand_roots(data: &ExactData, i: usize) -> Vec<u32> {
    data.contexts
        .iter()
        .zip(&data.context_strands)
        .enumerate()
        .filter(|(_, (c, &s))| c.parent.is_none() && s as usize == i)
        .map(|(k, _)| k as u32)
        .collect()
}

/// The `tasks` section: each task named by its entry function (the first
/// root of its calling contexts that is not boot code), its roots and
/// counts. `hint`: the `--task-hint` symbol.
fn task_section(data: &ExactData, profile: &Profile, hint: Option<String>) -> TaskSection {
    let boot = data.map.boot_code();
    let mut names: Vec<String> = Vec::new();
    let tasks = data
        .tasks
        .iter()
        .map(|t| {
            let roots = match data.strands.iter().position(|&k| k == t.key) {
                Some(i) => strand_roots(data, i),
                // Strand 0 before any switch has no key listed.
                None if t.key == 0 => strand_roots(data, 0),
                None => Vec::new(),
            };
            let entry_fn = roots
                .iter()
                .map(|&r| profile.contexts[r as usize].function)
                .find(|f| Some(f.0) != boot)
                .and_then(|f| profile.function(f))
                .map_or_else(|| format!("{:#x}", t.entry), |f| f.name.clone());
            let same = names
                .iter()
                .filter(|n| n.split('#').next() == Some(&entry_fn))
                .count();
            let name = if same == 0 {
                entry_fn
            } else {
                format!("{entry_fn}#{}", same + 1)
            };
            names.push(name.clone());
            TaskRecord {
                name,
                entry: t.entry,
                executed: t.executed,
                voluntary: t.voluntary,
                involuntary: t.involuntary,
                roots,
            }
        })
        .collect();
    TaskSection {
        tasks,
        switches: data.tasks.iter().map(|t| t.voluntary + t.involuntary).sum(),
        hint,
    }
}

/// The `stacks` section: every stack's high-water mark, named by its
/// owner (a task, hart or thread, `main`, or a trap context's root).
fn stack_section(
    data: &ExactData,
    profile: &Profile,
    threads: Option<&ThreadSection>,
    tasks: Option<&TaskSection>,
) -> StackSection {
    // A strand whose stacks are at several privileges names each.
    let levels = |key: u32| {
        let mut l: Vec<u8> = data
            .stacks
            .iter()
            .filter_map(|m| match m.owner {
                StackOwner::Strand(k, p) if k == key => Some(p),
                _ => None,
            })
            .collect();
        l.dedup();
        l.len()
    };
    // RV32's registers hold sign-extended values.
    let mask = if profile.meta.xlen == 32 {
        0xffff_ffff
    } else {
        u64::MAX
    };
    let stacks = data
        .stacks
        .iter()
        .filter(|m| m.lowest & mask <= m.top & mask)
        .map(|m| {
            let (name, kind) = match m.owner {
                StackOwner::Context(root) => (
                    profile
                        .function(FunctionId(root))
                        .map_or_else(|| format!("context {root}"), |f| f.name.clone()),
                    "context",
                ),
                StackOwner::Strand(key, privilege) => {
                    let name = if let Some(t) = tasks.and_then(|t| t.tasks.get(key as usize)) {
                        t.name.clone()
                    } else if let Some(t) =
                        threads.and_then(|t| t.threads.iter().find(|t| t.hart == key))
                    {
                        t.name.clone()
                    } else if key == 0 {
                        "main".to_string()
                    } else {
                        format!("strand {key}")
                    };
                    let name = if levels(key) > 1 {
                        let level = ["U", "S", "H", "M"][usize::from(privilege & 3)];
                        format!("{name} ({level})")
                    } else {
                        name
                    };
                    (name, "task")
                }
            };
            let (top, lowest) = (m.top & mask, m.lowest & mask);
            StackRecord {
                name,
                kind: kind.to_string(),
                top,
                lowest,
                bytes: top - lowest,
            }
        })
        .collect();
    StackSection { stacks }
}

/// Add `v` to `dst`, event by event.
fn add(dst: &mut [u64], v: &[u64]) {
    for (a, b) in dst.iter_mut().zip(v) {
        *a += b;
    }
}

/// One space's cost per event, and per function id.
type SpaceCost = (Vec<u64>, BTreeMap<u32, Vec<u64>>);

/// Costs per address space and function, for the `address_spaces`
/// section.
struct SpaceCosts {
    /// `satp` values in the map's order (the physical space first).
    order: Vec<u64>,
    n: usize,
    per: BTreeMap<u64, SpaceCost>,
}

impl SpaceCosts {
    fn new(map: &FunctionMap, n: usize) -> SpaceCosts {
        SpaceCosts {
            order: map.spaces().to_vec(),
            n,
            per: BTreeMap::new(),
        }
    }

    fn add(&mut self, space: u64, function: u32, cost: &[u64]) {
        if self.order.len() < 2 {
            return;
        }
        let n = self.n;
        let (total, funcs) = self
            .per
            .entry(space)
            .or_insert_with(|| (vec![0; n], BTreeMap::new()));
        add(total, cost);
        add(funcs.entry(function).or_insert_with(|| vec![0; n]), cost);
    }

    /// Store the section if code ran with translation on.
    fn store(mut self, profile: &mut Profile) {
        if self.order.len() < 2 {
            return;
        }
        let xlen = profile.meta.xlen;
        let spaces = self
            .order
            .iter()
            .map(|&satp| {
                let mut s = AddressSpace::from_satp(satp, xlen);
                let (cost, funcs) = self.per.remove(&satp).unwrap_or_default();
                s.cost = if cost.is_empty() {
                    vec![0; self.n]
                } else {
                    cost
                };
                s.functions = funcs
                    .into_iter()
                    .filter(|(_, c)| c.iter().any(|&x| x > 0))
                    .map(|(f, self_cost)| SpaceFunctionCost {
                        function: FunctionId(f),
                        self_cost,
                    })
                    .collect();
                s
            })
            .collect();
        // Serialising plain integers cannot fail.
        let _ = profile.set_section(&AddressSpaceSection { spaces });
    }
}
