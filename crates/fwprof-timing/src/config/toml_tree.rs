//! A TOML document as a tree whose keys remember their source line, and
//! typed reads from it that fail with a one-line `FILE:LINE: key `a.b`: ...`
//! [`ConfigError`].
//!
//! Why a tree and not `#[derive(Deserialize)]` structs: serde errors do not
//! say which key failed, and `toml::Spanned` values need spans that tables
//! made by dotted keys do not have. Keys always have spans, so every error
//! is reported at the line of its key.

use std::fmt;

use serde::de::{self, Deserialize, Deserializer, MapAccess, SeqAccess, Visitor};
use toml::Spanned;

use super::ConfigError;

/// A parsed TOML value. Table entries keep file order and their key's span.
pub(super) enum Value {
    Table(Vec<(Spanned<String>, Value)>),
    Array(Vec<Value>),
    Integer(i64),
    Float,
    String(String),
    Boolean(bool),
}

impl Value {
    /// "a string", "an integer", ... for messages.
    fn kind(&self) -> &'static str {
        match self {
            Value::Table(_) => "a table",
            Value::Array(_) => "an array",
            Value::Integer(_) => "an integer",
            Value::Float => "a float",
            Value::String(_) => "a string",
            Value::Boolean(_) => "a boolean",
        }
    }
}

impl<'de> Deserialize<'de> for Value {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Value, D::Error> {
        d.deserialize_any(ValueVisitor)
    }
}

struct ValueVisitor;

impl<'de> Visitor<'de> for ValueVisitor {
    type Value = Value;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a TOML value")
    }
    fn visit_bool<E>(self, v: bool) -> Result<Value, E> {
        Ok(Value::Boolean(v))
    }
    fn visit_i64<E>(self, v: i64) -> Result<Value, E> {
        Ok(Value::Integer(v))
    }
    fn visit_u64<E: de::Error>(self, v: u64) -> Result<Value, E> {
        i64::try_from(v)
            .map(Value::Integer)
            .map_err(|_| E::custom("integer out of range"))
    }
    fn visit_f64<E>(self, _: f64) -> Result<Value, E> {
        Ok(Value::Float)
    }
    fn visit_str<E>(self, v: &str) -> Result<Value, E> {
        Ok(Value::String(v.to_owned()))
    }
    fn visit_string<E>(self, v: String) -> Result<Value, E> {
        Ok(Value::String(v))
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        let mut items = Vec::new();
        while let Some(item) = seq.next_element::<Value>()? {
            items.push(item);
        }
        Ok(Value::Array(items))
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        let mut entries = Vec::new();
        // A TOML date-time arrives as a one-entry map whose key is a plain
        // string, which `Spanned<String>` rejects; the caller turns that
        // error into "date-times are not used" (see `parse`).
        while let Some(key) = map.next_key::<Spanned<String>>()? {
            let value = map.next_value::<Value>()?;
            entries.push((key, value));
        }
        Ok(Value::Table(entries))
    }
}

/// The file being read: its name for messages and where its lines start.
pub(super) struct Source<'a> {
    pub(super) file: &'a str,
    line_starts: Vec<usize>,
}

impl<'a> Source<'a> {
    pub(super) fn new(file: &'a str, text: &str) -> Source<'a> {
        let mut line_starts = vec![0];
        line_starts.extend(text.match_indices('\n').map(|(i, _)| i + 1));
        Source { file, line_starts }
    }

    /// 1-based line of byte `offset`.
    pub(super) fn line(&self, offset: usize) -> usize {
        self.line_starts.partition_point(|&start| start <= offset)
    }

    /// Parses `text` (the text given to [`Source::new`]) into its root table.
    ///
    /// # Errors
    /// [`ConfigError::Parse`] at the line of the TOML syntax error.
    pub(super) fn parse(&self, text: &str) -> Result<Section<'_>, ConfigError> {
        let root = toml::from_str::<Value>(text).map_err(|e| {
            let line = e.span().map_or(1, |s| self.line(s.start));
            let message = if e.message().contains(toml_datetime_marker()) {
                "a date-time is not a valid value in a core description".to_owned()
            } else {
                // Parser messages may span lines ("invalid key\nexpected ...").
                e.message().trim().lines().collect::<Vec<_>>().join("; ")
            };
            ConfigError::Parse {
                file: self.file.to_owned(),
                line,
                key: None,
                message,
            }
        })?;
        match root {
            Value::Table(entries) => Ok(Section::new(self, String::new(), 1, entries)),
            other => Err(ConfigError::Parse {
                file: self.file.to_owned(),
                line: 1,
                key: None,
                message: format!("expected a table at the top level, found {}", other.kind()),
            }),
        }
    }
}

/// The private key under which `toml` hands a date-time to a visitor.
fn toml_datetime_marker() -> &'static str {
    "$__toml_private_datetime"
}

/// A value read from the file with the line it came from (the line of the
/// section that would have held it, when the default was used).
#[derive(Clone, Debug)]
pub(super) struct Field<T> {
    pub(super) value: T,
    pub(super) line: usize,
}

