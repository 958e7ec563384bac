//! Runtime compilation (issue 20): one HIP source compiled by hipRTC (NVRTC
//! on nvidia, the host's C++ compiler on the simulator) and launched
//! through declared kernels; compile errors with the compiler's log; the
//! kernel cache in memory and on disk across processes.
//!
//! On the simulator the tests skip, saying why, when the machine has no
//! C++ compiler, unless `AMDGPU_SIM_REQUIRE_CXX=1` (as in CI) makes that a
//! failure.

use amdgpu::kernel::{Fixed, In, Kernel, Len, Out, PerBlock};
use amdgpu::prelude::*;
use amdgpu::{CacheOrigin, KernelCache, LaunchConfig, Program};
use hip_core::HipError;
use hip_sys::hiprtc::hiprtcResult;
use hip_sys::{sim, Backend};

mod common;
use common::compiles;

const SOURCE: &str = include_str!("../../hip-sys/kernels/rtc_kernels.hip");

fn program() -> Program {
    Program::new(SOURCE).name("rtc_kernels.hip").name_expression("axpy<float>").name_expression("axpy<double>")
}

/// A source no earlier run compiled, so that caches start cold.
fn fresh_source(tag: &str) -> String {
    let nanos = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map(|d| d.as_nanos()).unwrap_or(0);
    format!("// {tag} {} {nanos}\n{SOURCE}", std::process::id())
}

/// Run in a child process by the test below, with `AMDGPU_SIM_CXX`
/// naming no compiler.
#[test]
fn no_compiler_child() {
    if std::env::var("AMDGPU_RTC_NO_COMPILER").is_err() {
        return; // only as a child of without_a_compiler_the_simulator_says_what_to_install
    }
    let before = KernelCache::global().stats();
    let error = program().build(device()).unwrap_err();
    let HipError::Compile(compile) = &error else { panic!("expected a compile error, got {error:?}") };
    assert_eq!(compile.status, hiprtcResult::HIPRTC_ERROR_COMPILATION);
    assert_eq!(compile.operation, "hiprtcCompileProgram");
    assert_eq!(compile.program, "rtc_kernels.hip");
    assert!(compile.log.contains("AMDGPU_SIM_CXX=/nonexistent/c++ names no compiler"), "{}", compile.log);
    let text = error.to_string();
    assert!(text.contains("HIPRTC_ERROR_COMPILATION") && text.contains("code_object"), "{text}");
    assert!(text.contains("vector_add_f32"), "the log names the built-in kernels: {text}");
    assert_eq!(KernelCache::global().stats().compiles, before.compiles, "a failure is not cached");
    // The built-in kernels still load by name.
    let module = amdgpu::Module::load(device(), &sim::code_object(&["vector_add_f32"])).unwrap();
    assert!(module.function("vector_add_f32").is_ok());
    println!("CHILD PASSED");
}

#[test]
fn without_a_compiler_the_simulator_says_what_to_install() {
    if amdgpu::backend() != Backend::Sim {
        eprintln!("skipped: only the simulator compiles with the host's compiler");
        return;
    }
    let output = std::process::Command::new(std::env::current_exe().unwrap())
        .args(["--exact", "no_compiler_child", "--nocapture", "--test-threads=1"])
        .env("AMDGPU_SIM_CXX", "/nonexistent/c++")
        .env("AMDGPU_RTC_NO_COMPILER", "1")
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&output.stdout).into_owned() + &String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success() && text.contains("CHILD PASSED"), "the child failed:\n{text}");
}

