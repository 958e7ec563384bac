//! A fault at every HIP call: for each function of the HIP table that the
//! workload calls, fail its 1st, 2nd and 5th call and check that the
//! failure reaches the caller as an error naming the operation (or is
//! logged by a drop), that nothing panics, that nothing leaks once faults
//! are cleared and devices reclaimed, and that the runtime then works
//! normally. Then a sticky device fault. Simulator only.

use amdgpu::libs::sparse;
use amdgpu::prelude::*;
use amdgpu::{LaunchConfig, Module};
use hip_sys::{hipError_t, sim, Backend, HipApi};
use std::collections::BTreeSet;

/// A representative workload on two devices: streams, events, copies, a
/// launch, pooled memory across streams and threads, a library call,
/// reclaim. Every error comes back as text.
fn workload(d0: Device, d1: Device) -> Result<(), String> {
    let e = |x: &dyn std::fmt::Display| x.to_string();
    // Start from empty pools, so memory comes from (and goes back to) HIP.
    for device in [d0, d1] {
        hip_pool::reclaim(device).map_err(|x| e(&x))?;
    }
    set_device(d0).map_err(|x| e(&x))?;
    let (free, total) = d1.mem_info().map_err(|x| e(&x))?;
    if free > total {
        return Err("free memory above total".into());
    }
    let s1 = Stream::new_on(d1).map_err(|x| e(&x))?;
    let start = Event::new_on(d1).map_err(|x| e(&x))?;
    let stop = Event::new_on(d1).map_err(|x| e(&x))?;
    start.record(&s1).map_err(|x| e(&x))?;
    let data: Vec<f32> = (0..1000).map(|i| i as f32).collect();
    let (a, b, mut c) = with_device(d1, || -> Result<_, amdgpu::Error> {
        Ok((DeviceArray::from_slice(&data)?, DeviceArray::from_slice(&data)?, DeviceArray::<f32>::zeros(1000)?))
    })
    .map_err(|x| e(&x))?;
    let module = Module::load(d1, &sim::code_object(&["vector_add_f32"])).map_err(|x| e(&x))?;
    let add = module.function("vector_add_f32").map_err(|x| e(&x))?;
    let stream = c.stream().clone();
    // SAFETY: vector_add_f32(const float*, const float*, float*, unsigned) over 1000 elements.
    unsafe {
        add.launch(
            LaunchConfig::for_elements(1000, 128),
            &stream,
            &[&a.as_ptr(), &b.as_ptr(), &c.as_mut_ptr(), &1000u32],
        )
    }
    .map_err(|x| e(&x))?;
    stop.record(&s1).map_err(|x| e(&x))?;
    s1.wait(&stop).map_err(|x| e(&x))?;
    let sum = c.to_vec().map_err(|x| e(&x))?;
    if sum.iter().enumerate().any(|(i, v)| *v != 2.0 * i as f32) {
        return Err("wrong vector sum".into());
    }
    stop.synchronize().map_err(|x| e(&x))?;
    stop.elapsed_since(&start).map_err(|x| e(&x))?;
    // Memory handed to another thread and dropped there; cross-stream reuse.
    std::thread::spawn(move || drop((a, b))).join().map_err(|_| "a dropping thread panicked".to_string())?;
    let other = Stream::new_on(d1).map_err(|x| e(&x))?;
    let reused = hip_pool::alloc_on(d1, 4000, &other).map_err(|x| e(&x))?;
    drop(reused);
    // A library call on device 0.
    let m =
        sparse::CsrMatrix::from_host(&stream_on(d0)?, 2, 2, &[0, 1, 2], &[0, 1], &[2.0f32, 3.0]).map_err(|x| e(&x))?;
    let x = DeviceArray::from_slice(&[1.0f32, 1.0]).map_err(|x| e(&x))?;
    let mut y = DeviceArray::<f32>::zeros(2).map_err(|x| e(&x))?;
    sparse::spmv(1.0, &m, &x, 0.0, &mut y).map_err(|x| e(&x))?;
    if y.to_vec().map_err(|x| e(&x))? != [2.0, 3.0] {
        return Err("wrong spmv".into());
    }
    drop((m, x, y, c, module, add, stream, other, s1, start, stop));
    d1.synchronize().map_err(|x| e(&x))?;
    for device in [d0, d1] {
        hip_pool::reclaim(device).map_err(|x| e(&x))?;
    }
    Ok(())
}