/// One table of the file (the root, `[pipeline]`, one `[[region]]`, ...),
/// read key by key. Keys are taken out as they are read.
pub(super) struct Section<'s> {
    src: &'s Source<'s>,
    /// Dotted path of this table: "" for the root, `pipeline`, `region[1]`.
    path: String,
    /// Line of the key that opened this table.
    pub(super) line: usize,
    entries: Vec<(Spanned<String>, Value)>,
}

impl<'s> Section<'s> {
    fn new(
        src: &'s Source<'s>,
        path: String,
        line: usize,
        entries: Vec<(Spanned<String>, Value)>,
    ) -> Section<'s> {
        Section {
            src,
            path,
            line,
            entries,
        }
    }

    /// The full dotted path of `key` in this table.
    pub(super) fn key_path(&self, key: &str) -> String {
        if self.path.is_empty() {
            key.to_owned()
        } else {
            format!("{}.{key}", self.path)
        }
    }

    /// Rejects every key not in `known`, naming the first one in file order.
    ///
    /// # Errors
    /// [`ConfigError::Parse`] "unknown key; expected one of: ...".
    pub(super) fn allow_only(&self, known: &[&str]) -> Result<(), ConfigError> {
        match self
            .entries
            .iter()
            .find(|(k, _)| !known.contains(&k.get_ref().as_str()))
        {
            None => Ok(()),
            Some((k, _)) => Err(self.parse_error(
                k.get_ref(),
                self.src.line(k.span().start),
                format!("unknown key; expected one of: {}", known.join(", ")),
            )),
        }
    }

    /// Removes `key`, returning its line and value.
    fn take(&mut self, key: &str) -> Option<(usize, Value)> {
        let i = self.entries.iter().position(|(k, _)| k.get_ref() == key)?;
        let (k, v) = self.entries.remove(i);
        Some((self.src.line(k.span().start), v))
    }

    /// The line of `key`, if present (not yet taken).
    pub(super) fn line_of(&self, key: &str) -> Option<usize> {
        let (k, _) = self.entries.iter().find(|(k, _)| k.get_ref() == key)?;
        Some(self.src.line(k.span().start))
    }

    pub(super) fn parse_error(&self, key: &str, line: usize, message: String) -> ConfigError {
        ConfigError::Parse {
            file: self.src.file.to_owned(),
            line,
            key: Some(self.key_path(key)),
            message,
        }
    }

    pub(super) fn invalid(
        &self,
        key: &str,
        line: usize,
        message: impl Into<String>,
    ) -> ConfigError {
        ConfigError::Invalid {
            file: self.src.file.to_owned(),
            line,
            key: self.key_path(key),
            message: message.into(),
        }
    }

    fn type_error(&self, key: &str, line: usize, expected: &str, found: &Value) -> ConfigError {
        self.parse_error(
            key,
            line,
            format!("expected {expected}, found {}", found.kind()),
        )
    }

    /// A non-negative integer that fits `u32`, or `default` when absent.
    ///
    /// # Errors
    /// [`ConfigError::Parse`] for another type, a negative or too large value.
    pub(super) fn u32(&mut self, key: &str, default: u32) -> Result<Field<u32>, ConfigError> {
        let Some((line, value)) = self.take(key) else {
            return Ok(Field {
                value: default,
                line: self.line,
            });
        };
        const EXPECTED: &str = "a non-negative integer";
        match value {
            Value::Integer(n) if n < 0 => {
                Err(self.parse_error(key, line, format!("expected {EXPECTED}, found {n}")))
            }
            Value::Integer(n) => match u32::try_from(n) {
                Ok(v) => Ok(Field { value: v, line }),
                Err(_) => Err(self.parse_error(
                    key,
                    line,
                    format!("{n} is too large (at most {})", u32::MAX),
                )),
            },
            other => Err(self.type_error(key, line, EXPECTED, &other)),
        }
    }

    /// `true` or `false`, or `default` when absent.
    ///
    /// # Errors
    /// [`ConfigError::Parse`] for another type.
    pub(super) fn bool(&mut self, key: &str, default: bool) -> Result<Field<bool>, ConfigError> {
        match self.take(key) {
            None => Ok(Field {
                value: default,
                line: self.line,
            }),
            Some((line, Value::Boolean(b))) => Ok(Field { value: b, line }),
            Some((line, other)) => Err(self.type_error(key, line, "true or false", &other)),
        }
    }

    /// A string, or `default` when absent.
    ///
    /// # Errors
    /// [`ConfigError::Parse`] for another type.
    pub(super) fn string(
        &mut self,
        key: &str,
        default: &str,
    ) -> Result<Field<String>, ConfigError> {
        match self.take(key) {
            None => Ok(Field {
                value: default.to_owned(),
                line: self.line,
            }),
            Some((line, Value::String(s))) => Ok(Field { value: s, line }),
            Some((line, other)) => Err(self.type_error(key, line, "a string", &other)),
        }
    }

    /// A byte count or address: a non-negative integer, or a string such as
    /// `"16KiB"` or `"0x2000_0000"` (see [`parse_size`]). `default: None`
    /// makes the key required.
    ///
    /// # Errors
    /// [`ConfigError::Parse`] when missing (and required), of another type,
    /// negative, or a malformed string.
    pub(super) fn size(
        &mut self,
        key: &str,
        default: Option<u64>,
    ) -> Result<Field<u64>, ConfigError> {
        let Some((line, value)) = self.take(key) else {
            return match default {
                Some(value) => Ok(Field {
                    value,
                    line: self.line,
                }),
                None => {
                    Err(self.parse_error(key, self.line, "missing (this key is required)".into()))
                }
            };
        };
        const EXPECTED: &str = "a size: a non-negative integer or a string such as \"16KiB\"";
        match value {
            Value::Integer(n) => match u64::try_from(n) {
                Ok(v) => Ok(Field { value: v, line }),
                Err(_) => {
                    Err(self.parse_error(key, line, format!("expected {EXPECTED}, found {n}")))
                }
            },
            Value::String(s) => match parse_size(&s) {
                Ok(v) => Ok(Field { value: v, line }),
                Err(why) => Err(self.parse_error(key, line, format!("{why} in \"{s}\""))),
            },
            other => Err(self.type_error(key, line, EXPECTED, &other)),
        }
    }

    /// The sub-table `key`, if present.
    ///
    /// # Errors
    /// [`ConfigError::Parse`] when `key` holds something else.
    pub(super) fn table(&mut self, key: &str) -> Result<Option<Section<'s>>, ConfigError> {
        match self.take(key) {
            None => Ok(None),
            Some((line, Value::Table(entries))) => Ok(Some(Section::new(
                self.src,
                self.key_path(key),
                line,
                entries,
            ))),
            Some((line, other)) => {
                Err(self.type_error(key, line, &format!("a table ([{key}])"), &other))
            }
        }
    }

    /// The sub-table `key`, or an empty one (every key at its default)
    /// when absent.
    ///
    /// # Errors
    /// [`ConfigError::Parse`] when `key` holds something else.
    pub(super) fn table_or_empty(&mut self, key: &str) -> Result<Section<'s>, ConfigError> {
        let line = self.line;
        Ok(self
            .table(key)?
            .unwrap_or_else(|| Section::new(self.src, self.key_path(key), line, Vec::new())))
    }

    /// The array of tables `key` (`[[key]]`), empty when absent. Element `i`
    /// has the path `key[i]` and the line of its first key.
    ///
    /// # Errors
    /// [`ConfigError::Parse`] when `key` holds something else.
    pub(super) fn tables(&mut self, key: &str) -> Result<Vec<Section<'s>>, ConfigError> {
        let Some((line, value)) = self.take(key) else {
            return Ok(Vec::new());
        };
        let expected = format!("an array of tables ([[{key}]])");
        let Value::Array(items) = value else {
            return Err(self.type_error(key, line, &expected, &value));
        };
        let mut out = Vec::with_capacity(items.len());
        for (i, item) in items.into_iter().enumerate() {
            match item {
                Value::Table(entries) => {
                    let first = entries
                        .iter()
                        .map(|(k, _)| self.src.line(k.span().start))
                        .min();
                    let path = format!("{}[{i}]", self.key_path(key));
                    out.push(Section::new(self.src, path, first.unwrap_or(line), entries));
                }
                other => return Err(self.type_error(key, line, &expected, &other)),
            }
        }
        Ok(out)
    }
}

