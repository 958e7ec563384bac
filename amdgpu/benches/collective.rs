//! `Communicator::all_reduce` against raw `ncclAllReduce` of the same
//! NCCL, on the same device, sizes of nccl-tests' range (8 B to 256 MiB
//! of f32 by default; `AMDGPU_BENCH_ALLREDUCE_BYTES` as a comma list).
//! Each iteration is one out-of-place sum and a synchronize of its
//! stream, in one run. Reported as nccl-tests define it: algorithm
//! bandwidth `bytes / time`, bus bandwidth `algbw × 2(n−1)/n` (0 with one
//! rank, where NCCL copies the input to the output).
//!
//! Run on an NVIDIA GPU: `AMDGPU_BACKEND=nvidia cargo bench -p amdgpu
//! --bench collective` (NCCL from the loader's path or `AMDGPU_NCCL_PATH`).
//! Elsewhere it says why it skips.

use amdgpu::collective::{Communicator, ReduceOp};
use amdgpu::{DeviceArray, Stream};
use criterion::Criterion;
use std::ffi::{c_int, c_void};
use std::time::Duration;

#[path = "../../hip-core/benches/support/mod.rs"]
mod support;
use support::mean_ns;

mod nvidia;
use nvidia::{function, open};

const GROUP: &str = "all-reduce";

type Comm = *mut c_void;

fn sizes() -> Vec<usize> {
    match std::env::var("AMDGPU_BENCH_ALLREDUCE_BYTES") {
        Ok(list) => list.split(',').filter_map(|s| s.trim().parse().ok()).collect(),
        Err(_) => vec![8, 1 << 10, 64 << 10, 1 << 20, 16 << 20, 256 << 20],
    }
}

fn main() {
    if amdgpu::backend() != amdgpu::Backend::Nvidia {
        eprintln!("skipped: compares against raw NCCL; run with AMDGPU_BACKEND=nvidia on an NVIDIA GPU");
        return;
    }
    let device = amdgpu::Device::new(0).expect("device 0");
    let stream = Stream::new().expect("a stream");
    let path = std::env::var("AMDGPU_NCCL_PATH").unwrap_or_else(|_| "libnccl.so.2".to_owned());
    let nccl = open(&[&path, "libnccl.so.2", "libnccl.so"]);
    type InitAll = unsafe extern "C" fn(*mut Comm, c_int, *const c_int) -> c_int;
    type AllReduce = unsafe extern "C" fn(*const c_void, *mut c_void, usize, c_int, c_int, Comm, *mut c_void) -> c_int;
    type Destroy = unsafe extern "C" fn(Comm) -> c_int;
    // SAFETY: the signatures of nccl.h.
    let (init_all, all_reduce, destroy) = unsafe {
        (
            function::<InitAll>(&nccl, "ncclCommInitAll"),
            function::<AllReduce>(&nccl, "ncclAllReduce"),
            function::<Destroy>(&nccl, "ncclCommDestroy"),
        )
    };
    let ours = Communicator::init_all(&[device]).expect("our communicator").pop().expect("one rank");
    let mut raw: Comm = std::ptr::null_mut();
    let devices = [0 as c_int];
    // SAFETY: room for one communicator and one device ordinal.
    assert_eq!(unsafe { init_all(&mut raw, 1, devices.as_ptr()) }, 0, "ncclCommInitAll");
    let cuda = amdgpu::sys::backend::nvidia::cuda_stream(stream.as_raw()).expect("a live stream");

    let mut criterion = Criterion::default()
        .configure_from_args()
        .sample_size(20)
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(2));
    let sizes = sizes();
    for &bytes in &sizes {
        let n = (bytes / 4).max(2);
        let send = DeviceArray::from_slice_on(&stream, &vec![1.5f32; n]).expect("send");
        let mut recv = DeviceArray::<f32>::zeros_on(&stream, n).expect("recv");
        ours.all_reduce(&send, &mut recv, ReduceOp::Sum).expect("all_reduce");
        ours.synchronize(&stream, Duration::from_secs(60)).expect("completes");
        assert!(recv.to_vec().expect("copy back").iter().all(|&v| v == 1.5), "one rank's sum is its input");
        let (s, r) = (send.as_ptr(), recv.as_mut_ptr());
        let mut group = criterion.benchmark_group(GROUP);
        group.bench_function(format!("ours-{bytes}"), |b| {
            b.iter(|| {
                ours.all_reduce(&send, &mut recv, ReduceOp::Sum).expect("all_reduce");
                stream.synchronize().expect("sync");
            })
        });
        group.bench_function(format!("raw-{bytes}"), |b| {
            b.iter(|| {
                // SAFETY: `n` floats at both addresses on device 0;
                // ncclFloat32 (7), ncclSum (0), the stream's CUDA stream.
                assert_eq!(unsafe { all_reduce(s.cast(), r.cast(), n, 7, 0, raw, cuda) }, 0);
                stream.synchronize().expect("sync");
            })
        });
        group.finish();
    }
    criterion.final_summary();
    // SAFETY: the raw communicator, destroyed once with nothing queued.
    unsafe { destroy(raw) };

    println!("\nbackend {:?}, one rank, out-of-place f32 sum + stream synchronize an iteration", amdgpu::backend());
    for &bytes in &sizes {
        let (o, r) = (mean_ns(GROUP, &format!("ours-{bytes}")), mean_ns(GROUP, &format!("raw-{bytes}")));
        if let (Some(o), Some(r)) = (o, r) {
            let bytes = (bytes / 4).max(2) * 4;
            println!(
                "  {bytes:>10} B  ours {:>10.2} us  raw {:>10.2} us  ours / raw {:.3}  algbw ours {:>7.1} GB/s raw {:>7.1} GB/s",
                o / 1e3,
                r / 1e3,
                o / r,
                bytes as f64 / o,
                bytes as f64 / r
            );
        }
    }
}
