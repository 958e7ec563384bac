//! The IPC events of shares, made once and used again: creating an
//! interprocess event, getting its handle and opening it in another
//! process each cost more than the memory's own IPC calls.
//!
//! - **Exporter.** A share takes an event of its device's pool (made, with
//!   its handle, when the pool has none), records it, and gives it back
//!   when the share finishes, when no process can open the share any more
//!   (its ledger closed). A later share records it again.
//! - **Importer.** The events it opened are kept by their handle and their
//!   exporter. An event opened again for a later share is the same event:
//!   a wait on it waits for its latest recording, the later share's, as a
//!   wait on the first share's did; an earlier opener's wait, already
//!   queued, is not affected by a later recording. The events of exporters
//!   that are gone are dropped at the next first open.
//!
//! Never recording an event of a live share again is what makes this
//! safe: were two live shares to use one event, an opener of the first
//! would wait for the second's recording, which may come after the
//! exporter's stream waits for that very opener (a deadlock).

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use hip_core::{Device, Event, IpcEventHandle};
use hip_sys::shared::ipc::process_alive;
use hip_sys::sync::MutexExt;

use crate::error::Result;

/// An exporter's event with its handle, taken from its device's pool.
pub(crate) struct SharedEvent {
    pub event: Event,
    pub handle: IpcEventHandle,
    /// [`Stream::id`](hip_core::Stream::id) of the stream its latest
    /// recording was on: where that stream is idle, the recording is done.
    pub recorded_on: Option<u64>,
}

/// Each device's events free to record again.
static FREE: Mutex<Vec<SharedEvent>> = Mutex::new(Vec::new());

impl SharedEvent {
    /// An event of `device`'s pool, or a new one.
    pub fn take(device: Device) -> Result<SharedEvent> {
        let pooled = {
            let mut free = FREE.lock_unpoisoned();
            let found = free.iter().rposition(|shared| shared.event.device() == device);
            found.map(|at| free.swap_remove(at))
        };
        if let Some(pooled) = pooled {
            return Ok(pooled);
        }
        let event = Event::interprocess_on(device)?;
        let handle = event.ipc_handle()?;
        Ok(SharedEvent { event, handle, recorded_on: None })
    }

    /// Back to the pool, for a later share to record, once no process can
    /// open this one's share any more. (One that drops instead is
    /// destroyed: a share that failed.)
    pub fn give_back(self) {
        FREE.lock_unpoisoned().push(self);
    }
}

/// Who made an opened event, and its handle.
type Key = (u32, Device, [u8; 64]);

/// The events this process opened, by exporter and handle.
static OPENED: Mutex<Option<HashMap<Key, Arc<Event>>>> = Mutex::new(None);

/// The event of `handle`, made by process `exporter`, opened on `device`
/// (at its first open from there).
pub(crate) fn open(exporter: u32, device: Device, handle: &IpcEventHandle) -> Result<Arc<Event>> {
    let key = (exporter, device, handle.0);
    let mut opened = OPENED.lock_unpoisoned();
    let opened = opened.get_or_insert_with(HashMap::new);
    if let Some(event) = opened.get(&key) {
        return Ok(Arc::clone(event));
    }
    opened.retain(|(pid, ..), _| process_alive(*pid));
    let event = Arc::new(Event::open_ipc(device, handle)?);
    opened.insert(key, Arc::clone(&event));
    Ok(event)
}
