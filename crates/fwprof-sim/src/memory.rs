//! Guest memory: a sorted set of mapped regions with per-access-kind
//! last-hit caches.
//!
//! Shape: each [`Region`] is `[start, start+len)` backed by a byte range of
//! an anonymous host mapping ([`HostPages`]: committed only as pages are
//! touched), with [`Perm`] bits. Regions never overlap and are kept sorted
//! by `start`. Splitting a region (`mprotect`, a partial `munmap`) keeps its
//! bytes in place; removed bytes are given back to the host.
//!
//! The guest memory limit ([`Memory::with_limit`]) bounds the total bytes
//! mapped at once, as `RLIMIT_AS` bounds a process: a [`GuestMemory::map`]
//! beyond it fails, and the environment answers the guest with `ENOMEM`.
//! Loads, stores and instruction fetches each remember the last region they
//! hit, so the hot path is one subtraction, one compare and a slice copy.
//!
//! Accesses are little-endian. Misaligned plain loads and stores are allowed
//! (as QEMU's RISC-V targets allow them), also across region boundaries (the
//! slow path goes byte by byte). Any byte not mapped with the needed
//! permission makes the access fail with the address of the *first* such
//! byte, which the executor turns into an access-fault trap
//! (Privileged ISA 20211203, §3.1.15: causes 1, 5, 7; `mtval` = that address).
//!
//! Self-modifying code: the simulator marks the 64-byte lines that hold
//! translated instructions ([`Memory::mark_code`]) and keeps, per region,
//! the address range ever marked. A write inside that range touching a
//! marked line (from a guest store or through [`GuestMemory::write`]) is
//! recorded in a pending list that the simulator drains after the store
//! ([`Memory::take_code_writes`]) to invalidate the affected blocks.

use std::sync::Arc;

use fwprof_os::{GuestMemory, MemFault, Perm};

use crate::host_pages::HostPages;

mod vm;
pub(crate) use vm::BlockKill;

/// log2 of the code-tracking granule in bytes (64-byte lines).
pub(crate) const CODE_LINE_SHIFT: u32 = 6;

/// One mapped range of guest memory: bytes `[off, off+len)` of `host`.
#[derive(Debug)]
struct Region {
    start: u64,
    perm: Perm,
    host: Arc<HostPages>,
    off: usize,
    len: usize,
    /// Bitmap of code lines, indexed by `(addr >> 6) - (start >> 6)`; empty
    /// until the first instruction in this region is translated.
    code: Vec<u64>,
    /// Lowest and highest+1 address ever marked as code (`u64::MAX`, 0 when
    /// none): a store outside this range skips the bitmap.
    code_lo: u64,
    code_hi: u64,
}

impl Region {
    fn new(start: u64, perm: Perm, host: Arc<HostPages>, off: usize, len: usize) -> Region {
        Region {
            start,
            perm,
            host,
            off,
            len,
            code: Vec::new(),
            code_lo: u64::MAX,
            code_hi: 0,
        }
    }

    fn end(&self) -> u64 {
        self.start + self.len as u64
    }

    /// Pointer to the region's first byte.
    #[inline(always)]
    fn ptr(&self) -> *mut u8 {
        // SAFETY: `off + len` lies inside the host mapping (set at `map`,
        // only narrowed by `split_off` and `truncate`).
        unsafe { self.host.ptr().add(self.off) }
    }

    fn data(&self) -> &[u8] {
        // SAFETY: the bytes are inside the live host mapping; no other
        // region shares them, and a `&mut` to them needs `&mut self`.
        unsafe { std::slice::from_raw_parts(self.ptr(), self.len) }
    }

    fn data_mut(&mut self) -> &mut [u8] {
        // SAFETY: as `data`; `&mut self` makes this the only view.
        unsafe { std::slice::from_raw_parts_mut(self.ptr(), self.len) }
    }

    /// Split off `[at, end)` as a new region over the same host bytes (no
    /// copy); `self` keeps `[start, at)` and its code bitmap.
    fn split_off(&mut self, at: u64) -> Region {
        let k = (at - self.start) as usize;
        let tail = Region::new(at, self.perm, self.host.clone(), self.off + k, self.len - k);
        self.len = k;
        tail
    }

    /// Give the host bytes of `[s, e)` (inside this region) back to the
    /// host; the caller removes them from the region.
    fn release(&self, s: u64, e: u64) {
        self.host
            .release(self.off + (s - self.start) as usize, (e - s) as usize);
    }
}

