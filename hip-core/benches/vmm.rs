//! What mapping a chunk of virtual memory costs through hip-core's
//! wrappers (`raw::vmm`), against the HIP table's own calls on the same
//! backend in one run: one chunk of the granularity (at least 64 KiB)
//! mapped into a reservation, given read-write access and unmapped. On
//! the nvidia backend it also times CUDA's `cuMemMap`, `cuMemSetAccess` and
//! `cuMemUnmap` straight from the driver on the same handle and prints our
//! ratio to them.
//!
//!
//! A second group weighs the chunk size of a growing pool: 80 MiB mapped
//! (as the expandable pool grows: shareable chunks, each created and
//! mapped, then one access call over them all) and unmapped and released
//! again, in chunks of 2 MiB against chunks of 20 MiB, and against
//! `hipMalloc` + `hipFree` of the same 80 MiB.
//!
//! Run: `cargo bench -p hip-core --bench vmm` (the simulator as HIP 7, or a
//! GPU with `AMDGPU_BACKEND`). A runtime without virtual memory is said so,
//! and nothing is timed.

use criterion::Criterion;
use hip_core::raw::vmm::{self, Access};
use hip_core::Device;
use hip_sys::bindings::hip::{hipMemAccessDesc, hipMemAccessFlags, hipMemLocation, hipMemLocationType};
use std::hint::black_box;

mod support;
use support::mean_ns;

#[path = "../../amdgpu/benches/nvidia/mod.rs"]
mod nvidia;

const GROUP: &str = "hip-core-vmm";
const RAW: &str = "table map + access + unmap";
const OURS: &str = "wrappers map + access + unmap";
const CUDA: &str = "cuMemMap + cuMemSetAccess + cuMemUnmap";
const GROWTH: &str = "hip-core-vmm-growth";
/// Bytes each growth maps: a whole number of chunks of either size.
const GROWN: usize = 80 << 20;
const MALLOC: &str = "hipMalloc + hipFree";

fn main() {
    let mut c = Criterion::default().configure_from_args();
    let device = Device::new(0).expect("a device");
    if !vmm::supported(device).expect("the attribute") {
        println!("the runtime has no virtual memory management here: nothing to time");
        return;
    }
    let api = hip_sys::hip().expect("a backend");
    let chunk = {
        let granule = vmm::granularity(device, false).expect("granularity");
        granule.max(64 << 10).next_multiple_of(granule)
    };
    let base = vmm::reserve(device, chunk).expect("a reservation");
    let handle = vmm::create(device, chunk, false).expect("physical memory");
    let desc = hipMemAccessDesc {
        location: hipMemLocation { type_: hipMemLocationType::hipMemLocationTypeDevice, id: 0 },
        flags: hipMemAccessFlags::hipMemAccessFlagsProtReadWrite,
    };

    let mut group = c.benchmark_group(GROUP);
    group.bench_function(RAW, |b| {
        b.iter(|| {
            // SAFETY: an empty reservation of `chunk` bytes and a live handle
            // of that size; mapped, then all of it given access, then unmapped.
            unsafe {
                let _ = black_box((api.hipMemMap)(base, chunk, 0, handle, 0));
                let _ = black_box((api.hipMemSetAccess)(base, chunk, &desc, 1));
                let _ = black_box((api.hipMemUnmap)(base, chunk));
            }
        })
    });
    group.bench_function(OURS, |b| {
        b.iter(|| {
            // SAFETY: as above; no work uses the memory.
            unsafe {
                vmm::map(device, base, chunk, handle).expect("map");
                vmm::set_access(device, base, chunk, &[(device, Access::ReadWrite)]).expect("access");
                vmm::unmap(device, base, chunk).expect("unmap");
            }
        })
    });
    if hip_sys::backend() == hip_sys::Backend::Nvidia {
        let lib = nvidia::open(&["libcuda.so.1", "libcuda.so"]);
        type Map = unsafe extern "C" fn(u64, usize, usize, u64, u64) -> i32;
        type SetAccess = unsafe extern "C" fn(u64, usize, *const hipMemAccessDesc, usize) -> i32;
        type Unmap = unsafe extern "C" fn(u64, usize) -> i32;
        // SAFETY: the driver's signatures (CUmemAccessDesc is HIP's layout,
        // CUmemGenericAllocationHandle HIP's handle value).
        let (map, set_access, unmap) = unsafe {
            (
                nvidia::function::<Map>(&lib, "cuMemMap"),
                nvidia::function::<SetAccess>(&lib, "cuMemSetAccess"),
                nvidia::function::<Unmap>(&lib, "cuMemUnmap"),
            )
        };
        let (ptr, raw_handle) = (base as u64, handle as u64);
        group.bench_function(CUDA, |b| {
            b.iter(|| {
                // SAFETY: as above, on the primary context our calls made current.
                unsafe {
                    black_box(map(ptr, chunk, 0, raw_handle, 0));
                    black_box(set_access(ptr, chunk, &desc, 1));
                    black_box(unmap(ptr, chunk));
                }
            })
        });
    }
    group.finish();
    // SAFETY: nothing is mapped any more; each released once.
    unsafe {
        vmm::release(device, handle).expect("release");
        vmm::free_reservation(device, base, chunk).expect("free");
    }
    let sizes = growth(&mut c, device);
    c.final_summary();
    let raw = mean_ns(GROUP, RAW).unwrap_or(f64::NAN);
    println!("one chunk of {} KiB:", chunk >> 10);
    for what in [OURS, CUDA] {
        if let Some(ns) = mean_ns(GROUP, what) {
            println!("  {what:<42} {ns:>10.1} ns, {:.3}x the table's own calls ({raw:.1} ns)", ns / raw);
        }
    }
    let malloc = mean_ns(GROWTH, MALLOC).unwrap_or(f64::NAN);
    println!("{} MiB mapped and given back, by chunk size:", GROWN >> 20);
    for size in sizes {
        if let Some(ns) = mean_ns(GROWTH, &chunks_id(size)) {
            let per_chunk = ns / (GROWN / size) as f64;
            println!(
                "  {:>3} MiB chunks {:>10.1} us ({:.1} us a chunk), {:.2}x hipMalloc + hipFree ({:.1} us)",
                size >> 20,
                ns / 1e3,
                per_chunk / 1e3,
                ns / malloc,
                malloc / 1e3
            );
        }
    }
}

