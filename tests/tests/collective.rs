//! RCCL through hip-libs on every backend that has it (the simulator's
//! collectives across its devices, RCCL, NCCL behind the same table):
//! every collective against the CPU in every element type, in place and
//! out of place, one thread driving every rank in a group and one thread
//! a rank joined by id; stream order with other work; refusals before any
//! call; and what must end in an error instead of a hang (a missing rank,
//! a mismatched call, a drop with work queued). With one device (one
//! H200) the communicator has one rank; the simulator runs 2 devices
//! here and 4 in a child process.

use amdgpu::collective::{group, CollectiveElement, Communicator, ReduceOp, Reduction, UniqueId};
use amdgpu::half::{bf16, f16};
use amdgpu::libs::{LibError, Library};
use amdgpu::prelude::*;
use std::time::Duration;

mod common;
use common::{have, on_sim, release_later, stream_races};

/// How long a test waits for collectives that should complete.
const PATIENCE: Duration = Duration::from_secs(60);

/// The element types, as f64 for the CPU references.
trait Elem: CollectiveElement + amdgpu::DeviceCopy + Default + PartialEq + std::fmt::Debug {
    fn from_f64(v: f64) -> Self;
    fn to_f64(self) -> f64;
    /// Relative tolerance of a reduction over a few ranks.
    const TOLERANCE: f64;
    const INTEGER: bool;
}

macro_rules! int_elem {
    ($($t:ty),*) => {$(
        impl Elem for $t {
            fn from_f64(v: f64) -> Self { v as $t }
            fn to_f64(self) -> f64 { self as f64 }
            const TOLERANCE: f64 = 0.0;
            const INTEGER: bool = true;
        }
    )*};
}
int_elem!(i8, u8, i32, u32, i64, u64);

impl Elem for f32 {
    fn from_f64(v: f64) -> Self {
        v as f32
    }
    fn to_f64(self) -> f64 {
        self as f64
    }
    const TOLERANCE: f64 = 1e-6;
    const INTEGER: bool = false;
}
impl Elem for f64 {
    fn from_f64(v: f64) -> Self {
        v
    }
    fn to_f64(self) -> f64 {
        self
    }
    const TOLERANCE: f64 = 1e-14;
    const INTEGER: bool = false;
}
impl Elem for f16 {
    fn from_f64(v: f64) -> Self {
        f16::from_f64(v)
    }
    fn to_f64(self) -> f64 {
        self.to_f64()
    }
    const TOLERANCE: f64 = 4e-3;
    const INTEGER: bool = false;
}
impl Elem for bf16 {
    fn from_f64(v: f64) -> Self {
        bf16::from_f64(v)
    }
    fn to_f64(self) -> f64 {
        self.to_f64()
    }
    const TOLERANCE: f64 = 3e-2;
    const INTEGER: bool = false;
}

/// Rank `rank`'s input: small values every type holds exactly, so the
/// references are exact up to the reduction's rounding (products of up to
/// 4 ranks of values up to 3 stay small).
fn input<T: Elem>(rank: usize, n: usize) -> Vec<T> {
    (0..n).map(|i| T::from_f64(((i * 7 + rank * 3) % 4) as f64)).collect()
}

fn reference(op: ReduceOp, values: &[f64], integer: bool) -> f64 {
    match op {
        ReduceOp::Sum => values.iter().sum(),
        ReduceOp::Prod => values.iter().product(),
        ReduceOp::Max => values.iter().cloned().fold(f64::MIN, f64::max),
        ReduceOp::Min => values.iter().cloned().fold(f64::MAX, f64::min),
        ReduceOp::Avg => {
            let sum: f64 = values.iter().sum();
            if integer {
                (sum / values.len() as f64).trunc()
            } else {
                sum / values.len() as f64
            }
        }
    }
}

fn assert_close<T: Elem>(got: &[T], want: &[f64], what: &str) {
    assert_eq!(got.len(), want.len(), "{what}: length");
    for (i, (g, w)) in got.iter().zip(want).enumerate() {
        let g = g.to_f64();
        assert!((g - w).abs() <= T::TOLERANCE * w.abs().max(1.0), "{what}[{i}]: got {g}, want {w}");
    }
}

/// Every device's communicator, or `None` (with a note) without RCCL.
fn communicators() -> Option<Vec<Communicator>> {
    if !have(Library::Rccl) {
        return None;
    }
    let devices = Device::all().expect("devices");
    Some(Communicator::init_all(&devices).expect("init_all"))
}

/// Communicators of the first two devices only, for tests that need two
/// ranks and no more (every rank must call), or `None` (with a note)
/// without RCCL or with fewer than two devices.
fn pair() -> Option<Vec<Communicator>> {
    if !have(Library::Rccl) {
        return None;
    }
    let devices = Device::all().expect("devices");
    if devices.len() < 2 {
        eprintln!("skipped: needs two devices, and this machine has {}", devices.len());
        return None;
    }
    Some(Communicator::init_all(&devices[..2]).expect("init_all"))
}

/// An array of `data` on `device`.
fn on<T: amdgpu::DeviceCopy>(device: Device, data: &[T]) -> DeviceArray<T> {
    with_device(device, || DeviceArray::from_slice(data)).expect("upload")
}

