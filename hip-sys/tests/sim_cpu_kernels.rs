//! The simulator runs HIP kernels compiled for the CPU by the host's C++
//! compiler (its hipRTC), and reports what a GPU would fault on, by
//! kernel, block, thread and address, without crashing the process: a
//! write one past a buffer, a write through a pointer to `const`, a
//! barrier not every thread reaches, a failed `assert`, a host pointer, a
//! `_sync` mask naming a lane that returns or a shuffle outside it, a
//! launch past the watchdog; blocks run at once on the host threads named
//! and the fault reported is the lowest block's; the `_sync` intrinsics
//! take 64-bit masks and arrive with HIP 7; what the preprocessor removes
//! is no kernel; the race detector sees a compiled kernel's memory; and
//! with `AMDGPU_SIM_RACECHECK=on`, a block's shared-memory races are
//! reported by variable, threads and byte (and barriers, atomics and a
//! warp intrinsic the lanes meet at order what they should).
//! (What the kernels compute, the same on every backend, is
//! `tests/tests/kernel_semantics.rs`.)
//!
//! Every test holds `sim::exclusive()`. With no C++ compiler on the
//! machine they skip saying so, unless `AMDGPU_SIM_REQUIRE_CXX=1`.

mod common;
use common::{api, download, is_child, malloc, ok, status, upload};
use hip_sys::bindings::hip::{
    hipDeviceAttribute_t, hipError_t, hipFunction_t, hipMemcpyKind, hipModule_t, hipStream_t,
};
use hip_sys::hiprtc::hiprtcResult;
use hip_sys::sim::{self, ViolationKind};
use std::ffi::{c_void, CStr, CString};
use std::ptr::null_mut;

const SOURCE: &str = include_str!("../kernels/gpu_semantics.hip");

/// Whether the machine has a compiler (else the test skips, saying why).
fn compiler() -> bool {
    match sim::cxx_compiler() {
        Ok(_) => true,
        Err(why) if std::env::var("AMDGPU_SIM_REQUIRE_CXX").as_deref() == Ok("1") => {
            panic!("AMDGPU_SIM_REQUIRE_CXX=1 and {why}")
        }
        Err(why) => {
            eprintln!("skipped: {why}");
            false
        }
    }
}

/// `source` compiled for the current device: the code, or the log.
fn compile(source: &str) -> Result<Vec<u8>, String> {
    let rtc = sim::hiprtc_api();
    let source = CString::new(source).unwrap();
    let mut prog = null_mut();
    // SAFETY: valid C strings and out-pointer; no headers.
    let created = unsafe {
        (rtc.hiprtcCreateProgram)(&mut prog, source.as_ptr(), c"gpu_semantics.hip".as_ptr(), 0, null_mut(), null_mut())
    };
    assert_eq!(created, hiprtcResult::HIPRTC_SUCCESS);
    // SAFETY: a live program, no options.
    let compiled = unsafe { (rtc.hiprtcCompileProgram)(prog, 0, null_mut()) };
    let mut size = 0;
    // SAFETY: a live program and out-pointers.
    assert_eq!(unsafe { (rtc.hiprtcGetProgramLogSize)(prog, &mut size) }, hiprtcResult::HIPRTC_SUCCESS);
    let mut log = vec![0u8; size.max(1)];
    // SAFETY: the buffer holds the log's size.
    assert_eq!(unsafe { (rtc.hiprtcGetProgramLog)(prog, log.as_mut_ptr().cast()) }, hiprtcResult::HIPRTC_SUCCESS);
    let log = CStr::from_bytes_until_nul(&log).unwrap().to_string_lossy().into_owned();
    let code = (compiled == hiprtcResult::HIPRTC_SUCCESS).then(|| {
        // SAFETY: a compiled program and out-pointer.
        assert_eq!(unsafe { (rtc.hiprtcGetCodeSize)(prog, &mut size) }, hiprtcResult::HIPRTC_SUCCESS);
        let mut code = vec![0u8; size];
        // SAFETY: the buffer holds the code's size.
        assert_eq!(unsafe { (rtc.hiprtcGetCode)(prog, code.as_mut_ptr().cast()) }, hiprtcResult::HIPRTC_SUCCESS);
        code
    });
    // SAFETY: a live program, destroyed once.
    assert_eq!(unsafe { (rtc.hiprtcDestroyProgram)(&mut prog) }, hiprtcResult::HIPRTC_SUCCESS);
    code.ok_or(log)
}

/// `source`'s kernels, compiled and loaded on the current device.
fn load(source: &str) -> hipModule_t {
    let code = compile(source).unwrap_or_else(|log| panic!("{log}"));
    let mut m = null_mut();
    ok!((api().hipModuleLoadData)(&mut m, code.as_ptr().cast()));
    m
}

/// The test kernels, compiled and loaded on the current device.
fn module() -> hipModule_t {
    load(SOURCE)
}

