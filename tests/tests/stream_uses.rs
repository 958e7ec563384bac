//! Memory used on streams other than its own (issue 15): a buffer's uses
//! on other streams are recorded as events when they are enqueued, later
//! conflicting uses wait for them on the GPU, and a dropped buffer's block
//! is not handed to a new owner before those uses are over.
//!
//! The simulator runs each stream on its own worker thread, so a missing
//! order shows as wrong results. `sim::hold_stream` holds a stream still
//! (the "long copy" of the issue) and makes the scenarios deterministic:
//! a helper thread lets it go after a while, so a use that correctly waits
//! for it finishes, and one that does not runs before it.

use amdgpu::libs::{dnn, fft, sparse, Library};
use amdgpu::prelude::*;
use amdgpu::{DeviceCopy, Function};
use hip_core::LaunchConfig;
use hip_pool::Buffer;
use hip_sys::sim::StreamHold;
use hip_sys::{sim, Backend};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

mod common;
use common::have;

/// Hold `stream` still (as a long copy queued on it would) and let it go
/// after `after` on a helper thread.
fn hold_for(stream: &Stream, after: Duration) -> std::thread::JoinHandle<()> {
    let hold = sim::hold_stream(stream.as_raw()).expect("hold the stream");
    std::thread::spawn(move || {
        std::thread::sleep(after);
        drop(hold);
    })
}

fn sim_only() -> bool {
    let ok = amdgpu::backend() == Backend::Sim;
    if !ok {
        eprintln!("skipped: the scenario holds streams, which only the simulator can do");
    }
    ok
}

fn assert_no_violations() {
    let v = sim::violations();
    assert!(v.is_empty(), "context violations: {v:?}");
}

/// An `n` × `n` identity matrix in CSR form.
fn identity(stream: &Stream, n: usize) -> sparse::CsrMatrix<f32> {
    let row_ptr: Vec<i32> = (0..=n as i32).collect();
    let col_ind: Vec<i32> = (0..n as i32).collect();
    let values = vec![1.0f32; n];
    sparse::CsrMatrix::from_host(stream, n, n, &row_ptr, &col_ind, &values).expect("the matrix")
}

/// The scenario: `x` on the thread's stream A is read by an SpMV
/// queued on `y`'s stream B behind a long copy; `x` is dropped and a new
/// array of its size on A gets its block and zeroes it. The SpMV must
/// still read ones.
#[test]
fn a_dropped_input_is_not_reused_while_another_stream_still_reads_it() {
    let _x = sim::exclusive();
    if !sim_only() || !have(Library::Rocsparse) {
        return;
    }
    sim::clear_violations();
    let n = 1 << 20;
    let a = stream();
    let b = Stream::new().unwrap();
    let m = identity(&a, n);
    let x = DeviceArray::from_slice_on(&a, &vec![1.0f32; n]).unwrap();
    let mut y = DeviceArray::<f32>::zeros_on(&b, n).unwrap();
    let release = hold_for(&b, Duration::from_millis(300));
    sparse::spmv(1.0, &m, &x, 0.0, &mut y).unwrap();
    drop(x);
    let z = DeviceArray::<f32>::zeros_on(&a, n).unwrap();
    release.join().unwrap();
    let got = y.to_vec().unwrap();
    let wrong = got.iter().filter(|v| **v != 1.0).count();
    assert_eq!(wrong, 0, "{wrong} of {n} results are wrong (first: {:?})", &got[..4]);
    assert!(z.to_vec().unwrap().iter().all(|v| *v == 0.0));
    assert_no_violations();
}

/// A stream held still until [`Held::release`], or until a deadline, when
/// a helper thread lets it go and notes that the test had to wait for it
/// (a host wait on the held stream).
struct Held {
    hold: Arc<Mutex<Option<StreamHold>>>,
    timed_out: Arc<AtomicBool>,
}

