//! [`UniqueId`]: what the ranks of many processes join by, handed from
//! rank 0 to the others by file or environment.

use super::raw;
use crate::{LibError, Result};
use hip_sys::rccl::{ncclUniqueId, NCCL_UNIQUE_ID_BYTES};
use std::fmt;
use std::path::Path;
use std::str::FromStr;
use std::time::{Duration, Instant};

const BYTES: usize = NCCL_UNIQUE_ID_BYTES as usize;

/// The id of a communicator being made (`ncclUniqueId`, 128 bytes): one
/// rank makes it with [`UniqueId::new`], every rank passes it to
/// [`Communicator::init_rank`](super::Communicator::init_rank).
///
/// It is plain data. As text ([`Display`](fmt::Display),
/// [`FromStr`]) it is 256 hexadecimal digits, for an environment variable
/// or a file; [`write_file`](UniqueId::write_file) and
/// [`read_file`](UniqueId::read_file) hand it over through a shared file
/// system, the pattern of `torchrun`'s rendezvous. NCCL's id carries the
/// address rank 0 listens on, so it is valid for one communicator.
///
/// # Examples
/// ```
/// use hip_libs::collective::UniqueId;
/// # if !hip_libs::available(hip_libs::Library::Rccl) { return Ok(()); }
/// let id = UniqueId::new()?;
/// let text = id.to_string();
/// assert_eq!(text.parse::<UniqueId>()?, id);
/// # Ok::<(), hip_libs::LibError>(())
/// ```
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct UniqueId(pub(crate) [u8; BYTES]);

impl UniqueId {
    /// A new id (`ncclGetUniqueId`). On NCCL this opens the bootstrap
    /// socket of rank 0, so call it in the process of rank 0.
    ///
    /// # Errors
    /// [`LibError::Unavailable`] without RCCL (or NCCL on nvidia);
    /// [`LibError::Collective`] if the library refuses.
    #[doc(alias = "ncclGetUniqueId")]
    pub fn new() -> Result<UniqueId> {
        let api = raw::api()?;
        let mut id = ncclUniqueId::default();
        // SAFETY: a valid out-pointer.
        let result = unsafe { raw::get_unique_id(api, &mut id) };
        raw::check(api, result, "ncclGetUniqueId", std::ptr::null_mut())?;
        Ok(UniqueId(id.internal.map(|c| c as u8)))
    }

    /// The id as NCCL's bytes.
    pub fn to_bytes(&self) -> [u8; BYTES] {
        self.0
    }

    /// An id from NCCL's bytes.
    pub fn from_bytes(bytes: [u8; BYTES]) -> UniqueId {
        UniqueId(bytes)
    }

    pub(crate) fn raw(&self) -> ncclUniqueId {
        ncclUniqueId { internal: self.0.map(|b| b as std::ffi::c_char) }
    }

    /// Write the id to `path` as text, atomically (a temporary file in the
    /// same folder, then renamed), so a reader never sees half of it.
    ///
    /// # Errors
    /// [`LibError::InvalidInput`] naming the path and the I/O error.
    pub fn write_file(&self, path: impl AsRef<Path>) -> Result<()> {
        let path = path.as_ref();
        let temporary = path.with_extension(format!("partial-{}", std::process::id()));
        let io = |e: std::io::Error, what: &Path| {
            LibError::invalid("UniqueId::write_file", format!("cannot write {}: {e}", what.display()))
        };
        std::fs::write(&temporary, self.to_string()).map_err(|e| io(e, &temporary))?;
        std::fs::rename(&temporary, path).map_err(|e| io(e, path))
    }

