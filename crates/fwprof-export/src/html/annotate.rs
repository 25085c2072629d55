//! The annotation of the HTML report: each function's instructions grouped
//! by source line (and inlining chain), with the source lines the groups
//! need, built the way `fwprof annotate` builds its text.

use std::collections::{BTreeMap, BTreeSet, HashMap};

use fwprof_isa::{decode, disasm, Style, Xlen};
use fwprof_profile::{FunctionRecord, Profile};
use fwprof_report::{direct_target, function_instructions, inlined_label};
use fwprof_symbols::{Program, SourceResolver};
use serde::Serialize;

use super::model::hex;

/// Most instructions annotated per function (larger functions are cut,
/// and the page says so).
const MAX_ROWS: usize = 20_000;

/// Widest run of a function's own source lines shown in full; a function
/// whose lines spread further shows only the lines that have code.
const MAX_SOURCE_SPAN: u32 = 2_000;

#[derive(Serialize)]
pub(super) struct FileOut {
    path: String,
    found: bool,
    lines: BTreeMap<u32, String>,
}

#[derive(Serialize)]
pub(super) struct Annotation {
    /// `[file, first line, last line]` of the function's own source.
    src: Option<(usize, u32, u32)>,
    groups: Vec<Group>,
    truncated: bool,
}

/// `[file or -1, line or 0, inlined chain or null, instructions]`.
type Group = (i64, u32, Option<String>, Vec<InstRow>);
/// `[address, raw, disassembly, target function or -1, cost or 0]`.
type InstRow = (String, String, String, i64, CostOut);

#[derive(Serialize)]
#[serde(untagged)]
enum CostOut {
    Zero(u8),
    Costs(Vec<u64>),
}

/// Function lookup by address over a sorted copy of the ranges.
pub(super) struct Ranges(Vec<(u64, u64, u32)>);

impl Ranges {
    pub(super) fn new(profile: &Profile) -> Ranges {
        let mut v: Vec<(u64, u64, u32)> = profile
            .functions
            .iter()
            .enumerate()
            .map(|(i, f)| (f.start, f.end, i as u32))
            .collect();
        v.sort_unstable();
        Ranges(v)
    }

    /// The function whose `[start, end)` holds `addr`.
    pub(super) fn at(&self, addr: u64) -> Option<u32> {
        let k = self.0.partition_point(|r| r.0 <= addr);
        // Ranges do not overlap in a recorded profile; look back a little
        // in case one does.
        self.0[..k]
            .iter()
            .rev()
            .take(4)
            .find(|r| addr < r.1)
            .map(|r| r.2)
    }
}

/// Source files read so far and the lines the page needs from each.
#[derive(Default)]
pub(super) struct Sources {
    index: HashMap<String, usize>,
    files: Vec<(String, Option<Vec<String>>, BTreeSet<u32>)>,
}

impl Sources {
    pub(super) fn file(&mut self, resolver: &SourceResolver, path: &str) -> usize {
        if let Some(&i) = self.index.get(path) {
            return i;
        }
        let text = resolver.resolve(path).and_then(|p| {
            let bytes = std::fs::read(p).ok()?;
            Some(
                String::from_utf8_lossy(&bytes)
                    .lines()
                    .map(str::to_string)
                    .collect(),
            )
        });
        self.files.push((path.to_string(), text, BTreeSet::new()));
        self.index.insert(path.to_string(), self.files.len() - 1);
        self.files.len() - 1
    }

    pub(super) fn want(&mut self, file: usize, line: u32) {
        self.files[file].2.insert(line);
    }

    pub(super) fn into_out(self) -> Vec<FileOut> {
        self.files
            .into_iter()
            .map(|(path, text, wanted)| {
                let lines = match &text {
                    Some(t) => wanted
                        .into_iter()
                        .filter_map(|l| Some((l, t.get((l as usize).checked_sub(1)?)?.clone())))
                        .collect(),
                    None => BTreeMap::new(),
                };
                FileOut {
                    path,
                    found: text.is_some(),
                    lines,
                }
            })
            .collect()
    }
}

