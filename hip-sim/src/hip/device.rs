//! Devices, primary contexts, the context stack, versions and peer access.

use crate::bindings::hip::{hipCtx_t, hipDeviceAttribute_t, hipDevice_t, hipError_t};
use crate::entry::{call, call_with, write_out, Flavor, NORMAL};
use crate::machine::calls::idx;
use crate::machine::limits::{MAX_GRID_X, MAX_GRID_YZ, MAX_SHARED_MEMORY};
use crate::machine::peers;
use crate::machine::sim;
use crate::machine::thread::{current_device, with_thread};
use crate::submit;
use std::ffi::c_char;

/// The HIP version the simulator reports by default, in HIP's format
/// (major × 10⁷ + minor × 10⁵ + patch): 7.0.0.
pub const SIM_HIP_VERSION: i32 = 70_000_000;

/// The version reported for the simulated HIP major
/// (`AMDGPU_SIM_HIP_VERSION`): 5.7.0, 6.0.0 or 7.0.0.
fn hip_version() -> i32 {
    match sim().config.hip_major {
        5 => 50_700_000,
        // HIP 6 behaves as the strictest of its minors, mostly 6.0.
        6 => 60_000_000,
        _ => SIM_HIP_VERSION,
    }
}

/// The device an `int` argument names; `hipErrorInvalidDevice` for none.
pub(super) fn device_arg(device: i32) -> Result<usize, hipError_t> {
    sim().ordinal(device).ok_or(hipError_t::hipErrorInvalidDevice)
}

/// The `hipCtx_t` of a device: the address of its tag.
fn context_of(device: usize) -> Result<hipCtx_t, hipError_t> {
    let d = sim().device(device).ok_or(hipError_t::hipErrorInvalidDevice)?;
    Ok(&*d.context_tag as *const u8 as hipCtx_t)
}

fn device_of_context(ctx: hipCtx_t) -> Option<usize> {
    sim().devices.iter().position(|d| std::ptr::eq(&*d.context_tag, ctx as *const u8))
}

/// Write `text` as a C string into `out[..len]`, truncating.
///
/// # Safety
/// `out` is valid for `len` bytes.
unsafe fn write_c_string(out: *mut c_char, len: i32, text: &str) -> Result<(), hipError_t> {
    if out.is_null() || len <= 0 {
        return Err(hipError_t::hipErrorInvalidValue);
    }
    let bytes = text.as_bytes();
    let n = bytes.len().min(len as usize - 1);
    // SAFETY: the caller guarantees `len` bytes; we write n + 1 <= len.
    unsafe {
        std::ptr::copy_nonoverlapping(bytes.as_ptr(), out as *mut u8, n);
        *out.add(n) = 0;
    }
    Ok(())
}

pub(crate) unsafe extern "C" fn hipInit(flags: u32) -> hipError_t {
    call(idx!("hipInit"), || if flags == 0 { Ok(()) } else { Err(hipError_t::hipErrorInvalidValue) })
}

pub(crate) unsafe extern "C" fn hipDriverGetVersion(version: *mut i32) -> hipError_t {
    // SAFETY: null is rejected by write_out.
    call(idx!("hipDriverGetVersion"), || unsafe { write_out(version, hip_version()) })
}

pub(crate) unsafe extern "C" fn hipRuntimeGetVersion(version: *mut i32) -> hipError_t {
    // SAFETY: null is rejected by write_out.
    call(idx!("hipRuntimeGetVersion"), || unsafe { write_out(version, hip_version()) })
}

pub(crate) unsafe extern "C" fn hipGetDeviceCount(count: *mut i32) -> hipError_t {
    let flavor = Flavor { without_devices: true, ..NORMAL };
    call_with(idx!("hipGetDeviceCount"), flavor, || {
        let n = sim().config.devices as i32;
        // SAFETY: null is rejected by write_out.
        unsafe { write_out(count, n)? };
        // HIP writes 0 *and* reports hipErrorNoDevice.
        if n == 0 {
            Err(hipError_t::hipErrorNoDevice)
        } else {
            Ok(())
        }
    })
}

pub(crate) unsafe extern "C" fn hipSetDevice(device: i32) -> hipError_t {
    call(idx!("hipSetDevice"), || {
        let device = device_arg(device)?;
        with_thread(|t| t.device = Some(device));
        Ok(())
    })
}

pub(crate) unsafe extern "C" fn hipGetDevice(device: *mut i32) -> hipError_t {
    // SAFETY: null is rejected by write_out.
    call(idx!("hipGetDevice"), || unsafe { write_out(device, current_device() as i32) })
}

