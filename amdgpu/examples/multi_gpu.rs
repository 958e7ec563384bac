//! The main example: one worker thread per device. Each uploads data, runs
//! a GEMM, an FFT round trip, a sparse matrix-vector product, a softmax
//! and a HIP kernel of its own (compiled at run time: by hipRTC or NVRTC on
//! a GPU, by the machine's C++ compiler on the simulator), checks every
//! result against the CPU, and hands some of its arrays to another thread
//! to drop. Then it prints a report per device.
//!
//! ```text
//! cargo run --example multi_gpu                       # whatever backend is found
//! AMDGPU_SIM_DEVICES=4 cargo run --example multi_gpu  # four simulated GPUs
//! ```

use amdgpu::blas::{self, Gemm, Op};
use amdgpu::kernel::{In, Kernel, Len, Out, PerBlock};
use amdgpu::libs::{dnn, fft, sparse};
use amdgpu::prelude::*;
use std::process::ExitCode;
use std::sync::mpsc;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// How one check went.
#[derive(Debug)]
pub enum Outcome {
    /// Ran, and the result matched the CPU.
    Passed,
    /// Not run: the backend lacks the library (e.g. rocFFT on NVIDIA).
    Skipped(String),
    /// Ran and went wrong.
    Failed(String),
}

/// What a check returns: `Ok(None)` when the GPU's result matches the
/// CPU's, `Ok(Some(why))` when it does not, and the library's error when
/// it could not run. `amdgpu::Error` covers every crate's errors, so `?`
/// works on all of them.
type Check = amdgpu::Result<Option<String>>;

impl Outcome {
    fn of(check: Check) -> Outcome {
        match check {
            Ok(None) => Outcome::Passed,
            Ok(Some(difference)) => Outcome::Failed(difference),
            Err(e) if e.is_unavailable() => Outcome::Skipped(e.to_string()),
            Err(e) => Outcome::Failed(e.to_string()),
        }
    }
}

