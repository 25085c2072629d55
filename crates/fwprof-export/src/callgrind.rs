//! Callgrind profiles for `callgrind_annotate` and KCachegrind.
//!
//! The file follows the Callgrind Profile Format, version 1
//! (<https://valgrind.org/docs/manual/cl-format.html>):
//!
//! - header: `version: 1`, `creator:`, `cmd:` (the guest command line),
//!   `positions: instr line`, one `event: NAME : LONG NAME` line per event
//!   and `events:` with every event of the profile, the exported one
//!   ([`ExportOptions::event`]) first so that callgrind_annotate sorts by it.
//!   fwprof's `instructions` is written as Callgrind's `Ir` (instructions
//!   retired), the name callgrind_annotate users expect; every other event
//!   keeps fwprof's name (`cycles`, `dcache_misses`, `stall_load_use` ...).
//!   `summary:` (after `events:`, where callgrind_annotate reads it) and
//!   `totals:` at the end both hold the profile's totals.
//! - one block per function: `ob=` (the program), `fl=` (its source file,
//!   `???` when unknown), `fn=`, then one cost line per executed
//!   instruction: its address in hex, its source line and its *exclusive*
//!   (self) cost for every event. Names are compressed as the format
//!   allows: `(id) name` the first time, `(id)` afterwards.
//! - after the cost lines, one call per arc of the profile out of the
//!   function: `cfl=`, `cfn=`, `calls=COUNT TARGET_ADDRESS TARGET_LINE`,
//!   then the call site's address and line with the *inclusive* cost of the
//!   calls. Spontaneous arcs (program entry, trap entry) are calls from a
//!   function named `<spontaneous>` (as in gprof and `fwprof report`) that
//!   has no cost of its own.
//!
//! Lines come from the DWARF of [`ExportOptions::program`] (found by the
//! caller with [`fwprof_symbols::find_program`]: the recorded path if its
//! SHA-256 is unchanged, else `--program`). Each
//! instruction gets the line *in the function's own source file*: for
//! inlined code the line of the outermost inlined call, so that a
//! function's costs stay in one `file:function` entry (callgrind_annotate
//! splits a function by `fi=`/`fe=` file). Unknown lines are written as 0,
//! and a comment line in the file says why when there are no lines at all.
//!
//! # Inclusive costs
//!
//! callgrind_annotate's `--inclusive=yes` cost of a function is the sum of
//! the costs on the calls *into* it. fwprof's inclusive cost counts each
//! outermost activation once, and so does each arc, so for recursive
//! functions the arcs into a function add up to more than its inclusive
//! cost (the recursive calls are nested in the outer ones). The written
//! call costs are therefore reduced, per callee and event, by that excess:
//! first on the callee's calls to itself, then on calls from functions of
//! its recursion cycle, then on the others, largest first. Without
//! recursion nothing changes and every call keeps fwprof's arc cost.
//!
//! [`ExportOptions::event`]: crate::ExportOptions::event
//! [`ExportOptions::program`]: crate::ExportOptions::program

use std::collections::HashMap;
use std::fmt::Write as _;
use std::io::Write;

use fwprof_profile::{events, FunctionId};
use fwprof_symbols::Program;

use crate::{Error, ExportOptions, Profile};

/// Name of the function that makes spontaneous calls (program and trap
/// entry), as gprof and `fwprof report` call it.
pub const SPONTANEOUS: &str = "<spontaneous>";

/// The Callgrind name of fwprof event `name`: `Ir` for `instructions`,
/// the name itself otherwise.
pub fn event_name(name: &str) -> &str {
    if name == events::INSTRUCTIONS {
        "Ir"
    } else {
        name
    }
}

