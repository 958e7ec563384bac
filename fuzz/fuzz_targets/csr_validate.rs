//! Fuzz target: see `amdgpu_tests::fuzz_targets::csr_validate`.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| amdgpu_tests::fuzz_targets::csr_validate(data));
