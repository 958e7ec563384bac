//! Captured work replayed through the facade: a long kernel chain and the
//! library calls (GEMM, FFT, SpMV, replayed on another stream) give, at
//! every replay, what the same work gives eagerly; one exec's launches on
//! two streams never overlap; what a capture cannot do (a library's
//! handle, plan, analysis or search; a wait; a blocking copy) is a typed
//! error and the capture survives; an exec dropped during a capture is
//! freed after it; each graph has its own rocBLAS workspace, and keeps
//! it, the kernels'
//! module and the pinned host buffers it uses, and host access waits for
//! its replays; pinned memory and event waits on any thread during a
//! capture; the training-step example. On the GPU the chain is
//! 2048 kernels replayed 100 times; on the simulator 2048 kernels replayed
//! 3 times (each kernel runs on the CPU there).

use amdgpu::blas::{self, Gemm};
use amdgpu::kernel::{In, Kernel, Len, Out};
use amdgpu::libs::{dnn, fft, sparse, LibError, Library};
use amdgpu::runtime::CaptureMode;
use amdgpu::runtime::HipError;
use amdgpu::{Device, DeviceArray, LaunchConfig, Module, Stream};
use hip_sys::sim;

mod common;
use common::{have, noise, on_sim, test_module};

type Axpy = (f32, In<f32>, Out<f32>, Len);
type Fill = (Out<u32>, u32, Len);

/// The test kernels' `fill_u32` on `device`, with the module that keeps it
/// loaded; `None` (with a note) where the backend has no test kernels.
fn fill_kernel(device: Device) -> Option<(Module, Kernel<Fill>)> {
    let module = test_module(device)?;
    // SAFETY: fill_u32(uint32_t* out, uint32_t value, uint32_t n) writes [0, n).
    let fill = unsafe { Kernel::<Fill>::from_module(&module, "fill_u32") }.unwrap();
    Some((module, fill))
}

#[test]
fn a_chain_of_2048_kernels_replays_exactly_at_every_launch() {
    let _x = sim::exclusive();
    let device = Device::new(0).unwrap();
    let Some(module) = test_module(device) else { return };
    // SAFETY: axpy_f32(float a, const float* x, float* y, uint32_t n) touches [0, n) of x and y.
    let axpy = unsafe { Kernel::<Axpy>::from_module(&module, "axpy_f32") }.unwrap();
    let (n, chain, replays) = if on_sim() { (64, 2048, 3) } else { (1024, 2048, 100) };
    let stream = Stream::new_on(device).unwrap();
    let x: Vec<f32> = (0..n).map(|i| (i % 7) as f32).collect();
    let dx = DeviceArray::from_slice_on(&stream, &x).unwrap();
    let mut dy = DeviceArray::<f32>::zeros_on(&stream, n).unwrap();
    let config = LaunchConfig::linear(device, n).unwrap();
    let (graph, ()) = stream
        .capture(CaptureMode::Global, |s| {
            for _ in 0..chain {
                axpy.launch(config, s, (1.0, &dx, &mut dy, n as u32))?;
            }
            Ok::<_, amdgpu::Error>(())
        })
        .unwrap();
    assert_eq!(graph.node_count().unwrap(), chain);
    assert_eq!(dy.to_vec().unwrap(), vec![0.0; n], "the capture ran nothing");
    let exec = graph.instantiate().unwrap();
    for _ in 0..replays {
        exec.launch(&stream).unwrap();
    }
    // y = replays × chain × x, exact in f32 (below 2^24).
    let want: Vec<f32> = x.iter().map(|v| v * (replays * chain) as f32).collect();
    assert_eq!(dy.to_vec().unwrap(), want);
}

