//! Managed memory on the simulator: one host address that the host reads
//! and writes directly and kernels and copies of every device reach with
//! no peer access; clr's checks and codes for `hipMallocManaged`,
//! `hipMemPrefetchAsync`, `hipMemAdvise` and `hipMemRangeGetAttribute`;
//! the device attributes of a machine with heterogeneous memory
//! management and no XNACK.

mod common;

use common::*;
use hip_sys::bindings::hip::{
    hipDeviceAttribute_t, hipError_t, hipMemAttachGlobal, hipMemRangeAttribute, hipMemcpyKind, hipMemoryAdvise,
    hipMemoryType, hipPointerAttribute_t,
};
use hip_sys::sim;
use std::ffi::c_void;
use std::ptr::null_mut;

fn managed(bytes: usize) -> *mut c_void {
    let mut ptr = null_mut();
    ok!((api().hipMallocManaged)(&mut ptr, bytes, hipMemAttachGlobal));
    ptr
}

fn int_attribute(ptr: *mut c_void, bytes: usize, attribute: hipMemRangeAttribute) -> Result<i32, hipError_t> {
    let mut value = 7i32;
    match status!((api().hipMemRangeGetAttribute)((&mut value as *mut i32).cast(), 4, attribute, ptr, bytes)) {
        hipError_t::hipSuccess => Ok(value),
        e => Err(e),
    }
}

#[test]
fn the_machine_pages_managed_memory_without_xnack() {
    use hipDeviceAttribute_t as A;
    let _x = sim::exclusive();
    assert_eq!(attribute(A::hipDeviceAttributeManagedMemory, 0), Ok(1));
    assert_eq!(attribute(A::hipDeviceAttributeConcurrentManagedAccess, 0), Ok(1));
    assert_eq!(attribute(A::hipDeviceAttributePageableMemoryAccess, 0), Ok(0));
}

#[test]
fn the_host_and_kernels_share_one_address() {
    let _x = sim::exclusive();
    on_thread("managed-share", || {
        let api = api();
        let mut ptr = null_mut();
        for (bytes, flags) in [(0, hipMemAttachGlobal), (64, 0), (64, 4)] {
            assert_eq!(status!((api.hipMallocManaged)(&mut ptr, bytes, flags)), hipError_t::hipErrorInvalidValue);
        }
        let n = 1024usize;
        let ptr = managed(n * 4);
        assert_eq!(ptr as usize % 4096, 0, "page aligned");
        // SAFETY: n floats of managed memory, no work queued on it.
        let host = unsafe { std::slice::from_raw_parts_mut(ptr.cast::<f32>(), n) };
        host.fill(1.0);
        let fill = fill_launcher(ptr, n as u32 / 2);
        assert_eq!(fill([2, 1, 1], [256, 1, 1], null_mut()), hipError_t::hipSuccess);
        ok!((api.hipDeviceSynchronize)());
        assert!(host[..n / 2].iter().all(|&x| x == 2.5), "the kernel's writes, seen by the host");
        assert!(host[n / 2..].iter().all(|&x| x == 1.0), "the host's own, untouched");
        // Copies reach it too, as device memory.
        let device = malloc(n * 4);
        ok!((api.hipMemcpy)(device, ptr, n * 4, hipMemcpyKind::hipMemcpyDefault));
        assert_eq!(download(device, n)[..2], [2.5, 2.5]);
        ok!((api.hipFree)(device));
        let mut attributes = hipPointerAttribute_t::default();
        ok!((api.hipPointerGetAttributes)(&mut attributes, ptr.cast_const()));
        // SAFETY: the union's one member.
        assert_eq!(unsafe { attributes.__bindgen_anon_1.type_ }, hipMemoryType::hipMemoryTypeManaged);
        assert_eq!((attributes.isManaged, attributes.hostPointer), (1, ptr));
        assert_eq!(status!((api.hipFree)(ptr.cast::<u8>().wrapping_add(4).cast())), hipError_t::hipErrorInvalidValue);
        ok!((api.hipFree)(ptr));
        assert!(violations_of("managed-share").is_empty());
    });
}

#[test]
fn a_kernel_of_another_device_needs_no_peer_access() {
    if !devices_at_least(2) {
        return;
    }
    let _x = sim::exclusive();
    on_thread("managed-peer", || {
        let ptr = managed(1024);
        set_device(1);
        let image = sim::code_object(&["fill_f32"]);
        let mut module = null_mut();
        ok!((api().hipModuleLoadData)(&mut module, image.as_ptr().cast()));
        let mut f = null_mut();
        ok!((api().hipModuleGetFunction)(&mut f, module, c"fill_f32".as_ptr()));
        let (mut p, mut v, mut n) = (ptr, 4.5f32, 256u32);
        let mut params: [*mut c_void; 3] =
            [(&mut p as *mut *mut c_void).cast(), (&mut v as *mut f32).cast(), (&mut n as *mut u32).cast()];
        ok!((api().hipModuleLaunchKernel)(f, 1, 1, 1, 256, 1, 1, 0, null_mut(), params.as_mut_ptr(), null_mut()));
        ok!((api().hipDeviceSynchronize)());
        // SAFETY: 256 floats of managed memory, the kernel done.
        assert_eq!(unsafe { *ptr.cast::<f32>().add(255) }, 4.5);
        ok!((api().hipModuleUnload)(module));
        set_device(0);
        ok!((api().hipFree)(ptr));
        assert!(violations_of("managed-peer").is_empty(), "{:?}", violations_of("managed-peer"));
    });
}