/// What one device's worker did.
pub struct Report {
    /// The device the worker used.
    pub device: Device,
    /// Each check by name, and how it went.
    pub checks: Vec<(&'static str, Outcome)>,
    /// Wall time of the worker.
    pub elapsed: Duration,
    /// The device's pool after the work.
    pub pool: amdgpu::pool::PoolStats,
}

fn close(a: f64, b: f64, tolerance: f64) -> bool {
    (a - b).abs() <= tolerance * (1.0 + b.abs())
}

/// FFT forward then inverse gives n × x back (rocFFT does not normalize).
fn fft_round_trip(n: usize) -> Check {
    let x: Vec<[f32; 2]> = (0..n).map(|i| [(i as f32 * 0.37).sin(), (i as f32 * 0.11).cos()]).collect();
    let input = DeviceArray::from_slice(&x)?;
    let mut spectrum = DeviceArray::<[f32; 2]>::zeros(n)?;
    let mut back = DeviceArray::<[f32; 2]>::zeros(n)?;
    fft::c2c(&input, &mut spectrum, &[n], 1, fft::Direction::Forward)?;
    fft::c2c(&spectrum, &mut back, &[n], 1, fft::Direction::Inverse)?;
    let back = back.to_vec()?;
    let worst = x
        .iter()
        .zip(&back)
        .map(|(a, b)| ((a[0] * n as f32 - b[0]).abs()).max((a[1] * n as f32 - b[1]).abs()))
        .fold(0.0f32, f32::max);
    Ok((worst > 1e-3 * n as f32).then(|| format!("round trip off by {worst}")))
}

/// `C = Aᵀ B` in f32 (column-major), against the CPU.
fn gemm_check(m: usize, n: usize, k: usize) -> Check {
    let a: Vec<f32> = (0..k * m).map(|i| ((i * 7 % 13) as f32 - 6.0) * 0.125).collect();
    let b: Vec<f32> = (0..k * n).map(|i| ((i * 5 % 11) as f32 - 5.0) * 0.25).collect();
    let (da, db) = (DeviceArray::from_slice(&a)?, DeviceArray::from_slice(&b)?);
    let mut dc = DeviceArray::<f32>::zeros(m * n)?;
    blas::gemm(&Gemm::new(m, n, k).op_a(Op::Transpose), 1.0, &da, &db, 0.0, &mut dc)?;
    let c = dc.to_vec()?;
    for j in 0..n {
        for i in 0..m {
            let want: f64 = (0..k).map(|l| a[l + i * k] as f64 * b[l + j * k] as f64).sum();
            if !close(c[i + j * m] as f64, want, 1e-5 * k as f64) {
                return Ok(Some(format!("C[{i}, {j}] = {} but the CPU says {want}", c[i + j * m])));
            }
        }
    }
    Ok(None)
}

/// A tridiagonal matrix times a vector, against the CPU.
fn sparse_product(n: usize) -> Check {
    let (mut row_ptr, mut col_ind, mut values) = (vec![0i32], Vec::new(), Vec::new());
    for i in 0..n {
        for (j, v) in [(i.wrapping_sub(1), -1.0f64), (i, 2.0), (i + 1, -1.0)] {
            if j < n {
                col_ind.push(j as i32);
                values.push(v);
            }
        }
        row_ptr.push(col_ind.len() as i32);
    }
    let a = sparse::CsrMatrix::from_host(&stream(), n, n, &row_ptr, &col_ind, &values)?;
    let x: Vec<f64> = (0..n).map(|i| (i % 7) as f64).collect();
    let dx = DeviceArray::from_slice(&x)?;
    let mut dy = DeviceArray::<f64>::zeros(n)?;
    sparse::spmv(1.0, &a, &dx, 0.0, &mut dy)?;
    let y = dy.to_vec()?;
    for i in 0..n {
        let left = if i > 0 { x[i - 1] } else { 0.0 };
        let right = if i + 1 < n { x[i + 1] } else { 0.0 };
        let want = 2.0 * x[i] - left - right;
        if !close(y[i], want, 1e-12) {
            return Ok(Some(format!("y[{i}] = {} but the CPU says {want}", y[i])));
        }
    }
    Ok(None)
}

/// Softmax over channels, against the CPU.
fn softmax_check() -> Check {
    let shape = dnn::Shape4::new(2, 8, 3, 3);
    let x: Vec<f32> = (0..shape.len()).map(|i| ((i * 31 % 17) as f32 - 8.0) * 0.25).collect();
    let dx = DeviceArray::from_slice(&x)?;
    let mut dy = DeviceArray::<f32>::zeros(shape.len())?;
    dnn::softmax(&dx, &mut dy, shape, dnn::SoftmaxAlgorithm::Accurate, dnn::SoftmaxMode::Channel)?;
    let y = dy.to_vec()?;
    let plane = shape.h * shape.w;
    for n in 0..shape.n {
        for p in 0..plane {
            let index = |c: usize| n * shape.c * plane + c * plane + p;
            let max = (0..shape.c).map(|c| x[index(c)]).fold(f32::MIN, f32::max);
            let sum: f32 = (0..shape.c).map(|c| (x[index(c)] - max).exp()).sum();
            for c in 0..shape.c {
                let want = (x[index(c)] - max).exp() / sum;
                if !close(y[index(c)] as f64, want as f64, 1e-5) {
                    return Ok(Some(format!("softmax[{}] = {} but the CPU says {want}", index(c), y[index(c)])));
                }
            }
        }
    }
    Ok(None)
}

/// A kernel of our own: each block sums its 256 elements through shared
/// memory, one barrier per halving.
const BLOCK_SUM: &str = r#"
#include <hip/hip_runtime.h>
extern "C" __global__ void block_sum(const float* in, float* sums, unsigned n) {
    __shared__ float part[256];
    unsigned t = threadIdx.x, i = blockIdx.x * blockDim.x + t;
    part[t] = i < n ? in[i] : 0.0f;
    __syncthreads();
    for (unsigned half = blockDim.x / 2; half > 0; half /= 2) {
        if (t < half) {
            part[t] += part[t + half];
        }
        __syncthreads();
    }
    if (t == 0) {
        sums[blockIdx.x] = part[0];
    }
}
"#;

/// Our own kernel, compiled at run time, against the CPU.
fn own_kernel() -> Check {
    let module = amdgpu::Program::new(BLOCK_SUM).name("block_sum.hip").build(device())?.load(device())?;
    // SAFETY: block_sum(const float* in, float* sums, unsigned n) reads
    // in[0, n) and writes sums[blockIdx.x].
    let kernel = unsafe { Kernel::<(In<f32>, Out<f32, PerBlock>, Len)>::from_module(&module, "block_sum")? };
    let n: usize = 10_000;
    let x: Vec<f32> = (0..n).map(|i| (i % 13) as f32).collect();
    let dx = DeviceArray::from_slice(&x)?;
    let blocks = n.div_ceil(256);
    let mut sums = DeviceArray::<f32>::zeros(blocks)?;
    let config = amdgpu::LaunchConfig { grid: [blocks as u32, 1, 1], block: [256, 1, 1], shared_memory: 0 };
    kernel.launch(config, &stream(), (&dx, &mut sums, n as u32))?;
    for (b, got) in sums.to_vec()?.into_iter().enumerate() {
        let want: f32 = x[b * 256..((b + 1) * 256).min(n)].iter().sum();
        if got != want {
            return Ok(Some(format!("block {b} sums to {got} but the CPU says {want}")));
        }
    }
    Ok(None)
}

/// Where there is no compiler for our own kernel (the simulator on a
/// machine without a C++ compiler), why.
fn no_compiler() -> Option<String> {
    (amdgpu::backend() == amdgpu::Backend::Sim)
        .then(|| amdgpu::sys::sim::cxx_compiler().err())
        .flatten()
        .map(str::to_owned)
}

/// Four arrays made here, to be dropped by the thread behind `handoff`.
fn hand_off(handoff: &mpsc::Sender<DeviceArray<f32>>) -> Check {
    for i in 0..4 {
        let array = DeviceArray::from_slice(&vec![i as f32; 1 << 16])?;
        if handoff.send(array).is_err() {
            return Ok(Some("the dropping thread is gone".into()));
        }
    }
    Ok(None)
}

/// One device's work, on the calling thread; arrays to drop elsewhere go
/// to `handoff`.
pub fn work(device: Device, handoff: mpsc::Sender<DeviceArray<f32>>) -> Report {
    let start = Instant::now();
    let mut checks = Vec::new();
    if let Err(e) = set_device(device) {
        checks.push(("set_device", Outcome::Failed(e.to_string())));
    } else {
        checks.push(("GEMM Aᵀ B (96 × 80 × 64)", Outcome::of(gemm_check(96, 80, 64))));
        checks.push(("FFT round trip (4096)", Outcome::of(fft_round_trip(4096))));
        checks.push(("sparse matrix-vector product (1000)", Outcome::of(sparse_product(1000))));
        checks.push(("softmax over channels", Outcome::of(softmax_check())));
        let own = match no_compiler() {
            Some(why) => Outcome::Skipped(why),
            None => Outcome::of(own_kernel()),
        };
        checks.push(("our own HIP kernel: a block sum with barriers", own));
        checks.push(("arrays handed to another thread", Outcome::of(hand_off(&handoff))));
    }
    Report { device, checks, elapsed: start.elapsed(), pool: amdgpu::pool::stats(device) }
}

/// A thread named `name`; as with `std::thread::spawn`, a thread the OS
/// cannot start is a panic.
fn spawn<T: Send + 'static>(name: String, f: impl FnOnce() -> T + Send + 'static) -> JoinHandle<T> {
    std::thread::Builder::new().name(name).spawn(f).expect("the OS starts a thread")
}

