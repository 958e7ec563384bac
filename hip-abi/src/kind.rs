//! Which backend: [`Backend`] and the names `AMDGPU_BACKEND` gives them.

use std::fmt;

/// An implementation of the HIP API.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Backend {
    /// AMD's HIP runtime, `libamdhip64.so`, loaded at run time.
    Amd,
    /// HIP's NVIDIA mapping, done in Rust over the CUDA runtime and driver
    /// (`hip_sys::backend::nvidia`), loaded at run time.
    Nvidia,
    /// The built-in HIP simulator (`hip_sys::sim`, compiled in with the
    /// `sim` feature, which is on by default).
    Sim,
}

impl Backend {
    /// Every backend, in detection order.
    pub const ALL: [Backend; 3] = [Backend::Amd, Backend::Nvidia, Backend::Sim];

    /// The backend's name as `AMDGPU_BACKEND` spells it: `amd`, `nvidia`
    /// or `sim`.
    pub const fn name(self) -> &'static str {
        match self {
            Backend::Amd => "amd",
            Backend::Nvidia => "nvidia",
            Backend::Sim => "sim",
        }
    }
}

impl fmt::Display for Backend {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}
