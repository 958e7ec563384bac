//! What every simulated HIP call does before and after its own work:
//! count the call, apply injected and sticky faults, give HIP's
//! no-device answer, turn a panic into `hipErrorUnknown` (a panic must not
//! unwind into C callers), and keep the thread's last error.

use super::machine::sim;
use crate::bindings::hip::{hipError_t, HipApi};
use crate::machine::calls::count;
use crate::machine::faults;
use crate::machine::thread::with_thread;

/// How a call treats the thread's state and a machine without devices.
#[derive(Clone, Copy)]
pub(crate) struct Flavor {
    /// Run the body even with no devices (the body answers itself).
    pub without_devices: bool,
    /// Record a failure as the thread's last error.
    pub sets_last_error: bool,
    /// Run the body under a sticky fault too, and answer the fault after
    /// it: a synchronization still waits for the work (which runs on in
    /// the simulator), so the host is ordered after it once the fault is
    /// reset. The body must answer the sticky fault itself.
    pub waits_under_fault: bool,
}

pub(crate) const NORMAL: Flavor = Flavor { without_devices: false, sets_last_error: true, waits_under_fault: false };

/// A host synchronization: it waits for the work even under a sticky
/// fault, whose error it then answers.
pub(crate) const SYNCHRONIZES: Flavor = Flavor { waits_under_fault: true, ..NORMAL };

/// Run one simulated HIP call.
pub(crate) fn call(index: usize, body: impl FnOnce() -> Result<(), hipError_t>) -> hipError_t {
    call_with(index, NORMAL, body)
}

pub(crate) fn call_with(index: usize, flavor: Flavor, body: impl FnOnce() -> Result<(), hipError_t>) -> hipError_t {
    count(index);
    let status = if let Some(error) = faults::sticky().filter(|_| !flavor.waits_under_fault) {
        error
    } else if let Some(error) = faults::injected(index) {
        error
    } else if !flavor.without_devices && sim().config.devices == 0 {
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
    if flavor.sets_last_error && records_last_error(sim().config.hip_major, status) {
        with_thread(|t| t.last_error = status);
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

#[cfg(test)]
mod tests {
    use super::records_last_error;
    use crate::bindings::hip::hipError_t as E;

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