fn function(m: hipModule_t, name: &str) -> hipFunction_t {
    let name = CString::new(name).unwrap();
    let mut f = null_mut();
    ok!((api().hipModuleGetFunction)(&mut f, m, name.as_ptr()));
    f
}

/// Launch `f` over `grid` × `block` with `shared` bytes of dynamic shared
/// memory on `s`; `args` are the parameters' values, each as bytes.
fn launch(
    f: hipFunction_t,
    grid: [u32; 3],
    block: [u32; 3],
    shared: u32,
    s: hipStream_t,
    args: &mut [Vec<u8>],
) -> hipError_t {
    let mut params: Vec<*mut c_void> = args.iter_mut().map(|a| a.as_mut_ptr().cast()).collect();
    status!((api().hipModuleLaunchKernel)(
        f,
        grid[0],
        grid[1],
        grid[2],
        block[0],
        block[1],
        block[2],
        shared,
        s,
        params.as_mut_ptr(),
        null_mut()
    ))
}

fn ptr(p: *mut c_void) -> Vec<u8> {
    (p as usize).to_ne_bytes().to_vec()
}

fn u32_arg(v: u32) -> Vec<u8> {
    v.to_ne_bytes().to_vec()
}

fn ints(p: *const c_void, n: usize) -> Vec<i32> {
    download(p, n).into_iter().map(f32::to_bits).map(|b| b as i32).collect()
}

fn sync() -> hipError_t {
    status!((api().hipDeviceSynchronize)())
}

/// The kernel faults the violations of this thread record.
fn kernel_faults() -> Vec<sim::KernelFault> {
    let me = std::thread::current().name().unwrap_or_default().to_owned();
    sim::violations()
        .into_iter()
        .filter(|v| v.kind == ViolationKind::KernelFault && v.thread == me)
        .filter_map(|v| v.kernel)
        .collect()
}

/// Those of them in `kernel`: the violations are kept for the process,
/// so a test that faults several kernels tells them apart by name.
fn faults_of(kernel: &str) -> Vec<sim::KernelFault> {
    kernel_faults().into_iter().filter(|f| f.kernel == kernel).collect()
}

/// Run `f` on a named thread holding the simulator alone, with a clean
/// fault state after.
fn run(name: &str, f: impl FnOnce() + Send + 'static) {
    let _x = sim::exclusive();
    std::thread::Builder::new().name(name.into()).spawn(f).unwrap().join().unwrap();
    sim::reset_faults();
}

#[test]
fn a_write_one_past_a_buffer_faults_naming_kernel_block_thread_and_address() {
    if !compiler() {
        return;
    }
    run("cpu-one-past", || {
        let m = module();
        let n = 1000u32;
        let p = malloc(n as usize * 4);
        let f = function(m, "write_one_past");
        assert_eq!(launch(f, [4, 1, 1], [256, 1, 1], 0, null_mut(), &mut [ptr(p), u32_arg(n)]), hipError_t::hipSuccess);
        assert_eq!(sync(), hipError_t::hipErrorIllegalAddress, "a sticky fault, as on a GPU");
        let faults = kernel_faults();
        assert_eq!(faults.len(), 1, "{faults:?}");
        let fault = &faults[0];
        assert_eq!(fault.kernel, "write_one_past");
        // Element 1000 is block 3's thread 232.
        assert_eq!((fault.block, fault.thread), ([3, 0, 0], [232, 0, 0]));
        assert_eq!(fault.address, p as usize + 4000, "the byte past the end");
        assert!(fault.what.contains("past the end of the 4000-byte buffer"), "{}", fault.what);
        sim::reset_faults();
        // Everything before the fault was written; the process lives on.
        assert!(download(p, n as usize).iter().take(768).all(|v| *v == 1.0));
        ok!((api().hipFree)(p));
    });
}

#[test]
fn a_write_through_a_pointer_to_const_faults_instead_of_being_lost() {
    if !compiler() {
        return;
    }
    run("cpu-const", || {
        let p = upload(&[0.0; 64]);
        let f = function(module(), "write_through_const");
        assert_eq!(launch(f, [1, 1, 1], [64, 1, 1], 0, null_mut(), &mut [ptr(p)]), hipError_t::hipSuccess);
        assert_eq!(sync(), hipError_t::hipErrorIllegalAddress);
        let faults = kernel_faults();
        assert_eq!((faults[0].thread, faults[0].address), ([0, 0, 0], p as usize), "{faults:?}");
        assert!(faults[0].what.contains("pointers to const"), "{}", faults[0].what);
        sim::reset_faults();
        assert_eq!(download(p, 64), vec![0.0; 64], "nothing was written");
        ok!((api().hipFree)(p));
    });
}

