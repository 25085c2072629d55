//! `fwprof report --task NAME`, `--per-task` and `--stack`: an operating
//! system's tasks, seen one at a time from the profile's `tasks` section
//! (each task's calling contexts have roots of their own, as a hart's do:
//! the rules of `report --hart`, module `threads`), and the stack
//! high-water marks of the `stacks` section.

use std::io::{self, Write};

use fwprof_profile::{Profile, StackSection, TaskSection};

use crate::options::ReportOptions;
use crate::threads::restrict_to_owners;

/// Why a profile cannot be split by task or has no stack marks.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum TaskError {
    /// The profile has no `tasks` section: not an exact recording of a
    /// bare-metal program on one hart, a run that never switched tasks, or
    /// from an older fwprof.
    NoSection,
    /// No task has this name.
    NoSuchTask {
        /// The name asked for.
        name: String,
        /// The tasks the profile has.
        names: Vec<String>,
    },
    /// The profile has no `stacks` section.
    NoStacks,
}

impl std::fmt::Display for TaskError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            TaskError::NoSection => f.write_str(
                "the profile has no tasks (tasks are told apart by record --method exact of a bare-metal program on one hart, when it switches between them)",
            ),
            TaskError::NoSuchTask { name, names } => {
                write!(f, "the profile has no task {name} (its tasks: {})", names.join(", "))
            }
            TaskError::NoStacks => f.write_str(
                "the profile has no stack marks (they are measured by record --method exact)",
            ),
        }
    }
}

impl std::error::Error for TaskError {}

fn section(profile: &Profile) -> Result<TaskSection, TaskError> {
    profile
        .section::<TaskSection>()
        .ok()
        .flatten()
        .ok_or(TaskError::NoSection)
}

/// `profile` restricted to what the task named `name` executed, the traps
/// taken while it ran included.
///
/// # Errors
/// [`TaskError`]: no `tasks` section, or no such task.
pub fn restrict_to_task(profile: &Profile, name: &str) -> Result<Profile, TaskError> {
    let sec = section(profile)?;
    let Some(i) = sec.tasks.iter().position(|t| t.name == name) else {
        return Err(TaskError::NoSuchTask {
            name: name.to_string(),
            names: sec.tasks.iter().map(|t| t.name.clone()).collect(),
        });
    };
    Ok(restrict_to_owners(
        profile,
        sec.context_tasks(profile),
        |t| t == i,
    ))
}

/// `report --per-task`: a table of the tasks (instructions executed,
/// share of the run, the cost in the report's event, context switches
/// voluntary and by interrupt), then each one's report under `opts`.
///
/// # Errors
/// [`TaskError`] as an [`io::Error`] of kind `InvalidInput` when the
/// profile has no `tasks` section; write errors.
pub fn write_per_task(
    profile: &Profile,
    opts: &ReportOptions,
    w: &mut dyn Write,
) -> io::Result<()> {
    let sec = section(profile).map_err(|e| io::Error::new(io::ErrorKind::InvalidInput, e))?;
    let costs = sec.costs(profile);
    let e = opts.event.min(profile.events.len().saturating_sub(1));
    let event = profile.events.get(e).map_or("instructions", String::as_str);
    let total: u64 = costs.iter().map(|c| c[e]).sum();
    let voluntary: u64 = sec.tasks.iter().map(|t| t.voluntary).sum();
    writeln!(
        w,
        "Tasks: {} ({} context switches: {voluntary} voluntary, {} by interrupt{})",
        sec.tasks.len(),
        sec.switches,
        sec.switches - voluntary.min(sec.switches),
        sec.hint
            .as_ref()
            .map_or(String::new(), |h| format!("; --task-hint {h}"))
    )?;
    writeln!(w)?;
    let width = sec
        .tasks
        .iter()
        .map(|t| t.name.len())
        .max()
        .unwrap_or(4)
        .max(4);
    writeln!(
        w,
        "  {:<width$}  {:>14}  {:>7}  {:>14}  {:>9}  {:>9}",
        "task", "executed", "%", event, "voluntary", "interrupt"
    )?;
    for (t, c) in sec.tasks.iter().zip(&costs) {
        let share = if total == 0 {
            0.0
        } else {
            100.0 * c[e] as f64 / total as f64
        };
        writeln!(
            w,
            "  {:<width$}  {:>14}  {share:>6.2}%  {:>14}  {:>9}  {:>9}",
            t.name, t.executed, c[e], t.voluntary, t.involuntary
        )?;
    }
    let owners = sec.context_tasks(profile);
    for (i, t) in sec.tasks.iter().enumerate() {
        writeln!(w)?;
        writeln!(w, "==== task {} ====", t.name)?;
        writeln!(w)?;
        let one = restrict_to_owners(profile, owners.clone(), |k| k == i);
        crate::write_report(&one, opts, &mut *w)?;
    }
    Ok(())
}

