//! rocFFT through hip-libs, against a naive DFT on the CPU: complex and
//! real transforms, multi-dimensional and batched, bad shapes, the plan
//! cache (bounded, releasing plans under their devices, safe against a
//! concurrent cleanup), inputs kept on every rocFFT version, and setup
//! under the plan's device. Tolerances: a bound proportional to n, stated
//! at each check. Where the backend lacks rocFFT the tests say so and pass.

use amdgpu::libs::{fft, LibError, Library};
use amdgpu::prelude::*;
use hip_sys::{sim, Backend};

use std::sync::Arc;

mod common;
use common::{have, noise, on_thread, violations_of};

fn dft(x: &[[f64; 2]], sign: f64) -> Vec<[f64; 2]> {
    let n = x.len();
    (0..n)
        .map(|k| {
            x.iter().enumerate().fold([0.0, 0.0], |acc, (j, v)| {
                let angle = sign * 2.0 * std::f64::consts::PI * (j * k % n) as f64 / n as f64;
                let (s, c) = angle.sin_cos();
                [acc[0] + v[0] * c - v[1] * s, acc[1] + v[0] * s + v[1] * c]
            })
        })
        .collect()
}

#[test]
fn ffts_match_a_naive_dft() {
    let _x = sim::exclusive();
    if !have(Library::Rocfft) {
        return;
    }
    for n in [1usize, 2, 3, 8, 15, 64] {
        let r = noise(2 * n, n as u64);
        let x: Vec<[f64; 2]> = (0..n).map(|i| [r[2 * i], r[2 * i + 1]]).collect();
        let dx = DeviceArray::from_slice(&x).unwrap();
        for (direction, sign) in [(fft::Direction::Forward, -1.0), (fft::Direction::Inverse, 1.0)] {
            let mut dy = DeviceArray::<[f64; 2]>::zeros(n).unwrap();
            fft::c2c(&dx, &mut dy, &[n], 1, direction).unwrap();
            let want = dft(&x, sign);
            // Tolerance: 1e-9 × n (double precision, unnormalized).
            for (got, want) in dy.to_vec().unwrap().iter().zip(&want) {
                assert!((got[0] - want[0]).abs() < 1e-9 * n as f64 && (got[1] - want[1]).abs() < 1e-9 * n as f64);
            }
        }
        // Real to complex: the half spectrum of the DFT of a real signal.
        let real: Vec<f64> = r[..n].to_vec();
        let dr = DeviceArray::from_slice(&real).unwrap();
        let mut dh = DeviceArray::<[f64; 2]>::zeros(n / 2 + 1).unwrap();
        fft::r2c(&dr, &mut dh, &[n], 1).unwrap();
        let want = dft(&real.iter().map(|v| [*v, 0.0]).collect::<Vec<_>>(), -1.0);
        for (k, got) in dh.to_vec().unwrap().iter().enumerate() {
            assert!((got[0] - want[k][0]).abs() < 1e-9 * n as f64 && (got[1] - want[k][1]).abs() < 1e-9 * n as f64);
        }
        // And back: c2r of it is n × the signal.
        let mut back = DeviceArray::<f64>::zeros(n).unwrap();
        fft::c2r(&mut dh, &mut back, &[n], 1).unwrap();
        for (got, x) in back.to_vec().unwrap().iter().zip(&real) {
            assert!((got - x * n as f64).abs() < 1e-9 * n as f64, "{got} vs {}", x * n as f64);
        }
    }
}

#[test]
fn multi_dimensional_and_batched_ffts_round_trip() {
    let _x = sim::exclusive();
    if !have(Library::Rocfft) {
        return;
    }
    for (shape, batch) in [(vec![16usize, 12], 1usize), (vec![4, 6, 10], 1), (vec![256], 3), (vec![32, 32], 2)] {
        let n: usize = shape.iter().product::<usize>() * batch;
        let r = noise(2 * n, 9);
        let x: Vec<[f32; 2]> = (0..n).map(|i| [r[2 * i] as f32, r[2 * i + 1] as f32]).collect();
        let mut data = DeviceArray::from_slice(&x).unwrap();
        fft::c2c_in_place(&mut data, &shape, batch, fft::Direction::Forward).unwrap();
        fft::c2c_in_place(&mut data, &shape, batch, fft::Direction::Inverse).unwrap();
        let scale = (n / batch) as f32;
        // Tolerance: 1e-4 × the transform size (single precision).
        for (got, want) in data.to_vec().unwrap().iter().zip(&x) {
            assert!((got[0] - want[0] * scale).abs() < 1e-4 * scale, "{shape:?}: {got:?} vs {want:?}×{scale}");
        }
    }
}