pub(crate) unsafe extern "C" fn hipDeviceGet(device: *mut hipDevice_t, ordinal: i32) -> hipError_t {
    call(idx!("hipDeviceGet"), || {
        let ordinal = device_arg(ordinal)?;
        // SAFETY: null is rejected by write_out.
        unsafe { write_out(device, ordinal as hipDevice_t) }
    })
}

pub(crate) unsafe extern "C" fn hipDeviceGetName(name: *mut c_char, len: i32, device: hipDevice_t) -> hipError_t {
    call(idx!("hipDeviceGetName"), || {
        let device = device_arg(device)?;
        let target = sim().config.targets[device].name();
        // SAFETY: the caller passes `len` writable bytes.
        unsafe { write_c_string(name, len, &format!("HIP simulator device {device} ({target})")) }
    })
}

/// Attributes clr's `hipDeviceGetAttribute` switch answers from rocm-6.0.0
/// on and 5.7.1's does not (its default branch answers
/// `hipErrorInvalidValue`).
const ADDED_IN_HIP_6: [hipDeviceAttribute_t; 24] = {
    use hipDeviceAttribute_t as A;
    [
        A::hipDeviceAttributeAsyncEngineCount,
        A::hipDeviceAttributeCanUseHostPointerForRegisteredMem,
        A::hipDeviceAttributeComputePreemptionSupported,
        A::hipDeviceAttributeDeviceOverlap,
        A::hipDeviceAttributeGlobalL1CacheSupported,
        A::hipDeviceAttributeHostNativeAtomicSupported,
        A::hipDeviceAttributeIsLargeBar,
        A::hipDeviceAttributeLocalL1CacheSupported,
        A::hipDeviceAttributeLuidDeviceNodeMask,
        A::hipDeviceAttributeMaxBlocksPerMultiProcessor,
        A::hipDeviceAttributeMaxRegistersPerMultiprocessor,
        A::hipDeviceAttributeMaxSurface1D,
        A::hipDeviceAttributeMaxTexture1DLinear,
        A::hipDeviceAttributeMaxTexture1DMipmap,
        A::hipDeviceAttributeMaxTextureCubemap,
        A::hipDeviceAttributeMultiGpuBoardGroupID,
        A::hipDeviceAttributePciDomainID,
        A::hipDeviceAttributePersistingL2CacheMaxSize,
        A::hipDeviceAttributeReservedSharedMemPerBlock,
        A::hipDeviceAttributeSharedMemPerBlockOptin,
        A::hipDeviceAttributeSharedMemPerMultiprocessor,
        A::hipDeviceAttributeStreamPrioritiesSupported,
        A::hipDeviceAttributeSurfaceAlignment,
        A::hipDeviceAttributeTotalGlobalMem,
    ]
};

/// Attributes rocm-6.2 answers and 6.0 does not; the simulator's HIP 7
/// answers them (it follows the newest clr read, 6.2).
const ADDED_AFTER_HIP_6_0: [hipDeviceAttribute_t; 1] =
    [hipDeviceAttribute_t::hipDeviceAttributeAccessPolicyMaxWindowSize];

