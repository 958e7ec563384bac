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
//! - Every other attribute (multi-dimensional texture and surface limits,
//!   the LUID, UUID and name, the AMD-specific ones, ...) gives
//!   `hipErrorNotSupported` for a valid device. HIP's NVIDIA header gives
//!   `hipErrorInvalidValue` there; "not supported" says what is true (the
//!   value exists, this backend cannot read it) and lets callers tell it
//!   from a bad argument.

use std::ffi::c_int;

use super::call::{cu, entry, non_null, rt};
use super::driver::ensure_init;
use super::CuDevice;
use crate::{hipDeviceAttribute_t as A, hipError_t};

/// How an attribute is read on NVIDIA.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Source {
    /// `cudaDeviceGetAttribute` with this `cudaDeviceAttr`.
    Cuda(c_int),
    /// `cuDeviceTotalMem`, clamped to `i32::MAX`.
    TotalGlobalMem,
    /// No CUDA counterpart.
    NotSupported,
}

/// HIP attribute and `cudaDeviceAttr` value, for every mapped attribute.
pub(crate) const TO_CUDA: &[(A, c_int)] = &[
    (A::hipDeviceAttributeEccEnabled, 32),
    (A::hipDeviceAttributeAccessPolicyMaxWindowSize, 109),
    (A::hipDeviceAttributeAsyncEngineCount, 40),
    (A::hipDeviceAttributeCanMapHostMemory, 19),
    (A::hipDeviceAttributeCanUseHostPointerForRegisteredMem, 91),
    (A::hipDeviceAttributeClockRate, 13),
    (A::hipDeviceAttributeComputeMode, 20),
    (A::hipDeviceAttributeComputePreemptionSupported, 90),
    (A::hipDeviceAttributeConcurrentKernels, 31),
    (A::hipDeviceAttributeConcurrentManagedAccess, 89),
    (A::hipDeviceAttributeCooperativeLaunch, 95),
    (A::hipDeviceAttributeCooperativeMultiDeviceLaunch, 96),
    (A::hipDeviceAttributeDeviceOverlap, 15), // cudaDevAttrGpuOverlap
    (A::hipDeviceAttributeDirectManagedMemAccessFromHost, 101),
    (A::hipDeviceAttributeGlobalL1CacheSupported, 79),
    (A::hipDeviceAttributeHostNativeAtomicSupported, 86),
    (A::hipDeviceAttributeIntegrated, 18),
    (A::hipDeviceAttributeIsMultiGpuBoard, 84),
    (A::hipDeviceAttributeKernelExecTimeout, 17),
    (A::hipDeviceAttributeL2CacheSize, 38),
    (A::hipDeviceAttributeLocalL1CacheSupported, 80),
    (A::hipDeviceAttributeComputeCapabilityMajor, 75),
    (A::hipDeviceAttributeManagedMemory, 83),
    (A::hipDeviceAttributeMaxBlocksPerMultiProcessor, 106),
    (A::hipDeviceAttributeMaxBlockDimX, 2),
    (A::hipDeviceAttributeMaxBlockDimY, 3),
    (A::hipDeviceAttributeMaxBlockDimZ, 4),
    (A::hipDeviceAttributeMaxGridDimX, 5),
    (A::hipDeviceAttributeMaxGridDimY, 6),
    (A::hipDeviceAttributeMaxGridDimZ, 7),
    (A::hipDeviceAttributeMaxSurface1D, 55), // cudaDevAttrMaxSurface1DWidth
    (A::hipDeviceAttributeMaxTexture1DWidth, 21),
    (A::hipDeviceAttributeMaxTexture1DLinear, 69), // cudaDevAttrMaxTexture1DLinearWidth
    (A::hipDeviceAttributeMaxTexture1DMipmap, 77), // cudaDevAttrMaxTexture1DMipmappedWidth
    (A::hipDeviceAttributeMaxTexture2DWidth, 22),
    (A::hipDeviceAttributeMaxTexture2DHeight, 23),
    (A::hipDeviceAttributeMaxTexture3DWidth, 24),
    (A::hipDeviceAttributeMaxTexture3DHeight, 25),
    (A::hipDeviceAttributeMaxTexture3DDepth, 26),
    (A::hipDeviceAttributeMaxTextureCubemap, 52), // cudaDevAttrMaxTextureCubemapWidth
    (A::hipDeviceAttributeMaxThreadsPerBlock, 1),
    (A::hipDeviceAttributeMaxThreadsPerMultiProcessor, 39),
    (A::hipDeviceAttributeMaxPitch, 11),
    (A::hipDeviceAttributeMemoryBusWidth, 37), // cudaDevAttrGlobalMemoryBusWidth
    (A::hipDeviceAttributeMemoryClockRate, 36),
    (A::hipDeviceAttributeComputeCapabilityMinor, 76),
    (A::hipDeviceAttributeMultiGpuBoardGroupID, 85),
    (A::hipDeviceAttributeMultiprocessorCount, 16),
    (A::hipDeviceAttributePageableMemoryAccess, 88),
    (A::hipDeviceAttributePageableMemoryAccessUsesHostPageTables, 100),
    (A::hipDeviceAttributePciBusId, 33),
    (A::hipDeviceAttributePciDeviceId, 34),
    (A::hipDeviceAttributePciDomainID, 50),
    (A::hipDeviceAttributePersistingL2CacheMaxSize, 108),
    (A::hipDeviceAttributeMaxRegistersPerBlock, 12),
    (A::hipDeviceAttributeMaxRegistersPerMultiprocessor, 82),
    (A::hipDeviceAttributeReservedSharedMemPerBlock, 111),
    (A::hipDeviceAttributeMaxSharedMemoryPerBlock, 8),
    (A::hipDeviceAttributeSharedMemPerBlockOptin, 97),
    (A::hipDeviceAttributeSharedMemPerMultiprocessor, 81),
    (A::hipDeviceAttributeSingleToDoublePrecisionPerfRatio, 87),
    (A::hipDeviceAttributeStreamPrioritiesSupported, 78),
    (A::hipDeviceAttributeSurfaceAlignment, 30),
    (A::hipDeviceAttributeTccDriver, 35),
    (A::hipDeviceAttributeTextureAlignment, 14),
    (A::hipDeviceAttributeTexturePitchAlignment, 51),
    (A::hipDeviceAttributeTotalConstantMemory, 9),
    (A::hipDeviceAttributeUnifiedAddressing, 41),
    (A::hipDeviceAttributeWarpSize, 10),
    (A::hipDeviceAttributeMemoryPoolsSupported, 115),
    (A::hipDeviceAttributeMaxSharedMemoryPerMultiprocessor, 81),
];

