//! rocFFT's versions, and the rule about inputs that goes with them: the
//! loaded library's own version on amd, the simulated one on the
//! simulator, the rules cuFFT follows on nvidia.

use std::fmt;

/// A rocFFT version, as `rocfft_get_version_string` reports it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct RocfftVersion {
    /// Major version (1 in every ROCm from 5.0 on).
    pub major: u32,
    /// Minor version.
    pub minor: u32,
    /// Patch version (15 in ROCm 5.0 to 36 in ROCm 7.2).
    pub patch: u32,
}

impl RocfftVersion {
    /// The first rocFFT whose out-of-place real forward (R2C) transforms
    /// leave their input intact: 1.0.25, of ROCm 6.0 (its changelog: "Real
    /// forward transforms (real-to-complex) no longer overwrite input").
    pub const R2C_KEEPS_INPUT: RocfftVersion = RocfftVersion::new(1, 0, 25);

    /// The version `major.minor.patch`.
    pub const fn new(major: u32, minor: u32, patch: u32) -> RocfftVersion {
        RocfftVersion { major, minor, patch }
    }

    /// Parse rocFFT's version string (`1.0.27.abcdef`, `1.0.27`).
    pub fn parse(text: &str) -> Option<RocfftVersion> {
        parse_rocfft_version(text).map(|(major, minor, patch)| RocfftVersion { major, minor, patch })
    }

    /// Whether an out-of-place real forward (R2C) transform of this version
    /// may overwrite its input: before 1.0.25. Real inverse (C2R)
    /// transforms may overwrite their input in every version; complex
    /// (C2C) transforms never do, in any 1.0.x.
    ///
    /// The rule goes by the version the library reports, which lagged once:
    /// ROCm 6.0.0's rocFFT reports 1.0.23 (ROCm 5.7's number) although its
    /// R2C transforms already keep their input; for it the rule errs on the
    /// safe side. No release reports 1.0.25 or later and overwrites.
    pub fn r2c_may_overwrite_input(self) -> bool {
        self < RocfftVersion::R2C_KEEPS_INPUT
    }
}

impl fmt::Display for RocfftVersion {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}.{}.{}", self.major, self.minor, self.patch)
    }
}

/// Parse rocFFT's version string (`1.0.27.abcdef`, `1.0.27`) into
/// (major, minor, patch).
pub fn parse_rocfft_version(text: &str) -> Option<(u32, u32, u32)> {
    let mut parts = text.trim().split(['.', '-', ' ']);
    let major = parts.next()?.parse().ok()?;
    let minor = parts.next()?.parse().ok()?;
    let patch = parts.next()?.parse().ok()?;
    Some((major, minor, patch))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rocfft_versions_parse() {
        assert_eq!(parse_rocfft_version("1.0.27.c3a0b8"), Some((1, 0, 27)));
        assert_eq!(parse_rocfft_version("1.0.36"), Some((1, 0, 36)));
        assert_eq!(parse_rocfft_version("garbage"), None);
    }
}
