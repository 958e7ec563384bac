//! The simulator's modules and kernels against HIP's documented behaviour
//! (`reference/hip_semantics.md`): results over grid shapes, bad code
//! objects and launches, a kernel outside its memory, and peer access.
//! Every test holds `sim::exclusive()`: counters, faults and memory are
//! process-wide.

mod common;
use common::*;
use hip_sys::bindings::hip::{hipError_t, hipMemcpyKind, hipStream_t};
use hip_sys::sim;
use std::ffi::c_void;
use std::ptr::null_mut;

/// Launch `vector_add_f32` over `grid` × `block` and return c.
fn vector_add(n: usize, grid: [u32; 3], block: [u32; 3]) -> Vec<f32> {
    let a: Vec<f32> = (0..n).map(|i| i as f32).collect();
    let b: Vec<f32> = (0..n).map(|i| 2.0 * i as f32).collect();
    let (da, db, dc) = (upload(&a), upload(&b), upload(&vec![-1.0; n]));
    let m = module(&["vector_add_f32"]);
    let f = function(m, "vector_add_f32");
    let mut n32 = n as u32;
    let (mut pa, mut pb, mut pc) = (da, db, dc);
    let mut params: [*mut c_void; 4] = [
        (&mut pa as *mut *mut c_void).cast(),
        (&mut pb as *mut *mut c_void).cast(),
        (&mut pc as *mut *mut c_void).cast(),
        (&mut n32 as *mut u32).cast(),
    ];
    let s = stream();
    ok!((api().hipModuleLaunchKernel)(
        f,
        grid[0],
        grid[1],
        grid[2],
        block[0],
        block[1],
        block[2],
        0,
        s,
        params.as_mut_ptr(),
        null_mut()
    ));
    // No synchronize: the legacy null stream of hipMemcpy waits for `s`.
    let c = download(dc, n);
    ok!((api().hipStreamDestroy)(s));
    ok!((api().hipModuleUnload)(m));
    for p in [da, db, dc] {
        ok!((api().hipFree)(p));
    }
    c
}

#[test]
fn kernels_compute_over_several_grid_shapes() {
    let _x = sim::exclusive();
    on_thread("kernels", || {
        let expect = |n: usize, covered: usize| -> Vec<f32> {
            (0..n).map(|i| if i < covered { 3.0 * i as f32 } else { -1.0 }).collect()
        };
        assert_eq!(vector_add(1000, [4, 1, 1], [256, 1, 1]), expect(1000, 1000)); // more threads than n
        assert_eq!(vector_add(1024, [4, 1, 1], [256, 1, 1]), expect(1024, 1024)); // exact
        assert_eq!(vector_add(1000, [2, 1, 1], [256, 1, 1]), expect(1000, 512)); // too few threads
        assert_eq!(vector_add(777, [2, 2, 2], [10, 10, 1]), expect(777, 777)); // 3-D grid, 2-D block
        assert_eq!(vector_add(1, [1, 1, 1], [1, 1, 1]), expect(1, 1));
    });
}

#[test]
fn bad_code_objects_and_launches_are_errors() {
    if !common::devices_at_least(2) {
        return;
    }
    let _x = sim::exclusive();
    on_thread("bad-launch", || {
        let mut m = null_mut();
        let bad = b"not a code object\0";
        assert_eq!(status!((api().hipModuleLoadData)(&mut m, bad.as_ptr().cast())), hipError_t::hipErrorInvalidImage);
        let unknown = sim::code_object(&["no_such_kernel"]);
        assert_eq!(
            status!((api().hipModuleLoadData)(&mut m, unknown.as_ptr().cast())),
            hipError_t::hipErrorInvalidImage
        );
        let m = module(&["fill_f32"]);
        let mut f = null_mut();
        assert_eq!(
            status!((api().hipModuleGetFunction)(&mut f, m, c"axpy_f32".as_ptr())),
            hipError_t::hipErrorNotFound
        );
        let f = function(m, "fill_f32");
        let p = malloc(64);
        let (mut pp, mut v, mut n) = (p, 1.5f32, 16u32);
        let mut params: [*mut c_void; 3] =
            [(&mut pp as *mut *mut c_void).cast(), (&mut v as *mut f32).cast(), (&mut n as *mut u32).cast()];
        let launch = |g: u32, b: u32, s: hipStream_t, params: *mut *mut c_void| {
            status!((api().hipModuleLaunchKernel)(f, g, 1, 1, b, 1, 1, 0, s, params, null_mut()))
        };
        // Zero dimensions: InvalidValue, except on 6.x (InvalidConfiguration).
        let zero =
            if hip_major() == 6 { hipError_t::hipErrorInvalidConfiguration } else { hipError_t::hipErrorInvalidValue };
        assert_eq!(launch(0, 16, null_mut(), params.as_mut_ptr()), zero);
        assert_eq!(launch(1, 0, null_mut(), params.as_mut_ptr()), zero);
        assert_eq!(launch(1, 2048, null_mut(), params.as_mut_ptr()), hipError_t::hipErrorInvalidValue);
        assert_eq!(launch(1, 16, null_mut(), null_mut()), hipError_t::hipErrorInvalidValue);
        set_device(1);
        let s1 = stream();
        // The module lives on device 0.
        assert_eq!(launch(1, 16, s1, params.as_mut_ptr()), hipError_t::hipErrorInvalidDevice);
        let mut g = null_mut();
        assert_eq!(
            status!((api().hipModuleGetFunction)(&mut g, m, c"fill_f32".as_ptr())),
            hipError_t::hipErrorInvalidDevice
        );
        ok!((api().hipStreamDestroy)(s1));
        set_device(0);
        assert_eq!(launch(1, 16, null_mut(), params.as_mut_ptr()), hipError_t::hipSuccess);
        assert_eq!(download(p, 16), vec![1.5; 16]);
        ok!((api().hipModuleUnload)(m));
        assert_eq!(status!((api().hipModuleUnload)(m)), hipError_t::hipErrorNotFound);
        ok!((api().hipFree)(p));
    });
    let v = violations_of("bad-launch");
    assert!(v.iter().any(|v| v.function == "hipModuleGetFunction"), "{v:?}");
}