#[test]
fn a_barrier_one_thread_returns_before_is_a_reported_deadlock() {
    if !compiler() {
        return;
    }
    run("cpu-barrier", || {
        let p = malloc(64 * 4);
        let f = function(module(), "divergent_barrier");
        assert_eq!(launch(f, [1, 1, 1], [64, 1, 1], 0, null_mut(), &mut [ptr(p)]), hipError_t::hipSuccess);
        assert_eq!(sync(), hipError_t::hipErrorLaunchTimeOut, "a GPU hangs until its watchdog");
        let faults = kernel_faults();
        assert_eq!(faults.len(), 1, "{faults:?}");
        assert_eq!(faults[0].thread, [0, 0, 0], "the thread that returned");
        assert!(faults[0].what.contains("__syncthreads"), "{}", faults[0].what);
        sim::reset_faults();
        ok!((api().hipFree)(p));
    });
}

#[test]
fn a_failed_assert_faults_the_launch() {
    if !compiler() {
        return;
    }
    run("cpu-assert", || {
        let p = malloc(4 * 32 * 4);
        let f = function(module(), "failing_assert");
        assert_eq!(launch(f, [4, 1, 1], [32, 1, 1], 0, null_mut(), &mut [ptr(p)]), hipError_t::hipSuccess);
        assert_eq!(sync(), hipError_t::hipErrorAssert);
        let faults = kernel_faults();
        assert_eq!((faults[0].block, faults[0].thread), ([1, 0, 0], [5, 0, 0]), "{faults:?}");
        let line = SOURCE.lines().position(|l| l.contains("assert(!(blockIdx.x == 1")).unwrap() + 1;
        let at = format!("gpu_semantics.hip:{line}");
        assert!(faults[0].what.contains(&at), "the source line, {at}: {}", faults[0].what);
        sim::reset_faults();
        ok!((api().hipFree)(p));
    });
}

#[test]
fn a_host_pointer_that_is_not_pinned_faults_instead_of_writing_host_memory() {
    if !compiler() {
        return;
    }
    run("cpu-host-pointer", || {
        let input = upload(&[1.0; 64]);
        let mut host = vec![5.0f32; 64];
        let f = function(module(), "twice");
        let mut args = [ptr(input), ptr(host.as_mut_ptr().cast()), u32_arg(64)];
        assert_eq!(launch(f, [1, 1, 1], [64, 1, 1], 0, null_mut(), &mut args), hipError_t::hipSuccess);
        assert_eq!(sync(), hipError_t::hipErrorIllegalAddress);
        let faults = kernel_faults();
        assert!(faults[0].what.contains("host memory that is not pinned"), "{faults:?}");
        assert_eq!(faults[0].address, host.as_ptr() as usize, "the host address the kernel was given");
        assert!(host.iter().all(|v| *v == 5.0), "the host memory is untouched");
        sim::reset_faults();
        ok!((api().hipFree)(input));
    });
}

#[test]
fn a_sync_intrinsic_whose_mask_names_a_returned_lane_or_a_lane_outside_faults() {
    if !compiler() {
        return;
    }
    run("cpu-masks", || {
        let m = module();
        if common::hip_major() < 7 {
            // HIP 6.0 and 5.7 have no _sync intrinsics: the file leaves
            // these kernels out (see sync_intrinsics_take_64_bit_masks_and_arrive_with_hip_7).
            let mut f = null_mut();
            let missing = status!((api().hipModuleGetFunction)(&mut f, m, c"mask_names_a_returned_lane".as_ptr()));
            assert_eq!(missing, hipError_t::hipErrorNotFound);
            return;
        }
        let out = malloc(64 * 4);
        for (kernel, said) in [
            ("mask_names_a_returned_lane", "names returned without it"),
            ("shuffle_outside_the_mask", "read a lane outside its mask"),
        ] {
            let f = function(m, kernel);
            assert_eq!(launch(f, [1, 1, 1], [64, 1, 1], 0, null_mut(), &mut [ptr(out)]), hipError_t::hipSuccess);
            assert_ne!(sync(), hipError_t::hipSuccess, "{kernel}");
            let faults = kernel_faults();
            assert_eq!(faults.len(), 1, "{faults:?}");
            assert!(faults[0].what.contains(said), "{kernel}: {}", faults[0].what);
            sim::reset_faults();
            sim::clear_violations();
        }
        ok!((api().hipFree)(out));
    });
}

/// Run the test `test` alone in a child process with `env` set; it prints
/// `CHILD PASSED` at its end.
fn in_child(test: &str, env: &[(&str, &str)]) {
    let (status, text) = common::child_process(test, env);
    assert!(status.success() && text.contains("CHILD PASSED"), "the child failed:\n{text}");
}

