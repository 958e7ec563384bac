//! CUDA structs and enums whose layout or numbering differs from HIP's,
//! and their translations.
//!
//! Stream flags, event flags, `hipMemcpyKind` (but for HIP 6's
//! `hipMemcpyDeviceToDeviceNoCU`), `hipMemPoolAttr`, the memory-allocation
//! and location types and the handle types have CUDA's numbers and pass
//! through unchanged.

use std::ffi::{c_int, c_long, c_uint, c_void};

use crate::bindings::hip::{
    hipMemAccessDesc, hipMemAccessFlags, hipMemAllocationHandleType, hipMemAllocationProp,
    hipMemAllocationProp__bindgen_ty_1, hipMemAllocationType, hipMemLocation, hipMemLocationType, hipMemPoolProps,
    hipMemcpyKind, hipMemoryType,
};

/// `struct cudaPointerAttributes` as CUDA 13 declares it (`driver_types.h`):
/// 88 bytes, ending in `long reserved[8]`.
///
/// CUDA 12's struct is the first 24 bytes of this one (it has no
/// `reserved`), and the runtime writes only the fields its own version
/// declares, so the larger struct is right for both. The smaller one is
/// not: CUDA 13 writes 88 bytes into it, past the caller's stack slot.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub(crate) struct CudaPointerAttributes {
    /// `enum cudaMemoryType type`.
    pub(crate) type_: c_int,
    /// `int device`.
    pub(crate) device: c_int,
    /// `void *devicePointer`.
    pub(crate) device_pointer: *mut c_void,
    /// `void *hostPointer`.
    pub(crate) host_pointer: *mut c_void,
    /// `long reserved[8]` (CUDA 13), must be zero.
    pub(crate) reserved: [c_long; 8],
}

impl Default for CudaPointerAttributes {
    fn default() -> Self {
        Self {
            type_: 0,
            device: 0,
            device_pointer: std::ptr::null_mut(),
            host_pointer: std::ptr::null_mut(),
            reserved: [0; 8],
        }
    }
}

/// `struct cudaMemLocation` (`driver_types.h`).
#[repr(C)]
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct CudaMemLocation {
    /// `enum cudaMemLocationType type`.
    pub(crate) type_: c_int,
    /// `int id`.
    pub(crate) id: c_int,
}

/// `struct cudaMemPoolProps` (CUDA 12 and 13, `driver_types.h`): 88 bytes.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct CudaMemPoolProps {
    /// `enum cudaMemAllocationType allocType`.
    pub(crate) alloc_type: c_int,
    /// `enum cudaMemAllocationHandleType handleTypes`.
    pub(crate) handle_types: c_int,
    /// `struct cudaMemLocation location`.
    pub(crate) location: CudaMemLocation,
    /// `void *win32SecurityAttributes`.
    pub(crate) win32_security_attributes: *mut c_void,
    /// `size_t maxSize` (0: a system-dependent default).
    pub(crate) max_size: usize,
    /// `unsigned short usage`.
    pub(crate) usage: u16,
    /// `unsigned char reserved[54]`, must be zero.
    pub(crate) reserved: [u8; 54],
}

// The layouts, checked where they are declared; `abi.rs` checks the same
// numbers against what CUDA 12.9's and 13.0's headers print.
const _: () = {
    assert!(std::mem::size_of::<CudaMemPoolProps>() == 88);
    assert!(std::mem::offset_of!(CudaMemPoolProps, location) == 8);
    assert!(std::mem::offset_of!(CudaMemPoolProps, win32_security_attributes) == 16);
    assert!(std::mem::offset_of!(CudaMemPoolProps, max_size) == 24);
    assert!(std::mem::offset_of!(CudaMemPoolProps, usage) == 32);
    assert!(std::mem::offset_of!(CudaMemPoolProps, reserved) == 34);
    assert!(std::mem::size_of::<CudaMemLocation>() == 8);
    assert!(std::mem::size_of::<CuMemAllocationProp>() == 32);
    assert!(std::mem::offset_of!(CuMemAllocationProp, location) == 8);
    assert!(std::mem::offset_of!(CuMemAllocationProp, win32_handle_meta_data) == 16);
    assert!(std::mem::offset_of!(CuMemAllocationProp, compression_type) == 24);
    assert!(std::mem::size_of::<CuMemAccessDesc>() == 12);
    assert!(std::mem::size_of::<CudaPointerAttributes>() == 88);
    assert!(std::mem::offset_of!(CudaPointerAttributes, device) == 4);
    assert!(std::mem::offset_of!(CudaPointerAttributes, device_pointer) == 8);
    assert!(std::mem::offset_of!(CudaPointerAttributes, host_pointer) == 16);
    assert!(std::mem::offset_of!(CudaPointerAttributes, reserved) == 24);
};

