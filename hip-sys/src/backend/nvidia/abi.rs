//! The backend's CUDA declarations against CUDA's own headers.
//!
//! `hip-sys/abi/cuda_probe.c` prints, from a CUDA version's headers, the
//! size and field offsets of every struct this backend declares and the
//! number of every enum value and device attribute it passes to CUDA. Its
//! output for CUDA 12.9 and 13.0 is committed beside it; these tests read
//! both and fail on any difference from the Rust declarations, so a layout
//! that is right for one version and wrong for the other (CUDA 13's
//! 88-byte `cudaPointerAttributes`) cannot pass unnoticed. A new CUDA
//! version is added by running the probe against its headers and adding
//! its file to [`VERSIONS`].

use std::collections::HashMap;
use std::ffi::c_int;
use std::mem::{offset_of, size_of};

use super::attributes::{source, Source, REMOVED_IN_CUDA_13, TO_CUDA, TO_DRIVER};
use super::types::{CuMemAccessDesc, CuMemAllocationProp, CudaMemLocation, CudaMemPoolProps, CudaPointerAttributes};
use super::{CuDevice, CuDevicePtr, CuResult, CudaError};
use crate::bindings::hip::{
    hipMemAccessDesc, hipMemAccessFlags, hipMemAllocationGranularity_flags, hipMemAllocationHandleType,
    hipMemAllocationProp, hipMemAllocationType, hipMemLocationType, hipMemPoolAttr, hipMemRangeAttribute,
    hipMemoryAdvise,
};

/// Each probed CUDA version: its `CUDA_VERSION` and the probe's output.
const VERSIONS: &[(i64, &str)] =
    &[(12090, include_str!("../../../abi/cuda-12.9.txt")), (13000, include_str!("../../../abi/cuda-13.0.txt"))];

/// The probe's `name value` lines.
fn facts(text: &str) -> HashMap<&str, i64> {
    text.lines()
        .filter_map(|line| {
            let (name, value) = line.rsplit_once(' ')?;
            Some((name, value.parse().ok()?))
        })
        .collect()
}

/// Every version's facts, with the version checked against its file.
fn each_version() -> impl Iterator<Item = (i64, HashMap<&'static str, i64>)> {
    VERSIONS.iter().map(|(version, text)| {
        let f = facts(text);
        assert_eq!(f.get("CUDA_VERSION"), Some(version), "the probe file for {version} is of another version");
        (*version, f)
    })
}

/// The fact `name` of `version`, which must be there.
fn fact(f: &HashMap<&str, i64>, version: i64, name: &str) -> i64 {
    *f.get(name).unwrap_or_else(|| panic!("CUDA {version}: the probe printed no `{name}`"))
}

fn as_i64(n: usize) -> i64 {
    i64::try_from(n).unwrap_or(i64::MAX)
}