fn wait_all(comms: &[Communicator], arrays: &[DeviceArray<impl amdgpu::DeviceCopy>]) {
    for (comm, array) in comms.iter().zip(arrays) {
        comm.synchronize(array.stream(), PATIENCE).expect("the collectives complete");
    }
}

/// Every collective of type `T`, in place and out of place, every
/// reduction, one thread driving every rank through groups.
fn every_collective<T: Elem>(comms: &[Communicator]) {
    let n = comms.len();
    let len = 37;
    let inputs: Vec<Vec<T>> = (0..n).map(|r| input::<T>(r, len)).collect();
    let as_f64: Vec<Vec<f64>> = inputs.iter().map(|v| v.iter().map(|x| x.to_f64()).collect()).collect();
    let column = |i: usize| -> Vec<f64> { as_f64.iter().map(|v| v[i]).collect() };
    let name = T::NAME;
    for op in [ReduceOp::Sum, ReduceOp::Prod, ReduceOp::Max, ReduceOp::Min, ReduceOp::Avg] {
        let want: Vec<f64> = (0..len).map(|i| reference(op, &column(i), T::INTEGER)).collect();
        // Out of place.
        let sends: Vec<_> = comms.iter().zip(&inputs).map(|(c, v)| on(c.device(), v)).collect();
        let mut recvs: Vec<_> = comms.iter().map(|c| on(c.device(), &vec![T::default(); len])).collect();
        group(|g| {
            for ((comm, send), recv) in comms.iter().zip(&sends).zip(recvs.iter_mut()) {
                g.all_reduce(comm, send, recv, op)?;
            }
            Ok(())
        })
        .expect("all_reduce");
        wait_all(comms, &recvs);
        for (r, recv) in recvs.iter().enumerate() {
            assert_close(&recv.to_vec().unwrap(), &want, &format!("{name} all_reduce {op:?} rank {r}"));
        }
        // In place.
        let mut bufs: Vec<_> = comms.iter().zip(&inputs).map(|(c, v)| on(c.device(), v)).collect();
        group(|g| {
            for (comm, buf) in comms.iter().zip(bufs.iter_mut()) {
                g.all_reduce_in_place(comm, buf, op)?;
            }
            Ok(())
        })
        .expect("all_reduce_in_place");
        wait_all(comms, &bufs);
        for (r, buf) in bufs.iter().enumerate() {
            assert_close(&buf.to_vec().unwrap(), &want, &format!("{name} in-place all_reduce {op:?} rank {r}"));
        }
        // Reduce to the last rank; the others' output stays as it was.
        let root = n - 1;
        let mut outs: Vec<_> = comms.iter().map(|c| on(c.device(), &vec![T::from_f64(1.0); len])).collect();
        group(|g| {
            for ((comm, send), out) in comms.iter().zip(&sends).zip(outs.iter_mut()) {
                g.reduce(comm, send, out, op, root)?;
            }
            Ok(())
        })
        .expect("reduce");
        wait_all(comms, &outs);
        for (r, out) in outs.iter().enumerate() {
            let expect = if r == root { want.clone() } else { vec![1.0; len] };
            assert_close(&out.to_vec().unwrap(), &expect, &format!("{name} reduce {op:?} to {root}, rank {r}"));
        }
        // Reduce-scatter: rank r gets the r-th part of the reduction of
        // inputs n times as long.
        let long: Vec<Vec<T>> = (0..n).map(|r| input::<T>(r + 1, len * n)).collect();
        let long_f64: Vec<Vec<f64>> = long.iter().map(|v| v.iter().map(|x| x.to_f64()).collect()).collect();
        let sends_long: Vec<_> = comms.iter().zip(&long).map(|(c, v)| on(c.device(), v)).collect();
        let mut parts: Vec<_> = comms.iter().map(|c| on(c.device(), &vec![T::default(); len])).collect();
        group(|g| {
            for ((comm, send), part) in comms.iter().zip(&sends_long).zip(parts.iter_mut()) {
                g.reduce_scatter(comm, send, part, op)?;
            }
            Ok(())
        })
        .expect("reduce_scatter");
        wait_all(comms, &parts);
        for (r, part) in parts.iter().enumerate() {
            let want: Vec<f64> = (r * len..(r + 1) * len)
                .map(|i| reference(op, &long_f64.iter().map(|v| v[i]).collect::<Vec<_>>(), T::INTEGER))
                .collect();
            assert_close(&part.to_vec().unwrap(), &want, &format!("{name} reduce_scatter {op:?} rank {r}"));
        }
    }
    // Broadcast from each root, out of place and in place.
    for root in 0..n {
        let sends: Vec<_> = comms.iter().zip(&inputs).map(|(c, v)| on(c.device(), v)).collect();
        let mut recvs: Vec<_> = comms.iter().map(|c| on(c.device(), &vec![T::default(); len])).collect();
        group(|g| {
            for (r, ((comm, send), recv)) in comms.iter().zip(&sends).zip(recvs.iter_mut()).enumerate() {
                let send: Option<&dyn amdgpu::libs::DeviceData<T>> = (r == root).then_some(send as _);
                g.broadcast(comm, send, recv, root)?;
            }
            Ok(())
        })
        .expect("broadcast");
        let mut bufs: Vec<_> = comms.iter().zip(&inputs).map(|(c, v)| on(c.device(), v)).collect();
        group(|g| {
            for (comm, buf) in comms.iter().zip(bufs.iter_mut()) {
                g.broadcast(comm, None, buf, root)?;
            }
            Ok(())
        })
        .expect("in-place broadcast");
        wait_all(comms, &recvs);
        wait_all(comms, &bufs);
        for r in 0..n {
            assert_eq!(recvs[r].to_vec().unwrap(), inputs[root], "{name} broadcast from {root}, rank {r}");
            assert_eq!(bufs[r].to_vec().unwrap(), inputs[root], "{name} in-place broadcast from {root}, rank {r}");
        }
    }
    // All-gather: every rank's input in rank order, everywhere.
    let gathered: Vec<T> = inputs.concat();
    let sends: Vec<_> = comms.iter().zip(&inputs).map(|(c, v)| on(c.device(), v)).collect();
    let mut recvs: Vec<_> = comms.iter().map(|c| on(c.device(), &vec![T::default(); len * n])).collect();
    group(|g| {
        for ((comm, send), recv) in comms.iter().zip(&sends).zip(recvs.iter_mut()) {
            g.all_gather(comm, send, recv)?;
        }
        Ok(())
    })
    .expect("all_gather");
    wait_all(comms, &recvs);
    for (r, recv) in recvs.iter().enumerate() {
        assert_eq!(recv.to_vec().unwrap(), gathered, "{name} all_gather rank {r}");
    }
    pre_multiplied_sums::<T>(comms, &inputs);
    exchanges::<T>(comms);
}

