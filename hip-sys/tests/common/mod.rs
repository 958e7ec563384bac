//! Helpers shared by the simulator's test files: HIP calls checked by
//! name, and the devices, memory, streams, events, modules and threads
//! the tests use. Each test file is a crate of its own and uses some of
//! them; the library tests' own helpers are in [`libs`] and [`rocsparse`].

#![allow(dead_code, unused_imports, unused_macros)]

pub mod libs;
pub mod noise;
pub mod rocsparse;

use hip_sys::bindings::hip::{hipDeviceAttribute_t, hipError_t, hipEvent_t, hipMemcpyKind, hipStream_t, HipApi};
use hip_sys::sim;
use std::ffi::c_void;
use std::ptr::null_mut;

/// Assert a HIP call succeeded, naming it.
macro_rules! ok {
    ($call:expr) => {{
        // SAFETY: each call site passes valid arguments for the C function.
        let status = unsafe { $call };
        assert_eq!(status, hip_sys::bindings::hip::hipError_t::hipSuccess, "{}", stringify!($call));
    }};
}
pub(crate) use ok;

/// The status of a call into one of the simulator's tables.
macro_rules! status {
    ($call:expr) => {{
        // SAFETY: each call site passes arguments the C function accepts.
        unsafe { $call }
    }};
}
pub(crate) use status;

/// The simulator's HIP table.
pub fn api() -> &'static HipApi {
    sim::api()
}

/// How many devices the simulator has (`AMDGPU_SIM_DEVICES`, 2 unless set).
pub fn device_count() -> i32 {
    let mut n = 0;
    ok!((api().hipGetDeviceCount)(&mut n));
    n
}

/// Whether the simulator has at least `n` devices; when it has fewer, a
/// note saying that the calling test is skipped, and why.
///
/// Asked under [`sim::exclusive`], so it must not be called while the
/// caller holds it: a test of sticky faults in the same binary leaves
/// every call failing until it resets them, and the answer must not
/// depend on which test runs beside this one.
pub fn devices_at_least(n: i32) -> bool {
    let count = {
        let _x = sim::exclusive();
        device_count()
    };
    if count < n {
        eprintln!("skipped: needs {n} simulated devices, and AMDGPU_SIM_DEVICES gives {count}");
    }
    count >= n
}

/// Make `d` the thread's current device.
pub fn set_device(d: i32) {
    ok!((api().hipSetDevice)(d));
}

/// The thread's current device.
pub fn get_device() -> i32 {
    let mut d = -1;
    ok!((api().hipGetDevice)(&mut d));
    d
}

/// `hipMalloc` of `bytes` on the current device.
pub fn malloc(bytes: usize) -> *mut c_void {
    let mut p = null_mut();
    ok!((api().hipMalloc)(&mut p, bytes));
    p
}

/// Device memory holding `data`.
pub fn upload(data: &[f32]) -> *mut c_void {
    let p = malloc(std::mem::size_of_val(data));
    ok!((api().hipMemcpy)(p, data.as_ptr().cast(), std::mem::size_of_val(data), hipMemcpyKind::hipMemcpyHostToDevice));
    p
}

/// `n` floats copied back from device memory at `p`.
pub fn download(p: *const c_void, n: usize) -> Vec<f32> {
    let mut out = vec![0f32; n];
    ok!((api().hipMemcpy)(out.as_mut_ptr().cast(), p, n * 4, hipMemcpyKind::hipMemcpyDeviceToHost));
    out
}

/// A new stream of the current device.
pub fn stream() -> hipStream_t {
    let mut s = null_mut();
    ok!((api().hipStreamCreate)(&mut s));
    s
}

/// A new event.
pub fn event() -> hipEvent_t {
    let mut e = null_mut();
    ok!((api().hipEventCreate)(&mut e));
    e
}

/// The simulated HIP major version (`AMDGPU_SIM_HIP_VERSION`, default 7).
pub fn hip_major() -> i32 {
    let mut v = 0;
    ok!((api().hipRuntimeGetVersion)(&mut v));
    v / 10_000_000
}

