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
///
/// A strided batch's factorization returns one `Info` of one value per
/// problem: [`values`](Info::values) reads them all, and
/// [`check`](Info::check) reports the first problem that failed.
#[must_use = "a factorization's info says whether it succeeded: check it"]
#[derive(Debug)]
pub struct Info {
    buffer: Buffer,
    operation: &'static str,
    kind: Factorization,
    /// The problems it holds a value of: 1, or a batch's count.
    count: usize,
    /// Whether a strided batch wrote it (even of one problem).
    batched: bool,
}

impl Info {
    /// Four bytes of the pool on `stream`'s device, for `operation`.
    pub(crate) fn new(operation: &'static str, kind: Factorization, stream: &Stream) -> Result<Info> {
        let buffer = hip_pool::alloc_on(stream.device(), std::mem::size_of::<i32>(), stream)?;
        Ok(Info { buffer, operation, kind, count: 1, batched: false })
    }

    /// One `i32` per problem of a batch of `count` (at least four bytes),
    /// from the pool on `stream`'s device.
    pub(crate) fn batch(operation: &'static str, kind: Factorization, count: usize, stream: &Stream) -> Result<Info> {
        let bytes = count.max(1).saturating_mul(std::mem::size_of::<i32>());
        let buffer = hip_pool::alloc_on(stream.device(), bytes, stream)?;
        Ok(Info { buffer, operation, kind, count, batched: true })
    }

    /// Four bytes of the pool on `stream`'s device holding 0, queued on
    /// `stream`: the `info` of an empty problem, which rocSOLVER returns
    /// from without writing one.
    pub(crate) fn succeeded(operation: &'static str, kind: Factorization, stream: &Stream) -> Result<Info> {
        Info::new(operation, kind, stream)?.zeroed(stream)
    }

    /// [`succeeded`](Info::succeeded) for a batch of `count` problems.
    pub(crate) fn batch_succeeded(
        operation: &'static str,
        kind: Factorization,
        count: usize,
        stream: &Stream,
    ) -> Result<Info> {
        Info::batch(operation, kind, count, stream)?.zeroed(stream)
    }

    /// The values set to 0 on `stream`.
    fn zeroed(self, stream: &Stream) -> Result<Info> {
        let (device, ptr, bytes) = (stream.device(), self.as_mut_ptr().cast(), self.count.max(1) * 4);
        hip_pool::enqueue(stream, [(self.buffer(), hip_pool::Access::Write)], || {
            // SAFETY: `bytes` of device memory of `stream`'s device (the
            // buffer holds at least one int), kept from reuse until the
            // fill has run (the use is recorded).
            unsafe { hip_core::raw::mem::fill_async(device, ptr, 0, bytes, stream.as_raw()) }
                .map_err(crate::LibError::from)
        })?;
        Ok(self)
    }

    /// How many problems it holds the `info` of: 1, or a batch's count.
    pub fn len(&self) -> usize {
        self.count
    }

    /// Whether it holds no value (the factorization of an empty batch).
    pub fn is_empty(&self) -> bool {
        self.count == 0
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
    /// [`LibError::InvalidInput`] for the `Info` of a batch of other than
    /// one problem: read [`values`](Info::values).
    #[doc(alias = "info")]
    pub fn value(&self) -> Result<i32> {
        if self.count != 1 {
            return Err(LibError::invalid(
                "Info::value",
                format!("this info holds the values of a batch of {}: read them with values()", self.count),
            ));
        }
        Ok(self.values()?[0])
    }

    /// Every problem's `info`, in batch order (one value for a single
    /// factorization), once the factorization ran; each means what
    /// [`value`](Info::value) says.
    ///
    /// # Errors
    /// As [`value`](Info::value), but any count is read.
    pub fn values(&self) -> Result<Vec<i32>> {
        let mut values = vec![0i32; self.count];
        // SAFETY: the buffer holds `count` i32s (at least four bytes).
        unsafe { crate::memory::download_from(&self.buffer, &mut values) }?;
        Ok(values)
    }

    /// What an `info` of `value` means, if not success.
    fn breakdown(&self, value: i32) -> Result<Option<Breakdown>> {
        if value == 0 {
            return Ok(None);
        }
        if value < 0 {
            // rocSOLVER reports bad arguments through its status, never info.
            return Err(LibError::invalid(self.operation, format!("info = {value}: an argument was refused")));
        }
        let at = value as usize;
        Ok(Some(match self.kind {
            Factorization::Lu => Breakdown::ZeroPivot { column: at },
            Factorization::Cholesky => Breakdown::NotPositiveDefinite { order: at },
            Factorization::Eigen => Breakdown::NotConverged { info: at },
            Factorization::Svd => Breakdown::SvdNotConverged { superdiagonals: at },
        }))
    }

    /// Each problem's outcome, in batch order: `None` where it succeeded,
    /// else the [`Breakdown`] it met; once the factorization ran.
    ///
    /// # Errors
    /// As [`values`](Info::values).
    pub fn breakdowns(&self) -> Result<Vec<Option<Breakdown>>> {
        self.values()?.into_iter().map(|value| self.breakdown(value)).collect()
    }

    /// `Ok(())` if the factorization succeeded, once it ran; else
    /// [`LibError::Breakdown`] with what it met.
    ///
    /// # Errors
    /// [`LibError::Breakdown`] for a singular matrix (LU) or one that is not
    /// positive definite (Cholesky); as [`value`](Info::value) otherwise.
    ///
    /// A batch's `check` succeeds when every problem did; else it is
    /// [`LibError::BatchBreakdown`] naming the first problem that failed
    /// and how many did ([`breakdowns`](Info::breakdowns) has each one's).
    pub fn check(&self) -> Result<()> {
        let outcomes = self.breakdowns()?;
        let failed = outcomes.iter().filter(|o| o.is_some()).count();
        let Some((problem, breakdown)) = outcomes.into_iter().enumerate().find_map(|(i, o)| o.map(|b| (i, b))) else {
            return Ok(());
        };
        let operation = self.operation;
        if !self.batched {
            return Err(LibError::Breakdown { operation, breakdown });
        }
        Err(LibError::BatchBreakdown { operation, problem, failed, count: self.count, breakdown })
    }
}

/// LU's pivots, in device memory: row `i` (1-based) was swapped with row
/// `pivots[i]`. Only [`getrf`](super::getrf) writes them, so
/// [`getrs`](super::getrs) is never given a pivot out of range; they can be
/// read ([`to_vec`](Pivots::to_vec)) and passed where `i32` device data is
/// read.
///
/// For a strided batch, [`Pivots::batched`] holds `len` pivots for each of
/// `count` problems, one after another (rocSOLVER's `strideP` is `len`).
#[derive(Debug)]
pub struct Pivots {
    buffer: Buffer,
    /// Pivots per problem.
    len: usize,
    /// Problems: 1 unless made by [`Pivots::batched`].
    count: usize,
    /// What `getrf` last factored into them: the rows of its matrices
    /// (every pivot in `1..=rows`) and how many problems. `None` before any.
    factored: Option<(usize, usize)>,
}

impl Pivots {
    /// Room for `len` pivots (`min(m, n)` for an `m × n` LU) on `stream`'s
    /// device, from its pool.
    ///
    /// # Errors
    /// `LibError::Pool` when the pool cannot serve them.
    pub fn new(len: usize, stream: &Stream) -> Result<Pivots> {
        Pivots::make("Pivots::new", len, 1, stream)
    }