/// `report --stack`: the stack high-water mark of every stack — each
/// task's (or the main program's, a hart's, a thread's) and each trap or
/// signal context's that moved to a stack of its own — deepest first.
///
/// # Errors
/// [`TaskError::NoStacks`] as an [`io::Error`] of kind `InvalidInput`
/// when the profile has no `stacks` section; write errors.
pub fn write_stacks(profile: &Profile, w: &mut dyn Write) -> io::Result<()> {
    let sec: StackSection = profile
        .section::<StackSection>()
        .ok()
        .flatten()
        .ok_or_else(|| io::Error::new(io::ErrorKind::InvalidInput, TaskError::NoStacks))?;
    let mut rows: Vec<_> = sec.stacks.iter().collect();
    rows.sort_by(|a, b| b.bytes.cmp(&a.bytes).then_with(|| a.name.cmp(&b.name)));
    let width = rows.iter().map(|s| s.name.len()).max().unwrap_or(5).max(5);
    writeln!(
        w,
        "Stack high-water marks (bytes from the highest to the lowest sp on each stack):"
    )?;
    writeln!(w)?;
    writeln!(
        w,
        "  {:>8}  {:<width$}  {:<7}  {:>18}  {:>18}",
        "bytes", "stack", "kind", "top", "lowest sp"
    )?;
    for s in rows {
        writeln!(
            w,
            "  {:>8}  {:<width$}  {:<7}  {:>#18x}  {:>#18x}",
            s.bytes, s.name, s.kind, s.top, s.lowest
        )?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use fwprof_profile::{
        ContextRecord, FunctionId, FunctionRecord, Meta, StackRecord, TaskRecord,
    };

    /// `_start` runs task_a and task_b; each calls `work` (3 and 5).
    fn two_tasks() -> Profile {
        let mut p = Profile::new(Meta::new("a.elf"), vec!["instructions".into()]);
        let start = p.add_function(FunctionRecord::new("_start", 0, 4));
        let a = p.add_function(FunctionRecord::new("task_a", 4, 8));
        let b = p.add_function(FunctionRecord::new("task_b", 8, 12));
        let work = p.add_function(FunctionRecord::new("work", 12, 16));
        let ctx = |parent, function: FunctionId, calls, cost| ContextRecord {
            parent,
            function,
            calls,
            self_cost: vec![cost],
        };
        p.contexts = vec![
            ctx(None, start, 1, 2),
            ctx(None, a, 1, 1),
            ctx(Some(1), work, 1, 3),
            ctx(None, b, 1, 1),
            ctx(Some(3), work, 1, 5),
        ];
        p.functions[work.0 as usize].calls = 2;
        p.functions[work.0 as usize].self_cost = vec![8];
        let arc = |caller, site| fwprof_profile::Arc {
            caller: Some(caller),
            callee: work,
            call_site: site,
            calls: 1,
            tail: false,
            inclusive: vec![4],
        };
        p.arcs = vec![arc(a, 5), arc(b, 9)];
        p.totals = vec![12];
        let task = |name: &str, roots, executed| TaskRecord {
            name: name.into(),
            entry: 0,
            executed,
            voluntary: 1,
            involuntary: 2,
            roots,
        };
        p.set_section(&TaskSection {
            tasks: vec![
                task("_start", vec![0], 2),
                task("task_a", vec![1], 4),
                task("task_b", vec![3], 6),
            ],
            switches: 9,
            hint: None,
        })
        .unwrap();
        p.set_section(&StackSection {
            stacks: vec![
                StackRecord {
                    name: "task_a".into(),
                    kind: "task".into(),
                    top: 0x2000,
                    lowest: 0x1e90,
                    bytes: 0x170,
                },
                StackRecord {
                    name: "[interrupt: machine timer]".into(),
                    kind: "context".into(),
                    top: 0x3000,
                    lowest: 0x2fd0,
                    bytes: 48,
                },
            ],
        })
        .unwrap();
        p
    }

    #[test]
    fn a_task_keeps_its_own_contexts() {
        let p = two_tasks();
        let b = restrict_to_task(&p, "task_b").unwrap();
        let work = b.functions.iter().find(|f| f.name == "work").unwrap();
        assert_eq!(work.calls, 1);
        assert_eq!(work.self_cost, vec![5]);
        assert_eq!(b.totals, vec![6]);
        let e = restrict_to_task(&p, "task_c").unwrap_err();
        assert!(e.to_string().contains("_start, task_a, task_b"), "{e}");
    }

    #[test]
    fn per_task_table_then_reports() {
        let p = two_tasks();
        let mut out = Vec::new();
        write_per_task(&p, &ReportOptions::default(), &mut out).unwrap();
        let text = String::from_utf8(out).unwrap();
        assert!(
            text.starts_with("Tasks: 3 (9 context switches: 3 voluntary, 6 by interrupt)"),
            "{text}"
        );
        assert!(text.contains("==== task task_b ===="));
        let row = text
            .lines()
            .find(|l| l.trim_start().starts_with("task_b"))
            .unwrap();
        let cols: Vec<&str> = row.split_whitespace().collect();
        assert_eq!(cols, ["task_b", "6", "50.00%", "6", "1", "2"]);
    }

    #[test]
    fn stacks_deepest_first() {
        let p = two_tasks();
        let mut out = Vec::new();
        write_stacks(&p, &mut out).unwrap();
        let text = String::from_utf8(out).unwrap();
        let rows: Vec<&str> = text.lines().skip(3).collect();
        let cols = |r: &str| r.split_whitespace().map(str::to_string).collect::<Vec<_>>();
        assert_eq!(cols(rows[0])[..3], ["368", "task_a", "task"], "{text}");
        assert!(
            rows[1]
                .trim_start()
                .starts_with("48  [interrupt: machine timer]"),
            "{text}"
        );
        let mut bare = p.clone();
        bare.sections.clear();
        assert!(write_stacks(&bare, &mut Vec::new()).is_err());
        assert!(write_per_task(&bare, &ReportOptions::default(), &mut Vec::new()).is_err());
    }
}