#[test]
fn struct_layouts_match_every_cuda_version() {
    for (v, f) in each_version() {
        let pa = "struct cudaPointerAttributes";
        // Ours may be larger than an older version's (the runtime writes
        // only its own fields), never smaller, and the shared fields sit
        // at the same offsets.
        assert!(as_i64(size_of::<CudaPointerAttributes>()) >= fact(&f, v, &format!("sizeof({pa})")), "CUDA {v}");
        for (field, ours) in [
            ("type", offset_of!(CudaPointerAttributes, type_)),
            ("device", offset_of!(CudaPointerAttributes, device)),
            ("devicePointer", offset_of!(CudaPointerAttributes, device_pointer)),
            ("hostPointer", offset_of!(CudaPointerAttributes, host_pointer)),
        ] {
            assert_eq!(as_i64(ours), fact(&f, v, &format!("offsetof({pa}.{field})")), "CUDA {v}: {pa}.{field}");
        }

        // The pool properties are read by CUDA, so the size must be exact.
        let pp = "struct cudaMemPoolProps";
        assert_eq!(as_i64(size_of::<CudaMemPoolProps>()), fact(&f, v, &format!("sizeof({pp})")), "CUDA {v}");
        for (field, ours) in [
            ("allocType", offset_of!(CudaMemPoolProps, alloc_type)),
            ("handleTypes", offset_of!(CudaMemPoolProps, handle_types)),
            ("location", offset_of!(CudaMemPoolProps, location)),
            ("win32SecurityAttributes", offset_of!(CudaMemPoolProps, win32_security_attributes)),
            ("maxSize", offset_of!(CudaMemPoolProps, max_size)),
            ("usage", offset_of!(CudaMemPoolProps, usage)),
            ("reserved", offset_of!(CudaMemPoolProps, reserved)),
        ] {
            assert_eq!(as_i64(ours), fact(&f, v, &format!("offsetof({pp}.{field})")), "CUDA {v}: {pp}.{field}");
        }

        let ml = "struct cudaMemLocation";
        assert_eq!(as_i64(size_of::<CudaMemLocation>()), fact(&f, v, &format!("sizeof({ml})")), "CUDA {v}");
        assert_eq!(as_i64(offset_of!(CudaMemLocation, type_)), fact(&f, v, &format!("offsetof({ml}.type)")));
        assert_eq!(as_i64(offset_of!(CudaMemLocation, id)), fact(&f, v, &format!("offsetof({ml}.id)")));

        // CUDA's allocation properties: ours, and HIP's at the same offsets
        // (HIP's padding where CUDA has `reserved`).
        let ap = "CUmemAllocationProp";
        assert_eq!(as_i64(size_of::<CuMemAllocationProp>()), fact(&f, v, &format!("sizeof({ap})")), "CUDA {v}");
        assert_eq!(as_i64(size_of::<hipMemAllocationProp>()), fact(&f, v, &format!("sizeof({ap})")), "HIP's");
        for (field, ours, hips) in [
            ("type", offset_of!(CuMemAllocationProp, type_), offset_of!(hipMemAllocationProp, type_)),
            (
                "requestedHandleTypes",
                offset_of!(CuMemAllocationProp, requested_handle_types),
                offset_of!(hipMemAllocationProp, requestedHandleType),
            ),
            ("location", offset_of!(CuMemAllocationProp, location), offset_of!(hipMemAllocationProp, location)),
            (
                "win32HandleMetaData",
                offset_of!(CuMemAllocationProp, win32_handle_meta_data),
                offset_of!(hipMemAllocationProp, win32HandleMetaData),
            ),
            (
                "allocFlags.compressionType",
                offset_of!(CuMemAllocationProp, compression_type),
                offset_of!(hipMemAllocationProp, allocFlags),
            ),
            (
                "allocFlags.usage",
                offset_of!(CuMemAllocationProp, usage),
                offset_of!(hipMemAllocationProp, allocFlags) + 2,
            ),
            ("allocFlags.reserved", offset_of!(CuMemAllocationProp, reserved), 28),
        ] {
            let theirs = fact(&f, v, &format!("offsetof({ap}.{field})"));
            assert_eq!((as_i64(ours), as_i64(hips)), (theirs, theirs), "CUDA {v}: {ap}.{field}");
        }
        // An access descriptor: ours is CUDA's, and HIP's is CUDA's.
        let ad = "CUmemAccessDesc";
        for size in [size_of::<CuMemAccessDesc>(), size_of::<hipMemAccessDesc>()] {
            assert_eq!(as_i64(size), fact(&f, v, &format!("sizeof({ad})")), "CUDA {v}");
        }
        assert_eq!(as_i64(offset_of!(CuMemAccessDesc, flags)), fact(&f, v, &format!("offsetof({ad}.flags)")));
        assert_eq!(as_i64(offset_of!(hipMemAccessDesc, flags)), fact(&f, v, &format!("offsetof({ad}.flags)")));
        assert_eq!(fact(&f, v, "sizeof(CUmemGenericAllocationHandle)"), 8, "HIP's handle is a pointer");
    }
}

