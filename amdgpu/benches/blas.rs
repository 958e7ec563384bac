//! `blas::gemm` against the raw cuBLAS call it maps onto, on the same data
//! and stream, in one run:
//!
//! - 8192³ in f32 (`cublasSgemm_v2`), TF32 (`cublasSgemm_v2` on a handle in
//!   `CUBLAS_TF32_TENSOR_OP_MATH`) and bf16 (`cublasGemmEx`, `CUDA_R_16BF`,
//!   `CUBLAS_COMPUTE_32F`); each iteration one GEMM and a synchronize;
//! - 64³ in f32, each iteration 64 GEMMs back to back and one synchronize,
//!   so the per-call cost (ours: validation, handle lookup, stream-use
//!   bookkeeping) is what differs; the same call through the rocBLAS table
//!   (the cuBLAS mapping alone) splits it, and the handle lookup (what
//!   every wrapper does first), the raw handle lent out, and `on_device`
//!   are timed on their own.
//!
//! The raw side uses its own cuBLAS handle with a workspace of the same
//! size as ours. Run on an NVIDIA GPU:
//! `AMDGPU_BACKEND=nvidia cargo bench -p amdgpu --bench blas`; set
//! `AMDGPU_BENCH_GEMM_N` for another large size. Elsewhere it says why it
//! skips.

use amdgpu::blas::{self, Gemm, Math};
use amdgpu::half::bf16;
use amdgpu::{Device, DeviceArray, Stream};
use criterion::Criterion;
use std::ffi::{c_int, c_void};
use std::hint::black_box;
use std::time::Duration;

#[path = "../../hip-core/benches/support/mod.rs"]
mod support;
use support::mean_ns;

mod nvidia;
use nvidia::{function, open};

const GROUP: &str = "blas";
const SMALL: usize = 64;
const SMALL_CALLS: usize = 64;

type Handle = *mut c_void;
type Sgemm = unsafe extern "C" fn(
    Handle,
    c_int,
    c_int,
    c_int,
    c_int,
    c_int,
    *const f32,
    *const f32,
    c_int,
    *const f32,
    c_int,
    *const f32,
    *mut f32,
    c_int,
) -> c_int;
type GemmEx = unsafe extern "C" fn(
    Handle,
    c_int,
    c_int,
    c_int,
    c_int,
    c_int,
    *const c_void,
    *const c_void,
    c_int,
    c_int,
    *const c_void,
    c_int,
    c_int,
    *const c_void,
    *mut c_void,
    c_int,
    c_int,
    c_int,
    c_int,
) -> c_int;

fn large_n() -> usize {
    std::env::var("AMDGPU_BENCH_GEMM_N").ok().and_then(|v| v.parse().ok()).unwrap_or(8192)
}