/// The annotation of one function (see the module documentation).
pub(super) fn annotate(
    profile: &Profile,
    program: Option<&Program>,
    resolver: &SourceResolver,
    sources: &mut Sources,
    ranges: &Ranges,
    xlen: Xlen,
    f: &FunctionRecord,
) -> Annotation {
    let mut rows = function_instructions(profile, program, f, MAX_ROWS + 1);
    let truncated = rows.len() > MAX_ROWS;
    rows.truncate(MAX_ROWS);
    let mut groups: Vec<Group> = Vec::new();
    // Instructions per (file, line) of code not inlined from elsewhere,
    // to choose the function's own file.
    let mut weight: HashMap<usize, usize> = HashMap::new();
    let mut own_lines: Vec<(usize, u32)> = Vec::new();
    for r in rows {
        let loc = program.and_then(|p| p.lines(r.addr).ok().flatten());
        let (file, line, inlined) = match &loc {
            Some(l) => {
                let file = l.file.as_deref().map(|p| sources.file(resolver, p));
                (file, l.line.unwrap_or(0), inlined_label(l))
            }
            None => (None, 0, None),
        };
        if let (Some(fi), true) = (file, line != 0) {
            sources.want(fi, line);
            if inlined.is_none() {
                *weight.entry(fi).or_default() += 1;
                own_lines.push((fi, line));
            }
        }
        let inst = decode(r.raw, xlen);
        let mut text = disasm(&inst, r.addr, xlen, Style::Pseudo);
        let mut target_fn = -1;
        if let Some(target) = direct_target(&inst, r.addr) {
            if let Some(t) = ranges.at(target) {
                let tf = &profile.functions[t as usize];
                if target == tf.start {
                    text.push_str(&format!(" <{}>", tf.name));
                } else {
                    text.push_str(&format!(" <{}+{:#x}>", tf.name, target - tf.start));
                }
                target_fn = i64::from(t);
            }
        }
        let raw = if r.len == 2 {
            format!("{:04x}", r.raw & 0xffff)
        } else {
            format!("{:08x}", r.raw)
        };
        let row = (
            hex(r.addr),
            raw,
            text,
            target_fn,
            r.cost
                .map_or(CostOut::Zero(0), |c| CostOut::Costs(c.to_vec())),
        );
        let file = file.map_or(-1, |i| i as i64);
        match groups.last_mut() {
            Some(g) if g.0 == file && g.1 == line && g.2 == inlined => g.3.push(row),
            _ => groups.push((file, line, inlined, vec![row])),
        }
    }
    // The function's own file: the one DWARF gives for its first line if
    // it has code there, else the one with most of its instructions.
    let declared = f
        .file
        .as_deref()
        .and_then(|p| sources.index.get(p).copied())
        .filter(|i| weight.contains_key(i));
    let home = declared.or_else(|| {
        weight
            .iter()
            .max_by_key(|&(i, w)| (*w, std::cmp::Reverse(*i)))
            .map(|(&i, _)| i)
    });
    let src = home.map(|h| {
        let mut lines: Vec<u32> = own_lines
            .iter()
            .filter(|&&(fi, _)| fi == h)
            .map(|&(_, l)| l)
            .collect();
        if declared == Some(h) {
            if let Some(l) = f.line {
                lines.push(l);
                sources.want(h, l);
            }
        }
        let first = lines.iter().copied().min().unwrap_or(1);
        let last = lines.iter().copied().max().unwrap_or(first);
        if last - first < MAX_SOURCE_SPAN {
            for l in first..=last {
                sources.want(h, l);
            }
        }
        (h, first, last)
    });
    Annotation {
        src,
        groups,
        truncated,
    }
}
