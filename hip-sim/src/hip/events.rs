//! Events: `hipEventCreate*`, `hipEventRecord`, synchronization and
//! queries, `hipEventElapsedTime` and `hipEventDestroy`.

use crate::bindings::hip::{hipError_t, hipEvent_t, hipStream_t};
use crate::entry::{call, call_with, write_out, SYNCHRONIZES};
use crate::machine::calls::idx;
use crate::machine::capture;
use crate::machine::event::{self, EventObj};
use crate::machine::faults;
use crate::machine::handles::new_handle;
use crate::machine::thread::current_device;
use crate::machine::violations;
use crate::submit::{self, Op};
use crate::targets::checked_target;
use crate::trace::Flow;
use std::sync::Arc;

fn checked(function: &'static str, event: hipEvent_t) -> Result<Arc<EventObj>, hipError_t> {
    if event.is_null() {
        return Err(hipError_t::hipErrorInvalidHandle);
    }
    let event = event::lookup(event).ok_or(hipError_t::hipErrorContextIsDestroyed)?;
    violations::check(function, event.device);
    Ok(event)
}

/// The release and fence flags, of which clr allows at most one.
const RELEASE_FLAGS: u32 = crate::bindings::newer::hipEventDisableSystemFence
    | crate::bindings::newer::hipEventReleaseToDevice
    | crate::bindings::newer::hipEventReleaseToSystem;
/// Every flag clr's `ihipEventCreateWithFlags` accepts.
const KNOWN_FLAGS: u32 = crate::bindings::hip::hipEventBlockingSync
    | crate::bindings::hip::hipEventDisableTiming
    | crate::bindings::hip::hipEventInterprocess
    | RELEASE_FLAGS;

/// Whether clr accepts `flags`: only known bits, at most one release or
/// fence flag, and `hipEventInterprocess` only with `hipEventDisableTiming`.
fn valid_flags(flags: u32) -> bool {
    flags & !KNOWN_FLAGS == 0
        && (flags & RELEASE_FLAGS).count_ones() <= 1
        && (flags & crate::bindings::hip::hipEventInterprocess == 0
            || flags & crate::bindings::hip::hipEventDisableTiming != 0)
}

fn create(out: *mut hipEvent_t, flags: u32) -> Result<(), hipError_t> {
    if out.is_null() || !valid_flags(flags) {
        return Err(hipError_t::hipErrorInvalidValue);
    }
    let event = Arc::new(EventObj::new(current_device(), flags));
    let handle = new_handle();
    event::insert(handle, event);
    // SAFETY: checked non-null.
    unsafe { write_out(out, handle as hipEvent_t) }
}

pub(crate) unsafe extern "C" fn hipEventCreate(event: *mut hipEvent_t) -> hipError_t {
    call(idx!("hipEventCreate"), || create(event, 0))
}

pub(crate) unsafe extern "C" fn hipEventCreateWithFlags(event: *mut hipEvent_t, flags: u32) -> hipError_t {
    call(idx!("hipEventCreateWithFlags"), || create(event, flags))
}

pub(crate) unsafe extern "C" fn hipEventRecord(event: hipEvent_t, stream: hipStream_t) -> hipError_t {
    call(idx!("hipEventRecord"), || {
        let event = checked("hipEventRecord", event)?;
        let queue = checked_target("hipEventRecord", stream)?;
        if queue.device != event.device {
            // HIP and CUDA: the event and the stream must share a device.
            return Err(hipError_t::hipErrorInvalidHandle);
        }
        if let Some(record) = capture::record_event(&queue) {
            event.captured_in(record, queue.actor.component());
            return Ok(());
        }
        let generation = event.begin_recording((!queue.is_null).then(|| queue.actor.component()));
        let recorded = event.clone();
        let flow = Some(Flow::Out(Flow::id(Arc::as_ptr(&event) as usize, generation)));
        let op = Op { want_clock: true, flow, ..Op::new("hipEventRecord") };
        let work = Arc::new(move || {
            let recorded = recorded.clone();
            crate::machine::queue::when_counted(move || recorded.complete(generation));
            Ok(())
        });
        let clock = submit::submit_with(&queue, false, Vec::new(), op, work)?;
        if let Some(clock) = clock {
            event.set_recording_clock(generation, clock);
        }
        Ok(())
    })
}

