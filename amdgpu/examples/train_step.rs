//! One training-like step captured into a graph and replayed: a GEMM (a
//! layer), a softmax (its activation), a kernel (an update of the weights,
//! `w += lr * g`) and an FFT (a spectral feature of the activations). The
//! step runs once eagerly, which makes the library handles, plans and
//! algorithm choices the capture cannot make; then it is captured once and
//! replayed for several inputs, each checked against the CPU.
//!
//! ```text
//! cargo run --example train_step
//! ```

use amdgpu::blas::{self, Gemm};
use amdgpu::kernel::{In, Kernel, Len, Out};
use amdgpu::libs::{dnn, fft};
use amdgpu::prelude::*;
use amdgpu::{Backend, CaptureMode, LaunchConfig, Module};
use std::process::ExitCode;

/// Rows (a batch).
const BATCH: usize = 8;
/// Features in.
const IN: usize = 16;
/// Features out.
const OUT: usize = 16;
const LR: f32 = 0.5;
const REPLAYS: usize = 5;

type Axpy = (f32, In<f32>, Out<f32>, Len);

/// The test kernels' code object for this backend.
fn kernels() -> Option<Vec<u8>> {
    match amdgpu::backend() {
        Backend::Sim => Some(amdgpu::sys::sim::code_object(&["axpy_f32"])),
        Backend::Nvidia => {
            let mut ptx = include_bytes!("../../hip-sys/kernels/test_kernels.ptx").to_vec();
            ptx.push(0);
            Some(ptx)
        }
        _ => None,
    }
}

/// The step's arrays, all on one stream.
struct Step {
    x: DeviceArray<f32>,
    w: DeviceArray<f32>,
    g: DeviceArray<f32>,
    h: DeviceArray<f32>,
    p: DeviceArray<f32>,
    spectrum: DeviceArray<[f32; 2]>,
}

impl Step {
    /// Enqueue one step on the arrays' stream (captured when it captures).
    fn run(&mut self, axpy: &Kernel<Axpy>, config: LaunchConfig, stream: &Stream) -> amdgpu::Result<()> {
        // h = x · w: x is BATCH × IN, w is IN × OUT, both column-major.
        blas::gemm(&Gemm::new(BATCH, OUT, IN), 1.0, &self.x, &self.w, 0.0, &mut self.h)?;
        // p = softmax over each column of h (OUT images of BATCH values).
        let shape = dnn::Shape4::new(OUT, BATCH, 1, 1);
        dnn::softmax(&self.h, &mut self.p, shape, dnn::SoftmaxAlgorithm::Accurate, dnn::SoftmaxMode::Instance)?;
        // w += LR · g.
        axpy.launch(config, stream, (LR, &self.g, &mut self.w, (IN * OUT) as u32))?;
        // The spectrum of each column of p.
        fft::r2c(&self.p, &mut self.spectrum, &[BATCH], OUT)?;
        Ok(())
    }
}

/// The same step on the CPU: (h, p, w after, spectrum).
fn reference(x: &[f32], w: &[f32], g: &[f32]) -> (Vec<f32>, Vec<f32>, Vec<[f32; 2]>) {
    let mut p = vec![0.0f32; BATCH * OUT];
    for j in 0..OUT {
        let h: Vec<f64> =
            (0..BATCH).map(|i| (0..IN).map(|l| f64::from(x[i + l * BATCH]) * f64::from(w[l + j * IN])).sum()).collect();
        let max = h.iter().cloned().fold(f64::MIN, f64::max);
        let sum: f64 = h.iter().map(|v| (v - max).exp()).sum();
        for i in 0..BATCH {
            p[i + j * BATCH] = ((h[i] - max).exp() / sum) as f32;
        }
    }
    let w_after = w.iter().zip(g).map(|(w, g)| w + LR * g).collect();
    let bins = BATCH / 2 + 1;
    let mut spectrum = vec![[0.0f32; 2]; bins * OUT];
    for j in 0..OUT {
        for k in 0..bins {
            let (mut re, mut im) = (0.0f64, 0.0f64);
            for (t, v) in p[j * BATCH..(j + 1) * BATCH].iter().enumerate() {
                let angle = -2.0 * std::f64::consts::PI * (k * t) as f64 / BATCH as f64;
                re += f64::from(*v) * angle.cos();
                im += f64::from(*v) * angle.sin();
            }
            spectrum[k + j * bins] = [re as f32, im as f32];
        }
    }
    (p, w_after, spectrum)
}

