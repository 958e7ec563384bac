//! `hipDeviceGetAttribute`: HIP's attribute numbers to `cudaDeviceAttr`.
//!
//! `hipDeviceAttribute_t` is a sequential enum, not numerically equal to
//! `cudaDeviceAttr`. The table below maps each HIP attribute to the
//! `cudaDevAttr` of the same meaning, numbers checked against CUDA 12.9's
//! `driver_types.h`. It covers the table of `hip_semantics.md` §4 and the
//! other attributes with an exact CUDA counterpart, including two that
//! HIP's NVIDIA header leaves out: `PciDomainID` (`cudaDevAttrPciDomainId`)
//! and `SharedMemPerBlockOptin` (`cudaDevAttrMaxSharedMemoryPerBlockOptin`).
//!
//! - `hipDeviceAttributeTotalGlobalMem` has no `cudaDevAttr`: it is
//!   answered from `cuDeviceTotalMem`, clamped to `i32::MAX` as AMD does.
//! - `hipDeviceAttributeCooperativeMultiDeviceLaunch` maps to
//!   `cudaDevAttrCooperativeMultiDeviceLaunch` (96) only before CUDA 13,
//!   whose headers renamed 96 to `cudaDevAttrReserved96`; on 13 it is
//!   unmapped.
//! - Every other attribute (multi-dimensional texture and surface limits,
//!   the LUID, UUID and name, the AMD-specific ones, ...) gives
//!   `hipErrorInvalidValue` for a valid device, as HIP's NVIDIA header
//!   does and as the AMD runtime does for an attribute its switch does not
//!   answer, so a caller sees the same code on every backend.
//!
//! The CUDA names and numbers are checked against what CUDA 12.9's and
//! 13.0's headers print (`abi.rs`).

use std::ffi::c_int;

use super::call::{cu, entry, non_null, rt};
use super::driver::ensure_init;
use super::CuDevice;
use crate::bindings::hip::{hipDeviceAttribute_t as A, hipError_t};

/// How an attribute is read on NVIDIA.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Source {
    /// `cudaDeviceGetAttribute` with this `cudaDeviceAttr`.
    Cuda(c_int),
    /// `cuDeviceTotalMem`, clamped to `i32::MAX`.
    TotalGlobalMem,
    /// `cuDeviceGetAttribute` with this `CUdevice_attribute` (one the
    /// runtime's `cudaDeviceAttr` does not name).
    Driver(c_int),
    /// No CUDA counterpart (in this CUDA version): `hipErrorInvalidValue`.
    Unmapped,
}

