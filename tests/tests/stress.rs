//! Many threads over every device doing random operations for a bounded
//! count: scoped and plain device switches, stream switches, allocations of
//! random sizes, arrays and streams sent to other threads and dropped
//! there, library calls, panics inside scoped switches. Afterwards: no
//! context violation, no thread-state access from a drop (with the
//! `tls-audit` feature), every thread back on its own device, and device
//! memory back to the baseline after reclaiming every device. A watchdog
//! bounds the run and says where each thread stalled.
//!
//! `AMDGPU_STRESS_OPS` sets the operations per thread (default 300);
//! `AMDGPU_STRESS_THREADS` the threads (default 8).

use amdgpu::libs::sparse;
use amdgpu::prelude::*;
use hip_sys::{sim, Backend};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

/// Objects sent to another thread only to be dropped there.
#[allow(dead_code)]
enum Garbage {
    Array(DeviceArray<u32>),
    Stream(Stream),
}

fn env_usize(name: &str, default: usize) -> usize {
    std::env::var(name).ok().and_then(|v| v.parse().ok()).unwrap_or(default)
}

/// One operation; returns what it did, for the progress report.
fn operation(rng: &mut Rng, devices: &[Device], home: Device, trash: &mpsc::Sender<Garbage>) -> &'static str {
    let device = devices[rng.below(devices.len())];
    match rng.below(8) {
        0 => {
            with_device(device, || assert_eq!(amdgpu::device(), device));
            "with_device"
        }
        1 => {
            set_device(device).unwrap();
            set_device(home).unwrap();
            "set_device"
        }
        2 => {
            let s = Stream::new_on(device).unwrap();
            with_stream(&s, || assert_eq!(stream(), s));
            let _ = trash.send(Garbage::Stream(s));
            "with_stream"
        }
        3 | 4 => {
            let len = 1 + rng.below(1 << 16);
            let value = rng.next() as u32;
            let array = with_device(device, || {
                let mut a = DeviceArray::<u32>::zeros(len).unwrap();
                a.fill(value).unwrap();
                a
            });
            let probe = array.slice(len - 1..len).unwrap().to_vec().unwrap();
            assert_eq!(probe, [value], "the last element of a fresh array");
            let _ = trash.send(Garbage::Array(array));
            "allocate and hand off"
        }
        5 => {
            let caught = std::panic::catch_unwind(|| with_device(device, || panic!("inside a scoped switch")));
            assert!(caught.is_err());
            "panic in with_device"
        }
        6 => {
            if amdgpu::libs::available(amdgpu::libs::Library::Rocsparse) {
                with_device(device, || {
                    let a = sparse::CsrMatrix::from_host(&stream(), 2, 2, &[0, 1, 2], &[1, 0], &[1.0f64, 1.0]).unwrap();
                    let x = DeviceArray::from_slice(&[3.0f64, 4.0]).unwrap();
                    let mut y = DeviceArray::<f64>::zeros(2).unwrap();
                    sparse::spmv(1.0, &a, &x, 0.0, &mut y).unwrap();
                    assert_eq!(y.to_vec().unwrap(), [4.0, 3.0]);
                });
            }
            "spmv"
        }
        _ => {
            let _ = device.mem_info().unwrap();
            "mem_info"
        }
    }
}

#[test]
fn stress_threads_devices_streams_and_drops() {
    let _x = sim::exclusive();
    // The planted panics are expected: keep them out of the output.
    let default_hook = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        if info.payload().downcast_ref::<&str>() != Some(&"inside a scoped switch") {
            default_hook(info);
        }
    }));
    let devices = Device::all().unwrap();
    let threads = env_usize("AMDGPU_STRESS_THREADS", 8);
    let ops = env_usize("AMDGPU_STRESS_OPS", 300);
    for d in &devices {
        hip_pool::reclaim(*d).unwrap();
    }
    let baseline: Vec<usize> = devices.iter().map(|d| sim::live_allocations(d.ordinal())).collect();
    let progress: Arc<Vec<Mutex<(usize, &'static str)>>> =
        Arc::new((0..threads).map(|_| Mutex::new((0, "start"))).collect());
    let done = Arc::new(AtomicUsize::new(0));
    let (trash_tx, trash_rx) = mpsc::channel::<Garbage>();
    let dropper = std::thread::Builder::new()
        .name("stress-dropper".into())
        .spawn(move || trash_rx.into_iter().map(drop).count())
        .unwrap();
    let started = Instant::now();
    let workers: Vec<_> = (0..threads)
        .map(|t| {
            let (devices, progress, done, trash) = (devices.clone(), progress.clone(), done.clone(), trash_tx.clone());
            std::thread::Builder::new()
                .name(format!("stress-{t}"))
                .spawn(move || {
                    let mut rng = Rng(0x9E37_79B9_7F4A_7C15 ^ (t as u64 + 1).wrapping_mul(0x2545_F491_4F6C_DD1D));
                    let home = devices[t % devices.len()];
                    set_device(home).unwrap();
                    for i in 0..ops {
                        let what = operation(&mut rng, &devices, home, &trash);
                        assert_eq!(amdgpu::device(), home, "after {what}");
                        assert_eq!(hip_core::raw::hip_current_device().unwrap(), home, "HIP's device after {what}");
                        *progress[t].lock().unwrap() = (i + 1, what);
                    }
                    done.fetch_add(1, Ordering::SeqCst);
                })
                .unwrap()
        })
        .collect();
    drop(trash_tx);
    let limit = Duration::from_secs(120 + ops as u64 / 10);
    while done.load(Ordering::SeqCst) < threads && workers.iter().any(|w| !w.is_finished()) {
        if started.elapsed() > limit {
            let report: Vec<String> = progress
                .iter()
                .enumerate()
                .map(|(t, p)| {
                    let (n, what) = *p.lock().unwrap();
                    format!("stress-{t}: {n}/{ops} operations, last {what}")
                })
                .collect();
            panic!("the stress run stalled after {limit:?}:\n{}", report.join("\n"));
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    for w in workers {
        w.join().expect("a stress thread failed");
    }
    let dropped = dropper.join().unwrap();
    eprintln!(
        "stress: {threads} threads × {ops} operations over {} devices in {:.2?}; {dropped} objects dropped by another thread",
        devices.len(),
        started.elapsed()
    );
    if hip_sys::backend() == Backend::Sim {
        let bad: Vec<_> = sim::violations().into_iter().filter(|v| v.thread.starts_with("stress-")).collect();
        assert_eq!(bad, []);
        // The exited threads' rocSPARSE handles are idle and hold device
        // memory, as real handles do.
        sparse::clear_idle_handles();
        for d in &devices {
            hip_pool::reclaim(*d).unwrap();
        }
        let after: Vec<usize> = devices.iter().map(|d| sim::live_allocations(d.ordinal())).collect();
        assert_eq!(after, baseline, "device memory is back");
    }
    let hits = hip_core::audit::hits();
    assert!(hits.is_empty(), "thread-state accesses inside drops: {hits:?}");
}
