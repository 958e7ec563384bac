//! The simulated machine's configuration: how many devices, how much
//! memory each, which HIP version it behaves as, and which AMD target each
//! device is like, from the environment.

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
    /// Each device's target (`AMDGPU_SIM_TARGETS`), by ordinal.
    pub targets: [SimTarget; MAX_DEVICES],
    /// How many host threads run a compiled kernel's blocks at once
    /// (`AMDGPU_SIM_CORES`; by default the host's).
    pub cores: usize,
    /// How long a compiled kernel's launch may run before it is stopped
    /// and reported (`AMDGPU_SIM_WATCHDOG`; none: never).
    pub watchdog: Option<std::time::Duration>,
    /// Whether compiled kernels are built with the shared-memory race
    /// check (`AMDGPU_SIM_RACECHECK`; off by default: it slows kernels).
    pub racecheck: bool,
    /// Whether the devices are APUs, sharing the host's memory
    /// (`AMDGPU_SIM_APU`; off by default): `hipDeviceAttributeIntegrated`
    /// says so where clr does (HIP 7; clr sets it from 6.2, HIP 6 is
    /// modelled by 6.0). Their memory (`AMDGPU_SIM_MEMORY`) stands for
    /// what the kernel driver reports as the GPU's local memory.
    pub apu: bool,
}

/// The AMD target a simulated device is like: its wavefront width and
/// architecture.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum SimTarget {
    /// CDNA 2 (MI200): wavefronts of 64, architecture 9.0.
    #[default]
    Gfx90a,
    /// RDNA 2 (RX 6800): wavefronts of 32, architecture 10.3.
    Gfx1030,
}

impl SimTarget {
    /// Every target, by name.
    pub const ALL: [SimTarget; 2] = [SimTarget::Gfx90a, SimTarget::Gfx1030];

    /// Its name, as AMD's compilers spell it.
    pub fn name(self) -> &'static str {
        match self {
            SimTarget::Gfx90a => "gfx90a",
            SimTarget::Gfx1030 => "gfx1030",
        }
    }

    /// Its wavefront width (`hipDeviceAttributeWarpSize`, `warpSize`).
    pub fn warp_size(self) -> u32 {
        match self {
            SimTarget::Gfx90a => 64,
            SimTarget::Gfx1030 => 32,
        }
    }

    /// Its architecture's (major, minor) version.
    pub fn architecture(self) -> (i32, i32) {
        match self {
            SimTarget::Gfx90a => (9, 0),
            SimTarget::Gfx1030 => (10, 3),
        }
    }
}

