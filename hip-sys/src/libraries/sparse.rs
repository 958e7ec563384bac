//! rocSPARSE's table: AMD's library, the simulator's, or the mapping onto
//! cuSPARSE.
//!
//! **rocSPARSE** reports its own version through `rocsparse_get_version`
//! (`major * 100000 + minor * 100 + patch`): 2.x in ROCm 5.x, 3.x in ROCm
//! 6.x, 4.x in ROCm 7.x. The call needs a handle, so the loader creates
//! one under the calling thread's current device, reads the version and
//! destroys it. Per the rocSPARSE changelog:
//! - `rocsparse_spmv` had no stage argument through 2.x; 2.x (from ROCm
//!   5.4) has the staged form as `rocsparse_spmv_ex`. In 3.0 (ROCm 6.0)
//!   the unstaged `rocsparse_spmv` was removed, `rocsparse_spmv` itself
//!   took the staged signature (with `const` descriptors, the same ABI)
//!   and `rocsparse_spmv_ex` was deprecated; 4.x keeps that `rocsparse_spmv`.
//!   The table's `rocsparse_spmv_ex` field therefore always holds the
//!   staged function: `rocsparse_spmv_ex` on 2.x (or, before ROCm 5.4
//!   where it is absent, a shim over the unstaged `rocsparse_spmv`), and
//!   the library's `rocsparse_spmv` on 3.x and 4.x. The table's unstaged
//!   `rocsparse_spmv` field is, on 3.x and 4.x, a shim over the staged
//!   function with explicit stages: buffer size when `temp_buffer` is
//!   null, otherwise preprocess then compute (what 2.x's unstaged call
//!   does). 3.0 removed the auto stage (`rocsparse_spmv_stage_auto`, 0,
//!   and the same for SpMM): 3.x and 4.x reject it with `invalid_value`,
//!   so nothing here passes it on those versions; the bindings' constant
//!   exists for 2.x only. [`rocsparse_spmv_staged`] is the one entry point
//!   to use.
//! - `rocsparse_spmm` has had its stage argument since 2.0 (ROCm 5.0;
//!   1.x had it only in `rocsparse_spmm_ex`, deprecated in 2.0 and removed
//!   in 3.0); 3.x made the A and B descriptors `const`, the same ABI. It
//!   is resolved as it is; as for SpMV, 3.x and 4.x have no auto stage,
//!   so callers run buffer size, preprocess and compute.
//! - Handles, streams, pointer mode and the CSR, dense vector and dense
//!   matrix descriptors kept their signatures from 2.0 to 4.x.
//!
//! Supported: rocSPARSE 2.x, 3.x and 4.x.
use std::ffi::c_void;
use std::sync::OnceLock;

use crate::rocsparse::*;
use crate::BackendError;

/// The process's rocSPARSE table.
pub fn rocsparse() -> Result<&'static RocsparseApi, BackendError> {
    static TABLE: OnceLock<Result<&'static RocsparseApi, BackendError>> = OnceLock::new();
    TABLE.get_or_init(|| (crate::backend::provider()?.rocsparse)()).clone()
}