#[test]
fn a_kernel_outside_its_memory_is_a_sticky_illegal_address() {
    let _x = sim::exclusive();
    on_thread("fault", || {
        let m = module(&["fill_u32"]);
        let f = function(m, "fill_u32");
        let p = malloc(256);
        let (mut pp, mut v, mut n) = (p, 7u32, 1000u32); // 4000 bytes into 256
        let mut params: [*mut c_void; 3] =
            [(&mut pp as *mut *mut c_void).cast(), (&mut v as *mut u32).cast(), (&mut n as *mut u32).cast()];
        ok!((api().hipModuleLaunchKernel)(f, 4, 1, 1, 256, 1, 1, 0, null_mut(), params.as_mut_ptr(), null_mut()));
        assert_eq!(status!((api().hipDeviceSynchronize)()), hipError_t::hipErrorIllegalAddress);
        assert_eq!(status!((api().hipGetDevice)(&mut 0)), hipError_t::hipErrorIllegalAddress);
        sim::reset_faults();
        ok!((api().hipModuleUnload)(m));
        ok!((api().hipFree)(p));
    });
}

/// Launch `fill_u32(p, value, n)` on the current device's null stream and synchronize.
fn fill_u32_on_null_stream(p: *mut c_void, value: u32, n: u32) -> hipError_t {
    let m = module(&["fill_u32"]);
    let f = function(m, "fill_u32");
    let (mut pp, mut v, mut nn) = (p, value, n);
    let mut params: [*mut c_void; 3] =
        [(&mut pp as *mut *mut c_void).cast(), (&mut v as *mut u32).cast(), (&mut nn as *mut u32).cast()];
    ok!((api().hipModuleLaunchKernel)(f, 1, 1, 1, 64, 1, 1, 0, null_mut(), params.as_mut_ptr(), null_mut()));
    let status = status!((api().hipDeviceSynchronize)());
    sim::reset_faults();
    // A synchronize that reports the sticky fault returns without ordering
    // the host after the faulting launch; with the fault cleared, one more
    // does, so freeing the memory afterwards is no race.
    ok!((api().hipDeviceSynchronize)());
    ok!((api().hipModuleUnload)(m));
    status
}

#[test]
fn a_kernel_touching_another_devices_memory_needs_peer_access() {
    if !common::devices_at_least(2) {
        return;
    }
    let _x = sim::exclusive();
    on_thread("peer", || {
        set_device(1);
        let remote = malloc(256);
        set_device(0);
        let mut can = 0;
        ok!((api().hipDeviceCanAccessPeer)(&mut can, 0, 1));
        assert_eq!(can, 1);
        assert_eq!(fill_u32_on_null_stream(remote, 5, 64), hipError_t::hipErrorIllegalAddress);
        let found = violations_of("peer");
        assert_eq!(found.len(), 1, "{found:?}");
        assert_eq!(found[0].kind, sim::ViolationKind::PeerAccess);
        assert_eq!((found[0].object_device, found[0].current_device), (1, 0));
        ok!((api().hipDeviceEnablePeerAccess)(1, 0));
        assert_eq!(status!((api().hipDeviceEnablePeerAccess)(1, 0)), hipError_t::hipErrorPeerAccessAlreadyEnabled);
        assert_eq!(fill_u32_on_null_stream(remote, 5, 64), hipError_t::hipSuccess);
        let mut out = vec![0u32; 64];
        set_device(1);
        ok!((api().hipMemcpy)(out.as_mut_ptr().cast(), remote, 256, hipMemcpyKind::hipMemcpyDeviceToHost));
        set_device(0);
        assert_eq!(out, vec![5; 64]);
        ok!((api().hipDeviceDisablePeerAccess)(1));
        assert_eq!(status!((api().hipDeviceDisablePeerAccess)(1)), hipError_t::hipErrorPeerAccessNotEnabled);
        assert_eq!(fill_u32_on_null_stream(remote, 6, 64), hipError_t::hipErrorIllegalAddress);
        let peer_faults = violations_of("peer").iter().filter(|v| v.kind == sim::ViolationKind::PeerAccess).count();
        assert_eq!(peer_faults, 2);
        set_device(1);
        ok!((api().hipFree)(remote));
    });
}
