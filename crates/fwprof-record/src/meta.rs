//! The part of a profile every method builds alike: the metadata (program
//! identity, command line, environment, how the run ended) and one
//! function record per symbol.

use fwprof_collect::FunctionMap;
use fwprof_os::Target;
use fwprof_profile::{AddressCost, FunctionId, FunctionRecord, Image, ImageSection, Meta, Profile};
use fwprof_sim::StopReason;
use fwprof_symbols::Program;

use crate::session::{Control, Prepared, RunEnd};
use crate::symbol_files::Symbols;
use crate::RecordOptions;

/// The metadata every recording method fills alike: program identity,
/// ISA, target, command line, environment (names and digest; values only
/// with `save_env`; nothing for bare metal), version, start time (seconds
/// since the Unix epoch), symbol warnings, the core's name, guest sleep,
/// and how the run ended (`partial`, `exit_status`), including a stack
/// overflow and the simulator's own error.
pub(crate) fn base_meta(
    opts: &RecordOptions,
    p: &Prepared,
    program: &Program,
    end: &RunEnd,
    ctl: &Control,
    start_time: u64,
    core: Option<String>,
) -> Meta {
    let a = &opts.exec;
    // The absolute path, so readers in another directory find the program
    // (and, through its DWARF, its sources); argv[0] stays as given.
    let program_path = std::path::absolute(&a.program).unwrap_or_else(|_| a.program.clone());
    let mut meta = Meta::new(program_path.display().to_string());
    meta.sha256 = hex(&program.sha256());
    meta.build_id = program.build_id().map(hex);
    meta.xlen = if end.rv64 { 64 } else { 32 };
    // What the simulated hart implements, no more (issue 13: firmware
    // reads ISA descriptions and trusts them): G, C and the bit-manipulation
    // extensions; S and U mode are privileged-architecture facts, not ISA
    // string letters.
    meta.isa = if end.rv64 {
        "rv64gc_zba_zbb_zbc_zbs"
    } else {
        "rv32gc_zba_zbb_zbc_zbs"
    }
    .to_string();
    meta.target = match end.target {
        Target::BareMetal => fwprof_profile::Target::Baremetal,
        Target::Linux => fwprof_profile::Target::Linux,
    };
    meta.command = std::iter::once(a.program.display().to_string())
        .chain(a.args.iter().cloned())
        .collect();
    meta.set_environment(&p.cfg.env, opts.save_env);
    meta.fwprof_version = env!("CARGO_PKG_VERSION").to_string();
    meta.start_time = start_time;
    meta.warnings = program.warnings();
    meta.engine = Some(fwprof_profile::EngineInfo {
        tier: match end.tier.0 {
            fwprof_sim::Tier::Interp => "interp",
            fwprof_sim::Tier::Jit => "jit",
        }
        .to_string(),
        jit_threshold: end.tier.1,
        translated_blocks: end.jit.translated,
        translated_instructions: end.jit.executed,
        region_blocks: end.jit.region_blocks,
    });
    match &end.stop {
        StopReason::Exit(code) => meta.exit_status = Some(*code),
        StopReason::InstructionLimit => meta.partial = Some("instruction limit".into()),
        StopReason::Reset => meta.partial = Some("machine reset".into()),
        StopReason::Interrupted => meta.partial = Some((ctl.stopped_by)()),
        StopReason::Fault { cause, pc, .. } => {
            meta.partial = Some(format!(
                "guest fault: {} at {pc:#x}",
                fwprof_isa::cause_name(*cause)
            ))
        }
        StopReason::Signal {
            signo, cause, pc, ..
        } => {
            meta.partial = Some(format!(
                "killed by signal {signo}: {} at {pc:#x}",
                fwprof_isa::cause_name(*cause)
            ));
            meta.exit_status = Some(128 + signo);
        }
    }
    if let (StopReason::Signal { signo, pc, .. }, Some(o)) = (&end.stop, &end.stack_overflow) {
        meta.partial = Some(format!("killed by signal {signo}: {o} at pc {pc:#x}"));
    }
    if let Some(e) = &end.error {
        meta.partial = Some(format!("simulation failed: {e}"));
        meta.exit_status = None;
    }
    meta.core = core;
    meta.sleep_ns = end.sleep_ns;
    meta
}

