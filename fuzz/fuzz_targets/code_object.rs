//! Fuzz target: see `amdgpu_tests::fuzz_targets::code_object`.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| amdgpu_tests::fuzz_targets::code_object(data));
