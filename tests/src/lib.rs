//! Integration tests of the amdgpu-rs workspace live in `tests/`.
