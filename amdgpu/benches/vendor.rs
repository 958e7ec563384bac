//! The library wrappers against the raw NVIDIA library calls they map onto,
//! on the same data and stream, in one run.
//!
//! - FFT: `fft::c2c_in_place` of 2^24 complex f32 (plan cache hit, pool
//!   work area, execution info) against `cufftExecC2C` on a plan made
//!   beforehand with `cufftPlan1d`.
//! - SpMV: `sparse::spmv` of a 2^22-row tridiagonal f32 matrix against
//!   `cusparseSpMV` on descriptors and a buffer made beforehand.
//!
//! Each iteration synchronizes the stream, so both sides time the GPU work
//! they queue. Run on an NVIDIA GPU:
//! `AMDGPU_BACKEND=nvidia cargo bench -p amdgpu --bench vendor` (elsewhere
//! it says why it skips).

use amdgpu::libs::{fft, sparse};
use amdgpu::{Device, DeviceArray, Stream};
use criterion::Criterion;
use libloading::{Library, Symbol};
use std::ffi::{c_int, c_void};
use std::hint::black_box;
use std::time::Duration;

#[path = "../../hip-core/benches/support/mod.rs"]
mod support;
use support::mean_ns;

const GROUP: &str = "vendor";
const FFT_LEN: usize = 1 << 24;
const SPMV_ROWS: usize = 1 << 22;

type Handle = *mut c_void;

/// Open the first of `names` that loads.
fn open(names: &[&str]) -> Library {
    for name in names {
        // SAFETY: NVIDIA's libraries, meant to be loaded into any process.
        if let Ok(lib) = unsafe { Library::new(name) } {
            return lib;
        }
    }
    panic!("none of {names:?} loads");
}

/// A function of `lib` with the signature `T` (the caller's promise).
///
/// # Safety
/// `name` has the C signature `T` in `lib`.
unsafe fn function<'a, T>(lib: &'a Library, name: &str) -> Symbol<'a, T> {
    // SAFETY: the caller's promise.
    unsafe { lib.get(name.as_bytes()) }.unwrap_or_else(|e| panic!("{name}: {e}"))
}

fn fft_benches(group: &mut criterion::BenchmarkGroup<'_, criterion::measurement::WallTime>, stream: &Stream) {
    let mut data = DeviceArray::<[f32; 2]>::zeros_on(stream, FFT_LEN).expect("data");
    group.bench_function("fft-ours", |b| {
        b.iter(|| {
            fft::c2c_in_place(&mut data, &[FFT_LEN], 1, fft::Direction::Forward).expect("c2c");
            stream.synchronize().expect("sync");
        })
    });
    let cufft = open(&["libcufft.so.12", "libcufft.so.11", "libcufft.so"]);
    // SAFETY: the signatures of cufft.h.
    let (plan_1d, set_stream, exec, destroy) = unsafe {
        (
            function::<unsafe extern "C" fn(*mut c_int, c_int, c_int, c_int) -> c_int>(&cufft, "cufftPlan1d"),
            function::<unsafe extern "C" fn(c_int, Handle) -> c_int>(&cufft, "cufftSetStream"),
            function::<unsafe extern "C" fn(c_int, Handle, Handle, c_int) -> c_int>(&cufft, "cufftExecC2C"),
            function::<unsafe extern "C" fn(c_int) -> c_int>(&cufft, "cufftDestroy"),
        )
    };
    let mut plan: c_int = 0;
    let p = data.as_mut_ptr().cast::<c_void>();
    // SAFETY: a valid out-pointer; CUFFT_C2C (0x29), one batch; the stream
    // is a CUDA stream on this backend; the data holds FFT_LEN complex floats.
    unsafe {
        assert_eq!(plan_1d(&mut plan, FFT_LEN as c_int, 0x29, 1), 0, "cufftPlan1d");
        assert_eq!(set_stream(plan, stream.as_raw().cast()), 0, "cufftSetStream");
    }
    group.bench_function("fft-raw", |b| {
        b.iter(|| {
            // SAFETY: as above; CUFFT_FORWARD (-1).
            black_box(unsafe { exec(plan, p, p, -1) });
            stream.synchronize().expect("sync");
        })
    });
    // SAFETY: the plan made above.
    unsafe { destroy(plan) };
}

