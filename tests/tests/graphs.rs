//! hip-core's capture scope and graphs: captured work runs only when
//! launched, every launch replays it, a failed or panicking closure still
//! ends the capture, an invalidated capture leaves the stream usable, an
//! update refuses another shape with its reason, and an exec dropped with
//! a launch queued is freed only after that launch.

use hip_core::raw::mem;
use hip_core::{CaptureMode, Device, GraphUpdateRefusal, HipError, Stream};
use std::ffi::c_void;

const BYTES: usize = 4096;

struct Buffer {
    device: Device,
    ptr: *mut c_void,
}

impl Buffer {
    fn new(device: Device) -> Buffer {
        let ptr = mem::malloc(device, BYTES).unwrap();
        let buffer = Buffer { device, ptr };
        buffer.write(0);
        buffer
    }

    /// Fill it now, on the host's side of every stream.
    fn write(&self, byte: u8) {
        let stream = Stream::new_on(self.device).unwrap();
        // SAFETY: BYTES of live device memory.
        unsafe { mem::fill_async(self.device, self.ptr, byte, BYTES, stream.as_raw()) }.unwrap();
        stream.synchronize().unwrap();
    }

    /// Enqueue a fill on `stream`.
    fn fill_on(&self, byte: u8, stream: &Stream) -> hip_core::Result<()> {
        // SAFETY: BYTES of live device memory, kept alive by the test past
        // every launch.
        unsafe { mem::fill_async(self.device, self.ptr, byte, BYTES, stream.as_raw()) }
    }

    fn read(&self) -> Vec<u8> {
        let mut out = vec![0u8; BYTES];
        // SAFETY: BYTES each side.
        unsafe { mem::copy(self.device, out.as_mut_ptr().cast(), self.ptr, BYTES) }.unwrap();
        out
    }
}

impl Drop for Buffer {
    fn drop(&mut self) {
        // SAFETY: our allocation, freed once.
        unsafe { mem::free(self.device, self.ptr) }.unwrap();
    }
}

fn setup() -> (hip_sys::sim::Exclusive, Device, Stream) {
    let guard = hip_sys::sim::exclusive();
    let device = Device::new(0).unwrap();
    (guard, device, Stream::new_on(device).unwrap())
}

#[test]
fn a_captured_fill_runs_at_each_launch_and_not_at_capture() {
    let (_x, device, stream) = setup();
    let buffer = Buffer::new(device);
    let (graph, ()) = stream.capture(CaptureMode::Global, |s| buffer.fill_on(9, s)).unwrap();
    assert!(!stream.is_capturing().unwrap());
    assert_eq!(graph.node_count().unwrap(), 1);
    stream.synchronize().unwrap();
    assert_eq!(buffer.read(), vec![0; BYTES], "capture does not run the work");
    let exec = graph.instantiate().unwrap();
    exec.upload(&stream).unwrap();
    stream.synchronize().unwrap();
    assert_eq!(buffer.read(), vec![0; BYTES], "an upload runs nothing");
    for _ in 0..3 {
        buffer.write(0);
        exec.launch(&stream).unwrap();
        stream.synchronize().unwrap();
        assert_eq!(buffer.read(), vec![9; BYTES]);
    }
}

#[test]
fn a_failing_or_panicking_closure_ends_the_capture() {
    let (_x, device, stream) = setup();
    let buffer = Buffer::new(device);
    let failed = stream.capture(CaptureMode::Global, |s| {
        buffer.fill_on(1, s)?;
        Err::<(), _>(HipError::InvalidLaunch("the closure's own error".into()))
    });
    assert!(matches!(failed, Err(HipError::InvalidLaunch(_))), "{failed:?}");
    assert!(!stream.is_capturing().unwrap(), "the capture ended");
    let panicked = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        let _ = stream.capture(CaptureMode::Global, |s| -> hip_core::Result<()> {
            buffer.fill_on(2, s)?;
            panic!("inside a capture")
        });
    }));
    assert!(panicked.is_err());
    assert!(!stream.is_capturing().unwrap(), "the capture ended on unwinding");
    // The stream captures again, and nothing of the discarded graphs ran.
    let (graph, ()) = stream.capture(CaptureMode::Global, |s| buffer.fill_on(3, s)).unwrap();
    assert_eq!(graph.node_count().unwrap(), 1);
    stream.synchronize().unwrap();
    assert_eq!(buffer.read(), vec![0; BYTES]);
}

