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

/// `source` compiled and loaded on the current device as `name`; `None`
/// where the simulator has no compiler.
fn compiled(source: &str, name: &str) -> Option<Module> {
    if !common::compiles() {
        return None;
    }
    Some(Program::new(source).name(name).build(device()).unwrap().load(device()).unwrap())
}

/// The GPU-semantics kernels on the current device.
fn module() -> Option<Module> {
    compiled(SOURCE, "gpu_semantics.hip")
}

/// Blocks of 256 threads covering `n` elements.
fn blocks(n: usize) -> [u32; 3] {
    [n.div_ceil(256) as u32, 1, 1]
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
    if common::on_sim() {
        // With AMDGPU_SIM_RACECHECK=on (the rerun below), the kernels'
        // shared memory is checked: none of them races.
        let races: Vec<String> = hip_sys::sim::violations()
            .into_iter()
            .filter(|v| v.kind == hip_sys::sim::ViolationKind::SharedMemoryRace)
            .map(|v| v.to_string())
            .collect();
        assert!(races.is_empty(), "{races:#?}");
    }
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
    if !common::compiles() {
        return;
    }
    let out = common::rerun_this_test("printf_reaches_the_processs_output", &[("AMDGPU_TEST_PRINTF", "1".as_ref())]);
    let text = String::from_utf8_lossy(&out.stdout);
    // A GPU's lines reach the output at the synchronize, which may be in
    // the middle of the test harness's own line ("test … ... block 0 …").
    let mut said: Vec<&str> = text.lines().filter_map(|l| l.find("block ").map(|at| &l[at..])).collect();
    said.sort_unstable();
    let mut want: Vec<String> =
        (0..2).flat_map(|b| (0..4).map(move |t| format!("block {b} thread {t} says {}", 40 + t))).collect();
    want.sort_unstable();
    assert_eq!(said, want, "every thread's line once:\n{text}");
}

/// `count` pairs of pseudo-random 16-bit patterns (xorshift from `seed`).
fn random_pairs(seed: u32, count: usize) -> (Vec<u16>, Vec<u16>) {
    let mut state = seed;
    let mut next = || {
        state ^= state << 13;
        state ^= state >> 17;
        state ^= state << 5;
        (state & 0xffff) as u16
    };
    (0..count).map(|_| (next(), next())).unzip()
}

/// The value of the half whose bits are `h`, from binary16's layout.
fn half_value(h: u16) -> f32 {
    let sign = if h & 0x8000 != 0 { -1.0 } else { 1.0 };
    let (exponent, mantissa) = (i32::from((h >> 10) & 0x1f), f64::from(h & 0x3ff));
    let magnitude = match exponent {
        0 => mantissa * 2f64.powi(-24),
        31 if mantissa == 0.0 => f64::INFINITY,
        31 => f64::NAN,
        e => (1.0 + mantissa / 1024.0) * 2f64.powi(e - 15),
    };
    (sign * magnitude) as f32
}