/// HIP attribute, `cudaDeviceAttr` name and value, for every mapped
/// attribute.
pub(crate) const TO_CUDA: &[(A, &str, c_int)] = &[
    (A::hipDeviceAttributeEccEnabled, "cudaDevAttrEccEnabled", 32),
    (A::hipDeviceAttributeAccessPolicyMaxWindowSize, "cudaDevAttrMaxAccessPolicyWindowSize", 109),
    (A::hipDeviceAttributeAsyncEngineCount, "cudaDevAttrAsyncEngineCount", 40),
    (A::hipDeviceAttributeCanMapHostMemory, "cudaDevAttrCanMapHostMemory", 19),
    (A::hipDeviceAttributeCanUseHostPointerForRegisteredMem, "cudaDevAttrCanUseHostPointerForRegisteredMem", 91),
    (A::hipDeviceAttributeClockRate, "cudaDevAttrClockRate", 13),
    (A::hipDeviceAttributeComputeMode, "cudaDevAttrComputeMode", 20),
    (A::hipDeviceAttributeComputePreemptionSupported, "cudaDevAttrComputePreemptionSupported", 90),
    (A::hipDeviceAttributeConcurrentKernels, "cudaDevAttrConcurrentKernels", 31),
    (A::hipDeviceAttributeConcurrentManagedAccess, "cudaDevAttrConcurrentManagedAccess", 89),
    (A::hipDeviceAttributeCooperativeLaunch, "cudaDevAttrCooperativeLaunch", 95),
    (A::hipDeviceAttributeCooperativeMultiDeviceLaunch, "cudaDevAttrCooperativeMultiDeviceLaunch", 96),
    (A::hipDeviceAttributeDeviceOverlap, "cudaDevAttrGpuOverlap", 15),
    (A::hipDeviceAttributeDirectManagedMemAccessFromHost, "cudaDevAttrDirectManagedMemAccessFromHost", 101),
    (A::hipDeviceAttributeGlobalL1CacheSupported, "cudaDevAttrGlobalL1CacheSupported", 79),
    (A::hipDeviceAttributeHostNativeAtomicSupported, "cudaDevAttrHostNativeAtomicSupported", 86),
    (A::hipDeviceAttributeIntegrated, "cudaDevAttrIntegrated", 18),
    (A::hipDeviceAttributeIsMultiGpuBoard, "cudaDevAttrIsMultiGpuBoard", 84),
    (A::hipDeviceAttributeKernelExecTimeout, "cudaDevAttrKernelExecTimeout", 17),
    (A::hipDeviceAttributeL2CacheSize, "cudaDevAttrL2CacheSize", 38),
    (A::hipDeviceAttributeLocalL1CacheSupported, "cudaDevAttrLocalL1CacheSupported", 80),
    (A::hipDeviceAttributeComputeCapabilityMajor, "cudaDevAttrComputeCapabilityMajor", 75),
    (A::hipDeviceAttributeManagedMemory, "cudaDevAttrManagedMemory", 83),
    (A::hipDeviceAttributeMaxBlocksPerMultiProcessor, "cudaDevAttrMaxBlocksPerMultiprocessor", 106),
    (A::hipDeviceAttributeMaxBlockDimX, "cudaDevAttrMaxBlockDimX", 2),
    (A::hipDeviceAttributeMaxBlockDimY, "cudaDevAttrMaxBlockDimY", 3),
    (A::hipDeviceAttributeMaxBlockDimZ, "cudaDevAttrMaxBlockDimZ", 4),
    (A::hipDeviceAttributeMaxGridDimX, "cudaDevAttrMaxGridDimX", 5),
    (A::hipDeviceAttributeMaxGridDimY, "cudaDevAttrMaxGridDimY", 6),
    (A::hipDeviceAttributeMaxGridDimZ, "cudaDevAttrMaxGridDimZ", 7),
    (A::hipDeviceAttributeMaxSurface1D, "cudaDevAttrMaxSurface1DWidth", 55),
    (A::hipDeviceAttributeMaxTexture1DWidth, "cudaDevAttrMaxTexture1DWidth", 21),
    (A::hipDeviceAttributeMaxTexture1DLinear, "cudaDevAttrMaxTexture1DLinearWidth", 69),
    (A::hipDeviceAttributeMaxTexture1DMipmap, "cudaDevAttrMaxTexture1DMipmappedWidth", 77),
    (A::hipDeviceAttributeMaxTexture2DWidth, "cudaDevAttrMaxTexture2DWidth", 22),
    (A::hipDeviceAttributeMaxTexture2DHeight, "cudaDevAttrMaxTexture2DHeight", 23),
    (A::hipDeviceAttributeMaxTexture3DWidth, "cudaDevAttrMaxTexture3DWidth", 24),
    (A::hipDeviceAttributeMaxTexture3DHeight, "cudaDevAttrMaxTexture3DHeight", 25),
    (A::hipDeviceAttributeMaxTexture3DDepth, "cudaDevAttrMaxTexture3DDepth", 26),
    (A::hipDeviceAttributeMaxTextureCubemap, "cudaDevAttrMaxTextureCubemapWidth", 52),
    (A::hipDeviceAttributeMaxThreadsPerBlock, "cudaDevAttrMaxThreadsPerBlock", 1),
    (A::hipDeviceAttributeMaxThreadsPerMultiProcessor, "cudaDevAttrMaxThreadsPerMultiProcessor", 39),
    (A::hipDeviceAttributeMaxPitch, "cudaDevAttrMaxPitch", 11),
    (A::hipDeviceAttributeMemoryBusWidth, "cudaDevAttrGlobalMemoryBusWidth", 37),
    (A::hipDeviceAttributeMemoryClockRate, "cudaDevAttrMemoryClockRate", 36),
    (A::hipDeviceAttributeComputeCapabilityMinor, "cudaDevAttrComputeCapabilityMinor", 76),
    (A::hipDeviceAttributeMultiGpuBoardGroupID, "cudaDevAttrMultiGpuBoardGroupID", 85),
    (A::hipDeviceAttributeMultiprocessorCount, "cudaDevAttrMultiProcessorCount", 16),
    (A::hipDeviceAttributePageableMemoryAccess, "cudaDevAttrPageableMemoryAccess", 88),
    (
        A::hipDeviceAttributePageableMemoryAccessUsesHostPageTables,
        "cudaDevAttrPageableMemoryAccessUsesHostPageTables",
        100,
    ),
    (A::hipDeviceAttributePciBusId, "cudaDevAttrPciBusId", 33),
    (A::hipDeviceAttributePciDeviceId, "cudaDevAttrPciDeviceId", 34),
    (A::hipDeviceAttributePciDomainID, "cudaDevAttrPciDomainId", 50),
    (A::hipDeviceAttributePersistingL2CacheMaxSize, "cudaDevAttrMaxPersistingL2CacheSize", 108),
    (A::hipDeviceAttributeMaxRegistersPerBlock, "cudaDevAttrMaxRegistersPerBlock", 12),
    (A::hipDeviceAttributeMaxRegistersPerMultiprocessor, "cudaDevAttrMaxRegistersPerMultiprocessor", 82),
    (A::hipDeviceAttributeReservedSharedMemPerBlock, "cudaDevAttrReservedSharedMemoryPerBlock", 111),
    (A::hipDeviceAttributeMaxSharedMemoryPerBlock, "cudaDevAttrMaxSharedMemoryPerBlock", 8),
    (A::hipDeviceAttributeSharedMemPerBlockOptin, "cudaDevAttrMaxSharedMemoryPerBlockOptin", 97),
    (A::hipDeviceAttributeSharedMemPerMultiprocessor, "cudaDevAttrMaxSharedMemoryPerMultiprocessor", 81),
    (A::hipDeviceAttributeSingleToDoublePrecisionPerfRatio, "cudaDevAttrSingleToDoublePrecisionPerfRatio", 87),
    (A::hipDeviceAttributeStreamPrioritiesSupported, "cudaDevAttrStreamPrioritiesSupported", 78),
    (A::hipDeviceAttributeSurfaceAlignment, "cudaDevAttrSurfaceAlignment", 30),
    (A::hipDeviceAttributeTccDriver, "cudaDevAttrTccDriver", 35),
    (A::hipDeviceAttributeTextureAlignment, "cudaDevAttrTextureAlignment", 14),
    (A::hipDeviceAttributeTexturePitchAlignment, "cudaDevAttrTexturePitchAlignment", 51),
    (A::hipDeviceAttributeTotalConstantMemory, "cudaDevAttrTotalConstantMemory", 9),
    (A::hipDeviceAttributeUnifiedAddressing, "cudaDevAttrUnifiedAddressing", 41),
    (A::hipDeviceAttributeWarpSize, "cudaDevAttrWarpSize", 10),
    (A::hipDeviceAttributeMemoryPoolsSupported, "cudaDevAttrMemoryPoolsSupported", 115),
    (A::hipDeviceAttributeMaxSharedMemoryPerMultiprocessor, "cudaDevAttrMaxSharedMemoryPerMultiprocessor", 81),
];

