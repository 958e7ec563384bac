//! The simulator's devices and threads against HIP's documented behaviour
//! (`reference/hip_semantics.md`): device counts and ordinals, each
//! thread's current device and context, many threads at once, and a
//! process without devices.
//! Every test holds `sim::exclusive()`: counters, faults and memory are
//! process-wide.

mod common;
use common::*;
use hip_sys::bindings::hip::{hipError_t, hipMemcpyKind};
use hip_sys::sim;
use std::ptr::null_mut;

#[test]
fn device_count_and_bad_ordinals() {
    if !common::devices_at_least(2) {
        return;
    }
    let _x = sim::exclusive();
    let mut n = 0;
    ok!((api().hipGetDeviceCount)(&mut n));
    assert_eq!(n as usize, sim::configured_devices());
    assert!(n >= 2, "these tests need the default 2 devices");
    assert_eq!(status!((api().hipSetDevice)(n)), hipError_t::hipErrorInvalidDevice);
    assert_eq!(status!((api().hipSetDevice)(-1)), hipError_t::hipErrorInvalidDevice);
    assert_eq!(status!((api().hipGetDevice)(null_mut())), hipError_t::hipErrorInvalidValue);
    let mut name = [0i8; 64];
    ok!((api().hipDeviceGetName)(name.as_mut_ptr(), 64, 1));
    // SAFETY: hipDeviceGetName wrote a NUL-terminated string.
    let name = unsafe { std::ffi::CStr::from_ptr(name.as_ptr()) };
    assert!(name.to_str().unwrap().starts_with("HIP simulator device 1 (gfx"), "{name:?}: named with its target");
    let mut bytes = 0;
    ok!((api().hipDeviceTotalMem)(&mut bytes, 0));
    assert_eq!(bytes, sim::configured_memory());
}

#[test]
fn a_new_thread_starts_on_device_0_and_set_device_is_per_thread() {
    if !common::devices_at_least(2) {
        return;
    }
    let _x = sim::exclusive();
    on_thread("parent", || {
        set_device(1);
        assert_eq!(get_device(), 1);
        assert_eq!(on_thread("child", get_device), 0, "HIP's lazy default is device 0, not the parent's");
        assert_eq!(get_device(), 1);
    });
}

#[test]
fn ctx_set_current_changes_get_device_and_pop_does_not_restore() {
    if !common::devices_at_least(2) {
        return;
    }
    let _x = sim::exclusive();
    on_thread("ctx", || {
        let mut ctx1 = null_mut();
        ok!((api().hipDevicePrimaryCtxRetain)(&mut ctx1, 1));
        ok!((api().hipCtxSetCurrent)(ctx1));
        assert_eq!(get_device(), 1);
        let mut current = null_mut();
        ok!((api().hipCtxGetCurrent)(&mut current));
        assert_eq!(current, ctx1);
        let mut ctx0 = null_mut();
        ok!((api().hipDevicePrimaryCtxRetain)(&mut ctx0, 0));
        ok!((api().hipCtxPushCurrent)(ctx0));
        assert_eq!(get_device(), 0);
        let mut popped = null_mut();
        ok!((api().hipCtxPopCurrent)(&mut popped));
        assert_eq!(popped, ctx0);
        assert_eq!(get_device(), 0, "AMD's pop leaves the device as it is");
        ok!((api().hipCtxPopCurrent)(&mut popped));
        assert_eq!(status!((api().hipCtxPopCurrent)(&mut popped)), hipError_t::hipErrorInvalidContext);
        assert_eq!(status!((api().hipCtxSetCurrent)(0x1234 as _)), hipError_t::hipErrorInvalidContext);
    });
}

#[test]
fn many_threads_see_consistent_state() {
    let _x = sim::exclusive();
    let devices = sim::configured_devices();
    let before: Vec<usize> = (0..devices).map(sim::live_allocations).collect();
    let threads: Vec<_> = (0..16)
        .map(|t| {
            std::thread::Builder::new()
                .name(format!("many-{t}"))
                .spawn(move || {
                    for i in 0..50 {
                        let d = (t + i) % devices;
                        set_device(d as i32);
                        let data: Vec<f32> = (0..256).map(|k| (t * 1000 + i * 10 + k) as f32).collect();
                        let p = upload(&data);
                        assert_eq!(get_device(), d as i32);
                        let s = stream();
                        let mut back = vec![0f32; 256];
                        ok!((api().hipMemcpyAsync)(
                            back.as_mut_ptr().cast(),
                            p,
                            1024,
                            hipMemcpyKind::hipMemcpyDeviceToHost,
                            s
                        ));
                        ok!((api().hipStreamSynchronize)(s));
                        assert_eq!(back, data);
                        ok!((api().hipStreamDestroy)(s));
                        ok!((api().hipFree)(p));
                    }
                })
                .expect("spawn")
        })
        .collect();
    for t in threads {
        t.join().expect("worker");
    }
    let after: Vec<usize> = (0..devices).map(sim::live_allocations).collect();
    assert_eq!(after, before);
    assert!(sim::violations().iter().all(|v| !v.thread.starts_with("many-")));
}

#[test]
#[ignore = "helper: runs in a child process with AMDGPU_SIM_DEVICES=0"]
fn child_without_devices() {
    if !is_child("child_without_devices") {
        return;
    }
    let mut n = -1;
    assert_eq!(status!((api().hipGetDeviceCount)(&mut n)), hipError_t::hipErrorNoDevice);
    assert_eq!(n, 0, "HIP writes 0 and reports hipErrorNoDevice");
    let mut p = null_mut();
    assert_eq!(status!((api().hipMalloc)(&mut p, 64)), hipError_t::hipErrorNoDevice);
    assert_eq!(status!((api().hipSetDevice)(0)), hipError_t::hipErrorNoDevice);
    assert_eq!(status!((api().hipGetDevice)(&mut n)), hipError_t::hipErrorNoDevice);
}

#[test]
fn no_devices_gives_hip_no_device() {
    let (status, text) = child_process("child_without_devices", &[("AMDGPU_SIM_DEVICES", "0")]);
    assert!(status.success() && text.contains("1 passed"), "{text}");
}

#[test]
#[ignore = "helper: runs in a child process with AMDGPU_SIM_APU=on"]
fn child_apu() {
    if !is_child("child_apu") {
        return;
    }
    let integrated = attribute(hip_sys::hipDeviceAttribute_t::hipDeviceAttributeIntegrated, 0).unwrap();
    println!("HIP {}: integrated={integrated}", hip_major());
}

#[test]
fn an_apu_says_so_where_clr_does() {
    let integrated = attribute(hip_sys::hipDeviceAttribute_t::hipDeviceAttributeIntegrated, 0);
    if sim::configured_devices() > 0 {
        assert_eq!(integrated, Ok(0), "a discrete device, by default");
    }
    // clr sets it from 6.2; HIP 6 is modelled by 6.0.
    for (version, expected) in [("5", 0), ("6", 0), ("7", 1)] {
        let env = [("AMDGPU_SIM_APU", "on"), ("AMDGPU_SIM_HIP_VERSION", version), ("AMDGPU_SIM_DEVICES", "1")];
        let (status, text) = child_process("child_apu", &env);
        assert!(status.success() && text.contains(&format!("HIP {version}: integrated={expected}")), "{text}");
    }
}