/// Parses a size or address string: a `0x` hexadecimal number, or a decimal
/// number followed by optional spaces and an optional unit `B`, `KiB`
/// (1024), `MiB` (1024²) or `GiB` (1024³); `_` separators are allowed in
/// both. `"16KiB"` → 16384, `"0x4000"` → 16384, `"1 MiB"` → 1048576.
///
/// # Errors
/// A short reason: no digits, a bad digit, an unknown unit, or overflow.
pub(super) fn parse_size(s: &str) -> Result<u64, String> {
    let s = s.trim();
    let (digits, radix, rest) = match s.strip_prefix("0x").or_else(|| s.strip_prefix("0X")) {
        // No unit after hexadecimal: "0x10B" would be ambiguous.
        Some(hex) => (hex, 16, ""),
        None => {
            let end = s
                .find(|c: char| !(c.is_ascii_digit() || c == '_'))
                .unwrap_or(s.len());
            (&s[..end], 10, &s[end..])
        }
    };
    let digits: String = digits.chars().filter(|&c| c != '_').collect();
    if digits.is_empty() {
        return Err("expected a number".to_owned());
    }
    if let Some(bad) = digits.chars().find(|c| !c.is_digit(radix)) {
        return Err(format!("unexpected `{bad}` in a hexadecimal number"));
    }
    let n = u64::from_str_radix(&digits, radix).map_err(|_| "number too large".to_owned())?;
    let scale: u64 = match rest.trim_start() {
        "" | "B" => 1,
        "KiB" => 1 << 10,
        "MiB" => 1 << 20,
        "GiB" => 1 << 30,
        unit => return Err(format!("unknown unit `{unit}` (use B, KiB, MiB or GiB)")),
    };
    n.checked_mul(scale)
        .ok_or_else(|| "size too large".to_owned())
}
