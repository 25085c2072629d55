//! GNU `gmon.out` for `gprof PROGRAM gmon.out`.
//!
//! The file follows the version-1 layout of glibc's `gmon/sys/gmon_out.h`
//! as binutils `gprof` reads it (`gprof/gmon_io.c`, `hist.c`,
//! `cg_arcs.c`, `basic_blocks.c`): a 20-byte header (the magic `"gmon"`,
//! the version 1 as a 32-bit word, 12 spare bytes), then tagged records.
//! Every multi-byte field is little-endian (RISC-V's byte order, which
//! gprof takes from the ELF), and every address is as wide as the ELF's
//! class: gprof reads 4-byte addresses for an RV32 ELF and 8-byte ones for
//! RV64, so [`write`](fn@write) uses the profile's `meta.xlen`.
//!
//! - [`GMON_TAG_TIME_HIST`] (histogram): `low_pc`, `high_pc` (addresses),
//!   the number of bins and the profiling rate (32-bit), the dimension
//!   (15 bytes, NUL-padded) and its one-letter abbreviation, then one
//!   16-bit count per bin.
//! - [`GMON_TAG_CG_ARC`] (call-graph arc): `from_pc`, `self_pc`
//!   (addresses) and a 32-bit count.
//! - [`GMON_TAG_BB_COUNT`] (basic-block counts): a 32-bit number of
//!   blocks, then per block its address and count (both address-wide).
//!
//! # What is written
//!
//! - **Histogram**: the chosen event's exact cost per instruction
//!   ([`ExportOptions::event`], default `instructions`). The profiling
//!   rate is 1 and the dimension is the event's name (`instructions`,
//!   `cycles`, ...), so gprof's "seconds" columns show exact counts and its
//!   header reads `Each sample counts as 1 instructions.` A bin covers one
//!   instruction granule (2 bytes, or 4 when every address of the profile
//!   is a multiple of 4), so no bin straddles two functions and gprof's
//!   flat profile ranks functions exactly as `fwprof report` does. A bin
//!   holds at most 65535 in the file, but gprof *adds* histogram records
//!   with the same address range, so a range whose counts are larger is
//!   written as several records; the executed code is split into ranges
//!   so that only hot code is repeated. gprof sums the records in a C
//!   `int`: if one instruction's cost exceeds 2^31-1, every count is
//!   divided by the smallest power of 1000 that fits (rounded to the
//!   nearest) and the dimension is prefixed with `K`, `M`, `G` or `T`.
//! - **Arcs**: one record per arc of the profile with a caller, from the
//!   call (or tail-call jump) instruction to the callee's first address;
//!   gprof attributes both ends to the functions containing them. Counts
//!   above 2^32-1 are split into several records (gprof adds them).
//!   Spontaneous arcs (program entry, trap entry) are left out: gprof
//!   drops an arc whose `from_pc` is in no function and shows a function
//!   without callers as called by `<spontaneous>`. gprof's `calls` column
//!   therefore counts calls from functions only.
//! - **Basic-block counts**: the execution count of every run of
//!   consecutive executed instructions of one function that execute
//!   equally often, also split where the source line changes when the
//!   program's DWARF is at hand ([`ExportOptions::program`], found by the
//!   caller). gprof uses them only with `-l` (line-by-line
//!   profiling, e.g. `gprof -l -C`) and otherwise warns once that it
//!   ignores them.
//!
//! [`ExportOptions::event`]: crate::ExportOptions::event
//! [`ExportOptions::program`]: crate::ExportOptions::program

use std::io::Write;

use fwprof_profile::{events, FunctionId};

use crate::{Error, ExportOptions, Profile};

/// The file's magic cookie (`GMON_MAGIC`).
pub const GMON_MAGIC: &[u8; 4] = b"gmon";
/// The file format version written (`GMON_VERSION`).
pub const GMON_VERSION: u32 = 1;
/// Tag of a histogram record (`GMON_TAG_TIME_HIST`).
pub const GMON_TAG_TIME_HIST: u8 = 0;
/// Tag of a call-graph arc record (`GMON_TAG_CG_ARC`).
pub const GMON_TAG_CG_ARC: u8 = 1;
/// Tag of a basic-block count record (`GMON_TAG_BB_COUNT`).
pub const GMON_TAG_BB_COUNT: u8 = 2;