/// A thread's result; if it panicked, its panic goes on here.
fn join<T>(thread: JoinHandle<T>) -> T {
    thread.join().unwrap_or_else(|panic| std::panic::resume_unwind(panic))
}

/// Run one worker per device and a dropper thread; the reports in device
/// order (none when there is no device).
pub fn run() -> amdgpu::Result<Vec<Report>> {
    let devices = Device::all()?;
    if devices.is_empty() {
        return Ok(Vec::new());
    }
    let (tx, rx) = mpsc::channel::<DeviceArray<f32>>();
    let dropper = spawn("dropper".into(), move || rx.into_iter().map(drop).count());
    let workers: Vec<_> = devices
        .iter()
        .map(|&device| {
            let tx = tx.clone();
            spawn(format!("worker-{}", device.ordinal()), move || work(device, tx))
        })
        .collect();
    drop(tx);
    let reports = workers.into_iter().map(join).collect();
    println!("{} arrays were dropped by another thread", join(dropper));
    Ok(reports)
}

#[allow(dead_code)]
fn main() -> ExitCode {
    println!("backend: {}", amdgpu::backend());
    let reports = match run() {
        Ok(reports) if reports.is_empty() => {
            eprintln!("multi_gpu: no GPU device (hint: AMDGPU_BACKEND=sim runs the simulator)");
            return ExitCode::FAILURE;
        }
        Ok(reports) => reports,
        Err(e) => {
            eprintln!("multi_gpu: {e}");
            return ExitCode::FAILURE;
        }
    };
    let mut failed = 0;
    for report in &reports {
        let passed = report.checks.iter().filter(|(_, r)| matches!(r, Outcome::Passed)).count();
        println!(
            "\n{} ({} of {} checks passed, {:.1} ms)",
            report.device,
            passed,
            report.checks.len(),
            report.elapsed.as_secs_f64() * 1e3
        );
        for (name, result) in &report.checks {
            match result {
                Outcome::Passed => println!("  ok    {name}"),
                Outcome::Skipped(why) => println!("  skip  {name}: {why}"),
                Outcome::Failed(why) => {
                    failed += 1;
                    println!("  FAIL  {name}: {why}");
                }
            }
        }
        for line in report.pool.to_string().lines() {
            println!("  {line}");
        }
    }
    if amdgpu::backend() == amdgpu::Backend::Sim {
        println!("\ncontext violations: {}", amdgpu::sys::sim::violations().len());
    }
    if failed == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}
