//! Plain option structs for the reports (the CLI converts its flags into these).

use crate::events::Column;

/// Order of the flat profile.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum SortKey {
    /// Self cost descending, then calls descending, then name (gprof's order).
    #[default]
    SelfCost,
    /// Inclusive cost descending, then self, then name.
    Inclusive,
    /// Calls descending, then self, then name.
    Calls,
    /// Name ascending, then start address.
    Name,
}

impl std::str::FromStr for SortKey {
    type Err = String;

    /// Parses `self`, `inclusive`, `calls` or `name`.
    fn from_str(s: &str) -> Result<SortKey, String> {
        match s {
            "self" => Ok(SortKey::SelfCost),
            "inclusive" => Ok(SortKey::Inclusive),
            "calls" => Ok(SortKey::Calls),
            "name" => Ok(SortKey::Name),
            other => Err(format!(
                "unknown sort key `{other}` (expected self, inclusive, calls or name)"
            )),
        }
    }
}

/// Options of [`crate::write_flat`].
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct FlatOptions {
    /// Print only the first N rows.
    pub top: Option<usize>,
    /// Row order.
    pub sort: SortKey,
    /// Index of the event to report in the profile's event set (0 =
    /// instructions): the `%`, `cumulative`, `self` and per-call columns
    /// and the sort key are of this event.
    pub event: usize,
    /// Further columns, shown in this order between `total/call` and
    /// `name`: other events' self costs and derived ratios (see
    /// [`crate::parse_columns`]). Empty for gprof's layout.
    pub columns: Vec<Column>,
    /// Omit the explanation that follows the table (gprof's `-b`).
    pub brief: bool,
    /// Colour the table for a terminal (ANSI SGR; see [`crate::write_flat`]).
    pub color: bool,
}

/// Options of [`crate::write_call_graph`].
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct CallGraphOptions {
    /// Index of the event to report and order the entries by (0 = instructions).
    pub event: usize,
    /// Omit the explanation and the index by function name (gprof's `-b`
    /// omits the explanation; the index is kept unless this is set).
    pub brief: bool,
    /// Colour the titles and primary lines for a terminal (ANSI SGR; see
    /// [`crate::write_call_graph`]).
    pub color: bool,
}

/// Options of [`crate::write_report`], the whole text report.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ReportOptions {
    /// Print only the first N rows of the flat profile and of the
    /// instrumentation table.
    pub top: Option<usize>,
    /// Order of the flat profile.
    pub sort: SortKey,
    /// Index of the event the flat profile and the call graph report
    /// (0 = instructions).
    pub event: usize,
    /// Further columns of the flat profile (see [`FlatOptions::columns`]).
    pub columns: Vec<Column>,
    /// gprof's `-b`: no explanations, no index by function name.
    pub brief: bool,
    /// The flat profile alone, without its explanation.
    pub no_call_graph: bool,
    /// Colour for a terminal (ANSI SGR): titles and headings bold, hot
    /// rows red, warm rows yellow, the partial-profile notice bold yellow.
    pub color: bool,
}

/// Options of [`crate::write_annotate`].
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct AnnotateOptions {
    /// Annotate only this function (by name or alias); `None` for every
    /// function with a nonzero self cost, hottest first.
    pub function: Option<String>,
    /// Index of the event to report (0 = instructions). When it is
    /// `cycles`, columns for the function's nonzero `stall_*` events follow.
    pub event: usize,
    /// Annotate at most this many functions (when `function` is `None`).
    pub top: Option<usize>,
    /// Print only disassembly, even if source is available.
    pub no_source: bool,
}