/// `hipMemPoolProps` (HIP 5.7) as `cudaMemPoolProps`: the allocation type,
/// handle types, location and Windows security attributes are copied (the
/// enums share CUDA's numbers); `maxSize`, `usage` and the reserved bytes,
/// which HIP 5.7 does not have, are zero.
pub(crate) fn pool_props_to_cuda(props: &hipMemPoolProps) -> CudaMemPoolProps {
    CudaMemPoolProps {
        alloc_type: props.allocType.0 as c_int,
        handle_types: props.handleTypes.0 as c_int,
        location: CudaMemLocation { type_: props.location.type_.0 as c_int, id: props.location.id },
        win32_security_attributes: props.win32SecurityAttributes,
        max_size: 0,
        usage: 0,
        reserved: [0; 54],
    }
}

/// `CUmemAllocationProp` (`cuda.h`, CUDA 12 and 13): 32 bytes, HIP's
/// `hipMemAllocationProp` with CUDA's `reserved[4]` where HIP has padding.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub(crate) struct CuMemAllocationProp {
    /// `CUmemAllocationType type`.
    pub(crate) type_: c_int,
    /// `CUmemAllocationHandleType requestedHandleTypes`.
    pub(crate) requested_handle_types: c_int,
    /// `CUmemLocation location`.
    pub(crate) location: CudaMemLocation,
    /// `void *win32HandleMetaData`.
    pub(crate) win32_handle_meta_data: *mut c_void,
    /// `allocFlags.compressionType`.
    pub(crate) compression_type: u8,
    /// `allocFlags.gpuDirectRDMACapable`.
    pub(crate) gpu_direct_rdma_capable: u8,
    /// `allocFlags.usage`.
    pub(crate) usage: u16,
    /// `allocFlags.reserved[4]`, must be zero.
    pub(crate) reserved: [u8; 4],
}

impl Default for CuMemAllocationProp {
    fn default() -> Self {
        CuMemAllocationProp {
            type_: 0,
            requested_handle_types: 0,
            location: CudaMemLocation { type_: 0, id: 0 },
            win32_handle_meta_data: std::ptr::null_mut(),
            compression_type: 0,
            gpu_direct_rdma_capable: 0,
            usage: 0,
            reserved: [0; 4],
        }
    }
}

impl CuMemAllocationProp {
    /// HIP's properties (the same numbers: allocation, location and handle
    /// types pass through).
    pub(crate) fn from_hip(prop: &hipMemAllocationProp) -> Self {
        CuMemAllocationProp {
            type_: prop.type_.0 as c_int,
            requested_handle_types: prop.requestedHandleType.0 as c_int,
            location: CudaMemLocation { type_: prop.location.type_.0 as c_int, id: prop.location.id },
            win32_handle_meta_data: prop.win32HandleMetaData,
            compression_type: prop.allocFlags.compressionType,
            gpu_direct_rdma_capable: prop.allocFlags.gpuDirectRDMACapable,
            usage: prop.allocFlags.usage,
            reserved: [0; 4],
        }
    }