    /// Room for `len` pivots (`min(m, n)` for `m × n` problems) for each of
    /// `count` problems of a strided batch
    /// ([`getrf_strided_batched`](super::getrf_strided_batched)), from the
    /// pool of `stream`'s device.
    ///
    /// # Errors
    /// `LibError::Pool` when the pool cannot serve them;
    /// [`LibError::InvalidInput`] when they would not fit in memory.
    pub fn batched(len: usize, count: usize, stream: &Stream) -> Result<Pivots> {
        Pivots::make("Pivots::batched", len, count, stream)
    }

    fn make(operation: &'static str, len: usize, count: usize, stream: &Stream) -> Result<Pivots> {
        let bytes =
            len.checked_mul(count).and_then(|all| all.checked_mul(std::mem::size_of::<i32>())).ok_or_else(|| {
                LibError::invalid(operation, format!("{count} × {len} pivots do not fit in an address space"))
            })?;
        Ok(Pivots { buffer: hip_pool::alloc_on(stream.device(), bytes, stream)?, len, count, factored: None })
    }

    /// The rows of the matrix last factored into these pivots, if any.
    pub fn factored_rows(&self) -> Option<usize> {
        self.factored.map(|(rows, _)| rows)
    }

    /// The problems they hold pivots for: 1, or a batch's count.
    pub fn count(&self) -> usize {
        self.count
    }

    /// The pivots of each problem.
    pub fn len_per_problem(&self) -> usize {
        self.len
    }

    /// Check that a solve of `problems` problems of order `order` may use
    /// these pivots: a `getrf` wrote them, of no more rows (rocSOLVER checks
    /// none: its row swaps would access out of bounds), for as many
    /// problems, at least `order` each.
    pub(crate) fn check_solve(&self, op: &'static str, order: usize, problems: usize) -> Result<()> {
        let Some((rows, factored)) = self.factored else {
            return Err(LibError::invalid(op, "the pivots were not written by a getrf"));
        };
        if rows > order {
            return Err(LibError::invalid(
                op,
                format!(
                    "the pivots come from a getrf of {rows} rows; A has {order}: they would swap rows outside it \
                     (rocSOLVER does not check, its swaps would access out of bounds)"
                ),
            ));
        }
        if factored < problems || self.len < order {
            return Err(LibError::invalid(
                op,
                format!(
                    "the pivots hold {factored} factored problems of {} pivots; this solve needs {problems} of \
                     order {order}",
                    self.len
                ),
            ));
        }
        Ok(())
    }

    pub(crate) fn written_by(&mut self, rows: usize, problems: usize) {
        self.factored = Some((rows, problems));
    }

    pub(crate) fn as_mut_ptr(&mut self) -> *mut i32 {
        self.buffer.as_ptr().cast()
    }

    /// The pivots, once the factorization that wrote them ran.
    ///
    ///
    /// # Errors
    /// [`LibError::InvalidInput`] if no factorization wrote them;
    /// [`LibError::Hip`] as [`Info::value`].
    /// A batch's come problem after problem, `len_per_problem` each.
    pub fn to_vec(&self) -> Result<Vec<i32>> {
        if self.factored.is_none() {
            return Err(LibError::invalid("Pivots::to_vec", "no getrf has written these pivots yet"));
        }
        let mut out = vec![0i32; self.len * self.count];
        // SAFETY: the buffer holds `len` i32s.
        unsafe { crate::memory::download_from(&self.buffer, &mut out) }?;
        Ok(out)
    }
}

// SAFETY: `len × count` i32s at the buffer's start, inside its memory, on its device.
unsafe impl DeviceData<i32> for Pivots {
    fn device_ptr(&self) -> *const c_void {
        self.buffer.as_ptr()
    }
    fn len(&self) -> usize {
        self.len * self.count
    }
    fn device(&self) -> Device {
        self.buffer.device()
    }
    fn buffer(&self) -> &Buffer {
        &self.buffer
    }
}