#[test]
fn bad_fft_shapes_are_errors() {
    let _x = sim::exclusive();
    if !have(Library::Rocfft) {
        return;
    }
    let x = DeviceArray::<[f32; 2]>::zeros(8).unwrap();
    let mut y = DeviceArray::<[f32; 2]>::zeros(8).unwrap();
    for (shape, batch) in [(vec![], 1), (vec![0], 1), (vec![8], 0), (vec![2, 2, 2, 1], 1), (vec![4], 1)] {
        let error = fft::c2c(&x, &mut y, &shape, batch, fft::Direction::Forward).unwrap_err();
        assert!(matches!(error, LibError::InvalidInput { .. }), "{shape:?} {batch}: {error}");
    }
}

#[test]
fn the_plan_cache_stays_bounded_and_releases_memory() {
    let _x = sim::exclusive();
    if !have(Library::Rocfft) {
        return;
    }
    let capacity = fft::plan_cache_capacity();
    fft::set_plan_cache_capacity(4);
    let baseline = sim::live_allocations(0);
    for n in 2..40usize {
        let mut data = DeviceArray::<[f32; 2]>::zeros(n).unwrap();
        fft::c2c_in_place(&mut data, &[n], 1, fft::Direction::Forward).unwrap();
        assert!(fft::plan_cache_len() <= 4);
    }
    assert!(fft::live_plans() <= 4);
    fft::cleanup().unwrap();
    assert_eq!(fft::live_plans(), 0);
    amdgpu::pool::reclaim(Device::new(0).unwrap()).unwrap();
    if amdgpu::backend() == Backend::Sim {
        assert!(sim::live_allocations(0) <= baseline, "{} > {baseline}", sim::live_allocations(0));
    }
    fft::set_plan_cache_capacity(capacity);
}

/// A lookup by a borrowed key (as the transforms make) finds the plan an
/// owned key cached, makes it the most recently used, and the least
/// recently used goes first when the cache is full.
#[test]
fn the_plan_cache_is_least_recently_used_by_owned_and_borrowed_keys() {
    let _x = sim::exclusive();
    if !have(Library::Rocfft) {
        return;
    }
    let capacity = fft::plan_cache_capacity();
    fft::cleanup().unwrap();
    fft::set_plan_cache_capacity(2);
    let key = |n: usize| fft::PlanKey {
        device: Device::new(0).unwrap(),
        shape: vec![n],
        batch: 1,
        kind: fft::TransformKind::ComplexForward,
        double: false,
        placement: fft::Placement::OutOfPlace,
    };
    let a = fft::cached_plan(key(8)).unwrap();
    let b = fft::cached_plan(key(16)).unwrap();
    let again = fft::cached_plan_for(key(8).query()).unwrap();
    assert!(Arc::ptr_eq(&a, &again), "the borrowed key finds the owned key's plan");
    assert_eq!(fft::plan_cache_len(), 2);
    // 8 is now the most recent: a third plan evicts 16.
    drop(fft::cached_plan(key(32)).unwrap());
    assert!(Arc::ptr_eq(&fft::cached_plan_for(key(8).query()).unwrap(), &a), "8 stayed");
    assert!(!Arc::ptr_eq(&fft::cached_plan(key(16)).unwrap(), &b), "16 was evicted and made again");
    drop((a, b, again));
    fft::cleanup().unwrap();
    fft::set_plan_cache_capacity(capacity);
}

#[test]
fn a_plan_evicted_from_another_device_is_released_under_its_own() {
    let _x = sim::exclusive();
    if !have(Library::Rocfft) || Device::count().unwrap() < 2 {
        eprintln!("skipped: needs rocFFT and two devices");
        return;
    }
    let (d0, d1) = (Device::new(0).unwrap(), Device::new(1).unwrap());
    fft::cleanup().unwrap();
    fft::set_plan_cache_capacity(1);
    on_thread("plan-evictor", move || {
        with_device(d1, || {
            let mut data = DeviceArray::<[f32; 2]>::zeros(64).unwrap();
            fft::c2c_in_place(&mut data, &[64], 1, fft::Direction::Forward).unwrap();
        });
        set_device(d0).unwrap();
        let mut data = DeviceArray::<[f32; 2]>::zeros(32).unwrap();
        // Evicts device 1's plan from a thread on device 0.
        fft::c2c_in_place(&mut data, &[32], 1, fft::Direction::Forward).unwrap();
        assert_eq!(device(), d0);
    });
    assert_eq!(violations_of("plan-evictor"), []);
    fft::set_plan_cache_capacity(32);
}