#[test]
fn with_blocks_on_several_host_threads_the_fault_reported_is_the_lowest_blocks() {
    if !compiler() {
        return;
    }
    run("cpu-lowest-fault", || {
        let p = malloc(64 * 32 * 4);
        let f = function(module(), "every_block_asserts");
        // Every block faults; whichever host thread meets its fault first,
        // the one reported is block 0's, as when blocks run in order.
        for _ in 0..8 {
            assert_eq!(launch(f, [64, 1, 1], [32, 1, 1], 0, null_mut(), &mut [ptr(p)]), hipError_t::hipSuccess);
            assert_eq!(sync(), hipError_t::hipErrorAssert);
            let faults = kernel_faults();
            assert_eq!(faults.len(), 1, "one fault a launch: {faults:?}");
            assert_eq!((faults[0].block, faults[0].thread), ([0, 0, 0], [7, 0, 0]), "{faults:?}");
            sim::reset_faults();
            sim::clear_violations();
        }
        ok!((api().hipFree)(p));
    });
}

/// Run by the test below with two host threads for blocks.
#[test]
fn blocks_at_once_child() {
    if !is_child("blocks_at_once_child") {
        return; // only as a child of blocks_run_at_once_on_the_host_threads_named
    }
    run("cpu-blocks-at-once", || {
        let flag = malloc(8);
        ok!((api().hipMemset)(flag, 0, 8));
        let f = function(module(), "wait_for_the_last_block");
        assert_eq!(launch(f, [16, 1, 1], [64, 1, 1], 0, null_mut(), &mut [ptr(flag)]), hipError_t::hipSuccess);
        assert_eq!(sync(), hipError_t::hipSuccess, "{:?}", kernel_faults());
        assert_eq!(ints(flag, 2), [1, 1], "block 0 saw the last block's flag");
        ok!((api().hipFree)(flag));
    });
    println!("CHILD PASSED");
}

#[test]
fn blocks_run_at_once_on_the_host_threads_named() {
    if !compiler() {
        return;
    }
    // Two host threads even on a machine of one core: block 0 spins on
    // one while the other runs the rest.
    in_child("blocks_at_once_child", &[("AMDGPU_SIM_CORES", "2")]);
}

#[test]
fn the_race_detector_sees_a_compiled_kernels_memory() {
    if !compiler() {
        return;
    }
    let _x = sim::exclusive();
    let found = std::thread::Builder::new()
        .name("cpu-race".into())
        .spawn(|| {
            let _expected = sim::expect_races();
            let m = module();
            let f = function(m, "twice");
            let (input, output) = (upload(&[1.0; 256]), malloc(256 * 4));
            let streams = [common::stream(), common::stream()];
            for s in streams {
                let mut args = [ptr(input), ptr(output), u32_arg(256)];
                assert_eq!(launch(f, [1, 1, 1], [256, 1, 1], 0, s, &mut args), hipError_t::hipSuccess);
            }
            assert_eq!(sync(), hipError_t::hipSuccess);
            assert_eq!(download(output, 256), vec![2.0; 256]);
            for s in streams {
                ok!((api().hipStreamDestroy)(s));
            }
            ok!((api().hipFree)(input));
            ok!((api().hipFree)(output));
            sim::violations()
                .into_iter()
                .filter(|v| v.thread == "cpu-race" && v.kind == ViolationKind::StreamRace)
                .count()
        })
        .unwrap()
        .join()
        .unwrap();
    assert_eq!(found, 1, "the two launches write one buffer with no order between them");
}

/// Run by the test below with one host thread for blocks and a watchdog
/// of half a second.
#[test]
fn watchdog_child() {
    if !is_child("watchdog_child") {
        return; // only as a child of a_kernel_that_never_ends_is_stopped_by_the_watchdog
    }
    run("cpu-watchdog", || {
        let flag = malloc(8);
        ok!((api().hipMemset)(flag, 0, 8));
        let f = function(module(), "wait_for_the_last_block");
        // Block 0 waits for a block that, on one host thread, never starts.
        assert_eq!(launch(f, [16, 1, 1], [64, 1, 1], 0, null_mut(), &mut [ptr(flag)]), hipError_t::hipSuccess);
        assert_eq!(sync(), hipError_t::hipErrorLaunchTimeOut, "stopped, where a GPU would hang");
        let faults = kernel_faults();
        assert_eq!(faults.len(), 1, "{faults:?}");
        assert_eq!((faults[0].block, faults[0].thread), ([0, 0, 0], [0, 0, 0]), "the spinning thread");
        assert!(faults[0].what.contains("watchdog (AMDGPU_SIM_WATCHDOG, 0.5 s)"), "{}", faults[0].what);
        sim::reset_faults();
        // The process goes on, and so does the device.
        ok!((api().hipMemset)(flag, 0, 8));
        let mut args = [ptr(flag)];
        assert_eq!(launch(f, [1, 1, 1], [64, 1, 1], 0, null_mut(), &mut args), hipError_t::hipSuccess);
        assert_eq!(sync(), hipError_t::hipErrorLaunchTimeOut, "a grid of one block waits for itself");
        sim::reset_faults();
        ok!((api().hipFree)(flag));

        // Threads that are in the C library whenever the watchdog looks
        // (asleep: no GPU kernel can, this one is for the watchdog's sake)
        // are left to end their block, and no block starts after: the
        // launch names the first block not run. The host thread claims
        // runs of blocks, so that block is inside the run it claimed last.
        let m = load(
            "#include <hip/hip_runtime.h>\n#include <unistd.h>\n\
             extern \"C\" __global__ void sleepy(int* ran) { usleep(50000); ran[blockIdx.x] = 1; }\n",
        );
        let blocks = 40;
        let ran = malloc(blocks * 4);
        ok!((api().hipMemset)(ran, 0, blocks * 4));
        let f = function(m, "sleepy");
        assert_eq!(launch(f, [blocks as u32, 1, 1], [1, 1, 1], 0, null_mut(), &mut [ptr(ran)]), hipError_t::hipSuccess);
        assert_eq!(sync(), hipError_t::hipErrorLaunchTimeOut);
        let faults = faults_of("sleepy");
        assert_eq!(faults.len(), 1, "{faults:?}");
        assert!(faults[0].what.contains("were not run"), "{}", faults[0].what);
        let first = faults[0].block[0] as usize;
        sim::reset_faults();
        let ran = ints(ran, blocks);
        assert!(first > 0 && first < blocks, "stopped after 0.5 s of 2: {faults:?}");
        assert!(ran[..first].iter().all(|&r| r == 1), "every block before it ran: {ran:?}");
        assert!(ran[first..].iter().all(|&r| r == 0), "none from it on: {ran:?}");
    });
    println!("CHILD PASSED");
}

