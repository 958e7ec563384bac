//! Locks that shrug off poisoning, written once for every crate.
//!
//! A panic while a lock is held (there is none by design: library code
//! does not panic) would poison it, and every later `lock().unwrap()`
//! would panic too, turning one bug into a process that can no longer
//! free GPU memory. The state these locks guard (lists, counters, caches)
//! stays consistent at every await point of its holder, so taking it over
//! is always right. Every crate of the workspace locks through these.

use std::sync::{Condvar, Mutex, MutexGuard, PoisonError, RwLock, RwLockReadGuard, RwLockWriteGuard};
use std::time::Duration;

/// [`Mutex`] access that ignores poisoning.
pub trait MutexExt<T: ?Sized> {
    /// Lock, taking the data over from a holder that panicked.
    fn lock_unpoisoned(&self) -> MutexGuard<'_, T>;
    /// The data through `&mut`, poisoned or not.
    fn get_mut_unpoisoned(&mut self) -> &mut T;
}

impl<T: ?Sized> MutexExt<T> for Mutex<T> {
    #[inline]
    fn lock_unpoisoned(&self) -> MutexGuard<'_, T> {
        self.lock().unwrap_or_else(PoisonError::into_inner)
    }

    #[inline]
    fn get_mut_unpoisoned(&mut self) -> &mut T {
        self.get_mut().unwrap_or_else(PoisonError::into_inner)
    }
}

/// [`RwLock`] access that ignores poisoning.
pub trait RwLockExt<T: ?Sized> {
    /// Lock for reading.
    fn read_unpoisoned(&self) -> RwLockReadGuard<'_, T>;
    /// Lock for writing.
    fn write_unpoisoned(&self) -> RwLockWriteGuard<'_, T>;
}

impl<T: ?Sized> RwLockExt<T> for RwLock<T> {
    #[inline]
    fn read_unpoisoned(&self) -> RwLockReadGuard<'_, T> {
        self.read().unwrap_or_else(PoisonError::into_inner)
    }

    #[inline]
    fn write_unpoisoned(&self) -> RwLockWriteGuard<'_, T> {
        self.write().unwrap_or_else(PoisonError::into_inner)
    }
}

/// [`Condvar`] waits that ignore poisoning.
pub trait CondvarExt {
    /// [`Condvar::wait`].
    fn wait_unpoisoned<'a, T>(&self, guard: MutexGuard<'a, T>) -> MutexGuard<'a, T>;
    /// [`Condvar::wait_timeout`], without the timeout flag.
    fn wait_timeout_unpoisoned<'a, T>(&self, guard: MutexGuard<'a, T>, timeout: Duration) -> MutexGuard<'a, T>;
    /// [`Condvar::wait_timeout_while`], without the timeout flag.
    fn wait_timeout_while_unpoisoned<'a, T>(
        &self,
        guard: MutexGuard<'a, T>,
        timeout: Duration,
        condition: impl FnMut(&mut T) -> bool,
    ) -> MutexGuard<'a, T>;
}

impl CondvarExt for Condvar {
    fn wait_unpoisoned<'a, T>(&self, guard: MutexGuard<'a, T>) -> MutexGuard<'a, T> {
        self.wait(guard).unwrap_or_else(PoisonError::into_inner)
    }

    fn wait_timeout_unpoisoned<'a, T>(&self, guard: MutexGuard<'a, T>, timeout: Duration) -> MutexGuard<'a, T> {
        self.wait_timeout(guard, timeout).map(|(g, _)| g).unwrap_or_else(|p| p.into_inner().0)
    }

    fn wait_timeout_while_unpoisoned<'a, T>(
        &self,
        guard: MutexGuard<'a, T>,
        timeout: Duration,
        condition: impl FnMut(&mut T) -> bool,
    ) -> MutexGuard<'a, T> {
        self.wait_timeout_while(guard, timeout, condition).map(|(g, _)| g).unwrap_or_else(|p| p.into_inner().0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_poisoned_lock_is_taken_over() {
        let lock = std::sync::Arc::new(Mutex::new(1));
        let held = lock.clone();
        let _ = std::thread::spawn(move || {
            let _guard = held.lock().unwrap();
            panic!("poison it");
        })
        .join();
        assert!(lock.is_poisoned());
        *lock.lock_unpoisoned() += 1;
        assert_eq!(*lock.lock_unpoisoned(), 2);
        let rw = RwLock::new(3);
        assert_eq!(*rw.read_unpoisoned(), 3);
        *rw.write_unpoisoned() = 4;
        let cv = Condvar::new();
        let guard = cv.wait_timeout_unpoisoned(lock.lock_unpoisoned(), Duration::from_millis(1));
        assert_eq!(*guard, 2);
    }
}
