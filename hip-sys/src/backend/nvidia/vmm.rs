//! Virtual memory management over the CUDA driver's `cuMem*` calls:
//! reserved addresses, physical allocations, mappings and access.
//!
//! HIP's structs are CUDA's layout (`hipMemAllocationProp` and
//! `CUmemAllocationProp` are both 32 bytes with the same offsets, checked
//! by `abi`), but the properties are copied into CUDA's struct so that its
//! reserved bytes are zero; a HIP handle (a pointer) is CUDA's 64-bit
//! handle value; addresses are `CUdeviceptr`s. A shared handle travels as
//! the descriptor's value in the pointer, as on CUDA and on HIP 7.2. CUDA
//! checks more than clr does (granularity multiples for maps, whole
//! mappings for unmaps, fully mapped ranges for access); its codes come
//! back as HIP's.

use std::ffi::c_void;

use super::call::{cu, entry, non_null};
use super::driver::{device_ptr, ensure_context};
use super::types::{CuMemAccessDesc, CuMemAllocationProp};
use crate::bindings::hip::{
    hipError_t, hipMemAccessDesc, hipMemAllocationGranularity_flags, hipMemAllocationHandleType, hipMemAllocationProp,
    hipMemGenericAllocationHandle_t, hipMemLocation,
};

/// A HIP handle as CUDA's `CUmemGenericAllocationHandle`.
fn cu_handle(handle: hipMemGenericAllocationHandle_t) -> u64 {
    handle as u64
}

/// CUDA's handle as HIP's.
fn hip_handle(handle: u64) -> hipMemGenericAllocationHandle_t {
    handle as usize as hipMemGenericAllocationHandle_t
}

/// HIP's properties as CUDA's, reserved bytes zero; a null `prop` stays
/// null for CUDA to refuse.
///
/// # Safety
/// `prop` is null or points to valid properties.
unsafe fn props(prop: *const hipMemAllocationProp) -> Option<CuMemAllocationProp> {
    // SAFETY: null or valid, as the caller guarantees.
    let prop = unsafe { prop.as_ref() }?;
    Some(CuMemAllocationProp::from_hip(prop))
}

fn props_ptr(prop: &Option<CuMemAllocationProp>) -> *const CuMemAllocationProp {
    prop.as_ref().map_or(std::ptr::null(), |p| p)
}

pub(super) unsafe extern "C" fn hipMemAddressReserve(
    ptr: *mut *mut c_void,
    size: usize,
    alignment: usize,
    addr: *mut c_void,
    flags: u64,
) -> hipError_t {
    entry(|f| {
        non_null(ptr)?;
        ensure_context(f)?;
        let mut reserved: super::CuDevicePtr = 0;
        // SAFETY: a valid out-pointer; sizes and the hint passed through,
        // checked by the driver.
        cu(unsafe { (f.drv.cuMemAddressReserve)(&mut reserved, size, alignment, device_ptr(addr), flags) })?;
        // SAFETY: checked non-null; the caller passes a valid out-pointer.
        unsafe { ptr.write(reserved as usize as *mut c_void) };
        Ok(())
    })
}

pub(super) unsafe extern "C" fn hipMemAddressFree(ptr: *mut c_void, size: usize) -> hipError_t {
    entry(|f| {
        ensure_context(f)?;
        // SAFETY: an address and size passed through, checked by the driver.
        cu(unsafe { (f.drv.cuMemAddressFree)(device_ptr(ptr), size) })
    })
}

pub(super) unsafe extern "C" fn hipMemCreate(
    handle: *mut hipMemGenericAllocationHandle_t,
    size: usize,
    prop: *const hipMemAllocationProp,
    flags: u64,
) -> hipError_t {
    entry(|f| {
        non_null(handle)?;
        ensure_context(f)?;
        // SAFETY: `prop` null or valid, as the caller passes it.
        let cuda = unsafe { props(prop) };
        let mut made = 0u64;
        // SAFETY: a valid out-pointer and properties (or null, refused).
        cu(unsafe { (f.drv.cuMemCreate)(&mut made, size, props_ptr(&cuda), flags) })?;
        // SAFETY: checked non-null; the caller passes a valid out-pointer.
        unsafe { handle.write(hip_handle(made)) };
        Ok(())
    })
}

pub(super) unsafe extern "C" fn hipMemRelease(handle: hipMemGenericAllocationHandle_t) -> hipError_t {
    entry(|f| {
        ensure_context(f)?;
        // SAFETY: a handle value, checked by the driver.
        cu(unsafe { (f.drv.cuMemRelease)(cu_handle(handle)) })
    })
}

pub(super) unsafe extern "C" fn hipMemMap(
    ptr: *mut c_void,
    size: usize,
    offset: usize,
    handle: hipMemGenericAllocationHandle_t,
    flags: u64,
) -> hipError_t {
    entry(|f| {
        ensure_context(f)?;
        // SAFETY: values passed through, checked by the driver.
        cu(unsafe { (f.drv.cuMemMap)(device_ptr(ptr), size, offset, cu_handle(handle), flags) })
    })
}

