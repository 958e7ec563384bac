//! The HIP functions of the table by index, and how many times each has
//! been called, on every thread and per thread.

use crate::bindings::hip::HipApi;
use std::cell::RefCell;
use std::sync::atomic::{AtomicU64, Ordering};

const COUNT: usize = HipApi::SYMBOLS.len();

/// Index of `name` in [`HipApi::SYMBOLS`], for compile-time use.
pub(crate) const fn index_of(name: &str) -> usize {
    let mut i = 0;
    while i < COUNT {
        if const_str_eq(HipApi::SYMBOLS[i], name) {
            return i;
        }
        i += 1;
    }
    panic!("not a HipApi symbol")
}

const fn const_str_eq(a: &str, b: &str) -> bool {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    if a.len() != b.len() {
        return false;
    }
    let mut i = 0;
    while i < a.len() {
        if a[i] != b[i] {
            return false;
        }
        i += 1;
    }
    true
}

/// `idx!("hipMalloc")`: the compile-time index of a table symbol.
macro_rules! idx {
    ($name:literal) => {{
        const I: usize = $crate::machine::calls::index_of($name);
        I
    }};
}
pub(crate) use idx;

#[allow(clippy::declare_interior_mutable_const)]
const ZERO: AtomicU64 = AtomicU64::new(0);
static CALLS: [AtomicU64; COUNT] = [ZERO; COUNT];

thread_local! {
    static THREAD_CALLS: RefCell<[u64; COUNT]> = const { RefCell::new([0; COUNT]) };
}

/// Calls of the HIP function `name` made so far, on every thread.
///
/// `name` is the C name (`"hipMalloc"`); an unknown name counts 0.
pub fn call_count(name: &str) -> u64 {
    HipApi::SYMBOLS.iter().position(|s| *s == name).map_or(0, |i| CALLS[i].load(Ordering::Relaxed))
}

/// Calls of the HIP function `name` made so far by the calling thread.
pub fn thread_call_count(name: &str) -> u64 {
    HipApi::SYMBOLS.iter().position(|s| *s == name).map_or(0, |i| THREAD_CALLS.with(|c| c.borrow()[i]))
}

/// Count one call of the function at `index`.
pub(crate) fn count(index: usize) {
    CALLS[index].fetch_add(1, Ordering::Relaxed);
    THREAD_CALLS.with(|c| c.borrow_mut()[index] += 1);
}

/// Index of `name` in [`HipApi::SYMBOLS`], at run time.
pub(crate) fn index_of_runtime(name: &str) -> Option<usize> {
    HipApi::SYMBOLS.iter().position(|s| *s == name)
}
