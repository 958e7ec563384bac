//! Virtual memory through hip-core's wrappers, on every backend: physical
//! chunks mapped one after another into one reservation are one range
//! (bytes and a fill across the seam), access is set from the
//! reservation's start over everything mapped (what ROCm 7.2 accepts), a
//! descriptor shares the memory with a second mapping, and everything goes
//! back. Where the runtime has no virtual memory (the simulator as HIP 5
//! or 6, ROCm before 6.1), the test checks the attribute says so and
//! skips, saying why.

use hip_core::raw::{self, vmm};
use hip_core::{Device, Stream};
use std::ffi::c_void;

mod common;

fn at(ptr: *mut c_void, offset: usize) -> *mut c_void {
    (ptr as usize + offset) as *mut c_void
}

#[test]
fn chunks_mapped_one_after_another_are_one_range_and_a_descriptor_shares_them() {
    let device = Device::new(0).unwrap();
    if !vmm::supported(device).unwrap() {
        eprintln!("skipped: the runtime has no virtual memory management on this device");
        return;
    }
    let granule = vmm::granularity(device, false).unwrap();
    assert!(granule.is_power_of_two(), "{granule}");
    // Chunks of at least 64 KiB, whole granules.
    let chunk = granule.max(64 << 10).next_multiple_of(granule);
    let total = 2 * chunk;
    let base = vmm::reserve(device, total).unwrap();
    assert_eq!(base as usize % granule, 0);
    let first = vmm::create(device, chunk, true).unwrap();
    let second = vmm::create(device, chunk, false).unwrap();
    // SAFETY: ranges inside the live reservation, nothing mapped there yet;
    // live handles.
    unsafe {
        vmm::map(device, base, chunk, first).unwrap();
        vmm::map(device, at(base, chunk), chunk, second).unwrap();
    }
    assert_eq!(vmm::access(device, base, device).unwrap(), vmm::Access::None, "no access until set");
    // SAFETY: the whole reservation is mapped.
    unsafe { vmm::set_access(device, base, total, &[(device, vmm::Access::ReadWrite)]).unwrap() };
    assert_eq!(vmm::access(device, at(base, chunk + 16), device).unwrap(), vmm::Access::ReadWrite);

    // Bytes across the seam, and a fill over it on a stream.
    let seam = at(base, chunk - 4096);
    let data: Vec<u32> = common::pattern(2048, 7);
    let mut back = vec![0u32; 2048];
    let stream = Stream::new_on(device).unwrap();
    // SAFETY: 8 KiB of mapped, accessible device memory and host buffers
    // of that size; the fill is waited for before the read.
    unsafe {
        raw::mem::copy(device, seam, data.as_ptr().cast(), 8192).unwrap();
        raw::mem::copy(device, back.as_mut_ptr().cast(), seam, 8192).unwrap();
        assert_eq!(back, data);
        raw::mem::fill_async(device, seam, 0x5a, 8192, stream.as_raw()).unwrap();
        stream.synchronize().unwrap();
        raw::mem::copy(device, back.as_mut_ptr().cast(), seam, 8192).unwrap();
    }
    assert!(back.iter().all(|&w| w == 0x5a5a_5a5a));

    // The first chunk again, through a descriptor and a second mapping.
    // SAFETY: a live handle.
    let fd = unsafe { vmm::export_fd(device, first) }.unwrap();
    let imported = vmm::import_fd(device, &fd).unwrap();
    let other = vmm::reserve(device, chunk).unwrap();
    let mut word = 0u32;
    // SAFETY: the new reservation is empty; the imported handle is live;
    // then it is all mapped; 4 bytes of mapped memory read into a u32.
    unsafe {
        vmm::map(device, other, chunk, imported).unwrap();
        vmm::set_access(device, other, chunk, &[(device, vmm::Access::ReadWrite)]).unwrap();
        raw::mem::copy(device, (&mut word as *mut u32).cast(), at(other, chunk - 4096), 4).unwrap();
    }
    assert_eq!(word, 0x5a5a_5a5a, "one memory, two mappings");

    // Everything back: released while mapped, freed once unmapped.
    // SAFETY: no work uses the memory (the stream was synchronized); each
    // handle is released once, each reservation freed once with nothing
    // mapped.
    unsafe {
        vmm::release(device, first).unwrap();
        vmm::release(device, imported).unwrap();
        vmm::unmap(device, other, chunk).unwrap();
        vmm::unmap(device, base, total).unwrap();
        vmm::release(device, second).unwrap();
        vmm::free_reservation(device, other, chunk).unwrap();
        vmm::free_reservation(device, base, total).unwrap();
    }
}

#[test]
fn unsupported_runtimes_say_so_in_the_attribute() {
    let device = Device::new(0).unwrap();
    if !common::on_sim() {
        return;
    }
    // HIP's versions are major * 10^7 + minor * 10^5 + patch.
    let major = raw::runtime::version().unwrap() / 10_000_000;
    assert_eq!(vmm::supported(device).unwrap(), major >= 7, "clr before 6.1 has none; HIP 6 is modelled by 6.0");
}