#[test]
fn gemm_fft_and_spmv_replay_on_another_stream_what_they_compute_eagerly() {
    let _x = sim::exclusive();
    let stream = Stream::new_on(Device::new(0).unwrap()).unwrap();
    // Replays run on another stream than the arrays' own: their holds order them.
    let replay = Stream::new_on(Device::new(0).unwrap()).unwrap();
    if have(Library::Rocblas) {
        let (m, n, k) = (33, 17, 29);
        let a = DeviceArray::from_slice_on(&stream, &noise(m * k, 1)).unwrap();
        let b = DeviceArray::from_slice_on(&stream, &noise(k * n, 2)).unwrap();
        let mut eager = DeviceArray::<f64>::zeros_on(&stream, m * n).unwrap();
        blas::gemm(&Gemm::new(m, n, k), 1.5, &a, &b, 0.0, &mut eager).unwrap();
        let mut c = DeviceArray::<f64>::zeros_on(&stream, m * n).unwrap();
        let (graph, ()) =
            stream.capture(CaptureMode::Global, |_| blas::gemm(&Gemm::new(m, n, k), 1.5, &a, &b, 0.0, &mut c)).unwrap();
        let exec = graph.instantiate().unwrap();
        for _ in 0..2 {
            c.fill(0.0).unwrap();
            exec.launch(&replay).unwrap();
            assert_eq!(c.to_vec().unwrap(), eager.to_vec().unwrap(), "GEMM");
        }
    }
    if have(Library::Rocfft) {
        let n = 64;
        let r = noise(2 * n, 3);
        let x: Vec<[f64; 2]> = (0..n).map(|i| [r[2 * i], r[2 * i + 1]]).collect();
        let dx = DeviceArray::from_slice_on(&stream, &x).unwrap();
        let mut eager = DeviceArray::<[f64; 2]>::zeros_on(&stream, n).unwrap();
        fft::c2c(&dx, &mut eager, &[n], 1, fft::Direction::Forward).unwrap();
        let mut y = DeviceArray::<[f64; 2]>::zeros_on(&stream, n).unwrap();
        let (graph, ()) =
            stream.capture(CaptureMode::Global, |_| fft::c2c(&dx, &mut y, &[n], 1, fft::Direction::Forward)).unwrap();
        let exec = graph.instantiate().unwrap();
        for _ in 0..2 {
            y.fill(Default::default()).unwrap();
            exec.launch(&replay).unwrap();
            assert_eq!(y.to_vec().unwrap(), eager.to_vec().unwrap(), "FFT");
        }
    }
    if have(Library::Rocsparse) {
        let (rows, cols) = (3, 4);
        let (row_ptr, col_ind, values) = ([0, 2, 3, 5], [0, 3, 1, 0, 2], [1.0, 2.0, 3.0, 4.0, 5.0]);
        let a = sparse::CsrMatrix::from_host(&stream, rows, cols, &row_ptr, &col_ind, &values).unwrap();
        let dx = DeviceArray::from_slice_on(&stream, &[1.0, 2.0, 3.0, 4.0]).unwrap();
        let mut y = DeviceArray::<f64>::zeros_on(&stream, rows).unwrap();
        // The first product analyses the matrix: eagerly, before capturing.
        sparse::spmv(2.0, &a, &dx, 0.0, &mut y).unwrap();
        let (graph, ()) = stream.capture(CaptureMode::Global, |_| sparse::spmv(2.0, &a, &dx, 0.0, &mut y)).unwrap();
        let exec = graph.instantiate().unwrap();
        for _ in 0..2 {
            y.fill(Default::default()).unwrap();
            exec.launch(&replay).unwrap();
            assert_eq!(y.to_vec().unwrap(), vec![2.0 * 9.0, 2.0 * 6.0, 2.0 * 19.0], "SpMV");
        }
    }
}

#[test]
fn launches_of_one_exec_on_two_streams_run_one_after_the_other() {
    let _x = sim::exclusive();
    let device = Device::new(0).unwrap();
    let Some((_module, fill)) = fill_kernel(device) else { return };
    let (first, second) = (Stream::new_on(device).unwrap(), Stream::new_on(device).unwrap());
    let mut y = DeviceArray::<u32>::zeros_on(&first, 4096).unwrap();
    let config = LaunchConfig::linear(device, 4096).unwrap();
    let (graph, ()) = first.capture(CaptureMode::Global, |s| fill.launch(config, s, (&mut y, 7, 4096))).unwrap();
    let exec = graph.instantiate().unwrap();
    let races = common::stream_races().len();
    // Both replays write `y` at the same baked address: unordered, they race.
    exec.launch(&first).unwrap();
    exec.launch(&second).unwrap();
    exec.launch(&first).unwrap();
    second.synchronize().unwrap();
    first.synchronize().unwrap();
    assert_eq!(common::stream_races().len(), races, "replays of one exec overlapped");
    assert_eq!(y.to_vec().unwrap(), vec![7; 4096]);
}

