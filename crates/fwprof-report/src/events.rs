//! Choosing events by name: the primary event of a report, the extra
//! columns of the flat profile, and the rates derived from pairs of events.

use std::fmt;

use fwprof_profile::{events, Profile};

/// The stall events of a timing profile (all in cycles), in the order
/// annotation shows them. A profile may have any subset.
pub const STALL_EVENTS: [&str; 6] = events::STALLS;

/// A ratio of two events of the same function, computed from self costs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Derived {
    /// Cycles per instruction: `cycles / instructions`.
    Cpi,
    /// `icache_misses / icache_accesses`.
    IcacheMissRate,
    /// `dcache_misses / dcache_accesses`.
    DcacheMissRate,
    /// `branch_mispredicts / branches`.
    MispredictRate,
}

impl Derived {
    /// Every derived column, in the order JSON and help texts list them.
    pub const ALL: [Derived; 4] = [
        Derived::Cpi,
        Derived::IcacheMissRate,
        Derived::DcacheMissRate,
        Derived::MispredictRate,
    ];

    /// The name accepted in `--events` and used as a JSON key: `cpi`,
    /// `icache_miss_rate`, `dcache_miss_rate`, `mispredict_rate`.
    pub fn name(self) -> &'static str {
        match self {
            Derived::Cpi => "cpi",
            Derived::IcacheMissRate => "icache_miss_rate",
            Derived::DcacheMissRate => "dcache_miss_rate",
            Derived::MispredictRate => "mispredict_rate",
        }
    }

    /// Column header of the flat profile: `CPI`, `icache miss %`,
    /// `dcache miss %`, `mispredict %`.
    pub fn header(self) -> &'static str {
        match self {
            Derived::Cpi => "CPI",
            Derived::IcacheMissRate => "icache miss %",
            Derived::DcacheMissRate => "dcache miss %",
            Derived::MispredictRate => "mispredict %",
        }
    }

    /// The events the ratio is made of: `(numerator, denominator)`.
    pub fn inputs(self) -> (&'static str, &'static str) {
        match self {
            Derived::Cpi => (events::CYCLES, events::INSTRUCTIONS),
            Derived::IcacheMissRate => (events::ICACHE_MISSES, events::ICACHE_ACCESSES),
            Derived::DcacheMissRate => (events::DCACHE_MISSES, events::DCACHE_ACCESSES),
            Derived::MispredictRate => (events::BRANCH_MISPREDICTS, events::BRANCHES),
        }
    }

    /// True for the miss and mispredict rates, which the flat profile
    /// shows in percent; false for CPI.
    pub fn is_rate(self) -> bool {
        self != Derived::Cpi
    }

    /// The derived column called `name`, if any.
    pub fn from_name(name: &str) -> Option<Derived> {
        Derived::ALL.into_iter().find(|d| d.name() == name)
    }

    /// Indexes of the numerator and denominator in `profile.events`, or
    /// `None` if the profile lacks either.
    pub fn input_indexes(self, profile: &Profile) -> Option<(usize, usize)> {
        let (num, den) = self.inputs();
        Some((profile.event_index(num)?, profile.event_index(den)?))
    }

    /// True if the profile records both inputs.
    pub fn available(self, profile: &Profile) -> bool {
        self.input_indexes(profile).is_some()
    }

    /// The ratio for one cost vector of `profile` (a function's self
    /// cost, say) as a plain fraction (0.25, not 25%); `None` if the
    /// profile lacks an input or the denominator is 0.
    pub fn value(self, profile: &Profile, costs: &[u64]) -> Option<f64> {
        let (num, den) = self.input_indexes(profile)?;
        let den = crate::cost(costs, den);
        (den != 0).then(|| crate::cost(costs, num) as f64 / den as f64)
    }
}

/// A column of the flat profile after the primary event's own columns.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Column {
    /// Self cost of the event with this index in `Profile::events`.
    Event(usize),
    /// A ratio of two events' self costs.
    Derived(Derived),
}

/// Why an event list given by name cannot be used with a profile.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum EventError {
    /// The name is neither an event of the profile nor (where allowed) a
    /// derived column whose inputs the profile records.
    Unknown {
        /// The name asked for.
        name: String,
        /// The profile's events, in profile order.
        events: Vec<String>,
        /// Derived columns the profile could show (empty where derived
        /// columns are not allowed).
        derived: Vec<&'static str>,
    },
    /// A derived column was asked for but the profile lacks an input.
    MissingInputs {
        /// The derived column.
        name: &'static str,
        /// The events it needs.
        needs: (&'static str, &'static str),
        /// The profile's events.
        events: Vec<String>,
    },
    /// The first name of an event list must be an event (it is the sort
    /// key and the `%` column), not a derived column.
    DerivedFirst {
        /// The derived column given first.
        name: &'static str,
    },
    /// The list named nothing.
    Empty,
}

