//! One rank per process, joined by an id in a file: the pattern of
//! `torchrun` and of jobs across machines.
//!
//! Start it once per rank with `RANK`, `WORLD_SIZE` and `NCCL_ID_FILE` (a
//! path every rank can read, on a shared file system across machines;
//! rank 0 writes it), and `LOCAL_RANK` for the device (default 0):
//!
//! ```text
//! # two ranks on one machine with two GPUs
//! for r in 0 1; do
//!   RANK=$r LOCAL_RANK=$r WORLD_SIZE=2 NCCL_ID_FILE=/tmp/nccl-id cargo run -p amdgpu --example ranks &
//! done; wait
//! ```
//!
//! Across machines, run the same line on each with its own ranks; NCCL's
//! bootstrap connects them (set `NCCL_SOCKET_IFNAME` to the network
//! interface they share). Without `RANK`, the example runs every rank as
//! a thread of this process, one per device, through the same code: the
//! simulator's collectives join ranks of one process only.

use amdgpu::collective::{Communicator, ReduceOp, UniqueId};
use amdgpu::prelude::*;
use std::process::ExitCode;
use std::time::Duration;

type Error = Box<dyn std::error::Error + Send + Sync>;

fn main() -> ExitCode {
    match start() {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("ranks: {message}");
            ExitCode::FAILURE
        }
    }
}

fn var(name: &str) -> Result<Option<usize>, Error> {
    match std::env::var(name) {
        Ok(v) => Ok(Some(v.trim().parse().map_err(|_| format!("{name}={v:?} is not a whole number"))?)),
        Err(_) => Ok(None),
    }
}

fn start() -> Result<(), Error> {
    if !amdgpu::libs::available(amdgpu::libs::Library::Rccl) {
        return Err("RCCL (NCCL on NVIDIA) is not available on this backend".into());
    }
    let path = std::env::var("NCCL_ID_FILE").unwrap_or_else(|_| {
        std::env::temp_dir().join(format!("amdgpu-nccl-id-{}", std::process::id())).display().to_string()
    });
    if let Some(rank) = var("RANK")? {
        let world = var("WORLD_SIZE")?.ok_or("WORLD_SIZE is not set")?;
        let device = Device::new(var("LOCAL_RANK")?.unwrap_or(0))?;
        return run_rank(rank, world, device, &path);
    }
    // No RANK: every rank a thread of this process, one per device.
    let devices = Device::all()?;
    let world = devices.len();
    println!("no RANK set: running {world} rank(s) as threads of this process");
    let _ = std::fs::remove_file(&path);
    let ranks: Vec<_> = devices
        .into_iter()
        .enumerate()
        .map(|(rank, device)| {
            let path = path.clone();
            std::thread::spawn(move || run_rank(rank, world, device, &path))
        })
        .collect();
    for r in ranks {
        r.join().map_err(|_| "a rank panicked")??;
    }
    let _ = std::fs::remove_file(&path);
    Ok(())
}

fn run_rank(rank: usize, world: usize, device: Device, path: &str) -> Result<(), Error> {
    let id = if rank == 0 {
        let id = UniqueId::new()?;
        id.write_file(path)?;
        id
    } else {
        UniqueId::read_file(path, Duration::from_secs(120))?
    };
    let comm = Communicator::init_rank(&id, world, rank, device)?;
    let mut values = with_device(device, || DeviceArray::from_slice(&vec![rank as f64 + 1.0; 1 << 16]))?;
    comm.all_reduce_in_place(&mut values, ReduceOp::Sum)?;
    comm.synchronize(values.stream(), Duration::from_secs(120))?;
    let want = (world * (world + 1) / 2) as f64;
    let got = values.to_vec()?;
    if got.iter().any(|&v| v != want) {
        return Err(format!("rank {rank}: the sum is {}, not {want}", got[0]).into());
    }
    println!("rank {rank} of {world} on {device}: all-reduce sum {want}, checked");
    Ok(())
}