#[test]
fn prefetches_and_advice_are_checked_and_remembered() {
    let _x = sim::exclusive();
    on_thread("managed-advice", || {
        let api = api();
        let bytes = 8192;
        let ptr = managed(bytes);
        let stream = null_mut();
        assert_eq!(status!((api.hipMemPrefetchAsync)(ptr, 0, 0, stream)), hipError_t::hipErrorInvalidValue);
        assert_eq!(status!((api.hipMemPrefetchAsync)(ptr, bytes + 1, 0, stream)), hipError_t::hipErrorInvalidValue);
        let count = device_count();
        assert_eq!(status!((api.hipMemPrefetchAsync)(ptr, bytes, count, stream)), hipError_t::hipErrorInvalidDevice);
        assert_eq!(status!((api.hipMemPrefetchAsync)(ptr, bytes, -3, stream)), hipError_t::hipErrorInvalidDevice);
        // Plain host memory cannot be paged to a device without XNACK.
        let mut plain = vec![0u8; 4096];
        let plain_ptr = plain.as_mut_ptr().cast::<c_void>();
        assert_eq!(status!((api.hipMemPrefetchAsync)(plain_ptr, 4096, 0, stream)), hipError_t::hipErrorNotSupported);
        ok!((api.hipMemPrefetchAsync)(plain_ptr, 4096, -1, stream));

        let last = hipMemRangeAttribute::hipMemRangeAttributeLastPrefetchLocation;
        assert_eq!(int_attribute(ptr, bytes, last), Ok(-2), "never prefetched");
        ok!((api.hipMemPrefetchAsync)(ptr, bytes, 0, stream));
        ok!((api.hipStreamSynchronize)(stream));
        assert_eq!(int_attribute(ptr, bytes, last), Ok(0));
        ok!((api.hipMemPrefetchAsync)(ptr, bytes, -1, stream));
        ok!((api.hipStreamSynchronize)(stream));
        assert_eq!(int_attribute(ptr, bytes, last), Ok(-1), "the host");

        let preferred = hipMemRangeAttribute::hipMemRangeAttributePreferredLocation;
        ok!((api.hipMemAdvise)(ptr, bytes, hipMemoryAdvise::hipMemAdviseSetPreferredLocation, 0));
        assert_eq!(int_attribute(ptr, bytes, preferred), Ok(0));
        ok!((api.hipMemAdvise)(ptr, bytes, hipMemoryAdvise::hipMemAdviseUnsetPreferredLocation, 0));
        assert_eq!(int_attribute(ptr, bytes, preferred), Ok(-2));
        ok!((api.hipMemAdvise)(ptr, bytes, hipMemoryAdvise::hipMemAdviseSetReadMostly, 0));
        assert_eq!(int_attribute(ptr, bytes, hipMemRangeAttribute::hipMemRangeAttributeReadMostly), Ok(1));
        // The device is looked at before the pointer, but not for read-mostly.
        let set_preferred = hipMemoryAdvise::hipMemAdviseSetPreferredLocation;
        assert_eq!(status!((api.hipMemAdvise)(null_mut(), 0, set_preferred, count)), hipError_t::hipErrorInvalidDevice);
        let read_mostly = hipMemoryAdvise::hipMemAdviseSetReadMostly;
        assert_eq!(status!((api.hipMemAdvise)(null_mut(), 0, read_mostly, count)), hipError_t::hipErrorInvalidValue);
        assert_eq!(status!((api.hipMemAdvise)(ptr, bytes, hipMemoryAdvise(42), 0)), hipError_t::hipErrorInvalidValue);

        // Accessed-by: a list of ints, padded with hipInvalidDeviceId.
        ok!((api.hipMemAdvise)(ptr, bytes, hipMemoryAdvise::hipMemAdviseSetAccessedBy, 0));
        let mut list = [9i32; 3];
        let accessed = hipMemRangeAttribute::hipMemRangeAttributeAccessedBy;
        ok!((api.hipMemRangeGetAttribute)(list.as_mut_ptr().cast(), 12, accessed, ptr, bytes));
        assert_eq!(list, [0, -2, -2]);
        assert_eq!(
            status!((api.hipMemRangeGetAttribute)(list.as_mut_ptr().cast(), 6, accessed, ptr, bytes)),
            hipError_t::hipErrorInvalidValue
        );
        // Sizes other than 4, unknown attributes, memory that is not managed.
        assert_eq!(
            status!((api.hipMemRangeGetAttribute)(list.as_mut_ptr().cast(), 8, last, ptr, bytes)),
            hipError_t::hipErrorInvalidValue
        );
        assert_eq!(int_attribute(ptr, bytes, hipMemRangeAttribute(5)), Err(hipError_t::hipErrorInvalidValue));
        let coherency = hipMemRangeAttribute::hipMemRangeAttributeCoherencyMode;
        assert_eq!(int_attribute(ptr, bytes, coherency), Ok(1), "fine-grained");
        let device = malloc(256);
        assert_eq!(int_attribute(device, 256, last), Err(hipError_t::hipErrorInvalidValue));
        ok!((api.hipFree)(device));
        ok!((api.hipFree)(ptr));
        drop(plain);
    });
}
