//! What the ranks of one communicator that live in this process have
//! posted, so that the pool's driver frees wait while a collective on a
//! device waits for a rank of this process (`hip_pool::collective_gate`).
//!
//! Only collectives count (every rank makes each of them, in the same
//! order); sends and receives pair two ranks and are not tracked. Ranks
//! in other processes are not here: a free in this process cannot hold
//! back their launches.

use hip_core::Device;
use hip_sys::sync::MutexExt;
use std::collections::HashMap;
use std::sync::{Arc, Mutex, Weak};

/// The ranks of one communicator in this process: each one's device and
/// how many collectives it has posted (`None` once it is released).
#[derive(Debug, Default)]
pub(crate) struct Book {
    ranks: Mutex<Vec<Option<(Device, u64)>>>,
}

impl Book {
    /// A book of `devices`, local rank `i` on `devices[i]`.
    pub fn of(devices: &[Device]) -> Arc<Book> {
        Arc::new(Book { ranks: Mutex::new(devices.iter().map(|&d| Some((d, 0))).collect()) })
    }

    /// Add a rank on `device`; its local index.
    pub fn join(&self, device: Device) -> usize {
        let mut ranks = self.ranks.lock_unpoisoned();
        ranks.push(Some((device, 0)));
        ranks.len() - 1
    }

    /// Local rank `local` posted a collective.
    pub fn posted(&self, local: usize) {
        let mut ranks = self.ranks.lock_unpoisoned();
        if let Some(Some((_, n))) = ranks.get_mut(local) {
            *n += 1;
        }
        Self::publish(&ranks);
    }

    /// Local rank `local` is released: it no longer holds others back.
    pub fn leave(&self, local: usize) {
        let mut ranks = self.ranks.lock_unpoisoned();
        let device = ranks.get(local).copied().flatten().map(|(d, _)| d);
        if let Some(slot) = ranks.get_mut(local) {
            *slot = None;
        }
        if let Some(d) = device {
            hip_pool::collective_gate::set_waiting(d, false);
        }
        Self::publish(&ranks);
    }

    /// Tell the gate which devices have a collective waiting for a rank
    /// of this process: those of the ranks ahead of the slowest.
    fn publish(ranks: &[Option<(Device, u64)>]) {
        let Some(least) = ranks.iter().flatten().map(|(_, n)| *n).min() else { return };
        let mut ahead: HashMap<Device, bool> = HashMap::new();
        for (device, n) in ranks.iter().flatten() {
            *ahead.entry(*device).or_default() |= *n > least;
        }
        for (device, waiting) in ahead {
            hip_pool::collective_gate::set_waiting(device, waiting);
        }
    }
}

static BY_ID: Mutex<Option<HashMap<[u8; 128], Weak<Book>>>> = Mutex::new(None);

/// The book of the communicator joined by `id` in this process, made if
/// it is the first rank here.
pub(crate) fn by_id(id: &[u8; 128]) -> Arc<Book> {
    let mut map = BY_ID.lock_unpoisoned();
    let map = map.get_or_insert_with(HashMap::new);
    map.retain(|_, w| w.strong_count() > 0);
    if let Some(book) = map.get(id).and_then(Weak::upgrade) {
        return book;
    }
    let book = Arc::new(Book::default());
    map.insert(*id, Arc::downgrade(&book));
    book
}