/// Whether `result` is the typed refusal of a capture naming `operation`.
fn refused<T: std::fmt::Debug>(result: &Result<T, LibError>, operation: &str) -> bool {
    matches!(result, Err(LibError::Hip(HipError::CaptureUnderway { operation: op, .. })) if *op == operation)
}

#[test]
fn library_objects_that_a_capture_cannot_make_are_refused_and_the_capture_survives() {
    let _x = sim::exclusive();
    let stream = Stream::new_on(Device::new(0).unwrap()).unwrap();
    if have(Library::Rocfft) {
        // A size no other test plans: its plan would be made in the capture.
        let x = DeviceArray::<[f64; 2]>::zeros_on(&stream, 97).unwrap();
        let mut y = DeviceArray::<[f64; 2]>::zeros_on(&stream, 97).unwrap();
        let (graph, outcome) = stream
            .capture(CaptureMode::Global, |_| {
                Ok::<_, amdgpu::Error>(fft::c2c(&x, &mut y, &[97], 1, fft::Direction::Forward))
            })
            .unwrap();
        assert!(refused(&outcome, "rocfft_plan_create"));
        assert_eq!(graph.node_count().unwrap(), 0);
        // Outside the capture the same call makes its plan.
        fft::c2c(&x, &mut y, &[97], 1, fft::Direction::Forward).unwrap();
    }
    if have(Library::Rocsparse) {
        common::on_thread("fresh", || {
            let stream = Stream::new_on(Device::new(0).unwrap()).unwrap();
            let a = sparse::CsrMatrix::from_host(&stream, 2, 2, &[0, 1, 2], &[0, 1], &[1.0, 2.0]).unwrap();
            let dx = DeviceArray::from_slice_on(&stream, &[1.0, 1.0]).unwrap();
            let mut y = DeviceArray::<f64>::zeros_on(&stream, 2).unwrap();
            // No handle on this thread, none idle: the call would make one.
            sparse::clear_idle_handles();
            let spmv = |y: &mut DeviceArray<f64>| sparse::spmv(1.0, &a, &dx, 0.0, y);
            let (_graph, outcome) =
                stream.capture(CaptureMode::Global, |_| Ok::<_, amdgpu::Error>(spmv(&mut y))).unwrap();
            assert!(refused(&outcome, "rocsparse_create_handle"), "{outcome:?}");
            // With a handle, a matrix's first product (its analysis) is refused.
            let b = sparse::CsrMatrix::from_host(&stream, 1, 1, &[0, 1], &[0], &[3.0]).unwrap();
            let (bx, mut by) = (
                DeviceArray::from_slice_on(&stream, &[1.0]).unwrap(),
                DeviceArray::<f64>::zeros_on(&stream, 1).unwrap(),
            );
            sparse::spmv(1.0, &b, &bx, 0.0, &mut by).unwrap();
            let (_graph, outcome) =
                stream.capture(CaptureMode::Global, |_| Ok::<_, amdgpu::Error>(spmv(&mut y))).unwrap();
            assert!(refused(&outcome, "rocsparse_spmv (preprocess)"), "{outcome:?}");
            spmv(&mut y).unwrap();
            assert_eq!(y.to_vec().unwrap(), vec![1.0, 2.0]);
        });
    }
    if have(Library::Miopen) {
        let shape = dnn::Shape4::new(1, 2, 5, 5);
        let filter = dnn::Shape4::new(3, 2, 3, 3);
        let params = dnn::Conv2d { pad: (0, 0), stride: (1, 1), dilation: (1, 1) };
        let out = dnn::conv2d_output_shape(shape, filter, params).unwrap();
        let x = DeviceArray::from_slice_on(&stream, &vec![1.0f32; shape.len()]).unwrap();
        let w = DeviceArray::from_slice_on(&stream, &vec![1.0f32; filter.len()]).unwrap();
        let mut y = DeviceArray::<f32>::zeros_on(&stream, out.len()).unwrap();
        // This thread's handle exists (another problem's search made it).
        let small = dnn::Shape4::new(1, 1, 3, 3);
        let (sx, sw) = (
            DeviceArray::from_slice_on(&stream, &[1.0f32; 9]).unwrap(),
            DeviceArray::from_slice_on(&stream, &[1.0f32; 9]).unwrap(),
        );
        let mut sy = DeviceArray::<f32>::zeros_on(&stream, 1).unwrap();
        dnn::conv2d_forward(&sx, small, &sw, small, &mut sy, params).unwrap();
        let (_graph, outcome) = stream
            .capture(CaptureMode::Global, |_| {
                Ok::<_, amdgpu::Error>(dnn::conv2d_forward(&x, shape, &w, filter, &mut y, params))
            })
            .unwrap();
        assert!(refused(&outcome, "miopenFindConvolutionForwardAlgorithm"), "{outcome:?}");
    }
}

