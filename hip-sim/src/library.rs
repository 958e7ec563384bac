//! rocBLAS, rocSPARSE, rocFFT and MIOpen in the simulator: reference implementations
//! computed on the CPU over simulator memory.
//!
//! # What they share
//!
//! - **Objects** (handles, plans, descriptors, execution infos) live in a
//!   [`Registry`] per library, of that library's `Kind`, keyed by
//!   never-reused handle values, each recording the device current when it
//!   was made. [`live_library_objects`] counts them per device over every
//!   registry, so tests can check for leaks. None of them allocates
//!   device memory: where a real library needs a work buffer, the caller
//!   provides it, as the real APIs require.
//! - **Device rule**: handles (`rocsparse_handle`, `miopenHandle_t`) and
//!   rocFFT plans belong to the device current at creation. Every call on
//!   one while the calling thread's current device is another is recorded
//!   as a context violation, destroys included (the project's rule is that
//!   destroys run under the object's device, although real destroys are
//!   device-agnostic on AMD).
//! - **Stream order**: computations are queued on the handle's stream (or,
//!   for rocFFT, the execution info's stream; null means the object's
//!   device's null stream) and run there in order with HIP work, so they
//!   are asynchronous like the real libraries. Operands are checked when
//!   the call is made (unknown or too small device memory is the library's
//!   pointer error); the bytes are read and written when the work runs.
//!   Operands must be simulator device memory: host memory is refused
//!   (stricter than a GPU with host-mapped memory).
//! - **No panics escape**: each entry point catches a panic and returns the
//!   library's internal-error status, as `entry.rs` does for HIP.
//!
//! Arithmetic runs in the operands' precision (single precision in `f32`)
//! in all three libraries, so single-precision tolerances are a GPU's.

use super::place::{resolve, Place};
use crate::bindings::hip::hipError_t;
use crate::machine::handles::new_handle;
use crate::machine::lock::lock;
use crate::machine::memory::Allocation;
use crate::machine::races::{self, Access};
use crate::machine::thread::current_device;
use crate::machine::violations::AccessKind;
use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

/// One library object: what it is (the library's `Kind`), and the device
/// current when it was made.
pub(crate) struct Object<K> {
    /// The device current at creation.
    pub device: usize,
    /// What it is.
    pub kind: K,
}

/// One library's objects, by handle value (unique across the libraries:
/// [`new_handle`]). Each library keeps one, of its own `Kind`, so that
/// this module names no library; the first object lists the registry for
/// [`live_library_objects`].
pub(crate) struct Registry<K: 'static> {
    objects: Mutex<Option<HashMap<usize, Object<K>>>>,
    listed: AtomicBool,
}

/// What [`live_library_objects`] asks of each registry.
trait Census: Sync {
    /// The objects made while `device` was current.
    fn live(&self, device: usize) -> usize;
}

impl<K: Send + 'static> Census for Registry<K> {
    fn live(&self, device: usize) -> usize {
        self.count(|o| o.device == device)
    }
}

/// Every registry that has held an object.
static REGISTRIES: Mutex<Vec<&'static dyn Census>> = Mutex::new(Vec::new());

