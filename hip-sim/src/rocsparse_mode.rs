//! Which rocSPARSE the simulator behaves as, and its record of the slow
//! paths the real library would take silently.
//!
//! - **Version**: `AMDGPU_SIM_ROCSPARSE_VERSION=2|3` (default 3) selects
//!   rocSPARSE 2.x (ROCm 5.x) or 3.x (ROCm 6.x, whose SpMV and SpMM
//!   behaviour 4.x in ROCm 7.x keeps). [`set_rocsparse_version`] overrides
//!   it for the rest of the process (tests holding
//!   [`exclusive`](crate::exclusive()) switch and restore it).
//! - **Slow paths**: real rocSPARSE computes a CSR SpMV whose matrix was
//!   never preprocessed with its general (row-stream) kernel instead of
//!   the adaptive one, without any error. The simulator records each such
//!   compute in [`rocsparse_slow_paths`], so tests can assert that none
//!   happens; [`rocsparse_analyses`] counts the CSR analyses made.

use crate::machine::lock::lock;
use std::sync::atomic::{AtomicU64, AtomicU8, Ordering};
use std::sync::{Mutex, OnceLock};

/// The rocSPARSE major version the simulator behaves as.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum RocsparseVersion {
    /// rocSPARSE 2.x (ROCm 5.x; reports 2.5.4, ROCm 5.7.1's): the SpMV and
    /// SpMM stage `auto` exists (a null buffer asks for its size, otherwise
    /// it preprocesses and computes).
    V2,
    /// rocSPARSE 3.x (ROCm 6.x; reports 3.0.2, ROCm 6.0.0's), also what
    /// 4.x (ROCm 7.x) does for SpMV and SpMM: there is no auto stage (stage
    /// 0 is `invalid_value`); only buffer size, preprocess and compute.
    V3,
}

impl RocsparseVersion {
    /// What `rocsparse_get_version` reports (`major * 100000 + minor * 100 + patch`).
    pub const fn encoded(self) -> i32 {
        match self {
            RocsparseVersion::V2 => 200_504,
            RocsparseVersion::V3 => 300_002,
        }
    }
}

/// Parse `AMDGPU_SIM_ROCSPARSE_VERSION`: `2` or `3` (a leading `v` and a
/// minor part such as `3.0` are accepted).
pub fn parse_rocsparse_version(value: &str) -> Result<RocsparseVersion, crate::BackendError> {
    let text = value.trim().trim_start_matches(['v', 'V']);
    match text.split('.').next() {
        Some("2") => Ok(RocsparseVersion::V2),
        Some("3") => Ok(RocsparseVersion::V3),
        _ => Err(crate::BackendError::InvalidSimConfig {
            variable: "AMDGPU_SIM_ROCSPARSE_VERSION".to_owned(),
            value: value.to_owned(),
            reason: "expected 2 (rocSPARSE 2.x, ROCm 5) or 3 (rocSPARSE 3.x, ROCm 6 and 7)".to_owned(),
        }),
    }
}

/// 0: not overridden; 2 or 3: the major version set by [`set_rocsparse_version`].
static OVERRIDE: AtomicU8 = AtomicU8::new(0);

fn from_env() -> RocsparseVersion {
    static ENV: OnceLock<RocsparseVersion> = OnceLock::new();
    *ENV.get_or_init(|| match std::env::var("AMDGPU_SIM_ROCSPARSE_VERSION") {
        Ok(value) => parse_rocsparse_version(&value).unwrap_or_else(|error| {
            log::warn!("hip simulator: {error}; simulating rocSPARSE 3.x");
            RocsparseVersion::V3
        }),
        Err(_) => RocsparseVersion::V3,
    })
}

/// The rocSPARSE version the simulator behaves as now.
pub fn rocsparse_version() -> RocsparseVersion {
    match OVERRIDE.load(Ordering::Relaxed) {
        2 => RocsparseVersion::V2,
        3 => RocsparseVersion::V3,
        _ => from_env(),
    }
}

/// Behave as `version` from now on, in every thread; returns the version
/// in effect before, to restore it.
pub fn set_rocsparse_version(version: RocsparseVersion) -> RocsparseVersion {
    let before = rocsparse_version();
    let major = match version {
        RocsparseVersion::V2 => 2,
        RocsparseVersion::V3 => 3,
    };
    OVERRIDE.store(major, Ordering::Relaxed);
    before
}

/// A computation the real library would run on a slower path, silently.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SlowPath {
    /// The rocSPARSE function called.
    pub function: &'static str,
    /// The device of the handle.
    pub device: usize,
    /// What happened and how to avoid it.
    pub reason: &'static str,
}

impl std::fmt::Display for SlowPath {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} on device {}: {}", self.function, self.device, self.reason)
    }
}

static SLOW_PATHS: Mutex<Vec<SlowPath>> = Mutex::new(Vec::new());
static ANALYSES: AtomicU64 = AtomicU64::new(0);

/// Every slow path recorded so far in this process.
pub fn rocsparse_slow_paths() -> Vec<SlowPath> {
    lock(&SLOW_PATHS).clone()
}

/// Forget the recorded slow paths.
pub fn clear_rocsparse_slow_paths() {
    lock(&SLOW_PATHS).clear();
}

/// CSR SpMV analyses (the preprocess stage's work) made so far in this process.
pub fn rocsparse_analyses() -> u64 {
    ANALYSES.load(Ordering::Relaxed)
}

pub(crate) fn record_slow_path(function: &'static str, device: usize, reason: &'static str) {
    log::warn!("hip simulator: {function} on device {device}: {reason}");
    lock(&SLOW_PATHS).push(SlowPath { function, device, reason });
}

pub(crate) fn count_analysis() {
    ANALYSES.fetch_add(1, Ordering::Relaxed);
}