fn chunks_id(size: usize) -> String {
    format!("{} MiB chunks", size >> 20)
}

/// Time `GROWN` bytes mapped and given back in chunks of 2 and of 20 MiB
/// (whole granules), as the expandable pool does, and `hipMalloc` +
/// `hipFree` of as many bytes; the chunk sizes timed.
fn growth(c: &mut Criterion, device: Device) -> Vec<usize> {
    let granule = vmm::granularity(device, false).expect("granularity");
    let sizes: Vec<usize> =
        [2 << 20, 20 << 20].into_iter().filter(|size: &usize| size % granule == 0 && GROWN % size == 0).collect();
    let base = vmm::reserve(device, GROWN).expect("a reservation") as usize;
    let mut group = c.benchmark_group(GROWTH);
    group.sample_size(20);
    for &size in &sizes {
        group.bench_function(chunks_id(size), |b| {
            b.iter(|| {
                let at = |i: usize| (base + i * size) as *mut std::ffi::c_void;
                let handles: Vec<_> =
                    (0..GROWN / size).map(|_| vmm::create(device, size, true).expect("a chunk")).collect();
                for (i, &handle) in handles.iter().enumerate() {
                    // SAFETY: an unmapped chunk of the reservation, a live
                    // handle of its size.
                    unsafe { vmm::map(device, at(i), size, handle) }.expect("map");
                }
                // SAFETY: the whole reservation, mapped above.
                unsafe { vmm::set_access(device, at(0), GROWN, &[(device, Access::ReadWrite)]) }.expect("access");
                for (i, &handle) in handles.iter().enumerate() {
                    // SAFETY: the chunk mapped above, which nothing used;
                    // its handle released once, after.
                    unsafe {
                        vmm::unmap(device, at(i), size).expect("unmap");
                        vmm::release(device, handle).expect("release");
                    }
                }
            })
        });
    }
    group.bench_function(MALLOC, |b| {
        b.iter(|| {
            let ptr = hip_core::raw::mem::malloc(device, GROWN).expect("hipMalloc");
            // SAFETY: the allocation just made, which nothing used.
            unsafe { hip_core::raw::mem::free(device, ptr) }.expect("hipFree");
        })
    });
    group.finish();
    // SAFETY: nothing is mapped; the reservation is freed once.
    unsafe { vmm::free_reservation(device, base as *mut std::ffi::c_void, GROWN) }.expect("free");
    sizes
}