/// Model rocFFT `version` in the simulator until dropped (nothing on other
/// backends, which use the version they loaded).
struct ModelRocfft;
impl ModelRocfft {
    fn new(version: hip_sys::RocfftVersion) -> ModelRocfft {
        if amdgpu::backend() == Backend::Sim {
            sim::set_rocfft_version(Some(version));
        }
        ModelRocfft
    }
}
impl Drop for ModelRocfft {
    fn drop(&mut self) {
        if amdgpu::backend() == Backend::Sim {
            sim::set_rocfft_version(None);
        }
    }
}

#[test]
fn r2c_leaves_its_input_intact_on_every_rocfft_version() {
    let _x = sim::exclusive();
    if !have(Library::Rocfft) {
        return;
    }
    // rocFFT before 1.0.25 (ROCm 6.0) may overwrite an R2C input.
    for version in [hip_sys::RocfftVersion::new(1, 0, 24), hip_sys::sim::DEFAULT_ROCFFT_VERSION] {
        let _model = ModelRocfft::new(version);
        let n = 20;
        let real: Vec<f32> = noise(n, 21).iter().map(|v| *v as f32).collect();
        let dr = DeviceArray::from_slice(&real).unwrap();
        let mut dh = DeviceArray::<[f32; 2]>::zeros(n / 2 + 1).unwrap();
        fft::r2c(&dr, &mut dh, &[n], 1).unwrap();
        assert_eq!(dr.to_vec().unwrap(), real, "rocFFT {version}: r2c overwrote its `&` input");
        let want = dft(&real.iter().map(|v| [*v as f64, 0.0]).collect::<Vec<_>>(), -1.0);
        // Tolerance: 1e-5 × n (single precision, unnormalized).
        for (k, got) in dh.to_vec().unwrap().iter().enumerate() {
            let err = (got[0] as f64 - want[k][0]).abs().max((got[1] as f64 - want[k][1]).abs());
            assert!(err < 1e-5 * n as f64, "rocFFT {version}: bin {k}: {got:?} vs {:?}", want[k]);
        }
    }
}

#[test]
fn rocfft_is_set_up_under_the_plans_device() {
    let _x = sim::exclusive();
    if !have(Library::Rocfft) || amdgpu::backend() != Backend::Sim || Device::count().unwrap() < 2 {
        eprintln!("skipped: needs the simulator's rocFFT and two devices");
        return;
    }
    let d1 = Device::new(1).unwrap();
    fft::cleanup().unwrap();
    on_thread("fft-setup", move || {
        // This thread stays on device 0; the data and the plan are device 1's.
        let mut data = with_device(d1, || DeviceArray::<[f32; 2]>::zeros(16)).unwrap();
        fft::c2c_in_place(&mut data, &[16], 1, fft::Direction::Forward).unwrap();
        assert_eq!(device().ordinal(), 0);
    });
    assert_eq!(sim::rocfft_setup_device(), Some(1), "rocfft_setup ran under another device than the plan's");
    assert_eq!(violations_of("fft-setup"), []);
    fft::cleanup().unwrap();
}