/// Sums of each rank's elements times its own scalar, against the CPU:
/// all-reduce out of place and reduce-scatter.
fn pre_multiplied_sums<T: Elem>(comms: &[Communicator], inputs: &[Vec<T>]) {
    let (n, len, name) = (comms.len(), inputs[0].len(), T::NAME);
    // Halves are exact in every float type; integers get whole scalars.
    let scalar = |r: usize| if T::INTEGER { (r + 1) as f64 } else { 0.5 * (r + 1) as f64 };
    let weighted = |values: &[Vec<T>], i: usize| -> f64 {
        values.iter().enumerate().map(|(r, v)| scalar(r) * v[i].to_f64()).sum()
    };
    let sends: Vec<_> = comms.iter().zip(inputs).map(|(c, v)| on(c.device(), v)).collect();
    let mut recvs: Vec<_> = comms.iter().map(|c| on(c.device(), &vec![T::default(); len])).collect();
    group(|g| {
        for (r, ((comm, send), recv)) in comms.iter().zip(&sends).zip(recvs.iter_mut()).enumerate() {
            g.all_reduce(comm, send, recv, Reduction::PreMulSum(T::from_f64(scalar(r))))?;
        }
        Ok(())
    })
    .expect("pre-multiplied all_reduce");
    wait_all(comms, &recvs);
    let want: Vec<f64> = (0..len).map(|i| weighted(inputs, i)).collect();
    for (r, recv) in recvs.iter().enumerate() {
        assert_close(&recv.to_vec().unwrap(), &want, &format!("{name} pre-multiplied all_reduce rank {r}"));
    }
    let long: Vec<Vec<T>> = (0..n).map(|r| input::<T>(r + 1, len * n)).collect();
    let sends: Vec<_> = comms.iter().zip(&long).map(|(c, v)| on(c.device(), v)).collect();
    let mut parts: Vec<_> = comms.iter().map(|c| on(c.device(), &vec![T::default(); len])).collect();
    group(|g| {
        for (r, ((comm, send), part)) in comms.iter().zip(&sends).zip(parts.iter_mut()).enumerate() {
            g.reduce_scatter(comm, send, part, Reduction::PreMulSum(T::from_f64(scalar(r))))?;
        }
        Ok(())
    })
    .expect("pre-multiplied reduce_scatter");
    wait_all(comms, &parts);
    for (r, part) in parts.iter().enumerate() {
        let want: Vec<f64> = (r * len..(r + 1) * len).map(|i| weighted(&long, i)).collect();
        assert_close(&part.to_vec().unwrap(), &want, &format!("{name} pre-multiplied reduce_scatter rank {r}"));
    }
}

