//! Copies and fills: `hipMemcpy*`, `hipMemcpyPeer*`, `hipMemset*`, and
//! which of them wait for their work.

use crate::bindings::hip::{hipError_t, hipMemcpyKind, hipStream_t};
use crate::entry::call;
use crate::machine::calls::idx;
use crate::machine::capture;
use crate::machine::node_kind::NodeKind;
use crate::machine::pinned::pinned_containing;
use crate::machine::queue::Target;
use crate::machine::sim;
use crate::machine::thread::current_device;
use crate::machine::violations::{self, AccessKind};
use crate::place::{copy, fill, resolve_api, Place};
use crate::submit::{self, Op};
use crate::targets;
use std::ffi::c_void;

/// `hipMemcpyDeviceToDeviceNoCU`, a kind clr accepts from 6.2.
const DEVICE_TO_DEVICE_NO_CU: u32 = 1024;

/// clr validates the kind only: above `hipMemcpyDefault` it is
/// `hipErrorInvalidMemcpyDirection`, except `DeviceToDeviceNoCU` from 6.2
/// (accepted on HIP 7; HIP 6 is modelled by its strictest minor).
fn validate_kind(kind: hipMemcpyKind) -> Result<(), hipError_t> {
    let no_cu_known = sim().config.hip_major >= 7;
    if kind.0 > hipMemcpyKind::hipMemcpyDefault.0 && !(no_cu_known && kind.0 == DEVICE_TO_DEVICE_NO_CU) {
        Err(hipError_t::hipErrorInvalidMemcpyDirection)
    } else {
        Ok(())
    }
}

/// Record violations for operands of devices other than the current one.
/// A copy between two devices is fine when either is current.
fn check_operands(function: &'static str, dst: &Place, src: Option<&Place>) {
    let devices: Vec<usize> = [dst.device(), src.and_then(Place::device)].into_iter().flatten().collect();
    let current = current_device();
    if !devices.is_empty() && !devices.contains(&current) {
        violations::check(function, devices[0]);
    }
}

/// The stream a copy runs on: the given one, else the null stream of the
/// device that owns the device operand (HIP reroutes to it), else the
/// current device's.
fn copy_target(stream: hipStream_t, dst: &Place, src: Option<&Place>) -> Result<Target, hipError_t> {
    if !stream.is_null() {
        return targets::target(stream);
    }
    let device = dst.device().or_else(|| src.and_then(Place::device)).unwrap_or_else(current_device);
    targets::null_target(device)
}

/// How a copy or fill treats the calling thread.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Wait {
    /// A `...Async` call: enqueue and return.
    Never,
    /// `hipMemcpy`, `hipMemset`: return before the work is done where HIP
    /// does (the rules of [`memcpy_on`] and [`memset_on`]), else wait.
    AsHip,
}

/// A copy. With [`Wait::AsHip`] it waits for the copy unless both operands
/// are device memory of one device: then HIP (`ihipMemcpy`, 5.7 to 7.x)
/// enqueues it on the null stream and returns at once.
fn memcpy_on(
    function: &'static str,
    dst: *mut c_void,
    src: *const c_void,
    size: usize,
    kind: hipMemcpyKind,
    stream: hipStream_t,
    wait: Wait,
) -> Result<(), hipError_t> {
    validate_kind(kind)?;
    if size == 0 {
        return Ok(());
    }
    let d = resolve_api(dst as usize, size)?;
    let s = resolve_api(src as usize, size)?;
    check_operands(function, &d, Some(&s));
    let target = copy_target(stream, &d, Some(&s))?;
    let same_device = matches!((d.device(), s.device()), (Some(a), Some(b)) if a == b);
    let blocking = wait == Wait::AsHip && !same_device;
    let accesses = [s.access(size, AccessKind::Read), d.access(size, AccessKind::Write)].into_iter().flatten();
    // A graph node of it keeps its kind (hipGraphExecUpdate compares it).
    let op = Op { node: Some(NodeKind::Memcpy(Some(kind))), ..Op::with(function, accesses.collect()) };
    submit::submit(&target, blocking, op, move || {
        copy(&d, &s, size);
        Ok(())
    })
}

pub(crate) unsafe extern "C" fn hipMemcpy(
    dst: *mut c_void,
    src: *const c_void,
    size: usize,
    kind: hipMemcpyKind,
) -> hipError_t {
    call(idx!("hipMemcpy"), || {
        capture::check_synchronous()?;
        memcpy_on("hipMemcpy", dst, src, size, kind, std::ptr::null_mut(), Wait::AsHip)
    })
}