#[test]
fn the_simulated_libraries_refuse_what_the_real_ones_cannot_do_in_a_capture() {
    let _x = sim::exclusive();
    if !on_sim() {
        return;
    }
    let stream = Stream::new_on(Device::new(0).unwrap()).unwrap();
    // rocBLAS's handle allocates its device memory: refused in a Global capture.
    let blas = hip_sys::rocblas().unwrap();
    let result = stream.capture(CaptureMode::Global, |_| {
        let mut handle = std::ptr::null_mut();
        // SAFETY: a valid out-pointer.
        Ok::<_, HipError>(unsafe { (blas.rocblas_create_handle)(&mut handle) })
    });
    match result {
        Ok((_, status)) => assert_eq!(status, hip_sys::rocblas::rocblas_status::rocblas_status_internal_error),
        Err(error) => assert_eq!(error.code(), Some(hip_sys::hipError_t::hipErrorStreamCaptureInvalidated)),
    }
    // So does MIOpen's, which makes a rocBLAS handle.
    let dnn = hip_sys::miopen().unwrap();
    let result = stream.capture(CaptureMode::Global, |_| {
        let mut handle = std::ptr::null_mut();
        // SAFETY: a valid out-pointer.
        Ok::<_, HipError>(unsafe { (dnn.miopenCreate)(&mut handle) })
    });
    match result {
        Ok((_, status)) => assert_eq!(status, hip_sys::miopen::miopenStatus_t::miopenStatusInternalError),
        Err(error) => assert_eq!(error.code(), Some(hip_sys::hipError_t::hipErrorStreamCaptureInvalidated)),
    }
    let api = hip_sys::rocsparse().unwrap();
    let (graph, status) = stream
        .capture(CaptureMode::Relaxed, |_| {
            let mut handle = std::ptr::null_mut();
            // SAFETY: a valid out-pointer.
            Ok::<_, HipError>(unsafe { (api.rocsparse_create_handle)(&mut handle) })
        })
        .unwrap();
    // Relaxed: nothing is refused, as with HIP's own calls.
    assert_eq!(status, hip_sys::rocsparse::rocsparse_status::rocsparse_status_success);
    drop(graph);
    let result = stream.capture(CaptureMode::Global, |_| {
        let mut handle = std::ptr::null_mut();
        // SAFETY: a valid out-pointer.
        Ok::<_, HipError>(unsafe { (api.rocsparse_create_handle)(&mut handle) })
    });
    match result {
        Ok((_, status)) => {
            assert_eq!(status, hip_sys::rocsparse::rocsparse_status::rocsparse_status_internal_error)
        }
        // HIP 6 and later invalidate the capture as its hipMalloc would.
        Err(error) => assert_eq!(error.code(), Some(hip_sys::hipError_t::hipErrorStreamCaptureInvalidated)),
    }
}

