//! `CsrMatrix<T>`: a validated CSR matrix in device memory.

use super::analysis::Analysis;
use super::raw;
use crate::memory::upload_into;
use crate::{LibError, Result};
use hip_core::raw::on_device;
use hip_core::{audit, Device, Stream};
use hip_pool::{Access, Buffer};
use hip_sys::rocsparse::{rocsparse_datatype, rocsparse_spmat_descr};
use std::marker::PhantomData;

/// An element type rocSPARSE computes with.
pub trait SparseScalar: Copy + Send + Sync + PartialEq + std::fmt::Debug + 'static {
    /// The rocSPARSE data type.
    const DATATYPE: rocsparse_datatype;
}

impl SparseScalar for f32 {
    const DATATYPE: rocsparse_datatype = rocsparse_datatype::rocsparse_datatype_f32_r;
}

impl SparseScalar for f64 {
    const DATATYPE: rocsparse_datatype = rocsparse_datatype::rocsparse_datatype_f64_r;
}

/// A `rows` × `cols` sparse matrix in CSR form (0-based `i32` indices) on
/// one device. Made from host arrays, which are checked first; its
/// descriptor is destroyed under its device when it is dropped.
///
/// The first non-transposed [`spmv`](super::spmv) runs rocSPARSE's
/// preprocess (the CSR analysis, kept in the descriptor), once per matrix.
/// A matrix may be shared between threads (`&CsrMatrix` is `Send`):
/// products of one matrix from several threads run concurrently, and the
/// one preprocess, which writes the descriptor, runs alone under the
/// matrix's lock.
pub struct CsrMatrix<T: SparseScalar> {
    rows: usize,
    cols: usize,
    nnz: usize,
    device: Device,
    pub(crate) descr: rocsparse_spmat_descr,
    /// What rocSPARSE's preprocess wrote into `descr`, and its lock.
    pub(crate) analysis: Analysis,
    /// The values, row pointers and column indices, in one buffer (see
    /// [`Layout`]); the descriptor points into it, so it lives as long.
    data: Buffer,
    _t: PhantomData<T>,
}

// SAFETY: the descriptor is owned by this matrix and tied to no thread
// (rocSPARSE objects carry no thread affinity; calls run under the
// matrix's device, set per call); the buffers are `Send`.
unsafe impl<T: SparseScalar> Send for CsrMatrix<T> {}
// SAFETY: through `&CsrMatrix` the descriptor is written only by the
// preprocess stages, which run under `analysis`'s write lock; every other
// use (SpMV and SpMM computes) only reads it and runs under its read lock,
// so no write overlaps another access. Drop has `&mut self`.
unsafe impl<T: SparseScalar> Sync for CsrMatrix<T> {}

fn validate<T>(rows: usize, cols: usize, row_ptr: &[i32], col_ind: &[i32], values: &[T]) -> Result<()> {
    let op = "CsrMatrix::from_host";
    if rows > i32::MAX as usize || cols > i32::MAX as usize {
        return Err(LibError::invalid(op, format!("{rows} x {cols} does not fit 32-bit indices")));
    }
    if row_ptr.len() != rows + 1 {
        return Err(LibError::invalid(
            op,
            format!("row_ptr has {} entries; a {rows}-row matrix needs {}", row_ptr.len(), rows + 1),
        ));
    }
    if col_ind.len() != values.len() {
        return Err(LibError::invalid(
            op,
            format!("col_ind has {} entries but values has {}", col_ind.len(), values.len()),
        ));
    }
    if row_ptr[0] != 0 {
        return Err(LibError::invalid(op, format!("row_ptr[0] is {}; it must be 0", row_ptr[0])));
    }
    for (i, pair) in row_ptr.windows(2).enumerate() {
        if pair[1] < pair[0] {
            return Err(LibError::invalid(op, format!("row_ptr decreases at row {i}: {} then {}", pair[0], pair[1])));
        }
    }
    let nnz = row_ptr[rows];
    if nnz as usize != values.len() {
        return Err(LibError::invalid(op, format!("row_ptr[{rows}] is {nnz} but there are {} values", values.len())));
    }
    if let Some((k, c)) = col_ind.iter().enumerate().find(|(_, c)| **c < 0 || **c as usize >= cols) {
        return Err(LibError::invalid(op, format!("col_ind[{k}] is {c}, outside 0..{cols}")));
    }
    Ok(())
}

