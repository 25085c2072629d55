//! The call graph, in the layout of GNU gprof (binutils `gprof/cg_print.c`).

use std::cmp::Ordering;
use std::collections::BTreeMap;
use std::io::{self, Write};

use fwprof_profile::Profile;

use crate::cycles::{find_cycles, Cycles};
use crate::options::CallGraphOptions;
use crate::style::{self, Role};
use crate::{cost, percent, unit};

/// Calls and inclusive cost between two functions, all call sites merged.
#[derive(Clone, Copy, Debug)]
struct Pair {
    caller: Option<usize>,
    callee: usize,
    calls: u64,
    incl: u64,
}

/// One entry of the listing: a function or a cycle as a whole.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Entry {
    Function(usize),
    Cycle(u32),
}

/// Propagated figures of an entry, as gprof's `cg.prop` and `ncalls`.
#[derive(Clone, Copy, Debug, Default)]
struct Prop {
    self_cost: u64,
    child: u64,
    /// Calls from outside (for a cycle: from outside the cycle; for a
    /// function: every call except direct recursion).
    ncalls: u64,
    /// Direct recursion (or, for a cycle, calls among its members).
    self_calls: u64,
}

struct Graph<'p> {
    profile: &'p Profile,
    cycles: Cycles,
    pairs: Vec<Pair>,
    funcs: Vec<Prop>,
    cycs: Vec<Prop>,
    index_of_func: Vec<usize>,
    index_of_cycle: Vec<usize>,
    order: Vec<Entry>,
}

/// Writes gprof's call graph for event `opts.event`.
///
/// One block per function (and per recursion cycle), hottest first by
/// inclusive cost: callers above the primary line, callees below. Columns:
/// `index`, `% time` (inclusive share of the total), `self`, `children`,
/// `called` and `name [index]`. On a caller or callee line `called` is
/// `n/m`: `n` calls along this arc out of `m` calls of the callee from
/// outside (its cycle); `self` and `children` there split the arc's exact
/// inclusive cost in the proportion of the callee's self and children.
/// Direct recursion shows as `n+r`. Functions with no caller get a
/// `<spontaneous>` line. Cycles (strongly connected components, see
/// [`crate::find_cycles`]) get a `<cycle N as a whole>` block listing
/// their members, and members are named `name <cycle N> [index]`.
/// Unless `opts.brief`, an explanation and an index by function name follow.
/// A partial profile is announced by the caller, as for [`crate::write_flat`].
/// With `opts.color`, the title, the column headings, the primary lines
/// and the index's title are bold (ANSI SGR); without it, plain text.
///
/// Errors: only those of `w`.
pub fn write_call_graph(
    profile: &Profile,
    opts: &CallGraphOptions,
    mut w: impl Write,
) -> io::Result<()> {
    let e = opts.event;
    let event = profile.events.get(e).map_or("instructions", String::as_str);
    let g = Graph::new(profile, e);
    let total = cost(&profile.totals, e);

    let color = opts.color;
    style::line(&mut w, color, Some(Role::Title), "\t\t\tCall graph")?;
    writeln!(w)?;
    writeln!(w)?;
    if total > 0 {
        writeln!(
            w,
            "granularity: exact; each count is one of {} {} ({:.2e}% of the total)",
            total,
            event,
            100.0 / total as f64
        )?;
    } else {
        writeln!(w, "granularity: exact counts; no {event} propagated")?;
    }
    writeln!(w)?;
    let heading = format!(
        "index % time {:>11} {:>11} {:>9} {:9} name",
        "self", "children", "called", ""
    );
    style::line(&mut w, color, Some(Role::Title), &heading)?;
    for &entry in &g.order {
        match entry {
            Entry::Cycle(c) => g.write_cycle(&mut w, c, total, color)?,
            Entry::Function(f) => {
                g.write_parents(&mut w, f)?;
                g.write_primary(&mut w, f, total, color)?;
                g.write_children(&mut w, f)?;
            }
        }
        writeln!(w, "-----------------------------------------------")?;
    }
    if !opts.brief {
        write_blurb(&mut w, event, unit(event))?;
        g.write_index(&mut w, color)?;
    }
    Ok(())
}

