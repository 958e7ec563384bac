//! DLPack, the in-memory tensor structure frameworks exchange arrays
//! through without a copy (PyTorch, CuPy, JAX, NumPy's array API): the
//! versioned structures of `dlpack.h`, version 1.1, declared by hand
//! (a header of structs and constants, no functions).
//!
//! The facts this project relies on, from the header:
//!
//! - A producer hands over a `DLManagedTensorVersioned*`; the consumer
//!   owns it from then on and calls its `deleter` (if not null) exactly
//!   once, when it no longer uses the memory. `version`, `manager_ctx` and
//!   `deleter` come first and stay where they are in every version, so a
//!   consumer can free a tensor of a major version it does not read.
//! - A consumer reads only tensors of its own major version (1).
//! - `shape` and `strides` count elements, not bytes; `strides` may be
//!   null for a compact row-major tensor; `byte_offset` is added to
//!   `data`, and a tensor of no elements may have a null `data`.
//! - `flags`: bit 0 read-only (the consumer must not write), bit 1 the
//!   producer copied the data, bit 2 sub-byte types padded.
//! - Before 1.0, `DLManagedTensor` (tensor, context, deleter; no version,
//!   no flags) in a capsule named `dltensor`: what a consumer that asks
//!   for no version gets.
//! - Device types: `kDLCUDA` (2) for CUDA memory, `kDLROCM` (10) for
//!   ROCm's; `device_id` is the runtime's device ordinal.
//!
//! Reference: <https://dmlc.github.io/dlpack/latest/c_api.html>.

#![allow(non_upper_case_globals)]

use core::ffi::c_void;

/// `DLPACK_MAJOR_VERSION`.
pub const DLPACK_MAJOR_VERSION: u32 = 1;
/// `DLPACK_MINOR_VERSION`.
pub const DLPACK_MINOR_VERSION: u32 = 1;
/// `DLPACK_FLAG_BITMASK_READ_ONLY`: the consumer must not write.
pub const DLPACK_FLAG_BITMASK_READ_ONLY: u64 = 1 << 0;
/// `DLPACK_FLAG_BITMASK_IS_COPIED`: the producer copied the data.
pub const DLPACK_FLAG_BITMASK_IS_COPIED: u64 = 1 << 1;
/// `DLPACK_FLAG_BITMASK_IS_SUBBYTE_TYPE_PADDED`.
pub const DLPACK_FLAG_BITMASK_IS_SUBBYTE_TYPE_PADDED: u64 = 1 << 2;

/// `DLPackVersion`.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DLPackVersion {
    /// The major version; a consumer reads only its own.
    pub major: u32,
    /// The minor version.
    pub minor: u32,
}

/// `DLDeviceType` (an `int32_t` enum).
#[repr(transparent)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct DLDeviceType(pub i32);

impl DLDeviceType {
    /// `kDLCPU`.
    pub const kDLCPU: Self = Self(1);
    /// `kDLCUDA`: CUDA device memory.
    pub const kDLCUDA: Self = Self(2);
    /// `kDLCUDAHost`: pinned host memory of CUDA.
    pub const kDLCUDAHost: Self = Self(3);
    /// `kDLROCM`: ROCm device memory.
    pub const kDLROCM: Self = Self(10);
    /// `kDLROCMHost`: pinned host memory of ROCm.
    pub const kDLROCMHost: Self = Self(11);
    /// `kDLCUDAManaged`: CUDA managed memory.
    pub const kDLCUDAManaged: Self = Self(13);
}

/// `DLDevice`.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DLDevice {
    /// The kind of memory.
    pub device_type: DLDeviceType,
    /// The device's ordinal in its runtime.
    pub device_id: i32,
}

/// `DLDataTypeCode` (stored in `DLDataType::code`, a `uint8_t`).
#[repr(transparent)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct DLDataTypeCode(pub u8);

