//! The `tasks` and `stacks` sections: an operating system's tasks as
//! fwprof told them apart (each one's calling contexts, instructions and
//! context switches), and the stack high-water mark of every stack
//! (`docs/profile-format.md`, "Sections"; `docs/concurrency.md`, "Tasks of
//! an operating system").

use serde::{Deserialize, Serialize};

use crate::model::Profile;
use crate::sections::SectionKind;

/// Section `tasks`, layout version 1, ancillary.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct TaskSection {
    /// The tasks, in order of first run; the first is the one the run
    /// started in.
    pub tasks: Vec<TaskRecord>,
    /// Context switches (voluntary and by interrupt).
    pub switches: u64,
    /// The `--task-hint` symbol, if one was given.
    #[serde(default)]
    pub hint: Option<String>,
}

impl SectionKind for TaskSection {
    const NAME: &'static str = "tasks";
    const VERSION: u32 = 1;
    const CRITICAL: bool = false;
}

/// One task.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct TaskRecord {
    /// How reports name it: its entry function (`task_a`), with `#2`,
    /// `#3`… after the name when several tasks start in one function.
    pub name: String,
    /// Address it first ran at.
    pub entry: u64,
    /// Instructions it executed, the traps taken while it ran included
    /// (its contexts' self instructions add up to it).
    pub executed: u64,
    /// Times it gave the hart away by an exception (`ecall`: a yield, a
    /// blocking call) or a call of the `--task-hint` function.
    pub voluntary: u64,
    /// Times it was pre-empted by an interrupt.
    pub involuntary: u64,
    /// The roots of its calling contexts (indices into
    /// [`Profile::contexts`], each a context without a parent).
    pub roots: Vec<u32>,
}

impl TaskSection {
    /// Per context, the index in [`TaskSection::tasks`] of the task it
    /// belongs to (`None` for a context under no listed root).
    pub fn context_tasks(&self, profile: &Profile) -> Vec<Option<usize>> {
        crate::owners::context_owners(profile, self.tasks.iter().map(|t| &t.roots[..]))
    }

    /// Per task, the self cost of its contexts per event.
    pub fn costs(&self, profile: &Profile) -> Vec<Vec<u64>> {
        crate::owners::owner_costs(profile, &self.context_tasks(profile), self.tasks.len())
    }

    /// What makes the section not fit `profile`, if anything: a root out
    /// of range, not a root, or listed twice.
    pub(crate) fn problem(&self, profile: &Profile) -> Option<String> {
        let owners = self.tasks.iter().map(|t| (t.name.as_str(), &t.roots[..]));
        crate::owners::roots_problem("tasks", profile, owners)
    }
}

/// Section `stacks`, layout version 1, ancillary: the stack high-water
/// marks of a run.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct StackSection {
    /// One mark per stack, in order of first use.
    pub stacks: Vec<StackRecord>,
}

impl SectionKind for StackSection {
    const NAME: &'static str = "stacks";
    const VERSION: u32 = 1;
    const CRITICAL: bool = false;
}

/// The deepest use of one stack: `sp`'s lowest value on it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct StackRecord {
    /// Whose stack: a task's name ([`TaskRecord::name`]), `main` (the
    /// program, without tasks), `hart N`, `thread TID`, or a trap or
    /// signal context's root (`[interrupt: machine timer]`) that moved
    /// to a stack of its own.
    pub name: String,
    /// `task` (the main program, a hart, a thread or a task) or `context`
    /// (a trap or signal context).
    pub kind: String,
    /// Highest `sp` seen on it (where its owner began).
    pub top: u64,
    /// Lowest `sp` seen on it.
    pub lowest: u64,
    /// `top - lowest`, in bytes: the high-water mark.
    pub bytes: u64,
}

impl StackSection {
    /// What makes the section inconsistent, if anything: a mark whose
    /// bytes are not `top - lowest`.
    pub(crate) fn problem(&self) -> Option<String> {
        self.stacks
            .iter()
            .find(|s| s.lowest > s.top || s.top - s.lowest != s.bytes)
            .map(|s| {
                format!(
                    "section \"stacks\": {}: {} bytes from {:#x} down to {:#x}",
                    s.name, s.bytes, s.top, s.lowest
                )
            })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{ContextRecord, FunctionId, FunctionRecord, Meta};

    #[test]
    fn contexts_belong_to_the_task_of_their_root() {
        let mut p = Profile::new(Meta::new("a.elf"), vec!["instructions".into()]);
        let f = p.add_function(FunctionRecord::new("task_a", 0, 4));
        let g = p.add_function(FunctionRecord::new("work", 4, 8));
        let ctx = |parent, function: FunctionId, cost| ContextRecord {
            parent,
            function,
            calls: 1,
            self_cost: vec![cost],
        };
        p.contexts = vec![
            ctx(None, f, 3),
            ctx(Some(0), g, 10),
            ctx(None, f, 4),
            ctx(Some(2), g, 20),
        ];
        let task = |name: &str, roots| TaskRecord {
            name: name.into(),
            entry: 0,
            executed: 0,
            voluntary: 1,
            involuntary: 2,
            roots,
        };
        let s = TaskSection {
            tasks: vec![task("task_a", vec![0]), task("task_a#2", vec![2])],
            switches: 3,
            hint: None,
        };
        assert_eq!(
            s.context_tasks(&p),
            vec![Some(0), Some(0), Some(1), Some(1)]
        );
        assert_eq!(s.costs(&p), vec![vec![13], vec![24]]);
        assert_eq!(s.problem(&p), None);
        let mut bad = s.clone();
        bad.tasks[1].roots = vec![3];
        assert!(bad.problem(&p).unwrap().contains("not a root"));
        let marks = StackSection {
            stacks: vec![StackRecord {
                name: "task_a".into(),
                kind: "task".into(),
                top: 0x2000,
                lowest: 0x1f00,
                bytes: 0x100,
            }],
        };
        assert_eq!(marks.problem(), None);
        let mut bad = marks.clone();
        bad.stacks[0].bytes = 1;
        assert!(bad.problem().unwrap().contains("task_a"));
    }
}
