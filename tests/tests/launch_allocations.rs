//! A declared kernel's launch allocates nothing (issue 20), counted by a
//! global allocator on the launching thread.
//!
//! Only on nvidia: the simulator's launches allocate for their own
//! bookkeeping (the queued work), which would hide ours.

use amdgpu::kernel::{In, Kernel, Len, Out};
use amdgpu::prelude::*;
use amdgpu::LaunchConfig;
use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;

mod common;

struct Counting;

thread_local! {
    static ALLOCATIONS: Cell<u64> = const { Cell::new(0) };
}

// SAFETY: every call is passed to the system allocator unchanged; the
// count is a thread-local cell with no destructor, which allocates nothing.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let _ = ALLOCATIONS.try_with(|c| c.set(c.get() + 1));
        // SAFETY: the caller's layout, passed on.
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: the caller's pointer and layout, passed on.
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        let _ = ALLOCATIONS.try_with(|c| c.set(c.get() + 1));
        // SAFETY: the caller's arguments, passed on.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static COUNTING: Counting = Counting;

fn allocations() -> u64 {
    ALLOCATIONS.with(Cell::get)
}

#[test]
fn a_typed_launch_allocates_nothing() {
    if amdgpu::backend() != amdgpu::Backend::Nvidia {
        eprintln!("skipped: the simulator's launches allocate for their own queue; run on nvidia");
        return;
    }
    let Some(module) = common::test_module(device()) else { return };
    // SAFETY: vector_add_f32(const float* a, const float* b, float* c, uint32_t n) touches [0, n).
    let add = unsafe { Kernel::<(In<f32>, In<f32>, Out<f32>, Len)>::from_module(&module, "vector_add_f32") }.unwrap();
    let s = stream();
    let a = DeviceArray::from_slice_on(&s, &[1.0f32; 1024]).unwrap();
    let mut c = DeviceArray::<f32>::zeros_on(&s, 1024).unwrap();
    let config = LaunchConfig::linear(device(), 1024).unwrap();
    // The first launch reads the device's limits once.
    add.launch(config, &s, (&a, &a, &mut c, 1024)).unwrap();
    let before = allocations();
    for _ in 0..100 {
        add.launch(config, &s, (&a, &a, &mut c, 1024)).unwrap();
    }
    let during = allocations() - before;
    s.synchronize().unwrap();
    assert_eq!(during, 0, "100 launches allocated {during} times");
    assert!(c.to_vec().unwrap().iter().all(|v| *v == 2.0));
}
