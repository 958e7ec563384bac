//! Integration tests of the amdgpu-rs workspace live in `tests/`; this
//! library holds what they share with the fuzz targets in `fuzz/`.

pub mod fuzz_targets;
