//! The bodies of the fuzz targets: every parser of outside input, fed
//! arbitrary bytes. Each must answer with a value or an error, never a
//! panic, and what it accepts must be consistent. `fuzz/` runs them under
//! libFuzzer; `tests/tests/fuzz_corpus.rs` runs them over the saved corpus
//! in every CI run.

use hip_libs::fft::{Placement, PlanKey, TransformKind};

/// Memory-limit strings (`AMDGPU_HARD_MEMORY_LIMIT` and the API).
pub fn limit_parse(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else { return };
    match hip_pool::Limit::parse("AMDGPU_HARD_MEMORY_LIMIT", text) {
        Ok(hip_pool::Limit::Percent(p)) => assert!((1..=100).contains(&p)),
        Ok(hip_pool::Limit::Bytes(b)) => assert!(b > 0),
        Ok(hip_pool::Limit::None) => assert!(text.trim().is_empty() || text.trim().eq_ignore_ascii_case("none")),
        Err(e) => assert!(e.to_string().contains("AMDGPU_HARD_MEMORY_LIMIT")),
    }
}

/// The environment variables: `AMDGPU_BACKEND`, `AMDGPU_POOL`,
/// `AMDGPU_SIM_DEVICES`, `AMDGPU_SIM_MEMORY`.
pub fn env_parse(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else { return };
    if let Ok(backend) = text.parse::<hip_sys::Backend>() {
        assert_eq!(backend.name(), text.trim().to_ascii_lowercase());
    }
    let _ = hip_pool::Strategy::parse(text);
    if let Ok(n) = hip_sys::sim::parse_devices(text) {
        assert!(n <= 64);
    }
    if let Ok(bytes) = hip_sys::sim::parse_memory(text) {
        assert!(bytes > 0);
    }
}

/// CSR input: bytes become sizes and arrays, checked without uploading.
pub fn csr_validate(data: &[u8]) {
    if data.len() < 2 {
        return;
    }
    let (rows, cols) = (data[0] as usize % 16, data[1] as usize % 16);
    let ints: Vec<i32> = data[2..].chunks(2).map(|c| c[0] as i32 - if c.len() > 1 { c[1] as i32 } else { 0 }).collect();
    let split1 = ints.len().min(rows + 1);
    let (row_ptr, rest) = ints.split_at(split1);
    let half = rest.len() / 2;
    let (col_ind, values) = rest.split_at(half);
    let values: Vec<f32> = values.iter().map(|v| *v as f32).collect();
    if hip_libs::sparse::CsrMatrix::<f32>::check_host(rows, cols, row_ptr, col_ind, &values).is_ok() {
        // Accepted input really is a CSR matrix.
        assert_eq!(row_ptr.len(), rows + 1);
        assert!(row_ptr.windows(2).all(|w| w[0] <= w[1]));
        assert_eq!(row_ptr[rows] as usize, values.len());
        assert!(col_ind.iter().all(|c| (*c as usize) < cols));
    }
}

/// The simulator's code-object format, through `hipModuleLoadData`.
pub fn code_object(data: &[u8]) {
    let api = hip_sys::sim::api();
    let mut image = data.to_vec();
    image.push(0);
    let mut module = std::ptr::null_mut();
    // SAFETY: a NUL-terminated image and a valid out-pointer.
    let status = unsafe { (api.hipModuleLoadData)(&mut module, image.as_ptr().cast()) };
    if status == hip_sys::hipError_t::hipSuccess {
        // SAFETY: the module just loaded.
        let unloaded = unsafe { (api.hipModuleUnload)(module) };
        assert_eq!(unloaded, hip_sys::hipError_t::hipSuccess);
    } else {
        assert!(
            status == hip_sys::hipError_t::hipErrorInvalidImage || status == hip_sys::hipError_t::hipErrorNoDevice,
            "{status:?}"
        );
    }
}

/// FFT plan descriptions: shape, batch, kind, precision and placement.
pub fn fft_plan(data: &[u8]) {
    if data.len() < 3 || hip_sys::backend() != hip_sys::Backend::Sim {
        return;
    }
    let Ok(device) = hip_core::Device::new(0) else { return };
    let dims = data[0] as usize % 5;
    let shape: Vec<usize> = data[3..].iter().take(dims).map(|b| *b as usize % 70).collect();
    let kind = [
        TransformKind::ComplexForward,
        TransformKind::ComplexInverse,
        TransformKind::RealForward,
        TransformKind::RealInverse,
    ][data[1] as usize % 4];
    let key = PlanKey {
        device,
        shape,
        batch: data[2] as usize % 5,
        kind,
        double: data[1] & 8 != 0,
        placement: if data[1] & 16 != 0 { Placement::InPlace } else { Placement::OutOfPlace },
    };
    let valid = !key.shape.is_empty() && key.shape.len() <= 3 && !key.shape.contains(&0) && key.batch > 0;
    match hip_libs::fft::Plan::new(key) {
        Ok(plan) => assert!(valid, "accepted an invalid plan: {:?}", plan.key()),
        Err(e) => assert!(!valid || e.to_string().contains("rocfft"), "{e}"),
    }
}
