//! The `amd` backend: AMD's HIP runtime and math libraries, loaded at run
//! time.
//!
//! The HIP runtime ([`hip`]) is found and checked when the backend is
//! selected; the math libraries (rocBLAS, rocSPARSE, rocFFT, MIOpen and
//! hipRTC, [`provider`]) when a program first asks for them. Each loader
//! reads its library's version and refuses one whose ABI it does not know.

mod hip;
mod hiprtc;
mod hiprtc_table;
mod installation;
mod libraries;
mod miopen;
mod properties;
mod provider;
mod rccl;
mod rocblas;
mod rocfft;
mod rocrand;
mod rocsolver;
mod rocsparse;
mod roctx;

pub(crate) use hip::load;
#[cfg(test)]
pub(crate) use hip::load_from;
pub(crate) use hiprtc::compiler as hiprtc_compiler;
pub(crate) use properties::target_id;
pub(crate) use provider::PROVIDER;
