//! Profiler ranges and marks: names on the timeline of a profiler, so
//! that a slow or failing region of a program is found by its name.
//!
//! [`range`] opens a range on the calling thread that closes when its
//! guard drops; ranges nest. [`mark`] puts a named instant on the
//! timeline. Both go to the backend's annotation library:
//!
//! - **amd**: ROCTx (`librocprofiler-sdk-roctx.so`, else `libroctx64.so`,
//!   beside the runtime), which rocprofv3 (`--marker-trace`) and rocprof
//!   show;
//! - **sim**: the simulator's timeline (`hip_sys::sim::profile_events`);
//! - **nvidia**: NVTX, through its injection protocol: the tool that
//!   Nsight Systems or Nsight Compute names in `NVTX_INJECTION64_PATH`
//!   (none: no-ops).
//!
//! Without a library (or after [`set_enabled(false)`](set_enabled)) a
//! call costs one atomic load; the first call that finds none says so
//! once in the log. Names are copied into a buffer of the thread, cut at
//! an interior NUL; no allocation after the first.
//!
//! With the `tracing` feature, `RangeLayer` makes every `tracing` span
//! a range while a thread is inside it, and the runtime's own operations
//! (launches, graph replays, captures, copies, the pool's trips to the
//! driver) are spans and events of their own, at `trace` and `debug`
//! level.
//!
//! A [`Range`] belongs to its thread (it is neither `Send` nor `Sync`): a
//! range is on one thread's stack, and closing it from another would
//! close that thread's range instead. Ranges close innermost first, as
//! the libraries require: a guard dropped while a range opened after it is
//! still open closes when that one does. A guard forgotten with
//! [`std::mem::forget`] leaves its range, and those opened before it on
//! the thread, open: the profiler shows them running to the end.
//!
//! ```
//! use hip_core::profile;
//!
//! let _step = profile::range("training step");
//! {
//!     let _forward = profile::range("forward"); // nested in "training step"
//!     profile::mark("checkpoint");
//! } // "forward" closes here
//! ```
//!
//! A range cannot leave its thread:
//!
//! ```compile_fail
//! let range = hip_core::profile::range("here");
//! std::thread::spawn(move || drop(range)); // a Range is not Send
//! ```

#[cfg(feature = "tracing")]
mod layer;
#[cfg(feature = "tracing")]
pub use layer::RangeLayer;

use crate::raw::profile as raw;
use hip_sys::roctx::RoctxApi;
use std::cell::RefCell;
use std::ffi::CStr;
use std::marker::PhantomData;
use std::sync::atomic::{AtomicU8, Ordering};
use std::sync::OnceLock;

/// Not decided yet: the first call looks for the library.
const UNDECIDED: u8 = 0;
/// No library, or switched off: every call returns at once.
const OFF: u8 = 1;
/// The library is loaded and ranges go to it.
const ON: u8 = 2;

static STATE: AtomicU8 = AtomicU8::new(UNDECIDED);
/// The library's table, once found.
static TABLE: OnceLock<Option<&'static RoctxApi>> = OnceLock::new();

/// The table ranges go to, or `None` (one atomic load when off).
#[inline]
fn table() -> Option<&'static RoctxApi> {
    match STATE.load(Ordering::Relaxed) {
        OFF => None,
        ON => TABLE.get().copied().flatten(),
        _ => decide(),
    }
}

#[cold]
fn decide() -> Option<&'static RoctxApi> {
    let table = *TABLE.get_or_init(|| match hip_sys::roctx() {
        Ok(table) => Some(table),
        Err(e) => {
            log::info!("profiler ranges and marks are no-ops in this process: {e}");
            None
        }
    });
    // A concurrent `set_enabled(false)` wins: only an undecided state is
    // settled here.
    let settled = if table.is_some() { ON } else { OFF };
    let _ = STATE.compare_exchange(UNDECIDED, settled, Ordering::Relaxed, Ordering::Relaxed);
    table.filter(|_| STATE.load(Ordering::Relaxed) == ON)
}