/// A last-hit cache for one kind of access: `addr - start < len` means hit.
///
/// Loads and stores take their fast path through `ptr`, a raw pointer to
/// the start of region `idx`'s buffer: `addr - start < fast_len` (= the
/// region length less 7) means all 8 bytes from `addr` are inside the
/// buffer, whatever the access width.
///
/// Invariant (what makes the `unsafe` reads and writes sound): while a cache
/// is filled, `ptr` points to a live buffer of at least `len` bytes. Region
/// buffers are only shrunk, split or dropped in `carve`, `split_at` and
/// `map`, which all empty the caches (`reset_caches`); moving a `Region`
/// inside the `regions` vector does not move its host mapping.
#[derive(Clone, Copy, Debug)]
struct HitCache {
    start: u64,
    len: u64,
    fast_len: u64,
    ptr: *mut u8,
    idx: usize,
    /// For the store cache: the region's code extent (see `Region`).
    code_lo: u64,
    code_hi: u64,
}

impl HitCache {
    /// The host address of the `n` bytes at `addr`, if they all lie in
    /// the cached region.
    #[inline(always)]
    fn host(&self, addr: u64, n: usize) -> Option<*mut u8> {
        let off = addr.wrapping_sub(self.start);
        // SAFETY: `off + n <= len`, and the cache invariant keeps
        // `ptr[..len]` inside a live buffer.
        (off < self.len && self.len - off >= n as u64)
            .then(|| unsafe { self.ptr.add(off as usize) })
    }
}

const EMPTY_CACHE: HitCache = HitCache {
    start: 0,
    len: 0,
    fast_len: 0,
    ptr: std::ptr::null_mut(),
    idx: 0,
    code_lo: u64::MAX,
    code_hi: 0,
};

/// Byte offsets, inside [`Memory`], of the hit-cache fields the translation
/// tier's inline load and store fast paths read (`jit/emit.rs`): they
/// repeat [`Memory`]'s `load_u*`/`store_u*` tests exactly (the cache, then
/// its victim), except that a store anywhere inside a region's code extent
/// takes the slow path.
#[derive(Clone, Copy, Debug)]
pub(crate) struct FastPathOffsets {
    pub load_start: i32,
    pub load_fast_len: i32,
    pub load_ptr: i32,
    pub store_start: i32,
    pub store_fast_len: i32,
    pub store_ptr: i32,
    pub store_code_lo: i32,
    pub store_code_hi: i32,
    /// Added to a load or store field's offset: the same field of the
    /// victim cache.
    pub load_victim: i32,
    pub store_victim: i32,
}

/// See [`FastPathOffsets`].
pub(crate) const FAST_PATH: FastPathOffsets = {
    use std::mem::offset_of;
    let rc = offset_of!(Memory, rc);
    let wc = offset_of!(Memory, wc);
    FastPathOffsets {
        load_start: (rc + offset_of!(HitCache, start)) as i32,
        load_fast_len: (rc + offset_of!(HitCache, fast_len)) as i32,
        load_ptr: (rc + offset_of!(HitCache, ptr)) as i32,
        store_start: (wc + offset_of!(HitCache, start)) as i32,
        store_fast_len: (wc + offset_of!(HitCache, fast_len)) as i32,
        store_ptr: (wc + offset_of!(HitCache, ptr)) as i32,
        store_code_lo: (wc + offset_of!(HitCache, code_lo)) as i32,
        store_code_hi: (wc + offset_of!(HitCache, code_hi)) as i32,
        load_victim: offset_of!(Memory, rc2) as i32 - rc as i32,
        store_victim: offset_of!(Memory, wc2) as i32 - wc as i32,
    }
};

/// Which permission an access needs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Access {
    Read,
    Write,
    Exec,
}

/// Guest memory. Create with [`Memory::new`], map regions with
/// [`GuestMemory::map`] (or let `fwprof_os::load` do it).
#[derive(Debug)]
pub struct Memory {
    regions: Vec<Region>,
    rc: HitCache,
    wc: HitCache,
    xc: HitCache,
    /// The load and store caches' previous regions ("victims"): a program
    /// that alternates between its stack and its data keeps both fast.
    rc2: HitCache,
    wc2: HitCache,
    /// The victims' victims, tried by the slow path before a region
    /// lookup: a program that cycles between three regions (its code's
    /// constants, its data and its stack) misses the two inline entries
    /// but not these.
    rc3: HitCache,
    wc3: HitCache,
    /// Writes that touched a code line since the last `take_code_writes`:
    /// `(addr, len)`.
    code_writes: Vec<(u64, u64)>,
    /// Bytes mapped now (sum of region lengths).
    mapped: u64,
    /// Most bytes that may be mapped at once.
    limit: u64,
    /// Translation, PMP and the TLB (`memory/vm.rs`).
    vm: vm::VmMem,
}