/// Where `attribute` comes from on NVIDIA.
pub(crate) fn source(attribute: A) -> Source {
    if attribute == A::hipDeviceAttributeTotalGlobalMem {
        return Source::TotalGlobalMem;
    }
    TO_CUDA.iter().find(|(a, _)| *a == attribute).map_or(Source::NotSupported, |(_, c)| Source::Cuda(*c))
}

/// A byte count as HIP's `int` attribute: clamped to `i32::MAX`.
pub(crate) fn clamp_to_int(bytes: usize) -> c_int {
    c_int::try_from(bytes).unwrap_or(c_int::MAX)
}

pub(super) unsafe extern "C" fn hipDeviceGetAttribute(pi: *mut c_int, attr: A, device: c_int) -> hipError_t {
    entry(|f| {
        non_null(pi)?;
        match source(attr) {
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
            Source::NotSupported => {
                // A bad device is still hipErrorInvalidDevice.
                let mut count: c_int = 0;
                // SAFETY: `count` is a valid out-pointer.
                rt(unsafe { (f.rt.cudaGetDeviceCount)(&mut count) })?;
                if device < 0 || device >= count {
                    return Err(hipError_t::hipErrorInvalidDevice);
                }
                Err(hipError_t::hipErrorNotSupported)
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
            assert_eq!(source(hip), Source::Cuda(cuda), "{hip:?}");
        }
    }

    #[test]
    fn unmapped_attributes_are_not_supported() {
        for hip in [
            A::hipDeviceAttributeName,
            A::hipDeviceAttributeUuid,
            A::hipDeviceAttributeLuid,
            A::hipDeviceAttributeMaxTexture2DLayered,
            A::hipDeviceAttributeVirtualMemoryManagementSupported,
            A::hipDeviceAttributeGcnArch,
            A::hipDeviceAttributeIsLargeBar,
            A::hipDeviceAttributeFineGrainSupport,
            A(123_456),
        ] {
            assert_eq!(source(hip), Source::NotSupported, "{hip:?}");
        }
        assert_eq!(source(A::hipDeviceAttributeTotalGlobalMem), Source::TotalGlobalMem);
    }

    #[test]
    fn each_hip_attribute_is_mapped_once() {
        for (i, (a, _)) in TO_CUDA.iter().enumerate() {
            assert!(!TO_CUDA[i + 1..].iter().any(|(b, _)| b == a), "{a:?}");
        }
    }

    #[test]
    fn total_memory_clamps_to_int() {
        assert_eq!(clamp_to_int(1 << 20), 1 << 20);
        assert_eq!(clamp_to_int(141 << 30), c_int::MAX);
    }
}