/// All-to-all in equal and uneven parts (some empty, buffers longer than
/// their parts), gather and scatter from every root, against the CPU.
fn exchanges<T: Elem>(comms: &[Communicator]) {
    let (n, name) = (comms.len(), T::NAME);
    let marker = T::from_f64(5.0);
    // Equal parts: part p of rank r's send lands in part r of rank p's recv.
    let part = 5;
    let inputs: Vec<Vec<T>> = (0..n).map(|r| input::<T>(r + 2, part * n)).collect();
    let sends: Vec<_> = comms.iter().zip(&inputs).map(|(c, v)| on(c.device(), v)).collect();
    let mut recvs: Vec<_> = comms.iter().map(|c| on(c.device(), &vec![marker; part * n])).collect();
    group(|g| {
        for ((comm, send), recv) in comms.iter().zip(&sends).zip(recvs.iter_mut()) {
            g.all_to_all(comm, send, recv)?;
        }
        Ok(())
    })
    .expect("all_to_all");
    wait_all(comms, &recvs);
    for (r, recv) in recvs.iter().enumerate() {
        let want: Vec<T> = (0..n).flat_map(|p| inputs[p][r * part..(r + 1) * part].to_vec()).collect();
        assert_eq!(recv.to_vec().unwrap(), want, "{name} all_to_all rank {r}");
    }
    // Uneven parts: rank `from` sends `count(from, to)` elements to `to`.
    let count = |from: usize, to: usize| (from + 2 * to + 1) % 3;
    let send_counts: Vec<Vec<usize>> = (0..n).map(|r| (0..n).map(|p| count(r, p)).collect()).collect();
    let recv_counts: Vec<Vec<usize>> = (0..n).map(|r| (0..n).map(|p| count(p, r)).collect()).collect();
    let inputs: Vec<Vec<T>> = (0..n).map(|r| input::<T>(r + 3, send_counts[r].iter().sum::<usize>() + 1)).collect();
    let sends: Vec<_> = comms.iter().zip(&inputs).map(|(c, v)| on(c.device(), v)).collect();
    let mut recvs: Vec<_> =
        (0..n).map(|r| on(comms[r].device(), &vec![marker; recv_counts[r].iter().sum::<usize>() + 2])).collect();
    group(|g| {
        for (r, ((comm, send), recv)) in comms.iter().zip(&sends).zip(recvs.iter_mut()).enumerate() {
            g.all_to_all_v(comm, send, &send_counts[r], recv, &recv_counts[r])?;
        }
        Ok(())
    })
    .expect("all_to_all_v");
    wait_all(comms, &recvs);
    for (r, recv) in recvs.iter().enumerate() {
        let mut want: Vec<T> = Vec::new();
        for p in 0..n {
            let at: usize = send_counts[p][..r].iter().sum();
            want.extend_from_slice(&inputs[p][at..at + count(p, r)]);
        }
        want.extend([marker, marker]);
        assert_eq!(recv.to_vec().unwrap(), want, "{name} all_to_all_v rank {r} (the tail untouched)");
    }
    // Gather to and scatter from every root.
    let len = 7;
    let inputs: Vec<Vec<T>> = (0..n).map(|r| input::<T>(r + 1, len)).collect();
    let whole: Vec<T> = input::<T>(9, len * n);
    for root in 0..n {
        let sends: Vec<_> = comms.iter().zip(&inputs).map(|(c, v)| on(c.device(), v)).collect();
        let mut gathered = on(comms[root].device(), &vec![marker; len * n]);
        let whole_at_root = on(comms[root].device(), &whole);
        let mut scattered: Vec<_> = comms.iter().map(|c| on(c.device(), &vec![marker; len])).collect();
        group(|g| {
            let mut gathered = Some(&mut gathered as &mut dyn amdgpu::libs::DeviceDataMut<T>);
            for (r, (comm, send)) in comms.iter().zip(&sends).enumerate() {
                let recv = if r == root { gathered.take() } else { None };
                g.gather(comm, send, recv, root)?;
            }
            Ok(())
        })
        .expect("gather");
        group(|g| {
            for (r, (comm, recv)) in comms.iter().zip(scattered.iter_mut()).enumerate() {
                let send: Option<&dyn amdgpu::libs::DeviceData<T>> = (r == root).then_some(&whole_at_root as _);
                g.scatter(comm, send, recv, root)?;
            }
            Ok(())
        })
        .expect("scatter");
        comms[root].synchronize(gathered.stream(), PATIENCE).expect("the gather completes");
        wait_all(comms, &scattered);
        assert_eq!(gathered.to_vec().unwrap(), inputs.concat(), "{name} gather to {root}");
        for (r, recv) in scattered.iter().enumerate() {
            assert_eq!(recv.to_vec().unwrap(), whole[r * len..(r + 1) * len], "{name} scatter from {root} to {r}");
        }
    }
}

#[test]
fn every_collective_in_every_type_matches_the_cpu() {
    let _x = hip_sys::sim::exclusive();
    let Some(comms) = communicators() else { return };
    if let Some(want) = std::env::var("COLLECTIVE_CHILD_RANKS").ok().and_then(|v| v.parse::<usize>().ok()) {
        assert_eq!(comms.len(), want, "the child runs on {want} devices");
    }
    every_collective::<f32>(&comms);
    every_collective::<f64>(&comms);
    every_collective::<f16>(&comms);
    every_collective::<bf16>(&comms);
    every_collective::<i32>(&comms);
    every_collective::<i64>(&comms);
    every_collective::<u8>(&comms);
    every_collective::<i8>(&comms);
    every_collective::<u32>(&comms);
    every_collective::<u64>(&comms);
    drop(comms);
    assert_eq!(stream_races(), vec![], "no stream races");
}