/// Largest count of one histogram bin in the file (`UNIT` is 16 bits).
const BIN_MAX: u64 = u16::MAX as u64;
/// Largest bin total gprof can add up (`int sample[]`).
const SAMPLE_MAX: u64 = i32::MAX as u64;
/// Basic blocks per `GMON_TAG_BB_COUNT` record (its count is 32 bits).
const BLOCKS_PER_RECORD: usize = 1 << 20;

/// Write `profile` as a GNU `gmon.out` to `out` (see the module
/// documentation for the records and how fwprof's counts map to them).
///
/// The histogram holds event `opts.event`; `opts.program` only refines the
/// basic-block records.
///
/// # Errors
/// [`Error::Unsupported`] if `meta.xlen` is neither 32 nor 64 or
/// `opts.event` is not an event of the profile; [`Error::Io`] if writing
/// fails.
pub fn write(profile: &Profile, opts: &ExportOptions, out: &mut dyn Write) -> Result<(), Error> {
    let width = match profile.meta.xlen {
        32 => 4,
        64 => 8,
        x => {
            return Err(Error::Unsupported(format!(
                "gmon.out needs a 32- or 64-bit profile, this one has xlen {x}"
            )))
        }
    };
    let event = opts.event;
    let Some(name) = profile.events.get(event) else {
        return Err(Error::Unsupported(format!(
            "event {event} is not in the profile ({} events)",
            profile.events.len()
        )));
    };
    let mut f = Encoder {
        width,
        buf: Vec::new(),
    };
    f.buf.extend_from_slice(GMON_MAGIC);
    f.u32(GMON_VERSION);
    f.buf.extend_from_slice(&[0; 12]);

    let hist = Histogram::build(profile, event);
    let (dimension, abbrev) = dimension(name, hist.scale_exp);
    for chunk in &hist.chunks {
        let mut rest: Vec<u64> = chunk.bins.clone();
        loop {
            f.buf.push(GMON_TAG_TIME_HIST);
            f.vma(chunk.low);
            f.vma(chunk.low + hist.granule * chunk.bins.len() as u64);
            f.u32(chunk.bins.len() as u32);
            f.u32(1);
            f.buf.extend_from_slice(&dimension);
            f.buf.push(abbrev);
            for r in rest.iter_mut() {
                let part = (*r).min(BIN_MAX);
                *r -= part;
                f.buf.extend_from_slice(&(part as u16).to_le_bytes());
            }
            if rest.iter().all(|&r| r == 0) {
                break;
            }
        }
        flush(&mut f.buf, out)?;
    }

    for arc in &profile.arcs {
        let Some(_caller) = arc.caller else { continue };
        let Some(callee) = profile.function(arc.callee) else {
            continue;
        };
        let mut rest = arc.calls;
        while rest > 0 {
            let part = rest.min(u32::MAX as u64);
            rest -= part;
            f.buf.push(GMON_TAG_CG_ARC);
            f.vma(arc.call_site);
            f.vma(callee.start);
            f.u32(part as u32);
        }
        flush(&mut f.buf, out)?;
    }

    let blocks = basic_blocks(profile, opts, width);
    for group in blocks.chunks(BLOCKS_PER_RECORD) {
        f.buf.push(GMON_TAG_BB_COUNT);
        f.u32(group.len() as u32);
        for &(addr, count) in group {
            f.vma(addr);
            f.vma(count);
        }
        flush(&mut f.buf, out)?;
    }
    flush(&mut f.buf, out)?;
    Ok(())
}

/// Writes `buf` to `out` and empties it.
fn flush(buf: &mut Vec<u8>, out: &mut dyn Write) -> Result<(), Error> {
    if !buf.is_empty() {
        out.write_all(buf)?;
        buf.clear();
    }
    Ok(())
}

/// Little-endian fields of one address width.
struct Encoder {
    width: usize,
    buf: Vec<u8>,
}

impl Encoder {
    fn u32(&mut self, v: u32) {
        self.buf.extend_from_slice(&v.to_le_bytes());
    }

    fn vma(&mut self, v: u64) {
        self.buf.extend_from_slice(&v.to_le_bytes()[..self.width]);
    }
}

