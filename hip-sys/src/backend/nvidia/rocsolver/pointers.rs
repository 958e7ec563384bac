//! Arrays of device pointers for NVIDIA's batched calls, written on the
//! stream: rocSOLVER's strided batches give a base address and a stride,
//! cuBLAS's and cuSOLVER's batched LU and Cholesky take one pointer per
//! problem in device memory.
//!
//! One small kernel writes `out[i] = base + i × stride` for every
//! problem. It is PTX text, which the driver compiles for the device at
//! the first load, kept per device for the process: loading it is the one
//! step that cannot happen inside a stream capture (the first batched call
//! on a device makes it, as its first call makes the cuSOLVER handle),
//! while the launch is a kernel node like any other. Writing the array on
//! the stream, rather than copying it from the host, keeps the call
//! asynchronous and capturable, and its memory is the call's workspace.

use std::collections::HashMap;
use std::ffi::{c_int, c_uint, c_void};
use std::sync::Mutex;

use crate::bindings::hip::{hipError_t, hipFunction_t, hipModule_t};
use crate::rocblas::rocblas_status;
use crate::sync::MutexExt;

/// The kernel: `out[i] = base + i * stride` (bytes) for `i < count`, one
/// thread each.
const PTX: &str = "\
.version 6.0
.target sm_50
.address_size 64

.visible .entry amdgpu_fill_pointers(
    .param .u64 out,
    .param .u64 base,
    .param .u64 stride,
    .param .u32 count
)
{
    .reg .pred %p;
    .reg .b32 %r<5>;
    .reg .b64 %rd<8>;
    ld.param.u64 %rd1, [out];
    ld.param.u64 %rd2, [base];
    ld.param.u64 %rd3, [stride];
    ld.param.u32 %r1, [count];
    mov.u32 %r2, %ctaid.x;
    mov.u32 %r3, %ntid.x;
    mov.u32 %r4, %tid.x;
    mad.lo.u32 %r2, %r2, %r3, %r4;
    setp.ge.u32 %p, %r2, %r1;
    @%p bra DONE;
    cvt.u64.u32 %rd4, %r2;
    mad.lo.u64 %rd5, %rd4, %rd3, %rd2;
    shl.b64 %rd6, %rd4, 3;
    cvta.to.global.u64 %rd1, %rd1;
    add.u64 %rd7, %rd1, %rd6;
    st.global.u64 [%rd7], %rd5;
DONE:
    ret;
}
\0";

/// Threads per block of the kernel.
const BLOCK: c_uint = 256;

/// The kernel per device (the device's ordinal), loaded once.
static KERNELS: Mutex<Option<HashMap<c_int, usize>>> = Mutex::new(None);

fn hip(status: hipError_t) -> Result<(), rocblas_status> {
    if status == hipError_t::hipSuccess {
        Ok(())
    } else {
        log::error!("amdgpu nvidia rocSOLVER: writing a pointer array failed: {status:?}");
        Err(rocblas_status::rocblas_status_internal_error)
    }
}

/// The kernel on the current device, loading it at the first call there.
fn kernel() -> Result<hipFunction_t, rocblas_status> {
    let mut device: c_int = 0;
    // SAFETY: a valid out-pointer.
    hip(unsafe { super::super::hip::hipGetDevice(&mut device) })?;
    let mut kernels = KERNELS.lock_unpoisoned();
    let map = kernels.get_or_insert_with(HashMap::new);
    if let Some(&function) = map.get(&device) {
        return Ok(function as hipFunction_t);
    }
    let mut module: hipModule_t = std::ptr::null_mut();
    // SAFETY: a valid out-pointer and NUL-terminated PTX text.
    hip(unsafe { super::super::driver::hipModuleLoadData(&mut module, PTX.as_ptr().cast()) })?;
    let mut function: hipFunction_t = std::ptr::null_mut();
    // SAFETY: a module just loaded and a NUL-terminated name in it. The
    // module stays loaded for the process: its function is kept.
    hip(unsafe {
        super::super::driver::hipModuleGetFunction(&mut function, module, c"amdgpu_fill_pointers".as_ptr())
    })?;
    map.insert(device, function as usize);
    Ok(function)
}