#[test]
fn the_simulator_runs_the_collectives_across_four_devices() {
    if !on_sim() {
        eprintln!("skipped: the four-device run is the simulator's");
        return;
    }
    let exe = std::env::current_exe().expect("test binary");
    let output = std::process::Command::new(exe)
        .args(["--exact", "every_collective_in_every_type_matches_the_cpu", "--test-threads=1"])
        .env("AMDGPU_SIM_DEVICES", "4")
        .env("AMDGPU_BACKEND", "sim")
        .env("COLLECTIVE_CHILD_RANKS", "4")
        .output()
        .expect("child runs");
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(output.status.success(), "{stdout}\n{}", String::from_utf8_lossy(&output.stderr));
    assert!(stdout.contains("1 passed"), "{stdout}");
}

#[test]
fn one_thread_a_rank_joins_by_id() {
    let _x = hip_sys::sim::exclusive();
    if !have(Library::Rccl) {
        return;
    }
    let devices = Device::all().unwrap();
    let world = devices.len();
    let id = UniqueId::new().expect("id");
    // Handed over as text, as an environment variable would carry it.
    let text = id.to_string();
    let workers: Vec<_> = devices
        .iter()
        .enumerate()
        .map(|(rank, &device)| {
            let text = text.clone();
            std::thread::Builder::new()
                .name(format!("rank {rank}"))
                .spawn(move || {
                    let id: UniqueId = text.parse().expect("an id");
                    let comm = Communicator::init_rank(&id, world, rank, device).expect("init_rank");
                    assert_eq!((comm.rank(), comm.size(), comm.device()), (rank, world, device));
                    let mut buf = on(device, &vec![(rank + 1) as f32; 1000]);
                    comm.all_reduce_in_place(&mut buf, ReduceOp::Sum).expect("all_reduce");
                    comm.synchronize(buf.stream(), PATIENCE).expect("completes");
                    let want = (world * (world + 1) / 2) as f32;
                    assert_eq!(buf.to_vec().unwrap(), vec![want; 1000], "rank {rank}");
                    // A ring of sends and receives, paired in one group.
                    let next = (rank + 1) % world;
                    let prev = (rank + world - 1) % world;
                    let out = on(device, &vec![rank as u32; 64]);
                    let mut got = on(device, &vec![u32::MAX; 64]);
                    group(|g| {
                        g.send(&comm, &out, next)?;
                        g.recv(&comm, &mut got, prev)
                    })
                    .expect("ring");
                    comm.synchronize(got.stream(), PATIENCE).expect("ring completes");
                    assert_eq!(got.to_vec().unwrap(), vec![prev as u32; 64], "rank {rank} from {prev}");
                })
                .expect("spawn")
        })
        .collect();
    for w in workers {
        w.join().expect("a rank failed");
    }
    assert_eq!(stream_races(), vec![], "no stream races");
}

#[test]
fn collectives_order_after_and_before_other_work_on_other_streams() {
    let _x = hip_sys::sim::exclusive();
    let Some(comms) = communicators() else { return };
    let n = comms.len();
    let len = 1 << 16;
    // Inputs written on one stream, outputs on another: the collective
    // waits for the inputs' stream, and the input arrays are dropped at
    // once, so their memory must outlive the collective's reads.
    let others: Vec<Stream> = comms.iter().map(|c| Stream::new_on(c.device()).unwrap()).collect();
    let mut outs: Vec<_> =
        comms.iter().zip(&others).map(|(_, s)| DeviceArray::<f32>::zeros_on(s, len).unwrap()).collect();
    {
        let ins: Vec<_> = comms
            .iter()
            .enumerate()
            .map(|(r, c)| with_device(c.device(), || DeviceArray::from_slice(&vec![r as f32 + 0.5; len])).unwrap())
            .collect();
        group(|g| {
            for ((comm, input), out) in comms.iter().zip(&ins).zip(outs.iter_mut()) {
                g.all_reduce(comm, input, out, ReduceOp::Max)?;
            }
            Ok(())
        })
        .unwrap();
    }
    // Fresh arrays that may take the dropped inputs' memory.
    let fresh: Vec<_> = comms
        .iter()
        .map(|c| with_device(c.device(), || DeviceArray::from_slice(&vec![-9.0f32; len])).unwrap())
        .collect();
    wait_all(&comms, &outs);
    for (r, out) in outs.iter().enumerate() {
        assert_eq!(out.to_vec().unwrap(), vec![n as f32 - 0.5; len], "rank {r}");
    }
    drop(fresh);
    assert_eq!(stream_races(), vec![], "no stream races");
}

