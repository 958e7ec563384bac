//! The simulated machine's configuration: how many devices, how much
//! memory each, and which HIP version it behaves as, from the environment.

use super::addresses::{DEVICE_SPAN, MAX_DEVICES};
use crate::BackendError;

/// Devices and memory of the simulated machine.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SimConfig {
    /// Number of devices.
    pub devices: usize,
    /// Bytes of memory per device.
    pub memory: usize,
    /// The HIP major version whose behaviour is simulated: 5, 6 or 7 (see
    /// `AMDGPU_SIM_HIP_VERSION`).
    pub hip_major: u32,
}

impl Default for SimConfig {
    fn default() -> Self {
        SimConfig { devices: 2, memory: 1 << 30, hip_major: 7 }
    }
}

/// The HIP major versions the simulator can behave as
/// (`AMDGPU_SIM_HIP_VERSION`). They differ in the last error (HIP 5 and 6
/// overwrite it on every call, success included; HIP 7 keeps the last
/// failure until it is read, CUDA's semantics), and in the API details
/// the simulator's module docs tabulate ("Per HIP version": launch limits
/// and codes, `hipStreamLegacy`, pool attributes, device attributes).
pub const HIP_VERSIONS: [u32; 3] = [5, 6, 7];

impl SimConfig {
    /// Read `AMDGPU_SIM_DEVICES`, `AMDGPU_SIM_MEMORY` and
    /// `AMDGPU_SIM_HIP_VERSION`; unset means default.
    pub fn from_env() -> Result<SimConfig, BackendError> {
        let mut config = SimConfig::default();
        if let Ok(value) = std::env::var("AMDGPU_SIM_DEVICES") {
            config.devices = parse_devices(&value)?;
        }
        if let Ok(value) = std::env::var("AMDGPU_SIM_MEMORY") {
            config.memory = parse_memory(&value)?;
        }
        if let Ok(value) = std::env::var("AMDGPU_SIM_HIP_VERSION") {
            config.hip_major = parse_hip_version(&value)?;
        }
        Ok(config)
    }
}

fn invalid(variable: &str, value: &str, reason: String) -> BackendError {
    BackendError::InvalidSimConfig { variable: variable.to_string(), value: value.to_string(), reason }
}

/// Parse a device count, 0 to [`MAX_DEVICES`].
pub fn parse_devices(value: &str) -> Result<usize, BackendError> {
    let n: usize = value.trim().parse().map_err(|_| {
        invalid("AMDGPU_SIM_DEVICES", value, format!("expected a whole number from 0 to {MAX_DEVICES}"))
    })?;
    if n > MAX_DEVICES {
        return Err(invalid("AMDGPU_SIM_DEVICES", value, format!("at most {MAX_DEVICES} devices")));
    }
    Ok(n)
}

/// Parse `AMDGPU_SIM_HIP_VERSION`: a major version of [`HIP_VERSIONS`]
/// (`"6"`; `"6.2"` is read as 6).
pub fn parse_hip_version(value: &str) -> Result<u32, BackendError> {
    let major = value.trim().split('.').next().unwrap_or_default();
    match major.parse::<u32>() {
        Ok(v) if HIP_VERSIONS.contains(&v) => Ok(v),
        _ => Err(invalid(
            "AMDGPU_SIM_HIP_VERSION",
            value,
            format!("expected a HIP major version the simulator models: one of {HIP_VERSIONS:?}"),
        )),
    }
}

/// Parse `AMDGPU_SIM_MEMORY`: a size as [`crate::units::parse_bytes`]
/// reads it, more than 0 and at most a device's address range.
pub fn parse_memory(value: &str) -> Result<usize, BackendError> {
    let bytes = crate::units::parse_bytes(value).map_err(|e| invalid("AMDGPU_SIM_MEMORY", value, e.to_string()))?;
    if bytes == 0 || bytes > DEVICE_SPAN {
        return Err(invalid(
            "AMDGPU_SIM_MEMORY",
            value,
            format!("must be more than 0 and at most {} bytes", DEVICE_SPAN),
        ));
    }
    Ok(bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn memory_sizes_parse_with_units() {
        assert_eq!(parse_memory("4096").unwrap(), 4096);
        assert_eq!(parse_memory("1GiB").unwrap(), 1 << 30);
        assert_eq!(parse_memory(" 512 MB ").unwrap(), 512_000_000);
        assert_eq!(parse_memory("2g").unwrap(), 2 << 30);
        assert_eq!(parse_memory("64KiB").unwrap(), 64 << 10);
    }

    #[test]
    fn bad_memory_sizes_name_the_variable() {
        for bad in ["", "lots", "0", "12XB", "-5", "99999999999999999999TiB", "2TiB"] {
            let error = parse_memory(bad).expect_err(bad);
            let text = error.to_string();
            assert!(text.contains("AMDGPU_SIM_MEMORY"), "{bad}: {text}");
        }
    }

    #[test]
    fn hip_versions_are_5_6_or_7() {
        assert_eq!(parse_hip_version("6").unwrap(), 6);
        assert_eq!(parse_hip_version(" 7.0 ").unwrap(), 7);
        assert_eq!(parse_hip_version("5.7").unwrap(), 5);
        for bad in ["4", "8", "", "seven", "-6"] {
            let text = parse_hip_version(bad).unwrap_err().to_string();
            assert!(text.contains("AMDGPU_SIM_HIP_VERSION") && text.contains("[5, 6, 7]"), "{bad}: {text}");
        }
    }

    #[test]
    fn device_counts_are_bounded() {
        assert_eq!(parse_devices("0").unwrap(), 0);
        assert_eq!(parse_devices(" 8 ").unwrap(), 8);
        assert_eq!(parse_devices("64").unwrap(), MAX_DEVICES);
        for bad in ["65", "-1", "two", ""] {
            assert!(parse_devices(bad).unwrap_err().to_string().contains("AMDGPU_SIM_DEVICES"), "{bad}");
        }
    }
}