/// Queue on `stream` (a CUDA stream) the writing of `count` pointers into
/// `out`: `base`, then each `stride` elements of `T` further.
///
/// # Safety
/// `out` is device memory of the current device holding `count`
/// pointers, not in use by other work until this is done.
pub(super) unsafe fn fill<T>(
    out: *mut *mut T,
    base: *const T,
    stride: i64,
    count: c_int,
    stream: *mut c_void,
) -> Result<(), rocblas_status> {
    if count <= 0 {
        return Ok(());
    }
    let function = kernel()?;
    let (mut out, mut base) = (out as u64, base as u64);
    let mut stride = (stride * std::mem::size_of::<T>() as i64) as u64;
    let mut count = count as c_uint;
    let mut params: [*mut c_void; 4] = [
        (&mut out as *mut u64).cast(),
        (&mut base as *mut u64).cast(),
        (&mut stride as *mut u64).cast(),
        (&mut count as *mut c_uint).cast(),
    ];
    let blocks = count.div_ceil(BLOCK);
    let hip_stream = super::super::objects::hip_stream_of(stream);
    // SAFETY: the kernel of the current device with its four parameters,
    // on a live stream; `out` holds `count` pointers (caller).
    hip(unsafe {
        super::super::driver::hipModuleLaunchKernel(
            function,
            blocks,
            1,
            1,
            BLOCK,
            1,
            1,
            0,
            hip_stream,
            params.as_mut_ptr(),
            std::ptr::null_mut(),
        )
    })
}

/// Whether `stream` (a CUDA stream) is capturing.
pub(super) fn capturing(stream: *mut c_void) -> Result<bool, rocblas_status> {
    let mut status = crate::bindings::hip::hipStreamCaptureStatus::hipStreamCaptureStatusNone;
    let hip_stream = super::super::objects::hip_stream_of(stream);
    // SAFETY: a live stream and a valid out-pointer.
    hip(unsafe { super::super::graphs::hipStreamIsCapturing(hip_stream, &mut status) })?;
    Ok(status != crate::bindings::hip::hipStreamCaptureStatus::hipStreamCaptureStatusNone)
}

/// The `count` device pointers of each device array of `arrays`, read
/// back to the host once what `stream` (a CUDA stream) queued before is
/// done (one synchronize for all): for a rocSOLVER `_batched` call that
/// NVIDIA's libraries only have one problem at a time for. This waits for
/// the stream, which a capture cannot: there it is refused with
/// `not_implemented`, before anything would invalidate the capture. A
/// failed synchronize, which can leave the copies in flight, leaks their
/// host memory instead of freeing it under them.
///
/// # Safety
/// Each array is device memory holding `count` pointers, written by work
/// queued on `stream` or before.
pub(super) unsafe fn read_back<T, const N: usize>(
    function: impl std::fmt::Display,
    arrays: [*const *mut T; N],
    count: c_int,
    stream: *mut c_void,
) -> Result<[Vec<*mut T>; N], rocblas_status> {
    if capturing(stream)? {
        log::error!(
            "amdgpu nvidia rocSOLVER: {function}: this shape has no batched NVIDIA call, so its pointer array is \
             read back, which waits for the stream and cannot happen inside a capture; capture a strided batch \
             instead"
        );
        return Err(rocblas_status::rocblas_status_not_implemented);
    }
    let mut host: [Vec<*mut T>; N] = std::array::from_fn(|_| vec![std::ptr::null_mut(); count.max(0) as usize]);
    let bytes = count.max(0) as usize * std::mem::size_of::<*mut T>();
    let hip_stream = super::super::objects::hip_stream_of(stream);
    let kind = crate::bindings::hip::hipMemcpyKind::hipMemcpyDeviceToHost;
    for (into, array) in host.iter_mut().zip(arrays) {
        let into = into.as_mut_ptr().cast();
        // SAFETY: `into` holds `count` pointers; `array` as many (caller);
        // the stream is live. Until the synchronize below, `host` is kept.
        let copied = hip(unsafe { super::super::hip::hipMemcpyAsync(into, array.cast(), bytes, kind, hip_stream) });
        if let Err(status) = copied {
            // Copies queued before this one may still write `host`.
            std::mem::forget(host);
            return Err(status);
        }
    }
    // SAFETY: a live stream.
    if let Err(status) = hip(unsafe { super::super::hip::hipStreamSynchronize(hip_stream) }) {
        std::mem::forget(host);
        return Err(status);
    }
    Ok(host)
}