/// The dimension field (15 bytes, NUL-padded) and its abbreviation for
/// event `name` whose counts were divided by `1000^scale_exp`.
fn dimension(name: &str, scale_exp: u32) -> ([u8; 15], u8) {
    let prefix = match scale_exp {
        0 => "",
        1 => "K",
        2 => "M",
        3 => "G",
        _ => "T",
    };
    let text = format!("{prefix}{name}");
    let mut field = [0u8; 15];
    for (d, s) in field.iter_mut().zip(text.bytes()) {
        *d = s;
    }
    let abbrev = name.bytes().next().unwrap_or(b'?');
    (field, abbrev)
}

/// One histogram address range: `bins[i]` covers
/// `[low + i * granule, low + (i + 1) * granule)`.
#[derive(Debug, PartialEq)]
struct Chunk {
    low: u64,
    bins: Vec<u64>,
}

/// The whole histogram of one event.
#[derive(Debug)]
struct Histogram {
    /// Bytes per bin: 2, or 4 when every address is a multiple of 4.
    granule: u64,
    /// Counts were divided by `1000^scale_exp` to fit gprof's `int`.
    scale_exp: u32,
    chunks: Vec<Chunk>,
}

/// Bytes of a histogram record besides its bins (tag, two addresses,
/// sizes, dimension), for an 8-byte address; used to decide where to
/// split ranges.
const RECORD_OVERHEAD: u64 = 1 + 8 + 8 + 4 + 4 + 15 + 1;

impl Histogram {
    fn build(profile: &Profile, event: usize) -> Histogram {
        let aligned4 = profile.costs.iter().all(|c| c.addr % 4 == 0)
            && profile.functions.iter().all(|f| f.start % 4 == 0);
        let granule = if aligned4 { 4 } else { 2 };
        let cost = |c: &[u64]| c.get(event).copied().unwrap_or(0);
        let max = profile
            .costs
            .iter()
            .map(|c| cost(c.cost))
            .max()
            .unwrap_or(0);
        let mut scale_exp = 0;
        let mut divisor = 1u64;
        while max.saturating_add(divisor / 2) / divisor > SAMPLE_MAX {
            scale_exp += 1;
            divisor *= 1000;
        }
        let scaled = |v: u64| {
            if divisor == 1 {
                v
            } else {
                (v + divisor / 2) / divisor
            }
        };
        // One segment per instruction with a nonzero cost, then merged
        // left to right while merging makes the file no larger: a range
        // is written ceil(max / 65535) times.
        let passes = |v: u64| v.div_ceil(BIN_MAX).max(1);
        let mut chunks: Vec<(Chunk, u64)> = Vec::new();
        for c in profile.costs.iter() {
            let v = scaled(cost(c.cost));
            if v == 0 {
                continue;
            }
            let low = c.addr - c.addr % granule;
            let p = passes(v);
            if let Some((last, lp)) = chunks.last_mut() {
                let last_end = last.low + granule * last.bins.len() as u64;
                if low >= last_end {
                    let gap = (low - last_end) / granule;
                    let n = last.bins.len() as u64;
                    let separate = *lp * (RECORD_OVERHEAD + 2 * n) + p * (RECORD_OVERHEAD + 2);
                    let merged = (*lp).max(p) * (RECORD_OVERHEAD + 2 * (n + gap + 1));
                    if merged <= separate {
                        last.bins.extend(std::iter::repeat_n(0, gap as usize));
                        last.bins.push(v);
                        *lp = (*lp).max(p);
                        continue;
                    }
                } else {
                    // Same granule as the previous instruction (only with
                    // a 4-byte granule and 2-byte instructions).
                    if let Some(b) = last.bins.last_mut() {
                        *b += v;
                        *lp = passes(*b);
                    }
                    continue;
                }
            }
            chunks.push((Chunk { low, bins: vec![v] }, p));
        }
        Histogram {
            granule,
            scale_exp,
            chunks: chunks.into_iter().map(|(c, _)| c).collect(),
        }
    }
}