#[test]
fn plans_made_while_another_thread_cleans_up_always_work() {
    let _x = sim::exclusive();
    if !have(Library::Rocfft) {
        return;
    }
    let capacity = fft::plan_cache_capacity();
    // A small cache, so threads keep making plans.
    fft::set_plan_cache_capacity(2);
    let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let cleaner = {
        let stop = stop.clone();
        std::thread::spawn(move || {
            let mut cleanups = 0usize;
            while !stop.load(std::sync::atomic::Ordering::Relaxed) {
                match fft::cleanup() {
                    Ok(()) => cleanups += 1,
                    // Plans in use elsewhere: refused, and rocFFT stays set up.
                    Err(LibError::InvalidInput { .. }) => {}
                    Err(other) => panic!("fft::cleanup: {other}"),
                }
                std::thread::yield_now();
            }
            cleanups
        })
    };
    let workers: Vec<_> = (0..3)
        .map(|w| {
            std::thread::spawn(move || {
                for i in 0..150usize {
                    let n = 2 + (w * 7 + i) % 9;
                    let x: Vec<[f64; 2]> = (0..n).map(|k| [k as f64, 1.0]).collect();
                    let mut data = DeviceArray::from_slice(&x).unwrap();
                    fft::c2c_in_place(&mut data, &[n], 1, fft::Direction::Forward)
                        .unwrap_or_else(|e| panic!("worker {w}, transform {i} (n = {n}): {e}"));
                    // Bin 0 is the sum of the inputs.
                    let sum = data.to_vec().unwrap()[0];
                    let want = [(n * (n - 1) / 2) as f64, n as f64];
                    assert!((sum[0] - want[0]).abs() < 1e-9 * n as f64 && (sum[1] - want[1]).abs() < 1e-9, "{sum:?}");
                }
            })
        })
        .collect();
    let failures: Vec<String> = workers
        .into_iter()
        .filter_map(|w| w.join().err())
        .map(|e| e.downcast_ref::<String>().cloned().unwrap_or_else(|| "a worker panicked".into()))
        .collect();
    stop.store(true, std::sync::atomic::Ordering::Relaxed);
    let cleanups = cleaner.join().expect("the cleaner panicked");
    eprintln!("{cleanups} cleanups ran meanwhile");
    assert_eq!(failures, Vec::<String>::new(), "after {cleanups} cleanups");
    fft::set_plan_cache_capacity(capacity);
    fft::cleanup().unwrap();
}

/// One cached plan, many threads, each on its own stream: every transform
/// runs on its caller's stream with its caller's work area. cuFFT keeps a
/// plan's stream and work area in the plan, so two threads binding them to
/// one shared plan and executing would run one thread's transform on the
/// other's stream (and the caller, waiting on its own stream, would read
/// its output before it ran) or in the other's work area. Each thread
/// queues many transforms back to back, then reads them all.
#[test]
fn threads_sharing_a_cached_plan_each_get_their_own_transform() {
    // Exclusive as every test here: its threads hold cached plans, which
    // makes another test's `fft::cleanup` fail ("plans still in use").
    let _x = sim::exclusive();
    if !have(Library::Rocfft) {
        return;
    }
    let on_sim = hip_sys::backend() == Backend::Sim;
    let (n, threads, queued) = if on_sim { (256, 4, 4) } else { (1 << 16, 8, 48) };
    let failures: Vec<String> = std::thread::scope(|s| {
        let handles: Vec<_> = (0..threads)
            .map(|t| {
                s.spawn(move || {
                    // An impulse of height h: its transform is h everywhere.
                    let height = |r: usize| (t * 1000 + r + 1) as f32;
                    let inputs: Vec<DeviceArray<[f32; 2]>> = (0..queued)
                        .map(|r| {
                            let mut x = vec![[0.0f32; 2]; n];
                            x[0] = [height(r), 0.0];
                            DeviceArray::from_slice(&x).unwrap()
                        })
                        .collect();
                    let mut outputs: Vec<DeviceArray<[f32; 2]>> =
                        (0..queued).map(|_| DeviceArray::zeros(n).unwrap()).collect();
                    for (x, y) in inputs.iter().zip(&mut outputs) {
                        fft::c2c(x, y, &[n], 1, fft::Direction::Forward).unwrap();
                    }
                    let mut wrong = Vec::new();
                    for (r, y) in outputs.iter().enumerate() {
                        let y = y.to_vec().unwrap();
                        let h = height(r);
                        if let Some((k, v)) =
                            y.iter().enumerate().find(|(_, v)| (v[0] - h).abs() > 1e-2 || v[1].abs() > 1e-2)
                        {
                            wrong.push(format!("thread {t} transform {r}: y[{k}] = {v:?}, want [{h}, 0]"));
                        }
                    }
                    wrong
                })
            })
            .collect();
        handles.into_iter().flat_map(|h| h.join().expect("no panic")).collect()
    });
    assert!(failures.is_empty(), "{} transforms read wrong:\n{}", failures.len(), failures.join("\n"));
}