/// The warning of a profile whose calling-context tree folded recursion
/// to stay within [`fwprof_collect::MAX_CONTEXTS`] contexts (the same
/// words for every method).
pub(crate) fn contexts_folded_warning() -> String {
    format!(
        "the calling-context tree reached {} contexts: deeper recursion is folded into its outer activation",
        fwprof_collect::MAX_CONTEXTS
    )
}

/// Lower-case hexadecimal of `b`.
fn hex(b: &[u8]) -> String {
    b.iter().map(|x| format!("{x:02x}")).collect()
}

/// Name of the boot code's range in profiles: QEMU `virt`'s reset ROM,
/// where bare-metal runs start (`docs/simulator.md`).
pub const BOOT_CODE_NAME: &str = "[reset ROM]";

/// One record per function of the program's symbol table, in its order,
/// then those of each `--symbols` file (at the addresses it was placed
/// at), then the records of the ids `map` added during the run, in id
/// order: one `[unknown 0x…]` record per range added for code outside
/// every symbol (`FunctionMap::added`; `[unknown 0x… in space N]` in a
/// translated address space, N its index in the `address_spaces`
/// section; [`BOOT_CODE_NAME`] for the boot code's) and one synthetic trap root per trap cause
/// (`FunctionMap::trap_roots`, named by `fwprof_isa::trap_context_name`,
/// with the empty range 0..0: it has no code) and one per Linux signal
/// whose handler ran (`FunctionMap::signal_roots`, `[signal: SIGSEGV]`
/// by `fwprof_isa::signal_context_name`), with no costs yet.
pub(crate) fn function_records(symbols: &Symbols, map: &FunctionMap) -> Vec<FunctionRecord> {
    let images = symbols.images();
    // A stripped image's code is named by its file: `[uboot.elf 0x…]`.
    let stripped_name = |k: usize, f: &fwprof_symbols::Function, start: u64| match images.get(k) {
        Some((name, _, p)) if f.unknown && p.functions().entries().is_empty() => {
            format!("[{name} {start:#x}]")
        }
        _ => f.name.clone(),
    };
    let table = symbols.main.functions();
    let mut functions: Vec<FunctionRecord> = table
        .iter()
        .map(|(_, f)| FunctionRecord::new(stripped_name(0, f, f.start), f.start, f.end))
        .collect();
    for (k, e) in symbols.extra.iter().enumerate() {
        debug_assert_eq!(e.first as usize, functions.len());
        let b = e.bias;
        let image = if symbols.bios == Some(k) {
            1
        } else {
            usize::MAX
        };
        functions.extend(e.program.functions().iter().map(|(_, f)| {
            let start = f.start.wrapping_add(b);
            FunctionRecord::new(stripped_name(image, f, start), start, f.end.wrapping_add(b))
        }));
    }
    let space_index = |satp: u64| map.spaces().iter().position(|&s| s == satp).unwrap_or(0);
    let mut added: Vec<(u32, FunctionRecord)> = map
        .added()
        .iter()
        .map(|r| {
            let copy = r.copy_of.and_then(|c| images.get(c.image as usize));
            let name = if map.boot_code() == Some(r.id) {
                BOOT_CODE_NAME.to_string()
            } else if let Some((image, _, _)) = copy {
                format!("[{image} {:#x}]", r.start)
            } else if r.space != 0 {
                format!("[unknown {:#x} in space {}]", r.start, space_index(r.space))
            } else {
                format!("[unknown {:#x}]", r.start)
            };
            (r.id, FunctionRecord::new(name, r.start, r.end))
        })
        .chain(map.trap_roots().iter().map(|&(code, interrupt, id)| {
            (
                id,
                FunctionRecord::new(fwprof_isa::trap_context_name(code, interrupt), 0, 0),
            )
        }))
        .chain(map.signal_roots().iter().map(|&(signo, id)| {
            (
                id,
                FunctionRecord::new(fwprof_isa::signal_context_name(signo), 0, 0),
            )
        }))
        .collect();
    added.sort_by_key(|a| a.0);
    for (id, f) in added {
        debug_assert_eq!(id as usize, functions.len());
        functions.push(f);
    }
    functions
}