pub(super) unsafe extern "C" fn hipMemUnmap(ptr: *mut c_void, size: usize) -> hipError_t {
    entry(|f| {
        ensure_context(f)?;
        // SAFETY: values passed through, checked by the driver.
        cu(unsafe { (f.drv.cuMemUnmap)(device_ptr(ptr), size) })
    })
}

pub(super) unsafe extern "C" fn hipMemSetAccess(
    ptr: *mut c_void,
    size: usize,
    desc: *const hipMemAccessDesc,
    count: usize,
) -> hipError_t {
    entry(|f| {
        if desc.is_null() || count == 0 {
            return Err(hipError_t::hipErrorInvalidValue);
        }
        ensure_context(f)?;
        // SAFETY: checked non-null; the caller passes `count` descriptors.
        let descs: Vec<CuMemAccessDesc> =
            unsafe { std::slice::from_raw_parts(desc, count) }.iter().map(CuMemAccessDesc::from_hip).collect();
        // SAFETY: `count` descriptors of CUDA's layout.
        cu(unsafe { (f.drv.cuMemSetAccess)(device_ptr(ptr), size, descs.as_ptr(), count) })
    })
}

pub(super) unsafe extern "C" fn hipMemGetAccess(
    flags: *mut u64,
    location: *const hipMemLocation,
    ptr: *mut c_void,
) -> hipError_t {
    entry(|f| {
        non_null(flags)?;
        if location.is_null() {
            return Err(hipError_t::hipErrorInvalidValue);
        }
        ensure_context(f)?;
        // SAFETY: valid pointers (HIP's location is CUDA's `CUmemLocation`
        // layout, checked by `abi`); the address is checked by the driver.
        cu(unsafe { (f.drv.cuMemGetAccess)(flags, location.cast(), device_ptr(ptr)) })
    })
}

pub(super) unsafe extern "C" fn hipMemGetAllocationGranularity(
    granularity: *mut usize,
    prop: *const hipMemAllocationProp,
    option: hipMemAllocationGranularity_flags,
) -> hipError_t {
    entry(|f| {
        non_null(granularity)?;
        ensure_context(f)?;
        // SAFETY: `prop` null or valid, as the caller passes it.
        let cuda = unsafe { props(prop) };
        // SAFETY: a valid out-pointer and properties (or null, refused);
        // the option's values are CUDA's.
        cu(unsafe { (f.drv.cuMemGetAllocationGranularity)(granularity, props_ptr(&cuda), option.0 as i32) })
    })
}

pub(super) unsafe extern "C" fn hipMemGetAllocationPropertiesFromHandle(
    prop: *mut hipMemAllocationProp,
    handle: hipMemGenericAllocationHandle_t,
) -> hipError_t {
    entry(|f| {
        non_null(prop)?;
        ensure_context(f)?;
        let mut cuda = CuMemAllocationProp::default();
        // SAFETY: a valid out-pointer; the handle is checked by the driver.
        cu(unsafe { (f.drv.cuMemGetAllocationPropertiesFromHandle)(&mut cuda, cu_handle(handle)) })?;
        // SAFETY: checked non-null; the caller passes a valid out-pointer.
        unsafe { prop.write(cuda.to_hip()) };
        Ok(())
    })
}

pub(super) unsafe extern "C" fn hipMemRetainAllocationHandle(
    handle: *mut hipMemGenericAllocationHandle_t,
    addr: *mut c_void,
) -> hipError_t {
    entry(|f| {
        non_null(handle)?;
        ensure_context(f)?;
        let mut retained = 0u64;
        // SAFETY: a valid out-pointer; the address is checked by the driver.
        cu(unsafe { (f.drv.cuMemRetainAllocationHandle)(&mut retained, addr) })?;
        // SAFETY: checked non-null; the caller passes a valid out-pointer.
        unsafe { handle.write(hip_handle(retained)) };
        Ok(())
    })
}

pub(super) unsafe extern "C" fn hipMemExportToShareableHandle(
    shareable: *mut c_void,
    handle: hipMemGenericAllocationHandle_t,
    handle_type: hipMemAllocationHandleType,
    flags: u64,
) -> hipError_t {
    entry(|f| {
        non_null(shareable)?;
        ensure_context(f)?;
        // SAFETY: a valid out-pointer for the handle type's value (an
        // `int` for a descriptor); values checked by the driver.
        cu(unsafe { (f.drv.cuMemExportToShareableHandle)(shareable, cu_handle(handle), handle_type.0 as i32, flags) })
    })
}

pub(super) unsafe extern "C" fn hipMemImportFromShareableHandle(
    handle: *mut hipMemGenericAllocationHandle_t,
    os_handle: *mut c_void,
    handle_type: hipMemAllocationHandleType,
) -> hipError_t {
    entry(|f| {
        non_null(handle)?;
        ensure_context(f)?;
        let mut imported = 0u64;
        // SAFETY: a valid out-pointer; the descriptor's value in the
        // pointer, as CUDA takes it, checked by the driver.
        cu(unsafe { (f.drv.cuMemImportFromShareableHandle)(&mut imported, os_handle, handle_type.0 as i32) })?;
        // SAFETY: checked non-null; the caller passes a valid out-pointer.
        unsafe { handle.write(hip_handle(imported)) };
        Ok(())
    })
}
