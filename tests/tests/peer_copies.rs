//! Copies between devices and peer access. Needs two devices (the
//! simulator has two by default); what needs the simulator says so.

use amdgpu::prelude::*;
use amdgpu::{Error, HostBuffer};
use hip_core::HipError;
use hip_sys::sim::{self, ViolationKind};

mod common;
use common::on_sim;

fn two_devices() -> Option<(Device, Device)> {
    if Device::count().unwrap() < 2 {
        eprintln!("skipped: needs two devices");
        return None;
    }
    Some((Device::new(0).unwrap(), Device::new(1).unwrap()))
}

#[test]
fn peer_copies_run_on_either_devices_stream() {
    let _x = sim::exclusive();
    let Some((d0, d1)) = two_devices() else { return };
    sim::clear_violations();
    let data: Vec<f64> = (0..5000).map(|i| f64::from(i) * 0.5).collect();
    let on_0 = with_device(d0, || DeviceArray::from_slice(&data)).unwrap();
    let mut on_1 = with_device(d1, || DeviceArray::<f64>::zeros(data.len())).unwrap();
    let mut back = with_device(d0, || DeviceArray::<f64>::zeros(data.len())).unwrap();
    let (s0, s1) = (Stream::new_on(d0).unwrap(), Stream::new_on(d1).unwrap());
    // On the destination's stream, then back on the destination's
    // (device 0's) stream, while this thread sits on device 0 or 1.
    on_1.copy_from_async(&on_0, &s1).unwrap();
    with_device(d1, || back.slice_mut(10..).unwrap().copy_from_async(on_1.slice(10..).unwrap(), &s0)).unwrap();
    back.slice_mut(..10).unwrap().copy_from_async(on_1.slice(..10).unwrap(), &s1).unwrap();
    let mut host = HostBuffer::<f64>::zeroed_on(d1, data.len()).unwrap();
    back.copy_to_host_async(&mut host, &s0).unwrap();
    assert_eq!(host.as_slice().unwrap(), &data[..]);
    if on_sim() {
        let found: Vec<_> = sim::violations()
            .into_iter()
            .filter(|v| matches!(v.kind, ViolationKind::StreamRace | ViolationKind::Context))
            .collect();
        assert_eq!(found, [], "no races, every call under its stream's device");
    }
}

#[test]
fn enable_peer_access_is_idempotent() {
    let _x = sim::exclusive();
    let Some((d0, d1)) = two_devices() else { return };
    assert!(d0.can_access_peer(d0).unwrap(), "a device reaches its own memory");
    d0.enable_peer_access(d0).unwrap();
    if !d0.can_access_peer(d1).unwrap() {
        eprintln!("skipped: no peer path between devices 0 and 1 here");
        return;
    }
    for _ in 0..3 {
        d0.enable_peer_access(d1).unwrap();
        // Also when it was enabled behind the library's back, and from
        // another device's thread.
        with_device(d1, || d0.enable_peer_access(d1)).unwrap();
    }
    let api = hip_sys::hip().unwrap();
    // SAFETY: plain arguments; device 0 has access to device 1 by now.
    let status = hip_core::raw::on_device(d0, || unsafe { (api.hipDeviceEnablePeerAccess)(1, 0) }).unwrap();
    assert_eq!(status, hip_sys::hipError_t::hipErrorPeerAccessAlreadyEnabled, "it really is enabled");
    hip_core::raw::forget_expected_failure(status);
}

#[test]
fn unsupported_peer_access_says_so() {
    let _x = sim::exclusive();
    let Some((d0, d1)) = two_devices() else { return };
    if !on_sim() {
        eprintln!("skipped: models a machine without a peer link");
        return;
    }
    sim::set_peer_reachable(1, 0, false);
    let refused = d1.enable_peer_access(d0);
    let can = d1.can_access_peer(d0);
    // A copy between them still works: the runtime stages it.
    let data = vec![3u32; 100];
    let source = with_device(d0, || DeviceArray::from_slice(&data)).unwrap();
    let mut target = with_device(d1, || DeviceArray::<u32>::zeros(100)).unwrap();
    let copied = target.copy_from_async(&source, &Stream::new_on(d1).unwrap());
    sim::set_peer_reachable(1, 0, true);
    assert!(!can.unwrap());
    let error = refused.unwrap_err();
    assert!(matches!(error, HipError::PeerAccessUnsupported { device: 1, peer: 0 }), "{error}");
    let text = error.to_string();
    assert!(
        text.contains("device 1 cannot access the memory of device 0") && text.contains("no peer-to-peer path"),
        "{text}"
    );
    copied.unwrap();
    assert_eq!(target.to_vec().unwrap(), data);
}

#[test]
fn a_copy_between_devices_without_a_path_says_how_to_copy_instead() {
    let _x = sim::exclusive();
    let Some((d0, d1)) = two_devices() else { return };
    if !on_sim() {
        eprintln!("skipped: injects a fault");
        return;
    }
    let source = with_device(d0, || DeviceArray::from_slice(&[1u8; 64])).unwrap();
    let mut target = with_device(d1, || DeviceArray::<u8>::zeros(64)).unwrap();
    let stream = Stream::new_on(d1).unwrap();
    let fault = sim::Fault {
        function: "hipMemcpyPeerAsync".into(),
        nth: 1,
        error: hip_sys::hipError_t::hipErrorPeerAccessUnsupported,
    };
    assert!(sim::inject_fault(fault));
    let result = target.copy_from_async(&source, &stream);
    sim::reset_faults();
    hip_core::raw::forget_expected_failure(hip_sys::hipError_t::hipErrorPeerAccessUnsupported);
    let error = result.unwrap_err();
    assert!(matches!(error, Error::NoPeerPath { from, to, .. } if from == d0 && to == d1), "{error}");
    let text = error.to_string();
    assert!(text.contains("copy from device 0 to device 1") && text.contains("HostBuffer"), "{text}");
    // The failed copy left nothing that would make later work wrong.
    target.copy_from_async(&source, &stream).unwrap();
    assert_eq!(target.to_vec().unwrap(), vec![1u8; 64]);
}