/// Switch ranges and marks on (the default, where the backend has an
/// annotation library) or off for the process, e.g. to measure what they
/// cost. Ranges open when they are switched off still close.
pub fn set_enabled(on: bool) {
    STATE.store(if on { UNDECIDED } else { OFF }, Ordering::Relaxed);
}

/// Whether ranges and marks reach an annotation library now (looking for
/// it on the first call).
pub fn enabled() -> bool {
    table().is_some()
}

struct Thread {
    /// `name` with a NUL after it, cut at its first NUL.
    name: Vec<u8>,
    /// This thread's ranges opened through [`range`], innermost last:
    /// whether each one's guard has dropped (it closes once every range
    /// after it has).
    dropped: Vec<bool>,
}

thread_local! {
    static THREAD: RefCell<Thread> = const { RefCell::new(Thread { name: Vec::new(), dropped: Vec::new() }) };
}

/// Run `f` with `name` as a C string, from the thread's buffer.
fn with_name<R>(thread: &mut Thread, name: &str, f: impl FnOnce(&CStr) -> R) -> R {
    let bytes = name.as_bytes();
    let bytes = &bytes[..bytes.iter().position(|b| *b == 0).unwrap_or(bytes.len())];
    thread.name.clear();
    thread.name.extend_from_slice(bytes);
    thread.name.push(0);
    match CStr::from_bytes_with_nul(&thread.name) {
        Ok(name) => f(name),
        // Unreachable: one NUL, at the end.
        Err(_) => f(c""),
    }
}

/// A range of the calling thread on the profiler's timeline, open until
/// the guard drops. Made by [`range`].
#[must_use = "the range closes when this guard drops"]
pub struct Range {
    /// Its place on the thread's stack of ranges, if it opened one.
    index: Option<usize>,
    /// A range belongs to its thread.
    _thread: PhantomData<*const ()>,
}

/// Open a range named `name` on the calling thread, closed when the
/// returned guard drops. A no-op (one atomic load) without an annotation
/// library.
#[doc(alias = "roctxRangePushA")]
#[inline]
pub fn range(name: &str) -> Range {
    Range { index: open_range(name), _thread: PhantomData }
}

/// Open a range on the library, if there is one; its place on the
/// thread's stack, for [`close`].
#[inline]
fn open_range(name: &str) -> Option<usize> {
    match table() {
        Some(table) => open(table, name),
        None => None,
    }
}

/// Open the range on the library; its place on the thread's stack.
fn open(table: &'static RoctxApi, name: &str) -> Option<usize> {
    // Only a tool calling back into this thread's ranges from inside one
    // of its calls finds the state borrowed: that range is not opened.
    THREAD
        .try_with(|t| {
            let mut thread = t.try_borrow_mut().ok()?;
            with_name(&mut thread, name, |name| raw::range_push(table, name));
            thread.dropped.push(false);
            Some(thread.dropped.len() - 1)
        })
        .ok()
        .flatten()
}

/// Close the range at `index` of the thread's stack, and every dropped
/// one below it that now is innermost.
fn close(index: usize) {
    // The table was found when the range opened; it stays loaded.
    let Some(table) = TABLE.get().copied().flatten() else { return };
    // During the thread's exit the state may be gone: the range stays
    // open, as the thread's others do.
    let _ = THREAD.try_with(|t| {
        let Ok(mut thread) = t.try_borrow_mut() else { return };
        if let Some(dropped) = thread.dropped.get_mut(index) {
            *dropped = true;
        }
        while thread.dropped.last() == Some(&true) {
            thread.dropped.pop();
            raw::range_pop(table);
        }
    });
}

impl Drop for Range {
    #[inline]
    fn drop(&mut self) {
        if let Some(index) = self.index {
            close(index);
        }
    }
}

/// Put an instant named `name` on the calling thread's timeline. A no-op
/// (one atomic load) without an annotation library.
#[doc(alias = "roctxMarkA")]
#[inline]
pub fn mark(name: &str) {
    if let Some(table) = table() {
        mark_on(table, name);
    }
}

fn mark_on(table: &'static RoctxApi, name: &str) {
    let _ = THREAD.try_with(|t| {
        if let Ok(mut thread) = t.try_borrow_mut() {
            with_name(&mut thread, name, |name| raw::mark(table, name));
        }
    });
}