fn close(got: &[f32], want: &[f32], what: &str) -> Result<(), String> {
    match got.iter().zip(want).position(|(g, w)| (g - w).abs() > 1e-4 * (1.0 + w.abs())) {
        None => Ok(()),
        Some(i) => Err(format!("{what}[{i}]: {} on the GPU, {} on the CPU", got[i], want[i])),
    }
}

fn check(step: &Step, x: &[f32], w: &[f32], g: &[f32]) -> amdgpu::Result<Result<(), String>> {
    let (p, w_after, spectrum) = reference(x, w, g);
    let flat = |s: &[[f32; 2]]| s.iter().flatten().copied().collect::<Vec<f32>>();
    Ok(close(&step.p.to_vec()?, &p, "softmax").and(close(&step.w.to_vec()?, &w_after, "weights")).and(close(
        &flat(&step.spectrum.to_vec()?),
        &flat(&spectrum),
        "spectrum",
    )))
}

fn input(seed: u32, len: usize) -> Vec<f32> {
    (0..len as u32)
        .map(|i| ((i.wrapping_mul(2_654_435_761).wrapping_add(seed) >> 16) % 200) as f32 / 100.0 - 1.0)
        .collect()
}

fn main() -> ExitCode {
    match run() {
        Ok(Ok(())) => ExitCode::SUCCESS,
        Ok(Err(difference)) => {
            eprintln!("wrong result: {difference}");
            ExitCode::FAILURE
        }
        Err(error) => {
            eprintln!("error: {error}");
            ExitCode::FAILURE
        }
    }
}

/// The example, for `main` and the test suite: `Ok(Err(why))` when a result differs from the CPU's.
pub fn run() -> amdgpu::Result<Result<(), String>> {
    for library in [amdgpu::libs::Library::Rocblas, amdgpu::libs::Library::Miopen, amdgpu::libs::Library::Rocfft] {
        if !amdgpu::libs::available(library) {
            println!("{library} is not available on the {} backend: nothing to capture", amdgpu::backend());
            return Ok(Ok(()));
        }
    }
    let Some(image) = kernels() else {
        println!("no test kernels for the {} backend", amdgpu::backend());
        return Ok(Ok(()));
    };
    let device = Device::new(0)?;
    let stream = Stream::new_on(device)?;
    let module = Module::load(device, &image)?;
    // SAFETY: axpy_f32(float a, const float* x, float* y, uint32_t n) touches [0, n) of x and y.
    let axpy = unsafe { Kernel::<Axpy>::from_module(&module, "axpy_f32") }?;
    let config = LaunchConfig::linear(device, IN * OUT)?;
    let (mut w, g) = (input(2, IN * OUT), input(3, IN * OUT));
    let mut step = Step {
        x: DeviceArray::from_slice_on(&stream, &input(1, BATCH * IN))?,
        w: DeviceArray::from_slice_on(&stream, &w)?,
        g: DeviceArray::from_slice_on(&stream, &g)?,
        h: DeviceArray::zeros_on(&stream, BATCH * OUT)?,
        p: DeviceArray::zeros_on(&stream, BATCH * OUT)?,
        spectrum: DeviceArray::zeros_on(&stream, (BATCH / 2 + 1) * OUT)?,
    };

    // Eagerly first: the handles, the FFT plan and MIOpen's choices are
    // made here (a capture cannot make them).
    step.run(&axpy, config, &stream)?;
    if let Err(difference) = check(&step, &input(1, BATCH * IN), &w, &g)? {
        return Ok(Err(format!("eager step: {difference}")));
    }
    w = step.w.to_vec()?;

    let (graph, ()) = stream.capture(CaptureMode::Global, |s| step.run(&axpy, config, s))?;
    let exec = graph.instantiate()?;
    println!("captured one step: {} operations", graph.node_count()?);
    for replay in 0..REPLAYS {
        let x = input(10 + replay as u32, BATCH * IN);
        step.x.copy_from_slice(&x)?;
        exec.launch(&stream)?;
        if let Err(difference) = check(&step, &x, &w, &g)? {
            return Ok(Err(format!("replay {replay}: {difference}")));
        }
        w = step.w.to_vec()?;
        println!("replay {replay}: matches the CPU");
    }
    Ok(Ok(()))
}