    /// These properties as HIP's.
    pub(crate) fn to_hip(self) -> hipMemAllocationProp {
        hipMemAllocationProp {
            type_: hipMemAllocationType(self.type_ as c_uint),
            requestedHandleType: hipMemAllocationHandleType(self.requested_handle_types as c_uint),
            location: hipMemLocation { type_: hipMemLocationType(self.location.type_ as c_uint), id: self.location.id },
            win32HandleMetaData: self.win32_handle_meta_data,
            allocFlags: hipMemAllocationProp__bindgen_ty_1 {
                compressionType: self.compression_type,
                gpuDirectRDMACapable: self.gpu_direct_rdma_capable,
                usage: self.usage,
            },
        }
    }
}

/// `CUmemAccessDesc` (`cuda.h`): 12 bytes, HIP's `hipMemAccessDesc`.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub(crate) struct CuMemAccessDesc {
    /// `CUmemLocation location`.
    pub(crate) location: CudaMemLocation,
    /// `CUmemAccess_flags flags`.
    pub(crate) flags: c_int,
}

impl CuMemAccessDesc {
    /// HIP's descriptor (the same numbers).
    pub(crate) fn from_hip(desc: &hipMemAccessDesc) -> Self {
        let hipMemAccessFlags(flags) = desc.flags;
        CuMemAccessDesc {
            location: CudaMemLocation { type_: desc.location.type_.0 as c_int, id: desc.location.id },
            flags: flags as c_int,
        }
    }
}

/// A `cudaMemoryType` as the `hipMemoryType` of the 5.7 bindings.
///
/// CUDA: Unregistered = 0, Host = 1, Device = 2, Managed = 3. HIP 5.7:
/// Host = 0, Device = 1, Array = 2, Unified = 3, Managed = 4. `None` for
/// Unregistered (plain host memory) and for values CUDA does not define:
/// HIP on NVIDIA reports both as `hipErrorInvalidValue`.
pub(crate) fn memory_type_from_cuda(cuda: c_int) -> Option<hipMemoryType> {
    match cuda {
        1 => Some(hipMemoryType::hipMemoryTypeHost),
        2 => Some(hipMemoryType::hipMemoryTypeDevice),
        3 => Some(hipMemoryType::hipMemoryTypeManaged),
        _ => None,
    }
}

/// `hipMemcpyDeviceToDeviceNoCU` (HIP 6): NVIDIA's header defines it as
/// `cudaMemcpyDeviceToDevice`.
const DEVICE_TO_DEVICE_NO_CU: c_uint = 1024;

/// A `hipMemcpyKind` as a `cudaMemcpyKind` (same numbers, except HIP 6's
/// `hipMemcpyDeviceToDeviceNoCU`, which is CUDA's DeviceToDevice).
pub(crate) fn memcpy_kind_to_cuda(kind: hipMemcpyKind) -> c_int {
    match kind.0 {
        DEVICE_TO_DEVICE_NO_CU => hipMemcpyKind::hipMemcpyDeviceToDevice.0 as c_int,
        // Larger values are invalid either way; keep them invalid.
        k => c_int::try_from(k).unwrap_or(c_int::MAX),
    }
}

/// The host-allocation flags HIP defines for AMD only (`Coherent`,
/// `NonCoherent`, `NumaUser`), which HIP's NVIDIA header defines as 0.
const AMD_ONLY_HOST_MALLOC_FLAGS: c_uint = 0x4000_0000 | 0x8000_0000 | 0x2000_0000;

/// `hipHostMalloc` flags as `cudaHostAlloc` flags: Portable (1), Mapped (2)
/// and WriteCombined (4) are CUDA's; the AMD-only bits are dropped.
pub(crate) fn host_malloc_flags_to_cuda(flags: c_uint) -> c_uint {
    flags & !AMD_ONLY_HOST_MALLOC_FLAGS
}