#[test]
fn scalar_types_match_every_cuda_version() {
    for (v, f) in each_version() {
        assert_eq!(as_i64(size_of::<CuDevice>()), fact(&f, v, "sizeof(CUdevice)"), "CUDA {v}");
        assert_eq!(as_i64(size_of::<CuDevicePtr>()), fact(&f, v, "sizeof(CUdeviceptr)"), "CUDA {v}");
        assert_eq!(as_i64(size_of::<CuResult>()), fact(&f, v, "sizeof(CUresult)"), "CUDA {v}");
        assert_eq!(as_i64(size_of::<CudaError>()), fact(&f, v, "sizeof(cudaError_t)"), "CUDA {v}");
        assert_eq!(as_i64(size_of::<std::ffi::c_int>()), fact(&f, v, "sizeof(enum cudaDeviceAttr)"), "CUDA {v}");
    }
}

#[test]
fn pass_through_values_match_every_cuda_version() {
    let pairs: &[(&str, i64)] = &[
        ("cudaMemoryTypeUnregistered", 0),
        ("cudaMemoryTypeHost", 1),
        ("cudaMemoryTypeDevice", 2),
        ("cudaMemoryTypeManaged", 3),
        ("cudaMemcpyHostToHost", 0),
        ("cudaMemcpyHostToDevice", 1),
        ("cudaMemcpyDeviceToHost", 2),
        ("cudaMemcpyDeviceToDevice", 3),
        ("cudaMemcpyDefault", 4),
        ("cudaStreamDefault", i64::from(crate::bindings::hip::hipStreamDefault)),
        ("cudaStreamNonBlocking", i64::from(crate::bindings::hip::hipStreamNonBlocking)),
        ("cudaEventDefault", i64::from(crate::bindings::hip::hipEventDefault)),
        ("cudaEventBlockingSync", i64::from(crate::bindings::hip::hipEventBlockingSync)),
        ("cudaEventDisableTiming", i64::from(crate::bindings::hip::hipEventDisableTiming)),
        ("cudaEventInterprocess", i64::from(crate::bindings::hip::hipEventInterprocess)),
        ("cudaHostAllocDefault", i64::from(crate::bindings::hip::hipHostMallocDefault)),
        // hipHostMallocPortable, Mapped and WriteCombined (hip_runtime_api.h;
        // not in the generated bindings), which `host_malloc_flags_to_cuda`
        // passes through.
        ("cudaHostAllocPortable", 1),
        ("cudaHostAllocMapped", 2),
        ("cudaHostAllocWriteCombined", 4),
        ("cudaMemPoolReuseFollowEventDependencies", hipMemPoolAttr::hipMemPoolReuseFollowEventDependencies.0.into()),
        ("cudaMemPoolReuseAllowOpportunistic", hipMemPoolAttr::hipMemPoolReuseAllowOpportunistic.0.into()),
        (
            "cudaMemPoolReuseAllowInternalDependencies",
            hipMemPoolAttr::hipMemPoolReuseAllowInternalDependencies.0.into(),
        ),
        ("cudaMemPoolAttrReleaseThreshold", hipMemPoolAttr::hipMemPoolAttrReleaseThreshold.0.into()),
        ("cudaMemPoolAttrReservedMemCurrent", hipMemPoolAttr::hipMemPoolAttrReservedMemCurrent.0.into()),
        ("cudaMemPoolAttrReservedMemHigh", hipMemPoolAttr::hipMemPoolAttrReservedMemHigh.0.into()),
        ("cudaMemPoolAttrUsedMemCurrent", hipMemPoolAttr::hipMemPoolAttrUsedMemCurrent.0.into()),
        ("cudaMemPoolAttrUsedMemHigh", hipMemPoolAttr::hipMemPoolAttrUsedMemHigh.0.into()),
        ("cudaMemAllocationTypeInvalid", hipMemAllocationType::hipMemAllocationTypeInvalid.0.into()),
        ("cudaMemAllocationTypePinned", hipMemAllocationType::hipMemAllocationTypePinned.0.into()),
        ("cudaMemHandleTypeNone", hipMemAllocationHandleType::hipMemHandleTypeNone.0.into()),
        (
            "cudaMemHandleTypePosixFileDescriptor",
            hipMemAllocationHandleType::hipMemHandleTypePosixFileDescriptor.0.into(),
        ),
        ("cudaMemHandleTypeWin32", hipMemAllocationHandleType::hipMemHandleTypeWin32.0.into()),
        ("cudaMemHandleTypeWin32Kmt", hipMemAllocationHandleType::hipMemHandleTypeWin32Kmt.0.into()),
        ("cudaMemLocationTypeInvalid", hipMemLocationType::hipMemLocationTypeInvalid.0.into()),
        ("cudaMemLocationTypeDevice", hipMemLocationType::hipMemLocationTypeDevice.0.into()),
        ("cudaHostRegisterDefault", i64::from(crate::bindings::hip::hipHostRegisterDefault)),
        ("cudaHostRegisterPortable", i64::from(crate::bindings::hip::hipHostRegisterPortable)),
        // hipHostRegisterMapped, IoMemory and ReadOnly (hip_runtime_api.h;
        // not in the generated bindings), passed through by hipHostRegister.
        ("cudaHostRegisterMapped", 2),
        ("cudaHostRegisterIoMemory", 4),
        ("cudaHostRegisterReadOnly", 8),
        ("sizeof(cudaHostFn_t)", as_i64(size_of::<crate::bindings::hip::hipHostFn_t>())),
        // Managed memory's numbers, which `managed.rs` passes through.
        ("cudaMemAttachGlobal", crate::bindings::hip::hipMemAttachGlobal.into()),
        ("cudaMemAttachHost", crate::bindings::hip::hipMemAttachHost.into()),
        ("CU_MEM_LOCATION_TYPE_HOST", 2),
        ("CU_MEM_ADVISE_SET_READ_MOSTLY", hipMemoryAdvise::hipMemAdviseSetReadMostly.0.into()),
        ("CU_MEM_ADVISE_UNSET_READ_MOSTLY", hipMemoryAdvise::hipMemAdviseUnsetReadMostly.0.into()),
        ("CU_MEM_ADVISE_SET_PREFERRED_LOCATION", hipMemoryAdvise::hipMemAdviseSetPreferredLocation.0.into()),
        ("CU_MEM_ADVISE_UNSET_PREFERRED_LOCATION", hipMemoryAdvise::hipMemAdviseUnsetPreferredLocation.0.into()),
        ("CU_MEM_ADVISE_SET_ACCESSED_BY", hipMemoryAdvise::hipMemAdviseSetAccessedBy.0.into()),
        ("CU_MEM_ADVISE_UNSET_ACCESSED_BY", hipMemoryAdvise::hipMemAdviseUnsetAccessedBy.0.into()),
        ("CU_MEM_RANGE_ATTRIBUTE_READ_MOSTLY", hipMemRangeAttribute::hipMemRangeAttributeReadMostly.0.into()),
        (
            "CU_MEM_RANGE_ATTRIBUTE_PREFERRED_LOCATION",
            hipMemRangeAttribute::hipMemRangeAttributePreferredLocation.0.into(),
        ),
        ("CU_MEM_RANGE_ATTRIBUTE_ACCESSED_BY", hipMemRangeAttribute::hipMemRangeAttributeAccessedBy.0.into()),
        (
            "CU_MEM_RANGE_ATTRIBUTE_LAST_PREFETCH_LOCATION",
            hipMemRangeAttribute::hipMemRangeAttributeLastPrefetchLocation.0.into(),
        ),
        // hipCpuDeviceId and hipInvalidDeviceId.
        ("CU_DEVICE_CPU", -1),
        ("cudaInvalidDeviceId", -2),
        // Virtual memory's numbers, which `vmm.rs` passes through.
        ("CU_MEM_ACCESS_FLAGS_PROT_NONE", hipMemAccessFlags::hipMemAccessFlagsProtNone.0.into()),
        ("CU_MEM_ACCESS_FLAGS_PROT_READ", hipMemAccessFlags::hipMemAccessFlagsProtRead.0.into()),
        ("CU_MEM_ACCESS_FLAGS_PROT_READWRITE", hipMemAccessFlags::hipMemAccessFlagsProtReadWrite.0.into()),
        (
            "CU_MEM_ALLOC_GRANULARITY_MINIMUM",
            hipMemAllocationGranularity_flags::hipMemAllocationGranularityMinimum.0.into(),
        ),
        (
            "CU_MEM_ALLOC_GRANULARITY_RECOMMENDED",
            hipMemAllocationGranularity_flags::hipMemAllocationGranularityRecommended.0.into(),
        ),
        ("CU_MEM_ALLOCATION_TYPE_PINNED", hipMemAllocationType::hipMemAllocationTypePinned.0.into()),
        ("CU_MEM_LOCATION_TYPE_DEVICE", hipMemLocationType::hipMemLocationTypeDevice.0.into()),
        ("CU_MEM_HANDLE_TYPE_NONE", hipMemAllocationHandleType::hipMemHandleTypeNone.0.into()),
        (
            "CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR",
            hipMemAllocationHandleType::hipMemHandleTypePosixFileDescriptor.0.into(),
        ),
    ];
    for (v, f) in each_version() {
        for (name, ours) in pairs {
            assert_eq!(fact(&f, v, name), *ours, "CUDA {v}: {name}");
        }
    }
}