fn main() {
    if amdgpu::backend() != amdgpu::Backend::Nvidia {
        eprintln!("skipped: compares against cuBLAS; run with AMDGPU_BACKEND=nvidia on an NVIDIA GPU");
        return;
    }
    let device = Device::new(0).expect("a device");
    let stream = Stream::new_on(device).expect("a stream");
    let n = large_n();
    let cublas = open(&["libcublas.so.13", "libcublas.so.12", "libcublas.so"]);
    // SAFETY: the signatures of cublas_api.h.
    let (create, set_stream, set_workspace, set_math, sgemm, gemm_ex) = unsafe {
        (
            function::<unsafe extern "C" fn(*mut Handle) -> c_int>(&cublas, "cublasCreate_v2"),
            function::<unsafe extern "C" fn(Handle, Handle) -> c_int>(&cublas, "cublasSetStream_v2"),
            function::<unsafe extern "C" fn(Handle, *mut c_void, usize) -> c_int>(&cublas, "cublasSetWorkspace_v2"),
            function::<unsafe extern "C" fn(Handle, c_int) -> c_int>(&cublas, "cublasSetMathMode"),
            function::<Sgemm>(&cublas, "cublasSgemm_v2"),
            function::<GemmEx>(&cublas, "cublasGemmEx"),
        )
    };
    let mut raw: Handle = std::ptr::null_mut();
    let mut raw_workspace =
        DeviceArray::<u8>::zeros_on(&stream, blas::workspace_size(stream.device())).expect("workspace");
    // SAFETY: a valid out-pointer; a CUDA stream on this backend; the
    // workspace lives until the end of main.
    unsafe {
        assert_eq!(create(&mut raw), 0, "cublasCreate_v2");
        assert_eq!(
            set_stream(raw, hip_sys::backend::nvidia::cuda_stream(stream.as_raw()).expect("a live stream").cast()),
            0,
            "cublasSetStream_v2"
        );
        let (p, len) = (raw_workspace.as_mut_ptr().cast(), raw_workspace.len());
        assert_eq!(set_workspace(raw, p, len), 0, "cublasSetWorkspace_v2");
    }

    let mut criterion = Criterion::default()
        .configure_from_args()
        .sample_size(20)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(4));
    let mut group = criterion.benchmark_group(GROUP);

    let big = |value: f32| DeviceArray::from_slice_on(&stream, &vec![value; n * n]).expect("matrix");
    let (a, b) = (big(0.5), big(0.25));
    let mut c = DeviceArray::<f32>::zeros_on(&stream, n * n).expect("C");
    let (ap, bp, cp) = (a.as_ptr(), b.as_ptr(), c.as_mut_ptr());
    let (one, zero) = (1.0f32, 0.0f32);
    let ni = n as c_int;
    for (name, math, cublas_math) in [("f32", Math::Default, 0), ("tf32", Math::Tf32, 3)] {
        let shape = Gemm::new(n, n, n).math(math);
        group.bench_function(format!("gemm-{name}-ours"), |bench| {
            bench.iter(|| {
                blas::gemm(&shape, 1.0, &a, &b, 0.0, &mut c).expect("gemm");
                stream.synchronize().expect("sync");
            })
        });
        // SAFETY: a live handle; CUBLAS_DEFAULT_MATH (0) or TF32 (3).
        assert_eq!(unsafe { set_math(raw, cublas_math) }, 0, "cublasSetMathMode");
        group.bench_function(format!("gemm-{name}-raw"), |bench| {
            bench.iter(|| {
                // SAFETY: n × n matrices on the handle's device; host scalars.
                black_box(unsafe { sgemm(raw, 0, 0, ni, ni, ni, &one, ap, ni, bp, ni, &zero, cp, ni) });
                stream.synchronize().expect("sync");
            })
        });
        // SAFETY: as above.
        assert_eq!(unsafe { set_math(raw, 0) }, 0, "cublasSetMathMode");
    }
    drop((a, b, c));

    let big16 = |value: f32| DeviceArray::from_slice_on(&stream, &vec![bf16::from_f32(value); n * n]).expect("bf16");
    let (a, b) = (big16(0.5), big16(0.25));
    let mut c = big16(0.0);
    let (ap, bp, cp) = (a.as_ptr().cast::<c_void>(), b.as_ptr().cast::<c_void>(), c.as_mut_ptr().cast::<c_void>());
    group.bench_function("gemm-bf16-ours", |bench| {
        bench.iter(|| {
            blas::gemm(&Gemm::new(n, n, n), 1.0, &a, &b, 0.0, &mut c).expect("gemm");
            stream.synchronize().expect("sync");
        })
    });
    let (onep, zerop) = ((&one as *const f32).cast::<c_void>(), (&zero as *const f32).cast::<c_void>());
    group.bench_function("gemm-bf16-raw", |bench| {
        bench.iter(|| {
            // SAFETY: bf16 (CUDA_R_16BF, 14) matrices, f32 compute
            // (CUBLAS_COMPUTE_32F, 68), CUBLAS_GEMM_DEFAULT (-1).
            black_box(unsafe {
                gemm_ex(raw, 0, 0, ni, ni, ni, onep, ap, 14, ni, bp, 14, ni, zerop, cp, 14, ni, 68, -1)
            });
            stream.synchronize().expect("sync");
        })
    });
    drop((a, b, c));

    let small = |value: f32| DeviceArray::from_slice_on(&stream, &vec![value; SMALL * SMALL]).expect("small");
    let (a, b) = (small(0.5), small(0.25));
    let mut c = small(0.0);
    let (ap, bp, cp) = (a.as_ptr(), b.as_ptr(), c.as_mut_ptr());
    let shape = Gemm::new(SMALL, SMALL, SMALL);
    let si = SMALL as c_int;
    group.bench_function("gemm-64-ours", |bench| {
        bench.iter(|| {
            for _ in 0..SMALL_CALLS {
                blas::gemm(&shape, 1.0, &a, &b, 0.0, &mut c).expect("gemm");
            }
            stream.synchronize().expect("sync");
        })
    });
    group.bench_function("gemm-64-raw", |bench| {
        bench.iter(|| {
            for _ in 0..SMALL_CALLS {
                // SAFETY: 64 × 64 matrices on the handle's device.
                black_box(unsafe { sgemm(raw, 0, 0, si, si, si, &one, ap, si, bp, si, &zero, cp, si) });
            }
            stream.synchronize().expect("sync");
        })
    });
    // The same call through the rocBLAS table (the cuBLAS mapping alone, on
    // a handle of our own), to split the per-call cost between the mapping
    // and the wrapper.
    let api = amdgpu::sys::rocblas().expect("the rocBLAS table");
    let mut table_handle: amdgpu::sys::rocblas::rocblas_handle = std::ptr::null_mut();
    // SAFETY: a valid out-pointer (the device is current on this thread);
    // a stream of the device.
    unsafe {
        assert_eq!((api.rocblas_create_handle)(&mut table_handle).0, 0);
        assert_eq!((api.rocblas_set_stream)(table_handle, stream.as_raw()).0, 0);
    }
    let none = amdgpu::sys::rocblas::rocblas_operation::rocblas_operation_none;
    group.bench_function("gemm-64-table", |bench| {
        bench.iter(|| {
            for _ in 0..SMALL_CALLS {
                // SAFETY: as for the raw call, through the table.
                black_box(unsafe {
                    (api.rocblas_sgemm)(table_handle, none, none, si, si, si, &one, ap, si, bp, si, &zero, cp, si)
                });
            }
            stream.synchronize().expect("sync");
        })
    });
    // The host's cost alone: only the enqueueing of 64 calls is timed, the
    // stream is drained between batches (the GPU's time is not counted).
    let mut enqueue = |id: &str, call: &mut dyn FnMut()| {
        group.bench_function(id, |bench| {
            bench.iter_custom(|iters| {
                let mut total = Duration::ZERO;
                for _ in 0..iters {
                    let start = std::time::Instant::now();
                    for _ in 0..SMALL_CALLS {
                        call();
                    }
                    total += start.elapsed();
                    stream.synchronize().expect("sync");
                }
                total
            })
        });
    };
    enqueue("enqueue-64-ours", &mut || blas::gemm(&shape, 1.0, &a, &b, 0.0, &mut c).expect("gemm"));
    enqueue("enqueue-64-raw", &mut || {
        // SAFETY: as for the raw call above.
        black_box(unsafe { sgemm(raw, 0, 0, si, si, si, &one, ap, si, bp, si, &zero, cp, si) });
    });
    enqueue("enqueue-64-table", &mut || {
        // SAFETY: as for the table's call above.
        black_box(unsafe {
            (api.rocblas_sgemm)(table_handle, none, none, si, si, si, &one, ap, si, bp, si, &zero, cp, si)
        });
    });
    // What every wrapper does first.
    group
        .bench_function("handle-lookup", |bench| bench.iter(|| blas::warm_handle(black_box(&stream)).expect("handle")));
    group.bench_function("raw-handle-lent", |bench| {
        bench.iter(|| black_box(blas::with_raw_handle(device, &stream, |h| h).expect("handle")))
    });
    // What with_raw_handle asks the handle after `f` (has its stream or
    // pointer mode changed?), through the table: the part of the lookup
    // figure that is not the lookup.
    group.bench_function("after-checks", |bench| {
        bench.iter(|| {
            let (mut now, mut mode) = (std::ptr::null_mut(), amdgpu::sys::rocblas::rocblas_pointer_mode(0));
            // SAFETY: a live handle and valid out-pointers.
            unsafe {
                black_box((api.rocblas_get_stream)(table_handle, &mut now));
                black_box((api.rocblas_get_pointer_mode)(table_handle, &mut mode));
            }
            black_box((now, mode))
        })
    });
    group.bench_function("on-device", |bench| {
        bench.iter(|| black_box(amdgpu::runtime::raw::on_device(device, || 0).expect("on_device")))
    });
    group.finish();
    criterion.final_summary();

    let flops = 2.0 * (n as f64).powi(3);
    println!("\nbackend {:?}: ours / raw (1.00 = the same time)", amdgpu::backend());
    for (what, ours, raw_id) in [
        ("gemm f32", "gemm-f32-ours", "gemm-f32-raw"),
        ("gemm tf32", "gemm-tf32-ours", "gemm-tf32-raw"),
        ("gemm bf16", "gemm-bf16-ours", "gemm-bf16-raw"),
    ] {
        if let (Some(o), Some(r)) = (mean_ns(GROUP, ours), mean_ns(GROUP, raw_id)) {
            println!(
                "  {what} {n}^3: ours {:>8.1} TFLOP/s   raw {:>8.1} TFLOP/s   ratio {:.3}",
                flops / o / 1e3,
                flops / r / 1e3,
                o / r
            );
        }
    }
    if let (Some(o), Some(r)) = (mean_ns(GROUP, "gemm-64-ours"), mean_ns(GROUP, "gemm-64-raw")) {
        let (o, r) = (o / SMALL_CALLS as f64, r / SMALL_CALLS as f64);
        println!(
            "  gemm f32 64^3, per call: ours {:.2} us   raw {:.2} us   +{:.0} ns ({:.3})",
            o / 1e3,
            r / 1e3,
            o - r,
            o / r
        );
        if let Some(t) = mean_ns(GROUP, "gemm-64-table") {
            let t = t / SMALL_CALLS as f64;
            println!("    of which the cuBLAS mapping (the table's rocblas_sgemm): +{:.0} ns", t - r);
        }
    }
    if let (Some(o), Some(r), Some(t)) =
        (mean_ns(GROUP, "enqueue-64-ours"), mean_ns(GROUP, "enqueue-64-raw"), mean_ns(GROUP, "enqueue-64-table"))
    {
        let (o, r, t) = (o / SMALL_CALLS as f64, r / SMALL_CALLS as f64, t / SMALL_CALLS as f64);
        println!(
            "  gemm f32 64^3, host cost per call: ours {o:.0} ns   the table {t:.0} ns   raw {r:.0} ns   ours +{:.0} ns",
            o - r
        );
    }
    for id in ["handle-lookup", "raw-handle-lent", "after-checks", "on-device"] {
        if let Some(ns) = mean_ns(GROUP, id) {
            println!("  {id}: {ns:.1} ns");
        }
    }
    if let (Some(lent), Some(checks)) = (mean_ns(GROUP, "raw-handle-lent"), mean_ns(GROUP, "after-checks")) {
        println!("  the raw handle lent, without with_raw_handle's after-checks: {:.1} ns", lent - checks);
    }
}