#[test]
fn a_kernel_that_never_ends_is_stopped_by_the_watchdog() {
    if !compiler() {
        return;
    }
    in_child("watchdog_child", &[("AMDGPU_SIM_CORES", "1"), ("AMDGPU_SIM_WATCHDOG", "0.5")]);
}

/// A kernel that shuffles under a mask of `mask_type`.
fn shuffle_under(mask_type: &str) -> String {
    format!(
        "#include <hip/hip_runtime.h>\n\
         extern \"C\" __global__ void k(int* out) {{ out[0] = __shfl_sync(({mask_type})~0ull, 1, 0); }}\n"
    )
}

#[test]
fn sync_intrinsics_take_64_bit_masks_and_arrive_with_hip_7() {
    if !compiler() {
        return;
    }
    let _x = sim::exclusive();
    if common::hip_major() < 7 {
        // ROCm 6.2 brought them, and __activemask; the simulator's HIP 6
        // is 6.0.
        let log = compile(&shuffle_under("unsigned long long")).unwrap_err();
        assert!(log.contains("__shfl_sync"), "{log}");
        let active = "#include <hip/hip_runtime.h>\nextern \"C\" __global__ void k(unsigned long long* o) { o[0] = __activemask(); }";
        assert!(compile(active).unwrap_err().contains("__activemask"));
        return;
    }
    assert!(compile(&shuffle_under("unsigned long long")).is_ok());
    let log = compile(&shuffle_under("unsigned")).unwrap_err();
    assert!(log.contains("The mask must be a 64-bit integer"), "{log}");
}

#[test]
fn a_kernel_the_preprocessor_removes_is_no_kernel() {
    if !compiler() {
        return;
    }
    let _x = sim::exclusive();
    let source = "#include <hip/hip_runtime.h>\n\
                  #if 0\nextern \"C\" __global__ void gone(int* x) { x[0] = 1; }\n#endif\n\
                  #if HIP_VERSION_MAJOR >= 5\nextern \"C\" __global__ void kept(int* x) { x[0] = 1; }\n#endif\n";
    let code = compile(source).unwrap_or_else(|log| panic!("{log}"));
    let mut m = null_mut();
    ok!((api().hipModuleLoadData)(&mut m, code.as_ptr().cast()));
    function(m, "kept");
    let mut f = null_mut();
    let missing = status!((api().hipModuleGetFunction)(&mut f, m, c"gone".as_ptr()));
    assert_eq!(missing, hipError_t::hipErrorNotFound, "as hipRTC: what #if 0 holds is not compiled");
    ok!((api().hipModuleUnload)(m));
}

