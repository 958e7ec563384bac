//! What HIP keeps per thread: the current device, the context stack and
//! the last error.

use std::cell::RefCell;

/// What HIP keeps per thread.
///
/// It holds no heap data, so it has no destructor: the thread-local stays
/// usable while other thread-locals are destroyed at thread exit (a
/// stream released by another library's thread-local destructor still
/// sees its thread's current device).
pub(crate) struct ThreadHip {
    /// The current device; `None` until the first call (then device 0).
    pub device: Option<usize>,
    /// The context stack of `hipCtxPushCurrent` / `hipCtxPopCurrent`.
    pub ctx_stack: ContextStack,
    /// The last error, ROCm 7 semantics.
    pub last_error: crate::bindings::hip::hipError_t,
}

/// A bounded stack of device ordinals, without heap memory.
pub(crate) struct ContextStack {
    items: [u8; 32],
    len: usize,
}

impl ContextStack {
    /// Push; `false` when the stack is full.
    pub fn push(&mut self, device: usize) -> bool {
        if self.len == self.items.len() {
            return false;
        }
        self.items[self.len] = device as u8;
        self.len += 1;
        true
    }

    pub fn pop(&mut self) -> Option<usize> {
        self.len = self.len.checked_sub(1)?;
        Some(self.items[self.len] as usize)
    }

    pub fn set_top(&mut self, device: usize) -> bool {
        match self.len.checked_sub(1) {
            Some(top) => {
                self.items[top] = device as u8;
                true
            }
            None => false,
        }
    }
}

thread_local! {
    static THREAD: RefCell<ThreadHip> = const {
        RefCell::new(ThreadHip {
            device: None,
            ctx_stack: ContextStack { items: [0; 32], len: 0 },
            last_error: crate::bindings::hip::hipError_t::hipSuccess,
        })
    };
}

/// Run `f` on the calling thread's HIP state.
pub(crate) fn with_thread<R>(f: impl FnOnce(&mut ThreadHip) -> R) -> R {
    THREAD.with(|t| f(&mut t.borrow_mut()))
}

/// The calling thread's current device, lazily device 0 (HIP's `HIP_INIT`).
pub(crate) fn current_device() -> usize {
    with_thread(|t| *t.device.get_or_insert(0))
}
