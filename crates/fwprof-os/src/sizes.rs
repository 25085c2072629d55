//! The text forms of memory sizes and ranges that users give fwprof
//! (`--ram BASE:SIZE`, `--max-memory SIZE`, sizes and addresses in board
//! files, `--load FILE@ADDR`): hexadecimal (`0x`) or decimal numbers of
//! bytes with an optional `K`, `M` or `G` suffix (powers of 1024), as
//! QEMU's `-m` takes them.

/// Parse `BASE:SIZE` with hex/decimal numbers and K/M/G size suffixes.
///
/// # Errors
/// A message naming what is wrong with the text.
pub fn parse_ram(s: &str) -> Result<(u64, u64), String> {
    let (b, z) = s
        .split_once(':')
        .ok_or_else(|| format!("--ram {s}: expected BASE:SIZE"))?;
    let base = parse_num(b).ok_or_else(|| format!("--ram {s}: bad base address {b:?}"))?;
    let size = parse_num(z).ok_or_else(|| format!("--ram {s}: bad size {z:?}"))?;
    if size == 0 {
        return Err(format!("--ram {s}: size must not be zero"));
    }
    if base.checked_add(size).is_none() {
        return Err(format!("--ram {s}: range wraps around the address space"));
    }
    Ok((base, size))
}

/// Parse a SIZE argument (`--max-memory`): hex or decimal bytes, with an
/// optional K, M or G suffix; not zero.
///
/// # Errors
/// A message naming what is wrong with the text (clap: usage error, 2).
pub fn parse_size(s: &str) -> Result<u64, String> {
    match parse_num(s) {
        Some(0) => Err("size must not be zero".into()),
        Some(v) => Ok(v),
        None => Err("bad size (expected e.g. 512M, 4G or 0x10000000)".into()),
    }
}

/// A number of bytes: hex (`0x`) or decimal, optional K/M/G suffix;
/// `None` if malformed or above `u64::MAX`.
pub(crate) fn parse_num(s: &str) -> Option<u64> {
    let s = s.trim();
    let (digits, mult) = match s.as_bytes().last()? {
        b'K' | b'k' => (&s[..s.len() - 1], 1u64 << 10),
        b'M' | b'm' => (&s[..s.len() - 1], 1 << 20),
        b'G' | b'g' => (&s[..s.len() - 1], 1 << 30),
        _ => (s, 1),
    };
    let v = if let Some(h) = digits
        .strip_prefix("0x")
        .or_else(|| digits.strip_prefix("0X"))
    {
        u64::from_str_radix(h, 16).ok()?
    } else {
        digits.parse().ok()?
    };
    v.checked_mul(mult)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn max_memory_parsing() {
        assert_eq!(parse_size("512M"), Ok(512 << 20));
        assert_eq!(parse_size("0x1000"), Ok(0x1000));
        assert!(parse_size("0").is_err());
        assert!(parse_size("lots").is_err());
    }

    #[test]
    fn ram_parsing() {
        assert_eq!(parse_ram("0x80000000:128M"), Ok((0x8000_0000, 128 << 20)));
        assert_eq!(parse_ram("4096:65536"), Ok((4096, 65536)));
        assert!(parse_ram("0x80000000").is_err());
        assert!(parse_ram("0x80000000:0").is_err());
        assert!(parse_ram("0xffffffffffffffff:2").is_err());
        assert!(parse_ram("zz:1M").is_err());
    }
}