impl<T: SparseScalar> CsrMatrix<T> {
    /// Upload a host CSR matrix to `stream`'s device after checking it
    /// (then described with `rocsparse_create_csr_descr`): `row_ptr` has
    /// `rows + 1` non-decreasing entries from 0 to the number of values,
    /// `col_ind` and `values` agree in length, every column index is in
    /// `0..cols`.
    ///
    /// # Errors
    /// As [`CsrMatrix::check_host`] (nothing is uploaded); [`LibError::Unavailable`]
    /// without rocSPARSE; `LibError::Pool` for the device memory;
    /// `LibError::Hip` with HIP's status of the uploads (`hipMemcpy`, after
    /// synchronizing `stream`); [`LibError::Status`] with rocSPARSE's status.
    ///
    /// # Examples
    /// ```
    /// use hip_libs::sparse::CsrMatrix;
    ///
    /// // [[1, 0, 2],
    /// //  [0, 3, 0]]
    /// let stream = hip_core::stream();
    /// let a = CsrMatrix::from_host(&stream, 2, 3, &[0, 2, 3], &[0, 2, 1], &[1.0f32, 2.0, 3.0])?;
    /// assert_eq!((a.rows(), a.cols(), a.nnz()), (2, 3, 3));
    /// assert_eq!(a.device(), stream.device());
    /// # Ok::<(), hip_libs::LibError>(())
    /// ```
    #[doc(alias = "rocsparse_create_csr_descr")]
    pub fn from_host(
        stream: &Stream,
        rows: usize,
        cols: usize,
        row_ptr: &[i32],
        col_ind: &[i32],
        values: &[T],
    ) -> Result<Self> {
        validate(rows, cols, row_ptr, col_ind, values)?;
        let api = hip_sys::rocsparse()?;
        let device = stream.device();
        let layout = Layout::of::<T>(rows, values.len())?;
        let data = hip_pool::alloc_on(device, layout.bytes, stream)?;
        let base = data.as_ptr().cast::<u8>();
        // SAFETY: the block holds `layout.bytes`, and each part lies inside
        // it at its offset; the slices hold the parts' bytes.
        unsafe {
            upload_into(base.cast(), values, stream)?;
            upload_into(base.add(layout.row_ptr).cast(), row_ptr, stream)?;
            upload_into(base.add(layout.col_ind).cast(), col_ind, stream)?;
        }
        // SAFETY: offsets inside the block, as above (pointer arithmetic only).
        let (values_ptr, row_ptr_ptr, col_ind_ptr) =
            unsafe { (base.cast(), base.add(layout.row_ptr).cast(), base.add(layout.col_ind).cast()) };
        let arrays = raw::CsrArrays {
            rows: rows as i64,
            cols: cols as i64,
            nnz: values.len() as i64,
            row_ptr: row_ptr_ptr,
            col_ind: col_ind_ptr,
            values: values_ptr,
            datatype: T::DATATYPE,
        };
        // SAFETY: the buffer holds the validated arrays and outlives the
        // descriptor.
        let descr = on_device(device, || unsafe { raw::create_csr_descr(api, &arrays) })??;
        Ok(CsrMatrix {
            rows,
            cols,
            nnz: values.len(),
            device,
            descr,
            analysis: Analysis::default(),
            data,
            _t: PhantomData,
        })
    }

    /// Check host CSR arrays as [`CsrMatrix::from_host`] does, without
    /// uploading them.
    ///
    /// # Errors
    /// [`LibError::InvalidInput`], naming the first problem: sizes that do not
    /// fit `i32`, a `row_ptr` of another length than `rows + 1`, not from 0 or
    /// decreasing, or not ending at the number of values, `col_ind` and
    /// `values` of different lengths, or a column index outside `0..cols`.
    pub fn check_host(rows: usize, cols: usize, row_ptr: &[i32], col_ind: &[i32], values: &[T]) -> Result<()> {
        validate(rows, cols, row_ptr, col_ind, values)
    }

    /// Rows.
    pub fn rows(&self) -> usize {
        self.rows
    }

    /// Columns.
    pub fn cols(&self) -> usize {
        self.cols
    }

    /// Stored values.
    pub fn nnz(&self) -> usize {
        self.nnz
    }

    /// The device holding the matrix.
    pub fn device(&self) -> Device {
        self.device
    }

    /// Note a product just enqueued on `stream`, which reads the matrix's
    /// arrays, so that they outlive it if the matrix is dropped at once.
    /// No wait is needed before: the arrays are written only by the
    /// synchronous upload that made the matrix.
    pub(crate) fn record_use(&self, stream: &Stream) -> Result<()> {
        Ok(self.data.record(stream, Access::Read)?)
    }
}

/// Where the three arrays lie in a matrix's buffer: the values first (the
/// widest elements, at the block's alignment), then the row pointers and
/// the column indices, each at a multiple of [`Layout::ALIGN`].
struct Layout {
    row_ptr: usize,
    col_ind: usize,
    bytes: usize,
}

impl Layout {
    const ALIGN: usize = 256;

    fn of<T>(rows: usize, nnz: usize) -> Result<Layout> {
        let part = |offset: usize, bytes: Option<usize>| -> Option<usize> {
            offset.checked_next_multiple_of(Self::ALIGN)?.checked_add(bytes?)
        };
        let values = nnz.checked_mul(std::mem::size_of::<T>());
        let sizes = (|| {
            let values_end = part(0, values)?;
            let row_ptr = values_end.checked_next_multiple_of(Self::ALIGN)?;
            let row_ptr_end = part(row_ptr, (rows + 1).checked_mul(4))?;
            let col_ind = row_ptr_end.checked_next_multiple_of(Self::ALIGN)?;
            let bytes = part(col_ind, nnz.checked_mul(4))?;
            Some(Layout { row_ptr, col_ind, bytes })
        })();
        sizes.ok_or_else(|| {
            LibError::invalid(
                "CsrMatrix::from_host",
                format!("{rows} rows and {nnz} values overflow the address space"),
            )
        })
    }
}

impl<T: SparseScalar> Drop for CsrMatrix<T> {
    fn drop(&mut self) {
        let _scope = audit::drop_scope();
        let result = hip_sys::rocsparse().map_err(LibError::from).and_then(|api| {
            // SAFETY: the descriptor is live and destroyed once, here.
            on_device(self.device, || unsafe { raw::destroy_spmat_descr(api, self.descr) })?
        });
        if let Err(e) = result {
            log::error!("dropping a CSR matrix of {}: {e}", self.device);
        }
    }
}

impl<T: SparseScalar> std::fmt::Debug for CsrMatrix<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "CsrMatrix<{}>({} x {}, {} values on {})",
            std::any::type_name::<T>(),
            self.rows,
            self.cols,
            self.nnz,
            self.device
        )
    }
}