pub(crate) unsafe extern "C" fn hipMemcpyAsync(
    dst: *mut c_void,
    src: *const c_void,
    size: usize,
    kind: hipMemcpyKind,
    stream: hipStream_t,
) -> hipError_t {
    call(idx!("hipMemcpyAsync"), || memcpy_on("hipMemcpyAsync", dst, src, size, kind, stream, Wait::Never))
}

fn check_device(ordinal: i32) -> Result<usize, hipError_t> {
    usize::try_from(ordinal).ok().filter(|d| *d < sim().config.devices).ok_or(hipError_t::hipErrorInvalidDevice)
}

pub(crate) unsafe extern "C" fn hipMemcpyPeer(
    dst: *mut c_void,
    dst_device: i32,
    src: *const c_void,
    src_device: i32,
    size: usize,
) -> hipError_t {
    call(idx!("hipMemcpyPeer"), || {
        capture::check_synchronous()?;
        check_device(dst_device)?;
        check_device(src_device)?;
        // clr's hipMemcpyPeer is ihipMemcpy: a copy within one device returns early.
        let kind = hipMemcpyKind::hipMemcpyDefault;
        memcpy_on("hipMemcpyPeer", dst, src, size, kind, std::ptr::null_mut(), Wait::AsHip)
    })
}

pub(crate) unsafe extern "C" fn hipMemcpyPeerAsync(
    dst: *mut c_void,
    dst_device: i32,
    src: *const c_void,
    src_device: i32,
    size: usize,
    stream: hipStream_t,
) -> hipError_t {
    call(idx!("hipMemcpyPeerAsync"), || {
        check_device(dst_device)?;
        check_device(src_device)?;
        memcpy_on("hipMemcpyPeerAsync", dst, src, size, hipMemcpyKind::hipMemcpyDefault, stream, Wait::Never)
    })
}

/// A fill. Device memory and pinned host memory can be filled; other host
/// memory is `hipErrorInvalidValue`. With [`Wait::AsHip`] (`ihipMemset`,
/// 5.7 to 7.x) a fill of device memory from the allocation's base returns
/// at once, enqueued on the null stream; a fill from an interior pointer,
/// or of pinned (fine-grained) host memory, waits.
fn memset_on(
    function: &'static str,
    dst: *mut c_void,
    pattern: Vec<u8>,
    count: usize,
    stream: hipStream_t,
    wait: Wait,
) -> Result<(), hipError_t> {
    let bytes = count.checked_mul(pattern.len()).ok_or(hipError_t::hipErrorInvalidValue)?;
    if bytes == 0 {
        return Ok(());
    }
    let place = resolve_api(dst as usize, bytes)?;
    let at_base = match &place {
        Place::Device(_, offset) => *offset == 0,
        Place::Host(address) if pinned_containing(*address).is_some() => false,
        Place::Host(_) => return Err(hipError_t::hipErrorInvalidValue),
    };
    check_operands(function, &place, None);
    let target = copy_target(stream, &place, None)?;
    let blocking = wait == Wait::AsHip && !at_base;
    let op = Op::with(function, place.access(bytes, AccessKind::Write).into_iter().collect());
    submit::submit(&target, blocking, op, move || fill(&place, &pattern, count))
}

pub(crate) unsafe extern "C" fn hipMemset(dst: *mut c_void, value: i32, size: usize) -> hipError_t {
    call(idx!("hipMemset"), || {
        capture::check_synchronous()?;
        memset_on("hipMemset", dst, vec![value as u8], size, std::ptr::null_mut(), Wait::AsHip)
    })
}

pub(crate) unsafe extern "C" fn hipMemsetAsync(
    dst: *mut c_void,
    value: i32,
    size: usize,
    stream: hipStream_t,
) -> hipError_t {
    call(idx!("hipMemsetAsync"), || memset_on("hipMemsetAsync", dst, vec![value as u8], size, stream, Wait::Never))
}

pub(crate) unsafe extern "C" fn hipMemsetD32(dst: *mut c_void, value: i32, count: usize) -> hipError_t {
    call(idx!("hipMemsetD32"), || {
        capture::check_synchronous()?;
        memset_on("hipMemsetD32", dst, value.to_ne_bytes().to_vec(), count, std::ptr::null_mut(), Wait::AsHip)
    })
}

pub(crate) unsafe extern "C" fn hipMemsetD32Async(
    dst: *mut c_void,
    value: i32,
    count: usize,
    stream: hipStream_t,
) -> hipError_t {
    call(idx!("hipMemsetD32Async"), || {
        memset_on("hipMemsetD32Async", dst, value.to_ne_bytes().to_vec(), count, stream, Wait::Never)
    })
}