#[test]
fn a_fault_reaches_its_objects_handler_through_another_objects() {
    if !compiler() {
        return;
    }
    run("cpu-two-objects", || {
        // The test kernels' object runs first, so its fault handler is
        // installed first; then a second object's, on top of it.
        let first = module();
        let n = 64u32;
        let p = malloc(n as usize * 4);
        let write_one_past = function(first, "write_one_past");
        let mut args = [ptr(p), u32_arg(n - 1)];
        assert_eq!(launch(write_one_past, [1, 1, 1], [64, 1, 1], 0, null_mut(), &mut args), hipError_t::hipSuccess);
        assert_eq!(sync(), hipError_t::hipSuccess);
        let code = compile("extern \"C\" __global__ void other(int* x) { x[threadIdx.x] = 2; }").unwrap();
        let mut second = null_mut();
        ok!((api().hipModuleLoadData)(&mut second, code.as_ptr().cast()));
        assert_eq!(
            launch(function(second, "other"), [1, 1, 1], [64, 1, 1], 0, null_mut(), &mut [ptr(p)]),
            hipError_t::hipSuccess
        );
        assert_eq!(sync(), hipError_t::hipSuccess);
        // The first object's kernel faults: the second object's handler,
        // which runs first, passes it on without touching its own state.
        assert_eq!(
            launch(write_one_past, [1, 1, 1], [128, 1, 1], 0, null_mut(), &mut [ptr(p), u32_arg(n)]),
            hipError_t::hipSuccess
        );
        assert_eq!(sync(), hipError_t::hipErrorIllegalAddress);
        let faults = kernel_faults();
        assert_eq!((faults.len(), faults[0].thread), (1, [64, 0, 0]), "{faults:?}");
        sim::reset_faults();
        ok!((api().hipFree)(p));
        ok!((api().hipModuleUnload)(second));
    });
}

#[test]
fn shuffles_take_the_types_hips_overloads_take() {
    if !compiler() {
        return;
    }
    let _x = sim::exclusive();
    let kernel = |body: &str| {
        format!(
            "#include <hip/hip_runtime.h>\nstruct Pair {{ int a, b; }};\n\
                                        extern \"C\" __global__ void k(int* out) {{ {body} }}\n"
        )
    };
    // A short converts to int's overload; a structure has none, as with
    // hipRTC (its __shfl is overloaded for the arithmetic types, not a
    // template).
    assert!(compile(&kernel("short s = 1; out[0] = __shfl(s, 0);")).is_ok());
    let log = compile(&kernel("Pair p{1, 2}; p = __shfl(p, 0); out[0] = p.a;")).unwrap_err();
    assert!(log.contains("__shfl"), "{log}");
}

/// Kernels for the shared-memory race check: each block is one wavefront
/// (`width` threads).
const RACES: &str = r#"
#include <hip/hip_runtime.h>
// Each thread writes its slot and reads its neighbour's with no barrier
// between: a read after a write by another thread, unordered.
extern "C" __global__ void missing_barrier(float* out) {
    __shared__ float tile[64];
    tile[threadIdx.x] = threadIdx.x;
    out[threadIdx.x] = tile[(threadIdx.x + 1) % blockDim.x];
}
// The same with the barrier: no race.
extern "C" __global__ void with_barrier(float* out) {
    __shared__ float tile[64];
    tile[threadIdx.x] = threadIdx.x;
    __syncthreads();
    out[threadIdx.x] = tile[(threadIdx.x + 1) % blockDim.x];
}
// Dynamic shared memory, written by every thread at one place.
extern "C" __global__ void dynamic_race(float* out) {
    extern __shared__ float cache[];
    cache[1] = threadIdx.x;
    out[threadIdx.x] = cache[1];
}
// Atomics from every thread, a barrier before the read: no race.
extern "C" __global__ void atomics_only(int* out) {
    __shared__ int count;
    if (threadIdx.x == 0) count = 0;
    __syncthreads();
    atomicAdd(&count, 1);
    __syncthreads();
    if (threadIdx.x == 0) out[0] = count;
}
// Lanes of one wavefront ordered by the shuffle they meet at: no race.
extern "C" __global__ void ordered_by_a_shuffle(float* out) {
    __shared__ float v[64];
    v[threadIdx.x] = threadIdx.x;
    float mine = __shfl(v[threadIdx.x], 0);
    out[threadIdx.x] = v[threadIdx.x ^ 1] + mine;
}
"#;

/// The shared-memory races this thread's launches recorded.
fn shared_races() -> Vec<sim::SharedRace> {
    let me = std::thread::current().name().unwrap_or_default().to_owned();
    sim::violations()
        .into_iter()
        .filter(|v| v.kind == ViolationKind::SharedMemoryRace && v.thread == me)
        .filter_map(|v| v.shared_race)
        .collect()
}