/// `f` rounded to the nearest half, ties to the even one; past the
/// largest half by half an ulp or more, infinity.
fn half_of(f: f32) -> u16 {
    if f.is_nan() {
        return 0x7e00;
    }
    let sign = if f.is_sign_negative() { 0x8000 } else { 0 };
    let x = f64::from(f.abs());
    if x >= 65520.0 {
        return sign | 0x7c00;
    }
    // The finite halves are in order of their bits: the first not below x.
    let (mut lo, mut hi) = (0u16, 0x7bff);
    while lo < hi {
        let mid = (lo + hi) / 2;
        if f64::from(half_value(mid)) < x {
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    let above = lo;
    if above == 0 {
        return sign;
    }
    let below = above - 1;
    let (down, up) = (x - f64::from(half_value(below)), f64::from(half_value(above)) - x);
    sign | if up < down || (up == down && above % 2 == 0) { above } else { below }
}

#[test]
fn half_precision_rounds_as_a_gpu_does() {
    if amdgpu::backend() == amdgpu::Backend::Nvidia {
        return eprintln!("skipped: NVIDIA's cuda_fp16.h is not reachable through the prelude yet");
    }
    let Some(half) = compiled(include_str!("../../hip-sys/kernels/half.hip"), "half.hip") else { return };
    // Every half, widened.
    let n = 1usize << 16;
    let widened = RawBuffer::new(device(), n * 4);
    run(&half.function("half_to_float").unwrap(), blocks(n), [256, 1, 1], 0, &[&widened.ptr, &(n as u32)]);
    for (bits, got) in widened.to_vec::<f32>().into_iter().enumerate() {
        let want = half_value(bits as u16);
        assert!(got.to_bits() == want.to_bits() || (got.is_nan() && want.is_nan()), "half {bits:#06x}: {got} {want}");
    }
    // Floats rounded: every half, the midpoints between neighbours (ties),
    // a float either side of each midpoint, and the edges.
    let mut values: Vec<f32> = Vec::new();
    for bits in 0..0x7bffu16 {
        let (a, b) = (half_value(bits), half_value(bits + 1));
        let middle = ((f64::from(a) + f64::from(b)) / 2.0) as f32;
        values.extend([a, middle, f32::from_bits(middle.to_bits() - 1), f32::from_bits(middle.to_bits() + 1)]);
    }
    values.extend([65504.0, 65519.99, 65520.0, 1e9, f32::INFINITY, f32::NAN, -0.0, 2f32.powi(-25), 2f32.powi(-26)]);
    let negated: Vec<f32> = values.iter().map(|v| -v).collect();
    values.extend(negated);
    let (input, bits) = (RawBuffer::from_slice(device(), &values), RawBuffer::new(device(), values.len() * 2));
    let count = values.len();
    run(
        &half.function("float_to_half").unwrap(),
        blocks(count),
        [256, 1, 1],
        0,
        &[&input.ptr, &bits.ptr, &(count as u32)],
    );
    for (v, got) in values.iter().zip(bits.to_vec::<u16>()) {
        let want = half_of(*v);
        let nan = |h: u16| h & 0x7fff > 0x7c00;
        assert!(got == want || (nan(got) && nan(want)), "{v:e} ({:#x}): {got:#06x}, want {want:#06x}", v.to_bits());
    }
    // Arithmetic on pseudo-random halves, against float arithmetic rounded
    // once to half (correctly rounded: float has 2 × 11 + 2 bits).
    let count = 20_000usize;
    let (a, b) = random_pairs(0x1234_5678, count);
    let (da, db) = (RawBuffer::from_slice(device(), &a), RawBuffer::from_slice(device(), &b));
    let (out, pairs) = (RawBuffer::new(device(), count * 8), RawBuffer::new(device(), count * 2));
    let f = half.function("half_arithmetic").unwrap();
    run(&f, blocks(count), [256, 1, 1], 0, &[&da.ptr, &db.ptr, &out.ptr, &pairs.ptr, &(count as u32)]);
    let (out, pairs) = (out.to_vec::<u16>(), pairs.to_vec::<u16>());
    let nan = |h: u16| h & 0x7fff > 0x7c00;
    for i in 0..count {
        let (x, y) = (half_value(a[i]), half_value(b[i]));
        for (k, want) in [x + y, x - y, x * y, x / y].into_iter().map(half_of).enumerate() {
            let got = out[4 * i + k];
            assert!(
                got == want || (nan(got) && nan(want)),
                "{:#06x} op{k} {:#06x}: {got:#06x}, want {want:#06x}",
                a[i],
                b[i]
            );
        }
        assert!(pairs[i] == out[4 * i] || (nan(pairs[i]) && nan(out[4 * i])), "__hadd2 = __hadd");
    }
}

/// `f` rounded to the nearest bfloat16 (a float's upper 16 bits), ties
/// to the even one, by the values on either side.
fn bfloat16_of(f: f32) -> u16 {
    if f.is_nan() {
        return 0x7fc0;
    }
    let bits = f.to_bits();
    let (below, above) = (bits & 0xffff_0000, (bits & 0xffff_0000).wrapping_add(0x1_0000));
    // Past the largest bfloat16 the next one up would be 2^128: infinity.
    let value = |b: u32| {
        let v = f32::from_bits(b);
        if v.is_infinite() {
            v.signum() as f64 * 2f64.powi(128)
        } else {
            f64::from(v)
        }
    };
    let (down, up) = (f64::from(f) - value(below), value(above) - f64::from(f));
    let (down, up) = (down.abs(), up.abs());
    let pick = if up < down || (up == down && (above >> 16) % 2 == 0) { above } else { below };
    (pick >> 16) as u16
}

#[test]
fn bfloat16_rounds_as_a_gpu_does() {
    if !common::on_sim() || amdgpu::runtime_version().unwrap() < (6, 0, 0) {
        // hipRTC before ROCm 6 has no hip/hip_bf16.h (the file has no
        // kernels there); NVRTC's cuda_bf16.h is not reachable through
        // the prelude, nor ROCm 6's checked here without a GPU.
        return eprintln!("skipped: bfloat16 is checked on the simulator as HIP 6 and 7");
    }
    let Some(m) = compiled(include_str!("../../hip-sys/kernels/bfloat16.hip"), "bfloat16.hip") else { return };
    let n = 1usize << 16;
    let widened = RawBuffer::new(device(), n * 4);
    run(&m.function("bfloat16_to_float").unwrap(), blocks(n), [256, 1, 1], 0, &[&widened.ptr, &(n as u32)]);
    for (bits, got) in widened.to_vec::<f32>().into_iter().enumerate() {
        assert_eq!(got.to_bits(), (bits as u32) << 16, "bfloat16 {bits:#06x}");
    }
    // Every bfloat16's value, the midpoints to the next (ties), a float
    // either side of each, and NaN.
    let mut values: Vec<f32> = Vec::new();
    for bits in (0..0x7f7fu32).step_by(7) {
        let a = f32::from_bits(bits << 16);
        let middle = f32::from_bits((bits << 16) + 0x8000);
        values.extend([a, middle, f32::from_bits(middle.to_bits() - 1), f32::from_bits(middle.to_bits() + 1)]);
    }
    values.extend([f32::MAX, f32::INFINITY, f32::NAN, -0.0, f32::MIN_POSITIVE / 3.0]);
    let negated: Vec<f32> = values.iter().map(|v| -v).collect();
    values.extend(negated);
    let count = values.len();
    let (input, bits) = (RawBuffer::from_slice(device(), &values), RawBuffer::new(device(), count * 2));
    run(
        &m.function("float_to_bfloat16").unwrap(),
        blocks(count),
        [256, 1, 1],
        0,
        &[&input.ptr, &bits.ptr, &(count as u32)],
    );
    let nan = |b: u16| b & 0x7fff > 0x7f80;
    for (v, got) in values.iter().zip(bits.to_vec::<u16>()) {
        let want = bfloat16_of(*v);
        assert!(got == want || (nan(got) && nan(want)), "{v:e} ({:#x}): {got:#06x}, want {want:#06x}", v.to_bits());
    }
    // Sums and products of pseudo-random bfloat16s, rounded once.
    let count = 20_000usize;
    let (a, b) = random_pairs(0x9e37_79b9, count);
    let (da, db, out) =
        (RawBuffer::from_slice(device(), &a), RawBuffer::from_slice(device(), &b), RawBuffer::new(device(), count * 4));
    let f = m.function("bfloat16_arithmetic").unwrap();
    run(&f, blocks(count), [256, 1, 1], 0, &[&da.ptr, &db.ptr, &out.ptr, &(count as u32)]);
    let out = out.to_vec::<u16>();
    let value = |h: u16| f32::from_bits(u32::from(h) << 16);
    for i in 0..count {
        let (x, y) = (value(a[i]), value(b[i]));
        for (k, want) in [x + y, x * y].into_iter().map(bfloat16_of).enumerate() {
            let got = out[2 * i + k];
            assert!(
                got == want || (nan(got) && nan(want)),
                "{:#06x} op{k} {:#06x}: {got:#06x}, want {want:#06x}",
                a[i],
                b[i]
            );
        }
    }
}

/// On the simulator, every test above again with the shared-memory race
/// check on (`run` asserts that no kernel races), and from there at a
/// wavefront of 32 too (the test below, in that run).
#[test]
fn on_the_simulator_the_same_with_the_race_check() {
    if common::compiles() && std::env::var_os("AMDGPU_SIM_TARGETS").is_none() {
        common::rerun_on_sim_with("AMDGPU_SIM_RACECHECK", "on");
    }
}

/// On the simulator, every test above again with the device a gfx1030,
/// whose wavefronts have 32 lanes (the run above had gfx90a's 64).
#[test]
fn on_the_simulator_the_same_at_a_wavefront_of_32() {
    if common::compiles() {
        common::rerun_on_sim_with("AMDGPU_SIM_TARGETS", "gfx1030");
    }
}