impl<K: Send + 'static> Registry<K> {
    /// An empty registry (for a `static`).
    pub const fn new() -> Registry<K> {
        Registry { objects: Mutex::new(None), listed: AtomicBool::new(false) }
    }

    /// Register `kind` under the current device; returns its handle value.
    pub fn insert(&'static self, kind: K) -> usize {
        if !self.listed.swap(true, Ordering::AcqRel) {
            lock(&REGISTRIES).push(self);
        }
        let handle = new_handle();
        let device = current_device();
        lock(&self.objects).get_or_insert_with(HashMap::new).insert(handle, Object { device, kind });
        handle
    }

    /// Run `f` on the object `handle`, if there is one.
    pub fn with<R>(&self, handle: usize, f: impl FnOnce(&mut Object<K>) -> R) -> Option<R> {
        lock(&self.objects).as_mut()?.get_mut(&handle).map(f)
    }

    /// Remove the object `handle` if `accept` says it is of the right kind.
    pub fn remove_if(&self, handle: usize, accept: impl FnOnce(&K) -> bool) -> Option<Object<K>> {
        let mut objects = lock(&self.objects);
        let map = objects.as_mut()?;
        if accept(&map.get(&handle)?.kind) {
            map.remove(&handle)
        } else {
            None
        }
    }

    /// Count the objects that satisfy `f`.
    pub fn count(&self, f: impl Fn(&Object<K>) -> bool) -> usize {
        lock(&self.objects).as_ref().map_or(0, |m| m.values().filter(|o| f(o)).count())
    }
}

/// Library objects alive on `device`: handles, plans, descriptors and
/// execution infos of rocSPARSE, rocFFT, rocBLAS, rocRAND and MIOpen made
/// while `device` was current.
pub fn live_library_objects(device: usize) -> usize {
    let registries: Vec<&'static dyn Census> = lock(&REGISTRIES).clone();
    registries.iter().map(|r| r.live(device)).sum()
}

/// `name` as a `&'static str`, made once for the process: a name known
/// only at run time, for the violations, race reports, traces and graph
/// nodes that name it: a C function that one generic entry point serves
/// for several precisions (`rocsolver_cheevd`), a compiled kernel. At most
/// one allocation per name.
pub(crate) fn function_name(name: std::fmt::Arguments<'_>) -> &'static str {
    static NAMES: Mutex<Vec<&'static str>> = Mutex::new(Vec::new());
    let wanted = name.to_string();
    let mut names = lock(&NAMES);
    if let Some(known) = names.iter().find(|n| **n == wanted) {
        return known;
    }
    let made: &'static str = Box::leak(wanted.into_boxed_str());
    names.push(made);
    made
}

/// Run one library entry point: `ok` on success, the body's status on
/// failure, and `internal` for a panic, which must not unwind into a C
/// caller.
pub(crate) fn call<S>(function: &'static str, ok: S, internal: S, body: impl FnOnce() -> Result<(), S>) -> S {
    match std::panic::catch_unwind(std::panic::AssertUnwindSafe(body)) {
        Ok(Ok(())) => ok,
        Ok(Err(status)) => status,
        Err(_) => {
            log::error!("hip simulator: internal panic in {function}");
            internal
        }
    }
}

/// Write `value` through an out-pointer; null gives `null_status`.
///
/// # Safety
/// `out` is null or valid for a write of `T`.
pub(crate) unsafe fn write_out<T, S>(out: *mut T, value: T, null_status: S) -> Result<(), S> {
    if out.is_null() {
        return Err(null_status);
    }
    // SAFETY: non-null, and the caller guarantees it is valid for writes.
    unsafe { out.write(value) };
    Ok(())
}

/// A range of device memory that an operation reads or writes.
#[derive(Clone)]
pub(crate) struct Span {
    allocation: Arc<Allocation>,
    offset: usize,
    len: usize,
}

/// The device memory of `bytes` bytes at `ptr`; `None` for null, host
/// memory, or memory outside one live allocation.
pub(crate) fn span(ptr: usize, bytes: usize) -> Option<Span> {
    match resolve(ptr, bytes.max(1)) {
        Ok(Place::Device(allocation, offset)) => Some(Span { allocation, offset, len: bytes }),
        _ => None,
    }
}

/// The race detector's accesses of a library computation: each span with
/// what the computation does to it (a span listed twice is best listed
/// once, as a write).
pub(crate) fn accesses<'a>(spans: impl IntoIterator<Item = (&'a Span, AccessKind)>) -> Vec<Access> {
    if !races::race_check_enabled() {
        return Vec::new();
    }
    spans.into_iter().map(|(s, kind)| Access::new(&s.allocation.races, s.offset, s.len, kind)).collect()
}

