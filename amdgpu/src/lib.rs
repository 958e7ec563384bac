//! amdgpu-rs: a Rust runtime for AMD GPUs through HIP (being built).
//!
//! This facade will re-export the safe API of `hip-core`, `hip-pool` and
//! `hip-libs` with `DeviceArray<T>` and a prelude. For now it carries the
//! examples; see `examples/devices.rs`.