#[test]
fn an_invalidated_capture_is_an_error_and_the_stream_works_after() {
    let (_x, device, stream) = setup();
    let buffer = Buffer::new(device);
    let invalidates = hip_sys::backend() != hip_sys::Backend::Sim || {
        let mut v = 0;
        // SAFETY: a valid out-pointer.
        let status = unsafe { (hip_sys::hip().unwrap().hipRuntimeGetVersion)(&mut v) };
        assert_eq!(status, hip_sys::hipError_t::hipSuccess);
        v / 10_000_000 >= 6
    };
    let result = stream.capture(CaptureMode::Global, |s| {
        buffer.fill_on(4, s)?;
        // Forbidden during a Global capture: an allocation.
        let refused = mem::malloc(device, 64);
        assert_eq!(refused.err().and_then(|e| e.code()), Some(hip_sys::hipError_t::hipErrorStreamCaptureUnsupported));
        Ok::<_, HipError>(())
    });
    if invalidates {
        let code = result.err().and_then(|e| e.code());
        assert_eq!(code, Some(hip_sys::hipError_t::hipErrorStreamCaptureInvalidated));
    } else {
        assert!(result.is_ok(), "HIP 5 does not invalidate");
    }
    buffer.fill_on(5, &stream).unwrap();
    stream.synchronize().unwrap();
    assert_eq!(buffer.read(), vec![5; BYTES], "the stream runs work again");
}

#[test]
fn an_update_takes_a_graph_of_the_same_shape_and_names_why_not() {
    let (_x, device, stream) = setup();
    let buffer = Buffer::new(device);
    let (first, ()) = stream.capture(CaptureMode::Global, |s| buffer.fill_on(6, s)).unwrap();
    let (same, ()) = stream.capture(CaptureMode::Global, |s| buffer.fill_on(7, s)).unwrap();
    let (two, ()) = stream
        .capture(CaptureMode::Global, |s| {
            buffer.fill_on(8, s)?;
            buffer.fill_on(8, s)
        })
        .unwrap();
    let mut exec = first.instantiate().unwrap();
    exec.launch(&stream).unwrap();
    let refused = exec.update(&two);
    assert!(matches!(refused, Err(HipError::GraphUpdate(GraphUpdateRefusal::TopologyChanged))), "{refused:?}");
    exec.update(&same).unwrap();
    exec.launch(&stream).unwrap();
    stream.synchronize().unwrap();
    assert_eq!(buffer.read(), vec![7; BYTES]);
}

#[test]
fn an_exec_dropped_with_a_launch_queued_is_freed_after_it() {
    let (_x, device, stream) = setup();
    let buffer = Buffer::new(device);
    let (graph, ()) = stream.capture(CaptureMode::Global, |s| buffer.fill_on(11, s)).unwrap();
    let exec = graph.instantiate().unwrap();
    hip_sys::sim::clear_violations();
    let on_sim = hip_sys::backend() == hip_sys::Backend::Sim;
    let hold = on_sim.then(|| hip_sys::sim::hold_stream(stream.as_raw()).unwrap());
    exec.launch(&stream).unwrap();
    let dropper = std::thread::spawn(move || drop(exec));
    std::thread::sleep(std::time::Duration::from_millis(20));
    drop(hold);
    dropper.join().unwrap();
    stream.synchronize().unwrap();
    assert_eq!(buffer.read(), vec![11; BYTES]);
    let in_use =
        hip_sys::sim::violations().iter().filter(|v| v.kind == hip_sys::sim::ViolationKind::GraphExecInUse).count();
    assert_eq!(in_use, 0, "the drop waited for the queued launch");
}
