//! Colour in the text reports (`fwprof --color`): the renderers know what
//! each line is (a title, a hot row, a notice) and wrap it in an ANSI SGR
//! style as they write it; without colour they write the same text bare.

use std::io::{self, Write};

use anstyle::{AnsiColor, Style};

/// What a line of a text report is, for its colour.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Role {
    /// Section titles, column headings, the primary lines of the call
    /// graph: bold.
    Title,
    /// A flat-profile row with at least [`HOT_PERCENT`] of the total: bold
    /// red.
    Hot,
    /// A flat-profile row with at least [`WARM_PERCENT`]: yellow.
    Warm,
    /// The partial-profile notice: bold yellow.
    Note,
}

/// Share of the total (percent) from which a flat-profile row is hot.
pub(crate) const HOT_PERCENT: f64 = 10.0;
/// Share of the total (percent) from which a flat-profile row is warm.
pub(crate) const WARM_PERCENT: f64 = 1.0;

impl Role {
    fn style(self) -> Style {
        match self {
            Role::Title => Style::new().bold(),
            Role::Hot => AnsiColor::Red.on_default().bold(),
            Role::Warm => AnsiColor::Yellow.on_default(),
            Role::Note => AnsiColor::Yellow.on_default().bold(),
        }
    }

    /// The role of a flat-profile row whose `% time` cell reads `printed`
    /// (`"  9.99"`): judged on the share as printed, two decimals, so that
    /// a row that reads `10.00` is hot whatever the digits after.
    pub(crate) fn of_share(printed: &str) -> Option<Role> {
        match printed.trim().parse::<f64>() {
            Ok(p) if p >= HOT_PERCENT => Some(Role::Hot),
            Ok(p) if p >= WARM_PERCENT => Some(Role::Warm),
            _ => None,
        }
    }
}

/// Writes `text` and a newline. With `color` and a role, each non-empty
/// line of `text` is wrapped in the role's style (`ESC [ … m` before,
/// `ESC [ 0 m` after, the newline outside), so a terminal resets at
/// every line end.
///
/// Errors: only those of `w`.
pub(crate) fn line<W: Write + ?Sized>(
    w: &mut W,
    color: bool,
    role: Option<Role>,
    text: &str,
) -> io::Result<()> {
    let Some(style) = role.filter(|_| color).map(Role::style) else {
        return writeln!(w, "{text}");
    };
    for l in text.split('\n') {
        if l.is_empty() {
            writeln!(w)?;
        } else {
            writeln!(w, "{}{l}{}", style.render(), style.render_reset())?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn written(color: bool, role: Option<Role>, text: &str) -> String {
        let mut out = Vec::new();
        line(&mut out, color, role, text).unwrap();
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn lines_are_styled_only_with_colour_and_a_role() {
        assert_eq!(written(false, Some(Role::Hot), "x"), "x\n");
        assert_eq!(written(true, None, "x"), "x\n");
        assert_eq!(written(true, Some(Role::Title), "x"), "\x1b[1mx\x1b[0m\n");
        assert_eq!(
            written(true, Some(Role::Hot), "x"),
            "\x1b[1m\x1b[31mx\x1b[0m\n"
        );
        assert_eq!(written(true, Some(Role::Warm), "x"), "\x1b[33mx\x1b[0m\n");
        assert_eq!(
            written(true, Some(Role::Note), "a\n\nb"),
            "\x1b[1m\x1b[33ma\x1b[0m\n\n\x1b[1m\x1b[33mb\x1b[0m\n"
        );
    }

    #[test]
    fn rows_are_judged_on_the_printed_share() {
        assert_eq!(Role::of_share(" 10.00"), Some(Role::Hot));
        assert_eq!(
            Role::of_share(format!("{:6.2}", 9.996).as_str()),
            Some(Role::Hot)
        );
        assert_eq!(Role::of_share("  9.99"), Some(Role::Warm));
        assert_eq!(Role::of_share("  1.00"), Some(Role::Warm));
        assert_eq!(Role::of_share("  0.99"), None);
    }
}