#[test]
fn safe_calls_that_would_break_a_capture_are_typed_errors_and_the_capture_survives() {
    let _x = sim::exclusive();
    let device = Device::new(0).unwrap();
    let Some((_module, fill)) = fill_kernel(device) else { return };
    let stream = Stream::new_on(device).unwrap();
    let other = Stream::new_on(device).unwrap();
    let mut y = DeviceArray::<u32>::zeros_on(&stream, 256).unwrap();
    let mut z = DeviceArray::<u32>::zeros_on(&other, 256).unwrap();
    let config = LaunchConfig::linear(device, 256).unwrap();
    let underway = |e: &amdgpu::Error| matches!(e, amdgpu::Error::Hip(HipError::CaptureUnderway { .. }));
    let (graph, ()) = stream
        .capture(CaptureMode::Global, |s| {
            fill.launch(config, s, (&mut y, 7, 256))?;
            // Each would wait for the capturing stream, or (a Global capture)
            // for any stream, or block: refused before HIP sees it.
            assert!(underway(&y.to_vec().unwrap_err()));
            assert!(underway(&y.fill(3).unwrap_err()));
            assert!(underway(&z.to_vec().unwrap_err()));
            let e = z.copy_from(&y).unwrap_err();
            assert!(underway(&e), "{e:?}");
            let e = DeviceArray::from_slice_on(&other, &[1u32; 4]).map(|_| ()).unwrap_err();
            assert!(underway(&e), "{e:?}");
            assert!(underway(&amdgpu::Error::from(s.synchronize().unwrap_err())));
            assert!(underway(&amdgpu::Error::from(other.synchronize().unwrap_err())));
            assert!(underway(&amdgpu::Error::from(device.synchronize().unwrap_err())));
            assert!(underway(&amdgpu::copy_scope(s, |_| Ok(())).unwrap_err()));
            Ok::<_, amdgpu::Error>(())
        })
        .unwrap();
    assert_eq!(graph.node_count().unwrap(), 1, "only the kernel was captured");
    graph.instantiate().unwrap().launch(&stream).unwrap();
    assert_eq!(y.to_vec().unwrap(), vec![7; 256]);
    // After the capture the same calls work.
    z.copy_from(&y).unwrap();
    assert_eq!(z.to_vec().unwrap(), vec![7; 256]);
}

#[test]
fn an_exec_dropped_during_a_capture_is_freed_after_it_and_the_capture_survives() {
    let _x = sim::exclusive();
    let device = Device::new(0).unwrap();
    let Some((_module, fill)) = fill_kernel(device) else { return };
    let (first, second) = (Stream::new_on(device).unwrap(), Stream::new_on(device).unwrap());
    let mut y = DeviceArray::<u32>::zeros_on(&first, 256).unwrap();
    let mut z = DeviceArray::<u32>::zeros_on(&second, 256).unwrap();
    let config = LaunchConfig::linear(device, 256).unwrap();
    let (graph, ()) = first.capture(CaptureMode::Global, |s| fill.launch(config, s, (&mut y, 5, 256))).unwrap();
    let exec = graph.instantiate().unwrap();
    exec.launch(&first).unwrap();
    let destroyed = || sim::thread_call_count("hipGraphExecDestroy");
    let before = destroyed();
    let (other, ()) = second
        .capture(CaptureMode::Global, |s| {
            // Waiting for its launch would break this capture.
            drop(exec);
            if on_sim() {
                assert_eq!(destroyed(), before, "freed during the capture");
            }
            fill.launch(config, s, (&mut z, 6, 256))
        })
        .unwrap();
    if on_sim() {
        assert_eq!(destroyed(), before + 1, "freed when the capture ended");
    }
    other.instantiate().unwrap().launch(&second).unwrap();
    assert_eq!(y.to_vec().unwrap(), vec![5; 256]);
    assert_eq!(z.to_vec().unwrap(), vec![6; 256]);
}

#[allow(dead_code)]
#[path = "../../amdgpu/examples/train_step.rs"]
mod train_step;

#[test]
fn the_training_step_example_replays_what_the_cpu_computes() {
    let _x = sim::exclusive();
    assert_eq!(train_step::run().unwrap(), Ok(()));
}

