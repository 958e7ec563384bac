//! The same HIP kernels give the same results on every backend: compiled
//! from one text (`hip-sys/kernels/gpu_semantics.hip`) by hipRTC on AMD,
//! NVRTC on NVIDIA, and the machine's C++ compiler on the simulator, and
//! checked against the CPU at the device's wavefront width: shuffles and
//! votes, the `_sync` forms under their masks, a tiled matrix product
//! through shared memory and barriers, dynamic shared memory, atomics from
//! divergent lanes with a counting barrier.
//!
//! On the simulator they need a C++ compiler (they skip saying so, unless
//! `AMDGPU_SIM_REQUIRE_CXX=1`).

use amdgpu::prelude::*;
use amdgpu::{Function, LaunchConfig, Module, Program};
use hip_core::KernelArg;

mod common;
use common::RawBuffer;

const SOURCE: &str = include_str!("../../hip-sys/kernels/gpu_semantics.hip");

/// The kernels on the current device, compiled from their text; `None`
/// where the simulator has no compiler.
fn module() -> Option<Module> {
    if !common::compiles() {
        return None;
    }
    Some(Program::new(SOURCE).name("gpu_semantics.hip").build(device()).unwrap().load(device()).unwrap())
}

/// Launch `f` over `grid` × `block` with `shared` bytes of dynamic shared
/// memory and wait for it.
fn run(f: &Function, grid: [u32; 3], block: [u32; 3], shared: u32, args: &[&dyn KernelArg]) {
    let config = LaunchConfig { grid, block, shared_memory: shared };
    // SAFETY: each test passes the kernel's parameters, in order, of their
    // C types: device pointers to buffers of the sizes the kernel reaches
    // for this launch, and values.
    unsafe { f.launch(config, &stream(), args) }.unwrap();
    stream().synchronize().unwrap();
}

fn warp_size() -> usize {
    device().wavefront_size().unwrap() as usize
}

#[test]
fn shuffles_and_votes_at_the_devices_wavefront() {
    let Some(m) = module() else { return };
    let (t, w) = (128usize, warp_size());
    let warps = t / w;
    let input = RawBuffer::from_slice(device(), &(0..t as i32).collect::<Vec<_>>());
    let (sums, ballots) = (RawBuffer::new(device(), warps * 4), RawBuffer::new(device(), warps * 8));
    let votes = RawBuffer::from_slice(device(), &[0i32; 65]);
    let neighbours = RawBuffer::new(device(), t * 4);
    run(
        &m.function("warp_ops").unwrap(),
        [1, 1, 1],
        [t as u32, 1, 1],
        0,
        &[&input.ptr, &sums.ptr, &ballots.ptr, &votes.ptr, &neighbours.ptr],
    );
    let want: Vec<i32> = (0..warps).map(|k| (k * w..(k + 1) * w).map(|i| i as i32).sum()).collect();
    assert_eq!(sums.to_vec::<i32>(), want, "each warp's sum by __shfl_down at width {w}");
    let even = 0x5555_5555_5555_5555u64 >> (64 - w);
    assert_eq!(ballots.to_vec::<u64>(), vec![even; warps], "the even lanes' __ballot");
    let v = votes.to_vec::<i32>();
    let mut want_votes = vec![0; 2 * warps];
    want_votes[0] = 1; // __any(t == 3): warp 0 only
    for k in 1..warps {
        want_votes[2 * k + 1] = 1; // __all(in > 0): every warp but the first
    }
    assert_eq!(&v[..2 * warps], want_votes);
    assert_eq!(v[64] as usize, w, "warpSize");
    assert_eq!(neighbours.to_vec::<i32>(), (0..t as i32).map(|i| i ^ 1).collect::<Vec<_>>(), "__shfl_xor");
}

#[test]
fn sync_intrinsics_meet_under_their_masks() {
    let Some(m) = module() else { return };
    let f = match m.function("masked_warp_ops") {
        Ok(f) => f,
        // HIP before 6.2 has no _sync intrinsics (the simulator's HIP 5
        // and 6 neither), so the file leaves them out there
        // (AMDGPU_RS_WARP_SYNC is 0). NVIDIA always has them.
        Err(e) if amdgpu::backend() != amdgpu::Backend::Nvidia && amdgpu::runtime_version().unwrap() < (6, 2, 0) => {
            return eprintln!("skipped: HIP {:?} has no _sync intrinsics ({e})", amdgpu::runtime_version().unwrap())
        }
        Err(e) => panic!("{e}"),
    };
    let (t, w) = (128usize, warp_size());
    let (halves, half) = (2 * t / w, w / 2);
    let (sums, ballots, groups) =
        (RawBuffer::new(device(), halves * 4), RawBuffer::new(device(), halves * 8), RawBuffer::new(device(), t * 8));
    run(&f, [1, 1, 1], [t as u32, 1, 1], 0, &[&sums.ptr, &ballots.ptr, &groups.ptr]);
    let half_sum = |h: usize| (0..half).map(|l| (l + h * half) as i32).sum::<i32>();
    assert_eq!(sums.to_vec::<i32>(), (0..halves).map(|k| half_sum(k % 2)).collect::<Vec<_>>(), "half-warp sums");
    let lower_even = 0x5555_5555_5555_5555u64 & ((1u64 << half) - 1);
    let want: Vec<u64> = (0..halves).map(|k| if k % 2 == 0 { lower_even } else { lower_even << half }).collect();
    assert_eq!(ballots.to_vec::<u64>(), want, "each half's even lanes, within its mask");
    assert_eq!(groups.to_vec::<u64>(), (0..t).map(|i| 0xfu64 << ((i % w) & !3)).collect::<Vec<_>>(), "match_any");
}

