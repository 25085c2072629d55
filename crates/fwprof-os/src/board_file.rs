//! Board files (`--board FILE.toml`, `docs/boards.md`): the TOML read with
//! `serde` into plain structs (unknown keys refused), then checked as a
//! whole (ranges, overlaps, kinds, device wiring) into a [`Board`]. Every
//! refusal is one line naming the file, the line and the key:
//! `fe310.toml:12: key `memory[1].size`: must be greater than 0`.

use std::fmt;
use std::ops::Range;
use std::path::Path;

use serde::de::{self, Deserializer, Visitor};
use serde::Deserialize;
use toml::Spanned;

use crate::board::{
    Board, Device, DeviceKind, MemoryKind, MemoryRegion, Peripheral, Unmodelled, VIRT_CLINT,
    VIRT_PLIC, VIRT_TEST,
};
use crate::Perm;

/// Why a board file was refused. Every variant displays as one line;
/// those about the contents start with `FILE:LINE:` (1-based).
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum BoardError {
    /// The file could not be read.
    #[error("{file}: {source}")]
    Io {
        /// The path as given.
        file: String,
        /// The operating-system error.
        source: std::io::Error,
    },
    /// Not TOML, or not the shape of a board file: a syntax error, an
    /// unknown key, a value of the wrong type, a missing key.
    #[error("{file}:{line}: {}{message}", key_prefix(key.as_deref()))]
    Parse {
        /// The path as given.
        file: String,
        /// 1-based line of the error.
        line: usize,
        /// Dotted key path, e.g. `memory[1].size` (`None` when the line
        /// holds no key, e.g. a syntax error).
        key: Option<String>,
        /// What is wrong.
        message: String,
    },
    /// Well-formed but impossible: a zero size, a range that wraps,
    /// overlapping regions or devices, an unknown kind, bad access letters,
    /// a UART wired to a PLIC the board does not have, ...
    #[error("{file}:{line}: key `{key}`: {message}")]
    Invalid {
        /// The path as given.
        file: String,
        /// 1-based line of the key.
        line: usize,
        /// Dotted key path, e.g. `device[2].irq`.
        key: String,
        /// What is wrong.
        message: String,
    },
}

fn key_prefix(key: Option<&str>) -> String {
    key.map(|k| format!("key `{k}`: ")).unwrap_or_default()
}

/// An address or a size: a TOML integer (`0x2000_0000`), or a string in
/// the size syntax (`"4M"`, `"0x1000"`: hex or decimal bytes, optional K,
/// M or G suffix, powers of 1024).
#[derive(Clone, Copy, Debug)]
struct Number(u64);

impl<'de> Deserialize<'de> for Number {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Number, D::Error> {
        struct V;
        impl Visitor<'_> for V {
            type Value = Number;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str(
                    "a number of bytes: an integer, or a string such as \"4M\" or \"0x1000\"",
                )
            }
            fn visit_i64<E: de::Error>(self, v: i64) -> Result<Number, E> {
                u64::try_from(v)
                    .map(Number)
                    .map_err(|_| E::custom(format!("{v} is negative")))
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> Result<Number, E> {
                Ok(Number(v))
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Number, E> {
                crate::sizes::parse_num(v).map(Number).ok_or_else(|| {
                    E::custom(format!(
                        "bad number of bytes \"{v}\" (expected e.g. 4096, \"0x1000\", \"16K\" or \"4M\")"
                    ))
                })
            }
        }
        d.deserialize_any(V)
    }
}

