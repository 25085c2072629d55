//! The `privilege` section: every cost split by the privilege level the
//! hart ran the code at (Privileged ISA 20211203, §1.2: M, S, U), per
//! calling context, per function and in total (`docs/profile-format.md`,
//! "Sections").

use serde::{Deserialize, Serialize};

use crate::model::{FunctionId, Profile};
use crate::sections::SectionKind;

/// A privilege level.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub enum Level {
    /// Machine mode (encoding 3), stored as `"M"`.
    M,
    /// Supervisor mode (encoding 1), stored as `"S"`.
    S,
    /// User mode (encoding 0), stored as `"U"`.
    U,
}

impl Level {
    /// All levels, most privileged first.
    pub const ALL: [Level; 3] = [Level::M, Level::S, Level::U];

    /// The level of a two-bit `mstatus.MPP` encoding (0 U, 1 S, 3 M; the
    /// reserved 2 is taken as U, as the simulator does).
    pub fn from_bits(bits: u8) -> Level {
        match bits {
            3 => Level::M,
            1 => Level::S,
            _ => Level::U,
        }
    }

    /// `"M"`, `"S"` or `"U"`.
    pub fn as_str(self) -> &'static str {
        match self {
            Level::M => "M",
            Level::S => "S",
            Level::U => "U",
        }
    }

    /// The level named `M`, `S` or `U` (either case).
    pub fn parse(s: &str) -> Option<Level> {
        match s {
            "M" | "m" => Some(Level::M),
            "S" | "s" => Some(Level::S),
            "U" | "u" => Some(Level::U),
            _ => None,
        }
    }
}

/// Section `privilege`, layout version 1, ancillary. Only non-zero
/// entries are stored; each list is sorted by its first key, then level.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct PrivilegeSection {
    /// Total cost per level (sums to [`Profile::totals`]).
    pub totals: Vec<LevelCost>,
    /// Self cost per function and level (sums to each function's self cost).
    pub functions: Vec<FunctionLevelCost>,
    /// Self cost per calling context and level (sums to each context's self
    /// cost).
    pub contexts: Vec<ContextLevelCost>,
}

impl SectionKind for PrivilegeSection {
    const NAME: &'static str = "privilege";
    const VERSION: u32 = 1;
    const CRITICAL: bool = false;
}

/// A cost vector at one level.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct LevelCost {
    /// The level.
    pub level: Level,
    /// Cost per event.
    pub cost: Vec<u64>,
}

/// A function's self cost at one level.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct FunctionLevelCost {
    /// The function.
    pub function: FunctionId,
    /// The level.
    pub level: Level,
    /// Self cost per event.
    pub self_cost: Vec<u64>,
}

/// A calling context's self cost at one level.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ContextLevelCost {
    /// Index into [`Profile::contexts`].
    pub context: u32,
    /// The level.
    pub level: Level,
    /// Self cost per event.
    pub self_cost: Vec<u64>,
}

impl PrivilegeSection {
    /// The section for `profile` from the self cost of its contexts per
    /// level (`(context, level, cost per event)`, any order, repeats
    /// added): the per-function and total costs are their sums.
    pub fn from_contexts(
        profile: &Profile,
        per_context: impl IntoIterator<Item = (u32, Level, Vec<u64>)>,
    ) -> PrivilegeSection {
        use std::collections::BTreeMap;
        let n = profile.events.len();
        let add = |dst: &mut Vec<u64>, v: &[u64]| {
            dst.resize(n, 0);
            for (d, s) in dst.iter_mut().zip(v) {
                *d += s;
            }
        };
        let mut ctx: BTreeMap<(u32, Level), Vec<u64>> = BTreeMap::new();
        for (c, l, v) in per_context {
            add(ctx.entry((c, l)).or_default(), &v);
        }
        let mut funcs: BTreeMap<(FunctionId, Level), Vec<u64>> = BTreeMap::new();
        let mut totals: BTreeMap<Level, Vec<u64>> = BTreeMap::new();
        for (&(c, l), v) in &ctx {
            if let Some(rec) = profile.contexts.get(c as usize) {
                add(funcs.entry((rec.function, l)).or_default(), v);
            }
            add(totals.entry(l).or_default(), v);
        }
        let nonzero = |v: &Vec<u64>| v.iter().any(|&x| x > 0);
        PrivilegeSection {
            totals: totals
                .into_iter()
                .filter(|(_, v)| nonzero(v))
                .map(|(level, cost)| LevelCost { level, cost })
                .collect(),
            functions: funcs
                .into_iter()
                .filter(|(_, v)| nonzero(v))
                .map(|((function, level), self_cost)| FunctionLevelCost {
                    function,
                    level,
                    self_cost,
                })
                .collect(),
            contexts: ctx
                .into_iter()
                .filter(|(_, v)| nonzero(v))
                .map(|((context, level), self_cost)| ContextLevelCost {
                    context,
                    level,
                    self_cost,
                })
                .collect(),
        }
    }

    /// The total at `level` (zeros if nothing ran there), `n` events.
    pub fn total(&self, level: Level, n: usize) -> Vec<u64> {
        self.totals
            .iter()
            .find(|t| t.level == level)
            .map_or_else(|| vec![0; n], |t| t.cost.clone())
    }

    /// A problem with the section's shape in `profile`, in words.
    pub(crate) fn problem(&self, profile: &Profile) -> Option<String> {
        let n = profile.events.len();
        let bad_len = self.totals.iter().any(|t| t.cost.len() != n)
            || self.functions.iter().any(|f| f.self_cost.len() != n)
            || self.contexts.iter().any(|c| c.self_cost.len() != n);
        if bad_len {
            return Some("the privilege section has a cost vector of the wrong length".into());
        }
        if self
            .functions
            .iter()
            .any(|f| f.function.index() >= profile.functions.len())
            || self
                .contexts
                .iter()
                .any(|c| c.context as usize >= profile.contexts.len())
        {
            return Some("the privilege section names a function or context out of range".into());
        }
        None
    }
}