impl Default for SimConfig {
    fn default() -> Self {
        let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
        SimConfig {
            devices: 2,
            memory: 1 << 30,
            hip_major: 7,
            targets: [SimTarget::Gfx90a; MAX_DEVICES],
            cores,
            watchdog: Some(DEFAULT_WATCHDOG),
            racecheck: false,
            apu: false,
        }
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
    /// Read `AMDGPU_SIM_DEVICES`, `AMDGPU_SIM_MEMORY`,
    /// `AMDGPU_SIM_HIP_VERSION`, `AMDGPU_SIM_TARGETS`, `AMDGPU_SIM_CORES`,
    /// `AMDGPU_SIM_WATCHDOG`, `AMDGPU_SIM_RACECHECK` and `AMDGPU_SIM_APU`;
    /// unset means default.
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
        if let Ok(value) = std::env::var("AMDGPU_SIM_TARGETS") {
            for (ordinal, target) in parse_targets(&value)?.into_iter().enumerate() {
                config.targets[ordinal] = target;
            }
        }
        if let Ok(value) = std::env::var("AMDGPU_SIM_CORES") {
            config.cores = parse_cores(&value)?;
        }
        if let Ok(value) = std::env::var("AMDGPU_SIM_WATCHDOG") {
            config.watchdog = parse_watchdog(&value)?;
        }
        if let Ok(value) = std::env::var("AMDGPU_SIM_RACECHECK") {
            config.racecheck = parse_switch("AMDGPU_SIM_RACECHECK", &value)?;
        }
        if let Ok(value) = std::env::var("AMDGPU_SIM_APU") {
            config.apu = parse_switch("AMDGPU_SIM_APU", &value)?;
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

/// Parse `AMDGPU_SIM_TARGETS`: targets by name, comma-separated, device 0
/// first (`gfx90a,gfx1030`); devices past the list are gfx90a.
pub fn parse_targets(value: &str) -> Result<Vec<SimTarget>, BackendError> {
    let names: Vec<&str> = value.split(',').map(str::trim).filter(|n| !n.is_empty()).collect();
    if names.len() > MAX_DEVICES {
        return Err(invalid("AMDGPU_SIM_TARGETS", value, format!("at most {MAX_DEVICES} targets")));
    }
    names
        .iter()
        .map(|name| {
            SimTarget::ALL.into_iter().find(|t| t.name() == *name).ok_or_else(|| {
                invalid(
                    "AMDGPU_SIM_TARGETS",
                    value,
                    format!("`{name}` is no target the simulator models: gfx90a or gfx1030"),
                )
            })
        })
        .collect()
}

/// How long a compiled kernel's launch may run unless
/// `AMDGPU_SIM_WATCHDOG` says otherwise.
pub const DEFAULT_WATCHDOG: std::time::Duration = std::time::Duration::from_secs(60);

/// Parse `AMDGPU_SIM_WATCHDOG`: seconds (`60`, `0.5`) a compiled kernel's
/// launch may run, or `off`.
pub fn parse_watchdog(value: &str) -> Result<Option<std::time::Duration>, BackendError> {
    let value_trimmed = value.trim();
    if value_trimmed == "off" {
        return Ok(None);
    }
    match value_trimmed.parse::<f64>() {
        Ok(seconds) if seconds > 0.0 && seconds <= 1e9 => Ok(Some(std::time::Duration::from_secs_f64(seconds))),
        _ => Err(invalid("AMDGPU_SIM_WATCHDOG", value, "expected seconds more than 0 (`60`, `0.5`) or `off`".into())),
    }
}

/// Parse a switch (`AMDGPU_SIM_RACECHECK`, `AMDGPU_SIM_APU`): `on` (or
/// `1`) or `off` (or `0`).
pub fn parse_switch(variable: &str, value: &str) -> Result<bool, BackendError> {
    match value.trim() {
        "on" | "1" => Ok(true),
        "off" | "0" => Ok(false),
        _ => Err(invalid(variable, value, "expected `on` or `off`".into())),
    }
}

/// The most host threads `AMDGPU_SIM_CORES` may name.
pub const MAX_CORES: usize = 1024;

/// Parse `AMDGPU_SIM_CORES`: how many host threads run a compiled
/// kernel's blocks at once, 1 (block after block) to [`MAX_CORES`].
pub fn parse_cores(value: &str) -> Result<usize, BackendError> {
    match value.trim().parse::<usize>() {
        Ok(n) if (1..=MAX_CORES).contains(&n) => Ok(n),
        _ => Err(invalid("AMDGPU_SIM_CORES", value, format!("expected a whole number from 1 to {MAX_CORES}"))),
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
    fn targets_are_named_device_by_device() {
        assert_eq!(parse_targets("gfx90a, gfx1030").unwrap(), [SimTarget::Gfx90a, SimTarget::Gfx1030]);
        assert_eq!((SimTarget::Gfx1030.warp_size(), SimTarget::Gfx90a.warp_size()), (32, 64));
        let text = parse_targets("gfx90a,gfx942").unwrap_err().to_string();
        assert!(text.contains("AMDGPU_SIM_TARGETS") && text.contains("gfx942"), "{text}");
    }

    #[test]
    fn host_threads_for_blocks_are_one_to_the_bound() {
        assert_eq!(parse_cores(" 2 ").unwrap(), 2);
        assert_eq!(parse_cores("1024").unwrap(), MAX_CORES);
        for bad in ["0", "1025", "all", ""] {
            assert!(parse_cores(bad).unwrap_err().to_string().contains("AMDGPU_SIM_CORES"), "{bad}");
        }
        assert!(SimConfig::default().cores >= 1);
    }

    #[test]
    fn switches_are_on_or_off() {
        assert!(parse_switch("AMDGPU_SIM_RACECHECK", " on").unwrap());
        assert!(!parse_switch("AMDGPU_SIM_APU", "0").unwrap());
        let refused = parse_switch("AMDGPU_SIM_APU", "yes").unwrap_err().to_string();
        assert!(refused.contains("AMDGPU_SIM_APU") && refused.contains("`on` or `off`"), "{refused}");
    }

    #[test]
    fn the_watchdog_takes_seconds_or_off() {
        assert_eq!(parse_watchdog("0.5").unwrap(), Some(std::time::Duration::from_millis(500)));
        assert_eq!(parse_watchdog(" off ").unwrap(), None);
        for bad in ["0", "-1", "1e10", "soon", ""] {
            assert!(parse_watchdog(bad).unwrap_err().to_string().contains("AMDGPU_SIM_WATCHDOG"), "{bad}");
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