#[test]
fn vector_add_reduction_atomics_and_templates_from_one_source() {
    let _x = sim::exclusive();
    if !compiles() {
        return;
    }
    let d = device();
    let code = program().compile(d).unwrap_or_else(|e| panic!("{e}"));
    let module = code.load(d).unwrap();
    let s = stream();
    let n = 100_000usize;
    let a: Vec<f32> = (0..n).map(|i| (i % 100) as f32).collect();
    let b: Vec<f32> = (0..n).map(|i| (i % 7) as f32).collect();
    let (da, db) = (DeviceArray::from_slice(&a).unwrap(), DeviceArray::from_slice(&b).unwrap());
    let config = LaunchConfig::linear(d, n).unwrap();

    // SAFETY: vector_add(const float* a, const float* b, float* c, uint32_t n) touches [0, n).
    let add = unsafe { Kernel::<(In<f32>, In<f32>, Out<f32>, Len)>::from_module(&module, "vector_add") }.unwrap();
    let mut dc = DeviceArray::<f32>::zeros(n).unwrap();
    add.launch(config, &s, (&da, &db, &mut dc, n as u32)).unwrap();
    let want: Vec<f32> = a.iter().zip(&b).map(|(x, y)| x + y).collect();
    assert_eq!(dc.to_vec().unwrap(), want);

    // SAFETY: block_sum(const float* in, float* partial, uint32_t n) reads
    // in[0, n) and writes partial[blockIdx.x], with blockDim.x floats of
    // dynamic shared memory.
    let sum = unsafe { Kernel::<(In<f32>, Out<f32, PerBlock>, Len)>::from_module(&module, "block_sum") }.unwrap();
    let block = 256u32;
    let blocks = n.div_ceil(block as usize);
    let reduce = LaunchConfig { grid: [blocks as u32, 1, 1], block: [block, 1, 1], shared_memory: block * 4 };
    let mut partial = DeviceArray::<f32>::zeros(blocks).unwrap();
    sum.launch(reduce, &s, (&da, &mut partial, n as u32)).unwrap();
    let total: f64 = partial.to_vec().unwrap().iter().map(|v| f64::from(*v)).sum();
    assert_eq!(total, a.iter().map(|v| f64::from(*v)).sum::<f64>());

    // SAFETY: count_above(const float* x, float threshold, unsigned* count,
    // uint32_t n) reads x[0, n) and adds to count[0] atomically.
    let count =
        unsafe { Kernel::<(In<f32>, f32, Out<u32, Fixed<1>>, Len)>::from_module(&module, "count_above") }.unwrap();
    let mut counter = DeviceArray::<u32>::zeros(1).unwrap();
    count.launch(config, &s, (&da, 49.5f32, &mut counter, n as u32)).unwrap();
    assert_eq!(counter.to_vec().unwrap(), [a.iter().filter(|v| **v > 49.5).count() as u32]);

    // The templates, through their lowered names.
    let float_name = code.lowered_name("axpy<float>").expect("lowered axpy<float>");
    let double_name = code.lowered_name("axpy<double>").expect("lowered axpy<double>");
    assert_ne!(float_name, double_name);
    // SAFETY: axpy<T>(T a, const T* x, T* y, uint32_t n) touches [0, n).
    let axpy = unsafe { Kernel::<(f32, In<f32>, Out<f32>, Len)>::from_module(&module, float_name) }.unwrap();
    axpy.launch(config, &s, (2.0f32, &db, &mut dc, n as u32)).unwrap();
    let want: Vec<f32> = a.iter().zip(&b).map(|(x, y)| x + 3.0 * y).collect();
    assert_eq!(dc.to_vec().unwrap(), want);
    // SAFETY: as above, for T = double.
    let axpy = unsafe { Kernel::<(f64, In<f64>, Out<f64>, Len)>::from_module(&module, double_name) }.unwrap();
    let x = DeviceArray::from_slice(&vec![1.5f64; n]).unwrap();
    let mut y = DeviceArray::from_slice(&vec![1.0f64; n]).unwrap();
    axpy.launch(config, &s, (4.0f64, &x, &mut y, n as u32)).unwrap();
    assert!(y.to_vec().unwrap().iter().all(|v| *v == 7.0));
}

#[test]
fn compile_errors_return_the_log() {
    let _x = sim::exclusive();
    if !compiles() {
        return;
    }
    let broken =
        Program::new("extern \"C\" __global__ void broken(float* x) { x[0] = undeclared_name; }").name("broken.hip");
    let error = broken.compile(device()).unwrap_err();
    let HipError::Compile(compile) = &error else { panic!("expected a compile error, got {error:?}") };
    assert_eq!(compile.status, hiprtcResult::HIPRTC_ERROR_COMPILATION, "{error}");
    assert!(compile.log.contains("undeclared_name"), "the log names the problem: {}", compile.log);
    assert!(error.to_string().contains("broken.hip") && error.to_string().contains("undeclared_name"), "{error}");

    let bad_option = program().option("--no-such-option-anywhere");
    let error = bad_option.compile(device()).unwrap_err();
    let HipError::Compile(compile) = &error else { panic!("expected a compile error, got {error:?}") };
    assert_eq!(compile.status, hiprtcResult::HIPRTC_ERROR_INVALID_OPTION, "{error}");

    // A header given by name is found by #include.
    let with_header = Program::new("#include \"scale.h\"\nextern \"C\" __global__ void k(float* x) { x[0] = SCALE; }")
        .header("scale.h", "#define SCALE 2.0f");
    with_header.compile(device()).unwrap_or_else(|e| panic!("{e}"));
}