/// The simulated device's attributes: a small CDNA-like GPU (4 compute
/// units of 64-lane wavefronts) with no textures, managed memory,
/// cooperative launches or virtual memory management, which the simulator
/// does not model, so those answer 0 ("not supported").
///
/// Every attribute the modelled HIP answers is answered: clr 5.7.1's switch
/// for HIP 5, with [`ADDED_IN_HIP_6`] for 6 and [`ADDED_AFTER_HIP_6_0`] for
/// 7. The rest are `hipErrorInvalidValue`, as clr's default branch gives,
/// including 64, 86, 10001, 10003 and 10004 (`hipDeviceAttributeName`,
/// `Uuid`, `Arch`, `GcnArch`, `GcnArchName` in 5.x, `Unused1..5` from 6.0),
/// which no version answers.
fn attribute(attr: hipDeviceAttribute_t, device: usize) -> Result<i32, hipError_t> {
    use hipDeviceAttribute_t as A;
    let major = sim().config.hip_major;
    if (major <= 5 && ADDED_IN_HIP_6.contains(&attr)) || (major <= 6 && ADDED_AFTER_HIP_6_0.contains(&attr)) {
        return Err(hipError_t::hipErrorInvalidValue);
    }
    let memory = sim().config.memory.min(i32::MAX as usize) as i32;
    Ok(match attr {
        A::hipDeviceAttributeMultiprocessorCount | A::hipDeviceAttributePhysicalMultiProcessorCount => 4,
        A::hipDeviceAttributeWarpSize => sim().config.targets[device].warp_size() as i32,
        A::hipDeviceAttributeMaxThreadsPerBlock => 1024,
        A::hipDeviceAttributeMaxThreadsPerMultiProcessor => 2048,
        A::hipDeviceAttributeMaxBlocksPerMultiProcessor => 2048 / 64,
        A::hipDeviceAttributeMaxBlockDimX | A::hipDeviceAttributeMaxBlockDimY | A::hipDeviceAttributeMaxBlockDimZ => {
            1024
        }
        A::hipDeviceAttributeMaxGridDimX => MAX_GRID_X as i32,
        A::hipDeviceAttributeMaxGridDimY | A::hipDeviceAttributeMaxGridDimZ => MAX_GRID_YZ as i32,
        A::hipDeviceAttributeClockRate => 1_000_000,
        A::hipDeviceAttributeMemoryClockRate => 1_000_000,
        // kHz: AMD's 100 MHz constant clock.
        A::hipDeviceAttributeWallClockRate => 100_000,
        A::hipDeviceAttributeMemoryBusWidth => 4096,
        A::hipDeviceAttributeComputeCapabilityMajor => sim().config.targets[device].architecture().0,
        A::hipDeviceAttributeComputeCapabilityMinor => sim().config.targets[device].architecture().1,
        A::hipDeviceAttributeAsicRevision => 0,
        A::hipDeviceAttributeMaxSharedMemoryPerBlock
        | A::hipDeviceAttributeMaxSharedMemoryPerMultiprocessor
        | A::hipDeviceAttributeSharedMemPerBlockOptin
        | A::hipDeviceAttributeSharedMemPerMultiprocessor => MAX_SHARED_MEMORY as i32,
        A::hipDeviceAttributeReservedSharedMemPerBlock => 0,
        A::hipDeviceAttributeMaxRegistersPerBlock | A::hipDeviceAttributeMaxRegistersPerMultiprocessor => 65_536,
        A::hipDeviceAttributeTotalGlobalMem | A::hipDeviceAttributeTotalConstantMemory => memory,
        A::hipDeviceAttributeL2CacheSize => 8 << 20,
        A::hipDeviceAttributePersistingL2CacheMaxSize | A::hipDeviceAttributeAccessPolicyMaxWindowSize => 0,
        A::hipDeviceAttributeMaxPitch => i32::MAX,
        A::hipDeviceAttributeTextureAlignment
        | A::hipDeviceAttributeTexturePitchAlignment
        | A::hipDeviceAttributeSurfaceAlignment => 256,
        A::hipDeviceAttributeMaxTexture1DWidth
        | A::hipDeviceAttributeMaxTexture1DMipmap
        | A::hipDeviceAttributeMaxTexture2DWidth
        | A::hipDeviceAttributeMaxTexture2DHeight
        | A::hipDeviceAttributeMaxTextureCubemap
        | A::hipDeviceAttributeMaxSurface1D => 16_384,
        A::hipDeviceAttributeMaxTexture1DLinear => 1 << 27,
        A::hipDeviceAttributeMaxTexture3DWidth
        | A::hipDeviceAttributeMaxTexture3DHeight
        | A::hipDeviceAttributeMaxTexture3DDepth => 2048,
        A::hipDeviceAttributePciBusId => device as i32 + 1,
        A::hipDeviceAttributePciDeviceId | A::hipDeviceAttributePciDomainID => 0,
        A::hipDeviceAttributeMultiGpuBoardGroupID => device as i32,
        A::hipDeviceAttributeConcurrentKernels
        | A::hipDeviceAttributeMemoryPoolsSupported
        | A::hipDeviceAttributeUnifiedAddressing
        | A::hipDeviceAttributeStreamPrioritiesSupported
        | A::hipDeviceAttributeCanMapHostMemory
        | A::hipDeviceAttributeDeviceOverlap
        | A::hipDeviceAttributeGlobalL1CacheSupported
        | A::hipDeviceAttributeLocalL1CacheSupported => 1,
        A::hipDeviceAttributeAsyncEngineCount => 2,
        // Heterogeneous memory management, as on an MI200 or MI300 with a
        // current kernel (managed memory pages; XNACK, and with it
        // PageableMemoryAccess, stays off).
        A::hipDeviceAttributeManagedMemory | A::hipDeviceAttributeConcurrentManagedAccess => 1,
        // clr up to 6.0 (HIP 6's strictest minor) has no virtual memory on
        // Linux; 7 has it on every device.
        A::hipDeviceAttributeVirtualMemoryManagementSupported => i32::from(super::vmm::supported()),
        // An APU: clr sets it (from the agent's unified memory) from 6.2;
        // before, it was never set.
        A::hipDeviceAttributeIntegrated => i32::from(sim().config.apu && sim().config.hip_major >= 7),
        // Not modelled: 0, "not supported".
        A::hipDeviceAttributeEccEnabled
        | A::hipDeviceAttributeComputeMode
        | A::hipDeviceAttributeKernelExecTimeout
        | A::hipDeviceAttributeIsMultiGpuBoard
        | A::hipDeviceAttributeIsLargeBar
        | A::hipDeviceAttributeImageSupport
        | A::hipDeviceAttributeDirectManagedMemAccessFromHost
        | A::hipDeviceAttributePageableMemoryAccess
        | A::hipDeviceAttributePageableMemoryAccessUsesHostPageTables
        | A::hipDeviceAttributeCanUseHostPointerForRegisteredMem
        | A::hipDeviceAttributeHostNativeAtomicSupported
        | A::hipDeviceAttributeComputePreemptionSupported
        | A::hipDeviceAttributeCanUseStreamWaitValue
        | A::hipDeviceAttributeCooperativeLaunch
        | A::hipDeviceAttributeCooperativeMultiDeviceLaunch
        | A::hipDeviceAttributeCooperativeMultiDeviceUnmatchedFunc
        | A::hipDeviceAttributeCooperativeMultiDeviceUnmatchedGridDim
        | A::hipDeviceAttributeCooperativeMultiDeviceUnmatchedBlockDim
        | A::hipDeviceAttributeCooperativeMultiDeviceUnmatchedSharedMem
        | A::hipDeviceAttributeFineGrainSupport
        | A::hipDeviceAttributeHdpMemFlushCntl
        | A::hipDeviceAttributeHdpRegFlushCntl
        | A::hipDeviceAttributeLuidDeviceNodeMask => 0,
        _ => return Err(hipError_t::hipErrorInvalidValue),
    })
}