/// Attributes of [`TO_CUDA`] that CUDA 13 removed (its headers reserve
/// their numbers).
pub(crate) const REMOVED_IN_CUDA_13: &[A] = &[A::hipDeviceAttributeCooperativeMultiDeviceLaunch];

/// The first CUDA runtime version (`1000 * major + 10 * minor`) without
/// the attributes of [`REMOVED_IN_CUDA_13`].
const CUDA_13: c_int = 13000;

/// HIP attributes that only the driver's `CUdevice_attribute` names, with
/// its name and value.
pub(crate) const TO_DRIVER: &[(A, &str, c_int)] = &[(
    A::hipDeviceAttributeVirtualMemoryManagementSupported,
    "CU_DEVICE_ATTRIBUTE_VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED",
    102,
)];

/// Where `attribute` comes from on NVIDIA with the CUDA runtime of version
/// `runtime` (`cudaRuntimeGetVersion`'s number).
pub(crate) fn source(attribute: A, runtime: c_int) -> Source {
    if attribute == A::hipDeviceAttributeTotalGlobalMem {
        return Source::TotalGlobalMem;
    }
    if runtime >= CUDA_13 && REMOVED_IN_CUDA_13.contains(&attribute) {
        return Source::Unmapped;
    }
    if let Some((.., driver)) = TO_DRIVER.iter().find(|(a, ..)| *a == attribute) {
        return Source::Driver(*driver);
    }
    TO_CUDA.iter().find(|(a, ..)| *a == attribute).map_or(Source::Unmapped, |(.., c)| Source::Cuda(*c))
}

/// A byte count as HIP's `int` attribute: clamped to `i32::MAX`.
pub(crate) fn clamp_to_int(bytes: usize) -> c_int {
    c_int::try_from(bytes).unwrap_or(c_int::MAX)
}

