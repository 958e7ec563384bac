//! Virtual memory management on the simulator, per HIP version: clr up to
//! 6.0 (HIP 5 and 6's strictest minor) has none on Linux — the attribute
//! says 0, a reservation succeeds with a null address, a mapping maps
//! nothing; clr 7.2 reserves, maps and sets access with its own rules and
//! codes, which these tests pin one by one: page granularity, no access
//! until set, the set-access sum over the mappings in map order, whole
//! mappings to unmap, deferred release, sharing by descriptor, and what
//! clr would crash on recorded as violations.

mod common;

use common::*;
use hip_sys::bindings::hip::{
    hipDeviceAttribute_t, hipError_t, hipMemAccessDesc, hipMemAccessFlags, hipMemAllocationGranularity_flags,
    hipMemAllocationHandleType, hipMemAllocationProp, hipMemAllocationType, hipMemGenericAllocationHandle_t,
    hipMemLocation, hipMemLocationType, hipMemcpyKind,
};
use hip_sys::sim;
use std::ffi::c_void;
use std::ptr::null_mut;

const PAGE: usize = 4096;

fn prop(device: i32) -> hipMemAllocationProp {
    hipMemAllocationProp {
        type_: hipMemAllocationType::hipMemAllocationTypePinned,
        location: hipMemLocation { type_: hipMemLocationType::hipMemLocationTypeDevice, id: device },
        ..Default::default()
    }
}

fn works() -> bool {
    hip_major() >= 7
}

fn reserve(size: usize) -> *mut c_void {
    let mut ptr = null_mut();
    ok!((api().hipMemAddressReserve)(&mut ptr, size, 0, null_mut(), 0));
    ptr
}

fn create(size: usize) -> hipMemGenericAllocationHandle_t {
    let mut handle = null_mut();
    ok!((api().hipMemCreate)(&mut handle, size, &prop(0), 0));
    handle
}

fn access(ptr: *mut c_void, size: usize, device: i32, flags: hipMemAccessFlags) -> hipError_t {
    let desc = hipMemAccessDesc {
        location: hipMemLocation { type_: hipMemLocationType::hipMemLocationTypeDevice, id: device },
        flags,
    };
    status!((api().hipMemSetAccess)(ptr, size, &desc, 1))
}

fn at(ptr: *mut c_void, offset: usize) -> *mut c_void {
    (ptr as usize + offset) as *mut c_void
}

fn virtual_memory_violations(thread: &str) -> Vec<sim::Violation> {
    violations_of(thread).into_iter().filter(|v| v.kind == sim::ViolationKind::VirtualMemory).collect()
}

#[test]
fn the_attribute_and_the_granularity_say_whether_virtual_memory_works() {
    let _x = sim::exclusive();
    let supported = attribute(hipDeviceAttribute_t::hipDeviceAttributeVirtualMemoryManagementSupported, 0);
    assert_eq!(supported, Ok(i32::from(works())));
    let mut granularity = usize::MAX;
    let minimum = hipMemAllocationGranularity_flags::hipMemAllocationGranularityMinimum;
    let recommended = hipMemAllocationGranularity_flags::hipMemAllocationGranularityRecommended;
    for option in [minimum, recommended] {
        ok!((api().hipMemGetAllocationGranularity)(&mut granularity, &prop(0), option));
        assert_eq!(granularity, if works() { PAGE } else { 0 }, "clr 6.0 never reads the granule");
    }
    // An option that is neither: refused from 6.2, not looked at before.
    let odd = hipMemAllocationGranularity_flags(7);
    let expected = if works() { hipError_t::hipErrorInvalidValue } else { hipError_t::hipSuccess };
    assert_eq!(status!((api().hipMemGetAllocationGranularity)(&mut granularity, &prop(0), odd)), expected);
    let mut bad = prop(device_count());
    assert_eq!(
        status!((api().hipMemGetAllocationGranularity)(&mut granularity, &bad, minimum)),
        hipError_t::hipErrorInvalidValue,
        "no such device"
    );
    bad = prop(0);
    bad.type_ = hipMemAllocationType::hipMemAllocationTypeInvalid;
    assert_eq!(
        status!((api().hipMemGetAllocationGranularity)(&mut granularity, &bad, minimum)),
        hipError_t::hipErrorInvalidValue
    );
    assert_eq!(
        status!((api().hipMemGetAllocationGranularity)(null_mut(), &prop(0), minimum)),
        hipError_t::hipErrorInvalidValue
    );
}