// SAFETY: the raw pointers in the hit caches point only into host mappings
// that this `Memory`'s regions own (see `HitCache`); the `Arc`s are never
// shared outside this `Memory`, so moving it to another thread moves every
// owner with it, and `&Memory` never writes through them.
unsafe impl Send for Memory {}
// SAFETY: as above; shared access only reads through the `regions` vector.
unsafe impl Sync for Memory {}

impl Default for Memory {
    fn default() -> Self {
        Self::new()
    }
}

macro_rules! load_fn {
    ($name:ident, $t:ty, $n:expr) => {
        /// Little-endian load of a value of this width from `addr` (any
        /// alignment).
        ///
        /// # Errors
        /// The first address that is not mapped readable.
        #[inline(always)]
        pub fn $name(&mut self, addr: u64) -> Result<$t, u64> {
            for c in [&self.rc, &self.rc2] {
                let off = addr.wrapping_sub(c.start);
                if off < c.fast_len {
                    // SAFETY: `off + 8 <= len`, and the cache invariant (see
                    // `HitCache`) keeps `ptr[..len]` inside a live buffer.
                    let b = unsafe { c.ptr.add(off as usize).cast::<[u8; $n]>().read_unaligned() };
                    return Ok(<$t>::from_le_bytes(b));
                }
            }
            let mut a = [0u8; $n];
            self.access_slow(addr, &mut a, Access::Read)?;
            Ok(<$t>::from_le_bytes(a))
        }
    };
}

macro_rules! store_fn {
    ($name:ident, $t:ty, $n:expr) => {
        /// Little-endian store of a value of this width to `addr` (any
        /// alignment). Records a code write if a translated line is touched.
        ///
        /// # Errors
        /// The first address that is not mapped writable; nothing is written
        /// then.
        #[inline(always)]
        pub fn $name(&mut self, addr: u64, v: $t) -> Result<(), u64> {
            for c in [&self.wc, &self.wc2] {
                let off = addr.wrapping_sub(c.start);
                if off < c.fast_len && self.clear_of_code(c, addr, $n) {
                    // SAFETY: `off + 8 <= len`, and the cache invariant (see
                    // `HitCache`) keeps `ptr[..len]` inside a live buffer.
                    unsafe {
                        c.ptr
                            .add(off as usize)
                            .cast::<[u8; $n]>()
                            .write_unaligned(v.to_le_bytes())
                    };
                    return Ok(());
                }
            }
            self.store_slow(addr, &v.to_le_bytes())
        }
    };
}

impl Memory {
    /// Empty memory: nothing mapped, no limit on what may be mapped.
    pub fn new() -> Self {
        Self::with_limit(u64::MAX)
    }

    /// Empty memory that refuses to have more than `limit` bytes mapped at
    /// once (the guest memory limit, `--max-memory`): a
    /// [`GuestMemory::map`] that would pass it fails with [`MemFault`] at
    /// its start address, like a host `mmap` beyond `RLIMIT_AS`. Every
    /// mapped byte counts, touched or not, `PROT_NONE` included.
    pub fn with_limit(limit: u64) -> Self {
        Memory {
            regions: Vec::new(),
            rc: EMPTY_CACHE,
            wc: EMPTY_CACHE,
            xc: EMPTY_CACHE,
            rc2: EMPTY_CACHE,
            wc2: EMPTY_CACHE,
            rc3: EMPTY_CACHE,
            wc3: EMPTY_CACHE,
            code_writes: Vec::new(),
            mapped: 0,
            limit,
            vm: vm::VmMem::default(),
        }
    }

    /// Bytes mapped now (every region, touched or not).
    pub fn mapped_bytes(&self) -> u64 {
        self.mapped
    }

    load_fn!(load_u8, u8, 1);
    load_fn!(load_u16, u16, 2);
    load_fn!(load_u32, u32, 4);
    load_fn!(load_u64, u64, 8);
    store_fn!(store_u8, u8, 1);
    store_fn!(store_u16, u16, 2);
    store_fn!(store_u32, u32, 4);
    store_fn!(store_u64, u64, 8);

    /// Fetch a 16-bit instruction parcel at `addr` from executable memory.
    ///
    /// # Errors
    /// The first address that is not mapped executable.
    #[inline]
    pub fn fetch_u16(&mut self, addr: u64) -> Result<u16, u64> {
        let off = addr.wrapping_sub(self.xc.start);
        if off < self.xc.len && self.xc.len - off >= 2 {
            // SAFETY: `off + 2 <= len`, and the cache invariant (see
            // `HitCache`) keeps `ptr[..len]` inside a live buffer.
            let b = unsafe {
                self.xc
                    .ptr
                    .add(off as usize)
                    .cast::<[u8; 2]>()
                    .read_unaligned()
            };
            return Ok(u16::from_le_bytes(b));
        }
        let mut a = [0u8; 2];
        self.access_slow(addr, &mut a, Access::Exec)?;
        Ok(u16::from_le_bytes(a))
    }