fn spmv_benches(group: &mut criterion::BenchmarkGroup<'_, criterion::measurement::WallTime>, stream: &Stream) {
    let n = SPMV_ROWS;
    let (mut row_ptr, mut cols, mut vals) = (vec![0i32], Vec::new(), Vec::new());
    for r in 0..n {
        for c in r.saturating_sub(1)..(r + 2).min(n) {
            cols.push(c as i32);
            vals.push(if c == r { 2.0f32 } else { -1.0 });
        }
        row_ptr.push(cols.len() as i32);
    }
    let matrix = sparse::CsrMatrix::from_host(stream, n, n, &row_ptr, &cols, &vals).expect("matrix");
    let x = DeviceArray::from_slice_on(stream, &vec![1.0f32; n]).expect("x");
    let mut y = DeviceArray::<f32>::zeros_on(stream, n).expect("y");
    group.bench_function("spmv-ours", |b| {
        b.iter(|| {
            sparse::spmv(1.0, &matrix, &x, 0.0, &mut y).expect("spmv");
            stream.synchronize().expect("sync");
        })
    });
    let (d_row, d_col, d_val) = (
        DeviceArray::from_slice_on(stream, &row_ptr).expect("row_ptr"),
        DeviceArray::from_slice_on(stream, &cols).expect("cols"),
        DeviceArray::from_slice_on(stream, &vals).expect("vals"),
    );
    let lib = open(&["libcusparse.so.12", "libcusparse.so.11", "libcusparse.so"]);
    type SpmvSize = unsafe extern "C" fn(
        Handle,
        c_int,
        *const c_void,
        Handle,
        Handle,
        *const c_void,
        Handle,
        c_int,
        c_int,
        *mut usize,
    ) -> c_int;
    type Spmv = unsafe extern "C" fn(
        Handle,
        c_int,
        *const c_void,
        Handle,
        Handle,
        *const c_void,
        Handle,
        c_int,
        c_int,
        *mut c_void,
    ) -> c_int;
    // SAFETY: the signatures of cusparse.h.
    let (create, set_stream, create_csr, create_vec, spmv_size, spmv) = unsafe {
        (
            function::<unsafe extern "C" fn(*mut Handle) -> c_int>(&lib, "cusparseCreate"),
            function::<unsafe extern "C" fn(Handle, Handle) -> c_int>(&lib, "cusparseSetStream"),
            function::<
                unsafe extern "C" fn(
                    *mut Handle,
                    i64,
                    i64,
                    i64,
                    *mut c_void,
                    *mut c_void,
                    *mut c_void,
                    c_int,
                    c_int,
                    c_int,
                    c_int,
                ) -> c_int,
            >(&lib, "cusparseCreateCsr"),
            function::<unsafe extern "C" fn(*mut Handle, i64, *mut c_void, c_int) -> c_int>(
                &lib,
                "cusparseCreateDnVec",
            ),
            function::<SpmvSize>(&lib, "cusparseSpMV_bufferSize"),
            function::<Spmv>(&lib, "cusparseSpMV"),
        )
    };
    let (mut handle, mut a, mut vx, mut vy): (Handle, Handle, Handle, Handle) =
        (std::ptr::null_mut(), std::ptr::null_mut(), std::ptr::null_mut(), std::ptr::null_mut());
    let (alpha, beta) = (1.0f32, 0.0f32);
    let (alpha, beta) = ((&alpha as *const f32).cast::<c_void>(), (&beta as *const f32).cast::<c_void>());
    let mut size = 0usize;
    // SAFETY: valid out-pointers; the arrays hold the matrix and vectors
    // (32-bit indices = 2, base 0, CUDA_R_32F = 0); non-transposed (0),
    // the default algorithm (0); the stream is a CUDA stream here.
    unsafe {
        assert_eq!(create(&mut handle), 0, "cusparseCreate");
        assert_eq!(set_stream(handle, stream.as_raw().cast()), 0, "cusparseSetStream");
        let nnz = vals.len() as i64;
        let status = create_csr(
            &mut a,
            n as i64,
            n as i64,
            nnz,
            d_row.as_ptr() as *mut c_void,
            d_col.as_ptr() as *mut c_void,
            d_val.as_ptr() as *mut c_void,
            2,
            2,
            0,
            0,
        );
        assert_eq!(status, 0, "cusparseCreateCsr");
        assert_eq!(create_vec(&mut vx, n as i64, x.as_ptr() as *mut c_void, 0), 0, "x");
        assert_eq!(create_vec(&mut vy, n as i64, y.as_mut_ptr().cast(), 0), 0, "y");
        assert_eq!(spmv_size(handle, 0, alpha, a, vx, beta, vy, 0, 0, &mut size), 0, "bufferSize");
    }
    let mut buffer = DeviceArray::<u8>::zeros_on(stream, size.max(1)).expect("buffer");
    let buffer_ptr = buffer.as_mut_ptr().cast::<c_void>();
    group.bench_function("spmv-raw", |b| {
        b.iter(|| {
            // SAFETY: as above; the buffer holds `size` bytes.
            black_box(unsafe { spmv(handle, 0, alpha, a, vx, beta, vy, 0, 0, buffer_ptr) });
            stream.synchronize().expect("sync");
        })
    });
}

fn main() {
    if amdgpu::backend() != amdgpu::Backend::Nvidia {
        eprintln!("skipped: compares against NVIDIA's libraries; run with AMDGPU_BACKEND=nvidia on an NVIDIA GPU");
        return;
    }
    let device = Device::new(0).expect("a device");
    let stream = Stream::new_on(device).expect("a stream");
    let mut criterion = Criterion::default()
        .configure_from_args()
        .sample_size(30)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(3));
    {
        let mut group = criterion.benchmark_group(GROUP);
        fft_benches(&mut group, &stream);
        spmv_benches(&mut group, &stream);
        group.finish();
    }
    criterion.final_summary();
    println!("\nbackend {:?}: ours / raw (1.00 = the same time)", amdgpu::backend());
    for (what, ours, raw) in [
        ("fft::c2c_in_place vs cufftExecC2C, 2^24 complex f32", "fft-ours", "fft-raw"),
        ("sparse::spmv vs cusparseSpMV, 2^22-row tridiagonal f32", "spmv-ours", "spmv-raw"),
    ] {
        if let (Some(o), Some(r)) = (mean_ns(GROUP, ours), mean_ns(GROUP, raw)) {
            println!("  {what:<56} ours {:>9.1} us   raw {:>9.1} us   ratio {:.3}", o / 1e3, r / 1e3, o / r);
        }
    }
}
