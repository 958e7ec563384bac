//! `Shared<T>`: a reference-counted value that can also be *kept*, made
//! once for the rest of the process, so that cloning and dropping it cost
//! nothing.
//!
//! A counted `Shared` is an `Arc`: clones share the value, and the last
//! drop drops it. A kept one is never dropped, so its clones and drops
//! skip the two atomic read-modify-writes an `Arc` pays, and a [`Kept`]
//! reference to it is a plain `Copy` pointer that a thread-local `Cell`
//! can hold without a destructor. This is what makes the thread's stream
//! ([`crate::stream`]) a load and a copy: threads' streams live for the
//! process anyway (an exiting thread hands them to the next one).
//!
//! The count of a kept value is [`KEPT`] and never changes; a counted
//! value's count stays far below it (cloning aborts the process at
//! `isize::MAX`, as `Arc` does), so one relaxed load tells them apart.

use std::ops::Deref;
use std::ptr::NonNull;
use std::sync::atomic::{fence, AtomicUsize, Ordering};

/// The count of a value that is never dropped.
const KEPT: usize = usize::MAX;

struct Counted<T> {
    refs: AtomicUsize,
    value: T,
}

/// A shared `T`, counted or kept (see the module docs).
pub(crate) struct Shared<T: 'static>(NonNull<Counted<T>>);

/// A `Copy` reference to a kept value, turned back into a [`Shared`] for
/// free.
pub(crate) struct Kept<T: 'static>(&'static Counted<T>);

impl<T> Clone for Kept<T> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<T> Copy for Kept<T> {}

impl<T> Kept<T> {
    /// A `Shared` of the kept value: no count changes.
    #[inline]
    pub(crate) fn share(self) -> Shared<T> {
        Shared(NonNull::from(self.0))
    }
}

// SAFETY: as for `Arc<T>`: the value is shared between threads and dropped
// on whichever drops the last clone, so `T` must be both `Send` and `Sync`.
unsafe impl<T: Send + Sync> Send for Shared<T> {}
// SAFETY: as above.
unsafe impl<T: Send + Sync> Sync for Shared<T> {}
// SAFETY: a `Kept` is a shared reference to a value that is never dropped.
unsafe impl<T: Send + Sync> Send for Kept<T> {}
// SAFETY: as above.
unsafe impl<T: Send + Sync> Sync for Kept<T> {}

impl<T> Shared<T> {
    /// A counted value, dropped with its last clone.
    pub(crate) fn new(value: T) -> Shared<T> {
        Shared(NonNull::from(Box::leak(Box::new(Counted { refs: AtomicUsize::new(1), value }))))
    }

    /// A value kept for the rest of the process: never dropped.
    pub(crate) fn kept(value: T) -> Shared<T> {
        Shared(NonNull::from(Box::leak(Box::new(Counted { refs: AtomicUsize::new(KEPT), value }))))
    }

    #[inline]
    fn counted(&self) -> &Counted<T> {
        // SAFETY: the allocation lives while any `Shared` of it does (a
        // counted one until the count reaches zero, a kept one forever).
        unsafe { self.0.as_ref() }
    }

    /// A `Copy` reference, if the value is kept.
    #[inline]
    pub(crate) fn as_kept(&self) -> Option<Kept<T>> {
        let counted = self.counted();
        if counted.refs.load(Ordering::Relaxed) == KEPT {
            // SAFETY: a kept value is never freed, so the reference is
            // valid for the rest of the process.
            Some(Kept(unsafe { &*self.0.as_ptr() }))
        } else {
            None
        }
    }
}

impl<T> Deref for Shared<T> {
    type Target = T;

    #[inline]
    fn deref(&self) -> &T {
        &self.counted().value
    }
}

impl<T> Clone for Shared<T> {
    #[inline]
    fn clone(&self) -> Self {
        let refs = &self.counted().refs;
        if refs.load(Ordering::Relaxed) != KEPT {
            // Relaxed, as in `Arc::clone`: a new reference is made from an
            // existing one, which already orders what it needs.
            if refs.fetch_add(1, Ordering::Relaxed) > isize::MAX as usize {
                std::process::abort(); // billions of clones leaked: as `Arc` does
            }
        }
        Shared(self.0)
    }
}

impl<T> Drop for Shared<T> {
    #[inline]
    fn drop(&mut self) {
        let refs = &self.counted().refs;
        if refs.load(Ordering::Relaxed) == KEPT || refs.fetch_sub(1, Ordering::Release) != 1 {
            return;
        }
        // As in `Arc::drop`: every other clone's uses happen before the
        // value is dropped.
        fence(Ordering::Acquire);
        // SAFETY: the count reached zero: this was the last `Shared` of a
        // counted value, which `new` allocated as a `Box`.
        drop(unsafe { Box::from_raw(self.0.as_ptr()) });
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::AtomicUsize;
    use std::sync::Arc;

    struct Counts(Arc<AtomicUsize>);

    impl Drop for Counts {
        fn drop(&mut self) {
            self.0.fetch_add(1, Ordering::SeqCst);
        }
    }

    #[test]
    fn a_counted_value_is_dropped_with_its_last_clone_on_any_thread() {
        let drops = Arc::new(AtomicUsize::new(0));
        let shared = Shared::new(Counts(drops.clone()));
        assert!(shared.as_kept().is_none());
        let clones: Vec<_> = (0..8).map(|_| shared.clone()).collect();
        drop(shared);
        // The threads hold their clones until the check below has run:
        // without the barrier they may all have dropped theirs already.
        let barrier = Arc::new(std::sync::Barrier::new(clones.len() + 1));
        let threads: Vec<_> = clones
            .into_iter()
            .map(|c| {
                let barrier = barrier.clone();
                std::thread::spawn(move || {
                    barrier.wait();
                    drop(c)
                })
            })
            .collect();
        assert_eq!(drops.load(Ordering::SeqCst), 0, "dropped while clones were alive");
        barrier.wait();
        threads.into_iter().for_each(|t| t.join().unwrap());
        assert_eq!(drops.load(Ordering::SeqCst), 1);
    }

    #[test]
    fn a_kept_value_is_never_dropped_and_its_references_share_it() {
        let drops = Arc::new(AtomicUsize::new(0));
        let shared = Shared::kept(Counts(drops.clone()));
        let kept = shared.as_kept().expect("kept");
        let again = kept.share();
        assert!(std::ptr::eq(&*again, &*shared));
        drop((shared.clone(), again, shared));
        assert_eq!(drops.load(Ordering::SeqCst), 0);
        assert_eq!(kept.share().refs_for_test(), KEPT);
    }

    impl<T> Shared<T> {
        fn refs_for_test(&self) -> usize {
            self.counted().refs.load(Ordering::SeqCst)
        }
    }
}