/// The program for line numbers: [`ExportOptions::program`] if it has
/// DWARF line information, else a one-line reason there are no lines
/// (missing or changed file, no DWARF).
pub(crate) fn debug_program<'a>(opts: &ExportOptions<'a>) -> Result<&'a Program, String> {
    let Some(found) = opts.program else {
        return Err("no program was given to the export".to_string());
    };
    let (Some(program), Some(path)) = (&found.program, &found.path) else {
        return Err(found.note.clone().unwrap_or_default());
    };
    match program.debug_info() {
        Ok(true) => Ok(program),
        Ok(false) => Err(format!("{} has no DWARF line information", path.display())),
        Err(e) => Err(format!("{}: {e}", path.display())),
    }
}

/// File and line of `addr` in its physical (outermost) function: for
/// inlined code, the outermost inlined call.
fn physical_line(program: &Program, addr: u64) -> Option<(Option<String>, Option<u32>)> {
    let loc = program.lines(addr).ok()??;
    Some(match loc.inlined.last() {
        Some(outer) => (outer.call_file.clone(), outer.call_line),
        None => (loc.file, loc.line),
    })
}

/// Write `profile` as a Callgrind profile to `out` (see the module
/// documentation for the layout and how fwprof's costs map to it).
///
/// # Errors
/// [`Error::Unsupported`] if `opts.event` is not an event of the profile;
/// [`Error::Io`] if writing fails.
pub fn write(profile: &Profile, opts: &ExportOptions, out: &mut dyn Write) -> Result<(), Error> {
    let n = profile.events.len();
    if opts.event >= n {
        return Err(Error::Unsupported(format!(
            "event {} is not in the profile ({n} events)",
            opts.event
        )));
    }
    // Output order of the events: the exported one first.
    let order: Vec<usize> = std::iter::once(opts.event)
        .chain((0..n).filter(|&e| e != opts.event))
        .collect();
    let program = debug_program(opts);

    // Source file of every function.
    let files: Vec<String> = profile
        .functions
        .iter()
        .map(|f| {
            let from_dwarf = program
                .as_ref()
                .ok()
                .and_then(|p| physical_line(p, f.start))
                .and_then(|(file, _)| file);
            from_dwarf
                .or_else(|| f.file.clone())
                .unwrap_or_else(|| "???".to_string())
        })
        .collect();
    let names = unique_names(profile, &files);
    let line_of = |f: FunctionId, addr: u64| -> u32 {
        let Ok(p) = &program else { return 0 };
        match physical_line(p, addr) {
            Some((Some(file), Some(line))) if file == files[f.index()] => line,
            _ => 0,
        }
    };
    let costs = written_call_costs(profile);

    let mut s = String::new();
    s.push_str("# callgrind format\n");
    s.push_str("version: 1\n");
    let _ = writeln!(s, "creator: fwprof {}", env!("CARGO_PKG_VERSION"));
    let cmd = if profile.meta.command.is_empty() {
        profile.meta.program.clone()
    } else {
        profile.meta.command.join(" ")
    };
    let _ = writeln!(s, "cmd: {}", one_line(&cmd));
    let how = crate::method_note(profile).unwrap_or_else(|| "exact counts".to_string());
    let mut desc = format!("Profile: fwprof, {how}, {}", profile.meta.isa);
    if let Some(core) = &profile.meta.core {
        let _ = write!(desc, ", core model {core}");
    }
    if let Some(p) = &profile.meta.partial {
        let _ = write!(desc, ", partial run ({p})");
    }
    let _ = writeln!(s, "desc: {}", one_line(&desc));
    s.push_str("positions: instr line\n");
    for &e in &order {
        let name = &profile.events[e];
        let long = if name == events::INSTRUCTIONS {
            "Instructions retired (fwprof instructions)".to_string()
        } else {
            format!("fwprof {name}")
        };
        let _ = writeln!(s, "event: {} : {long}", event_name(name));
    }
    let events: Vec<&str> = order
        .iter()
        .map(|&e| event_name(&profile.events[e]))
        .collect();
    let _ = writeln!(s, "events: {}", events.join(" "));
    let _ = writeln!(s, "summary: {}", cost_list(&profile.totals, &order));
    if let Err(why) = &program {
        let _ = writeln!(s, "# fwprof: no source lines (line 0): {}", one_line(why));
    }
    s.push('\n');
    out.write_all(s.as_bytes())?;
    s.clear();

    let mut fl = Compressor::default();
    let mut fnc = Compressor::default();
    let object = one_line(&profile.meta.program);
    let _ = writeln!(s, "ob={object}");

    // Calls out of each function (and from <spontaneous>).
    let mut out_arcs: Vec<Vec<usize>> = vec![Vec::new(); profile.functions.len()];
    let mut spontaneous = Vec::new();
    for (i, a) in profile.arcs.iter().enumerate() {
        if profile.function(a.callee).is_none() {
            continue;
        }
        match a.caller {
            Some(c) if c.index() < profile.functions.len() => out_arcs[c.index()].push(i),
            Some(_) => {}
            None => spontaneous.push(i),
        }
    }
    let write_calls = |s: &mut String,
                       fl: &mut Compressor,
                       fnc: &mut Compressor,
                       arcs: &[usize],
                       caller: Option<FunctionId>| {
        for &i in arcs {
            let a = &profile.arcs[i];
            let callee = &profile.functions[a.callee.index()];
            let _ = writeln!(s, "cfl={}", fl.name(&files[a.callee.index()]));
            let _ = writeln!(s, "cfn={}", fnc.name(&names[a.callee.index()]));
            let _ = writeln!(
                s,
                "calls={} {:#x} {}",
                a.calls,
                callee.start,
                line_of(a.callee, callee.start)
            );
            let site_line = caller.map_or(0, |c| line_of(c, a.call_site));
            let _ = writeln!(
                s,
                "{:#x} {} {}",
                a.call_site,
                site_line,
                cost_list(&costs[i], &order)
            );
        }
    };

    if !spontaneous.is_empty() {
        let _ = writeln!(s, "fl={}", fl.name("???"));
        let _ = writeln!(s, "fn={}", fnc.name(SPONTANEOUS));
        write_calls(&mut s, &mut fl, &mut fnc, &spontaneous, None);
        s.push('\n');
    }

    let mut by_function: Vec<Vec<usize>> = vec![Vec::new(); profile.functions.len()];
    for (i, c) in profile.costs.iter().enumerate() {
        if let Some(v) = by_function.get_mut(c.function.index()) {
            v.push(i);
        }
    }
    for (fi, f) in profile.functions.iter().enumerate() {
        let id = FunctionId(fi as u32);
        if by_function[fi].is_empty() && out_arcs[fi].is_empty() && f.calls == 0 {
            continue;
        }
        let _ = writeln!(s, "fl={}", fl.name(&files[fi]));
        let _ = writeln!(s, "fn={}", fnc.name(&names[fi]));
        for &i in &by_function[fi] {
            let Some(c) = profile.costs.get(i) else {
                continue;
            };
            let _ = writeln!(
                s,
                "{:#x} {} {}",
                c.addr,
                line_of(id, c.addr),
                cost_list(c.cost, &order)
            );
        }
        write_calls(&mut s, &mut fl, &mut fnc, &out_arcs[fi], Some(id));
        s.push('\n');
        if s.len() > 1 << 16 {
            out.write_all(s.as_bytes())?;
            s.clear();
        }
    }
    let _ = writeln!(s, "totals: {}", cost_list(&profile.totals, &order));
    out.write_all(s.as_bytes())?;
    Ok(())
}

