//! Kernels (issue 20): the cost of a checked launch and of the kernel
//! cache, against the raw calls, in one run.
//!
//! - **Launches** of `vector_add_f32` over 1024 floats, all on the arrays'
//!   own stream: [`Kernel::launch`] (argument checks, stream-use
//!   declarations, stack-held parameters) against our raw
//!   `hipModuleLaunchKernel` (through the backend's table) and, on nvidia,
//!   against `cuLaunchKernel` called straight from `libcuda` on a module
//!   loaded with `cuModuleLoadData`. Each sample times batches of 100
//!   launches; the stream is drained between batches, outside the timing,
//!   so the figure is the host's cost of a launch.
//! - **The cache** (backends that compile): a warm in-memory hit alone, and
//!   one plus `Module::load`, against a compilation plus `Module::load`;
//!   and a disk
//!   hit as a new process sees it (a fresh cache over a filled directory)
//!   plus `Module::load`.
//!
//! `cargo bench -p amdgpu --bench kernels` (the simulator runs the launch
//! part); on an NVIDIA GPU with `AMDGPU_BACKEND=nvidia`.

use amdgpu::kernel::{In, Kernel, Len, Out};
use amdgpu::{Backend, CacheOrigin, Device, DeviceArray, KernelCache, LaunchConfig, Module, Program, Stream};
use criterion::Criterion;
use std::ffi::{c_uint, c_void};
use std::hint::black_box;
use std::time::Duration;

mod common;
use common::{print_ratios, test_kernels};

const GROUP: &str = "kernels";
const N: usize = 1024;
const BATCH: u64 = 100;

type VectorAdd = (In<f32>, In<f32>, Out<f32>, Len);

fn launch_benches(group: &mut criterion::BenchmarkGroup<'_, criterion::measurement::WallTime>, device: Device) {
    let Some(image) = test_kernels(&["vector_add_f32"]) else {
        eprintln!("launches: skipped, no test kernels for the {} backend", amdgpu::backend());
        return;
    };
    let stream = Stream::new_on(device).expect("a stream");
    let module = Module::load(device, &image).expect("the test kernels");
    // SAFETY: vector_add_f32(const float* a, const float* b, float* c, uint32_t n) touches [0, n).
    let add = unsafe { Kernel::<VectorAdd>::from_module(&module, "vector_add_f32") }.expect("vector_add_f32");
    let a = DeviceArray::from_slice_on(&stream, &[1.0f32; N]).expect("a");
    let b = DeviceArray::from_slice_on(&stream, &[2.0f32; N]).expect("b");
    let mut c = DeviceArray::<f32>::zeros_on(&stream, N).expect("c");
    let config = LaunchConfig::linear(device, N).expect("config");

    group.bench_function("launch-typed", |bench| {
        bench.iter_custom(|iters| {
            common::batched(&stream, iters, BATCH, || {
                add.launch(config, &stream, (&a, &b, black_box(&mut c), N as u32)).expect("launch")
            })
        })
    });

    let (pa, pb, pc, n) = (a.as_ptr(), b.as_ptr(), c.as_mut_ptr(), N as u32);
    let function = add.function();
    group.bench_function("launch-hip", |bench| {
        bench.iter_custom(|iters| {
            common::batched(&stream, iters, BATCH, || {
                let mut params = [
                    &pa as *const _ as *mut c_void,
                    &pb as *const _ as *mut c_void,
                    &pc as *const _ as *mut c_void,
                    &n as *const _ as *mut c_void,
                ];
                // SAFETY: vector_add_f32's four parameters, pointing at live values; the arrays outlive the launches.
                unsafe { function.launch_params(config, &stream, black_box(&mut params)) }.expect("launch");
            })
        })
    });

    if amdgpu::backend() == Backend::Nvidia {
        cu_launch_bench(group, &stream, &image, [pa.cast(), pb.cast(), pc.cast()], config);
    }
    drop((a, b, c));
}