/// `(address, execution count)` of the basic blocks: runs of consecutive
/// executed instructions of one function with equal counts, split where
/// the source line changes if the program's DWARF is available. Counts
/// above the address width are split into several entries of the same
/// address (gprof adds them).
fn basic_blocks(profile: &Profile, opts: &ExportOptions, width: usize) -> Vec<(u64, u64)> {
    let program = crate::callgrind::debug_program(opts).ok();
    let line = |addr: u64| -> Option<(Option<String>, Option<u32>)> {
        let loc = program.as_ref()?.lines(addr).ok()??;
        Some((loc.file, loc.line))
    };
    let ins = profile.event_index(events::INSTRUCTIONS).unwrap_or(0);
    let max = if width == 4 {
        u32::MAX as u64
    } else {
        u64::MAX
    };
    let mut blocks = Vec::new();
    let mut prev: Option<(u64, FunctionId, u64)> = None; // end, function, count
    let mut prev_line = None;
    for c in profile.costs.iter() {
        let count = c.cost.get(ins).copied().unwrap_or(0);
        if count == 0 {
            prev = None;
            continue;
        }
        let here = if program.is_some() {
            line(c.addr)
        } else {
            None
        };
        let leader = match prev {
            Some((end, f, n)) => {
                end != c.addr || f != c.function || n != count || here != prev_line
            }
            None => true,
        };
        if leader {
            let mut rest = count;
            while rest > 0 {
                let part = rest.min(max);
                rest -= part;
                blocks.push((c.addr, part));
            }
        }
        prev = Some((c.addr + c.len as u64, c.function, count));
        prev_line = here;
    }
    blocks
}

#[cfg(test)]
mod tests {
    use super::*;
    use fwprof_profile::{AddressCost, Arc, FunctionRecord, Meta};

    fn profile(xlen: u32, costs: &[(u64, u8, u64)]) -> Profile {
        let mut meta = Meta::new("/nonexistent/prog.elf");
        meta.xlen = xlen;
        let mut p = Profile::new(meta, vec!["instructions".into()]);
        let main = p.add_function(FunctionRecord::new("main", 0x100, 0x200));
        let f = p.add_function(FunctionRecord::new("f", 0x200, 0x300));
        for &(addr, len, n) in costs {
            let function = if addr < 0x200 { main } else { f };
            p.costs
                .push(AddressCost {
                    addr,
                    function,
                    len,
                    raw: 0x13,
                    cost: vec![n],
                })
                .unwrap();
        }
        p.arcs.push(Arc::spontaneous(main, 1, vec![0]));
        p.arcs.push(Arc {
            caller: Some(main),
            callee: f,
            call_site: 0x104,
            calls: 5_000_000_000,
            tail: false,
            inclusive: vec![0],
        });
        p
    }

    fn export(p: &Profile) -> Vec<u8> {
        let mut out = Vec::new();
        write(p, &ExportOptions::new(0), &mut out).unwrap();
        out
    }

    /// Histograms `(low, high, bins)`, arcs `(from, self, count)`, blocks.
    type Parsed = (
        Vec<(u64, u64, Vec<u64>)>,
        Vec<(u64, u64, u64)>,
        Vec<(u64, u64)>,
    );

    /// Reads the records back the way gprof does; histograms with the
    /// same range are added.
    fn parse(data: &[u8], width: usize) -> Parsed {
        assert_eq!(&data[..4], b"gmon");
        assert_eq!(u32::from_le_bytes(data[4..8].try_into().unwrap()), 1);
        let mut i = 20;
        let vma = |i: &mut usize| {
            let mut b = [0u8; 8];
            b[..width].copy_from_slice(&data[*i..*i + width]);
            *i += width;
            u64::from_le_bytes(b)
        };
        let u32_at = |i: &mut usize| {
            let v = u32::from_le_bytes(data[*i..*i + 4].try_into().unwrap());
            *i += 4;
            v as u64
        };
        let (mut hist, mut arcs, mut bbs) =
            (Vec::<(u64, u64, Vec<u64>)>::new(), Vec::new(), Vec::new());
        while i < data.len() {
            let tag = data[i];
            i += 1;
            match tag {
                0 => {
                    let (lo, hi) = (vma(&mut i), vma(&mut i));
                    let n = u32_at(&mut i) as usize;
                    assert_eq!(u32_at(&mut i), 1);
                    assert_eq!(&data[i..i + 16], b"instructions\0\0\0i");
                    i += 16;
                    let bins: Vec<u64> = (0..n)
                        .map(|k| u16::from_le_bytes([data[i + 2 * k], data[i + 2 * k + 1]]) as u64)
                        .collect();
                    i += 2 * n;
                    match hist.iter_mut().find(|h| h.0 == lo && h.1 == hi) {
                        Some(h) => h.2.iter_mut().zip(&bins).for_each(|(a, b)| *a += b),
                        None => hist.push((lo, hi, bins)),
                    }
                }
                1 => arcs.push((vma(&mut i), vma(&mut i), u32_at(&mut i))),
                2 => {
                    let n = u32_at(&mut i);
                    for _ in 0..n {
                        bbs.push((vma(&mut i), vma(&mut i)));
                    }
                }
                t => panic!("tag {t}"),
            }
        }
        (hist, arcs, bbs)
    }

