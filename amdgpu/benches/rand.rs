//! `rand::uniform` and `rand::normal` against the raw cuRAND calls they
//! map onto (`curandGenerateUniform`, `curandGenerateNormal`) on a Philox
//! generator of the same stream, in one run: 2^28 f32 (1 GiB) a fill,
//! each iteration one fill and a synchronize, reported as GB/s written.
//! PyTorch's `torch.rand`/`torch.randn` into the same size are timed by
//! `rand_torch.py` beside it, on the same machine. The portable
//! `rand::Philox` (the same bits on every backend) is timed beside them,
//! and so are normal fills on XORWOW and MRG32k3a (`rand::set_engine`)
//! and Poisson fills (lambda 4.5, 2^28 `u32`), each against the same raw
//! call on a cuRAND generator of the same type.
//!
//! Run on an NVIDIA GPU: `AMDGPU_BACKEND=nvidia cargo bench -p amdgpu
//! --bench rand` (`AMDGPU_BENCH_RAND_LOG2` for another size). Elsewhere it
//! says why it skips.

use amdgpu::{rand, DeviceArray, Stream};
use criterion::Criterion;
use std::ffi::{c_int, c_void};
use std::time::Duration;

#[path = "../../hip-core/benches/support/mod.rs"]
mod support;
use support::mean_ns;

mod nvidia;
use nvidia::{function, open};

const GROUP: &str = "rand";

type Generator = *mut c_void;

fn main() {
    if amdgpu::backend() != amdgpu::Backend::Nvidia {
        eprintln!("skipped: compares against cuRAND; run with AMDGPU_BACKEND=nvidia on an NVIDIA GPU");
        return;
    }
    let log2: u32 = std::env::var("AMDGPU_BENCH_RAND_LOG2").ok().and_then(|v| v.parse().ok()).unwrap_or(28);
    let n = 1usize << log2;
    let stream = Stream::new().expect("a stream");
    let curand = open(&["libcurand.so.10", "libcurand.so"]);
    // SAFETY: the signatures of curand.h.
    let (create, set_stream, uniform, normal, poisson) = unsafe {
        (
            function::<unsafe extern "C" fn(*mut Generator, c_int) -> c_int>(&curand, "curandCreateGenerator"),
            function::<unsafe extern "C" fn(Generator, *mut c_void) -> c_int>(&curand, "curandSetStream"),
            function::<unsafe extern "C" fn(Generator, *mut f32, usize) -> c_int>(&curand, "curandGenerateUniform"),
            function::<unsafe extern "C" fn(Generator, *mut f32, usize, f32, f32) -> c_int>(
                &curand,
                "curandGenerateNormal",
            ),
            function::<unsafe extern "C" fn(Generator, *mut u32, usize, f64) -> c_int>(
                &curand,
                "curandGeneratePoisson",
            ),
        )
    };
    let cuda = amdgpu::sys::backend::nvidia::cuda_stream(stream.as_raw()).expect("a live stream");
    let generator = |kind: c_int| {
        let mut raw: Generator = std::ptr::null_mut();
        // SAFETY: a valid out-pointer; a CUDA stream of this backend.
        unsafe {
            assert_eq!(create(&mut raw, kind), 0, "curandCreateGenerator");
            assert_eq!(set_stream(raw, cuda), 0, "curandSetStream");
        }
        raw
    };
    // cuRAND's Philox4x32-10, XORWOW and MRG32k3a.
    let raw = generator(161);
    let others =
        [(rand::Engine::Xorwow, "xorwow", generator(101)), (rand::Engine::Mrg32k3a, "mrg32k3a", generator(121))];
    let mut out = DeviceArray::<f32>::zeros_on(&stream, n).expect("the output");
    let ptr = out.as_mut_ptr();

    let mut criterion = Criterion::default()
        .configure_from_args()
        .sample_size(20)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(3));
    let mut group = criterion.benchmark_group(GROUP);
    group.bench_function("uniform-ours", |b| {
        b.iter(|| {
            rand::uniform(&mut out).expect("uniform");
            stream.synchronize().expect("sync");
        })
    });
    group.bench_function("uniform-raw", |b| {
        b.iter(|| {
            // SAFETY: n floats of the generator's device.
            assert_eq!(unsafe { uniform(raw, ptr, n) }, 0);
            stream.synchronize().expect("sync");
        })
    });
    group.bench_function("normal-ours", |b| {
        b.iter(|| {
            rand::normal(&mut out, 0.0, 1.0).expect("normal");
            stream.synchronize().expect("sync");
        })
    });
    group.bench_function("normal-raw", |b| {
        b.iter(|| {
            // SAFETY: as above.
            assert_eq!(unsafe { normal(raw, ptr, n, 0.0, 1.0) }, 0);
            stream.synchronize().expect("sync");
        })
    });
    // The portable Philox (bit-identical on every backend), for scale.
    let mut portable = rand::Philox::new(0);
    group.bench_function("uniform-portable", |b| {
        b.iter(|| {
            portable.uniform(&mut out).expect("portable uniform");
            stream.synchronize().expect("sync");
        })
    });
    let device = stream.device();
    for (engine, name, raw) in others {
        rand::set_engine(device, engine).expect("the engine");
        group.bench_function(format!("normal-{name}-ours"), |b| {
            b.iter(|| {
                rand::normal(&mut out, 0.0, 1.0).expect("normal");
                stream.synchronize().expect("sync");
            })
        });
        group.bench_function(format!("normal-{name}-raw"), |b| {
            b.iter(|| {
                // SAFETY: as above.
                assert_eq!(unsafe { normal(raw, ptr, n, 0.0, 1.0) }, 0);
                stream.synchronize().expect("sync");
            })
        });
    }
    rand::set_engine(device, rand::Engine::Philox4x32_10).expect("the engine");
    let mut counts = DeviceArray::<u32>::zeros_on(&stream, n).expect("the counts");
    let counts_ptr = counts.as_mut_ptr();
    group.bench_function("poisson-ours", |b| {
        b.iter(|| {
            rand::poisson(&mut counts, 4.5).expect("poisson");
            stream.synchronize().expect("sync");
        })
    });
    group.bench_function("poisson-raw", |b| {
        b.iter(|| {
            // SAFETY: n words of the generator's device.
            assert_eq!(unsafe { poisson(raw, counts_ptr, n, 4.5) }, 0);
            stream.synchronize().expect("sync");
        })
    });
    group.finish();
    criterion.final_summary();

    let bytes = (n * 4) as f64;
    println!("\nbackend {:?}, 2^{log2} f32: GB/s written (ours / raw time)", amdgpu::backend());
    for what in ["uniform", "normal", "normal-xorwow", "normal-mrg32k3a", "poisson"] {
        if let (Some(o), Some(r)) = (mean_ns(GROUP, &format!("{what}-ours")), mean_ns(GROUP, &format!("{what}-raw"))) {
            println!("  {what:<16} ours {:>7.1} GB/s   raw {:>7.1} GB/s   ratio {:.3}", bytes / o, bytes / r, o / r);
        }
    }
    if let (Some(p), Some(r)) = (mean_ns(GROUP, "uniform-portable"), mean_ns(GROUP, "uniform-raw")) {
        println!("  portable Philox uniform {:>7.1} GB/s ({:.3} of raw cuRAND's time)", bytes / p, p / r);
    }
}
