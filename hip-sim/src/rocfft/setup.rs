//! rocFFT's process-wide state: `rocfft_setup` and `rocfft_cleanup`, and
//! the cleanups that leave older plans unusable.

use super::status::*;
use super::{Kind, OBJECTS};
use crate::library::call;
use crate::machine::lock::lock;
use crate::machine::sim;
use crate::machine::thread::current_device;
use std::sync::Mutex;

/// rocFFT's process-wide state.
struct Library {
    /// The device current at the last `rocfft_setup`, unless cleaned up since.
    setup_device: Option<usize>,
    /// `rocfft_cleanup` calls so far.
    cleanups: u64,
}

static LIBRARY: Mutex<Library> = Mutex::new(Library { setup_device: None, cleanups: 0 });

/// `rocfft_cleanup` calls so far: a plan made before the latest one is
/// unusable.
pub(super) fn cleanups() -> u64 {
    lock(&LIBRARY).cleanups
}

/// The device that was current when `rocfft_setup` last ran, or `None` if
/// it has not run since the last `rocfft_cleanup`.
pub fn setup_device() -> Option<usize> {
    lock(&LIBRARY).setup_device
}

pub(crate) unsafe extern "C" fn rocfft_setup() -> Status {
    call("rocfft_setup", OK, FAILURE, || {
        // rocFFT reads the current device's properties here.
        let device = current_device();
        if sim().device(device).is_none() {
            return Err(FAILURE);
        }
        lock(&LIBRARY).setup_device = Some(device);
        Ok(())
    })
}

pub(crate) unsafe extern "C" fn rocfft_cleanup() -> Status {
    call("rocfft_cleanup", OK, FAILURE, || {
        let mut library = lock(&LIBRARY);
        library.cleanups += 1;
        library.setup_device = None;
        let alive = OBJECTS.count(|o| matches!(o.kind, Kind::Plan(_)));
        if alive > 0 {
            log::warn!("hip simulator: rocfft_cleanup with {alive} live plan(s): they can no longer be executed");
        }
        Ok(())
    })
}