    #[test]
    fn rv32_addresses_are_4_bytes_and_counts_add_up() {
        let p = profile(
            32,
            &[
                (0x100, 4, 3),
                (0x104, 4, 200_000),
                (0x10a, 2, 1),
                (0x200, 4, 7),
            ],
        );
        let data = export(&p);
        let (hist, arcs, bbs) = parse(&data, 4);
        // Every instruction's count is in the bin of its address.
        let mut per_addr = std::collections::BTreeMap::new();
        for (lo, hi, bins) in &hist {
            assert_eq!((hi - lo) / 2, bins.len() as u64, "2-byte bins");
            for (k, &b) in bins.iter().enumerate() {
                if b > 0 {
                    per_addr.insert(lo + 2 * k as u64, b);
                }
            }
        }
        let want: std::collections::BTreeMap<u64, u64> =
            [(0x100, 3), (0x104, 200_000), (0x10a, 1), (0x200, 7)].into();
        assert_eq!(per_addr, want);
        // 5e9 calls do not fit 32 bits: two records, no spontaneous arc.
        assert_eq!(arcs.iter().map(|a| a.2).sum::<u64>(), 5_000_000_000);
        assert!(arcs.iter().all(|a| a.0 == 0x104 && a.1 == 0x200));
        assert_eq!(arcs.len(), 2);
        // Blocks: runs of equal counts.
        assert_eq!(
            bbs,
            vec![(0x100, 3), (0x104, 200_000), (0x10a, 1), (0x200, 7)]
        );
    }

    #[test]
    fn rv64_addresses_are_8_bytes() {
        let p = profile(64, &[(0x100, 4, 5), (0x104, 4, 5), (0x108, 4, 5)]);
        let (hist, arcs, bbs) = parse(&export(&p), 8);
        assert_eq!(hist.len(), 1);
        assert_eq!(hist[0].0, 0x100);
        assert_eq!(
            hist[0].2,
            vec![5, 5, 5],
            "4-byte bins when every address is aligned"
        );
        assert_eq!(arcs[0].1, 0x200);
        assert_eq!(bbs, vec![(0x100, 5)]);
    }

    #[test]
    fn huge_counts_are_scaled_to_fit_gprofs_int() {
        let p = profile(64, &[(0x100, 4, 3_000_000_000_000), (0x104, 4, 1_500_000)]);
        let h = Histogram::build(&p, 0);
        assert_eq!(h.scale_exp, 2);
        let bins: Vec<u64> = h
            .chunks
            .iter()
            .flat_map(|c| c.bins.iter().copied())
            .collect();
        assert_eq!(bins, vec![3_000_000, 2]);
        let (dim, abbrev) = dimension("instructions", 2);
        assert_eq!(&dim, b"Minstructions\0\0");
        assert_eq!(abbrev, b'i');
    }

    #[test]
    fn long_event_names_are_cut_to_15_bytes() {
        let (dim, abbrev) = dimension("branch_mispredicts", 0);
        assert_eq!(&dim, b"branch_mispredi");
        assert_eq!(abbrev, b'b');
    }

    #[test]
    fn bad_xlen_is_an_error() {
        let p = profile(128, &[(0x100, 4, 1)]);
        let e = write(&p, &ExportOptions::new(0), &mut Vec::new()).unwrap_err();
        assert!(e.to_string().contains("xlen 128"), "{e}");
    }
}