fn stream_on(device: Device) -> Result<Stream, String> {
    Ok(with_device(device, stream))
}

fn reclaim_all() {
    for device in Device::all().unwrap() {
        let _ = hip_pool::reclaim(device);
    }
    amdgpu::libs::fft::set_plan_cache_capacity(32);
    // Idle rocSPARSE handles hold device memory, as real ones do.
    sparse::clear_idle_handles();
}

fn live() -> Vec<usize> {
    (0..sim::configured_devices()).map(sim::live_allocations).collect()
}

/// The HIP functions a clean run of the workload calls, by counting.
fn functions_called(d0: Device, d1: Device) -> Vec<&'static str> {
    let before: Vec<u64> = HipApi::SYMBOLS.iter().map(|f| sim::call_count(f)).collect();
    workload(d0, d1).expect("a clean run works");
    HipApi::SYMBOLS
        .iter()
        .zip(before)
        .filter(|(f, b)| sim::call_count(f) > *b)
        .map(|(f, _)| *f)
        .filter(|f| !matches!(*f, "hipGetErrorName" | "hipGetErrorString"))
        .collect()
}

#[test]
fn a_fault_at_every_hip_call_is_an_error_or_a_logged_drop_and_leaks_nothing() {
    let _x = sim::exclusive();
    if hip_sys::backend() != Backend::Sim || Device::count().unwrap() < 2 {
        eprintln!("skipped: fault injection needs the simulator with two devices");
        return;
    }
    let (d0, d1) = (Device::new(0).unwrap(), Device::new(1).unwrap());
    let functions = functions_called(d0, d1);
    assert!(functions.len() >= 20, "the workload exercises most of the table: {functions:?}");
    reclaim_all();
    let baseline = live();
    let mut injected = 0;
    let mut reported = 0;
    let mut unnamed = BTreeSet::new();
    for function in &functions {
        for nth in [1u64, 2, 5] {
            sim::reset_faults();
            sim::clear_violations();
            assert!(sim::inject_fault(sim::Fault {
                function: function.to_string(),
                nth,
                error: hipError_t::hipErrorUnknown
            }));
            injected += 1;
            let outcome = std::thread::Builder::new()
                .name(format!("fault-{function}-{nth}"))
                .spawn(move || workload(d0, d1))
                .unwrap()
                .join();
            let outcome = outcome.unwrap_or_else(|_| panic!("{function} #{nth}: the workload panicked"));
            sim::reset_faults();
            if let Err(message) = &outcome {
                reported += 1;
                if !message.contains(function) {
                    unnamed.insert(format!("{function} #{nth}: {message}"));
                }
            }
            reclaim_all();
            assert_eq!(live(), baseline, "{function} #{nth} leaked device memory ({outcome:?})");
            // The runtime works normally afterwards.
            let again = std::thread::spawn(move || workload(d0, d1)).join().unwrap();
            assert_eq!(again, Ok(()), "after a fault in {function} #{nth}");
            reclaim_all();
        }
    }
    eprintln!("faults injected: {injected}; reported as errors: {reported}; the rest hit drops or were not reached");
    assert!(
        unnamed.is_empty(),
        "errors that do not name the failing function:\n{}",
        unnamed.into_iter().collect::<Vec<_>>().join("\n")
    );
}

#[test]
fn a_sticky_device_fault_fails_everything_cleanly() {
    let _x = sim::exclusive();
    if hip_sys::backend() != Backend::Sim || Device::count().unwrap() < 2 {
        eprintln!("skipped: fault injection needs the simulator with two devices");
        return;
    }
    let (d0, d1) = (Device::new(0).unwrap(), Device::new(1).unwrap());
    let survivors = with_device(d1, || DeviceArray::from_slice(&[1u32; 64])).unwrap();
    let stream = Stream::new_on(d1).unwrap();
    sim::inject_sticky_fault(hipError_t::hipErrorIllegalAddress);
    let result = std::thread::spawn(move || workload(d0, d1)).join().expect("no panic under a sticky fault");
    let message = result.expect_err("every call fails");
    assert!(message.contains("hipErrorIllegalAddress"), "{message}");
    // Drops stay silent and do not hang.
    let dropped = std::thread::spawn(move || drop((survivors, stream))).join();
    assert!(dropped.is_ok());
    sim::reset_faults();
    reclaim_all();
    std::thread::spawn(move || workload(d0, d1)).join().unwrap().expect("works again after the fault is cleared");
}
