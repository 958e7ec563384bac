//! `hipLaunchHostFunc`: a host function run in a stream's order.
//!
//! As in clr (`hipLaunchHostFunc_common`, 5.7 to 7.x): a null function is
//! `hipErrorInvalidValue`, checked before the stream, and an unknown stream
//! `hipErrorContextIsDestroyed`. The function runs on the stream's worker
//! once the work before it is done, and the stream's later work waits for
//! it to return. A stream of a device that is not current is a violation,
//! as for every call on an object of another device.

use crate::bindings::hip::{hipError_t, hipHostFn_t, hipStream_t};
use crate::entry::call;
use crate::machine::calls::idx;
use crate::submit::{submit, Op};
use crate::targets::checked_target;
use std::ffi::c_void;

pub(crate) unsafe extern "C" fn hipLaunchHostFunc(
    stream: hipStream_t,
    function: hipHostFn_t,
    user_data: *mut c_void,
) -> hipError_t {
    call(idx!("hipLaunchHostFunc"), || {
        let function = function.ok_or(hipError_t::hipErrorInvalidValue)?;
        let queue = checked_target("hipLaunchHostFunc", stream)?;
        // Carried as an address: the caller vouches for it until the call.
        let user_data = user_data as usize;
        submit(&queue, false, Op::new("hipLaunchHostFunc"), move || {
            // SAFETY: HIP's contract: the caller gave a function that
            // takes this pointer, valid until the function has run.
            unsafe { function(user_data as *mut c_void) };
            Ok(())
        })
    })
}
