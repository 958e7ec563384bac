//! What every simulated HIP call does before and after its own work:
//! count the call, apply injected and sticky faults, give HIP's
//! no-device answer, turn a panic into `hipErrorUnknown` (a panic must not
//! unwind into C callers), and keep the thread's last error.

use super::{faults, runtime};
use crate::{hipError_t, HipApi};
use std::cell::RefCell;
use std::sync::atomic::{AtomicU64, Ordering};

const COUNT: usize = HipApi::SYMBOLS.len();

/// Index of `name` in [`HipApi::SYMBOLS`], for compile-time use.
pub(crate) const fn index_of(name: &str) -> usize {
    let mut i = 0;
    while i < COUNT {
        if const_str_eq(HipApi::SYMBOLS[i], name) {
            return i;
        }
        i += 1;
    }
    panic!("not a HipApi symbol")
}

const fn const_str_eq(a: &str, b: &str) -> bool {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    if a.len() != b.len() {
        return false;
    }
    let mut i = 0;
    while i < a.len() {
        if a[i] != b[i] {
            return false;
        }
        i += 1;
    }
    true
}

/// `idx!("hipMalloc")`: the compile-time index of a table symbol.
macro_rules! idx {
    ($name:literal) => {{
        const I: usize = $crate::backend::sim::entry::index_of($name);
        I
    }};
}
pub(crate) use idx;

#[allow(clippy::declare_interior_mutable_const)]
const ZERO: AtomicU64 = AtomicU64::new(0);
static CALLS: [AtomicU64; COUNT] = [ZERO; COUNT];

thread_local! {
    static THREAD_CALLS: RefCell<[u64; COUNT]> = const { RefCell::new([0; COUNT]) };
}

pub(crate) fn call_count(name: &str) -> u64 {
    HipApi::SYMBOLS.iter().position(|s| *s == name).map_or(0, |i| CALLS[i].load(Ordering::Relaxed))
}

pub(crate) fn thread_call_count(name: &str) -> u64 {
    HipApi::SYMBOLS.iter().position(|s| *s == name).map_or(0, |i| THREAD_CALLS.with(|c| c.borrow()[i]))
}

/// How a call treats the thread's state and a machine without devices.
#[derive(Clone, Copy)]
pub(crate) struct Flavor {
    /// Run the body even with no devices (the body answers itself).
    pub without_devices: bool,
    /// Record a failure as the thread's last error.
    pub sets_last_error: bool,
}

pub(crate) const NORMAL: Flavor = Flavor { without_devices: false, sets_last_error: true };

/// Run one simulated HIP call.
pub(crate) fn call(index: usize, body: impl FnOnce() -> Result<(), hipError_t>) -> hipError_t {
    call_with(index, NORMAL, body)
}

pub(crate) fn call_with(index: usize, flavor: Flavor, body: impl FnOnce() -> Result<(), hipError_t>) -> hipError_t {
    CALLS[index].fetch_add(1, Ordering::Relaxed);
    THREAD_CALLS.with(|c| c.borrow_mut()[index] += 1);
    let status = if let Some(error) = faults::sticky() {
        error
    } else if let Some(error) = faults::injected(index) {
        error
    } else if !flavor.without_devices && runtime::sim().config.devices == 0 {
        hipError_t::hipErrorNoDevice
    } else {
        match std::panic::catch_unwind(std::panic::AssertUnwindSafe(body)) {
            Ok(Ok(())) => hipError_t::hipSuccess,
            Ok(Err(error)) => error,
            Err(_) => {
                log::error!("hip simulator: internal panic in {}", HipApi::SYMBOLS[index]);
                hipError_t::hipErrorUnknown
            }
        }
    };
    if flavor.sets_last_error && records_last_error(runtime::sim().config.hip_major, status) {
        runtime::with_thread(|t| t.last_error = status);
    }
    status
}

/// Whether a call that returned `status` writes the thread's last error
/// under HIP `major`.
///
/// HIP 5 and 6 (`HIP_RETURN` in clr's `hip_internal.hpp`) store every
/// call's status, success included, so `hipGetLastError` reports the last
/// call's result. HIP 7 stores only failures, and not `hipErrorNotReady`
/// (a query's answer, not an error), so it reports the last failure until
/// it is read, as CUDA does.
pub(crate) fn records_last_error(major: u32, status: hipError_t) -> bool {
    major < 7 || (status != hipError_t::hipSuccess && status != hipError_t::hipErrorNotReady)
}

/// Write `value` through a C out-pointer; null is `hipErrorInvalidValue`.
///
/// # Safety
/// `out` is null or valid for a write of `T`.
pub(crate) unsafe fn write_out<T>(out: *mut T, value: T) -> Result<(), hipError_t> {
    if out.is_null() {
        return Err(hipError_t::hipErrorInvalidValue);
    }
    // SAFETY: non-null, and the caller guarantees it is valid for writes.
    unsafe { out.write(value) };
    Ok(())
}

/// Index of `name` in [`HipApi::SYMBOLS`], at run time.
pub(crate) fn index_of_runtime(name: &str) -> Option<usize> {
    HipApi::SYMBOLS.iter().position(|s| *s == name)
}

#[cfg(test)]
mod tests {
    use super::records_last_error;
    use crate::hipError_t as E;

    #[test]
    fn hip_6_records_every_status_and_hip_7_only_failures() {
        for major in [5, 6] {
            for status in [E::hipSuccess, E::hipErrorNotReady, E::hipErrorInvalidValue] {
                assert!(records_last_error(major, status), "HIP {major}: {status:?}");
            }
        }
        assert!(!records_last_error(7, E::hipSuccess));
        assert!(!records_last_error(7, E::hipErrorNotReady));
        assert!(records_last_error(7, E::hipErrorInvalidValue));
    }
}