    /// Read an id that [`write_file`](UniqueId::write_file) wrote to
    /// `path`, waiting up to `timeout` for the file to appear (for as long
    /// as it takes when `timeout` reaches past what an `Instant` holds,
    /// such as `Duration::MAX`).
    ///
    /// # Errors
    /// [`LibError::InvalidInput`] if the file is still missing after
    /// `timeout`, cannot be read, or does not hold an id.
    pub fn read_file(path: impl AsRef<Path>, timeout: Duration) -> Result<UniqueId> {
        let path = path.as_ref();
        let deadline = Instant::now().checked_add(timeout);
        loop {
            match std::fs::read_to_string(path) {
                Ok(text) => return text.parse(),
                Err(e) if e.kind() == std::io::ErrorKind::NotFound && deadline.is_none_or(|d| Instant::now() < d) => {
                    std::thread::sleep(Duration::from_millis(20));
                }
                Err(e) => {
                    return Err(LibError::invalid(
                        "UniqueId::read_file",
                        format!(
                            "cannot read {} ({e}) after waiting {timeout:?}: rank 0 writes it with \
                             UniqueId::write_file",
                            path.display()
                        ),
                    ))
                }
            }
        }
    }

    /// The id in the environment variable `name` (as text).
    ///
    /// # Errors
    /// [`LibError::InvalidInput`] if it is unset or not an id.
    pub fn from_env(name: &str) -> Result<UniqueId> {
        let text = std::env::var(name).map_err(|_| {
            LibError::invalid("UniqueId::from_env", format!("{name} is not set: rank 0 makes the id (UniqueId::new)"))
        })?;
        text.parse()
    }
}

impl fmt::Display for UniqueId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.iter().try_for_each(|b| write!(f, "{b:02x}"))
    }
}

impl fmt::Debug for UniqueId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // The first bytes say what kind of id it is; the rest is noise.
        write!(f, "UniqueId(")?;
        self.0[..8].iter().try_for_each(|b| write!(f, "{b:02x}"))?;
        write!(f, "…)")
    }
}

impl FromStr for UniqueId {
    type Err = LibError;

    fn from_str(text: &str) -> Result<UniqueId> {
        let text = text.trim();
        let bad = |why: String| LibError::invalid("UniqueId::from_str", why);
        if text.len() != 2 * BYTES {
            return Err(bad(format!("{} characters, an id is {} hexadecimal digits", text.len(), 2 * BYTES)));
        }
        let mut bytes = [0u8; BYTES];
        for (i, byte) in bytes.iter_mut().enumerate() {
            let pair = text.get(2 * i..2 * i + 2).ok_or_else(|| bad("not ASCII".into()))?;
            *byte =
                u8::from_str_radix(pair, 16).map_err(|_| bad(format!("{pair:?} at {} is not hexadecimal", 2 * i)))?;
        }
        Ok(UniqueId(bytes))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_round_trips_and_refuses_what_is_not_an_id() {
        let mut bytes = [0u8; BYTES];
        bytes.iter_mut().enumerate().for_each(|(i, b)| *b = (i * 7) as u8);
        let id = UniqueId::from_bytes(bytes);
        let text = id.to_string();
        assert_eq!(text.len(), 256);
        assert_eq!(text.parse::<UniqueId>().expect("parses"), id);
        assert!(text[..10].parse::<UniqueId>().is_err());
        let mut bad = text.clone();
        bad.replace_range(0..2, "zz");
        let err = bad.parse::<UniqueId>().expect_err("not hex").to_string();
        assert!(err.contains("\"zz\" at 0"), "{err}");
    }

    #[test]
    fn a_file_hands_the_id_over() {
        let dir = std::env::temp_dir().join(format!("amdgpu-id-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("temp dir");
        let path = dir.join("id");
        let id = UniqueId::from_bytes([9; BYTES]);
        let reader = {
            let path = path.clone();
            std::thread::spawn(move || UniqueId::read_file(path, Duration::from_secs(10)))
        };
        std::thread::sleep(Duration::from_millis(50));
        id.write_file(&path).expect("written");
        assert_eq!(reader.join().expect("reader").expect("read"), id);
        let missing = UniqueId::read_file(dir.join("none"), Duration::from_millis(30)).expect_err("missing");
        assert!(missing.to_string().contains("UniqueId::write_file"), "{missing}");
        let _ = std::fs::remove_dir_all(&dir);
    }
}