#[test]
fn before_hip_7_a_reservation_is_null_and_a_mapping_maps_nothing() {
    // Under the lock: a test that faults on purpose leaves every call
    // failing until it resets the fault.
    let _x = sim::exclusive();
    if works() {
        return;
    }
    on_thread("vmm-old", || {
        let mut ptr = std::ptr::dangling_mut::<c_void>();
        ok!((api().hipMemAddressReserve)(&mut ptr, 2 * PAGE, 0, null_mut(), 0));
        assert!(ptr.is_null(), "clr 6.0's ROCm device reserves nothing and says success");
        let hint = 0x1000_0000 as *mut c_void;
        assert_eq!(
            status!((api().hipMemAddressReserve)(&mut ptr, 2 * PAGE, 0, hint, 0)),
            hipError_t::hipErrorOutOfMemory
        );
        let handle = create(2 * PAGE);
        let made_up = 0x7000_0000 as *mut c_void;
        ok!((api().hipMemMap)(made_up, 2 * PAGE, 0, handle, 0));
        assert_eq!(
            access(made_up, 2 * PAGE, 0, hipMemAccessFlags::hipMemAccessFlagsProtReadWrite),
            hipError_t::hipSuccess
        );
        assert_eq!(status!((api().hipMemUnmap)(made_up, 2 * PAGE)), hipError_t::hipErrorInvalidValue);
        assert_eq!(virtual_memory_violations("vmm-old").len(), 1, "clr 6.0 crashes unmapping");
        let mut fd = 0i32;
        assert_eq!(
            status!((api().hipMemExportToShareableHandle)(
                (&mut fd as *mut i32).cast(),
                handle,
                hipMemAllocationHandleType::hipMemHandleTypePosixFileDescriptor,
                0
            )),
            hipError_t::hipErrorNotSupported
        );
        ok!((api().hipMemRelease)(handle));
    });
}

/// The expandable pattern: one reservation, physical chunks mapped one
/// after another, access set over all of them from the start (which clr
/// 7.2's size check accepts), and a copy and a kernel across the seam.
#[test]
fn chunks_mapped_one_after_another_are_one_range() {
    let _x = sim::exclusive();
    if !works() {
        return;
    }
    on_thread("vmm-seam", || {
        let (chunk, total) = (4 * PAGE, 8 * PAGE);
        let base = reserve(total);
        assert_eq!(base as usize % PAGE, 0, "page aligned");
        let (first, second) = (create(chunk), create(chunk));
        ok!((api().hipMemMap)(base, chunk, 0, first, 0));
        ok!((api().hipMemMap)(at(base, chunk), chunk, 0, second, 0));
        assert_eq!(access(base, total, 0, hipMemAccessFlags::hipMemAccessFlagsProtReadWrite), hipError_t::hipSuccess);
        let mut flags = 9u64;
        let location = hipMemLocation { type_: hipMemLocationType::hipMemLocationTypeDevice, id: 0 };
        ok!((api().hipMemGetAccess)(&mut flags, &location, at(base, chunk + 8)));
        assert_eq!(flags, 3);
        // Bytes across the seam, up and back.
        let data: Vec<u32> = (0..2048).collect();
        let seam = at(base, chunk - 4096);
        ok!((api().hipMemcpy)(seam, data.as_ptr().cast(), 8192, hipMemcpyKind::hipMemcpyHostToDevice));
        let mut back = vec![0u32; 2048];
        ok!((api().hipMemcpy)(back.as_mut_ptr().cast(), seam, 8192, hipMemcpyKind::hipMemcpyDeviceToHost));
        assert_eq!(back, data);
        // A kernel across the seam.
        let fill = fill_launcher(seam, 2048);
        assert_eq!(fill([8, 1, 1], [256, 1, 1], null_mut()), hipError_t::hipSuccess);
        ok!((api().hipDeviceSynchronize)());
        let mut floats = vec![0f32; 2048];
        ok!((api().hipMemcpy)(floats.as_mut_ptr().cast(), seam, 8192, hipMemcpyKind::hipMemcpyDeviceToHost));
        assert!(floats.iter().all(|&x| x == 2.5));
        // Released while mapped: the memory stays until it is unmapped.
        ok!((api().hipMemRelease)(first));
        ok!((api().hipMemcpy)(back.as_mut_ptr().cast(), base, 4, hipMemcpyKind::hipMemcpyDeviceToHost));
        ok!((api().hipMemUnmap)(base, total));
        ok!((api().hipMemRelease)(second));
        ok!((api().hipMemAddressFree)(base, total));
        assert!(virtual_memory_violations("vmm-seam").is_empty());
    });
}