/// A group's buffer uses are recorded after its launch: with one rank's
/// stream held, the other rank's collective cannot complete, so its
/// input's memory must not be handed out again, though the array is
/// dropped. Recorded before the launch, the use would be complete at once
/// and the memory reused under the collective's read (a race, and a
/// wrong sum).
#[test]
fn a_groups_uses_hold_the_memory_until_the_collective_ran() {
    let _x = hip_sys::sim::exclusive();
    if !on_sim() {
        eprintln!("skipped: holding a stream is the simulator's");
        return;
    }
    let Some(comms) = pair() else { return };
    let len = 1 << 18;
    let others: Vec<Stream> = comms.iter().map(|c| Stream::new_on(c.device()).unwrap()).collect();
    let mut outs: Vec<_> = others.iter().map(|s| DeviceArray::<f32>::zeros_on(s, len).unwrap()).collect();
    let released = {
        let ins: Vec<_> = comms
            .iter()
            .enumerate()
            .map(|(r, c)| with_device(c.device(), || DeviceArray::from_slice(&vec![r as f32 + 1.0; len])).unwrap())
            .collect();
        // Held after the uploads, which synchronize with every blocking stream.
        let hold = hip_sys::sim::hold_stream(others[1].as_raw()).expect("hold rank 1's stream");
        group(|g| {
            for ((comm, input), out) in comms.iter().zip(&ins).zip(outs.iter_mut()) {
                g.all_reduce(comm, input, out, ReduceOp::Sum)?;
            }
            Ok(())
        })
        .unwrap();
        // Rank 0's stream has reached the collective and waits for rank 1.
        std::thread::sleep(Duration::from_millis(50));
        // Released from another thread, in case anything below waits
        // for the collective.
        release_later(hold)
    };
    // Written by an asynchronous memset on a stream of its own, which
    // orders after nothing but what the pool puts before it.
    let writer = Stream::new_on(comms[0].device()).unwrap();
    let fresh: Vec<_> = (0..4).map(|_| DeviceArray::<f32>::zeros_on(&writer, len).unwrap()).collect();
    released.join().expect("released");
    wait_all(&comms, &outs);
    let n = comms.len();
    let want = (n * (n + 1) / 2) as f32;
    for (r, out) in outs.iter().enumerate() {
        assert_eq!(out.to_vec().unwrap(), vec![want; len], "rank {r}");
    }
    drop(fresh);
    assert_eq!(stream_races(), vec![], "no stream races");
}

/// NCCL issue 48: a device synchronize (a `hipFree`) while a collective
/// on that device waits for a rank of this process that has not posted
/// holds back that rank's launch, and a GPU deadlocks. The pool's
/// reclaim waits for the rank instead; the simulator records the
/// deadlock where it would happen.
#[test]
fn the_pools_frees_wait_for_a_collective_whose_local_peer_has_not_posted() {
    let _x = hip_sys::sim::exclusive();
    if !on_sim() {
        eprintln!("skipped: the simulator tells a deadlocking free from a safe one");
        return;
    }
    let Some(mut comms) = pair() else { return };
    hip_sys::sim::clear_violations();
    let b = comms.pop().expect("rank 1");
    let a = comms.pop().expect("rank 0");
    let d0 = a.device();
    // Cached memory on device 0, for the reclaim to give back.
    drop(on(d0, &vec![0.0f32; 1 << 20]));
    let mut x = on(d0, &[1.0f32; 64]);
    let mut y = on(b.device(), &[2.0f32; 64]);
    a.all_reduce_in_place(&mut x, ReduceOp::Sum).expect("rank 0 posted");
    let late = std::thread::spawn(move || {
        std::thread::sleep(Duration::from_millis(150));
        b.all_reduce_in_place(&mut y, ReduceOp::Sum).expect("rank 1 posted");
        b.synchronize(y.stream(), PATIENCE).expect("rank 1 completes");
        assert_eq!(y.to_vec().unwrap(), vec![3.0; 64]);
        b
    });
    let started = std::time::Instant::now();
    amdgpu::pool::reclaim(d0).expect("reclaim");
    let waited = started.elapsed();
    let b = late.join().expect("rank 1");
    a.synchronize(x.stream(), PATIENCE).expect("rank 0 completes");
    assert_eq!(x.to_vec().unwrap(), vec![3.0; 64]);
    let deadlocks: Vec<_> = hip_sys::sim::violations()
        .into_iter()
        .filter(|v| v.kind == hip_sys::sim::ViolationKind::CollectiveDeadlock)
        .collect();
    assert_eq!(deadlocks, vec![], "the reclaim waited for rank 1's call");
    assert!(waited >= Duration::from_millis(100), "the reclaim waited ({waited:?})");
    drop((a, b));
}

/// A rank whose part of an exchange is empty posts nothing, yet it took
/// part: the pool's gate must not take the others for ahead of it, or
/// every later free on their devices would wait for it.
#[test]
fn an_empty_part_of_an_exchange_leaves_the_pools_gate_open() {
    let _x = hip_sys::sim::exclusive();
    let Some(comms) = communicators() else { return };
    let n = comms.len();
    // Rank 0 sends one element to itself; every other rank moves nothing.
    let counts = |r: usize| -> Vec<usize> { (0..n).map(|p| usize::from(r == 0 && p == 0)).collect() };
    let sends: Vec<_> = comms.iter().map(|c| on(c.device(), &[7.0f32])).collect();
    let mut recvs: Vec<_> = comms.iter().map(|c| on(c.device(), &[0.0f32])).collect();
    group(|g| {
        for (r, ((comm, send), recv)) in comms.iter().zip(&sends).zip(recvs.iter_mut()).enumerate() {
            g.all_to_all_v(comm, send, &counts(r), recv, &counts(r))?;
        }
        Ok(())
    })
    .expect("all_to_all_v");
    wait_all(&comms, &recvs);
    assert_eq!(recvs[0].to_vec().unwrap(), vec![7.0]);
    for comm in &comms {
        assert!(!hip_pool::collective_gate::waits(comm.device()), "frees on {} do not wait", comm.device());
    }
}