/// The file as written.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct BoardFile {
    name: Option<Spanned<String>>,
    description: Option<String>,
    xlen: Option<Spanned<u32>>,
    start: Option<Spanned<Number>>,
    unmodelled: Option<Spanned<String>>,
    #[serde(default)]
    memory: Vec<MemoryEntry>,
    #[serde(default)]
    device: Vec<DeviceEntry>,
    #[serde(default)]
    peripheral: Vec<PeripheralEntry>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct MemoryEntry {
    name: Spanned<String>,
    base: Spanned<Number>,
    size: Spanned<Number>,
    kind: Spanned<String>,
    access: Option<Spanned<String>>,
    wait_states: Option<u32>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct DeviceEntry {
    kind: Spanned<String>,
    name: Option<String>,
    base: Spanned<Number>,
    size: Option<Spanned<Number>>,
    irq: Option<Spanned<u32>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct PeripheralEntry {
    name: Spanned<String>,
    base: Spanned<Number>,
    size: Spanned<Number>,
}

/// The sources of the PLIC model (QEMU 7.2 `virt`: `VIRT_IRQCHIP_NUM_SOURCES`
/// = 96, source 0 meaning "none").
const PLIC_SOURCES: u32 = 96;

impl Board {
    /// Read the board file at `path` (see [`Board::from_toml`]).
    ///
    /// # Errors
    /// [`BoardError::Io`] when it cannot be read; as [`Board::from_toml`].
    pub fn load(path: &Path) -> Result<Board, BoardError> {
        let file = path.display().to_string();
        let text = std::fs::read_to_string(path).map_err(|source| BoardError::Io {
            file: file.clone(),
            source,
        })?;
        Board::from_toml(&text, &file)
    }

    /// Read a board description from TOML `text` (the format of
    /// `docs/boards.md`); `file` names it in messages and its file stem
    /// is the default `name`. The board has no device tree; unmodelled
    /// addresses fault unless `unmodelled = "ignore"`.
    ///
    /// # Errors
    /// [`BoardError::Parse`] for TOML syntax errors, unknown keys, wrong
    /// types and missing keys; [`BoardError::Invalid`] for a description
    /// that cannot be a machine: no `[[memory]]`, a zero size, a range that
    /// wraps (or passes 4 GiB with `xlen = 32`), overlapping regions,
    /// devices or peripherals, an unknown kind, bad access letters, two
    /// CLINTs or PLICs, an `irq` on a device other than a `uart16550` or on
    /// a board without a `plic`, a `start` outside executable memory.
    pub fn from_toml(text: &str, file: &str) -> Result<Board, BoardError> {
        let raw: BoardFile = toml::from_str(text).map_err(|e| {
            let (line, key) = locate(text, e.span().map_or(0, |s| s.start));
            BoardError::Parse {
                file: file.to_owned(),
                line,
                key,
                message: e.message().replace('\n', " "),
            }
        })?;
        Checker { text, file }.board(raw)
    }
}

/// Turns spans into lines for [`BoardError::Invalid`].
struct Checker<'a> {
    text: &'a str,
    file: &'a str,
}

/// A checked address range of the file, for the overlap check.
struct Window {
    what: String,
    base: u64,
    last: u64,
    line: usize,
    key: String,
}

impl Checker<'_> {
    fn line(&self, span: Range<usize>) -> usize {
        locate(self.text, span.start).0
    }

    fn invalid(&self, key: String, span: Range<usize>, message: impl Into<String>) -> BoardError {
        BoardError::Invalid {
            file: self.file.to_owned(),
            line: self.line(span),
            key,
            message: message.into(),
        }
    }

    /// `base` and `size` as a range `[base, last]` that does not wrap and
    /// has bytes.
    fn range(
        &self,
        key: &str,
        base: &Spanned<Number>,
        size: (u64, Range<usize>),
        limit: u64,
    ) -> Result<(u64, u64), BoardError> {
        let b = base.get_ref().0;
        if size.0 == 0 {
            return Err(self.invalid(format!("{key}.size"), size.1, "must be greater than 0"));
        }
        let Some(last) = b.checked_add(size.0 - 1) else {
            return Err(self.invalid(
                format!("{key}.size"),
                size.1,
                format!(
                    "base {b:#x} + size {:#x} wraps around the 64-bit address space",
                    size.0
                ),
            ));
        };
        if last > limit {
            return Err(self.invalid(
                format!("{key}.base"),
                base.span(),
                format!("[{b:#x}, {last:#x}] passes the end of the 32-bit address space of an xlen = 32 board"),
            ));
        }
        Ok((b, last))
    }

    fn board(&self, raw: BoardFile) -> Result<Board, BoardError> {
        let stem = Path::new(self.file)
            .file_stem()
            .and_then(|s| s.to_str())
            .unwrap_or(self.file);
        let name = match &raw.name {
            Some(n) if n.get_ref().trim().is_empty() => {
                return Err(self.invalid("name".into(), n.span(), "must not be empty"))
            }
            Some(n) => n.get_ref().clone(),
            None => stem.to_owned(),
        };
        let xlen = match &raw.xlen {
            None => None,
            Some(x) if matches!(x.get_ref(), 32 | 64) => Some(*x.get_ref()),
            Some(x) => {
                return Err(self.invalid(
                    "xlen".into(),
                    x.span(),
                    format!("{} is not 32 or 64", x.get_ref()),
                ))
            }
        };
        let limit = if xlen == Some(32) {
            u64::from(u32::MAX)
        } else {
            u64::MAX
        };
        let unmodelled = match &raw.unmodelled {
            None => Unmodelled::Fault,
            Some(u) => match u.get_ref().as_str() {
                "fault" => Unmodelled::Fault,
                "ignore" => Unmodelled::Ignore,
                other => {
                    return Err(self.invalid(
                        "unmodelled".into(),
                        u.span(),
                        format!("unknown rule \"{other}\"; expected \"fault\" or \"ignore\""),
                    ))
                }
            },
        };
        let mut windows: Vec<Window> = Vec::new();
        let mut memory = Vec::new();
        for (i, m) in raw.memory.iter().enumerate() {
            let key = format!("memory[{i}]");
            let region = self.memory(&key, m, limit)?;
            self.add_window(
                &mut windows,
                Window {
                    what: format!("memory \"{}\"", region.name),
                    base: region.base,
                    last: region.end() - 1,
                    line: self.line(m.base.span()),
                    key: format!("{key}.base"),
                },
            )?;
            memory.push(region);
        }
        if memory.is_empty() {
            return Err(BoardError::Invalid {
                file: self.file.to_owned(),
                line: 1,
                key: "memory".into(),
                message: "no [[memory]] region: a board file describes the part's memory (ROM, flash, RAM)".into(),
            });
        }
        let has_plic = raw.device.iter().any(|d| d.kind.get_ref() == "plic");
        let mut devices: Vec<Device> = Vec::new();
        for (i, d) in raw.device.iter().enumerate() {
            let key = format!("device[{i}]");
            let dev = self.device(&key, d, limit, has_plic)?;
            if matches!(dev.kind, DeviceKind::Clint | DeviceKind::Plic)
                && devices.iter().any(|o| o.kind == dev.kind)
            {
                return Err(self.invalid(
                    format!("{key}.kind"),
                    d.kind.span(),
                    format!(
                        "a second {}: the simulator has one hart, with one {}",
                        dev.kind.name(),
                        dev.kind.name()
                    ),
                ));
            }
            self.add_window(
                &mut windows,
                Window {
                    what: format!("device \"{}\"", dev.name),
                    base: dev.base,
                    last: dev.base + (dev.size - 1),
                    line: self.line(d.base.span()),
                    key: format!("{key}.base"),
                },
            )?;
            devices.push(dev);
        }
        let mut peripherals = Vec::new();
        for (i, p) in raw.peripheral.iter().enumerate() {
            let key = format!("peripheral[{i}]");
            if p.name.get_ref().trim().is_empty() {
                return Err(self.invalid(
                    format!("{key}.name"),
                    p.name.span(),
                    "must not be empty",
                ));
            }
            let size = (p.size.get_ref().0, p.size.span());
            let (base, last) = self.range(&key, &p.base, size, limit)?;
            self.add_window(
                &mut windows,
                Window {
                    what: format!("peripheral \"{}\"", p.name.get_ref()),
                    base,
                    last,
                    line: self.line(p.base.span()),
                    key: format!("{key}.base"),
                },
            )?;
            peripherals.push(Peripheral {
                name: p.name.get_ref().clone(),
                base,
                size: last - base + 1,
            });
        }
        let start = match &raw.start {
            None => None,
            Some(s) => {
                let pc = s.get_ref().0;
                let exec = memory.iter().any(|r| r.contains(pc) && r.perm.exec);
                if !exec {
                    return Err(self.invalid(
                        "start".into(),
                        s.span(),
                        format!("{pc:#x} is in no executable [[memory]] region"),
                    ));
                }
                if pc & 1 != 0 {
                    return Err(self.invalid(
                        "start".into(),
                        s.span(),
                        format!("{pc:#x} is odd: RISC-V instructions start at even addresses"),
                    ));
                }
                Some(pc)
            }
        };
        Ok(Board {
            name,
            description: raw.description,
            memory,
            devices,
            peripherals,
            unmodelled,
            device_tree: false,
            start,
            xlen,
        })
    }

    /// Refuse `w` if it overlaps a window already read; else keep it.
    fn add_window(&self, windows: &mut Vec<Window>, w: Window) -> Result<(), BoardError> {
        if let Some(o) = windows
            .iter()
            .find(|o| w.base <= o.last && o.base <= w.last)
        {
            return Err(BoardError::Invalid {
                file: self.file.to_owned(),
                line: w.line,
                key: w.key,
                message: format!(
                    "{} [{:#x}, {:#x}] overlaps {} [{:#x}, {:#x}] (line {})",
                    w.what, w.base, w.last, o.what, o.base, o.last, o.line
                ),
            });
        }
        windows.push(w);
        Ok(())
    }

    fn memory(&self, key: &str, m: &MemoryEntry, limit: u64) -> Result<MemoryRegion, BoardError> {
        if m.name.get_ref().trim().is_empty() {
            return Err(self.invalid(format!("{key}.name"), m.name.span(), "must not be empty"));
        }
        let kind = match m.kind.get_ref().as_str() {
            "rom" => MemoryKind::Rom,
            "flash" => MemoryKind::Flash,
            "ram" => MemoryKind::Ram,
            other => {
                return Err(self.invalid(
                    format!("{key}.kind"),
                    m.kind.span(),
                    format!(
                        "unknown memory kind \"{other}\"; expected \"rom\", \"flash\" or \"ram\""
                    ),
                ))
            }
        };
        let perm = match &m.access {
            None => kind.default_perm(),
            Some(a) => parse_access(a.get_ref())
                .map_err(|msg| self.invalid(format!("{key}.access"), a.span(), msg))?,
        };
        let size = (m.size.get_ref().0, m.size.span());
        let (base, last) = self.range(key, &m.base, size, limit)?;
        Ok(MemoryRegion {
            name: m.name.get_ref().clone(),
            base,
            size: last - base + 1,
            kind,
            perm,
            wait_states: m.wait_states.unwrap_or(0),
        })
    }

    fn device(
        &self,
        key: &str,
        d: &DeviceEntry,
        limit: u64,
        has_plic: bool,
    ) -> Result<Device, BoardError> {
        let (kind, window) = match d.kind.get_ref().as_str() {
            "clint" => (DeviceKind::Clint, VIRT_CLINT.1),
            "plic" => (DeviceKind::Plic, VIRT_PLIC.1),
            // QEMU's 16550 answers in 8 bytes (`serial_mm_init`: `8 << regshift`).
            "uart16550" => (DeviceKind::Uart16550, 8),
            "sifive_test" => (DeviceKind::SifiveTest, VIRT_TEST.1),
            other => {
                return Err(self.invalid(
                    format!("{key}.kind"),
                    d.kind.span(),
                    format!("unknown device \"{other}\"; fwprof models \"clint\", \"plic\", \"uart16550\" and \"sifive_test\" (list other peripherals as [[peripheral]])"),
                ))
            }
        };
        let size = match &d.size {
            Some(s) => (s.get_ref().0, s.span()),
            None => (window, d.kind.span()),
        };
        let (base, last) = self.range(key, &d.base, size, limit)?;
        let irq = match &d.irq {
            None => None,
            Some(irq) => {
                let k = format!("{key}.irq");
                if kind != DeviceKind::Uart16550 {
                    return Err(self.invalid(
                        k,
                        irq.span(),
                        format!(
                            "a {} has no interrupt line to a PLIC source (irq applies to a uart16550)",
                            kind.name()
                        ),
                    ));
                }
                if !has_plic {
                    return Err(self.invalid(
                        k,
                        irq.span(),
                        "the uart16550's interrupt goes to PLIC source irq, and the board has no [[device]] kind = \"plic\"",
                    ));
                }
                let n = *irq.get_ref();
                if n == 0 || n >= PLIC_SOURCES {
                    return Err(self.invalid(
                        k,
                        irq.span(),
                        format!(
                            "PLIC source {n} does not exist (sources 1 to {})",
                            PLIC_SOURCES - 1
                        ),
                    ));
                }
                Some(n)
            }
        };
        Ok(Device {
            kind,
            name: d.name.clone().unwrap_or_else(|| kind.name().to_owned()),
            base,
            size: last - base + 1,
            irq,
        })
    }
}