impl DLDataTypeCode {
    /// `kDLInt`: signed integers.
    pub const kDLInt: Self = Self(0);
    /// `kDLUInt`: unsigned integers.
    pub const kDLUInt: Self = Self(1);
    /// `kDLFloat`: IEEE floating point.
    pub const kDLFloat: Self = Self(2);
    /// `kDLOpaqueHandle`.
    pub const kDLOpaqueHandle: Self = Self(3);
    /// `kDLBfloat`: bfloat16.
    pub const kDLBfloat: Self = Self(4);
    /// `kDLComplex`: complex numbers, `bits` for both parts together.
    pub const kDLComplex: Self = Self(5);
    /// `kDLBool`: booleans (8 bits).
    pub const kDLBool: Self = Self(6);
}

/// `DLDataType`.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct DLDataType {
    /// A `DLDataTypeCode`.
    pub code: u8,
    /// Bits of one lane.
    pub bits: u8,
    /// Lanes (1 for scalars).
    pub lanes: u16,
}

/// `DLTensor`.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct DLTensor {
    /// The allocation the tensor is in (null for no elements).
    pub data: *mut c_void,
    /// Where the memory is.
    pub device: DLDevice,
    /// The number of dimensions.
    pub ndim: i32,
    /// The element type.
    pub dtype: DLDataType,
    /// `ndim` extents.
    pub shape: *mut i64,
    /// `ndim` strides in elements, or null for compact row-major.
    pub strides: *mut i64,
    /// Bytes from `data` to the first element.
    pub byte_offset: u64,
}

/// `DLManagedTensorVersioned`.
#[repr(C)]
#[derive(Debug)]
pub struct DLManagedTensorVersioned {
    /// The version of the producer's DLPack.
    pub version: DLPackVersion,
    /// The producer's context, for its deleter.
    pub manager_ctx: *mut c_void,
    /// Frees the tensor (and `self`); called once by the consumer, or null.
    pub deleter: Option<unsafe extern "C" fn(this: *mut DLManagedTensorVersioned)>,
    /// `DLPACK_FLAG_BITMASK_*`.
    pub flags: u64,
    /// The tensor.
    pub dl_tensor: DLTensor,
}

/// `DLManagedTensor`: the unversioned tensor of DLPack before 1.0, which
/// consumers that ask for no version (`__dlpack__()` without
/// `max_version`, JAX's `from_dlpack`) take, in a capsule named
/// `dltensor`. It has no version and no flags: it cannot say read-only.
#[repr(C)]
#[derive(Debug)]
pub struct DLManagedTensor {
    /// The tensor.
    pub dl_tensor: DLTensor,
    /// The producer's context, for its deleter.
    pub manager_ctx: *mut c_void,
    /// Frees the tensor (and `self`); called once by the consumer, or null.
    pub deleter: Option<unsafe extern "C" fn(this: *mut DLManagedTensor)>,
}

#[cfg(test)]
mod tests {
    use super::*;
    use core::mem::{offset_of, size_of};

    /// The layout `dlpack.h` gives these structs on 64-bit platforms.
    #[test]
    fn the_layouts_are_dlpacks() {
        assert_eq!((size_of::<DLDevice>(), size_of::<DLDataType>()), (8, 4));
        assert_eq!(size_of::<DLTensor>(), 48);
        assert_eq!(
            [offset_of!(DLTensor, device), offset_of!(DLTensor, ndim), offset_of!(DLTensor, dtype)],
            [8, 16, 20]
        );
        assert_eq!(
            [offset_of!(DLTensor, shape), offset_of!(DLTensor, strides), offset_of!(DLTensor, byte_offset)],
            [24, 32, 40]
        );
        assert_eq!(size_of::<DLManagedTensorVersioned>(), 80);
        assert_eq!(size_of::<DLManagedTensor>(), 64);
        assert_eq!([offset_of!(DLManagedTensor, manager_ctx), offset_of!(DLManagedTensor, deleter)], [48, 56]);
        assert_eq!(
            [
                offset_of!(DLManagedTensorVersioned, manager_ctx),
                offset_of!(DLManagedTensorVersioned, deleter),
                offset_of!(DLManagedTensorVersioned, flags),
                offset_of!(DLManagedTensorVersioned, dl_tensor)
            ],
            [8, 16, 24, 32]
        );
    }
}