#[test]
fn cache_hits_skip_compilation() {
    let _x = sim::exclusive();
    if !compiles() {
        return;
    }
    let cache = KernelCache::new(None);
    let program = Program::new(fresh_source("memory")).name_expression("axpy<float>");
    let (first, origin) = cache.get_or_compile(&program, device()).unwrap();
    assert_eq!(origin, CacheOrigin::Compiled);
    let (second, origin) = cache.get_or_compile(&program, device()).unwrap();
    assert_eq!(origin, CacheOrigin::Memory);
    assert!(std::sync::Arc::ptr_eq(&first, &second));
    assert_eq!((cache.stats().compiles, cache.stats().memory_hits), (1, 1));
    // Another option is another entry.
    let (_, origin) = cache.get_or_compile(&program.clone().option("-DVARIANT=1"), device()).unwrap();
    assert_eq!(origin, CacheOrigin::Compiled);
    assert_eq!(cache.stats().compiles, 2);
    second.load(device()).unwrap().function(second.lowered_name("axpy<float>").unwrap()).unwrap();
}

/// Run in a child process by the test below: one cached build through the
/// process's cache, whose directory comes from `AMDGPU_KERNEL_CACHE`.
#[test]
fn disk_cache_child() {
    let Ok(source) = std::env::var("AMDGPU_RTC_TEST_SOURCE") else {
        return; // only as a child of the_disk_cache_survives_a_process_restart
    };
    let (code, origin) = KernelCache::global().get_or_compile(&Program::new(source), device()).unwrap();
    let module = code.load(device()).unwrap();
    // SAFETY: vector_add(const float* a, const float* b, float* c, uint32_t n) touches [0, n).
    let add = unsafe { Kernel::<(In<f32>, In<f32>, Out<f32>, Len)>::from_module(&module, "vector_add") }.unwrap();
    let a = DeviceArray::from_slice(&[1.0f32; 512]).unwrap();
    let mut c = DeviceArray::<f32>::zeros(512).unwrap();
    add.launch(LaunchConfig::linear(device(), 512).unwrap(), &stream(), (&a, &a, &mut c, 512)).unwrap();
    assert!(c.to_vec().unwrap().iter().all(|v| *v == 2.0));
    println!("ORIGIN {origin:?} REJECTED {}", KernelCache::global().stats().disk_rejected);
}

#[test]
fn the_disk_cache_survives_a_process_restart() {
    let _x = sim::exclusive();
    if !compiles() {
        return;
    }
    let dir = std::env::temp_dir().join(format!("amdgpu-rtc-disk-cache-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let source = fresh_source("disk");
    let child = || {
        let output = std::process::Command::new(std::env::current_exe().unwrap())
            .args(["--exact", "disk_cache_child", "--nocapture", "--test-threads=1"])
            .env("AMDGPU_KERNEL_CACHE", &dir)
            .env("AMDGPU_RTC_TEST_SOURCE", &source)
            .output()
            .unwrap();
        let text = String::from_utf8_lossy(&output.stdout).into_owned() + &String::from_utf8_lossy(&output.stderr);
        assert!(output.status.success(), "the child failed:\n{text}");
        text
    };
    let first = child();
    assert!(first.contains("ORIGIN Compiled REJECTED 0"), "{first}");
    let second = child();
    assert!(second.contains("ORIGIN Disk REJECTED 0"), "a new process finds the entry: {second}");
    let entries: Vec<_> = std::fs::read_dir(&dir).unwrap().map(|e| e.unwrap().path()).collect();
    assert_eq!(entries.len(), 1, "one entry, no temporary files: {entries:?}");
    let mut bytes = std::fs::read(&entries[0]).unwrap();
    let middle = bytes.len() / 2;
    bytes[middle] ^= 0xff;
    std::fs::write(&entries[0], bytes).unwrap();
    let third = child();
    assert!(third.contains("ORIGIN Compiled REJECTED 1"), "a corrupt entry is ignored and rebuilt: {third}");
    let fourth = child();
    assert!(fourth.contains("ORIGIN Disk REJECTED 0"), "and rewritten: {fourth}");
    let _ = std::fs::remove_dir_all(&dir);
}
