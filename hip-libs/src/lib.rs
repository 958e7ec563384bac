//! rocSPARSE, rocFFT and MIOpen for amdgpu-rs (being built).
//!
//! It will hold safe wrappers over the libraries with per-device handle
//! and plan caches whose handles are released under their own device.