/// Bare metal: the `images` section — the program (or kernel), the
/// `--bios` firmware and the reset ROM, each with the functions whose code
/// is its own or a copy of it (see `fwprof_profile::ImageSection`).
pub(crate) fn add_image_section(profile: &mut Profile, symbols: &Symbols, map: &FunctionMap) {
    let images = symbols.images();
    if images.is_empty() {
        return;
    }
    let mut out: Vec<Image> = images
        .iter()
        .map(|(name, role, p)| Image {
            name: name.clone(),
            role: role.to_string(),
            loaded: crate::symbol_files::code_of(p, 0)
                .iter()
                .map(|(a, b)| (*a, a + b.len() as u64))
                .collect(),
            copies: Vec::new(),
            functions: Vec::new(),
        })
        .collect();
    let sources = symbols.main.functions().len()
        + symbols
            .extra
            .iter()
            .map(|e| e.program.functions().len())
            .sum::<usize>();
    for id in 0..sources {
        if let Some(k) = symbols.image_of_source(id) {
            out[k].functions.push(FunctionId(id as u32));
        }
    }
    for r in map.added() {
        if let Some(c) = r.copy_of {
            let image = &mut out[c.image as usize];
            image.functions.push(FunctionId(r.id));
            if !image.copies.contains(&c.delta) {
                image.copies.push(c.delta);
            }
        }
    }
    if let Some(boot) = map.boot_code() {
        if let Some(r) = map.added().iter().find(|r| r.id == boot) {
            out.push(Image {
                name: BOOT_CODE_NAME.to_string(),
                role: "boot ROM".to_string(),
                loaded: vec![(r.start, r.end)],
                copies: Vec::new(),
                functions: vec![FunctionId(boot)],
            });
        }
    }
    // Serialising plain integers and strings cannot fail.
    let _ = profile.set_section(&ImageSection { images: out });
}

/// Set each function's source file and line (of its first address) where
/// `wanted` says, from the line table of the file that defines it (the
/// program, or a `--symbols` file at its own addresses).
pub(crate) fn locate(
    functions: &mut [FunctionRecord],
    symbols: &Symbols,
    wanted: impl Fn(usize, &FunctionRecord) -> bool,
) {
    for (i, f) in functions.iter_mut().enumerate() {
        // Trap roots (an empty range) have no source.
        if f.start < f.end && wanted(i, f) {
            let (program, addr) = match symbols.extra_of(i) {
                Some((e, _)) => (&e.program, f.start.wrapping_sub(e.bias)),
                None => (&symbols.main, f.start),
            };
            if let Ok(Some(loc)) = program.lines(addr) {
                f.file = loc.file;
                f.line = loc.line;
            }
        }
    }
}

/// Puts each function's self cost at its first address, for a method that
/// measures functions, not instructions (instrumentation, hardware
/// counters): consumers of per-address costs (gprof's histogram,
/// Callgrind's lines, pprof's locations) then see the function totals.
/// `functions` are the profile's records (ids by index); the instruction
/// bits come from `program`.
pub(crate) fn self_at_first_addresses(
    profile: &mut Profile,
    functions: &[FunctionRecord],
    program: &Program,
) {
    let mut firsts: Vec<(u64, usize)> = functions
        .iter()
        .enumerate()
        .filter(|(_, f)| f.self_cost.iter().any(|&c| c > 0))
        .map(|(i, f)| (f.start, i))
        .collect();
    // (address, function) keys: the synthetic roots of trap contexts all
    // have address 0, and each keeps its own cost.
    firsts.sort_unstable();
    for (addr, i) in firsts {
        let (raw, len) = instruction_at(program, addr);
        // Sorted, unique addresses and one cost per event: push cannot fail.
        let _ = profile.costs.push(AddressCost {
            addr,
            function: FunctionId(i as u32),
            len,
            raw,
            cost: functions[i].self_cost.clone(),
        });
    }
}

/// Raw bits and length of the instruction at `addr` in the ELF (`(0, 4)`
/// if its bytes are not in the file).
fn instruction_at(program: &Program, addr: u64) -> (u32, u8) {
    let Some(low) = program.bytes_at(addr, 2) else {
        return (0, 4);
    };
    let parcel = u16::from_le_bytes([low[0], low[1]]);
    if parcel & 3 != 3 {
        return (u32::from(parcel), 2);
    }
    match program.bytes_at(addr, 4) {
        Some(b) => (u32::from_le_bytes([b[0], b[1], b[2], b[3]]), 4),
        None => (0, 4),
    }
}