    /// End address (exclusive) of the executable region containing `addr`,
    /// or `None` if `addr` is not executable. Blocks never cross it.
    pub fn exec_region_end(&self, addr: u64) -> Option<u64> {
        let i = self.find(addr)?;
        let r = &self.regions[i];
        r.perm.exec.then(|| r.end())
    }

    /// Read bytes regardless of permissions (for tools, e.g. the semihosting
    /// sequence check reads instruction words). `None` if any byte is unmapped.
    pub fn peek(&self, addr: u64, buf: &mut [u8]) -> Option<()> {
        for (k, b) in buf.iter_mut().enumerate() {
            let a = addr.checked_add(k as u64)?;
            let i = self.find(a)?;
            let r = &self.regions[i];
            *b = r.data()[(a - r.start) as usize];
        }
        Some(())
    }

    /// Index of the region containing `addr`.
    fn find(&self, addr: u64) -> Option<usize> {
        let i = self.regions.partition_point(|r| r.start <= addr);
        if i == 0 {
            return None;
        }
        let r = &self.regions[i - 1];
        (addr < r.end()).then_some(i - 1)
    }

    fn allowed(perm: Perm, kind: Access) -> bool {
        match kind {
            Access::Read => perm.read,
            Access::Write => perm.write,
            Access::Exec => perm.exec,
        }
    }

    /// Refill the cache of `kind` with region `i`.
    fn fill_cache(&mut self, i: usize, kind: Access) {
        let r = &self.regions[i];
        let c = HitCache {
            start: r.start,
            len: r.len as u64,
            fast_len: (r.len as u64).saturating_sub(7),
            ptr: r.ptr(),
            idx: i,
            code_lo: r.code_lo,
            code_hi: r.code_hi,
        };
        self.set_cache(kind, c);
    }

    /// Make `c` the cache of `kind`; a load or store cache's previous
    /// region becomes its victim.
    fn set_cache(&mut self, kind: Access, c: HitCache) {
        match kind {
            Access::Read => {
                self.rc3 = std::mem::replace(&mut self.rc2, std::mem::replace(&mut self.rc, c));
            }
            Access::Write => {
                self.wc3 = std::mem::replace(&mut self.wc2, std::mem::replace(&mut self.wc, c));
            }
            Access::Exec => self.xc = c,
        }
    }

    /// Byte-wise read with permission checks; refills the cache.
    #[cold]
    fn access_slow(&mut self, addr: u64, buf: &mut [u8], kind: Access) -> Result<(), u64> {
        if self.vm_checked(kind) {
            return self.vm_read(addr, buf, kind);
        }
        if kind == Access::Read {
            if let Some(p) = self.rc3.host(addr, buf.len()) {
                // SAFETY: `host` checked that `buf.len()` bytes lie there.
                buf.copy_from_slice(unsafe { std::slice::from_raw_parts(p, buf.len()) });
                let c = self.rc3;
                self.set_cache(Access::Read, c);
                return Ok(());
            }
        }
        let mut k = 0usize;
        while k < buf.len() {
            let a = addr.wrapping_add(k as u64);
            let i = match self.find(a) {
                Some(i) if Self::allowed(self.regions[i].perm, kind) => i,
                _ => return Err(a),
            };
            self.fill_cache(i, kind);
            let r = &self.regions[i];
            let o = (a - r.start) as usize;
            let n = (buf.len() - k).min(r.len - o);
            buf[k..k + n].copy_from_slice(&r.data()[o..o + n]);
            k += n;
        }
        Ok(())
    }

    /// Checked write with code-line tracking; all-or-nothing.
    #[cold]
    fn store_slow(&mut self, addr: u64, bytes: &[u8]) -> Result<(), u64> {
        if self.vm_checked(Access::Write) {
            return self.vm_store(addr, bytes);
        }
        let c = self.wc3;
        if let Some(p) = c.host(addr, bytes.len()) {
            if !bytes.is_empty() && self.clear_of_code(&c, addr, bytes.len() as u64) {
                // SAFETY: `host` checked that `bytes.len()` bytes lie there.
                unsafe { std::ptr::copy_nonoverlapping(bytes.as_ptr(), p, bytes.len()) };
                self.set_cache(Access::Write, c);
                return Ok(());
            }
        }
        // First check every byte, so a faulting store writes nothing.
        let mut k = 0usize;
        while k < bytes.len() {
            let a = addr.wrapping_add(k as u64);
            match self.find(a) {
                Some(i) if self.regions[i].perm.write => {
                    let r = &self.regions[i];
                    k += ((r.end() - a) as usize).min(bytes.len() - k);
                }
                _ => return Err(a),
            }
        }
        let mut k = 0usize;
        while k < bytes.len() {
            let a = addr.wrapping_add(k as u64);
            let i = self.find(a).unwrap_or(0);
            self.fill_cache(i, Access::Write);
            let r = &mut self.regions[i];
            let o = (a - r.start) as usize;
            let n = (bytes.len() - k).min(r.len - o);
            r.data_mut()[o..o + n].copy_from_slice(&bytes[k..k + n]);
            if !r.code.is_empty() && Self::touches_code(r, a, n as u64) {
                self.code_writes.push((a, n as u64));
            }
            k += n;
        }
        Ok(())
    }