pub(crate) unsafe extern "C" fn hipDeviceGetAttribute(
    value: *mut i32,
    attr: hipDeviceAttribute_t,
    device: i32,
) -> hipError_t {
    call(idx!("hipDeviceGetAttribute"), || {
        let device = device_arg(device)?;
        let v = attribute(attr, device)?;
        // SAFETY: null is rejected by write_out.
        unsafe { write_out(value, v) }
    })
}

pub(crate) unsafe extern "C" fn hipDeviceTotalMem(bytes: *mut usize, device: hipDevice_t) -> hipError_t {
    call(idx!("hipDeviceTotalMem"), || {
        device_arg(device)?;
        // SAFETY: null is rejected by write_out.
        unsafe { write_out(bytes, sim().config.memory) }
    })
}

pub(crate) unsafe extern "C" fn hipDeviceReset() -> hipError_t {
    // Modelled as a synchronization of the current device only.
    call(idx!("hipDeviceReset"), || submit::synchronize_device("hipDeviceReset", current_device()))
}

pub(crate) unsafe extern "C" fn hipDeviceGetPCIBusId(bus_id: *mut c_char, len: i32, device: i32) -> hipError_t {
    call(idx!("hipDeviceGetPCIBusId"), || {
        let device = device_arg(device)?;
        // SAFETY: the caller passes `len` writable bytes.
        unsafe { write_c_string(bus_id, len, &format!("0000:{:02x}:00.0", device + 1)) }
    })
}

pub(crate) unsafe extern "C" fn hipDeviceCanAccessPeer(can: *mut i32, device: i32, peer: i32) -> hipError_t {
    call(idx!("hipDeviceCanAccessPeer"), || {
        let (device, peer) = (device_arg(device)?, device_arg(peer)?);
        // SAFETY: null is rejected by write_out.
        unsafe { write_out(can, i32::from(peers::peer_reachable(device, peer))) }
    })
}

pub(crate) unsafe extern "C" fn hipDeviceEnablePeerAccess(peer: i32, flags: u32) -> hipError_t {
    call(idx!("hipDeviceEnablePeerAccess"), || {
        if flags != 0 {
            return Err(hipError_t::hipErrorInvalidValue);
        }
        let peer = device_arg(peer)?;
        let device = current_device();
        if !peers::peer_reachable(device, peer) {
            return Err(hipError_t::hipErrorInvalidDevice);
        }
        if peers::enable(device, peer) {
            Ok(())
        } else {
            Err(hipError_t::hipErrorPeerAccessAlreadyEnabled)
        }
    })
}