/// `cuLaunchKernel` from `libcuda` itself, on a module of its own.
fn cu_launch_bench(
    group: &mut criterion::BenchmarkGroup<'_, criterion::measurement::WallTime>,
    stream: &Stream,
    image: &[u8],
    pointers: [*const c_void; 3],
    config: LaunchConfig,
) {
    type Handle = *mut c_void;
    // SAFETY: NVIDIA's driver, meant to be loaded into any process.
    let libcuda = unsafe { libloading::Library::new("libcuda.so.1") }.expect("libcuda");
    // SAFETY: the signatures of cuda.h.
    let (load, get, launch) = unsafe {
        (
            libcuda
                .get::<unsafe extern "C" fn(*mut Handle, *const c_void) -> i32>(b"cuModuleLoadData")
                .expect("cuModuleLoadData"),
            libcuda
                .get::<unsafe extern "C" fn(*mut Handle, Handle, *const std::ffi::c_char) -> i32>(
                    b"cuModuleGetFunction",
                )
                .expect("cuModuleGetFunction"),
            libcuda
                .get::<unsafe extern "C" fn(
                    Handle,
                    c_uint,
                    c_uint,
                    c_uint,
                    c_uint,
                    c_uint,
                    c_uint,
                    c_uint,
                    Handle,
                    *mut *mut c_void,
                    *mut *mut c_void,
                ) -> i32>(b"cuLaunchKernel")
                .expect("cuLaunchKernel"),
        )
    };
    let (mut module, mut function): (Handle, Handle) = (std::ptr::null_mut(), std::ptr::null_mut());
    // SAFETY: NUL-terminated PTX; the primary context is current (the runtime made it so).
    assert_eq!(unsafe { load(&mut module, image.as_ptr().cast()) }, 0, "cuModuleLoadData");
    // SAFETY: a live module and a C string.
    assert_eq!(unsafe { get(&mut function, module, c"vector_add_f32".as_ptr()) }, 0, "cuModuleGetFunction");
    let n = N as u32;
    let [g, bl] = [config.grid, config.block];
    // The HIP stream's own CUDA stream (the nvidia backend's handles are
    // not CUDA objects).
    let cuda_stream = hip_sys::backend::nvidia::cuda_stream(stream.as_raw()).expect("a live stream");
    group.bench_function("launch-cu", |bench| {
        bench.iter_custom(|iters| {
            common::batched(stream, iters, BATCH, || {
                let mut params = [
                    &pointers[0] as *const _ as *mut c_void,
                    &pointers[1] as *const _ as *mut c_void,
                    &pointers[2] as *const _ as *mut c_void,
                    &n as *const _ as *mut c_void,
                ];
                // SAFETY: a live function and stream; the four parameters of vector_add_f32.
                let status = unsafe {
                    launch(
                        function,
                        g[0],
                        g[1],
                        g[2],
                        bl[0],
                        bl[1],
                        bl[2],
                        0,
                        cuda_stream,
                        black_box(params.as_mut_ptr()),
                        std::ptr::null_mut(),
                    )
                };
                assert_eq!(status, 0, "cuLaunchKernel");
            })
        })
    });
}

fn cache_benches(group: &mut criterion::BenchmarkGroup<'_, criterion::measurement::WallTime>, device: Device) {
    let source = include_str!("../../hip-sys/kernels/rtc_kernels.hip");
    let program = Program::new(source).name("rtc_kernels.hip").name_expression("axpy<float>");
    if let Err(error) = program.compile(device) {
        eprintln!("cache: skipped, this backend does not compile: {}", error.to_string().lines().next().unwrap_or(""));
        return;
    }
    group.sample_size(10);
    group.bench_function("compile-load", |bench| {
        bench.iter(|| program.compile(device).expect("compile").load(device).expect("load"))
    });
    let warm = KernelCache::new(None);
    warm.get_or_compile(&program, device).expect("fill");
    group.bench_function("memory-hit", |bench| {
        bench.iter(|| {
            let (code, origin) = warm.get_or_compile(&program, device).expect("hit");
            assert_eq!(origin, CacheOrigin::Memory);
            code
        })
    });
    group.bench_function("memory-hit-load", |bench| {
        bench.iter(|| {
            let (code, origin) = warm.get_or_compile(&program, device).expect("hit");
            assert_eq!(origin, CacheOrigin::Memory);
            code.load(device).expect("load")
        })
    });
    let dir = std::env::temp_dir().join(format!("amdgpu-kernel-bench-{}", std::process::id()));
    KernelCache::new(Some(dir.clone())).get_or_compile(&program, device).expect("fill the disk cache");
    group.bench_function("disk-hit-load", |bench| {
        bench.iter(|| {
            // A fresh cache over the filled directory: what a new process finds.
            let (code, origin) = KernelCache::new(Some(dir.clone())).get_or_compile(&program, device).expect("hit");
            assert_eq!(origin, CacheOrigin::Disk);
            code.load(device).expect("load")
        })
    });
    let _ = std::fs::remove_dir_all(&dir);
}

fn main() {
    let device = Device::new(0).expect("a device");
    let mut criterion = Criterion::default()
        .configure_from_args()
        .sample_size(30)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(3));
    {
        let mut group = criterion.benchmark_group(GROUP);
        launch_benches(&mut group, device);
        cache_benches(&mut group, device);
        group.finish();
    }
    criterion.final_summary();
    print_ratios(
        GROUP,
        &[
            ("Kernel::launch vs raw hipModuleLaunchKernel", "launch-typed", "launch-hip"),
            ("raw hipModuleLaunchKernel vs cuLaunchKernel", "launch-hip", "launch-cu"),
            ("Kernel::launch vs cuLaunchKernel", "launch-typed", "launch-cu"),
            ("memory hit alone vs compile + load", "memory-hit", "compile-load"),
            ("memory hit + load vs compile + load", "memory-hit-load", "compile-load"),
            ("disk hit (new process) + load vs compile + load", "disk-hit-load", "compile-load"),
        ],
    );
}