#[test]
fn a_mapping_has_no_access_until_it_is_set_and_read_access_does_not_write() {
    let _x = sim::exclusive();
    if !works() {
        return;
    }
    on_thread("vmm-access", || {
        let base = reserve(4 * PAGE);
        let handle = create(4 * PAGE);
        ok!((api().hipMemMap)(base, 4 * PAGE, 0, handle, 0));
        let mut word = 0u32;
        assert_eq!(
            status!((api().hipMemcpy)((&mut word as *mut u32).cast(), base, 4, hipMemcpyKind::hipMemcpyDeviceToHost)),
            hipError_t::hipErrorIllegalAddress,
            "no access yet: the copy engine faults"
        );
        assert_eq!(virtual_memory_violations("vmm-access").len(), 1);
        assert_eq!(access(base, 4 * PAGE, 0, hipMemAccessFlags::hipMemAccessFlagsProtRead), hipError_t::hipSuccess);
        ok!((api().hipMemcpy)((&mut word as *mut u32).cast(), base, 4, hipMemcpyKind::hipMemcpyDeviceToHost));
        // A kernel writing memory it may only read faults.
        let fill = fill_launcher(base, 16);
        assert_eq!(fill([1, 1, 1], [16, 1, 1], null_mut()), hipError_t::hipSuccess);
        assert_eq!(status!((api().hipDeviceSynchronize)()), hipError_t::hipErrorIllegalAddress);
        sim::reset_faults();
        ok!((api().hipDeviceSynchronize)());
        assert_eq!(virtual_memory_violations("vmm-access").len(), 2);
        // Bad descriptors.
        for (device, flags) in [(device_count(), 3), (-1, 3), (0, 2)] {
            assert_eq!(access(base, 4 * PAGE, device, hipMemAccessFlags(flags)), hipError_t::hipErrorInvalidValue);
        }
        ok!((api().hipMemUnmap)(base, 4 * PAGE));
        ok!((api().hipMemRelease)(handle));
        ok!((api().hipMemAddressFree)(base, 4 * PAGE));
    });
}

/// clr 7.2 matches the size against the mappings' sizes summed from the
/// first mapped: access for a later chunk of another size is refused,
/// for the whole range it is not.
#[test]
fn set_access_sums_the_mappings_in_map_order() {
    let _x = sim::exclusive();
    if !works() {
        return;
    }
    on_thread("vmm-sum", || {
        let base = reserve(6 * PAGE);
        let (small, large) = (create(2 * PAGE), create(4 * PAGE));
        ok!((api().hipMemMap)(base, 2 * PAGE, 0, small, 0));
        ok!((api().hipMemMap)(at(base, 2 * PAGE), 4 * PAGE, 0, large, 0));
        let rw = hipMemAccessFlags::hipMemAccessFlagsProtReadWrite;
        assert_eq!(access(at(base, 2 * PAGE), 4 * PAGE, 0, rw), hipError_t::hipErrorInvalidValue);
        assert_eq!(access(base, 6 * PAGE, 0, rw), hipError_t::hipSuccess);
        assert_eq!(access(at(base, PAGE), PAGE, 0, rw), hipError_t::hipErrorInvalidValue, "not a mapping's start");
        ok!((api().hipMemUnmap)(base, 6 * PAGE));
        ok!((api().hipMemRelease)(small));
        ok!((api().hipMemRelease)(large));
        ok!((api().hipMemAddressFree)(base, 6 * PAGE));
    });
}