/// `v`'s entries in `order`, space-separated, trailing zeros dropped (the
/// format reads missing costs as 0); `0` if all are zero.
fn cost_list(v: &[u64], order: &[usize]) -> String {
    let vals: Vec<u64> = order
        .iter()
        .map(|&e| v.get(e).copied().unwrap_or(0))
        .collect();
    let keep = vals.iter().rposition(|&x| x != 0).map_or(1, |i| i + 1);
    let mut s = String::new();
    for (k, x) in vals[..keep].iter().enumerate() {
        if k > 0 {
            s.push(' ');
        }
        let _ = write!(s, "{x}");
    }
    s
}

/// `s` with line breaks replaced by spaces (header values and names are
/// single lines).
fn one_line(s: &str) -> String {
    s.replace(['\n', '\r'], " ")
}

/// Function names, made unique per source file: a name that two functions
/// of the same file share gets ` [0xSTART]` appended.
fn unique_names(profile: &Profile, files: &[String]) -> Vec<String> {
    let mut seen: HashMap<(&str, &str), usize> = HashMap::new();
    for (f, file) in profile.functions.iter().zip(files) {
        *seen.entry((f.name.as_str(), file.as_str())).or_insert(0) += 1;
    }
    profile
        .functions
        .iter()
        .zip(files)
        .map(|(f, file)| {
            let name = one_line(&f.name);
            if seen[&(f.name.as_str(), file.as_str())] > 1 {
                format!("{name} [{:#x}]", f.start)
            } else {
                name
            }
        })
        .collect()
}