impl Held {
    fn new(stream: &Stream) -> Held {
        let hold = Arc::new(Mutex::new(Some(sim::hold_stream(stream.as_raw()).expect("hold the stream"))));
        let timed_out = Arc::new(AtomicBool::new(false));
        let (h, t) = (hold.clone(), timed_out.clone());
        std::thread::spawn(move || {
            std::thread::sleep(Duration::from_secs(5));
            if let Some(hold) = h.lock().unwrap().take() {
                t.store(true, Ordering::SeqCst);
                drop(hold);
            }
        });
        Held { hold, timed_out }
    }

    /// Let the stream go; panics if the deadline did it first (something
    /// blocked the host on the held stream).
    fn release(self, what: &str) {
        drop(self.hold.lock().unwrap().take());
        assert!(!self.timed_out.load(Ordering::SeqCst), "{what} blocked the host on a held stream");
    }
}

/// The test kernels' `fill_f32`, or `None` where there are none.
fn fill_kernel() -> Option<Function> {
    common::test_module(device()).map(|m| m.function("fill_f32").expect("fill_f32"))
}

/// Enqueue `fill_f32` of `floats` floats of `buffer` with `value` on
/// `stream`, declaring the write, as users of the launch API do.
fn fill_on(fill: &Function, buffer: &Buffer, floats: usize, value: f32, stream: &Stream) {
    buffer.prepare_write(stream).unwrap();
    let (ptr, n) = (buffer.as_ptr(), floats as u32);
    // SAFETY: fill_f32(float*, float, uint32_t) over `floats` floats of the buffer.
    unsafe { fill.launch(LaunchConfig::for_elements(floats, 256), stream, &[&ptr, &value, &n]) }.unwrap();
    buffer.record_write(stream).unwrap();
}

/// One library operation with its input `x` written on stream A, held,
/// and its output on stream B: the operation must not block the host, and
/// must give what it gives with every operand on one stream. `x` is
/// dropped at once and its block given to a new array on A, as in the
/// issue. `floats` is the number of floats of `x` (2 per complex).
#[allow(clippy::too_many_arguments)]
fn cross_stream_case<X: DeviceCopy, Y: DeviceCopy + PartialEq + std::fmt::Debug>(
    name: &str,
    fill: &Function,
    x_len: usize,
    floats: usize,
    x_value: X,
    value: f32,
    y_len: usize,
    op: impl Fn(&mut DeviceArray<X>, &mut DeviceArray<Y>),
) {
    let (a, b) = (Stream::new().unwrap(), Stream::new().unwrap());
    let mut x_ref = DeviceArray::from_slice_on(&b, &vec![x_value; x_len]).unwrap();
    // SAFETY: written by the operation before it is read (outputs only).
    let mut y_ref = unsafe { DeviceArray::<Y>::uninit_on(b.device(), y_len, &b) }.unwrap();
    op(&mut x_ref, &mut y_ref);
    let want = y_ref.to_vec().unwrap();

    let mut x = DeviceArray::<X>::zeros_on(&a, x_len).unwrap();
    let mut y = DeviceArray::<Y>::zeros_on(&b, y_len).unwrap();
    let held = Held::new(&a);
    fill_on(fill, x.buffer(), floats, value, &a);
    op(&mut x, &mut y);
    drop(x);
    // SAFETY: only its length matters: it takes x's block.
    let reuse = unsafe { DeviceArray::<X>::uninit_on(a.device(), x_len, &a) }.unwrap();
    fill_on(fill, reuse.buffer(), floats, -7.0, &a);
    held.release(name);
    assert_eq!(y.to_vec().unwrap(), want, "{name}: wrong results");
    drop(reuse);
}

