//! The operand protocol: how every operation that uses memory on a
//! stream (a kernel launch, a copy, a fill, a library call) declares it.
//!
//! An [`Operand`] is memory that an operation uses with an [`Access`]:
//! before the operation is enqueued it is *prepared* (the stream waits on
//! the GPU for the earlier uses the new one conflicts with), after it is
//! *recorded* (what later uses, and the memory's next owner, wait for).
//! [`Buffer`] is the operand of device memory; the facade's pinned host
//! memory is one too. [`enqueue`] is the one function that runs an
//! operation between the two steps, for every caller in the workspace.
//!
//! [`enqueue`]'s docs hold the failure rule.

use super::buffer::Buffer;
use crate::error::PoolError;
use crate::uses::Access;
use hip_core::{HipError, Stream};

/// Memory an operation uses on a stream: ordered after its earlier
/// conflicting uses before the operation, recorded after it. [`enqueue`]
/// is the one way to follow the protocol, with its failure rule.
pub trait Operand {
    /// What preparing or recording can fail with; a stream's synchronize
    /// error must convert into it (the failure rule's third case).
    type Error: From<HipError>;

    /// Order a use with `access` on `stream` after the earlier uses it
    /// conflicts with (GPU waits only). Called before the operation.
    fn prepare(&self, stream: &Stream, access: Access) -> Result<(), Self::Error>;

    /// Note that a use with `access` was just enqueued on `stream`.
    fn record(&self, stream: &Stream, access: Access) -> Result<(), Self::Error>;
}

impl Operand for Buffer {
    type Error = PoolError;

    #[inline]
    fn prepare(&self, stream: &Stream, access: Access) -> Result<(), PoolError> {
        Buffer::prepare(self, stream, access)
    }

    #[inline]
    fn record(&self, stream: &Stream, access: Access) -> Result<(), PoolError> {
        Buffer::record(self, stream, access)
    }
}

/// Run `operation`, which enqueues work on `stream` that uses `operands`
/// (each with its access), under the operand protocol: prepare each,
/// run, record each, with the failure rule below.
///
/// # The failure rule
///
/// 1. **A prepare fails:** nothing is enqueued and its error is returned.
///    The operands prepared before it only gained GPU waits, which order
///    later work and make nothing unsafe.
/// 2. **The operation fails:** every operand is recorded all the same. A
///    failed call may have queued part of its work first (a library call
///    that ran some kernels, a staged copy, a launch the runtime refused
///    after queueing an earlier one), and nothing here can tell. A record
///    without need costs one event; a use missing from the record lets a
///    block be reused, or host memory freed, under running work.
/// 3. **A record fails:** the stream is synchronized before the error is
///    returned, so no work the record misses is still running. (Where even
///    that fails, the record's error is returned and the synchronize's
///    logged: the runtime is then failing as a whole.)
///
/// The operation's error comes first, then the first record's; the value
/// is returned only when everything succeeded.
///
/// # Errors
/// The first prepare's error (nothing enqueued); else the operation's;
/// else the first record's, after the stream was synchronized.
///
/// # Examples
/// ```
/// use hip_pool::{enqueue, Access};
///
/// let stream = hip_core::stream();
/// let (input, output) = (hip_pool::alloc(4096)?, hip_pool::alloc(4096)?);
/// let other = hip_core::Stream::new()?;
/// // A device-to-device copy on another stream: it waits for the work
/// // queued on the buffers' own stream, and their drops wait for it.
/// enqueue(&other, [(&input, Access::Read), (&output, Access::Write)], || {
///     // SAFETY: both blocks hold 4096 bytes of this device.
///     unsafe {
///         hip_core::raw::mem::copy_async(
///             other.device(),
///             output.as_ptr(),
///             input.as_ptr(),
///             4096,
///             hip_sys::hipMemcpyKind::hipMemcpyDeviceToDevice,
///             other.as_raw(),
///         )
///     }
///     .map_err(hip_pool::PoolError::from)
/// })?;
/// # drop(stream);
/// # Ok::<(), hip_pool::PoolError>(())
/// ```
#[inline]
pub fn enqueue<'a, O, R, E>(
    stream: &Stream,
    operands: impl IntoIterator<Item = (&'a O, Access)> + Clone,
    operation: impl FnOnce() -> Result<R, E>,
) -> Result<R, E>
where
    O: Operand + ?Sized + 'a,
    E: From<O::Error>,
{
    for (operand, access) in operands.clone() {
        operand.prepare(stream, access)?;
    }
    let result = operation();
    let mut recorded = Ok(());
    for (operand, access) in operands {
        if let Err(error) = operand.record(stream, access) {
            recorded = recorded.and(Err(error));
        }
    }
    if recorded.is_err() {
        // The failure rule's third case: nothing the record missed may
        // still run once this returns.
        // Another thread's capture may forbid the wait: it waits for it.
        if let Err(error) = hip_core::capture::synchronize_after_captures(stream) {
            log::error!("synchronizing a stream after a use could not be recorded: {error}");
        }
    }
    let value = result?;
    recorded?;
    Ok(value)
}