#[test]
fn a_tiled_matrix_product_through_shared_memory_and_barriers() {
    let Some(m) = module() else { return };
    let n = 48usize;
    let a: Vec<f32> = (0..n * n).map(|i| (i % 7) as f32 - 3.0).collect();
    let b: Vec<f32> = (0..n * n).map(|i| (i % 5) as f32 * 0.5).collect();
    let (da, db, dc) =
        (RawBuffer::from_slice(device(), &a), RawBuffer::from_slice(device(), &b), RawBuffer::new(device(), n * n * 4));
    let grid = [(n / 16) as u32, (n / 16) as u32, 1];
    run(&m.function("tiled_matmul").unwrap(), grid, [16, 16, 1], 0, &[&da.ptr, &db.ptr, &dc.ptr, &(n as u32)]);
    let c = dc.to_vec::<f32>();
    for row in 0..n {
        for col in 0..n {
            // Small integers and halves: every order of the sum is exact.
            let want: f32 = (0..n).map(|k| a[row * n + k] * b[k * n + col]).sum();
            assert_eq!(c[row * n + col], want, "C[{row}][{col}]");
        }
    }
}

#[test]
fn extern_shared_memory_is_the_launchs_dynamic_shared_memory() {
    let Some(m) = module() else { return };
    let input: Vec<f32> = (0..1024).map(|i| (i % 10) as f32).collect();
    let (din, partial) = (RawBuffer::from_slice(device(), &input), RawBuffer::new(device(), 4 * 4));
    run(&m.function("dynamic_sum").unwrap(), [4, 1, 1], [256, 1, 1], 256 * 4, &[&din.ptr, &partial.ptr]);
    let want: Vec<f32> = input.chunks(256).map(|c| c.iter().sum()).collect();
    assert_eq!(partial.to_vec::<f32>(), want);
}

#[test]
fn atomics_from_divergent_lanes_and_a_counting_barrier() {
    let Some(m) = module() else { return };
    let count = RawBuffer::from_slice(device(), &[0u32; 2]);
    run(&m.function("atomics").unwrap(), [3, 1, 1], [96, 1, 1], 0, &[&count.ptr]);
    let per_block = 96 + 32; // one each, and one more for the multiples of 3
    assert_eq!(count.to_vec::<u32>(), [3 * per_block, 3 * 96], "every thread saw 48 odd threads");
}

#[test]
fn printf_reaches_the_processs_output() {
    if std::env::var_os("AMDGPU_TEST_PRINTF").is_some() {
        // The child: print, and wait for the launch (a GPU's printf
        // reaches the output once the host synchronizes).
        let Some(m) = module() else { return };
        run(&m.function("say").unwrap(), [2, 1, 1], [4, 1, 1], 0, &[&40i32]);
        return;
    }
    if module().is_none() {
        return;
    }
    let out = common::rerun_this_test("printf_reaches_the_processs_output", &[("AMDGPU_TEST_PRINTF", "1".as_ref())]);
    let text = String::from_utf8_lossy(&out.stdout);
    let mut said: Vec<&str> = text.lines().filter(|l| l.starts_with("block ")).collect();
    said.sort_unstable();
    let mut want: Vec<String> =
        (0..2).flat_map(|b| (0..4).map(move |t| format!("block {b} thread {t} says {}", 40 + t))).collect();
    want.sort_unstable();
    assert_eq!(said, want, "every thread's line once:\n{text}");
}

/// On the simulator, every test above again with the device a gfx1030,
/// whose wavefronts have 32 lanes (the run above had gfx90a's 64).
#[test]
fn on_the_simulator_the_same_at_a_wavefront_of_32() {
    if !common::on_sim() || std::env::var_os("AMDGPU_SIM_TARGETS").is_some() || !common::compiles() {
        return;
    }
    let out = std::process::Command::new(std::env::current_exe().unwrap())
        .env("AMDGPU_SIM_TARGETS", "gfx1030")
        .env("AMDGPU_BACKEND", "sim")
        .arg("--test-threads=1")
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success() && text.contains("test result: ok"), "at a wavefront of 32:\n{text}");
}