/// A device attribute, or the status HIP answers for it.
pub fn attribute(attr: hipDeviceAttribute_t, device: i32) -> Result<i32, hipError_t> {
    let mut v = -7;
    match status!((api().hipDeviceGetAttribute)(&mut v, attr, device)) {
        hipError_t::hipSuccess => Ok(v),
        e => Err(e),
    }
}

/// The simulator's code object of `kernels`, loaded on the current device.
pub fn module(kernels: &[&str]) -> hip_sys::bindings::hip::hipModule_t {
    let image = sim::code_object(kernels);
    let mut m = null_mut();
    ok!((api().hipModuleLoadData)(&mut m, image.as_ptr().cast()));
    m
}

/// The kernel `name` of module `m`.
pub fn function(m: hip_sys::bindings::hip::hipModule_t, name: &str) -> hip_sys::bindings::hip::hipFunction_t {
    let name = std::ffi::CString::new(name).unwrap();
    let mut f = null_mut();
    ok!((api().hipModuleGetFunction)(&mut f, m, name.as_ptr()));
    f
}

/// A `fill_f32` function on device 0 writing `n` floats at `p`, and a
/// launcher for it: `launch(grid, block, stream)`.
pub fn fill_launcher(p: *mut c_void, n: u32) -> impl Fn([u32; 3], [u32; 3], hipStream_t) -> hipError_t {
    let image = sim::code_object(&["fill_f32"]);
    let mut m = null_mut();
    ok!((api().hipModuleLoadData)(&mut m, image.as_ptr().cast()));
    let mut f = null_mut();
    ok!((api().hipModuleGetFunction)(&mut f, m, c"fill_f32".as_ptr()));
    let f = f as usize;
    let p = p as usize;
    move |g, b, s| {
        let (mut pp, mut v, mut n) = (p as *mut c_void, 2.5f32, n);
        let mut params: [*mut c_void; 3] =
            [(&mut pp as *mut *mut c_void).cast(), (&mut v as *mut f32).cast(), (&mut n as *mut u32).cast()];
        status!((api().hipModuleLaunchKernel)(
            f as hip_sys::bindings::hip::hipFunction_t,
            g[0],
            g[1],
            g[2],
            b[0],
            b[1],
            b[2],
            0,
            s,
            params.as_mut_ptr(),
            null_mut()
        ))
    }
}

/// Run `f` on a fresh named thread; returns its result.
pub fn on_thread<R: Send + 'static>(name: &str, f: impl FnOnce() -> R + Send + 'static) -> R {
    std::thread::Builder::new().name(name.into()).spawn(f).expect("spawn").join().expect("thread panicked")
}

/// The context violations recorded for threads named `thread`.
pub fn violations_of(thread: &str) -> Vec<sim::Violation> {
    sim::violations().into_iter().filter(|v| v.thread == thread).collect()
}

/// Run `f` on a fresh thread holding the simulator alone.
pub fn isolated<R: Send + 'static>(f: impl FnOnce() -> R + Send + 'static) -> R {
    let _x = sim::exclusive();
    std::thread::spawn(f).join().expect("test thread panicked")
}

/// Whether this process is the child [`child_process`] started for `test`.
pub fn is_child(test: &str) -> bool {
    std::env::var("AMDGPU_TEST_CHILD").as_deref() == Ok(test)
}

/// Run the test `test` of this binary (ignored or not) alone in a child
/// process with `env` added, on the simulator, and give its output, both
/// streams in one text; the caller asserts what the child should have
/// done. In the child, [`is_child`] is true for `test`.
pub fn child_process(test: &str, env: &[(&str, &str)]) -> (std::process::ExitStatus, String) {
    let output = std::process::Command::new(std::env::current_exe().expect("the test binary"))
        .args(["--exact", test, "--include-ignored", "--test-threads=1", "--nocapture"])
        .env("AMDGPU_TEST_CHILD", test)
        .env("AMDGPU_BACKEND", "sim")
        .envs(env.iter().copied())
        .output()
        .expect("the child process runs");
    let text = String::from_utf8_lossy(&output.stdout).into_owned() + &String::from_utf8_lossy(&output.stderr);
    (output.status, text)
}