pub(super) unsafe extern "C" fn hipDeviceGetAttribute(pi: *mut c_int, attr: A, device: c_int) -> hipError_t {
    entry(|f| {
        non_null(pi)?;
        match source(attr, f.runtime_version) {
            // SAFETY: `pi` is non-null and, by the caller's contract,
            // valid for a write of an `int`.
            Source::Cuda(cuda) => rt(unsafe { (f.rt.cudaDeviceGetAttribute)(pi, cuda, device) }),
            Source::TotalGlobalMem => {
                ensure_init(f)?;
                let mut dev: CuDevice = 0;
                // SAFETY: `dev` is a valid out-pointer.
                cu(unsafe { (f.drv.cuDeviceGet)(&mut dev, device) })?;
                let mut bytes = 0usize;
                // SAFETY: `bytes` is a valid out-pointer; `dev` a device.
                cu(unsafe { (f.drv.cuDeviceTotalMem)(&mut bytes, dev) })?;
                // SAFETY: `pi` is non-null and valid for a write (above).
                unsafe { pi.write(clamp_to_int(bytes)) };
                Ok(())
            }
            Source::Driver(attribute) => {
                ensure_init(f)?;
                let mut dev: CuDevice = 0;
                // SAFETY: `dev` is a valid out-pointer.
                cu(unsafe { (f.drv.cuDeviceGet)(&mut dev, device) })?;
                // SAFETY: `pi` is non-null and valid for a write (above);
                // `dev` a device.
                cu(unsafe { (f.drv.cuDeviceGetAttribute)(pi, attribute, dev) })
            }
            Source::Unmapped => {
                // A bad device is still hipErrorInvalidDevice.
                let mut count: c_int = 0;
                // SAFETY: `count` is a valid out-pointer.
                rt(unsafe { (f.rt.cudaGetDeviceCount)(&mut count) })?;
                if device < 0 || device >= count {
                    return Err(hipError_t::hipErrorInvalidDevice);
                }
                Err(hipError_t::hipErrorInvalidValue)
            }
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn known_attributes_map_to_cuda() {
        let pairs = [
            (A::hipDeviceAttributeEccEnabled, 32),
            (A::hipDeviceAttributeAsyncEngineCount, 40),
            (A::hipDeviceAttributeClockRate, 13),
            (A::hipDeviceAttributeComputeCapabilityMajor, 75),
            (A::hipDeviceAttributeComputeCapabilityMinor, 76),
            (A::hipDeviceAttributeMaxBlockDimX, 2),
            (A::hipDeviceAttributeMaxGridDimZ, 7),
            (A::hipDeviceAttributeMaxThreadsPerBlock, 1),
            (A::hipDeviceAttributeMultiprocessorCount, 16),
            (A::hipDeviceAttributePciBusId, 33),
            (A::hipDeviceAttributeStreamPrioritiesSupported, 78),
            (A::hipDeviceAttributeTotalConstantMemory, 9),
            (A::hipDeviceAttributeUnifiedAddressing, 41),
            (A::hipDeviceAttributeWarpSize, 10),
            (A::hipDeviceAttributeMemoryPoolsSupported, 115),
            (A::hipDeviceAttributeMaxSharedMemoryPerMultiprocessor, 81),
        ];
        for (hip, cuda) in pairs {
            assert_eq!(source(hip, 12090), Source::Cuda(cuda), "{hip:?}");
            assert_eq!(source(hip, 13000), Source::Cuda(cuda), "{hip:?}");
        }
    }

    #[test]
    fn unmapped_attributes_are_invalid_values() {
        for hip in [
            A::hipDeviceAttributeName,
            A::hipDeviceAttributeUuid,
            A::hipDeviceAttributeLuid,
            A::hipDeviceAttributeMaxTexture2DLayered,
            A::hipDeviceAttributeGcnArch,
            A::hipDeviceAttributeIsLargeBar,
            A::hipDeviceAttributeFineGrainSupport,
            A(123_456),
        ] {
            assert_eq!(source(hip, 13000), Source::Unmapped, "{hip:?}");
        }
        assert_eq!(source(A::hipDeviceAttributeTotalGlobalMem, 13000), Source::TotalGlobalMem);
        assert_eq!(source(A::hipDeviceAttributeVirtualMemoryManagementSupported, 13000), Source::Driver(102));
    }

    #[test]
    fn cooperative_multi_device_launch_exists_before_cuda_13_only() {
        let a = A::hipDeviceAttributeCooperativeMultiDeviceLaunch;
        assert_eq!(source(a, 12090), Source::Cuda(96));
        assert_eq!(source(a, 13000), Source::Unmapped);
    }

    #[test]
    fn each_hip_attribute_is_mapped_once() {
        for (i, (a, ..)) in TO_CUDA.iter().enumerate() {
            assert!(!TO_CUDA[i + 1..].iter().any(|(b, ..)| b == a), "{a:?}");
        }
    }

    #[test]
    fn total_memory_clamps_to_int() {
        assert_eq!(clamp_to_int(1 << 20), 1 << 20);
        assert_eq!(clamp_to_int(141 << 30), c_int::MAX);
    }
}
