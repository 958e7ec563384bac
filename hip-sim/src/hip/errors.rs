//! The thread's last error, and `hipGetErrorName`/`hipGetErrorString`
//! over the crate's table of names ([`crate::bindings::error_names`]).

use crate::bindings::error_names::describe_as_hip;
use crate::bindings::hip::hipError_t;
use crate::entry::{call_with, Flavor, NORMAL};
use crate::machine::calls::idx;
use crate::machine::thread::with_thread;
use std::ffi::c_char;

/// `hipGetLastError` and `hipPeekAtLastError` report, they do not record.
const REPORTS: Flavor = Flavor { sets_last_error: false, ..NORMAL };

pub(crate) unsafe extern "C" fn hipGetLastError() -> hipError_t {
    call_with(idx!("hipGetLastError"), REPORTS, || {
        let error = with_thread(|t| std::mem::replace(&mut t.last_error, hipError_t::hipSuccess));
        if error == hipError_t::hipSuccess {
            Ok(())
        } else {
            Err(error)
        }
    })
}

pub(crate) unsafe extern "C" fn hipPeekAtLastError() -> hipError_t {
    call_with(idx!("hipPeekAtLastError"), REPORTS, || {
        let error = with_thread(|t| t.last_error);
        if error == hipError_t::hipSuccess {
            Ok(())
        } else {
            Err(error)
        }
    })
}

fn count(index: usize) {
    // Name and string lookups fail on nothing; count them like any call.
    let _ = call_with(index, Flavor { without_devices: true, sets_last_error: false, ..NORMAL }, || Ok(()));
}

pub(crate) unsafe extern "C" fn hipGetErrorName(error: hipError_t) -> *const c_char {
    count(idx!("hipGetErrorName"));
    describe_as_hip(error).map_or(c"hipErrorUnknown".as_ptr(), |(name, _)| name.as_ptr())
}

pub(crate) unsafe extern "C" fn hipGetErrorString(error: hipError_t) -> *const c_char {
    count(idx!("hipGetErrorString"));
    describe_as_hip(error).map_or(c"unknown error".as_ptr(), |(_, text)| text.as_ptr())
}