#[test]
fn every_mapped_attribute_has_its_number_in_every_cuda_version() {
    for (v, f) in each_version() {
        let runtime = i32::try_from(v).unwrap_or(i32::MAX);
        for (hip, cuda_name, number) in TO_CUDA {
            match (f.get(cuda_name), source(*hip, runtime)) {
                (Some(n), Source::Cuda(c)) => {
                    assert_eq!(*n, i64::from(*number), "CUDA {v}: {cuda_name}");
                    assert_eq!(c, *number, "CUDA {v}: {hip:?}");
                }
                // CUDA removed it, and the backend knows.
                (None, Source::Unmapped) => assert!(REMOVED_IN_CUDA_13.contains(hip), "{hip:?}"),
                (n, s) => panic!("CUDA {v}: {hip:?} ({cuda_name}) is {n:?} in the headers, {s:?} in the backend"),
            }
        }
    }
}

#[test]
fn every_driver_attribute_has_its_number_in_every_cuda_version() {
    for (v, f) in each_version() {
        for (hip, name, number) in TO_DRIVER {
            assert_eq!(fact(&f, v, name), i64::from(*number), "CUDA {v}: {name}");
            assert_eq!(source(*hip, 13000), Source::Driver(*number), "{hip:?}");
        }
    }
}