    /// True if the `n` bytes (`n > 0`) at `addr`, inside store cache `c`'s
    /// region, touch no translated code: outside the region's code extent,
    /// or in lines not marked as code.
    #[inline(always)]
    fn clear_of_code(&self, c: &HitCache, addr: u64, n: u64) -> bool {
        if addr >= c.code_hi || addr + (n - 1) < c.code_lo {
            return true;
        }
        let r = &self.regions[c.idx];
        // At most 65 bytes span at most two lines.
        !if n <= 65 {
            Self::code_bits(n, r, addr)
        } else {
            Self::touches_code(r, addr, n)
        }
    }

    /// Fast check of the (at most two) code lines an `n`-byte access at `a`
    /// touches; `a` lies in `r`.
    #[inline(always)]
    fn code_bits(n: u64, r: &Region, a: u64) -> bool {
        let base = r.start >> CODE_LINE_SHIFT;
        let l0 = (a >> CODE_LINE_SHIFT) - base;
        let l1 = ((a + n - 1) >> CODE_LINE_SHIFT) - base;
        let bit = |l: u64| {
            r.code
                .get((l / 64) as usize)
                .is_some_and(|w| w & (1u64 << (l % 64)) != 0)
        };
        bit(l0) || bit(l1)
    }

    fn touches_code(r: &Region, a: u64, n: u64) -> bool {
        let base = r.start >> CODE_LINE_SHIFT;
        let first = (a >> CODE_LINE_SHIFT) - base;
        let last = ((a + n - 1) >> CODE_LINE_SHIFT) - base;
        (first..=last).any(|l| {
            r.code
                .get((l / 64) as usize)
                .is_some_and(|w| w & (1u64 << (l % 64)) != 0)
        })
    }

    /// Mark `[addr, addr+len)` as holding translated code, so later writes
    /// to it are reported by [`Memory::take_code_writes`].
    pub fn mark_code(&mut self, addr: u64, len: u64) {
        let checked = self.vm_checked(Access::Write);
        for a in [addr, addr.wrapping_add(len.saturating_sub(1))] {
            if let Some(i) = self.find(a) {
                let r = &mut self.regions[i];
                if r.code.is_empty() {
                    let lines =
                        ((r.end() - 1) >> CODE_LINE_SHIFT) - (r.start >> CODE_LINE_SHIFT) + 1;
                    r.code = vec![0u64; lines.div_ceil(64) as usize];
                }
                let l = (a >> CODE_LINE_SHIFT) - (r.start >> CODE_LINE_SHIFT);
                r.code[(l / 64) as usize] |= 1u64 << (l % 64);
                r.code_lo = r.code_lo.min(a);
                r.code_hi = r.code_hi.max(a + 1);
                if checked {
                    // The store caches of the checked path hold no code.
                    self.wc = EMPTY_CACHE;
                    self.wc2 = EMPTY_CACHE;
                    self.wc3 = EMPTY_CACHE;
                } else {
                    for c in [&mut self.wc, &mut self.wc2, &mut self.wc3] {
                        if c.idx == i {
                            c.code_lo = r.code_lo;
                            c.code_hi = r.code_hi;
                        }
                    }
                }
            }
        }
    }

    /// Forget that the 64-byte line with number `line` (`addr >> 6`) holds code.
    pub fn unmark_code_line(&mut self, line: u64) {
        if let Some(i) = self.find(line << CODE_LINE_SHIFT).or_else(|| {
            // The region may start inside the line.
            self.find((line << CODE_LINE_SHIFT) | ((1 << CODE_LINE_SHIFT) - 1))
        }) {
            let r = &mut self.regions[i];
            let l = line - (r.start >> CODE_LINE_SHIFT);
            if let Some(w) = r.code.get_mut((l / 64) as usize) {
                *w &= !(1u64 << (l % 64));
            }
        }
    }