pub(crate) unsafe extern "C" fn hipEventSynchronize(event: hipEvent_t) -> hipError_t {
    call_with(idx!("hipEventSynchronize"), SYNCHRONIZES, || {
        let event = checked("hipEventSynchronize", event)?;
        let (record, recorded_on) = event.capture_record();
        capture::check_event_wait(record.as_ref())?;
        if recorded_on.is_some() {
            capture::check_other_stream_wait()?;
        }
        let generation = event.last_recording();
        event.wait(generation);
        event.host_saw(generation);
        faults::sticky().map_or(Ok(()), Err)
    })
}

pub(crate) unsafe extern "C" fn hipEventQuery(event: hipEvent_t) -> hipError_t {
    call(idx!("hipEventQuery"), || {
        let event = checked("hipEventQuery", event)?;
        let (record, recorded_on) = event.capture_record();
        capture::check_event_wait(record.as_ref())?;
        if recorded_on.is_some() {
            // Stricter than clr, as CUDA is (cudaEventQuery of an event
            // recorded outside the capture, during a Global capture or one
            // of the thread's, is cudaErrorStreamCaptureUnsupported and
            // invalidates it): code that runs on both must not do it.
            capture::check_other_stream_wait()?;
        }
        let (completed, recorded) = event.latest_done();
        if completed {
            event.host_saw(recorded);
            Ok(())
        } else {
            Err(hipError_t::hipErrorNotReady)
        }
    })
}

pub(crate) unsafe extern "C" fn hipEventElapsedTime(ms: *mut f32, start: hipEvent_t, stop: hipEvent_t) -> hipError_t {
    call(idx!("hipEventElapsedTime"), || {
        if ms.is_null() {
            return Err(hipError_t::hipErrorInvalidValue);
        }
        let start = checked("hipEventElapsedTime", start)?;
        let stop = checked("hipEventElapsedTime", stop)?;
        if start.device != stop.device || (start.flags | stop.flags) & crate::bindings::hip::hipEventDisableTiming != 0
        {
            return Err(hipError_t::hipErrorInvalidHandle);
        }
        let (start_rec, start_done, start_time) = start.timing();
        let (stop_rec, stop_done, stop_time) = stop.timing();
        if start_rec == 0 || stop_rec == 0 {
            return Err(hipError_t::hipErrorInvalidHandle);
        }
        if !start_done || !stop_done {
            return Err(hipError_t::hipErrorNotReady);
        }
        let (Some(a), Some(b)) = (start_time, stop_time) else {
            return Err(hipError_t::hipErrorNotReady);
        };
        let elapsed = if b >= a { (b - a).as_secs_f64() } else { -((a - b).as_secs_f64()) };
        // SAFETY: checked non-null.
        unsafe { write_out(ms, (elapsed * 1e3) as f32) }
    })
}

pub(crate) unsafe extern "C" fn hipEventDestroy(event: hipEvent_t) -> hipError_t {
    call(idx!("hipEventDestroy"), || {
        if event.is_null() {
            return Err(hipError_t::hipErrorInvalidHandle);
        }
        let removed = event::remove(event as usize);
        let event = removed.ok_or(hipError_t::hipErrorContextIsDestroyed)?;
        violations::check("hipEventDestroy", event.device);
        // The exporter's event went: its handle stops opening.
        if let Some(page) = event.page().filter(|p| p.owner() == crate::machine::ipc::this_process()) {
            page.unlink();
        }
        Ok(())
    })
}
