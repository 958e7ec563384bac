//! A CSR matrix's analysis state: what rocSPARSE's preprocess stages write
//! into the matrix descriptor, and the lock that makes that sound when the
//! matrix is shared between threads.
//!
//! rocSPARSE (2.x to 4.x) analyses a CSR matrix at the first SpMV
//! preprocess with the default or adaptive algorithm and keeps the
//! analysis in the descriptor (`mat->info`, with device memory of its own,
//! freed with the descriptor), for the operation of that first call; later
//! preprocesses do nothing. A non-transposed compute uses it; without it
//! the library silently falls back to its slower general kernel, and with
//! an analysis made for the transpose it refuses (`invalid_value`).
//! Transposed computes never use it. So the wrappers preprocess each
//! matrix once, for the non-transposed operation, on its first
//! non-transposed SpMV, and never for the transpose.
//!
//! Preprocess writes the descriptor, computes read it. [`Analysis`] is a
//! read-write lock: a preprocess runs under the write lock, every compute
//! under the read lock (computes of one matrix run concurrently; a compute
//! never overlaps a preprocess). SpMM's preprocess also runs under the
//! write lock: for the default algorithm it writes only the caller's
//! buffer, but the C API does not promise to leave the descriptor alone.

use crate::Result;
use hip_core::Stream;
use hip_pool::{Access, Buffer};
use hip_sys::sync::RwLockExt;
use std::sync::{RwLock, RwLockReadGuard, RwLockWriteGuard};

/// The analysis state of one matrix (see the [module docs](self)).
#[derive(Default)]
pub(crate) struct Analysis {
    /// `Some` once the SpMV preprocess succeeded: the buffer that call was
    /// given, kept for the matrix's life (the library may keep pointers
    /// into what preprocess was handed; it is never reused).
    spmv: RwLock<Option<Buffer>>,
}

impl Analysis {
    fn read(&self) -> RwLockReadGuard<'_, Option<Buffer>> {
        // A panic while holding the lock leaves the state as it was: it is
        // set only after a preprocess succeeded.
        self.spmv.read_unpoisoned()
    }

    fn write(&self) -> RwLockWriteGuard<'_, Option<Buffer>> {
        self.spmv.write_unpoisoned()
    }

    /// Run an SpMV `compute`, first running `preprocess` (which returns the
    /// buffer it used) if `analysed_use` and the matrix has no analysis yet.
    pub(crate) fn spmv<R>(
        &self,
        analysed_use: bool,
        stream: &Stream,
        preprocess: impl FnOnce() -> Result<Buffer>,
        compute: impl FnOnce() -> Result<R>,
    ) -> Result<R> {
        {
            let state = self.read();
            match &*state {
                // The analysis was written on the stream of the first
                // product; a compute on another one waits for it, and is
                // recorded, so that the buffer outlives the compute.
                Some(kept) if analysed_use => {
                    return hip_pool::enqueue(stream, [(kept, Access::Read)], compute);
                }
                _ if !analysed_use => return compute(),
                _ => {}
            }
        }
        let mut state = self.write();
        if state.is_none() {
            crate::handle_cache::refuse_during_capture_because(
                "rocsparse_spmv (preprocess)",
                "a matrix's first product analyses it, with allocations and synchronizations that break \
                 the capture; run one product with this matrix before capturing",
            )?;
            *state = Some(preprocess()?);
        }
        match &*state {
            Some(kept) => hip_pool::enqueue(stream, [(kept, Access::Read)], compute),
            None => compute(),
        }
    }

    /// Run an SpMM `preprocess` under the write lock, then `compute` under
    /// the read lock.
    pub(crate) fn spmm<R>(
        &self,
        preprocess: impl FnOnce() -> Result<()>,
        compute: impl FnOnce() -> Result<R>,
    ) -> Result<R> {
        {
            let _state = self.write();
            preprocess()?;
        }
        let _state = self.read();
        compute()
    }
}