#[test]
fn library_operations_wait_for_inputs_of_other_streams_on_the_gpu() {
    let _x = sim::exclusive();
    if !sim_only() {
        return;
    }
    let Some(fill) = fill_kernel() else { return };
    sim::clear_violations();
    let n = 4096;
    if have(Library::Rocsparse) {
        let m = identity(&stream(), n);
        cross_stream_case("spmv", &fill, n, n, 2.5f32, 2.5, n, |x, y| {
            sparse::spmv(1.0, &m, &*x, 0.0, y).unwrap();
        });
        let k = 3;
        cross_stream_case("spmm", &fill, n * k, n * k, 1.5f32, 1.5, n * k, |x, y| {
            sparse::spmm(2.0, &m, &*x, k, 0.0, y, sparse::DenseOrder::ColumnMajor).unwrap();
        });
    }
    if have(Library::Rocfft) {
        let shape = [64usize, 64];
        let points = 64 * 64;
        let c = [0.5f32, 0.5];
        cross_stream_case("c2c", &fill, points, 2 * points, c, 0.5, points, |x, y| {
            fft::c2c(&*x, y, &shape, 1, fft::Direction::Forward).unwrap();
        });
        let half = 64 * 33;
        cross_stream_case("r2c", &fill, points, points, 0.25f32, 0.25, half, |x, y| {
            fft::r2c(&*x, y, &shape, 1).unwrap();
        });
        cross_stream_case("c2r", &fill, half, 2 * half, c, 0.5, points, |x, y: &mut DeviceArray<f32>| {
            fft::c2r(x, y, &shape, 1).unwrap();
        });
    }
    if have(Library::Miopen) {
        let shape = dnn::Shape4::new(2, 4, 8, 8);
        cross_stream_case("softmax", &fill, shape.len(), shape.len(), 0.75f32, 0.75, shape.len(), |x, y| {
            dnn::softmax(&*x, y, shape, dnn::SoftmaxAlgorithm::Accurate, dnn::SoftmaxMode::Channel).unwrap();
        });
        cross_stream_case("activation", &fill, shape.len(), shape.len(), -0.75f32, -0.75, shape.len(), |x, y| {
            dnn::activation(&*x, y, shape, dnn::Activation::Abs).unwrap();
        });
        let filter = dnn::Shape4::new(3, 4, 3, 3);
        let params = dnn::Conv2d::default();
        let out = dnn::conv2d_output_shape(shape, filter, params).unwrap();
        let w = DeviceArray::from_slice(&vec![0.5f32; filter.len()]).unwrap();
        cross_stream_case("conv2d", &fill, shape.len(), shape.len(), 1.25f32, 1.25, out.len(), |x, y| {
            dnn::conv2d_forward(&*x, shape, &w, filter, y, params).unwrap();
        });
    }
    assert_no_violations();
}

/// A write on the own stream waits for a read queued on another stream
/// (write after read), and the read sees the old values.
#[test]
fn a_write_waits_for_a_read_on_another_stream() {
    let _x = sim::exclusive();
    if !sim_only() || !have(Library::Rocsparse) {
        return;
    }
    let Some(fill) = fill_kernel() else { return };
    sim::clear_violations();
    let n = 4096;
    let (a, b) = (stream(), Stream::new().unwrap());
    let m = identity(&a, n);
    let x = DeviceArray::from_slice_on(&a, &vec![3.0f32; n]).unwrap();
    let mut y = DeviceArray::<f32>::zeros_on(&b, n).unwrap();
    let held = Held::new(&b);
    sparse::spmv(1.0, &m, &x, 0.0, &mut y).unwrap();
    fill_on(&fill, x.buffer(), n, 9.0, &a);
    held.release("a write after a read");
    assert!(y.to_vec().unwrap().iter().all(|v| *v == 3.0), "the read saw the later write");
    assert!(x.to_vec().unwrap().iter().all(|v| *v == 9.0));
    assert_no_violations();
}

/// An output dropped while the operation that writes it is queued: its
/// block goes to a new array on another stream only after the write.
#[test]
fn a_dropped_output_is_not_reused_before_its_write() {
    let _x = sim::exclusive();
    if !sim_only() || !have(Library::Rocsparse) {
        return;
    }
    let Some(fill) = fill_kernel() else { return };
    sim::clear_violations();
    let n = 1 << 16;
    let (a, b) = (stream(), Stream::new().unwrap());
    let m = identity(&a, n);
    let x = DeviceArray::from_slice_on(&a, &vec![1.0f32; n]).unwrap();
    let mut y = DeviceArray::<f32>::zeros_on(&b, n).unwrap();
    let held = Held::new(&b);
    sparse::spmv(1.0, &m, &x, 0.0, &mut y).unwrap();
    drop(y);
    // SAFETY: filled below before it is read.
    let z = unsafe { DeviceArray::<f32>::uninit_on(a.device(), n, &a) }.unwrap();
    fill_on(&fill, z.buffer(), n, 4.0, &a);
    held.release("reusing a dropped output");
    assert!(z.to_vec().unwrap().iter().all(|v| *v == 4.0), "the queued write landed after the new owner's");
    assert_no_violations();
}