#[test]
fn a_graph_has_its_own_rocblas_workspace_and_keeps_it_after_the_handle_is_gone() {
    let _x = sim::exclusive();
    if !have(Library::Rocblas) {
        return;
    }
    let device = Device::new(0).unwrap();
    let size = blas::workspace_size(device);
    let workspaces = || hip_pool::pool(device).unwrap().live_blocks().iter().filter(|(_, s)| *s == size).count();
    let (graph, c) = common::on_thread("capturing", move || {
        let stream = Stream::new_on(device).unwrap();
        let a = DeviceArray::from_slice_on(&stream, &[1.0f64; 4]).unwrap();
        let mut c = DeviceArray::<f64>::zeros_on(&stream, 4).unwrap();
        let shape = Gemm::new(2, 2, 2);
        blas::gemm(&shape, 1.0, &a, &a, 0.0, &mut c).unwrap();
        let (graph, ()) =
            stream.capture(CaptureMode::Global, |_| blas::gemm(&shape, 1.0, &a, &a, 1.0, &mut c)).unwrap();
        drop(a);
        (graph, c)
    });
    // The thread's handle went to the idle list; destroy it (and the
    // others), with their workspaces: the graph holds none of them.
    blas::clear_idle_handles();
    if size > 0 {
        assert_eq!(workspaces(), 0, "the handle's workspace went back to the pool with it");
    }
    let exec = graph.instantiate().unwrap();
    exec.launch(c.stream()).unwrap();
    assert_eq!(c.to_vec().unwrap(), vec![4.0; 4]);
    exec.launch(c.stream()).unwrap();
    assert_eq!(c.to_vec().unwrap(), vec![6.0; 4], "the replay ran on its own workspace");
}

#[test]
fn graphs_captured_on_one_rocblas_handle_replay_at_once_on_two_streams() {
    let _x = sim::exclusive();
    if !have(Library::Rocblas) {
        return;
    }
    let device = Device::new(0).unwrap();
    let home = Stream::new_on(device).unwrap();
    let streams = [Stream::new_on(device).unwrap(), Stream::new_on(device).unwrap()];
    let n = 16;
    let a = DeviceArray::from_slice_on(&home, &noise(n * n, 1)).unwrap();
    let b = DeviceArray::from_slice_on(&home, &noise(n * n, 2)).unwrap();
    let mut c = streams.each_ref().map(|s| DeviceArray::<f64>::zeros_on(s, n * n).unwrap());
    let shape = Gemm::new(n, n, n);
    blas::gemm(&shape, 1.0, &a, &b, 0.0, &mut c[0]).unwrap();
    let eager = c[0].to_vec().unwrap();
    home.synchronize().unwrap();
    // Two captures, one on each stream, with this thread's one handle.
    let mut graphs = Vec::new();
    for (stream, c) in streams.iter().zip(&mut c) {
        let (graph, ()) =
            stream.capture(CaptureMode::ThreadLocal, |_| blas::gemm(&shape, 1.0, &a, &b, 0.0, c)).unwrap();
        graphs.push(graph.instantiate().unwrap());
    }
    // On the simulator the first stream is held until the check below, or
    // a while (so that a wait for it shows as a failed check, not a hang).
    let (checked, check_done) = std::sync::mpsc::channel::<()>();
    let hold = on_sim().then(|| sim::hold_stream(streams[0].as_raw()).unwrap());
    let releaser = std::thread::spawn(move || {
        let _ = check_done.recv_timeout(std::time::Duration::from_secs(10));
        drop(hold);
    });
    for (exec, stream) in graphs.iter().zip(&streams) {
        exec.launch(stream).unwrap();
    }
    // The second replay waits for nothing of the first: they share no
    // workspace. (It would wait for the held first stream if they did.)
    streams[1].synchronize().unwrap();
    if on_sim() {
        assert!(!streams[0].query().unwrap(), "the second replay did not wait for the held first stream");
    }
    checked.send(()).unwrap();
    releaser.join().unwrap();
    for c in &c {
        assert_eq!(c.to_vec().unwrap(), eager);
    }
    if on_sim() {
        assert!(common::stream_races().is_empty(), "{:?}", common::stream_races());
    }
}

