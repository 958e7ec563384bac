//! The simulator's process state: configuration, devices, per-thread state.

use super::memory::DeviceMemory;
use super::pools::PoolRegistry;
use super::streams::StreamQueue;
use crate::sync::MutexExt;
use crate::BackendError;
use std::cell::RefCell;
use std::sync::{Arc, Mutex, MutexGuard, OnceLock, Weak};

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

/// The most devices the simulator offers (each has its own address range).
pub const MAX_DEVICES: usize = 64;

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
    if bytes == 0 || bytes > super::memory::DEVICE_SPAN {
        return Err(invalid(
            "AMDGPU_SIM_MEMORY",
            value,
            format!("must be more than 0 and at most {} bytes", super::memory::DEVICE_SPAN),
        ));
    }
    Ok(bytes)
}

/// One simulated device.
pub(crate) struct SimDevice {
    pub memory: DeviceMemory,
    pub pools: PoolRegistry,
    /// The device's null stream.
    pub null_stream: Arc<StreamQueue>,
    /// Live streams created on this device (for device-wide synchronization
    /// and the null stream's legacy semantics).
    pub streams: Mutex<Vec<Weak<StreamQueue>>>,
    /// A stable address that serves as this device's `hipCtx_t`.
    pub context_tag: Box<u8>,
    /// The joined final clocks of this device's streams that are gone
    /// (their work has run): device synchronization orders after them.
    pub retired: Mutex<super::races::Clock>,
    /// As `retired`, of the blocking streams only: the null stream
    /// orders after them.
    pub retired_blocking: Mutex<super::races::Clock>,
}

/// The simulated machine.
pub(crate) struct Sim {
    pub config: SimConfig,
    pub devices: Vec<SimDevice>,
}

static SIM: OnceLock<Sim> = OnceLock::new();
static CONFIG_ERROR: OnceLock<BackendError> = OnceLock::new();

/// Start the simulator from the environment; a bad variable is an error.
pub(crate) fn configure_from_env() -> Result<(), BackendError> {
    match SimConfig::from_env() {
        Ok(config) => {
            SIM.get_or_init(|| Sim::new(config));
            Ok(())
        }
        Err(error) => {
            let _ = CONFIG_ERROR.set(error.clone());
            Err(error)
        }
    }
}

/// The simulator, started with the environment's configuration (or the
/// defaults, with a logged warning, if the environment is invalid and the
/// table is used directly without backend selection).
pub(crate) fn sim() -> &'static Sim {
    SIM.get_or_init(|| {
        let config = SimConfig::from_env().unwrap_or_else(|error| {
            log::warn!("hip simulator: {error}; using the defaults");
            SimConfig::default()
        });
        Sim::new(config)
    })
}

impl Sim {
    fn new(config: SimConfig) -> Sim {
        let devices = (0..config.devices)
            .map(|ordinal| SimDevice {
                memory: DeviceMemory::new(ordinal, config.memory),
                pools: PoolRegistry::new(ordinal),
                null_stream: StreamQueue::new(ordinal, true, 0, 0, format!("the null stream of device {ordinal}")),
                streams: Mutex::new(Vec::new()),
                context_tag: Box::new(ordinal as u8),
                retired: Mutex::new(Default::default()),
                retired_blocking: Mutex::new(Default::default()),
            })
            .collect();
        Sim { config, devices }
    }

    pub fn device(&self, ordinal: usize) -> Option<&SimDevice> {
        self.devices.get(ordinal)
    }
}

/// The simulator if it has started (for destructors, which must not start it).
pub(crate) fn try_sim() -> Option<&'static Sim> {
    SIM.get()
}

/// Devices the simulator has (starting it if needed).
pub fn configured_devices() -> usize {
    sim().config.devices
}

/// Bytes of memory per simulated device.
pub fn configured_memory() -> usize {
    sim().config.memory
}

/// What HIP keeps per thread.
///
/// It holds no heap data, so it has no destructor: the thread-local stays
/// usable while other thread-locals are destroyed at thread exit (a
/// stream released by another library's thread-local destructor still
/// sees its thread's current device).
pub(crate) struct ThreadHip {
    /// The current device; `None` until the first call (then device 0).
    pub device: Option<usize>,
    /// The context stack of `hipCtxPushCurrent` / `hipCtxPopCurrent`.
    pub ctx_stack: ContextStack,
    /// The last error, ROCm 7 semantics.
    pub last_error: crate::hipError_t,
}

/// A bounded stack of device ordinals, without heap memory.
pub(crate) struct ContextStack {
    items: [u8; 32],
    len: usize,
}

impl ContextStack {
    /// Push; `false` when the stack is full.
    pub fn push(&mut self, device: usize) -> bool {
        if self.len == self.items.len() {
            return false;
        }
        self.items[self.len] = device as u8;
        self.len += 1;
        true
    }

    pub fn pop(&mut self) -> Option<usize> {
        self.len = self.len.checked_sub(1)?;
        Some(self.items[self.len] as usize)
    }

    pub fn set_top(&mut self, device: usize) -> bool {
        match self.len.checked_sub(1) {
            Some(top) => {
                self.items[top] = device as u8;
                true
            }
            None => false,
        }
    }
}

thread_local! {
    static THREAD: RefCell<ThreadHip> = const {
        RefCell::new(ThreadHip {
            device: None,
            ctx_stack: ContextStack { items: [0; 32], len: 0 },
            last_error: crate::hipError_t::hipSuccess,
        })
    };
}

/// Run `f` on the calling thread's HIP state.
pub(crate) fn with_thread<R>(f: impl FnOnce(&mut ThreadHip) -> R) -> R {
    THREAD.with(|t| f(&mut t.borrow_mut()))
}

/// The calling thread's current device, lazily device 0 (HIP's `HIP_INIT`).
pub(crate) fn current_device() -> usize {
    with_thread(|t| *t.device.get_or_insert(0))
}

/// Lock a mutex, ignoring poisoning: the simulator's invariants hold
/// between statements, and a panicking test must not break later tests.
pub(crate) fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock_unpoisoned()
}

static EXCLUSIVE: Mutex<()> = Mutex::new(());

/// A guard that serializes tests needing exact process-wide counts.
pub struct Exclusive {
    _guard: MutexGuard<'static, ()>,
}

impl std::fmt::Debug for Exclusive {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Exclusive")
    }
}

/// Take the simulator for this test alone, among the tests that also call
/// `exclusive()`. Held until dropped; tolerant of a panicked holder. On
/// taking it, injected faults are cleared.
pub fn exclusive() -> Exclusive {
    let guard = lock(&EXCLUSIVE);
    super::faults::reset_faults();
    Exclusive { _guard: guard }
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