    /// Forget all code marks (after the block cache was flushed).
    pub fn unmark_all_code(&mut self) {
        for r in &mut self.regions {
            r.code.clear();
            r.code_lo = u64::MAX;
            r.code_hi = 0;
        }
        self.wc = EMPTY_CACHE;
        self.wc2 = EMPTY_CACHE;
        self.wc3 = EMPTY_CACHE;
    }

    /// True if a write since the last [`Memory::take_code_writes`] touched
    /// translated code.
    #[inline(always)]
    pub fn has_code_writes(&self) -> bool {
        !self.code_writes.is_empty()
    }

    /// Drain the list of `(addr, len)` writes that touched translated code.
    pub fn take_code_writes(&mut self) -> Vec<(u64, u64)> {
        std::mem::take(&mut self.code_writes)
    }

    fn reset_caches(&mut self) {
        self.rc = EMPTY_CACHE;
        self.wc = EMPTY_CACHE;
        self.xc = EMPTY_CACHE;
        self.rc2 = EMPTY_CACHE;
        self.wc2 = EMPTY_CACHE;
        self.rc3 = EMPTY_CACHE;
        self.wc3 = EMPTY_CACHE;
    }

    /// Remove `[addr, end)` from the region list, keeping the outside parts.
    /// Code in the removed part is reported as written.
    fn carve(&mut self, addr: u64, end: u64) {
        let mut out = Vec::with_capacity(self.regions.len() + 1);
        for mut r in self.regions.drain(..) {
            let (rs, re) = (r.start, r.end());
            if re <= addr || rs >= end {
                out.push(r);
                continue;
            }
            let (cs, ce) = (rs.max(addr), re.min(end));
            if !r.code.is_empty() {
                self.code_writes.push((cs, ce - cs));
            }
            self.mapped -= ce - cs;
            r.release(cs, ce);
            // The head keeps its code bitmap (relative to the unchanged
            // start); head and tail keep their bytes in the host mapping.
            let tail = (re > end).then(|| r.split_off(end));
            let had_code = !r.code.is_empty();
            if rs < addr {
                r.len = (addr - rs) as usize;
                out.push(r);
            }
            if let Some(tail) = tail {
                // Code bitmaps are relative to the region start: the
                // tail's code is reported as written instead.
                if had_code {
                    self.code_writes.push((end, re - end));
                }
                out.push(tail);
            }
        }
        self.regions = out;
        self.reset_caches();
    }

    /// Split regions so that `at` is a region boundary (if it is mapped).
    fn split_at(&mut self, at: u64) {
        if let Some(i) = self.find(at) {
            let r = &mut self.regions[i];
            if r.start == at {
                return;
            }
            let tail = r.split_off(at);
            if !r.code.is_empty() {
                self.code_writes.push((at, tail.len as u64));
            }
            self.regions.insert(i + 1, tail);
            self.reset_caches();
        }
    }

    /// Copy of every mapped range as `(start, len, perm)`, sorted.
    pub fn regions(&self) -> Vec<(u64, u64, Perm)> {
        self.regions
            .iter()
            .map(|r| (r.start, r.len as u64, r.perm))
            .collect()
    }
}

impl GuestMemory for Memory {
    fn read(&mut self, addr: u64, buf: &mut [u8]) -> Result<(), MemFault> {
        self.access_slow(addr, buf, Access::Read)
            .map_err(|addr| MemFault { addr })
    }

    fn write(&mut self, addr: u64, data: &[u8]) -> Result<(), MemFault> {
        if data.is_empty() {
            return Ok(());
        }
        self.store_slow(addr, data)
            .map_err(|addr| MemFault { addr })
    }

    fn map(&mut self, addr: u64, len: u64, perm: Perm) -> Result<(), MemFault> {
        if len == 0 {
            return Ok(());
        }
        let end = addr.checked_add(len).ok_or(MemFault { addr })?;
        let n = usize::try_from(len).map_err(|_| MemFault { addr })?;
        // The bytes this mapping replaces do not count twice.
        let replaced: u64 = self
            .regions
            .iter()
            .filter(|r| r.start < end && r.end() > addr)
            .map(|r| r.end().min(end) - r.start.max(addr))
            .sum();
        if (self.mapped - replaced).saturating_add(len) > self.limit {
            return Err(MemFault { addr });
        }
        let host = HostPages::new(n).map_err(|_| MemFault { addr })?;
        self.carve(addr, end);
        let i = self.regions.partition_point(|r| r.start < addr);
        self.regions
            .insert(i, Region::new(addr, perm, Arc::new(host), 0, n));
        self.mapped += len;
        self.reset_caches();
        Ok(())
    }