/// SpMV with a stage, whatever the rocSPARSE version: calls the table's
/// `rocsparse_spmv_ex` field, which the loaders fill with the staged
/// function of the library's version (`rocsparse_spmv_ex` on rocSPARSE
/// 2.x, the staged `rocsparse_spmv` on 3.x and 4.x, the simulator's
/// `rocsparse_spmv_ex`; see the [module docs](mod@self)).
///
/// `stage` buffer size writes the size of the temporary buffer to
/// `buffer_size`; preprocess (the matrix analysis, once per matrix) and
/// compute need that buffer. Pass only these three: the auto stage exists
/// on rocSPARSE 2.x alone, and 3.x and 4.x reject it (`invalid_value`).
///
/// # Safety
/// `api` comes from [`rocsparse()`] or the simulator (a table built
/// elsewhere must hold the staged function in that field); the arguments
/// satisfy the C contract of `rocsparse_spmv_ex`: a valid handle and
/// descriptors, host or device scalars as the handle's pointer mode says,
/// `buffer_size` valid for a write (or null where the stage does not use
/// it), `temp_buffer` null or device memory of at least the reported size.
#[allow(clippy::too_many_arguments)]
pub unsafe fn rocsparse_spmv_staged(
    api: &RocsparseApi,
    handle: rocsparse_handle,
    trans: rocsparse_operation,
    alpha: *const c_void,
    mat: rocsparse_spmat_descr,
    x: rocsparse_dnvec_descr,
    beta: *const c_void,
    y: rocsparse_dnvec_descr,
    compute_type: rocsparse_datatype,
    alg: rocsparse_spmv_alg,
    stage: rocsparse_spmv_stage,
    buffer_size: *mut usize,
    temp_buffer: *mut c_void,
) -> rocsparse_status {
    // SAFETY: the field holds the staged function of this library version
    // (the loader's guarantee); the arguments are the caller's.
    unsafe {
        (api.rocsparse_spmv_ex)(
            handle,
            trans,
            alpha,
            mat,
            x,
            beta,
            y,
            compute_type,
            alg,
            stage,
            buffer_size,
            temp_buffer,
        )
    }
}

/// rocSPARSE's SpMV shims (in `shared::rocsparse_spmv`) over
/// the simulator's rocSPARSE.
#[cfg(test)]
#[cfg(feature = "sim")]
mod shim_tests {
    use crate::rocsparse::*;
    use crate::shared::rocsparse_spmv::*;