impl<'p> Graph<'p> {
    fn new(profile: &'p Profile, e: usize) -> Graph<'p> {
        let n = profile.functions.len();
        let cycles = find_cycles(profile, e);
        let mut merged: BTreeMap<(Option<usize>, usize), (u64, u64)> = BTreeMap::new();
        for a in &profile.arcs {
            let caller = a.caller.map(|c| c.index()).filter(|&c| c < n);
            if a.callee.index() >= n || (a.caller.is_some() && caller.is_none()) {
                continue;
            }
            let slot = merged.entry((caller, a.callee.index())).or_default();
            slot.0 = slot.0.saturating_add(a.calls);
            slot.1 = slot.1.saturating_add(cost(&a.inclusive, e));
        }
        let pairs: Vec<Pair> = merged
            .into_iter()
            .map(|((caller, callee), (calls, incl))| Pair {
                caller,
                callee,
                calls,
                incl,
            })
            .collect();
        let cyc = |f: usize| cycles.of.get(f).copied().unwrap_or(0);

        let mut funcs = vec![Prop::default(); n];
        let mut cycs = vec![Prop::default(); cycles.members.len()];
        let mut cycle_incl = vec![0u64; cycles.members.len()];
        for (i, f) in profile.functions.iter().enumerate() {
            let s = cost(&f.self_cost, e);
            let incl = cost(&f.inclusive, e).max(s);
            funcs[i] = Prop {
                self_cost: s,
                child: incl - s,
                ncalls: f.calls,
                self_calls: 0,
            };
            if cyc(i) != 0 {
                funcs[i].child = 0;
                let c = cyc(i) as usize - 1;
                cycs[c].self_cost = cycs[c].self_cost.saturating_add(s);
                cycle_incl[c] = cycle_incl[c].max(incl);
            }
        }
        let mut entering = vec![0u64; cycles.members.len()];
        for p in &pairs {
            if p.caller == Some(p.callee) {
                funcs[p.callee].self_calls = funcs[p.callee].self_calls.saturating_add(p.calls);
            }
            let (from, to) = (p.caller.map_or(0, cyc), cyc(p.callee));
            if let Some(caller) = p.caller {
                if from != 0 && from != to {
                    // A member's children are what it calls outside its cycle.
                    funcs[caller].child = funcs[caller].child.saturating_add(p.incl);
                }
            }
            if to != 0 {
                let c = to as usize - 1;
                if from == to {
                    cycs[c].self_calls = cycs[c].self_calls.saturating_add(p.calls);
                } else {
                    cycs[c].ncalls = cycs[c].ncalls.saturating_add(p.calls);
                    entering[c] = entering[c].saturating_add(p.incl);
                }
            }
        }
        for f in &mut funcs {
            f.ncalls = f.ncalls.saturating_sub(f.self_calls);
        }
        for (c, prop) in cycs.iter_mut().enumerate() {
            let whole = entering[c].max(cycle_incl[c]).max(prop.self_cost);
            prop.child = whole - prop.self_cost;
        }

        let mut in_arcs = vec![false; n];
        for p in &pairs {
            in_arcs[p.callee] = true;
            if let Some(c) = p.caller {
                in_arcs[c] = true;
            }
        }
        let mut order: Vec<Entry> = (0..n)
            .filter(|&i| {
                let f = &profile.functions[i];
                in_arcs[i]
                    || f.calls != 0
                    || cost(&f.self_cost, e) != 0
                    || cost(&f.inclusive, e) != 0
            })
            .map(Entry::Function)
            .chain((1..=cycles.members.len() as u32).map(Entry::Cycle))
            .collect();
        let mut g = Graph {
            profile,
            cycles,
            pairs,
            funcs,
            cycs,
            index_of_func: vec![0; n],
            index_of_cycle: Vec::new(),
            order: Vec::new(),
        };
        order.sort_by(|a, b| g.cmp_total(*a, *b));
        g.index_of_cycle = vec![0; g.cycs.len()];
        for (k, entry) in order.iter().enumerate() {
            match *entry {
                Entry::Function(f) => g.index_of_func[f] = k + 1,
                Entry::Cycle(c) => g.index_of_cycle[c as usize - 1] = k + 1,
            }
        }
        g.order = order;
        g
    }

    fn prop(&self, entry: Entry) -> Prop {
        match entry {
            Entry::Function(f) => self.funcs[f],
            Entry::Cycle(c) => self.cycs[c as usize - 1],
        }
    }

    fn cyc(&self, f: usize) -> u32 {
        self.cycles.of.get(f).copied().unwrap_or(0)
    }

    /// gprof's `cmp_total`: total descending, cycles first, names without a
    /// leading underscore first, calls descending, then name.
    fn cmp_total(&self, a: Entry, b: Entry) -> Ordering {
        let (pa, pb) = (self.prop(a), self.prop(b));
        let ta = pa.self_cost.saturating_add(pa.child);
        let tb = pb.self_cost.saturating_add(pb.child);
        tb.cmp(&ta).then_with(|| match (a, b) {
            (Entry::Cycle(x), Entry::Cycle(y)) => x.cmp(&y),
            (Entry::Cycle(_), _) => Ordering::Less,
            (_, Entry::Cycle(_)) => Ordering::Greater,
            (Entry::Function(x), Entry::Function(y)) => {
                let (nx, ny) = (
                    &self.profile.functions[x].name,
                    &self.profile.functions[y].name,
                );
                nx.starts_with('_')
                    .cmp(&ny.starts_with('_'))
                    .then(pb.ncalls.cmp(&pa.ncalls))
                    .then(nx.cmp(ny))
                    .then(x.cmp(&y))
            }
        })
    }

    fn label(&self, f: usize) -> String {
        let name = &self.profile.functions[f].name;
        match self.cyc(f) {
            0 => format!("{name} [{}]", self.index_of_func[f]),
            c => format!("{name} <cycle {c}> [{}]", self.index_of_func[f]),
        }
    }

    fn within_cycle(&self, p: &Pair) -> bool {
        let to = self.cyc(p.callee);
        to != 0 && p.caller.is_some_and(|c| self.cyc(c) == to)
    }

    /// gprof's `cmp_arc`: self calls least, then calls within a cycle (by
    /// count), then the rest by inclusive cost and count.
    fn cmp_arc(&self, a: &Pair, b: &Pair) -> Ordering {
        if a.caller == Some(a.callee) {
            return if b.caller == Some(b.callee) {
                Ordering::Equal
            } else {
                Ordering::Less
            };
        }
        if b.caller == Some(b.callee) {
            return Ordering::Greater;
        }
        match (self.within_cycle(a), self.within_cycle(b)) {
            (true, true) => a.calls.cmp(&b.calls),
            (true, false) => Ordering::Less,
            (false, true) => Ordering::Greater,
            (false, false) => a.incl.cmp(&b.incl).then(a.calls.cmp(&b.calls)),
        }
    }

    /// Splits an arc's inclusive cost into the callee's self and children
    /// shares, in the proportion of the callee (or its cycle) as a whole.
    fn split(&self, p: &Pair) -> (u64, u64) {
        let head = match self.cyc(p.callee) {
            0 => self.funcs[p.callee],
            c => self.cycs[c as usize - 1],
        };
        let whole = head.self_cost.saturating_add(head.child);
        if whole == 0 {
            return (0, p.incl);
        }
        let s = (u128::from(p.incl) * u128::from(head.self_cost) / u128::from(whole)) as u64;
        let s = s.min(p.incl);
        (s, p.incl - s)
    }

    fn head_calls(&self, f: usize) -> u64 {
        match self.cyc(f) {
            0 => self.funcs[f].ncalls,
            c => self.cycs[c as usize - 1].ncalls,
        }
    }

    fn write_arc_line(&self, w: &mut impl Write, p: &Pair, other: usize) -> io::Result<()> {
        if p.caller == Some(p.callee) || self.within_cycle(p) {
            writeln!(
                w,
                "{:6} {:5} {:>11} {:>11} {:>9} {:9}     {}",
                "",
                "",
                "",
                "",
                p.calls,
                "",
                self.label(other)
            )
        } else {
            let (s, c) = self.split(p);
            let of = self.head_calls(p.callee);
            writeln!(
                w,
                "{:6} {:5} {:>11} {:>11} {:>9}/{:<9}     {}",
                "",
                "",
                s,
                c,
                p.calls,
                of,
                self.label(other)
            )
        }
    }

    fn write_parents(&self, w: &mut impl Write, f: usize) -> io::Result<()> {
        let mut parents: Vec<&Pair> = self
            .pairs
            .iter()
            .filter(|p| p.callee == f && p.caller.is_some())
            .collect();
        if parents.is_empty() {
            return writeln!(
                w,
                "{:6} {:5} {:>11} {:>11} {:>9} {:9}     <spontaneous>",
                "", "", "", "", "", ""
            );
        }
        parents.sort_by(|a, b| {
            self.cmp_arc(a, b)
                .then_with(|| self.name_of(a.caller).cmp(self.name_of(b.caller)))
        });
        for p in parents {
            self.write_arc_line(w, p, p.caller.unwrap_or(f))?;
        }
        Ok(())
    }

    fn write_children(&self, w: &mut impl Write, f: usize) -> io::Result<()> {
        let mut children: Vec<&Pair> = self.pairs.iter().filter(|p| p.caller == Some(f)).collect();
        children.sort_by(|a, b| {
            self.cmp_arc(b, a).then_with(|| {
                self.name_of(Some(a.callee))
                    .cmp(self.name_of(Some(b.callee)))
            })
        });
        for p in children {
            self.write_arc_line(w, p, p.callee)?;
        }
        Ok(())
    }

    fn name_of(&self, f: Option<usize>) -> &str {
        f.map_or("", |f| self.profile.functions[f].name.as_str())
    }

    fn write_primary(
        &self,
        w: &mut impl Write,
        f: usize,
        total: u64,
        color: bool,
    ) -> io::Result<()> {
        let p = self.funcs[f];
        let idx = format!("[{}]", self.index_of_func[f]);
        let pct = percent(p.self_cost.saturating_add(p.child), total);
        let line = format!(
            "{idx:<6} {pct:>5.1} {:>11} {:>11}{}{}",
            p.self_cost,
            p.child,
            called(p, " "),
            self.label(f)
        );
        style::line(w, color, Some(Role::Title), &line)
    }

    fn write_cycle(&self, w: &mut impl Write, c: u32, total: u64, color: bool) -> io::Result<()> {
        let p = self.cycs[c as usize - 1];
        let index = self.index_of_cycle[c as usize - 1];
        let idx = format!("[{index}]");
        let pct = percent(p.self_cost.saturating_add(p.child), total);
        let mut line = format!(
            "{idx:<6} {pct:>5.1} {:>11} {:>11} {:>9}",
            p.self_cost, p.child, p.ncalls
        );
        if p.self_calls != 0 {
            line.push_str(&format!("+{:<9}", p.self_calls));
        } else {
            line.push_str(&format!(" {:9}", ""));
        }
        line.push_str(&format!(" <cycle {c} as a whole> [{index}]"));
        style::line(w, color, Some(Role::Title), &line)?;
        let mut members: Vec<usize> = self.cycles.members[c as usize - 1]
            .iter()
            .map(|f| f.index())
            .collect();
        members.sort_by(|&a, &b| {
            let (pa, pb) = (self.funcs[a], self.funcs[b]);
            (pb.self_cost + pb.child)
                .cmp(&(pa.self_cost + pa.child))
                .then((pb.ncalls + pb.self_calls).cmp(&(pa.ncalls + pa.self_calls)))
                .then(a.cmp(&b))
        });
        for m in members {
            let p = self.funcs[m];
            write!(
                w,
                "{:6} {:5} {:>11} {:>11} {:>9}",
                "", "", p.self_cost, p.child, p.ncalls
            )?;
            if p.self_calls != 0 {
                write!(w, "+{:<9}", p.self_calls)?;
            } else {
                write!(w, " {:9}", "")?;
            }
            writeln!(w, "     {}", self.label(m))?;
        }
        Ok(())
    }

    fn write_index(&self, w: &mut impl Write, color: bool) -> io::Result<()> {
        writeln!(w)?;
        style::line(w, color, Some(Role::Title), "Index by function name")?;
        writeln!(w)?;
        let mut funcs: Vec<usize> = self
            .order
            .iter()
            .filter_map(|e| {
                if let Entry::Function(f) = e {
                    Some(*f)
                } else {
                    None
                }
            })
            .collect();
        funcs.sort_by(|&a, &b| {
            self.profile.functions[a]
                .name
                .cmp(&self.profile.functions[b].name)
                .then(a.cmp(&b))
        });
        for f in funcs {
            let idx = format!("[{}]", self.index_of_func[f]);
            writeln!(w, "{idx:>8} {}", self.profile.functions[f].name)?;
        }
        for c in 1..=self.cycs.len() {
            let idx = format!("[{}]", self.index_of_cycle[c - 1]);
            writeln!(w, "{idx:>8} <cycle {c}>")?;
        }
        Ok(())
    }
}

/// The `called` column of a primary line: `n`, `n+r`, or blank.
fn called(p: Prop, end: &str) -> String {
    if p.ncalls.saturating_add(p.self_calls) == 0 {
        return format!(" {:9} {:9}{end}", "", "");
    }
    if p.self_calls != 0 {
        format!(" {:>9}+{:<9}{end}", p.ncalls, p.self_calls)
    } else {
        format!(" {:>9} {:9}{end}", p.ncalls, "")
    }
}

fn write_blurb(w: &mut impl Write, event: &str, u: &str) -> io::Result<()> {
    write!(
        w,
        "
 This table describes the call tree of the program. Counts are exact
 numbers of {event} ({u}), not samples.

 Each entry is separated by dashes. The line with the index number in the
 first column is the function the entry is about; the lines above it are
 its callers and the lines below it the functions it calls.

 Primary line:
     index     a unique number for the function, in order of % time.
     % time    {event} spent in this function and its children, as a
               percentage of all {event}.
     self      {event} in the function itself.
     children  {event} in the functions it called (for a cycle member:
               outside its cycle).
     called    times the function was called; `n+r` adds r recursive
               calls of the function by itself.

 Caller and callee lines:
     self, children  the exact inclusive cost of the calls along this arc,
                     split in the proportion of the callee's self and
                     children.
     called    `n/m`: n calls along this arc of the m calls the callee
               (or its cycle) received from outside.
 <spontaneous> marks a function that nothing called (the entry point, or
 code entered by a trap). Recursion cycles are listed as
 `<cycle N as a whole>` with their members; members are named
 `name <cycle N> [index]`.
"
    )
}
