//! Fuzz `fwprof_os::load` with arbitrary bytes: it must return an error or
//! a program, never panic, for both targets.
#![no_main]

use std::collections::BTreeMap;

use fwprof_os::{load, GuestMemory, MemFault, Perm, RunConfig, Sandbox, Target};
use libfuzzer_sys::fuzz_target;

/// Sparse page memory; refuses mappings over 64 MiB to keep runs cheap.
#[derive(Default)]
struct Pages {
    pages: BTreeMap<u64, (Box<[u8; 4096]>, Perm)>,
}

impl Pages {
    fn each(&mut self, addr: u64, len: usize, write: bool, mut f: impl FnMut(&mut [u8], usize)) -> Result<(), MemFault> {
        let mut done = 0usize;
        while done < len {
            let a = addr.checked_add(done as u64).ok_or(MemFault { addr })?;
            let (page, perm) = self.pages.get_mut(&(a & !4095)).ok_or(MemFault { addr: a })?;
            if (write && !perm.write) || (!write && !perm.read) {
                return Err(MemFault { addr: a });
            }
            let off = (a & 4095) as usize;
            let n = (4096 - off).min(len - done);
            f(&mut page[off..off + n], done);
            done += n;
        }
        Ok(())
    }
}

impl GuestMemory for Pages {
    fn read(&mut self, addr: u64, buf: &mut [u8]) -> Result<(), MemFault> {
        let len = buf.len();
        self.each(addr, len, false, |p, at| buf[at..at + p.len()].copy_from_slice(p))
    }
    fn write(&mut self, addr: u64, data: &[u8]) -> Result<(), MemFault> {
        self.each(addr, data.len(), true, |p, at| {
            let n = p.len();
            p.copy_from_slice(&data[at..at + n])
        })
    }
    fn map(&mut self, addr: u64, len: u64, perm: Perm) -> Result<(), MemFault> {
        let end = addr.checked_add(len).ok_or(MemFault { addr })?;
        if len > 64 << 20 {
            return Err(MemFault { addr });
        }
        let mut p = addr & !4095;
        while p < end {
            self.pages.insert(p, (Box::new([0; 4096]), perm));
            p += 4096;
        }
        Ok(())
    }
    fn unmap(&mut self, addr: u64, len: u64) {
        let end = addr.saturating_add(len);
        let keys: Vec<u64> = self.pages.range(addr & !4095..end).map(|(k, _)| *k).collect();
        for k in keys {
            self.pages.remove(&k);
        }
    }
    fn protect(&mut self, addr: u64, len: u64, perm: Perm) -> Result<(), MemFault> {
        let end = addr.checked_add(len).ok_or(MemFault { addr })?;
        let mut p = addr & !4095;
        while p < end {
            self.pages.get_mut(&p).ok_or(MemFault { addr: p })?.1 = perm;
            p += 4096;
        }
        Ok(())
    }
    fn is_mapped(&self, addr: u64, len: u64) -> bool {
        self.pages.range(addr & !4095..addr.saturating_add(len)).next().is_some()
    }
}

fuzz_target!(|data: &[u8]| {
    for target in [None, Some(Target::Linux), Some(Target::BareMetal)] {
        let cfg = RunConfig {
            program: "fuzz".into(),
            args: vec!["a".into()],
            env: vec!["K=V".into()],
            target,
            ram: (0x8000_0000, 1 << 20),
            sandbox: Sandbox::default(),
            machine: Default::default(),
        };
        let mut mem = Pages::default();
        let _ = load(data, &cfg, &mut mem);
    }
});