/// Name compression (`(id) name` once, then `(id)`).
#[derive(Default)]
struct Compressor {
    ids: HashMap<String, usize>,
}

impl Compressor {
    fn name(&mut self, name: &str) -> String {
        if let Some(id) = self.ids.get(name) {
            return format!("({id})");
        }
        let id = self.ids.len() + 1;
        self.ids.insert(name.to_string(), id);
        format!("({id}) {name}")
    }
}

/// The inclusive cost written on each arc (indexed like `profile.arcs`):
/// fwprof's arc cost, reduced where the arcs into a function add up to
/// more than its inclusive cost (recursion; see the module documentation).
fn written_call_costs(profile: &Profile) -> Vec<Vec<u64>> {
    let n = profile.events.len();
    let mut costs: Vec<Vec<u64>> = profile
        .arcs
        .iter()
        .map(|a| {
            (0..n)
                .map(|e| a.inclusive.get(e).copied().unwrap_or(0))
                .collect()
        })
        .collect();
    let cycles = fwprof_report::find_cycles(profile, 0);
    let mut into: Vec<Vec<usize>> = vec![Vec::new(); profile.functions.len()];
    for (i, a) in profile.arcs.iter().enumerate() {
        if let Some(v) = into.get_mut(a.callee.index()) {
            v.push(i);
        }
    }
    for (fi, arcs) in into.iter().enumerate() {
        let f = &profile.functions[fi];
        let callee = FunctionId(fi as u32);
        let rank = |i: usize| -> u8 {
            match profile.arcs[i].caller {
                Some(c) if c == callee => 0,
                Some(c)
                    if cycles.cycle_of(c).is_some()
                        && cycles.cycle_of(c) == cycles.cycle_of(callee) =>
                {
                    1
                }
                _ => 2,
            }
        };
        // `e` indexes the cost vectors of several arcs at once.
        #[allow(clippy::needless_range_loop)]
        for e in 0..n {
            let target = f.inclusive.get(e).copied().unwrap_or(0);
            let sum: u64 = arcs.iter().map(|&i| costs[i][e]).sum();
            let Some(mut excess) = sum.checked_sub(target).filter(|&x| x > 0) else {
                continue;
            };
            let mut order = arcs.clone();
            order.sort_by_key(|&i| (rank(i), std::cmp::Reverse(costs[i][e]), i));
            for i in order {
                let cut = excess.min(costs[i][e]);
                costs[i][e] -= cut;
                excess -= cut;
                if excess == 0 {
                    break;
                }
            }
        }
    }
    costs
}

#[cfg(test)]
mod tests {
    use super::*;
    use fwprof_profile::{AddressCost, Arc, FunctionRecord, Meta};

