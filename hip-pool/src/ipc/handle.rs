//! [`IpcHandle`]: what another process needs to open a shared buffer, as
//! plain bytes.

use super::ledger::Place;
use crate::error::{PoolError, Result};

/// The first bytes of a handle (and its format's version: 2 adds the
/// ledger's slot and generation).
const MAGIC: &[u8; 8] = b"AMDGPU2\0";
/// The first bytes of a handle of an earlier format.
const EARLIER: &[u8; 6] = b"AMDGPU";
/// The longest ledger name a handle carries.
const MAX_NAME: usize = 64;

/// A shared buffer's handle ([`share`](super::share)):
/// HIP's memory and event handles, where the buffer lies in its
/// allocation, its device, and the ledger importers join. Send it to the
/// other process as [`IpcHandle::to_bytes`] (a file, a pipe, a socket)
/// and read it there with [`IpcHandle::from_bytes`].
#[derive(Clone, PartialEq, Eq)]
pub struct IpcHandle {
    pub(crate) memory: [u8; 64],
    pub(crate) event: [u8; 64],
    pub(crate) offset: u64,
    pub(crate) len: u64,
    pub(crate) device: u32,
    pub(crate) pid: u32,
    pub(crate) ledger: Place,
}

impl IpcHandle {
    /// The buffer's bytes.
    pub fn len(&self) -> usize {
        usize::try_from(self.len).unwrap_or(usize::MAX)
    }

    /// Whether the buffer has no bytes (never: empty buffers are not
    /// shared).
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The exporter's device's ordinal.
    pub fn device(&self) -> usize {
        self.device as usize
    }

    /// The exporting process.
    pub fn process(&self) -> u32 {
        self.pid
    }

    /// The handle as bytes, for another process.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(8 + 128 + 36 + 1 + self.ledger.file.len());
        out.extend_from_slice(MAGIC);
        out.extend_from_slice(&self.memory);
        out.extend_from_slice(&self.event);
        out.extend_from_slice(&self.offset.to_le_bytes());
        out.extend_from_slice(&self.len.to_le_bytes());
        out.extend_from_slice(&self.device.to_le_bytes());
        out.extend_from_slice(&self.pid.to_le_bytes());
        out.extend_from_slice(&self.ledger.slot.to_le_bytes());
        out.extend_from_slice(&self.ledger.generation.to_le_bytes());
        out.push(self.ledger.file.len() as u8);
        out.extend_from_slice(self.ledger.file.as_bytes());
        out
    }

    /// Read a handle [`IpcHandle::to_bytes`] wrote.
    ///
    /// # Errors
    /// [`PoolError::Ipc`] for bytes that are no handle of this format
    /// (wrong length, magic or name), or a handle of an earlier version
    /// of this library.
    pub fn from_bytes(bytes: &[u8]) -> Result<IpcHandle> {
        let bad = |why: &str| PoolError::Ipc(format!("these {} bytes are no IPC handle: {why}", bytes.len()));
        let Some(rest) = bytes.strip_prefix(MAGIC) else {
            return Err(if bytes.starts_with(EARLIER) {
                bad("they are a handle of an earlier version of this library: use one version in both processes")
            } else {
                bad("they do not start with this format's mark")
            });
        };
        if rest.len() < 128 + 36 + 1 {
            return Err(bad("too short"));
        }
        let (memory, rest) = rest.split_at(64);
        let (event, rest) = rest.split_at(64);
        let word = |b: &[u8]| u64::from_le_bytes(b.try_into().unwrap_or_default());
        let half = |b: &[u8]| u32::from_le_bytes(b.try_into().unwrap_or_default());
        let (offset, len, device, pid) =
            (word(&rest[..8]), word(&rest[8..16]), half(&rest[16..20]), half(&rest[20..24]));
        let (slot, generation) = (half(&rest[24..28]), word(&rest[28..36]));
        let name_len = usize::from(rest[36]);
        let name = rest.get(37..37 + name_len).filter(|_| rest.len() == 37 + name_len && name_len <= MAX_NAME);
        let file = name.and_then(|n| String::from_utf8(n.to_vec()).ok()).ok_or_else(|| bad("a bad ledger name"))?;
        let ledger = Place { file, slot, generation };
        Ok(IpcHandle {
            memory: memory.try_into().map_err(|_| bad("too short"))?,
            event: event.try_into().map_err(|_| bad("too short"))?,
            offset,
            len,
            device,
            pid,
            ledger,
        })
    }
}

impl std::fmt::Debug for IpcHandle {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "IpcHandle({} bytes of device {} in process {})", self.len, self.device, self.pid)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_handle_reads_back_and_other_bytes_are_errors() {
        let handle = IpcHandle {
            memory: [1; 64],
            event: [2; 64],
            offset: 4096,
            len: 1000,
            device: 1,
            pid: 77,
            ledger: Place { file: "amdgpu-ipc-77-0".into(), slot: 5, generation: 9 },
        };
        let bytes = handle.to_bytes();
        assert_eq!(IpcHandle::from_bytes(&bytes).unwrap(), handle);
        for bad in [&bytes[..100], &bytes[1..], &[bytes.clone(), vec![0]].concat()[..]] {
            assert!(matches!(IpcHandle::from_bytes(bad), Err(PoolError::Ipc(_))));
        }
        let earlier = [&b"AMDGPU1\0"[..], &bytes[8..]].concat();
        let refused = IpcHandle::from_bytes(&earlier).unwrap_err().to_string();
        assert!(refused.contains("earlier version"), "{refused}");
    }
}