    fn unmap(&mut self, addr: u64, len: u64) {
        if len == 0 {
            return;
        }
        let end = addr.saturating_add(len);
        self.carve(addr, end);
    }

    fn protect(&mut self, addr: u64, len: u64, perm: Perm) -> Result<(), MemFault> {
        if len == 0 {
            return Ok(());
        }
        let end = addr.checked_add(len).ok_or(MemFault { addr })?;
        // Every byte must be mapped.
        let mut a = addr;
        while a < end {
            let i = self.find(a).ok_or(MemFault { addr: a })?;
            a = self.regions[i].end();
        }
        self.split_at(addr);
        self.split_at(end);
        for r in &mut self.regions {
            if r.start >= addr && r.end() <= end {
                r.perm = perm;
            }
        }
        self.reset_caches();
        Ok(())
    }

    fn is_mapped(&self, addr: u64, len: u64) -> bool {
        let end = addr.saturating_add(len);
        self.regions.iter().any(|r| r.start < end && r.end() > addr)
    }

    fn memory_use(&self) -> Option<(u64, u64)> {
        (self.limit != u64::MAX).then_some((self.mapped, self.limit))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const RW: Perm = Perm {
        read: true,
        write: true,
        exec: false,
    };
    const RO: Perm = Perm {
        read: true,
        write: false,
        exec: false,
    };

    #[test]
    fn little_endian_and_misaligned() {
        let mut m = Memory::new();
        m.map(0x1000, 0x100, RW).unwrap();
        m.store_u32(0x1001, 0x1122_3344).unwrap();
        assert_eq!(m.load_u8(0x1001).unwrap(), 0x44);
        assert_eq!(m.load_u16(0x1003).unwrap(), 0x1122);
        assert_eq!(m.load_u64(0x1000).unwrap(), 0x11_2233_4400);
    }

    #[test]
    fn access_across_adjacent_regions() {
        let mut m = Memory::new();
        m.map(0x1000, 0x10, RW).unwrap();
        m.map(0x1010, 0x10, RW).unwrap();
        m.store_u64(0x100c, 0x0807_0605_0403_0201).unwrap();
        assert_eq!(m.load_u32(0x100e).unwrap(), 0x0605_0403);
        assert_eq!(m.load_u8(0x1013).unwrap(), 0x08);
    }

    #[test]
    fn faults_report_first_bad_byte() {
        let mut m = Memory::new();
        m.map(0x1000, 0x10, RW).unwrap();
        assert_eq!(m.load_u32(0x100e), Err(0x1010));
        assert_eq!(m.load_u8(0xfff), Err(0xfff));
        // A faulting store writes nothing.
        assert_eq!(m.store_u32(0x100e, 0xffff_ffff), Err(0x1010));
        assert_eq!(m.load_u16(0x100e).unwrap(), 0);
    }

    #[test]
    fn permissions_are_checked() {
        let mut m = Memory::new();
        m.map(0x2000, 0x1000, RO).unwrap();
        assert_eq!(m.load_u32(0x2000).unwrap(), 0);
        assert_eq!(m.store_u32(0x2000, 1), Err(0x2000));
        assert_eq!(m.fetch_u16(0x2000), Err(0x2000));
        m.protect(0x2800, 0x800, RW).unwrap();
        m.store_u32(0x2800, 7).unwrap();
        assert_eq!(m.store_u32(0x27fc, 7), Err(0x27fc));
        assert_eq!(m.regions().len(), 2);
        assert!(m.protect(0x2f00, 0x200, RW).is_err());
    }

    #[test]
    fn map_replaces_and_unmap_splits() {
        let mut m = Memory::new();
        m.map(0x1000, 0x3000, RW).unwrap();
        m.store_u8(0x1000, 1).unwrap();
        m.store_u8(0x2000, 2).unwrap();
        m.store_u8(0x3fff, 3).unwrap();
        m.unmap(0x2000, 0x1000);
        assert_eq!(m.load_u8(0x2000), Err(0x2000));
        assert_eq!(m.load_u8(0x1000).unwrap(), 1);
        assert_eq!(m.load_u8(0x3fff).unwrap(), 3);
        m.map(0x1800, 0x1000, RW).unwrap();
        assert_eq!(m.load_u8(0x1000).unwrap(), 1);
        assert_eq!(m.load_u8(0x1800).unwrap(), 0);
        assert!(m.is_mapped(0x27ff, 1));
        assert!(!m.is_mapped(0x2800, 0x800));
        assert!(m.map(u64::MAX - 4, 16, RW).is_err());
    }

    #[test]
    fn the_limit_bounds_mapped_bytes() {
        let mut m = Memory::with_limit(0x3000);
        m.map(0x1000, 0x2000, RW).unwrap();
        assert_eq!(m.map(0x10000, 0x2000, RW), Err(MemFault { addr: 0x10000 }));
        m.map(0x10000, 0x1000, RW).unwrap();
        assert_eq!(m.mapped_bytes(), 0x3000);
        assert_eq!(m.memory_use(), Some((0x3000, 0x3000)));
        // Replacing mapped bytes does not count them twice.
        m.map(0x1000, 0x2000, RO).unwrap();
        m.unmap(0x1800, 0x800);
        assert_eq!(m.mapped_bytes(), 0x2800);
        m.map(0x20000, 0x800, RW).unwrap();
        assert!(Memory::new().memory_use().is_none());
    }

    #[test]
    fn a_terabyte_costs_only_the_touched_pages() {
        // Mapping is lazy and splitting keeps the bytes in place: a 1 TiB
        // region split around a page in its middle keeps every value.
        let mut m = Memory::new();
        let (base, len) = (1u64 << 40, 1u64 << 40);
        m.map(base, len, RW).unwrap();
        for k in 0..64u64 {
            m.store_u64(base + k * (len / 64), k + 1).unwrap();
        }
        m.protect(base + len / 2, 0x1000, RO).unwrap();
        m.unmap(base + len / 4 + 0x1000, 0x1000);
        for k in 0..64u64 {
            assert_eq!(m.load_u64(base + k * (len / 64)).unwrap(), k + 1);
        }
        assert_eq!(m.regions().len(), 4);
        assert_eq!(m.mapped_bytes(), len - 0x1000);
    }

    #[test]
    fn writes_to_code_lines_are_reported() {
        let mut m = Memory::new();
        m.map(
            0x8000_0000,
            0x1000,
            Perm {
                read: true,
                write: true,
                exec: true,
            },
        )
        .unwrap();
        m.store_u32(0x8000_0100, 1).unwrap();
        assert!(!m.has_code_writes());
        m.mark_code(0x8000_0100, 4);
        m.store_u32(0x8000_0140, 1).unwrap(); // other line
        assert!(!m.has_code_writes());
        m.store_u16(0x8000_0104, 1).unwrap(); // past the marked extent
        assert!(!m.has_code_writes());
        m.mark_code(0x8000_0130, 4); // extent now 0x100..0x134
        m.store_u16(0x8000_0120, 1).unwrap(); // inside the extent, in a marked line
        assert_eq!(m.take_code_writes(), vec![(0x8000_0120, 2)]);
        m.store_u16(0x8000_00ff, 1).unwrap(); // straddles into the code
        assert_eq!(m.take_code_writes(), vec![(0x8000_00ff, 2)]);
        m.write(0x8000_0102, &[1, 2]).unwrap();
        assert_eq!(m.take_code_writes(), vec![(0x8000_0102, 2)]);
        m.unmark_code_line(0x8000_0100 >> 6);
        m.store_u32(0x8000_0100, 1).unwrap();
        assert!(!m.has_code_writes());
    }

    /// Three regions in turn: every access after the first round hits one
    /// of the three cache entries, and a store into code through the third
    /// entry is still reported.
    #[test]
    fn three_regions_in_turn() {
        let mut m = Memory::new();
        let rwx = Perm {
            read: true,
            write: true,
            exec: true,
        };
        m.map(0x1000, 0x100, rwx).unwrap();
        m.map(0x3000, 0x100, RW).unwrap();
        m.map(0x5000, 0x100, RW).unwrap();
        for round in 0..4u64 {
            for (k, base) in [0x1000u64, 0x3000, 0x5000].into_iter().enumerate() {
                let a = base + 8 * round;
                m.store_u64(a, round * 10 + k as u64).unwrap();
            }
            for (k, base) in [0x1000u64, 0x3000, 0x5000].into_iter().enumerate() {
                assert_eq!(m.load_u64(base + 8 * round).unwrap(), round * 10 + k as u64);
                // Narrow and straddling-the-end reads through the same entries.
                assert_eq!(
                    m.load_u8(base + 8 * round).unwrap() as u64,
                    round * 10 + k as u64
                );
            }
        }
        assert_eq!(m.load_u32(0x50fe), Err(0x5100));
        m.mark_code(0x1040, 4);
        for base in [0x3000u64, 0x5000, 0x1040, 0x3000, 0x5000, 0x1040] {
            m.store_u32(base, 7).unwrap();
        }
        assert_eq!(
            m.take_code_writes(),
            vec![(0x1040, 4), (0x1040, 4)],
            "every store into the code line is reported"
        );
        assert_eq!(m.store_u32(0x30fe, 1), Err(0x3100));
    }
}
