//! What a factorization leaves on the device besides its factors: its
//! `info`, read when asked, and LU's pivots.

use crate::data::DeviceData;
use crate::error::Breakdown;
use crate::{LibError, Result};
use hip_core::{Device, Stream};
use hip_pool::Buffer;
use std::ffi::c_void;

/// Which factorization wrote an [`Info`], for what its value means.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Factorization {
    Lu,
    Cholesky,
    Eigen,
    Svd,
}

/// A factorization's `info`, in device memory: 0 when it succeeded, else
/// the [`Breakdown`] it met. Reading it waits for the factorization, so
/// it is read only when asked ([`check`](Info::check), [`value`](Info::value)).
///
/// ```
/// use hip_libs::solver::{self, Shape, Triangle};
/// # use hip_libs::{DeviceData, DeviceDataMut};
/// # fn example<A: DeviceDataMut<f64>>(a: &mut A) -> hip_libs::Result<()> {
/// let info = solver::potrf(Triangle::Lower, &Shape::square(3), a)?;
/// // … more work queued here, no synchronization …
/// info.check()?; // waits, then Ok or LibError::Breakdown
/// # Ok(()) }
/// ```
#[must_use = "a factorization's info says whether it succeeded: check it"]
#[derive(Debug)]
pub struct Info {
    buffer: Buffer,
    operation: &'static str,
    kind: Factorization,
}

impl Info {
    /// Four bytes of the pool on `stream`'s device, for `operation`.
    pub(crate) fn new(operation: &'static str, kind: Factorization, stream: &Stream) -> Result<Info> {
        let buffer = hip_pool::alloc_on(stream.device(), std::mem::size_of::<i32>(), stream)?;
        Ok(Info { buffer, operation, kind })
    }

    /// Four bytes of the pool on `stream`'s device holding 0, queued on
    /// `stream`: the `info` of an empty problem, which rocSOLVER returns
    /// from without writing one.
    pub(crate) fn succeeded(operation: &'static str, kind: Factorization, stream: &Stream) -> Result<Info> {
        let info = Info::new(operation, kind, stream)?;
        let (device, ptr) = (stream.device(), info.as_mut_ptr().cast());
        hip_pool::enqueue(stream, [(info.buffer(), hip_pool::Access::Write)], || {
            // SAFETY: four bytes of device memory of `stream`'s device,
            // kept from reuse until the fill has run (the use is recorded).
            unsafe { hip_core::raw::mem::fill_async(device, ptr, 0, 4, stream.as_raw()) }.map_err(crate::LibError::from)
        })?;
        Ok(info)
    }

    pub(crate) fn buffer(&self) -> &Buffer {
        &self.buffer
    }

    pub(crate) fn as_mut_ptr(&self) -> *mut i32 {
        self.buffer.as_ptr().cast()
    }

    /// rocSOLVER's `info`, once the factorization ran: 0, or the 1-based
    /// column of the first zero pivot (LU), the order of the first leading
    /// minor that is not positive definite (Cholesky), where the
    /// eigensolver did not converge (rocSOLVER's encoding, see
    /// [`Breakdown::NotConverged`]), or how many superdiagonal elements
    /// the SVD left unconverged.
    ///
    /// # Errors
    /// [`LibError::Hip`] when the copy fails, the stream has faulted, or a
    /// capture is underway on this thread (reading waits for the stream).
    #[doc(alias = "info")]
    pub fn value(&self) -> Result<i32> {
        let mut value = [0i32];
        // SAFETY: the buffer holds one i32.
        unsafe { crate::memory::download_from(&self.buffer, &mut value) }?;
        Ok(value[0])
    }

    /// `Ok(())` if the factorization succeeded, once it ran; else
    /// [`LibError::Breakdown`] with what it met.
    ///
    /// # Errors
    /// [`LibError::Breakdown`] for a singular matrix (LU) or one that is not
    /// positive definite (Cholesky); as [`value`](Info::value) otherwise.
    pub fn check(&self) -> Result<()> {
        let value = self.value()?;
        if value == 0 {
            return Ok(());
        }
        if value < 0 {
            // rocSOLVER reports bad arguments through its status, never info.
            return Err(LibError::invalid(self.operation, format!("info = {value}: an argument was refused")));
        }
        let at = value as usize;
        let breakdown = match self.kind {
            Factorization::Lu => Breakdown::ZeroPivot { column: at },
            Factorization::Cholesky => Breakdown::NotPositiveDefinite { order: at },
            Factorization::Eigen => Breakdown::NotConverged { info: at },
            Factorization::Svd => Breakdown::SvdNotConverged { superdiagonals: at },
        };
        Err(LibError::Breakdown { operation: self.operation, breakdown })
    }
}

/// LU's pivots, in device memory: row `i` (1-based) was swapped with row
/// `pivots[i]`. Only [`getrf`](super::getrf) writes them, so
/// [`getrs`](super::getrs) is never given a pivot out of range; they can be
/// read ([`to_vec`](Pivots::to_vec)) and passed where `i32` device data is
/// read.
#[derive(Debug)]
pub struct Pivots {
    buffer: Buffer,
    len: usize,
    /// The rows of the matrix `getrf` last factored into them: every pivot
    /// is in `1..=rows`. `None` before any.
    rows: Option<usize>,
}

impl Pivots {
    /// Room for `len` pivots (`min(m, n)` for an `m × n` LU) on `stream`'s
    /// device, from its pool.
    ///
    /// # Errors
    /// `LibError::Pool` when the pool cannot serve them.
    pub fn new(len: usize, stream: &Stream) -> Result<Pivots> {
        let bytes = len
            .checked_mul(std::mem::size_of::<i32>())
            .ok_or_else(|| LibError::invalid("Pivots::new", format!("{len} pivots do not fit in an address space")))?;
        Ok(Pivots { buffer: hip_pool::alloc_on(stream.device(), bytes, stream)?, len, rows: None })
    }

    /// The rows of the matrix last factored into these pivots, if any.
    pub fn factored_rows(&self) -> Option<usize> {
        self.rows
    }

    pub(crate) fn written_by(&mut self, rows: usize) {
        self.rows = Some(rows);
    }

    pub(crate) fn as_mut_ptr(&mut self) -> *mut i32 {
        self.buffer.as_ptr().cast()
    }

    /// The pivots, once the factorization that wrote them ran.
    ///
    /// # Errors
    /// [`LibError::InvalidInput`] if no factorization wrote them;
    /// [`LibError::Hip`] as [`Info::value`].
    pub fn to_vec(&self) -> Result<Vec<i32>> {
        if self.rows.is_none() {
            return Err(LibError::invalid("Pivots::to_vec", "no getrf has written these pivots yet"));
        }
        let mut out = vec![0i32; self.len];
        // SAFETY: the buffer holds `len` i32s.
        unsafe { crate::memory::download_from(&self.buffer, &mut out) }?;
        Ok(out)
    }
}

// SAFETY: `len` i32s at the buffer's start, inside its memory, on its device.
unsafe impl DeviceData<i32> for Pivots {
    fn device_ptr(&self) -> *const c_void {
        self.buffer.as_ptr()
    }
    fn len(&self) -> usize {
        self.len
    }
    fn device(&self) -> Device {
        self.buffer.device()
    }
    fn buffer(&self) -> &Buffer {
        &self.buffer
    }
}
