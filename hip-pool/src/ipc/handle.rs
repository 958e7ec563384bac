//! [`IpcHandle`]: what another process needs to open a shared buffer, as
//! plain bytes.

use super::ledger::Place;
use crate::error::{PoolError, Result};

/// The first bytes of a handle (and its format's version: 2 adds the
/// ledger's slot and generation, and the chunks of expandable memory).
const MAGIC: &[u8; 8] = b"AMDGPU2\0";
/// The first bytes of a handle of an earlier format.
const EARLIER: &[u8; 6] = b"AMDGPU";
/// The longest ledger name a handle carries.
const MAX_NAME: usize = 64;

/// The most chunks one handle names (1.25 GiB of 20 MiB chunks): more
/// descriptors than that would outgrow what a process may keep open.
pub(crate) const MAX_CHUNKS: usize = 64;

/// What a handle's memory is.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Memory {
    /// HIP's IPC handle of the allocation (`hipIpcGetMemHandle`).
    Allocation([u8; 64]),
    /// Chunks of an expandable pool's segment, each `chunk` bytes: the
    /// exporter's descriptors of them (`hipMemExportToShareableHandle`),
    /// one after another, which the opener takes from the exporting
    /// process, which started at `started` (ticks since boot).
    Chunks { chunk: u64, started: u64, descriptors: Vec<i32> },
}

/// A shared buffer's handle ([`share`](super::share)): HIP's handle of
/// its memory (or, for an expandable pool's buffer, descriptors of its
/// chunks), HIP's handle of its event, where the buffer lies in that
/// memory, its device, and the ledger importers join. Send it to the
/// other process as [`IpcHandle::to_bytes`] (a file, a pipe, a socket)
/// and read it there with [`IpcHandle::from_bytes`].
#[derive(Clone, PartialEq, Eq)]
pub struct IpcHandle {
    pub(crate) memory: Memory,
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
        let mut out = Vec::with_capacity(8 + 1 + 64 + 64 + 36 + 1 + self.ledger.file.len());
        out.extend_from_slice(MAGIC);
        match &self.memory {
            Memory::Allocation(bytes) => {
                out.push(0);
                out.extend_from_slice(bytes);
            }
            Memory::Chunks { chunk, started, descriptors } => {
                out.push(1);
                out.extend_from_slice(&chunk.to_le_bytes());
                out.extend_from_slice(&started.to_le_bytes());
                out.push(descriptors.len() as u8);
                for fd in descriptors {
                    out.extend_from_slice(&fd.to_le_bytes());
                }
            }
        }
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
    /// (wrong length, magic, kind or name), or a handle of an earlier
    /// version of this library.
    pub fn from_bytes(bytes: &[u8]) -> Result<IpcHandle> {
        let bad = |why: &str| PoolError::Ipc(format!("these {} bytes are no IPC handle: {why}", bytes.len()));
        let Some(rest) = bytes.strip_prefix(MAGIC) else {
            return Err(if bytes.starts_with(EARLIER) {
                bad("they are a handle of an earlier version of this library: use one version in both processes")
            } else {
                bad("they do not start with this format's mark")
            });
        };
        let mut reader = Reader(rest);
        let short = || bad("too short");
        let memory = match reader.take::<1>().ok_or_else(short)? {
            [0] => Memory::Allocation(reader.take::<64>().ok_or_else(short)?),
            [1] => {
                let chunk = u64::from_le_bytes(reader.take().ok_or_else(short)?);
                let started = u64::from_le_bytes(reader.take().ok_or_else(short)?);
                let [count] = reader.take::<1>().ok_or_else(short)?;
                let descriptors: Option<Vec<i32>> = (0..count).map(|_| reader.take().map(i32::from_le_bytes)).collect();
                let descriptors = descriptors.ok_or_else(short)?;
                if chunk == 0 || descriptors.is_empty() || descriptors.len() > MAX_CHUNKS {
                    return Err(bad("a bad list of chunks"));
                }
                Memory::Chunks { chunk, started, descriptors }
            }
            _ => return Err(bad("an unknown kind of memory")),
        };
        let event = reader.take::<64>().ok_or_else(short)?;
        let word = |r: &mut Reader<'_>| r.take().map(u64::from_le_bytes).ok_or_else(short);
        let (offset, len) = (word(&mut reader)?, word(&mut reader)?);
        let half = |r: &mut Reader<'_>| r.take().map(u32::from_le_bytes).ok_or_else(short);
        let (device, pid, slot) = (half(&mut reader)?, half(&mut reader)?, half(&mut reader)?);
        let generation = word(&mut reader)?;
        let [name_len] = reader.take::<1>().ok_or_else(short)?;
        let name = (reader.0.len() == usize::from(name_len) && usize::from(name_len) <= MAX_NAME).then_some(reader.0);
        let file = name.and_then(|n| String::from_utf8(n.to_vec()).ok()).ok_or_else(|| bad("a bad ledger name"))?;
        Ok(IpcHandle { memory, event, offset, len, device, pid, ledger: Place { file, slot, generation } })
    }
}

/// Bytes read from the front.
struct Reader<'a>(&'a [u8]);

impl Reader<'_> {
    /// The next `N` bytes, or `None` past the end.
    fn take<const N: usize>(&mut self) -> Option<[u8; N]> {
        let (first, rest) = self.0.split_first_chunk::<N>()?;
        self.0 = rest;
        Some(*first)
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
        let chunks = IpcHandle {
            memory: Memory::Chunks { chunk: 20 << 20, started: 1234, descriptors: vec![5, 9, 12] },
            event: [3; 64],
            offset: 4096,
            len: 1 << 30,
            device: 0,
            pid: 78,
            ledger: Place { file: "amdgpu-ipc-78-0".into(), slot: 0, generation: 1 },
        };
        assert_eq!(IpcHandle::from_bytes(&chunks.to_bytes()).unwrap(), chunks);
        let handle = IpcHandle {
            memory: Memory::Allocation([1; 64]),
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
        let mut unknown = bytes.clone();
        unknown[8] = 2;
        assert!(IpcHandle::from_bytes(&unknown).unwrap_err().to_string().contains("unknown kind"));
        let mut none = chunks.to_bytes();
        none[25] = 0;
        assert!(IpcHandle::from_bytes(&none).is_err(), "no chunks");
        let earlier = [&b"AMDGPU1\0"[..], &bytes[8..]].concat();
        let refused = IpcHandle::from_bytes(&earlier).unwrap_err().to_string();
        assert!(refused.contains("earlier version"), "{refused}");
    }
}