/// Each probed cuBLAS version: its major version and `cublas_probe.c`'s output.
const CUBLAS_VERSIONS: &[(i64, &str)] =
    &[(12, include_str!("../../../abi/cublas-12.9.txt")), (13, include_str!("../../../abi/cublas-13.0.txt"))];

/// The rocBLAS mapping's numbers against cuBLAS's own headers, in every
/// probed version: operations, data and compute types, math and pointer
/// modes, the default algorithm, statuses and the complex types' sizes.
#[test]
fn the_rocblas_mapping_passes_cublas_numbers_of_every_version() {
    use super::rocblas::{
        compute_type, datatype, operation, to_rocblas, COMPUTE_32F, COMPUTE_32F_FAST_TF32, COMPUTE_64F, DEFAULT_MATH,
        GEMM_DEFAULT, TF32_TENSOR_OP_MATH,
    };
    use crate::rocblas::{
        rocblas_datatype as T, rocblas_operation as O, rocblas_pointer_mode as P, rocblas_status as S,
    };
    for (major, text) in CUBLAS_VERSIONS {
        let f = facts(text);
        let v = *major;
        assert_eq!(fact(&f, v, "CUBLAS_VER_MAJOR"), v, "the probe file for cuBLAS {v} is of another version");
        let op = |o| i64::from(operation(o).expect("mapped"));
        assert_eq!(op(O::rocblas_operation_none), fact(&f, v, "CUBLAS_OP_N"));
        assert_eq!(op(O::rocblas_operation_transpose), fact(&f, v, "CUBLAS_OP_T"));
        assert_eq!(op(O::rocblas_operation_conjugate_transpose), fact(&f, v, "CUBLAS_OP_C"));
        let dt = |t| i64::from(datatype(t).expect("mapped"));
        for (ours, theirs) in [
            (T::rocblas_datatype_f16_r, "CUDA_R_16F"),
            (T::rocblas_datatype_f32_r, "CUDA_R_32F"),
            (T::rocblas_datatype_f64_r, "CUDA_R_64F"),
            (T::rocblas_datatype_f32_c, "CUDA_C_32F"),
            (T::rocblas_datatype_f64_c, "CUDA_C_64F"),
            (T::rocblas_datatype_bf16_r, "CUDA_R_16BF"),
        ] {
            assert_eq!(dt(ours), fact(&f, v, theirs), "cuBLAS {v}: {theirs}");
        }
        assert_eq!(i64::from(COMPUTE_32F), fact(&f, v, "CUBLAS_COMPUTE_32F"));
        assert_eq!(i64::from(COMPUTE_32F_FAST_TF32), fact(&f, v, "CUBLAS_COMPUTE_32F_FAST_TF32"));
        assert_eq!(i64::from(COMPUTE_64F), fact(&f, v, "CUBLAS_COMPUTE_64F"));
        assert_eq!(compute_type([T::rocblas_datatype_f32_r; 5], true), Ok(COMPUTE_32F_FAST_TF32));
        assert_eq!(i64::from(DEFAULT_MATH), fact(&f, v, "CUBLAS_DEFAULT_MATH"));
        assert_eq!(i64::from(TF32_TENSOR_OP_MATH), fact(&f, v, "CUBLAS_TF32_TENSOR_OP_MATH"));
        assert_eq!(i64::from(GEMM_DEFAULT), fact(&f, v, "CUBLAS_GEMM_DEFAULT"));
        // Pointer modes pass through unchanged.
        assert_eq!(i64::from(P::rocblas_pointer_mode_host.0), fact(&f, v, "CUBLAS_POINTER_MODE_HOST"));
        assert_eq!(i64::from(P::rocblas_pointer_mode_device.0), fact(&f, v, "CUBLAS_POINTER_MODE_DEVICE"));
        // The statuses the mapping names and translates.
        let status = |name: &str| fact(&f, v, name) as c_int;
        assert_eq!(to_rocblas(status("CUBLAS_STATUS_SUCCESS")), S::rocblas_status_success);
        assert_eq!(to_rocblas(status("CUBLAS_STATUS_NOT_INITIALIZED")), S::rocblas_status_invalid_handle);
        assert_eq!(to_rocblas(status("CUBLAS_STATUS_ALLOC_FAILED")), S::rocblas_status_memory_error);
        assert_eq!(to_rocblas(status("CUBLAS_STATUS_INVALID_VALUE")), S::rocblas_status_invalid_value);
        assert_eq!(to_rocblas(status("CUBLAS_STATUS_NOT_SUPPORTED")), S::rocblas_status_not_implemented);
        assert_eq!(to_rocblas(status("CUBLAS_STATUS_ARCH_MISMATCH")), S::rocblas_status_not_implemented);
        assert_eq!(to_rocblas(status("CUBLAS_STATUS_EXECUTION_FAILED")), S::rocblas_status_internal_error);
        // Complex scalars and matrices are passed as rocBLAS's types.
        let c32 = size_of::<crate::rocblas::rocblas_float_complex>();
        let c64 = size_of::<crate::rocblas::rocblas_double_complex>();
        assert_eq!(as_i64(c32), fact(&f, v, "sizeof(cuComplex)"));
        assert_eq!(as_i64(c64), fact(&f, v, "sizeof(cuDoubleComplex)"));
        // cublasGetProperty's libraryPropertyType, asked for by number at load.
        assert_eq!([fact(&f, v, "MAJOR_VERSION"), fact(&f, v, "MINOR_VERSION"), fact(&f, v, "PATCH_LEVEL")], [0, 1, 2]);
    }
}
