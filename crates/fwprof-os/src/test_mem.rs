//! An in-memory [`GuestMemory`] for tests: a list of regions, each with one
//! permission, split as needed by `map`, `unmap` and `protect`.

use crate::{GuestMemory, MemFault, Perm};

#[derive(Debug, Clone)]
struct Region {
    start: u64,
    data: Vec<u8>,
    perm: Perm,
}

impl Region {
    fn end(&self) -> u64 {
        self.start + self.data.len() as u64
    }
}

/// Vec-of-regions guest memory.
#[derive(Debug, Default, Clone)]
pub(crate) struct TestMem {
    regions: Vec<Region>,
}

impl TestMem {
    pub fn new() -> Self {
        Self::default()
    }

    /// Remove `[s, e)` from every region, keeping the outside parts.
    fn cut(&mut self, s: u64, e: u64) {
        let mut out = Vec::new();
        for r in self.regions.drain(..) {
            if r.end() <= s || r.start >= e {
                out.push(r);
                continue;
            }
            if r.start < s {
                out.push(Region {
                    start: r.start,
                    data: r.data[..(s - r.start) as usize].to_vec(),
                    perm: r.perm,
                });
            }
            if r.end() > e {
                out.push(Region {
                    start: e,
                    data: r.data[(e - r.start) as usize..].to_vec(),
                    perm: r.perm,
                });
            }
        }
        self.regions = out;
    }

    fn find(&self, addr: u64) -> Option<usize> {
        self.regions
            .iter()
            .position(|r| r.start <= addr && addr < r.end())
    }

    /// The permission at `addr`, if mapped.
    pub fn perm_at(&self, addr: u64) -> Option<Perm> {
        self.find(addr).map(|i| self.regions[i].perm)
    }

    /// Read ignoring permissions (test inspection).
    pub fn peek(&self, addr: u64, len: usize) -> Vec<u8> {
        (0..len as u64)
            .map(|i| {
                let a = addr + i;
                self.find(a).map_or(0xee, |r| {
                    self.regions[r].data[(a - self.regions[r].start) as usize]
                })
            })
            .collect()
    }

    pub fn peek_u64(&self, addr: u64) -> u64 {
        u64::from_le_bytes(self.peek(addr, 8).try_into().unwrap())
    }

    pub fn peek_cstr(&self, addr: u64) -> String {
        let mut out = Vec::new();
        let mut a = addr;
        loop {
            let b = self.peek(a, 1)[0];
            if b == 0 {
                break;
            }
            out.push(b);
            a += 1;
        }
        String::from_utf8(out).unwrap()
    }
}

impl GuestMemory for TestMem {
    fn read(&mut self, addr: u64, buf: &mut [u8]) -> Result<(), MemFault> {
        let mut i = 0usize;
        while i < buf.len() {
            let a = addr.checked_add(i as u64).ok_or(MemFault { addr })?;
            let r = self.find(a).ok_or(MemFault { addr: a })?;
            let reg = &self.regions[r];
            if !reg.perm.read {
                return Err(MemFault { addr: a });
            }
            let off = (a - reg.start) as usize;
            let n = (reg.data.len() - off).min(buf.len() - i);
            buf[i..i + n].copy_from_slice(&reg.data[off..off + n]);
            i += n;
        }
        Ok(())
    }

    fn write(&mut self, addr: u64, data: &[u8]) -> Result<(), MemFault> {
        // Check first so a faulting write changes nothing.
        let mut i = 0usize;
        while i < data.len() {
            let a = addr.checked_add(i as u64).ok_or(MemFault { addr })?;
            let r = self.find(a).ok_or(MemFault { addr: a })?;
            if !self.regions[r].perm.write {
                return Err(MemFault { addr: a });
            }
            i += (self.regions[r].end() - a).min((data.len() - i) as u64) as usize;
        }
        let mut i = 0usize;
        while i < data.len() {
            let a = addr + i as u64;
            let r = self.find(a).expect("checked above");
            let reg = &mut self.regions[r];
            let off = (a - reg.start) as usize;
            let n = (reg.data.len() - off).min(data.len() - i);
            reg.data[off..off + n].copy_from_slice(&data[i..i + n]);
            i += n;
        }
        Ok(())
    }

    fn map(&mut self, addr: u64, len: u64, perm: Perm) -> Result<(), MemFault> {
        let end = addr.checked_add(len).ok_or(MemFault { addr })?;
        if len > 1 << 32 {
            return Err(MemFault { addr });
        }
        self.cut(addr, end);
        self.regions.push(Region {
            start: addr,
            data: vec![0; len as usize],
            perm,
        });
        Ok(())
    }

    fn unmap(&mut self, addr: u64, len: u64) {
        self.cut(addr, addr.saturating_add(len));
    }

    fn protect(&mut self, addr: u64, len: u64, perm: Perm) -> Result<(), MemFault> {
        let end = addr.checked_add(len).ok_or(MemFault { addr })?;
        let mut a = addr;
        while a < end {
            let r = self.find(a).ok_or(MemFault { addr: a })?;
            a = self.regions[r].end();
        }
        let pieces: Vec<Region> = self
            .regions
            .iter()
            .filter(|r| r.start < end && r.end() > addr)
            .map(|r| {
                let s = r.start.max(addr);
                let e = r.end().min(end);
                Region {
                    start: s,
                    data: r.data[(s - r.start) as usize..(e - r.start) as usize].to_vec(),
                    perm,
                }
            })
            .collect();
        self.cut(addr, end);
        self.regions.extend(pieces);
        Ok(())
    }

    fn is_mapped(&self, addr: u64, len: u64) -> bool {
        let end = addr.saturating_add(len);
        self.regions.iter().any(|r| r.start < end && r.end() > addr)
    }
}
