//! Helpers shared by the test files that run the nvidia backend on a real
//! NVIDIA GPU: the table (or a skip), HIP calls checked by name, and
//! device memory to and from the host.

#![allow(dead_code, unused_imports, unused_macros)]

use std::ffi::{c_int, c_void};
use std::ptr::null_mut;

use hip_sys::bindings::hip::{hipMemcpyKind, HipApi};
use hip_sys::Backend;

/// The nvidia table, or `None` (after saying so) when not asked for.
pub fn api() -> Option<&'static HipApi> {
    let asked = std::env::var("AMDGPU_BACKEND").map(|v| v.trim().eq_ignore_ascii_case("nvidia")).unwrap_or(false);
    if !asked {
        println!("skipped: set AMDGPU_BACKEND=nvidia");
        return None;
    }
    let api = match hip_sys::hip() {
        Ok(api) => api,
        Err(e) => panic!("AMDGPU_BACKEND=nvidia but the backend does not load: {e}"),
    };
    assert_eq!(hip_sys::backend(), Backend::Nvidia);
    Some(api)
}

/// Assert that a HIP call succeeded, naming it.
macro_rules! ok {
    ($call:expr) => {{
        // SAFETY: each call site passes valid pointers and handles.
        let status = unsafe { $call };
        assert_eq!(status, hip_sys::bindings::hip::hipError_t::hipSuccess, "{}", stringify!($call));
    }};
}
pub(crate) use ok;

/// A device buffer of `n` elements of `T`.
pub fn device_alloc<T>(api: &HipApi, n: usize) -> *mut T {
    let mut p: *mut c_void = null_mut();
    ok!((api.hipMalloc)(&mut p, n * std::mem::size_of::<T>()));
    assert!(!p.is_null());
    p.cast()
}

pub fn to_device<T: Copy>(api: &HipApi, values: &[T]) -> *mut T {
    let p = device_alloc::<T>(api, values.len());
    ok!((api.hipMemcpy)(
        p.cast(),
        values.as_ptr().cast(),
        std::mem::size_of_val(values),
        hipMemcpyKind::hipMemcpyHostToDevice
    ));
    p
}

pub fn to_host<T: Copy + Default>(api: &HipApi, p: *const T, n: usize) -> Vec<T> {
    let mut out = vec![T::default(); n];
    ok!((api.hipMemcpy)(
        out.as_mut_ptr().cast(),
        p.cast(),
        n * std::mem::size_of::<T>(),
        hipMemcpyKind::hipMemcpyDeviceToHost
    ));
    out
}

pub fn device_count(api: &HipApi) -> c_int {
    let mut count = 0;
    ok!((api.hipGetDeviceCount)(&mut count));
    count
}