impl fmt::Display for EventError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            EventError::Unknown {
                name,
                events,
                derived,
            } => {
                write!(
                    f,
                    "unknown event `{name}`; the profile has: {}",
                    events.join(", ")
                )?;
                if !derived.is_empty() {
                    write!(f, " (derived: {})", derived.join(", "))?;
                }
                Ok(())
            }
            EventError::MissingInputs {
                name,
                needs: (num, den),
                events,
            } => write!(
                f,
                "`{name}` needs events {num} and {den}; the profile has: {}",
                events.join(", ")
            ),
            EventError::DerivedFirst { name } => write!(
                f,
                "the first of --events must be an event, not the derived column `{name}` \
                 (it is the sort key and the % column)"
            ),
            EventError::Empty => write!(f, "no event named"),
        }
    }
}

impl std::error::Error for EventError {}

/// The event a report is about: `name` if given, else `instructions`,
/// else (a profile without it) the first event; an index into
/// `profile.events`.
///
/// Errors: as [`event_by_name`] for a given name.
pub fn primary_event(profile: &Profile, name: Option<&str>) -> Result<usize, EventError> {
    match name {
        Some(name) => event_by_name(profile, name),
        None => Ok(profile.event_index(events::INSTRUCTIONS).unwrap_or(0)),
    }
}

/// Index of the event `name` in `profile.events`.
///
/// Errors: [`EventError::Unknown`], listing the profile's events.
pub fn event_by_name(profile: &Profile, name: &str) -> Result<usize, EventError> {
    profile
        .event_index(name)
        .ok_or_else(|| EventError::Unknown {
            name: name.to_string(),
            events: profile.events.clone(),
            derived: Vec::new(),
        })
}

/// Resolves an event list such as `--events cycles,instructions,cpi`:
/// returns the index of the first name (the primary event: sort key, `%`
/// column, call graph) and the columns for the other names in the order
/// given, duplicates and the primary event itself left out. Names are
/// event names of the profile or derived columns ([`Derived::name`]).
///
/// Errors: [`EventError::Empty`] for an empty list,
/// [`EventError::DerivedFirst`] if the first name is a derived column,
/// [`EventError::MissingInputs`] for a derived column whose inputs the
/// profile lacks, [`EventError::Unknown`] for any other name.
pub fn parse_columns<S: AsRef<str>>(
    profile: &Profile,
    names: &[S],
) -> Result<(usize, Vec<Column>), EventError> {
    let mut names = names.iter().map(AsRef::as_ref);
    let first = names.next().ok_or(EventError::Empty)?;
    if let Some(d) = Derived::from_name(first) {
        return Err(EventError::DerivedFirst { name: d.name() });
    }
    let primary = event_by_name(profile, first)?;
    let mut columns: Vec<Column> = Vec::new();
    for name in names {
        let column = if let Some(e) = profile.event_index(name) {
            if e == primary {
                continue;
            }
            Column::Event(e)
        } else if let Some(d) = Derived::from_name(name) {
            if !d.available(profile) {
                return Err(EventError::MissingInputs {
                    name: d.name(),
                    needs: d.inputs(),
                    events: profile.events.clone(),
                });
            }
            Column::Derived(d)
        } else {
            return Err(EventError::Unknown {
                name: name.to_string(),
                events: profile.events.clone(),
                derived: Derived::ALL
                    .into_iter()
                    .filter(|d| d.available(profile))
                    .map(Derived::name)
                    .collect(),
            });
        };
        if !columns.contains(&column) {
            columns.push(column);
        }
    }
    Ok((primary, columns))
}

/// What one count of `event` is, for prose: `instruction`, `cycle`,
/// `load`, `branch`, `icache_miss`, `cycle of stall_icache`.
pub(crate) fn one_of(event: &str) -> String {
    if event.starts_with("stall_") {
        return format!("cycle of {event}");
    }
    for plural in ["sses", "ches", "shes"] {
        if let Some(stem) = event.strip_suffix(plural) {
            return format!("{stem}{}", &plural[..plural.len() - 2]);
        }
    }
    event.strip_suffix('s').unwrap_or(event).to_string()
}

/// The column heading of event `event` in the report's tables: `instrs`
/// for instructions (and when there is no such event), else its name.
pub(crate) fn column_unit(profile: &Profile, event: usize) -> String {
    match profile.events.get(event).map(String::as_str) {
        Some("instructions") | None => "instrs".to_string(),
        Some(e) => e.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn singular_names() {
        assert_eq!(one_of("instructions"), "instruction");
        assert_eq!(one_of("cycles"), "cycle");
        assert_eq!(one_of("branches"), "branch");
        assert_eq!(one_of("icache_accesses"), "icache_access");
        assert_eq!(one_of("dcache_misses"), "dcache_miss");
        assert_eq!(one_of("branch_mispredicts"), "branch_mispredict");
        assert_eq!(one_of("stall_icache"), "cycle of stall_icache");
    }

    #[test]
    fn derived_names_round_trip() {
        for d in Derived::ALL {
            assert_eq!(Derived::from_name(d.name()), Some(d));
        }
        assert_eq!(Derived::from_name("ipc"), None);
    }
}