/// Run by the test below with the race check on.
#[test]
fn shared_races_child() {
    if !is_child("shared_races_child") {
        return; // only as a child of shared_memory_races_are_reported_by_variable_threads_and_byte
    }
    run("cpu-shared-races", || {
        let m = load(RACES);
        let out = malloc(64 * 4);
        let go = |name: &str, shared: u32| {
            sim::clear_violations();
            let f = function(m, name);
            assert_eq!(launch(f, [2, 1, 1], [64, 1, 1], shared, null_mut(), &mut [ptr(out)]), hipError_t::hipSuccess);
            assert_eq!(sync(), hipError_t::hipSuccess, "a race does not fault the launch: {:?}", kernel_faults());
            shared_races()
        };
        let races = go("missing_barrier", 0);
        assert_eq!(races.len(), 1, "one report a launch: {races:?}");
        let race = &races[0];
        // Thread 0 read tile[1] (bytes 4 to 7) before thread 1 wrote it.
        assert_eq!((race.kernel.as_str(), race.block), ("missing_barrier", [0, 0, 0]), "{race}");
        assert_eq!(race.first, ([0, 0, 0], sim::AccessKind::Read), "{race}");
        assert_eq!(race.second, ([1, 0, 0], sim::AccessKind::Write), "{race}");
        assert_eq!((race.memory.as_str(), race.offset), ("`tile`", 4), "{race}");
        assert_eq!(race.count, 2 * 64, "each block: every write but thread 0's, and thread 63's read of tile[0]");
        assert!(race.to_string().contains("no __syncthreads between them"), "{race}");

        let races = go("dynamic_race", 64 * 4);
        assert_eq!(races.len(), 1, "{races:?}");
        assert_eq!((races[0].memory.as_str(), races[0].offset), ("dynamic shared memory", 4), "{races:?}");
        assert_eq!(races[0].first, ([0, 0, 0], sim::AccessKind::Write), "{races:?}");

        for clean in ["with_barrier", "atomics_only", "ordered_by_a_shuffle"] {
            assert_eq!(go(clean, 0), [], "{clean} has no race");
        }
        ok!((api().hipFree)(out));
    });
    println!("CHILD PASSED");
}

#[test]
fn shared_memory_races_are_reported_by_variable_threads_and_byte() {
    if !compiler() {
        return;
    }
    in_child("shared_races_child", &[("AMDGPU_SIM_RACECHECK", "on")]);
}

#[test]
fn a_pointer_inside_a_structure_faults_saying_the_simulator_does_not_model_it() {
    if !compiler() {
        return;
    }
    const SOURCE: &str = r#"
        #include <hip/hip_runtime.h>
        struct Out { float* p; unsigned n; };
        extern "C" __global__ void through_a_struct(Out out) {
            if (threadIdx.x < out.n) out.p[threadIdx.x] = 1.0f;
        }
    "#;
    run("cpu-struct-pointer", || {
        let m = load(SOURCE);
        let p = malloc(64 * 4);
        let mut bytes = ptr(p);
        bytes.extend_from_slice(&[64, 0, 0, 0, 0, 0, 0, 0]);
        let f = function(m, "through_a_struct");
        assert_eq!(launch(f, [1, 1, 1], [64, 1, 1], 0, null_mut(), &mut [bytes]), hipError_t::hipSuccess);
        assert_eq!(sync(), hipError_t::hipErrorIllegalAddress, "a GPU would write; the simulator says it cannot");
        let faults = kernel_faults();
        assert_eq!(faults.len(), 1, "{faults:?}");
        assert_eq!(faults[0].address, p as usize, "{faults:?}");
        assert!(faults[0].what.contains("from a structure passed by value"), "{}", faults[0].what);
        sim::reset_faults();
        ok!((api().hipFree)(p));
    });
}

/// Threads' places in a block of 8 × 4 × 2: a thread that faults before
/// any barrier (its place counted on by the loop that runs the block), one
/// that faults after one (its place kept while it waited), one that
/// returns before a barrier the others wait at (named from its index), and
/// `__lane_id` for every thread, at the device's wavefront width.
#[test]
fn threads_are_named_by_their_places_in_a_block_of_three_dimensions() {
    if !compiler() {
        return;
    }
    const SOURCE: &str = r#"
        #include <hip/hip_runtime.h>
        __device__ bool is(unsigned x, unsigned y, unsigned z) {
            return threadIdx.x == x && threadIdx.y == y && threadIdx.z == z;
        }
        __device__ unsigned linear() { return (threadIdx.z * blockDim.y + threadIdx.y) * blockDim.x + threadIdx.x; }
        extern "C" __global__ void fault_before(float* p, unsigned n) {
            unsigned i = blockIdx.x * 64 + linear();
            if (blockIdx.x == 1 && is(5, 2, 1)) i = n;  // one past the end
            p[i] = 1.0f;
        }
        extern "C" __global__ void fault_after(float* p, unsigned n) {
            unsigned i = blockIdx.x * 64 + linear();
            __syncthreads();
            if (blockIdx.x == 1 && is(6, 3, 0)) i = n;
            p[i] = 1.0f;
        }
        extern "C" __global__ void one_returns(float* p) {
            if (is(3, 1, 1)) return;
            __syncthreads();
            p[linear()] = 1.0f;
        }
        extern "C" __global__ void lanes(int* out) {
            out[blockIdx.x * 64 + linear()] = __lane_id();
        }
    "#;
    run("cpu-places", || {
        let m = load(SOURCE);
        let n = 2 * 64u32;
        let p = malloc(n as usize * 4);
        let block = [8, 4, 2];
        for (kernel, place) in [("fault_before", [5, 2, 1]), ("fault_after", [6, 3, 0])] {
            let f = function(m, kernel);
            assert_eq!(launch(f, [2, 1, 1], block, 0, null_mut(), &mut [ptr(p), u32_arg(n)]), hipError_t::hipSuccess);
            assert_eq!(sync(), hipError_t::hipErrorIllegalAddress, "{kernel}");
            let faults = faults_of(kernel);
            assert_eq!(faults.len(), 1, "{kernel}: {faults:?}");
            assert_eq!((faults[0].block, faults[0].thread), ([1, 0, 0], place), "{kernel}: {faults:?}");
            assert_eq!(faults[0].address, p as usize + n as usize * 4, "{kernel}");
            sim::reset_faults();
        }
        let f = function(m, "one_returns");
        assert_eq!(launch(f, [1, 1, 1], block, 0, null_mut(), &mut [ptr(p)]), hipError_t::hipSuccess);
        assert_eq!(sync(), hipError_t::hipErrorLaunchTimeOut);
        let faults = faults_of("one_returns");
        assert_eq!(faults.len(), 1, "{faults:?}");
        assert_eq!(faults[0].thread, [3, 1, 1], "the thread that returned: {faults:?}");
        sim::reset_faults();
        let (mut size, mut device) = (0, 0);
        ok!((api().hipGetDevice)(&mut device));
        ok!((api().hipDeviceGetAttribute)(&mut size, hipDeviceAttribute_t::hipDeviceAttributeWarpSize, device));
        let f = function(m, "lanes");
        assert_eq!(launch(f, [2, 1, 1], block, 0, null_mut(), &mut [ptr(p)]), hipError_t::hipSuccess);
        assert_eq!(sync(), hipError_t::hipSuccess);
        let expected: Vec<i32> = (0..n as i32).map(|i| i % 64 % size).collect();
        assert_eq!(ints(p, n as usize), expected, "__lane_id at wave {size}");
        ok!((api().hipFree)(p));
    });
}

