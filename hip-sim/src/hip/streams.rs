//! Streams: `hipStreamCreate*`, `hipStreamDestroy`, synchronization and
//! queries, `hipStreamWaitEvent`, priorities and flags, and
//! `hipDeviceSynchronize`.

use crate::bindings::hip::{hipError_t, hipStream_t};
use crate::entry::{call, call_with, write_out, SYNCHRONIZES};
use crate::machine::calls::idx;
use crate::machine::capture;
use crate::machine::event;
use crate::machine::handles::new_handle;
use crate::machine::lock::lock;
use crate::machine::queue::{Dep, StreamQueue, GREATEST_PRIORITY, LEAST_PRIORITY, NORMAL_PRIORITY};
use crate::machine::races;
use crate::machine::sim;
use crate::machine::thread::current_device;
use crate::machine::violations;
use crate::submit::{self, Op};
use crate::targets::{self, checked_target, target, LEGACY, PER_THREAD};
use crate::trace::Flow;
use std::sync::Arc;

fn create(out: *mut hipStream_t, flags: u32, priority: i32) -> Result<(), hipError_t> {
    if out.is_null() {
        return Err(hipError_t::hipErrorInvalidValue);
    }
    if flags > crate::bindings::hip::hipStreamNonBlocking {
        return Err(hipError_t::hipErrorInvalidValue);
    }
    let device = current_device();
    let d = sim().device(device).ok_or(hipError_t::hipErrorInvalidDevice)?;
    // clr: at most -1 is High (-1), at least 1 is Low (1), else Normal (0).
    let priority = priority.clamp(GREATEST_PRIORITY, LEAST_PRIORITY);
    let handle = new_handle();
    let name = format!("stream {handle:#x} of device {device}");
    let queue = StreamQueue::new(device, false, flags, priority, name, d.retired.clone());
    lock(&d.streams).push(Arc::downgrade(&queue));
    targets::insert(handle, queue);
    // SAFETY: checked non-null; valid per the C contract.
    unsafe { write_out(out, handle as hipStream_t) }
}

pub(crate) unsafe extern "C" fn hipStreamCreate(stream: *mut hipStream_t) -> hipError_t {
    call(idx!("hipStreamCreate"), || create(stream, 0, NORMAL_PRIORITY))
}

pub(crate) unsafe extern "C" fn hipStreamCreateWithFlags(stream: *mut hipStream_t, flags: u32) -> hipError_t {
    call(idx!("hipStreamCreateWithFlags"), || create(stream, flags, NORMAL_PRIORITY))
}

pub(crate) unsafe extern "C" fn hipStreamCreateWithPriority(
    stream: *mut hipStream_t,
    flags: u32,
    priority: i32,
) -> hipError_t {
    call(idx!("hipStreamCreateWithPriority"), || create(stream, flags, priority))
}

pub(crate) unsafe extern "C" fn hipStreamDestroy(stream: hipStream_t) -> hipError_t {
    call(idx!("hipStreamDestroy"), || {
        match stream as usize {
            0 | PER_THREAD => return Err(hipError_t::hipErrorInvalidHandle),
            LEGACY if targets::legacy_known() => return Err(hipError_t::hipErrorInvalidHandle),
            _ => {}
        }
        let queue = targets::remove(stream as usize).ok_or(hipError_t::hipErrorContextIsDestroyed)?;
        violations::check("hipStreamDestroy", queue.device);
        // clr: no error; the stream leaves its capture (an origin ends it).
        capture::on_destroy(&queue);
        // Work already queued still runs (its worker holds the queue).
        Ok(())
    })
}

pub(crate) unsafe extern "C" fn hipStreamSynchronize(stream: hipStream_t) -> hipError_t {
    call_with(idx!("hipStreamSynchronize"), SYNCHRONIZES, || {
        let queue = checked_target("hipStreamSynchronize", stream)?;
        capture::check_stream_wait(&queue)?;
        // An empty blocking task waits for everything before it, including,
        // for the null stream, the device's blocking streams.
        submit::submit(&queue, true, Op::new("hipStreamSynchronize"), || Ok(()))?;
        if let Some(d) = sim().device(queue.device) {
            d.pools.after_synchronize(&d.memory);
        }
        Ok(())
    })
}

