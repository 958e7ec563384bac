//! Copies in a scope: host memory borrowed until the scope's stream has
//! drained, so that no copy records an event.
//!
//! The copies of [`copy`](crate::DeviceArray::copy_from_host_async) carry
//! their own safety: each records an event on its host buffer, which host
//! access and drops wait for. That event is most of what a small copy
//! costs beyond the raw call. [`copy_scope`] is the other sound design,
//! the one scoped threads use: the closure's copies borrow their host
//! memory for the whole scope (`'env`), and the scope returns only after
//! its stream has drained, on a panic too. The borrow checker keeps host
//! code away from the memory until then, so the copies need no events.
//! A guard returned by a copy could not do this: `std::mem::forget` would
//! end its borrow without the wait.

use crate::copy::{check_lengths, check_stream, enqueue, Call, Side};
use crate::host::HostUses;
use crate::{DeviceCopy, DeviceSlice, DeviceSliceMut, HostSlice, HostSliceMut, Result, Stream};
use std::cell::{Cell, RefCell};
use std::ffi::c_void;
use std::marker::PhantomData;

/// Copies between pinned host memory and device arrays that borrow the
/// host side until the scope ends (see [`copy_scope`]).
pub struct CopyScope<'scope, 'env: 'scope> {
    drain: Drain<'env>,
    scope: PhantomData<&'scope mut &'scope ()>,
    env: PhantomData<&'env mut &'env ()>,
}

/// The scope's stream and what its end must do: wait for the stream, on
/// a panic too (its own type, apart from `'scope`, so that it may have a
/// destructor while the closure borrows the scope).
struct Drain<'env> {
    stream: Stream,
    /// The host buffers the scope's copies touch: lost (never released,
    /// host access refused) if the scope cannot wait for its stream.
    touched: RefCell<Vec<&'env HostUses>>,
    drained: Cell<bool>,
}

/// Run `f` with a [`CopyScope`] on `stream`, then wait for the stream, and
/// return `f`'s result.
///
/// Each copy in the scope borrows its host memory until this function
/// returns, so host code cannot touch it (a compile error) while a copy
/// may be using it, and the copies record no events: a small copy costs
/// about what the raw `hipMemcpyAsync` does. The wait at the end covers
/// everything queued on `stream` by then, the scope's copies and any other
/// work. If `f` panics, the wait still happens before the panic goes on.
/// Where another thread's capture forbids the wait (one in the Global
/// mode), the scope waits for that capture to end first. If the wait fails, the host buffers the scope touched are *lost*: their
/// host access returns [`Error::HostBufferLost`](crate::Error::HostBufferLost)
/// and their memory is never freed, rather than risk a copy into freed
/// memory. The error is returned (`f`'s own error comes first).
///
/// Device arrays follow the stream rules as in every other copy: their
/// borrows end with each call. For copies whose host buffers must stay
/// usable while others are pending, use the event-tracked copies
/// ([`DeviceArray::copy_from_host_async`](crate::DeviceArray::copy_from_host_async)).
///
/// ```
/// use amdgpu::prelude::*;
///
/// let stream = Stream::new()?;
/// let input = HostBuffer::from_slice(&[1.0f32, 2.0, 3.0, 4.0])?;
/// let mut output = HostBuffer::<f32>::zeroed(4)?;
/// let mut array = DeviceArray::<f32>::zeros(4)?;
/// amdgpu::copy_scope(&stream, |scope| {
///     scope.to_device(array.slice_mut(..2)?, input.slice(..2)?)?;
///     scope.to_device(array.slice_mut(2..)?, input.slice(2..)?)?;
///     scope.to_host(&mut output, &array)
/// })?;
/// assert_eq!(output.as_slice()?, [1.0, 2.0, 3.0, 4.0]); // nothing left to wait for
/// # Ok::<(), amdgpu::Error>(())
/// ```
///
/// Host memory written by a scoped copy stays borrowed until the scope
/// ends:
///
/// ```compile_fail,E0502
/// use amdgpu::prelude::*;
///
/// let stream = Stream::new()?;
/// let mut output = HostBuffer::<f32>::zeroed(4)?;
/// let array = DeviceArray::<f32>::zeros(4)?;
/// amdgpu::copy_scope(&stream, |scope| {
///     scope.to_host(&mut output, &array)?;
///     println!("{:?}", output.as_slice()?); // error: `output` is borrowed
///     Ok(())
/// })?;
/// # Ok::<(), amdgpu::Error>(())
/// ```
///
/// and host memory made inside the scope cannot be copied there, since it
/// would be released before the wait:
///
/// ```compile_fail,E0597
/// use amdgpu::prelude::*;
///
/// let stream = Stream::new()?;
/// let mut array = DeviceArray::<f32>::zeros(4)?;
/// amdgpu::copy_scope(&stream, |scope| {
///     let input = HostBuffer::from_slice(&[1.0f32; 4])?;
///     scope.to_device(&mut array, &input) // error: `input` does not live long enough
/// })?;
/// # Ok::<(), amdgpu::Error>(())
/// ```
///
/// # Errors
/// `f`'s error, if any; else HIP's status of the final
/// `hipStreamSynchronize`, as [`Error::Hip`](crate::Error::Hip), the touched
/// host buffers being lost.
pub fn copy_scope<'env, F, R>(stream: &Stream, f: F) -> Result<R>
where
    F: for<'scope> FnOnce(&'scope CopyScope<'scope, 'env>) -> Result<R>,
{
    // The scope ends with a wait for its stream: inside a capture its
    // copies would be recorded, not run, and outlive the borrows.
    hip_core::capture::check_wait("copy_scope", stream)?;
    let scope = CopyScope {
        drain: Drain { stream: stream.clone(), touched: RefCell::new(Vec::new()), drained: Cell::new(false) },
        scope: PhantomData,
        env: PhantomData,
    };
    let result = f(&scope);
    let drained = scope.drain.wait();
    match (result, drained) {
        (Ok(value), Ok(())) => Ok(value),
        (Ok(_), Err(error)) => Err(error),
        (Err(error), drained) => {
            if let Err(wait) = drained {
                log::error!("waiting for a copy scope's stream after its closure failed ({error}): {wait}");
            }
            Err(error)
        }
    }
}