/// The simulator keeps a launch's staged copy of each buffer for the next
/// launch of the same buffer, which takes it with no copy while nothing
/// has written the buffer since: each way of writing it between two
/// launches must be seen by the second.
#[test]
fn a_kernel_reads_what_was_last_written_to_its_buffers_however_it_was_written() {
    if !compiler() {
        return;
    }
    run("cpu-restaged", || {
        let n = 64usize;
        let f = function(module(), "twice");
        let twice = |input: *mut c_void, out: *mut c_void| {
            let mut args = [ptr(input), ptr(out), u32_arg(n as u32)];
            assert_eq!(launch(f, [1, 1, 1], [64, 1, 1], 0, null_mut(), &mut args), hipError_t::hipSuccess);
            assert_eq!(sync(), hipError_t::hipSuccess);
            download(out, n)
        };
        let doubled = |v: &[f32]| v.iter().map(|x| x * 2.0).collect::<Vec<f32>>();
        let first: Vec<f32> = (0..n).map(|i| i as f32).collect();
        let (a, out) = (upload(&first), malloc(n * 4));
        assert_eq!(twice(a, out), doubled(&first));
        assert_eq!(twice(a, out), doubled(&first), "the same again, from the kept copy");

        let copied: Vec<f32> = (0..n).map(|i| 100.0 + i as f32).collect();
        ok!((api().hipMemcpy)(a, copied.as_ptr().cast(), n * 4, hipMemcpyKind::hipMemcpyHostToDevice));
        assert_eq!(twice(a, out), doubled(&copied), "after a copy from the host");

        let mut part = copied.clone();
        part[16..32].fill(-1.0);
        // SAFETY: 16 floats from the 16th, inside the 64 of `a`.
        let at = unsafe { a.cast::<f32>().add(16) }.cast();
        ok!((api().hipMemcpy)(at, part[16..32].as_ptr().cast(), 64, hipMemcpyKind::hipMemcpyHostToDevice));
        assert_eq!(twice(a, out), doubled(&part), "after a copy into part of it");

        ok!((api().hipMemset)(a, 0, n * 4));
        assert_eq!(twice(a, out), vec![0.0; n], "after a fill");

        let other = upload(&first);
        ok!((api().hipMemcpy)(a, other, n * 4, hipMemcpyKind::hipMemcpyDeviceToDevice));
        assert_eq!(twice(a, out), doubled(&first), "after a copy from device memory");

        // A kernel writes `a` (from `out`, 2 × first), then reads it.
        assert_eq!(twice(out, a), doubled(&doubled(&first)));
        assert_eq!(twice(a, out), doubled(&doubled(&doubled(&first))), "after a kernel wrote it");

        ok!((api().hipFree)(a));
        let fresh: Vec<f32> = (0..n).map(|i| 7.0 - i as f32).collect();
        let b = upload(&fresh);
        assert_eq!(twice(b, out), doubled(&fresh), "another buffer, perhaps where the freed one was");
        for p in [b, out, other] {
            ok!((api().hipFree)(p));
        }
    });
}