#[test]
fn captures_into_one_graph_pool_share_one_rocblas_workspace() {
    let _x = sim::exclusive();
    if !have(Library::Rocblas) {
        return;
    }
    let device = Device::new(0).unwrap();
    let stream = Stream::new_on(device).unwrap();
    let a = DeviceArray::from_slice_on(&stream, &[1.0f64; 4]).unwrap();
    let mut c = [DeviceArray::<f64>::zeros_on(&stream, 4).unwrap(), DeviceArray::<f64>::zeros_on(&stream, 4).unwrap()];
    let shape = Gemm::new(2, 2, 2);
    blas::gemm(&shape, 1.0, &a, &a, 0.0, &mut c[0]).unwrap();
    let shared = hip_pool::GraphPool::new(hip_pool::pool(device).unwrap());
    let mallocs = || sim::thread_call_count("hipMalloc");
    let mut made = Vec::new();
    let mut graphs = Vec::new();
    for (i, c) in c.iter_mut().enumerate() {
        let before = mallocs();
        let (graph, ()) = hip_pool::capture_into(&shared, &stream, CaptureMode::ThreadLocal, |_| {
            blas::gemm(&shape, 1.0 + i as f64, &a, &a, 0.0, c)
        })
        .unwrap();
        made.push(mallocs() - before);
        graphs.push(graph.instantiate().unwrap());
    }
    if on_sim() {
        assert_eq!(made, [1, 0], "the first capture's workspace block serves the second");
    }
    for exec in &graphs {
        exec.launch(&stream).unwrap();
    }
    assert_eq!((c[0].to_vec().unwrap(), c[1].to_vec().unwrap()), (vec![2.0; 4], vec![4.0; 4]));
}

#[test]
fn a_graph_keeps_the_module_of_its_kernels_loaded() {
    let _x = sim::exclusive();
    let device = Device::new(0).unwrap();
    let Some((module, fill)) = fill_kernel(device) else { return };
    let stream = Stream::new_on(device).unwrap();
    let mut y = DeviceArray::<u32>::zeros_on(&stream, 256).unwrap();
    let config = LaunchConfig::linear(device, 256).unwrap();
    let (graph, ()) = stream.capture(CaptureMode::Global, |s| fill.launch(config, s, (&mut y, 9, 256))).unwrap();
    let unloads = || sim::thread_call_count("hipModuleUnload");
    let before = unloads();
    drop((fill, module));
    let exec = graph.instantiate().unwrap();
    drop(graph);
    if on_sim() {
        assert_eq!(unloads(), before, "the module was unloaded under the graph");
    }
    exec.launch(&stream).unwrap();
    assert_eq!(y.to_vec().unwrap(), vec![9; 256]);
    drop(exec);
    if on_sim() {
        assert_eq!(unloads(), before + 1, "the module is unloaded with the last exec");
    }
}

#[test]
fn pinned_host_memory_made_and_freed_during_a_global_capture_does_not_break_it() {
    let _x = sim::exclusive();
    let device = Device::new(0).unwrap();
    let Some((_module, fill)) = fill_kernel(device) else { return };
    let stream = Stream::new_on(device).unwrap();
    let mut y = DeviceArray::<u32>::zeros_on(&stream, 256).unwrap();
    let config = LaunchConfig::linear(device, 256).unwrap();
    let (graph, ()) = stream
        .capture(CaptureMode::Global, |s| {
            fill.launch(config, s, (&mut y, 4, 256))?;
            // On this thread and another: HIP refuses both calls in the
            // Global mode, and would break the capture.
            let staged = amdgpu::HostBuffer::from_slice_on(device, &[1u32; 64])?;
            drop(staged);
            common::on_thread("pinned", move || {
                let registered = amdgpu::HostBuffer::register_on(device, vec![2u32; 64]).unwrap();
                drop(amdgpu::HostBuffer::from_slice_on(device, &[3u8; 64]).unwrap());
                drop(registered);
            });
            Ok::<_, amdgpu::Error>(())
        })
        .unwrap();
    graph.instantiate().unwrap().launch(&stream).unwrap();
    assert_eq!(y.to_vec().unwrap(), vec![4; 256]);
}