#[test]
fn clr_7_rules_for_reserving_creating_mapping_and_unmapping() {
    let _x = sim::exclusive();
    if !works() {
        return;
    }
    on_thread("vmm-rules", || {
        let api = api();
        let mut ptr = null_mut();
        for (size, alignment) in [(0, 0), (PAGE + 1, 0), (PAGE, 3 * PAGE)] {
            assert_eq!(
                status!((api.hipMemAddressReserve)(&mut ptr, size, alignment, null_mut(), 0)),
                hipError_t::hipErrorInvalidValue,
                "size {size}, alignment {alignment}"
            );
        }
        // The alignment is never passed on: the page is all a caller gets.
        ok!((api.hipMemAddressReserve)(&mut ptr, 2 << 20, 2 << 20, null_mut(), 0));
        assert_eq!(ptr as usize % PAGE, 0);
        assert_ne!(ptr as usize % (2 << 20), 0, "not aligned beyond the page");
        ok!((api.hipMemAddressFree)(ptr, 2 << 20));

        let mut handle = null_mut();
        assert_eq!(status!((api.hipMemCreate)(&mut handle, 1024, &prop(0), 0)), hipError_t::hipErrorInvalidValue);
        assert_eq!(status!((api.hipMemCreate)(&mut handle, 2048, &prop(0), 0)), hipError_t::hipErrorOutOfMemory);
        assert_eq!(
            status!((api.hipMemCreate)(&mut handle, PAGE, &prop(device_count()), 0)),
            hipError_t::hipErrorInvalidDevice
        );
        let mut win32 = prop(0);
        win32.requestedHandleType = hipMemAllocationHandleType::hipMemHandleTypeWin32;
        assert_eq!(status!((api.hipMemCreate)(&mut handle, PAGE, &win32, 0)), hipError_t::hipErrorNotSupported);
        let too_big = sim::configured_memory() + (2 << 20);
        assert_eq!(status!((api.hipMemCreate)(&mut handle, too_big, &prop(0), 0)), hipError_t::hipErrorOutOfMemory);

        let base = reserve(8 * PAGE);
        let handle = create(4 * PAGE);
        assert_eq!(status!((api.hipMemMap)(base, 4 * PAGE, PAGE, handle, 0)), hipError_t::hipErrorInvalidValue);
        ok!((api.hipMemMap)(base, 4 * PAGE, 0, handle, 0));
        // What clr answers success to having done nothing, or crashes on.
        assert_eq!(status!((api.hipMemMap)(at(base, PAGE), 2 * PAGE, 0, handle, 0)), hipError_t::hipErrorInvalidValue);
        assert_eq!(status!((api.hipMemMap)(at(base, 4 * PAGE), 100, 0, handle, 0)), hipError_t::hipErrorInvalidValue);
        assert_eq!(
            status!((api.hipMemMap)(at(base, 6 * PAGE), 4 * PAGE, 0, handle, 0)),
            hipError_t::hipErrorInvalidValue
        );
        let outside = 0x1000 as *mut c_void;
        assert_eq!(status!((api.hipMemMap)(outside, PAGE, 0, handle, 0)), hipError_t::hipErrorInvalidValue);
        assert_eq!(status!((api.hipMemAddressFree)(outside, PAGE)), hipError_t::hipErrorInvalidValue);
        assert_eq!(virtual_memory_violations("vmm-rules").len(), 5, "{:?}", virtual_memory_violations("vmm-rules"));
        // Unmapping is whole mappings.
        assert_eq!(status!((api.hipMemUnmap)(base, 2 * PAGE)), hipError_t::hipErrorInvalidValue);
        assert_eq!(status!((api.hipMemUnmap)(at(base, 4 * PAGE), PAGE)), hipError_t::hipErrorInvalidValue);
        // hipFree knows no reservation.
        assert_eq!(status!((api.hipFree)(base)), hipError_t::hipErrorInvalidValue);
        // A reservation with mappings left is not freed.
        assert_eq!(status!((api.hipMemAddressFree)(base, 8 * PAGE)), hipError_t::hipErrorUnknown);
        ok!((api.hipMemUnmap)(base, 4 * PAGE));
        ok!((api.hipMemRelease)(handle));
        assert_eq!(status!((api.hipMemRelease)(handle)), hipError_t::hipErrorInvalidValue, "released twice");
        assert_eq!(virtual_memory_violations("vmm-rules").len(), 6);
        ok!((api.hipMemAddressFree)(at(base, PAGE), 8 * PAGE));
    });
}

