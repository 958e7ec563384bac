//! The runtimes' version numbers, decoded the same way whichever
//! backends are compiled in: HIP's (`major * 10^7 + minor * 10^5 +
//! patch`, on amd and in the simulator) and CUDA's (`1000 * major + 10 *
//! minor`, which HIP on NVIDIA reports too).

use std::ffi::c_int;
use std::fmt;

/// A HIP version as `hipRuntimeGetVersion` reports it:
/// `major * 10^7 + minor * 10^5 + patch`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) struct HipVersion {
    /// Major version.
    pub(crate) major: u32,
    /// Minor version.
    pub(crate) minor: u32,
    /// Patch (build) number.
    pub(crate) patch: u32,
}

impl HipVersion {
    /// Decode HIP's integer encoding; `None` for a negative number.
    pub(crate) fn from_encoded(encoded: i32) -> Option<Self> {
        let v = u32::try_from(encoded).ok()?;
        Some(Self { major: v / 10_000_000, minor: (v / 100_000) % 100, patch: v % 100_000 })
    }

    /// Whether the table's signatures are known to match this version
    /// (5.3, the first with every function of the table, to 7.x).
    pub(crate) fn is_supported(self) -> bool {
        (5..=7).contains(&self.major) && (self.major, self.minor) >= (5, 3)
    }

    /// Whether `hipMemoryType` uses the 6.0 numbering.
    pub(crate) fn renumbered_memory_type(self) -> bool {
        self.major >= 6
    }
}

impl fmt::Display for HipVersion {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}.{}.{}", self.major, self.minor, self.patch)
    }
}

/// A CUDA version number (`1000 * major + 10 * minor`, e.g. 13000) as
/// `(major, minor)`; `None` for a negative number.
pub(crate) fn decode_cuda_version(encoded: c_int) -> Option<(u32, u32)> {
    let v = u32::try_from(encoded).ok()?;
    Some((v / 1000, (v % 1000) / 10))
}