#[test]
fn event_waits_and_host_buffers_with_copies_pending_do_not_break_a_global_capture() {
    let _x = sim::exclusive();
    let device = Device::new(0).unwrap();
    let Some((_module, fill)) = fill_kernel(device) else { return };
    let (stream, other) = (Stream::new_on(device).unwrap(), Stream::new_on(device).unwrap());
    let mut y = DeviceArray::<u32>::zeros_on(&stream, 256).unwrap();
    let config = LaunchConfig::linear(device, 256).unwrap();
    // A host buffer with a copy pending on another stream, and an event.
    let mut host = amdgpu::HostBuffer::<u32>::zeroed_on(device, 256).unwrap();
    let source = DeviceArray::from_slice_on(&other, &[8u32; 256]).unwrap();
    source.copy_to_host_async(&mut host, &other).unwrap();
    let event = other.record_event().unwrap();
    let frees = || sim::thread_call_count("hipHostFree");
    let before = frees();
    let (graph, ()) = stream
        .capture(CaptureMode::Global, |s| {
            fill.launch(config, s, (&mut y, 6, 256))?;
            let refused = [event.synchronize().unwrap_err(), event.query().unwrap_err()];
            assert!(refused.iter().all(|e| matches!(e, HipError::CaptureUnderway { .. })), "{refused:?}");
            // Its drop would wait for the copy: it waits for the capture.
            drop(host);
            if on_sim() {
                assert_eq!(frees(), before, "freed during the capture");
            }
            Ok::<_, amdgpu::Error>(())
        })
        .unwrap();
    if on_sim() {
        assert_eq!(frees(), before + 1, "freed (not leaked) once the capture ended");
    }
    graph.instantiate().unwrap().launch(&stream).unwrap();
    assert_eq!(y.to_vec().unwrap(), vec![6; 256]);
    event.synchronize().unwrap();
}

#[test]
fn copies_of_pinned_host_memory_replay_and_the_graph_keeps_the_memory() {
    let _x = sim::exclusive();
    let device = Device::new(0).unwrap();
    let Some(module) = test_module(device) else { return };
    // SAFETY: axpy_f32(float a, const float* x, float* y, uint32_t n) touches [0, n) of x and y.
    let axpy = unsafe { Kernel::<Axpy>::from_module(&module, "axpy_f32") }.unwrap();
    let (stream, replay) = (Stream::new_on(device).unwrap(), Stream::new_on(device).unwrap());
    let n = 256;
    let mut input = amdgpu::HostBuffer::<f32>::zeroed_on(device, n).unwrap();
    let mut output = amdgpu::HostBuffer::<f32>::zeroed_on(device, n).unwrap();
    let mut x = DeviceArray::<f32>::zeros_on(&stream, n).unwrap();
    let mut y = DeviceArray::<f32>::zeros_on(&stream, n).unwrap();
    let config = LaunchConfig::linear(device, n).unwrap();
    // Each replay: x = input; y += 2 x; output = y.
    let (graph, ()) = stream
        .capture(CaptureMode::Global, |s| {
            x.copy_from_host_async(&input, s)?;
            axpy.launch(config, s, (2.0, &x, &mut y, n as u32))?;
            y.copy_to_host_async(&mut output, s)?;
            Ok::<_, amdgpu::Error>(())
        })
        .unwrap();
    let exec = graph.instantiate().unwrap();
    let mut want = vec![0.0f32; n];
    for round in 1..=3 {
        // Host writes wait for the last replay's read of `input`.
        let values: Vec<f32> = (0..n).map(|i| (i * round) as f32).collect();
        input.as_mut_slice().unwrap().copy_from_slice(&values);
        exec.launch(&replay).unwrap();
        for (w, v) in want.iter_mut().zip(&values) {
            *w += 2.0 * v;
        }
        // Host reads wait for the replay's write of `output`.
        assert_eq!(output.as_slice().unwrap(), want.as_slice(), "round {round}");
    }
    // Dropped while the exec lives: freed only after it.
    let frees = || sim::thread_call_count("hipHostFree");
    let before = frees();
    drop((input, output, graph));
    if on_sim() {
        assert_eq!(frees(), before, "host memory freed under the graph");
    }
    exec.launch(&replay).unwrap();
    drop(exec);
    if on_sim() {
        assert_eq!(frees(), before + 2, "host memory freed after the last exec");
    }
}
