//! All-reduce across every device of the machine, one thread driving
//! them all in one group, checked on the CPU: each device starts with its
//! own values, and every device ends with their sum, average and maximum.
//!
//! ```text
//! cargo run -p amdgpu --example all_reduce
//! AMDGPU_BACKEND=sim AMDGPU_SIM_DEVICES=4 cargo run -p amdgpu --example all_reduce
//! ```
//!
//! On the simulator the collectives run across its devices in this
//! process; on AMD GPUs through RCCL, on NVIDIA GPUs through NCCL.

use amdgpu::collective::{group, Communicator, ReduceOp};
use amdgpu::prelude::*;
use std::process::ExitCode;
use std::time::{Duration, Instant};

fn main() -> ExitCode {
    match run() {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("all_reduce: {message}");
            ExitCode::FAILURE
        }
    }
}

fn run() -> Result<(), Box<dyn std::error::Error>> {
    let devices = Device::all()?;
    println!("backend: {}, {} device(s)", amdgpu::backend(), devices.len());
    if !amdgpu::libs::available(amdgpu::libs::Library::Rccl) {
        return Err("RCCL (NCCL on NVIDIA) is not available on this backend".into());
    }
    let comms = Communicator::init_all(&devices)?;
    let n = 1 << 20;
    // Device d holds d + 1 + i / n, a different value everywhere.
    let inputs: Vec<Vec<f32>> =
        (0..devices.len()).map(|d| (0..n).map(|i| (d + 1) as f32 + i as f32 / n as f32).collect()).collect();
    for op in [ReduceOp::Sum, ReduceOp::Avg, ReduceOp::Max] {
        let mut arrays = devices
            .iter()
            .zip(&inputs)
            .map(|(&d, v)| with_device(d, || DeviceArray::from_slice(v)))
            .collect::<Result<Vec<_>, _>>()?;
        let started = Instant::now();
        group(|g| {
            for (comm, array) in comms.iter().zip(arrays.iter_mut()) {
                g.all_reduce_in_place(comm, array, op)?;
            }
            Ok(())
        })?;
        for (comm, array) in comms.iter().zip(&arrays) {
            comm.synchronize(array.stream(), Duration::from_secs(60))?;
        }
        let elapsed = started.elapsed();
        let want: Vec<f32> = (0..n)
            .map(|i| {
                let column = inputs.iter().map(|v| v[i]);
                match op {
                    ReduceOp::Max => column.fold(f32::MIN, f32::max),
                    ReduceOp::Avg => column.sum::<f32>() / devices.len() as f32,
                    _ => column.sum(),
                }
            })
            .collect();
        for (d, array) in arrays.iter().enumerate() {
            let got = array.to_vec()?;
            let worst = got.iter().zip(&want).map(|(g, w)| ((g - w) / w).abs()).fold(0.0f32, f32::max);
            if worst > 1e-5 {
                return Err(format!("{op:?}: device {d} is off by {worst:e} (relative)").into());
            }
        }
        println!(
            "{op:?} of {} MiB on each of {} device(s): {:.2} ms, every device checked on the CPU",
            (n * 4) >> 20,
            devices.len(),
            elapsed.as_secs_f64() * 1e3
        );
    }
    Ok(())
}