pub(crate) unsafe extern "C" fn hipStreamQuery(stream: hipStream_t) -> hipError_t {
    call(idx!("hipStreamQuery"), || {
        let queue = checked_target("hipStreamQuery", stream)?;
        capture::check_stream_wait(&queue)?;
        if let Some(clock) = queue.idle_clock() {
            // Seen done: the host is now ordered after its work.
            if races::race_check_enabled() {
                races::host_join(&clock);
            }
            Ok(())
        } else {
            Err(hipError_t::hipErrorNotReady)
        }
    })
}

pub(crate) unsafe extern "C" fn hipStreamWaitEvent(
    stream: hipStream_t,
    event: crate::bindings::hip::hipEvent_t,
    flags: u32,
) -> hipError_t {
    call(idx!("hipStreamWaitEvent"), || {
        if flags != 0 {
            return Err(hipError_t::hipErrorInvalidValue);
        }
        let queue = checked_target("hipStreamWaitEvent", stream)?;
        let event = event::lookup(event).ok_or(hipError_t::hipErrorInvalidHandle)?;
        let (record, recorded_on) = event.capture_record();
        if let capture::Wait::Done = capture::wait_event(&queue, record.as_ref(), recorded_on)? {
            return Ok(());
        }
        match event.last_recording_clock() {
            (0, _) => Ok(()),
            (generation, clock) => {
                let flow = Some(Flow::In(Flow::id(Arc::as_ptr(&event) as usize, generation)));
                let op = Op { after: clock, flow, ..Op::new("hipStreamWaitEvent") };
                submit::submit_with(&queue, false, vec![Dep::Event(event, generation)], op, Arc::new(|| Ok(())))
                    .map(drop)
            }
        }
    })
}

pub(crate) unsafe extern "C" fn hipStreamGetPriority(stream: hipStream_t, priority: *mut i32) -> hipError_t {
    call(idx!("hipStreamGetPriority"), || {
        let queue = target(stream)?;
        // SAFETY: null is rejected by write_out.
        unsafe { write_out(priority, queue.priority) }
    })
}

pub(crate) unsafe extern "C" fn hipStreamGetFlags(stream: hipStream_t, flags: *mut u32) -> hipError_t {
    call(idx!("hipStreamGetFlags"), || {
        // clr: `flags != nullptr && stream != nullptr`, else InvalidValue;
        // 7.x reads hipStreamLegacy as a stream object, which the
        // simulator refuses as the null stream.
        if stream.is_null() || stream as usize == LEGACY {
            return Err(hipError_t::hipErrorInvalidValue);
        }
        let queue = target(stream)?;
        // SAFETY: null is rejected by write_out.
        unsafe { write_out(flags, queue.flags) }
    })
}

pub(crate) unsafe extern "C" fn hipDeviceGetStreamPriorityRange(least: *mut i32, greatest: *mut i32) -> hipError_t {
    call(idx!("hipDeviceGetStreamPriorityRange"), || {
        // SAFETY: HIP accepts null for either; write_out would reject null, so test first.
        unsafe {
            if !least.is_null() {
                write_out(least, LEAST_PRIORITY)?;
            }
            if !greatest.is_null() {
                write_out(greatest, GREATEST_PRIORITY)?;
            }
        }
        Ok(())
    })
}

pub(crate) unsafe extern "C" fn hipDeviceSynchronize() -> hipError_t {
    call_with(idx!("hipDeviceSynchronize"), SYNCHRONIZES, || {
        capture::check_device_synchronize()?;
        submit::synchronize_device("hipDeviceSynchronize", current_device())
    })
}