/// Memory of device 1 mapped into a reservation (whose addresses are
/// device 0's range): the pointer's device is the memory's, and device 1
/// needs access of its own.
#[test]
fn a_pointer_into_mapped_memory_names_the_memorys_device() {
    if !devices_at_least(2) {
        return;
    }
    let _x = sim::exclusive();
    if !works() {
        return;
    }
    on_thread("vmm-device", || {
        set_device(1);
        let base = reserve(4 * PAGE);
        let handle = create(4 * PAGE);
        ok!((api().hipMemMap)(base, 4 * PAGE, 0, handle, 0));
        assert_eq!(
            access(base, 4 * PAGE, 1, hipMemAccessFlags::hipMemAccessFlagsProtReadWrite),
            hipError_t::hipSuccess
        );
        let mut attributes = hip_sys::bindings::hip::hipPointerAttribute_t::default();
        ok!((api().hipPointerGetAttributes)(&mut attributes, at(base, 100).cast_const()));
        assert_eq!(attributes.device, 1);
        // A fill from device 1, the memory's, is on the right device (the
        // addresses are nobody's: clr reserves them for every device).
        ok!((api().hipMemsetAsync)(base, 7, 4 * PAGE, null_mut()));
        ok!((api().hipDeviceSynchronize)());
        let wrong: Vec<_> = sim::violations()
            .into_iter()
            .filter(|v| v.thread == "vmm-device" && v.kind == sim::ViolationKind::Context)
            .collect();
        assert_eq!(wrong, [], "a fill of device 1's mapped memory from device 1");
        ok!((api().hipMemUnmap)(base, 4 * PAGE));
        ok!((api().hipMemRelease)(handle));
        ok!((api().hipMemAddressFree)(base, 4 * PAGE));
        set_device(0);
    });
}

#[test]
fn physical_memory_is_charged_to_its_device_until_the_last_mapping_goes() {
    let _x = sim::exclusive();
    if !works() {
        return;
    }
    on_thread("vmm-charge", || {
        let before = sim::used_bytes(0);
        let size = 4 << 20;
        let base = reserve(size);
        assert_eq!(sim::used_bytes(0), before, "a reservation charges nothing");
        let handle = create(size);
        assert_eq!(sim::used_bytes(0), before + size);
        ok!((api().hipMemMap)(base, size, 0, handle, 0));
        ok!((api().hipMemRelease)(handle));
        assert_eq!(sim::used_bytes(0), before + size, "still mapped");
        ok!((api().hipMemUnmap)(base, size));
        assert_eq!(sim::used_bytes(0), before);
        ok!((api().hipMemAddressFree)(base, size));
    });
}