pub(crate) unsafe extern "C" fn hipDeviceDisablePeerAccess(peer: i32) -> hipError_t {
    call(idx!("hipDeviceDisablePeerAccess"), || {
        let peer = device_arg(peer)?;
        let device = current_device();
        if !peers::peer_reachable(device, peer) {
            return Err(hipError_t::hipErrorInvalidDevice);
        }
        if peers::disable(device, peer) {
            Ok(())
        } else {
            Err(hipError_t::hipErrorPeerAccessNotEnabled)
        }
    })
}

// ---- contexts ----------------------------------------------------------------

pub(crate) unsafe extern "C" fn hipCtxGetCurrent(ctx: *mut hipCtx_t) -> hipError_t {
    call(idx!("hipCtxGetCurrent"), || {
        let c = context_of(current_device())?;
        // SAFETY: null is rejected by write_out.
        unsafe { write_out(ctx, c) }
    })
}

pub(crate) unsafe extern "C" fn hipCtxSetCurrent(ctx: hipCtx_t) -> hipError_t {
    call(idx!("hipCtxSetCurrent"), || {
        if ctx.is_null() {
            // HIP: pops the stack; the current device stays.
            with_thread(|t| t.ctx_stack.pop());
            return Ok(());
        }
        let device = device_of_context(ctx).ok_or(hipError_t::hipErrorInvalidContext)?;
        with_thread(|t| {
            t.device = Some(device);
            if !t.ctx_stack.set_top(device) {
                t.ctx_stack.push(device);
            }
        });
        Ok(())
    })
}

pub(crate) unsafe extern "C" fn hipCtxGetDevice(device: *mut hipDevice_t) -> hipError_t {
    // SAFETY: null is rejected by write_out.
    call(idx!("hipCtxGetDevice"), || unsafe { write_out(device, current_device() as hipDevice_t) })
}

pub(crate) unsafe extern "C" fn hipCtxPushCurrent(ctx: hipCtx_t) -> hipError_t {
    call(idx!("hipCtxPushCurrent"), || {
        let device = device_of_context(ctx).ok_or(hipError_t::hipErrorInvalidContext)?;
        with_thread(|t| {
            if t.ctx_stack.push(device) {
                t.device = Some(device);
                Ok(())
            } else {
                // The simulator bounds the stack; HIP's grows without limit.
                Err(hipError_t::hipErrorOutOfMemory)
            }
        })
    })
}

pub(crate) unsafe extern "C" fn hipCtxPopCurrent(ctx: *mut hipCtx_t) -> hipError_t {
    call(idx!("hipCtxPopCurrent"), || {
        // AMD: pops without restoring the previous device (CUDA restores).
        let popped = with_thread(|t| t.ctx_stack.pop()).ok_or(hipError_t::hipErrorInvalidContext)?;
        if !ctx.is_null() {
            // SAFETY: non-null out-pointer from the caller.
            unsafe { write_out(ctx, context_of(popped)?)? };
        }
        Ok(())
    })
}

pub(crate) unsafe extern "C" fn hipDevicePrimaryCtxRetain(ctx: *mut hipCtx_t, device: hipDevice_t) -> hipError_t {
    call(idx!("hipDevicePrimaryCtxRetain"), || {
        let device = device_arg(device)?;
        // SAFETY: null is rejected by write_out.
        unsafe { write_out(ctx, context_of(device)?) }
    })
}

pub(crate) unsafe extern "C" fn hipDevicePrimaryCtxRelease(device: hipDevice_t) -> hipError_t {
    // HIP: validates only; the primary context is never released.
    call(idx!("hipDevicePrimaryCtxRelease"), || device_arg(device).map(drop))
}

pub(crate) unsafe extern "C" fn hipDevicePrimaryCtxGetState(
    device: hipDevice_t,
    flags: *mut u32,
    active: *mut i32,
) -> hipError_t {
    call(idx!("hipDevicePrimaryCtxGetState"), || {
        let device = device_arg(device)?;
        let is_active = sim().device(device).is_some_and(|d| d.memory.ever_allocated());
        // SAFETY: null is rejected by write_out.
        unsafe {
            write_out(flags, 0)?;
            write_out(active, i32::from(is_active))
        }
    })
}
