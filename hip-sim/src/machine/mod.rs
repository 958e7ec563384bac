//! The simulated machine and the rules it keeps: its devices, each with
//! its memory, memory pools and streams, started once per process
//! ([`Sim`], here), and its parts, bottom up. Nothing here calls the
//! entry points above it.

// Values: the configuration, the address ranges and limits of the
// devices, locks that survive a panic, handle numbers, call counters.
pub(crate) mod addresses;
pub(crate) mod calls;
pub(crate) mod config;
pub(crate) mod handles;
pub(crate) mod limits;
pub(crate) mod lock;

// What the machine checks and reports: injected and sticky faults, the
// test lock over them, violations of HIP's rules, stream races, each
// thread's device and context, peer access.
pub(crate) mod exclusive;
pub(crate) mod faults;
pub(crate) mod peers;
pub(crate) mod races;
pub(crate) mod thread;
pub(crate) mod violations;

// Memory: device memory, pinned host memory, managed memory,
// stream-ordered pools, the memory graphs allocate, and virtual memory (reserved addresses,
// physical allocations and the mappings between them, over host pages
// the simulator maps itself); and the blocks a pool above hands out.
pub(crate) mod blocks;
pub(crate) mod graph_memory;
pub(crate) mod managed;
pub(crate) mod memory;
pub(crate) mod pages;
pub(crate) mod pinned;
pub(crate) mod pool;
pub(crate) mod shared;
pub(crate) mod vmm;

// Work: stream queues, events, stream capture and the graphs it builds.
pub(crate) mod capture;
pub(crate) mod event;
pub(crate) mod graph;
pub(crate) mod ipc;
pub(crate) mod node_kind;
pub(crate) mod queue;

use crate::BackendError;
use config::SimConfig;
use memory::DeviceMemory;
use pool::PoolRegistry;
use queue::{Retired, StreamQueue};
use std::sync::{Arc, Mutex, OnceLock, Weak};

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
    /// (their work has run), shared with the streams that retire into it.
    pub retired: Arc<Retired>,
}

/// The simulated machine.
pub(crate) struct Sim {
    pub config: SimConfig,
    pub devices: Vec<SimDevice>,
}

static SIM: OnceLock<Sim> = OnceLock::new();
static CONFIG_ERROR: OnceLock<BackendError> = OnceLock::new();

/// Start the simulator from the environment; a bad variable is an error.
pub fn configure_from_env() -> Result<(), BackendError> {
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
            .map(|ordinal| {
                let retired = Arc::new(Retired::default());
                let null_name = format!("the null stream of device {ordinal}");
                SimDevice {
                    memory: DeviceMemory::new(ordinal, config.memory),
                    pools: PoolRegistry::new(ordinal),
                    null_stream: StreamQueue::new(ordinal, true, 0, 0, null_name, retired.clone()),
                    streams: Mutex::new(Vec::new()),
                    context_tag: Box::new(ordinal as u8),
                    retired,
                }
            })
            .collect();
        Sim { config, devices }
    }

    pub fn device(&self, ordinal: usize) -> Option<&SimDevice> {
        self.devices.get(ordinal)
    }

    /// The device an `int` argument names, if any (a negative one, as clr
    /// compares it as a `size_t`, names none).
    pub fn ordinal(&self, device: i32) -> Option<usize> {
        usize::try_from(device).ok().filter(|d| *d < self.devices.len())
    }
}

/// Devices the simulator has (starting it if needed).
pub fn configured_devices() -> usize {
    sim().config.devices
}

/// Bytes of memory per simulated device.
pub fn configured_memory() -> usize {
    sim().config.memory
}

/// Number of live allocations on `device` (device memory, including blocks
/// held by stream-ordered pools); 0 for a device that does not exist.
pub fn live_allocations(device: usize) -> usize {
    sim().device(device).map_or(0, |d| d.memory.live_count())
}

/// Bytes in use on `device` (allocations plus pool reservations).
pub fn used_bytes(device: usize) -> usize {
    sim().device(device).map_or(0, |d| d.memory.used())
}