/// `access` letters: each of `r`, `w`, `x` at most once, at least one.
fn parse_access(s: &str) -> Result<Perm, String> {
    let mut p = Perm::default();
    for c in s.chars() {
        let flag = match c {
            'r' => &mut p.read,
            'w' => &mut p.write,
            'x' => &mut p.exec,
            _ => {
                return Err(format!(
                    "bad access \"{s}\": letters r (read), w (write), x (execute)"
                ))
            }
        };
        if *flag {
            return Err(format!("bad access \"{s}\": '{c}' given twice"));
        }
        *flag = true;
    }
    if s.is_empty() {
        return Err("empty access: give letters of r, w, x".into());
    }
    Ok(p)
}

/// The 1-based line of byte `offset` of `text`, and the dotted key written
/// on that line (`memory[1].size`): the table header above it (`[[memory]]`
/// counted per name) and the key before `=` on the line, or the table
/// itself when the line is its header.
fn locate(text: &str, offset: usize) -> (usize, Option<String>) {
    let offset = offset.min(text.len());
    let line_no = text[..offset].matches('\n').count() + 1;
    let mut counts: Vec<(String, usize)> = Vec::new();
    let mut table: Option<String> = None;
    let mut key = None;
    for (i, raw) in text.lines().enumerate().take(line_no) {
        let line = raw.split('#').next().unwrap_or("").trim();
        if let Some(name) = line.strip_prefix("[[").and_then(|l| l.strip_suffix("]]")) {
            let name = name.trim().to_owned();
            let n = match counts.iter_mut().find(|(k, _)| *k == name) {
                Some((_, n)) => {
                    *n += 1;
                    *n
                }
                None => {
                    counts.push((name.clone(), 0));
                    0
                }
            };
            table = Some(format!("{name}[{n}]"));
            if i + 1 == line_no {
                key = table.clone();
            }
        } else if let Some(name) = line.strip_prefix('[').and_then(|l| l.strip_suffix(']')) {
            table = Some(name.trim().to_owned());
            if i + 1 == line_no {
                key = table.clone();
            }
        } else if i + 1 == line_no {
            key = line.split_once('=').map(|(k, _)| {
                let k = k.trim().trim_matches('"');
                match &table {
                    Some(t) => format!("{t}.{k}"),
                    None => k.to_owned(),
                }
            });
        }
    }
    (line_no, key)
}

#[cfg(test)]
#[path = "board_file_tests.rs"]
mod tests;