#[test]
fn a_descriptor_shares_physical_memory_and_properties_come_back() {
    let _x = sim::exclusive();
    if !works() {
        return;
    }
    on_thread("vmm-share", || {
        let api = api();
        let mut shareable = prop(0);
        shareable.requestedHandleType = hipMemAllocationHandleType::hipMemHandleTypePosixFileDescriptor;
        let mut handle = null_mut();
        ok!((api.hipMemCreate)(&mut handle, 2 * PAGE, &shareable, 0));
        let mut back = hipMemAllocationProp::default();
        ok!((api.hipMemGetAllocationPropertiesFromHandle)(&mut back, handle));
        assert_eq!(back.requestedHandleType, shareable.requestedHandleType);
        let mut fd = -1i32;
        let fd_out = (&mut fd as *mut i32).cast();
        let none = hipMemAllocationHandleType::hipMemHandleTypeNone;
        assert_eq!(
            status!((api.hipMemExportToShareableHandle)(fd_out, handle, none, 0)),
            hipError_t::hipErrorInvalidValue,
            "not the type it was made for"
        );
        let posix = hipMemAllocationHandleType::hipMemHandleTypePosixFileDescriptor;
        ok!((api.hipMemExportToShareableHandle)(fd_out, handle, posix, 0));
        assert!(fd >= 0);
        let mut imported = null_mut();
        ok!((api.hipMemImportFromShareableHandle)(&mut imported, fd as usize as *mut c_void, posix));
        // Both mapped: one memory.
        let (a, b) = (reserve(2 * PAGE), reserve(2 * PAGE));
        ok!((api.hipMemMap)(a, 2 * PAGE, 0, handle, 0));
        ok!((api.hipMemMap)(b, 2 * PAGE, 0, imported, 0));
        let rw = hipMemAccessFlags::hipMemAccessFlagsProtReadWrite;
        assert_eq!(access(a, 2 * PAGE, 0, rw), hipError_t::hipSuccess);
        assert_eq!(access(b, 2 * PAGE, 0, rw), hipError_t::hipSuccess);
        let word = 0xfeed_u32;
        ok!((api.hipMemcpy)(at(a, 64), (&word as *const u32).cast(), 4, hipMemcpyKind::hipMemcpyHostToDevice));
        let mut seen = 0u32;
        ok!((api.hipMemcpy)((&mut seen as *mut u32).cast(), at(b, 64), 4, hipMemcpyKind::hipMemcpyDeviceToHost));
        assert_eq!(seen, word);
        // The handle behind an address, with no reference taken (clr 7.2).
        let mut retained = null_mut();
        ok!((api.hipMemRetainAllocationHandle)(&mut retained, at(a, 100)));
        assert_eq!(retained, handle);
        let plain = malloc(256);
        assert_eq!(status!((api.hipMemRetainAllocationHandle)(&mut retained, plain)), hipError_t::hipErrorInvalidValue);
        assert_eq!(virtual_memory_violations("vmm-share").len(), 1, "clr crashes on a hipMalloc address");
        ok!((api.hipFree)(plain));
        for (ptr, h) in [(a, handle), (b, imported)] {
            ok!((api.hipMemUnmap)(ptr, 2 * PAGE));
            ok!((api.hipMemRelease)(h));
            ok!((api.hipMemAddressFree)(ptr, 2 * PAGE));
        }
        // SAFETY: the descriptor the export handed out, owned here and
        // closed once, by this drop.
        drop(unsafe { <std::fs::File as std::os::fd::FromRawFd>::from_raw_fd(fd) });
    });
}

/// Unmapping waits for the device's blocking streams only: memory that a
/// non-blocking stream's queued work still uses is a use after free.
#[test]
fn unmapping_under_unordered_work_is_a_reported_use_after_free() {
    let _x = sim::exclusive();
    if !works() || !sim::race_check_enabled() {
        return;
    }
    on_thread("vmm-race", || {
        let base = reserve(4 * PAGE);
        let handle = create(4 * PAGE);
        ok!((api().hipMemMap)(base, 4 * PAGE, 0, handle, 0));
        assert_eq!(
            access(base, 4 * PAGE, 0, hipMemAccessFlags::hipMemAccessFlagsProtReadWrite),
            hipError_t::hipSuccess
        );
        let mut stream = null_mut();
        ok!((api().hipStreamCreateWithFlags)(&mut stream, hip_sys::bindings::hip::hipStreamNonBlocking));
        let hold = sim::hold_stream(stream).expect("a live stream");
        let fill = fill_launcher(base, 1024);
        assert_eq!(fill([4, 1, 1], [256, 1, 1], stream), hipError_t::hipSuccess);
        let expected = sim::expect_races();
        ok!((api().hipMemUnmap)(base, 4 * PAGE));
        drop(hold);
        // The kernel then runs on memory that is no longer there.
        assert_eq!(status!((api().hipStreamSynchronize)(stream)), hipError_t::hipErrorIllegalAddress);
        sim::reset_faults();
        drop(expected);
        let races: Vec<_> =
            violations_of("vmm-race").into_iter().filter(|v| v.kind == sim::ViolationKind::StreamRace).collect();
        assert_eq!(races.len(), 1, "the unmap races with the queued kernel: {races:?}");
        assert_eq!(races[0].race.as_ref().map(|r| r.second.function), Some("hipMemUnmap"), "{races:?}");
        ok!((api().hipStreamDestroy)(stream));
        ok!((api().hipMemRelease)(handle));
        ok!((api().hipMemAddressFree)(base, 4 * PAGE));
    });
}