/// A CUDA version number for messages: `"13.0 (13000)"`.
pub(crate) fn version_string(encoded: c_int) -> String {
    match crate::backend::versions::decode_cuda_version(encoded) {
        Some((major, minor)) if encoded > 0 => format!("{major}.{minor} ({encoded})"),
        _ => format!("unknown ({encoded})"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bindings::hip::{hipMemAllocationHandleType, hipMemAllocationType, hipMemLocation, hipMemLocationType};

    #[test]
    fn memory_types_translate_from_cuda_numbering() {
        assert_eq!(memory_type_from_cuda(0), None, "unregistered");
        assert_eq!(memory_type_from_cuda(1), Some(hipMemoryType::hipMemoryTypeHost));
        assert_eq!(memory_type_from_cuda(2), Some(hipMemoryType::hipMemoryTypeDevice));
        assert_eq!(memory_type_from_cuda(3), Some(hipMemoryType::hipMemoryTypeManaged));
        assert_eq!(memory_type_from_cuda(4), None);
        assert_eq!(memory_type_from_cuda(-1), None);
    }

    #[test]
    fn pool_props_copy_field_by_field_and_zero_the_rest() {
        let mut hip = hipMemPoolProps {
            allocType: hipMemAllocationType::hipMemAllocationTypePinned,
            handleTypes: hipMemAllocationHandleType::hipMemHandleTypePosixFileDescriptor,
            location: hipMemLocation { type_: hipMemLocationType::hipMemLocationTypeDevice, id: 3 },
            ..hipMemPoolProps::default()
        };
        hip.reserved = [0xAB; 64];
        let cuda = pool_props_to_cuda(&hip);
        assert_eq!(cuda.alloc_type, 1);
        assert_eq!(cuda.handle_types, 1);
        assert_eq!(cuda.location, CudaMemLocation { type_: 1, id: 3 });
        assert!(cuda.win32_security_attributes.is_null());
        assert_eq!(cuda.max_size, 0);
        assert_eq!(cuda.usage, 0);
        assert_eq!(cuda.reserved, [0; 54]);
    }

    #[test]
    fn memcpy_kinds_pass_through() {
        for k in 0..=4 {
            assert_eq!(memcpy_kind_to_cuda(hipMemcpyKind(k)), k as c_int);
        }
        assert_eq!(memcpy_kind_to_cuda(hipMemcpyKind(1024)), 3);
    }

    #[test]
    fn host_malloc_flags_keep_cuda_bits() {
        assert_eq!(host_malloc_flags_to_cuda(0), 0);
        assert_eq!(host_malloc_flags_to_cuda(1 | 2 | 4), 7);
        assert_eq!(host_malloc_flags_to_cuda(0x4000_0000 | 2), 2);
        assert_eq!(host_malloc_flags_to_cuda(0x8000_0000), 0);
    }

    #[test]
    fn cuda_versions_decode() {
        use crate::backend::versions::decode_cuda_version;
        assert_eq!(decode_cuda_version(13000), Some((13, 0)));
        assert_eq!(decode_cuda_version(12040), Some((12, 4)));
        assert_eq!(decode_cuda_version(12090), Some((12, 9)));
        assert_eq!(decode_cuda_version(-1), None);
        assert_eq!(version_string(13000), "13.0 (13000)");
        assert_eq!(version_string(0), "unknown (0)");
    }
}

/// `struct cudaGraphExecUpdateResultInfo` (CUDA 12 and 13, `driver_types.h`):
/// the result, then the error node and the edge's other end.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub(crate) struct CudaGraphExecUpdateResultInfo {
    /// `enum cudaGraphExecUpdateResult`: the same values as HIP's
    /// `hipGraphExecUpdateResult` (0 to 7; CUDA 12 adds 8,
    /// AttributesChanged, which HIP lacks).
    pub(crate) result: std::ffi::c_int,
    /// `cudaGraphNode_t errorNode`.
    pub(crate) error_node: *mut std::ffi::c_void,
    /// `cudaGraphNode_t errorFromNode`.
    pub(crate) error_from_node: *mut std::ffi::c_void,
}

impl Default for CudaGraphExecUpdateResultInfo {
    fn default() -> Self {
        CudaGraphExecUpdateResultInfo {
            result: 0,
            error_node: std::ptr::null_mut(),
            error_from_node: std::ptr::null_mut(),
        }
    }
}