/// A collective captured into a graph replays through NCCL: an in-place
/// pre-multiplied sum doubling the buffer, replayed three times. The
/// simulator does not model collectives in a capture and refuses them
/// with an error that says so, leaving the capture discarded.
#[test]
fn a_captured_collective_replays_or_is_refused_with_a_reason() {
    let _x = hip_sys::sim::exclusive();
    let Some(comms) = communicators() else { return };
    if comms.len() != 1 && !on_sim() {
        eprintln!("skipped: one thread capturing several ranks' streams is a test of its own");
        return;
    }
    let comm = &comms[0];
    let stream = Stream::new_on(comm.device()).unwrap();
    let mut buf = DeviceArray::from_slice_on(&stream, &[1.5f32; 1024]).unwrap();
    // Warm-up outside the capture: NCCL connects on a first call.
    let scale = Reduction::PreMulSum(2.0f32);
    if comms.len() == 1 {
        comm.all_reduce_in_place(&mut buf, scale).expect("eager");
        comm.synchronize(&stream, PATIENCE).expect("eager completes");
        assert_eq!(buf.to_vec().unwrap(), vec![3.0; 1024]);
    }
    let captured = stream.capture(amdgpu::CaptureMode::ThreadLocal, |_| comm.all_reduce_in_place(&mut buf, scale));
    if on_sim() {
        let err = captured.expect_err("the simulator refuses");
        assert!(err.to_string().contains("not modelled by the simulator"), "{err}");
        return;
    }
    let (graph, ()) = captured.expect("NCCL captures the collective");
    let exec = graph.instantiate().expect("instantiate");
    for _ in 0..3 {
        exec.launch(&stream).expect("replay");
    }
    comm.synchronize(&stream, PATIENCE).expect("the replays complete");
    assert_eq!(buf.to_vec().unwrap(), vec![24.0; 1024], "three replays doubled it three times");
    assert_eq!(stream_races(), vec![], "no stream races");
}

#[test]
fn bad_arguments_are_refused_before_any_call() {
    let _x = hip_sys::sim::exclusive();
    let Some(comms) = communicators() else { return };
    let c = &comms[0];
    let d = c.device();
    let a = on(d, &[1.0f32; 8]);
    let mut b = on(d, &[0.0f32; 7]);
    let err = c.all_reduce(&a, &mut b, ReduceOp::Sum).expect_err("lengths differ");
    assert!(err.to_string().contains("send holds 8 elements, recv 7"), "{err}");
    let mut gathered = on(d, &vec![0.0f32; 8 * comms.len() + 1]);
    let err = c.all_gather(&a, &mut gathered).expect_err("wrong gather length");
    assert!(err.to_string().contains(&format!("recv must hold {}", 8 * comms.len())), "{err}");
    let mut b8 = on(d, &[0.0f32; 8]);
    let err = c.broadcast(None, &mut b8, comms.len()).expect_err("root out of range");
    assert!(
        err.to_string().contains(&format!("root {} of a communicator of {} ranks", comms.len(), comms.len())),
        "{err}"
    );
    let err = c.send(&a, comms.len() + 3).expect_err("peer out of range");
    assert!(matches!(err, LibError::InvalidInput { .. }), "{err}");
    let err = Communicator::init_all(&[]).expect_err("no devices");
    assert!(err.to_string().contains("no devices"), "{err}");
    let err = Communicator::init_all(&[d, d]).expect_err("a device twice");
    assert!(err.to_string().contains("one rank per GPU"), "{err}");
    let id = UniqueId::new().unwrap();
    let err = Communicator::init_rank(&id, 2, 2, d).expect_err("rank past the size");
    assert!(err.to_string().contains("rank 2 of 2"), "{err}");
    // An operand on another device than the communicator's.
    if comms.len() > 1 {
        let other = on(comms[1].device(), &[1.0f32; 8]);
        let err = c.all_reduce(&other, &mut b8, ReduceOp::Sum).expect_err("another device");
        assert!(err.device_mismatch().is_some(), "{err}");
    }
    // Inside a group the communicator's own calls are refused.
    let mut buf = on(d, &[1.0f32; 8]);
    let err = group(|_| c.all_reduce_in_place(&mut buf, ReduceOp::Sum)).expect_err("inside a group");
    assert!(err.to_string().contains("call the operation on the group"), "{err}");
    let err = group(|_| group(|_| Ok(()))).expect_err("nested");
    assert!(err.to_string().contains("do not nest"), "{err}");
    // The exchanges' lengths, counts and roots.
    let err = c.all_to_all(&a, &mut b).expect_err("lengths differ");
    assert!(err.to_string().contains("send holds 8 elements, recv 7: they must be equal"), "{err}");
    let too_many = vec![1; comms.len() + 1];
    let err = c.all_to_all_v(&a, &too_many, &mut b8, &too_many).expect_err("a count too many");
    assert!(err.to_string().contains(&format!("has {} counts", comms.len() + 1)), "{err}");
    let mut past = vec![0; comms.len()];
    past[0] = 9;
    let fine = vec![0; comms.len()];
    let err = c.all_to_all_v(&a, &past, &mut b8, &fine).expect_err("counts past the buffer");
    assert!(err.to_string().contains("send_counts add up to 9 elements, more than the buffer's 8"), "{err}");
    let err = c.gather(&a, None, c.rank()).expect_err("no recv at the root");
    assert!(err.to_string().contains("give it the recv buffer"), "{err}");
    let err = c.scatter(Some(&a), &mut b, c.rank()).expect_err("the root's send is not size() parts");
    assert!(err.to_string().contains("so the root's send must hold"), "{err}");
    // Empty operations enqueue nothing and succeed.
    let empty = on(d, &[0.0f32; 0]);
    let mut empty_out = on(d, &[0.0f32; 0]);
    c.all_reduce(&empty, &mut empty_out, ReduceOp::Sum).expect("empty");
}

