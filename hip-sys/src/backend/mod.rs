//! Backend selection (being written).
use crate::{BackendError, HipApi};
/// The backend.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Backend {
    /// AMD.
    Amd,
    /// NVIDIA.
    Nvidia,
    /// Simulator.
    Sim,
}
/// The backend.
pub fn backend() -> Backend { Backend::Sim }
/// The table.
pub fn hip() -> Result<&'static HipApi, BackendError> { Ok(crate::sim::api()) }
