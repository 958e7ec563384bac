//! The library tests' helpers: one test at a time over a clean
//! simulator, element types, device memory of any of them, and results
//! compared with a tolerance.

pub use super::{api as hip, malloc, set_device};
use hip_sys::bindings::hip::{hipError_t, hipMemcpyKind};
use hip_sys::sim::{self, Exclusive};
use std::ffi::c_void;

/// Take the simulator and start from a clean violation log.
pub fn start() -> Exclusive {
    let guard = sim::exclusive();
    sim::clear_violations();
    set_device(0);
    guard
}

/// Check that the test left no objects, allocations or violations.
pub fn finish() {
    sync();
    for device in 0..super::device_count() as usize {
        assert_eq!(sim::live_library_objects(device), 0, "library objects left on device {device}");
        assert_eq!(sim::live_allocations(device), 0, "allocations left on device {device}");
    }
    assert_eq!(sim::violations(), vec![], "violations");
}

/// Wait for the work of every device, and return to device 0.
pub fn sync() {
    for d in 0..super::device_count() {
        set_device(d);
        // SAFETY: a plain call.
        assert_eq!(unsafe { (hip().hipDeviceSynchronize)() }, hipError_t::hipSuccess);
    }
    set_device(0);
}

/// Element types the tests use.
pub trait Num: Copy + Default + 'static {
    /// The value nearest `v`.
    fn from_f64(v: f64) -> Self;
    /// The value as an `f64`.
    fn to_f64(self) -> f64;
    /// The relative tolerance of results of this type.
    const TOL: f64;
}
impl Num for f32 {
    fn from_f64(v: f64) -> Self {
        v as f32
    }
    fn to_f64(self) -> f64 {
        self as f64
    }
    const TOL: f64 = 1e-4;
}
impl Num for f64 {
    fn from_f64(v: f64) -> Self {
        v
    }
    fn to_f64(self) -> f64 {
        self
    }
    const TOL: f64 = 1e-10;
}
impl Num for i32 {
    fn from_f64(v: f64) -> Self {
        v as i32
    }
    fn to_f64(self) -> f64 {
        self as f64
    }
    const TOL: f64 = 0.0;
}

/// `hipFree` of memory from [`malloc`] or [`upload`].
pub fn free(p: *mut c_void) {
    // SAFETY: a pointer from malloc, freed once.
    assert_eq!(unsafe { (hip().hipFree)(p) }, hipError_t::hipSuccess);
}

/// Device memory holding `values` (at least 4 bytes, so never null).
pub fn upload<T: Num>(values: &[T]) -> *mut c_void {
    let bytes = std::mem::size_of_val(values);
    let p = malloc(bytes.max(4));
    // SAFETY: both ranges hold `bytes` bytes.
    let status = unsafe { (hip().hipMemcpy)(p, values.as_ptr().cast(), bytes, hipMemcpyKind::hipMemcpyHostToDevice) };
    assert_eq!(status, hipError_t::hipSuccess);
    p
}

/// `n` elements copied back from device memory at `p`.
pub fn download<T: Num>(p: *const c_void, n: usize) -> Vec<T> {
    let mut out = vec![T::default(); n];
    // SAFETY: both ranges hold n elements.
    let status = unsafe {
        (hip().hipMemcpy)(
            out.as_mut_ptr().cast(),
            p,
            n * std::mem::size_of::<T>(),
            hipMemcpyKind::hipMemcpyDeviceToHost,
        )
    };
    assert_eq!(status, hipError_t::hipSuccess);
    out
}

/// Assert `got` is `want` within `T`'s tolerance, relative to the
/// largest value wanted (and at least 1).
pub fn assert_close<T: Num>(got: &[T], want: &[f64], what: &str) {
    assert_eq!(got.len(), want.len(), "{what}: length");
    let scale = want.iter().fold(1.0f64, |m, v| m.max(v.abs()));
    for (i, (g, w)) in got.iter().zip(want).enumerate() {
        let g = g.to_f64();
        assert!((g - w).abs() <= T::TOL * scale, "{what}[{i}]: got {g}, want {w}");
    }
}

/// A small deterministic pseudo-random sequence in [-1, 1).
pub use super::noise::noise as values;
