//! HIP runs some "synchronous" memory calls asynchronously: `hipMemcpy`
//! between device memory of one device and `hipMemset` at an allocation's
//! base return before the work is done (`reference/hip_semantics.md` §9).
//! The library must not take them for finished. The simulator runs them
//! asynchronously too, and can hold a stream still, so these tests see
//! whether a call returned before its work had run.

use amdgpu::prelude::*;

/// Whether `device`'s null stream has nothing queued (`hipStreamQuery`).
fn null_stream_idle(device: Device) -> bool {
    let api = hip_sys::hip().unwrap();
    // SAFETY: the null stream is always valid.
    let status = hip_core::raw::on_device(device, || unsafe { (api.hipStreamQuery)(std::ptr::null_mut()) }).unwrap();
    status == hip_sys::hipError_t::hipSuccess
}

#[test]
fn copy_from_within_a_device_returns_once_the_copy_is_done() {
    let _x = hip_sys::sim::exclusive();
    if amdgpu::backend() != amdgpu::Backend::Sim {
        eprintln!("skipped: holds a simulator stream still");
        return;
    }
    let d0 = Device::new(0).unwrap();
    let data: Vec<u32> = (0..4096).collect();
    let source = with_device(d0, || DeviceArray::from_slice(&data)).unwrap();
    let mut target = with_device(d0, || DeviceArray::<u32>::zeros(data.len())).unwrap();
    // Another (blocking) stream of the device, held still: work on the
    // legacy null stream waits for it, work on the arrays' stream does not.
    let other = with_device(d0, Stream::new).unwrap();
    let hold = hip_sys::sim::hold_stream(other.as_raw()).unwrap();
    target.copy_from(&source).unwrap();
    let idle = null_stream_idle(d0);
    hold.release();
    assert!(idle, "copy_from returned with its copy still queued on the null stream");
    assert_eq!(target.to_vec().unwrap(), data);
}
