//! Memory limits: parsed from `AMDGPU_HARD_MEMORY_LIMIT` and
//! `AMDGPU_SOFT_MEMORY_LIMIT` (or set through the API), checked before the
//! driver is asked for memory.

use crate::error::{PoolError, Result};

/// A memory limit.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Limit {
    /// No limit.
    #[default]
    None,
    /// A number of bytes.
    Bytes(usize),
    /// A percentage (0-100] of the device's total memory.
    Percent(u8),
}

impl Limit {
    /// Parse `"8GiB"`, `"512MB"`, `"4096"`, `"50%"` or `"none"`
    /// (case-insensitive); `variable` names the source in errors.
    ///
    /// # Errors
    /// [`PoolError::InvalidLimit`] for a percentage that is not a whole
    /// number from 1 to 100, a size that does not parse, or 0 bytes.
    pub fn parse(variable: &str, value: &str) -> Result<Limit> {
        let invalid = |reason: &str| PoolError::InvalidLimit {
            variable: variable.to_string(),
            value: value.to_string(),
            reason: reason.to_string(),
        };
        let text = value.trim();
        if text.eq_ignore_ascii_case("none") || text.is_empty() {
            return Ok(Limit::None);
        }
        if let Some(percent) = text.strip_suffix('%') {
            let p: u8 = percent.trim().parse().map_err(|_| invalid("a percentage must be a whole number"))?;
            if p == 0 || p > 100 {
                return Err(invalid("a percentage must be from 1 to 100"));
            }
            return Ok(Limit::Percent(p));
        }
        let bytes = hip_sys::units::parse_bytes(text).map_err(|e| invalid(&e.to_string()))?;
        if bytes == 0 {
            return Err(invalid("a limit of 0 bytes would refuse every allocation; use \"none\" for no limit"));
        }
        Ok(Limit::Bytes(bytes))
    }

    /// The limit in bytes for a device of `total` bytes.
    pub fn bytes(self, total: usize) -> Option<usize> {
        match self {
            Limit::None => None,
            Limit::Bytes(b) => Some(b),
            Limit::Percent(p) => Some((total as u128 * p as u128 / 100) as usize),
        }
    }

    /// The limit from an environment variable (unset: none).
    ///
    /// # Errors
    /// As [`Limit::parse`]; [`PoolError::InvalidLimit`] also for a value
    /// that is not UTF-8.
    pub fn from_env(variable: &str) -> Result<Limit> {
        match std::env::var(variable) {
            Ok(value) => Limit::parse(variable, &value),
            Err(std::env::VarError::NotPresent) => Ok(Limit::None),
            Err(std::env::VarError::NotUnicode(_)) => Err(PoolError::InvalidLimit {
                variable: variable.to_string(),
                value: "(not UTF-8)".into(),
                reason: "not valid text".into(),
            }),
        }
    }
}

/// The hard and soft limits of one device pool, in bytes.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct Limits {
    pub hard: Option<usize>,
    pub soft: Option<usize>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn limits_parse() {
        assert_eq!(Limit::parse("x", "8GiB").unwrap(), Limit::Bytes(8 << 30));
        assert_eq!(Limit::parse("x", "512MB").unwrap(), Limit::Bytes(512_000_000));
        assert_eq!(Limit::parse("x", " 50% ").unwrap(), Limit::Percent(50));
        assert_eq!(Limit::parse("x", "NONE").unwrap(), Limit::None);
        assert_eq!(Limit::parse("x", "4096").unwrap(), Limit::Bytes(4096));
        assert_eq!(Limit::Percent(50).bytes(1000), Some(500));
    }

    #[test]
    fn bad_limits_say_what_is_wrong() {
        for bad in ["0", "150%", "0%", "-1GiB", "lots", "12XB", "1.5GiB", "99999999999999999999999TiB"] {
            let error = Limit::parse("AMDGPU_HARD_MEMORY_LIMIT", bad).unwrap_err();
            let text = error.to_string();
            assert!(text.contains("AMDGPU_HARD_MEMORY_LIMIT") && text.contains(bad), "{bad}: {text}");
        }
    }
}
