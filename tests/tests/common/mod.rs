//! Helpers shared by the integration tests.

#![allow(dead_code)]

use hip_core::{Device, Module};
use hip_sys::Backend;

/// Whether the backend compiles HIP source: every GPU backend's compiler,
/// and on the simulator the machine's C++ compiler. Without one the test
/// skips saying why, unless `AMDGPU_SIM_REQUIRE_CXX=1` (as CI sets) makes
/// its absence a failure.
pub fn compiles() -> bool {
    if hip_sys::backend() != Backend::Sim {
        return true;
    }
    match hip_sys::sim::cxx_compiler() {
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

/// The test kernels (fill, vector add, axpy) as a code object for the
/// backend in use, loaded on `device`; `None` (with a note) where the
/// repository has no code object for the backend.
pub fn test_module(device: Device) -> Option<Module> {
    let image = match hip_sys::backend() {
        Backend::Sim => hip_sys::sim::code_object(&[
            "fill_f32",
            "fill_u32",
            "vector_add_f32",
            "vector_add_f64",
            "axpy_f32",
            "axpy_f64",
        ]),
        Backend::Nvidia => {
            let mut ptx = include_bytes!("../../../hip-sys/kernels/test_kernels.ptx").to_vec();
            ptx.push(0);
            ptx
        }
        other => {
            eprintln!("skipped: no test kernels for the {other} backend");
            return None;
        }
    };
    Some(Module::load(device, &image).expect("the test kernels load"))
}

/// Device memory for tests, freed on drop under its device (the pool
/// crate's `Buffer` will replace this).
pub struct RawBuffer {
    pub ptr: *mut std::ffi::c_void,
    pub bytes: usize,
    pub device: Device,
}

// SAFETY: a device pointer may be used from any thread.
unsafe impl Send for RawBuffer {}

impl RawBuffer {
    pub fn new(device: Device, bytes: usize) -> RawBuffer {
        let api = hip_sys::hip().unwrap();
        let mut ptr = std::ptr::null_mut();
        hip_core::raw::on_device(device, || {
            // SAFETY: a valid out-pointer.
            hip_core::check(unsafe { (api.hipMalloc)(&mut ptr, bytes) }, "hipMalloc")
        })
        .unwrap()
        .unwrap();
        RawBuffer { ptr, bytes, device }
    }

    pub fn from_slice<T: Copy>(device: Device, data: &[T]) -> RawBuffer {
        let buffer = RawBuffer::new(device, std::mem::size_of_val(data));
        let api = hip_sys::hip().unwrap();
        // SAFETY: both ranges hold `bytes` bytes.
        let status = unsafe {
            (api.hipMemcpy)(buffer.ptr, data.as_ptr().cast(), buffer.bytes, hip_sys::hipMemcpyKind::hipMemcpyDefault)
        };
        hip_core::check(status, "hipMemcpy").unwrap();
        buffer
    }

    pub fn to_vec<T: Copy + Default>(&self) -> Vec<T> {
        let mut out = vec![T::default(); self.bytes / std::mem::size_of::<T>()];
        let api = hip_sys::hip().unwrap();
        // SAFETY: both ranges hold `bytes` bytes.
        let status = unsafe {
            (api.hipMemcpy)(out.as_mut_ptr().cast(), self.ptr, self.bytes, hip_sys::hipMemcpyKind::hipMemcpyDefault)
        };
        hip_core::check(status, "hipMemcpy").unwrap();
        out
    }
}

impl Drop for RawBuffer {
    fn drop(&mut self) {
        let api = hip_sys::hip().unwrap();
        let ptr = self.ptr;
        // SAFETY: allocated by hipMalloc, freed once.
        let _ = hip_core::raw::on_device(self.device, || unsafe { (api.hipFree)(ptr) });
    }
}

/// Whether `library` can be used on this backend; a note when it cannot.
pub fn have(library: hip_libs::Library) -> bool {
    let ok = hip_libs::available(library);
    if !ok {
        eprintln!("skipped: {library} is not available on the {} backend", hip_sys::backend());
    }
    ok
}

/// Whether the simulator serves this process.
pub fn on_sim() -> bool {
    hip_sys::backend() == Backend::Sim
}

/// The stream races the simulator's detector has recorded.
pub fn stream_races() -> Vec<hip_sys::sim::Violation> {
    hip_sys::sim::violations().into_iter().filter(|v| v.kind == hip_sys::sim::ViolationKind::StreamRace).collect()
}

/// Release `hold` from another thread after a while: a call that should
/// wait for the held stream is then already waiting (one that does not
/// wait returns while the stream is still held, and sees that).
pub fn release_later(hold: hip_sys::sim::StreamHold) -> std::thread::JoinHandle<()> {
    std::thread::spawn(move || {
        std::thread::sleep(std::time::Duration::from_millis(50));
        hold.release();
    })
}

/// `n` distinct values from a seed.
pub fn pattern(n: usize, seed: u32) -> Vec<u32> {
    (0..n as u32).map(|i| i.wrapping_mul(2_654_435_761).wrapping_add(seed)).collect()
}

/// Run `f` on a new thread named `name` and return its result.
pub fn on_thread<R: Send + 'static>(name: &str, f: impl FnOnce() -> R + Send + 'static) -> R {
    std::thread::Builder::new().name(name.into()).spawn(f).expect("spawn").join().expect("thread panicked")
}

/// Context violations recorded for threads named `name` (none off the simulator).
pub fn violations_of(name: &str) -> Vec<hip_sys::sim::Violation> {
    if hip_sys::backend() != Backend::Sim {
        return Vec::new();
    }
    hip_sys::sim::violations().into_iter().filter(|v| v.thread == name).collect()
}

pub mod buffers;
pub mod linalg;
pub mod raw;

/// A deterministic pseudo-random sequence in [-1, 1): hip-sys's test
/// generator, shared by path.
#[path = "../../../hip-sys/tests/common/noise.rs"]
mod shared_noise;
#[allow(unused_imports, reason = "each test file uses some of the helpers")]
pub use shared_noise::noise;

/// A device mismatch as `(what, expected ordinal, found ordinal)`: the
/// operand it names and both devices, to assert on all three at once.
pub fn mismatch(found: Option<&hip_core::DeviceMismatch>) -> Option<(&'static str, usize, usize)> {
    found.map(|m| (m.what, m.expected.ordinal(), m.found.ordinal()))
}

/// Run this test binary again, as the simulator behaving as HIP 5, and
/// assert that every test passes there; nothing when the simulator does
/// not serve this process or when this is already a run for one version
/// (CI's HIP 6 run, or the child itself).
pub fn rerun_as_hip_5() {
    rerun_on_sim_with("AMDGPU_SIM_HIP_VERSION", "5");
}

/// Run this whole test binary again on the simulator with `variable` set
/// to `value`, and assert that every test passes there; nothing when the
/// simulator does not serve this process or `variable` is already set
/// (a run for one setting, or the child itself).
pub fn rerun_on_sim_with(variable: &str, value: &str) {
    if !on_sim() || std::env::var_os(variable).is_some() {
        return;
    }
    let exe = std::env::current_exe().unwrap();
    let out = std::process::Command::new(exe)
        .env(variable, value)
        .env("AMDGPU_BACKEND", "sim")
        .arg("--test-threads=1")
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "with {variable}={value}:\n{text}");
    assert!(text.contains("test result: ok"), "{text}");
}

/// Run the test `test` of this binary again, alone, as another process
/// with `env` added, and assert that it passed; its output.
pub fn rerun_this_test(test: &str, env: &[(&str, &std::ffi::OsStr)]) -> std::process::Output {
    let mut command = std::process::Command::new(std::env::current_exe().unwrap());
    command.args(["--exact", test, "--test-threads=1"]);
    for (key, value) in env {
        command.env(key, value);
    }
    let out = command.output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success() && text.contains("1 passed"), "{test} as another process failed:\n{text}");
    out
}