#[test]
fn a_missing_rank_is_a_timeout_that_aborts_not_a_hang() {
    let _x = hip_sys::sim::exclusive();
    let Some(mut comms) = communicators() else { return };
    if comms.len() < 2 {
        eprintln!("skipped: needs two ranks");
        return;
    }
    let late = comms.pop().expect("a second rank");
    let c = &comms[0];
    let mut buf = on(c.device(), &[1.0f32; 256]);
    c.all_reduce_in_place(&mut buf, ReduceOp::Sum).expect("posted");
    let err = c.synchronize(buf.stream(), Duration::from_millis(300)).expect_err("the last rank never calls");
    assert!(matches!(err, LibError::CollectiveTimeout { rank: 0, .. }), "{err}");
    assert!(err.to_string().contains("aborted"), "{err}");
    // Aborted: the stream went on, the communicator refuses more work.
    buf.stream().synchronize().expect("the stream is not stuck");
    let err = c.check().expect_err("aborted");
    assert!(err.to_string().contains("was aborted"), "{err}");
    drop(late);
    drop(comms);
}

#[test]
fn dropping_a_communicator_with_work_queued_aborts_it() {
    let _x = hip_sys::sim::exclusive();
    let Some(mut comms) = pair() else { return };
    let other = comms.pop().expect("a second rank");
    let c = comms.pop().expect("rank 0");
    let mut buf = on(c.device(), &[2.0f32; 64]);
    c.all_reduce_in_place(&mut buf, ReduceOp::Sum).expect("posted");
    let stream = buf.stream().clone();
    // Its peer never calls: destroying would wait for it; the drop aborts.
    let started = std::time::Instant::now();
    drop(c);
    stream.synchronize().expect("the stream is not stuck");
    assert!(started.elapsed() < PATIENCE, "the drop did not wait for the peer");
    if on_sim() {
        // The peer learns of it.
        let mut peer_buf = on(other.device(), &[2.0f32; 64]);
        let _ = other.all_reduce_in_place(&mut peer_buf, ReduceOp::Sum);
        let err = other.synchronize(peer_buf.stream(), PATIENCE).expect_err("its peer is gone");
        assert!(err.to_string().contains("rank 0's communicator was aborted"), "{err}");
    }
    drop(other);
}

#[test]
fn the_simulator_turns_mismatched_calls_and_ungrouped_ranks_into_errors() {
    let _x = hip_sys::sim::exclusive();
    if !on_sim() {
        eprintln!("skipped: a GPU hangs or computes garbage here; the simulator reports it");
        return;
    }
    let Some(comms) = pair() else { return };
    let (a, b) = (&comms[0], &comms[1]);
    let mut x = on(a.device(), &[1.0f32; 16]);
    let mut y = on(b.device(), &[1.0f32; 8]);
    let err = group(|g| {
        g.all_reduce_in_place(a, &mut x, ReduceOp::Sum)?;
        g.all_reduce_in_place(b, &mut y, ReduceOp::Sum)
    })
    .expect_err("counts differ");
    assert!(err.to_string().contains("rank 0 has count 16, rank 1 count 8"), "{err}");
    let err = a.synchronize(x.stream(), PATIENCE).expect_err("rank 0 has the error too");
    assert!(err.to_string().contains("do not match"), "{err}");
    drop(comms);
    // One thread posting two ranks outside a group: NCCL would block in
    // the first call.
    let comms = pair().expect("again");
    let (a, b) = (&comms[0], &comms[1]);
    let mut x = on(a.device(), &[1.0f32; 16]);
    let mut y = on(b.device(), &[1.0f32; 16]);
    a.all_reduce_in_place(&mut x, ReduceOp::Sum).expect("the first call returns here");
    let err = b.all_reduce_in_place(&mut y, ReduceOp::Sum).expect_err("the second is refused");
    assert!(err.to_string().contains("outside a group"), "{err}");
    assert!(err.to_string().contains("ncclGroupStart"), "{err}");
}