    /// The version shims, run over the simulator's rocSPARSE standing in
    /// for the library: a 2.x table without `rocsparse_spmv_ex` (staged
    /// shim over the unstaged function) and a 3.x table (unstaged shim over
    /// the staged function) compute the same SpMV as the simulator.
    #[test]
    #[allow(non_snake_case)]
    fn spmv_shims_compute_like_the_library() {
        let (hipMemcpyHostToDevice, hipMemcpyDeviceToHost) = (
            crate::bindings::hip::hipMemcpyKind::hipMemcpyHostToDevice,
            crate::bindings::hip::hipMemcpyKind::hipMemcpyDeviceToHost,
        );
        let _guard = crate::sim::exclusive();
        let sim_table = *crate::sim::rocsparse_api();
        let mut v2 = sim_table;
        v2.rocsparse_spmv_ex = staged_spmv_over(sim_table.rocsparse_spmv);
        let mut v3 = sim_table;
        v3.rocsparse_spmv = unstaged_spmv_over(sim_table.rocsparse_spmv_ex);
        let hip = crate::sim::api();
        let upload = |bytes: &[u8]| {
            let mut p = std::ptr::null_mut();
            // SAFETY: valid out-pointer; `bytes` is readable for its length.
            unsafe {
                assert_eq!((hip.hipMalloc)(&mut p, bytes.len()), crate::bindings::hip::hipError_t::hipSuccess);
                let status = (hip.hipMemcpy)(p, bytes.as_ptr().cast(), bytes.len(), hipMemcpyHostToDevice);
                assert_eq!(status, crate::bindings::hip::hipError_t::hipSuccess);
            }
            p
        };
        let i32s = |v: &[i32]| v.iter().flat_map(|x| x.to_ne_bytes()).collect::<Vec<u8>>();
        let f64s = |v: &[f64]| v.iter().flat_map(|x| x.to_ne_bytes()).collect::<Vec<u8>>();
        // [[2, 0], [1, 3]] times [1, 2] = [2, 7].
        let (offsets, cols, vals) =
            (upload(&i32s(&[0, 1, 3])), upload(&i32s(&[0, 0, 1])), upload(&f64s(&[2.0, 1.0, 3.0])));
        let (xp, yp) = (upload(&f64s(&[1.0, 2.0])), upload(&f64s(&[0.0, 0.0])));
        let buffer = upload(&[0u8; crate::sim::ROCSPARSE_BUFFER_SIZE]);
        let f64t = rocsparse_datatype::rocsparse_datatype_f64_r;
        let i32t = rocsparse_indextype::rocsparse_indextype_i32;
        let (mut handle, mut mat, mut x, mut y) =
            (std::ptr::null_mut(), std::ptr::null_mut(), std::ptr::null_mut(), std::ptr::null_mut());
        let zero = rocsparse_index_base::rocsparse_index_base_zero;
        let ok = rocsparse_status::rocsparse_status_success;
        // SAFETY: valid out-pointers and device arrays of the declared sizes.
        unsafe {
            assert_eq!((sim_table.rocsparse_create_handle)(&mut handle), ok);
            let status =
                (sim_table.rocsparse_create_csr_descr)(&mut mat, 2, 2, 3, offsets, cols, vals, i32t, i32t, zero, f64t);
            assert_eq!(status, ok);
            assert_eq!((sim_table.rocsparse_create_dnvec_descr)(&mut x, 2, xp, f64t), ok);
            assert_eq!((sim_table.rocsparse_create_dnvec_descr)(&mut y, 2, yp, f64t), ok);
        }
        let (one, nought) = (1.0f64, 0.0f64);
        let (alpha, beta) = ((&one as *const f64).cast(), (&nought as *const f64).cast());
        let none = rocsparse_operation::rocsparse_operation_none;
        let alg = rocsparse_spmv_alg::rocsparse_spmv_alg_default;
        let read_y = || {
            let mut out = [0f64; 2];
            // SAFETY: `yp` holds two doubles; the copy waits for prior work.
            let status = unsafe { (hip.hipMemcpy)(out.as_mut_ptr().cast(), yp, 16, hipMemcpyDeviceToHost) };
            assert_eq!(status, crate::bindings::hip::hipError_t::hipSuccess);
            out
        };
        for table in [&v2, &v3] {
            let mut size = 0;
            for stage in [1, 2, 3] {
                let temp = if stage == 1 { std::ptr::null_mut() } else { buffer };
                let stage = rocsparse_spmv_stage(stage);
                // SAFETY: the arguments satisfy the C contract.
                let status = unsafe {
                    crate::rocsparse_spmv_staged(
                        table, handle, none, alpha, mat, x, beta, y, f64t, alg, stage, &mut size, temp,
                    )
                };
                assert_eq!(status, ok);
            }
            assert_eq!(size, crate::sim::ROCSPARSE_BUFFER_SIZE);
            assert_eq!(read_y(), [2.0, 7.0]);
            // The unstaged field: size first, then compute.
            let mut size = 0;
            // SAFETY: as above.
            unsafe {
                let status = (table.rocsparse_spmv)(
                    handle,
                    none,
                    alpha,
                    mat,
                    x,
                    alpha,
                    y,
                    f64t,
                    alg,
                    &mut size,
                    std::ptr::null_mut(),
                );
                assert_eq!(status, ok);
                let status =
                    (table.rocsparse_spmv)(handle, none, alpha, mat, x, alpha, y, f64t, alg, &mut size, buffer);
                assert_eq!(status, ok);
            }
            assert_eq!(read_y(), [4.0, 14.0]);
            // SAFETY: `yp` holds 16 bytes.
            assert_eq!(unsafe { (hip.hipMemset)(yp, 0, 16) }, crate::bindings::hip::hipError_t::hipSuccess);
        }
        // SAFETY: objects created above, destroyed once.
        unsafe {
            (sim_table.rocsparse_destroy_dnvec_descr)(x);
            (sim_table.rocsparse_destroy_dnvec_descr)(y);
            (sim_table.rocsparse_destroy_spmat_descr)(mat);
            (sim_table.rocsparse_destroy_handle)(handle);
            for p in [offsets, cols, vals, xp, yp, buffer] {
                assert_eq!((hip.hipFree)(p), crate::bindings::hip::hipError_t::hipSuccess);
            }
        }
    }
}