/// The element types the libraries compute with.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Real {
    F32,
    F64,
}

impl Real {
    pub fn size(self) -> usize {
        match self {
            Real::F32 => 4,
            Real::F64 => 8,
        }
    }
}

impl Span {
    /// `count` reals from element `first` on.
    pub fn read(&self, real: Real, first: usize, count: usize) -> Result<Vec<f64>, hipError_t> {
        let data = lock(&self.allocation.data);
        let start = self.offset + first * real.size();
        let end = start + count * real.size();
        let bytes = data.get(start..end).ok_or(hipError_t::hipErrorIllegalAddress)?;
        Ok(match real {
            Real::F32 => bytes.chunks_exact(4).map(|c| f32::from_ne_bytes([c[0], c[1], c[2], c[3]]) as f64).collect(),
            Real::F64 => bytes
                .chunks_exact(8)
                .map(|c| f64::from_ne_bytes([c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7]]))
                .collect(),
        })
    }

    /// Write `values` from element `first` on.
    pub fn write(&self, real: Real, first: usize, values: &[f64]) -> Result<(), hipError_t> {
        let mut data = lock(&self.allocation.data);
        let start = self.offset + first * real.size();
        let end = start + values.len() * real.size();
        let bytes = data.get_mut(start..end).ok_or(hipError_t::hipErrorIllegalAddress)?;
        match real {
            Real::F32 => {
                for (chunk, v) in bytes.chunks_exact_mut(4).zip(values) {
                    chunk.copy_from_slice(&(*v as f32).to_ne_bytes());
                }
            }
            Real::F64 => {
                for (chunk, v) in bytes.chunks_exact_mut(8).zip(values) {
                    chunk.copy_from_slice(&v.to_ne_bytes());
                }
            }
        }
        Ok(())
    }

    /// Its first byte's address.
    pub fn address(&self) -> usize {
        self.allocation.base + self.offset
    }

    /// The device the memory is on (of mapped memory, the device of the
    /// physical memory mapped there).
    pub fn device(&self) -> Option<usize> {
        Some(crate::place::memory_device(&self.allocation, self.offset))
    }

    /// The first `len` bytes.
    pub fn bytes(&self, len: usize) -> Result<Vec<u8>, hipError_t> {
        let data = lock(&self.allocation.data);
        data.get(self.offset..self.offset + len).map(<[u8]>::to_vec).ok_or(hipError_t::hipErrorIllegalAddress)
    }

    /// Write `bytes` from the start.
    pub fn write_bytes(&self, bytes: &[u8]) -> Result<(), hipError_t> {
        let mut data = lock(&self.allocation.data);
        let target = data.get_mut(self.offset..self.offset + bytes.len()).ok_or(hipError_t::hipErrorIllegalAddress)?;
        target.copy_from_slice(bytes);
        Ok(())
    }

    /// `count` 32-bit integers.
    pub fn read_i32(&self, count: usize) -> Result<Vec<i32>, hipError_t> {
        let data = lock(&self.allocation.data);
        let bytes = data.get(self.offset..self.offset + 4 * count).ok_or(hipError_t::hipErrorIllegalAddress)?;
        Ok(bytes.chunks_exact(4).map(|c| i32::from_ne_bytes([c[0], c[1], c[2], c[3]])).collect())
    }
}

/// Read a host scalar of type `real` (pointer mode host).
///
/// # Safety
/// `ptr` is non-null and valid for a read of that type.
pub(crate) unsafe fn host_scalar(ptr: *const std::ffi::c_void, real: Real) -> f64 {
    // SAFETY: guaranteed by the caller.
    unsafe {
        match real {
            Real::F32 => ptr.cast::<f32>().read_unaligned() as f64,
            Real::F64 => ptr.cast::<f64>().read_unaligned(),
        }
    }
}
