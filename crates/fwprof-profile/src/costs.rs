//! Per-address self costs, stored as parallel vectors.

use serde::{Deserialize, Serialize};

use crate::error::Error;
use crate::model::FunctionId;

/// One instruction address and its self cost (the owned form used to build
/// [`AddressCosts`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AddressCost {
    /// Instruction address.
    pub addr: u64,
    /// Function the address belongs to.
    pub function: FunctionId,
    /// Instruction length in bytes: 2 (RVC) or 4.
    pub len: u8,
    /// Raw instruction bits (low 16 bits for RVC) so reports can
    /// disassemble without the ELF.
    pub raw: u32,
    /// Self cost per event.
    pub cost: Vec<u64>,
}

/// A borrowed view of one entry of [`AddressCosts`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AddressCostRef<'a> {
    /// Instruction address.
    pub addr: u64,
    /// Function the address belongs to.
    pub function: FunctionId,
    /// Instruction length in bytes: 2 or 4.
    pub len: u8,
    /// Raw instruction bits.
    pub raw: u32,
    /// Self cost per event (`events` entries).
    pub cost: &'a [u64],
}

/// Self cost per instruction address, sorted by strictly increasing
/// `(address, function)`: an address appears once per function that has
/// code there, which is more than once only when address spaces (see the
/// `address_spaces` section) hold different code at the same virtual
/// address.
///
/// Stored column-wise: `addrs[i]`, `functions[i]`, `lens[i]`, `raws[i]`
/// describe entry `i` and `costs[i * events .. (i + 1) * events]` is its
/// cost vector. Only addresses that executed at least once appear.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct AddressCosts {
    events: u32,
    addrs: Vec<u64>,
    functions: Vec<FunctionId>,
    lens: Vec<u8>,
    raws: Vec<u32>,
    costs: Vec<u64>,
}

impl AddressCosts {
    /// An empty table for cost vectors of `events` entries.
    pub fn new(events: usize) -> AddressCosts {
        AddressCosts {
            events: events as u32,
            ..AddressCosts::default()
        }
    }

    /// Number of events per cost vector.
    pub fn events(&self) -> usize {
        self.events as usize
    }

    /// Number of addresses.
    pub fn len(&self) -> usize {
        self.addrs.len()
    }

    /// True if no address has a cost.
    pub fn is_empty(&self) -> bool {
        self.addrs.is_empty()
    }

    /// Appends an entry.
    ///
    /// Errors with [`Error::Inconsistent`] if `(c.addr, c.function)` is not
    /// above the last entry's, `c.cost` has the wrong length or `c.len` is
    /// not 2 or 4.
    pub fn push(&mut self, c: AddressCost) -> Result<(), Error> {
        let last = self.addrs.last().zip(self.functions.last());
        if last.is_some_and(|(&a, &f)| (c.addr, c.function) <= (a, f)) {
            return Err(Error::Inconsistent(format!(
                "address {:#x} pushed out of order",
                c.addr
            )));
        }
        if c.cost.len() != self.events() {
            return Err(Error::Inconsistent(format!(
                "cost vector of {} entries for {} events",
                c.cost.len(),
                self.events
            )));
        }
        if c.len != 2 && c.len != 4 {
            return Err(Error::Inconsistent(format!("instruction length {}", c.len)));
        }
        self.addrs.push(c.addr);
        self.functions.push(c.function);
        self.lens.push(c.len);
        self.raws.push(c.raw);
        self.costs.extend_from_slice(&c.cost);
        Ok(())
    }

    /// Entry `i` (in address order), or `None` if out of range.
    pub fn get(&self, i: usize) -> Option<AddressCostRef<'_>> {
        let n = self.events();
        Some(AddressCostRef {
            addr: *self.addrs.get(i)?,
            function: *self.functions.get(i)?,
            len: *self.lens.get(i)?,
            raw: *self.raws.get(i)?,
            cost: self.costs.get(i * n..(i + 1) * n)?,
        })
    }

    /// All entries in address order.
    pub fn iter(&self) -> impl Iterator<Item = AddressCostRef<'_>> + '_ {
        (0..self.len()).filter_map(move |i| self.get(i))
    }

    /// The entry for exactly `addr` (binary search); the first one, of
    /// the lowest function id, when several functions have code there
    /// (different address spaces: see the `address_spaces` section).
    pub fn find(&self, addr: u64) -> Option<AddressCostRef<'_>> {
        let i = self.addrs.partition_point(|&a| a < addr);
        if self.addrs.get(i) != Some(&addr) {
            return None;
        }
        self.get(i)
    }

    /// Entries with `start <= addr < end`, in address order.
    pub fn range(&self, start: u64, end: u64) -> impl Iterator<Item = AddressCostRef<'_>> + '_ {
        let lo = self.addrs.partition_point(|&a| a < start);
        let hi = self.addrs.partition_point(|&a| a < end).max(lo);
        (lo..hi).filter_map(move |i| self.get(i))
    }

    /// Checks the column lengths and ordering; used when reading a file.
    pub(crate) fn check_shape(&self, events: usize, functions: usize) -> Result<(), String> {
        let n = self.addrs.len();
        if self.events() != events {
            return Err(format!(
                "address costs have {} events, profile {}",
                self.events, events
            ));
        }
        if self.functions.len() != n || self.lens.len() != n || self.raws.len() != n {
            return Err("address cost columns differ in length".into());
        }
        if Some(self.costs.len()) != n.checked_mul(events) {
            return Err("address cost vector has the wrong length".into());
        }
        let increasing = self
            .addrs
            .windows(2)
            .zip(self.functions.windows(2))
            .all(|(a, f)| (a[0], f[0]) < (a[1], f[1]));
        if !increasing {
            return Err("addresses are not strictly increasing".into());
        }
        if let Some(f) = self.functions.iter().find(|f| f.index() >= functions) {
            return Err(format!(
                "address cost names function {} of {}",
                f.0, functions
            ));
        }
        if let Some(l) = self.lens.iter().find(|&&l| l != 2 && l != 4) {
            return Err(format!("instruction length {l}"));
        }
        Ok(())
    }
}