/// The scenario with `x` dropped on another thread, and the
/// matrix dropped too while the product is queued.
#[test]
fn drops_on_other_threads_keep_queued_uses_safe() {
    let _x = sim::exclusive();
    if !sim_only() || !have(Library::Rocsparse) {
        return;
    }
    let Some(fill) = fill_kernel() else { return };
    sim::clear_violations();
    let n = 1 << 16;
    let (a, b) = (stream(), Stream::new().unwrap());
    let m = identity(&a, n);
    let x = DeviceArray::from_slice_on(&a, &vec![1.0f32; n]).unwrap();
    let mut y = DeviceArray::<f32>::zeros_on(&b, n).unwrap();
    let held = Held::new(&b);
    sparse::spmv(1.0, &m, &x, 0.0, &mut y).unwrap();
    std::thread::spawn(move || {
        drop(x);
        drop(m);
    })
    .join()
    .unwrap();
    // Take the blocks of x and of the matrix's arrays, and overwrite them.
    let mut taken = Vec::new();
    for _ in 0..4 {
        // SAFETY: filled below; never read.
        let z = unsafe { DeviceArray::<f32>::uninit_on(a.device(), n, &a) }.unwrap();
        fill_on(&fill, z.buffer(), n, -1.0, &a);
        taken.push(z);
    }
    held.release("reuse after drops on another thread");
    assert!(y.to_vec().unwrap().iter().all(|v| *v == 1.0), "the product read reused memory");
    assert_no_violations();
}

/// `set_stream` orders the old stream's queued work before the new one's.
#[test]
fn set_stream_orders_the_old_stream_before_the_new() {
    let _x = sim::exclusive();
    if !sim_only() {
        return;
    }
    let Some(fill) = fill_kernel() else { return };
    sim::clear_violations();
    let n = 4096;
    let (a, b) = (Stream::new().unwrap(), Stream::new().unwrap());
    let mut x = DeviceArray::<f32>::zeros_on(&a, n).unwrap();
    let release = hold_for(&a, Duration::from_millis(200));
    fill_on(&fill, x.buffer(), n, 5.0, &a);
    x.set_stream(&b).unwrap();
    // Read on B: must see A's fill, queued behind the hold.
    assert!(x.to_vec().unwrap().iter().all(|v| *v == 5.0), "B read before A's queued write");
    release.join().unwrap();
    assert_no_violations();
}

/// A reclaim while uses are pending waits for them before the driver
/// frees the memory, and the statistics stay exact.
#[test]
fn reclaim_waits_for_pending_uses() {
    let _x = sim::exclusive();
    if !sim_only() || !have(Library::Rocsparse) {
        return;
    }
    sim::clear_violations();
    let n = 1 << 16;
    let d = device();
    let before = amdgpu::pool::stats(d);
    let (a, b) = (stream(), Stream::new().unwrap());
    let m = identity(&a, n);
    let x = DeviceArray::from_slice_on(&a, &vec![2.0f32; n]).unwrap();
    let mut y = DeviceArray::<f32>::zeros_on(&b, n).unwrap();
    let release = hold_for(&b, Duration::from_millis(200));
    sparse::spmv(1.0, &m, &x, 0.0, &mut y).unwrap();
    drop(x);
    amdgpu::pool::reclaim(d).unwrap();
    release.join().unwrap();
    assert!(y.to_vec().unwrap().iter().all(|v| *v == 2.0));
    drop((m, y));
    amdgpu::pool::reclaim(d).unwrap();
    let after = amdgpu::pool::stats(d);
    assert_eq!(after.live_buffers, before.live_buffers, "{before} then {after}");
    assert_eq!(after.allocated, before.allocated, "{before} then {after}");
    assert_no_violations();
}