    /// main → f (2 calls), f → f (recursion), main at 0x100, f at 0x200.
    fn recursive() -> Profile {
        let mut p = Profile::new(
            Meta::new("/nonexistent/prog.elf"),
            vec!["instructions".into(), "cycles".into()],
        );
        let main = p.add_function(FunctionRecord::new("main", 0x100, 0x200));
        let f = p.add_function(FunctionRecord::new("f", 0x200, 0x300));
        for (addr, function, c) in [
            (0x100, main, [3, 9]),
            (0x104, main, [2, 2]),
            (0x200, f, [10, 30]),
        ] {
            p.costs
                .push(AddressCost {
                    addr,
                    function,
                    len: 4,
                    raw: 0x13,
                    cost: c.to_vec(),
                })
                .unwrap();
        }
        let fr = &mut p.functions[main.index()];
        (fr.calls, fr.self_cost, fr.inclusive) = (1, vec![5, 11], vec![15, 41]);
        let fr = &mut p.functions[f.index()];
        (fr.calls, fr.self_cost, fr.inclusive) = (5, vec![10, 30], vec![10, 30]);
        p.arcs.push(Arc::spontaneous(main, 1, vec![15, 41]));
        p.arcs.push(Arc {
            caller: Some(main),
            callee: f,
            call_site: 0x104,
            calls: 2,
            tail: false,
            inclusive: vec![10, 30],
        });
        p.arcs.push(Arc {
            caller: Some(f),
            callee: f,
            call_site: 0x200,
            calls: 3,
            tail: false,
            inclusive: vec![6, 18],
        });
        p.totals = vec![15, 41];
        p
    }

    fn export(p: &Profile, event: usize) -> String {
        let found =
            fwprof_symbols::find_program(&p.meta.program, &p.meta.sha256, None, false).unwrap();
        let mut opts = ExportOptions::new(event);
        opts.program = Some(&found);
        let mut out = Vec::new();
        write(p, &opts, &mut out).unwrap();
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn layout_names_and_costs() {
        let text = export(&recursive(), 0);
        assert!(text.starts_with("# callgrind format\nversion: 1\ncreator: fwprof "));
        assert!(text.contains("\npositions: instr line\n"));
        assert!(text.contains("\nevents: Ir cycles\nsummary: 15 41\n"));
        assert!(text.contains("\nfl=(1) ???\nfn=(1) <spontaneous>\ncfl=(1)\ncfn=(2) main\ncalls=1 0x100 0\n0x0 0 15 41\n"));
        assert!(
            text.contains("\nfl=(1)\nfn=(2)\n0x100 0 3 9\n0x104 0 2 2\n"),
            "{text}"
        );
        assert!(
            text.contains("\ncfn=(3) f\ncalls=2 0x200 0\n0x104 0 10 30\n"),
            "{text}"
        );
        // The recursive call is written with no cost: f's inclusive cost
        // (10 instructions) is all on main's call.
        assert!(
            text.contains("\ncfn=(3)\ncalls=3 0x200 0\n0x200 0 0\n"),
            "{text}"
        );
        assert!(text.ends_with("totals: 15 41\n"));
        assert!(text.contains("# fwprof: no source lines (line 0): /nonexistent/prog.elf"));
    }

    #[test]
    fn exported_event_comes_first() {
        let text = export(&recursive(), 1);
        assert!(text.contains("\nevents: cycles Ir\nsummary: 41 15\n"));
        assert!(text.contains("\n0x100 0 9 3\n"));
    }

    #[test]
    fn recursion_excess_is_cut_from_self_calls_first() {
        let p = recursive();
        let c = written_call_costs(&p);
        assert_eq!(c[1], vec![10, 30]);
        assert_eq!(c[2], vec![0, 0]);
        assert_eq!(c[0], vec![15, 41]);
    }

    #[test]
    fn trailing_zero_costs_are_dropped() {
        assert_eq!(cost_list(&[0, 5, 0, 0], &[0, 1, 2, 3]), "0 5");
        assert_eq!(cost_list(&[0, 0], &[0, 1]), "0");
        assert_eq!(cost_list(&[1, 2], &[1, 0]), "2 1");
    }

    #[test]
    fn same_name_same_file_is_disambiguated() {
        let mut p = recursive();
        p.functions[1].name = "main".into();
        let names = unique_names(&p, &["???".into(), "???".into()]);
        assert_eq!(names, vec!["main [0x100]", "main [0x200]"]);
    }
}