impl<'env> CopyScope<'_, 'env> {
    /// The stream the scope's copies run on.
    pub fn stream(&self) -> &Stream {
        &self.drain.stream
    }

    /// Copy `src` (pinned host memory, borrowed until the scope ends) into
    /// `dst` on the scope's stream (`hipMemcpyAsync`), which must be on
    /// `dst`'s device; returns once the copy is enqueued. Lengths must be equal.
    ///
    /// # Errors
    /// [`Error::SizeMismatch`](crate::Error::SizeMismatch) when the lengths
    /// differ, [`Error::Hip`](crate::Error::Hip) with a device mismatch when
    /// the stream is on another device (nothing enqueued); else HIP's status
    /// of `hipMemcpyAsync` or of an ordering call, or `Error::Pool`.
    #[doc(alias = "hipMemcpyAsync")]
    pub fn to_device<'d, T: DeviceCopy + 'env + 'd>(
        &self,
        dst: impl Into<DeviceSliceMut<'d, T>>,
        src: impl Into<HostSlice<'env, T>>,
    ) -> Result<()> {
        const OPERATION: &str = "CopyScope::to_device";
        let (mut dst, src) = (dst.into(), src.into());
        check_lengths(OPERATION, src.len(), dst.len())?;
        check_stream(OPERATION, &self.drain.stream, dst.device())?;
        let bytes = dst.len() * std::mem::size_of::<T>();
        let uses: &'env HostUses = &src.buffer.uses;
        self.drain.touch(uses);
        let dst_side = (dst.as_mut_ptr().cast::<c_void>(), Side::Device(dst.array.buffer()));
        let src_side = (src.ptr().cast::<c_void>(), Side::Scoped(uses, src.bytes()));
        enqueue(&self.drain.stream, dst_side, src_side, bytes, Call::Copy)
    }

    /// Copy `src` into `dst` (pinned host memory, borrowed until the scope
    /// ends) on the scope's stream (`hipMemcpyAsync`), which must be on
    /// `src`'s device; returns once the copy is enqueued. Lengths must be equal.
    ///
    /// # Errors
    /// As [`CopyScope::to_device`].
    #[doc(alias = "hipMemcpyAsync")]
    pub fn to_host<'d, T: DeviceCopy + 'env + 'd>(
        &self,
        dst: impl Into<HostSliceMut<'env, T>>,
        src: impl Into<DeviceSlice<'d, T>>,
    ) -> Result<()> {
        const OPERATION: &str = "CopyScope::to_host";
        let (dst, src) = (dst.into(), src.into());
        check_lengths(OPERATION, src.len(), dst.len())?;
        check_stream(OPERATION, &self.drain.stream, src.device())?;
        let bytes = src.len() * std::mem::size_of::<T>();
        let (ptr, range) = (dst.ptr(), dst.bytes());
        // The exclusive borrow is the caller's for all of `'env`; the scope
        // keeps only the buffer's bookkeeping, shared.
        let HostSliceMut { buffer, .. } = dst;
        let uses: &'env HostUses = &buffer.uses;
        self.drain.touch(uses);
        let dst_side = (ptr.cast::<c_void>(), Side::Scoped(uses, range));
        let src_side = (src.as_ptr().cast::<c_void>(), Side::Device(src.array().buffer()));
        enqueue(&self.drain.stream, dst_side, src_side, bytes, Call::Copy)
    }
}

impl<'env> Drain<'env> {
    /// Note that a copy touches `uses`' buffer (once for a run of copies
    /// of the same buffer, so a long scope over one buffer stays small).
    fn touch(&self, uses: &'env HostUses) {
        let mut touched = self.touched.borrow_mut();
        if !touched.last().is_some_and(|last| std::ptr::eq(*last, uses)) {
            touched.push(uses);
        }
    }

    /// Wait for the stream, once (for another thread's capture that
    /// forbids the wait to end first); on failure the touched buffers are
    /// lost.
    fn wait(&self) -> Result<()> {
        if self.drained.replace(true) {
            return Ok(());
        }
        match hip_core::capture::synchronize_after_captures(&self.stream) {
            Ok(()) => Ok(()),
            Err(error) => {
                for uses in self.touched.borrow().iter() {
                    uses.mark_lost();
                }
                Err(error.into())
            }
        }
    }
}

impl Drop for Drain<'_> {
    /// The wait of a scope whose closure panicked.
    fn drop(&mut self) {
        if let Err(error) = self.wait() {
            log::error!("waiting for a copy scope's stream while unwinding: {error}");
        }
    }
}
