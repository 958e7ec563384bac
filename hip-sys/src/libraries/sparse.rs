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

use std::ffi::{c_int, c_void};
use std::sync::OnceLock;

use super::{candidates, open, rocm_path, source, Library, Source};
use crate::rocsparse::*;
use crate::BackendError;

/// The process's rocSPARSE table.
pub fn rocsparse() -> Result<&'static RocsparseApi, BackendError> {
    static TABLE: OnceLock<Result<&'static RocsparseApi, BackendError>> = OnceLock::new();
    TABLE
        .get_or_init(|| match source(crate::selection())? {
            Source::Sim => Ok(crate::sim::rocsparse_api()),
            Source::Amd => load_rocsparse(&candidates(Library::Rocsparse, rocm_path().as_deref())),
            Source::Nvidia => crate::backend::nvidia::cusparse::load(&crate::backend::nvidia::cusparse::candidates()),
        })
        .clone()
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

/// How the SpMV entry points of a rocSPARSE version are filled.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum SpmvAbi {
    /// rocSPARSE 2.x (ROCm 5.x): unstaged `rocsparse_spmv`, staged
    /// `rocsparse_spmv_ex` (from 2.4).
    V2,
    /// rocSPARSE 3.x and 4.x (ROCm 6.x, 7.x): staged `rocsparse_spmv`.
    V3,
}

/// The versions the rocSPARSE loader accepts, in messages.
const ROCSPARSE_SUPPORTED: &str = "rocSPARSE 2.x, 3.x and 4.x (ROCm 5.x, 6.x and 7.x)";

/// Decode `rocsparse_get_version`'s number and pick the SpMV ABI;
/// `Err` with the decoded version for one this crate does not know.
pub(crate) fn rocsparse_spmv_abi(version: c_int) -> Result<SpmvAbi, String> {
    let decoded = format!("{}.{}.{}", version / 100_000, version / 100 % 1000, version % 100);
    match version / 100_000 {
        2 => Ok(SpmvAbi::V2),
        3 | 4 => Ok(SpmvAbi::V3),
        _ => Err(format!("rocSPARSE {decoded} ({version})")),
    }
}

type CreateHandle = unsafe extern "C" fn(*mut rocsparse_handle) -> rocsparse_status;
type DestroyHandle = unsafe extern "C" fn(rocsparse_handle) -> rocsparse_status;
type GetVersion = unsafe extern "C" fn(rocsparse_handle, *mut c_int) -> rocsparse_status;
/// The signature of the staged SpMV (5.x `rocsparse_spmv_ex`, 6.x `rocsparse_spmv`).
pub(crate) type SpmvStaged = unsafe extern "C" fn(
    rocsparse_handle,
    rocsparse_operation,
    *const c_void,
    rocsparse_spmat_descr,
    rocsparse_dnvec_descr,
    *const c_void,
    rocsparse_dnvec_descr,
    rocsparse_datatype,
    rocsparse_spmv_alg,
    rocsparse_spmv_stage,
    *mut usize,
    *mut c_void,
) -> rocsparse_status;
/// The signature of the unstaged 5.x `rocsparse_spmv`.
pub(crate) type SpmvUnstaged = unsafe extern "C" fn(
    rocsparse_handle,
    rocsparse_operation,
    *const c_void,
    rocsparse_spmat_descr,
    rocsparse_dnvec_descr,
    *const c_void,
    rocsparse_dnvec_descr,
    rocsparse_datatype,
    rocsparse_spmv_alg,
    *mut usize,
    *mut c_void,
) -> rocsparse_status;

/// The library's staged `rocsparse_spmv` (3.x, 4.x, or the nvidia
/// backend's over cuSPARSE), for [`spmv_unstaged_shim`].
static REAL_SPMV_STAGED: OnceLock<SpmvStaged> = OnceLock::new();

/// Serve the table's unstaged `rocsparse_spmv` field with
/// [`spmv_unstaged_shim`] over `staged`, for a library that has only the
/// staged call (the nvidia backend's mapping).
pub(crate) fn unstaged_spmv_over(staged: SpmvStaged) -> SpmvUnstaged {
    REAL_SPMV_STAGED.get_or_init(|| staged);
    spmv_unstaged_shim
}
/// The library's unstaged `rocsparse_spmv` (2.x without `_ex`), for [`spmv_staged_shim`].
static REAL_SPMV_UNSTAGED: OnceLock<SpmvUnstaged> = OnceLock::new();

/// The 5.x unstaged `rocsparse_spmv` on rocSPARSE 3.x and 4.x (and over
/// cuSPARSE on the nvidia backend), which have
/// no auto stage: the staged call's buffer size stage when `temp_buffer`
/// is null, otherwise its preprocess then compute stages (what the 2.x
/// unstaged call does).
#[allow(clippy::too_many_arguments)]
unsafe extern "C" fn spmv_unstaged_shim(
    handle: rocsparse_handle,
    trans: rocsparse_operation,
    alpha: *const c_void,
    mat: rocsparse_spmat_descr,
    x: rocsparse_dnvec_descr,
    beta: *const c_void,
    y: rocsparse_dnvec_descr,
    compute_type: rocsparse_datatype,
    alg: rocsparse_spmv_alg,
    buffer_size: *mut usize,
    temp_buffer: *mut c_void,
) -> rocsparse_status {
    let Some(real) = REAL_SPMV_STAGED.get() else {
        return rocsparse_status::rocsparse_status_not_initialized;
    };
    let stages: &[rocsparse_spmv_stage] = if temp_buffer.is_null() {
        &[rocsparse_spmv_stage::rocsparse_spmv_stage_buffer_size]
    } else {
        &[rocsparse_spmv_stage::rocsparse_spmv_stage_preprocess, rocsparse_spmv_stage::rocsparse_spmv_stage_compute]
    };
    for &stage in stages {
        // SAFETY: `real` is the library's staged function; arguments as given.
        let status =
            unsafe { real(handle, trans, alpha, mat, x, beta, y, compute_type, alg, stage, buffer_size, temp_buffer) };
        if status != rocsparse_status::rocsparse_status_success {
            return status;
        }
    }
    rocsparse_status::rocsparse_status_success
}

/// The staged SpMV on rocSPARSE 2.0 to 2.3, which lack `rocsparse_spmv_ex`:
/// buffer size and auto without a buffer ask the unstaged call for the
/// size, preprocess does nothing, compute and auto with a buffer compute
/// (the unstaged call analyses the matrix itself).
#[allow(clippy::too_many_arguments)]
unsafe extern "C" fn spmv_staged_shim(
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
    let Some(real) = REAL_SPMV_UNSTAGED.get() else {
        return rocsparse_status::rocsparse_status_not_initialized;
    };
    let temp = match stage.0 {
        1 => std::ptr::null_mut(),
        2 => return rocsparse_status::rocsparse_status_success,
        0 | 3 => temp_buffer,
        _ => return rocsparse_status::rocsparse_status_invalid_value,
    };
    if stage.0 == 3 && temp.is_null() {
        return rocsparse_status::rocsparse_status_invalid_pointer;
    }
    // SAFETY: `real` is the library's unstaged function; arguments as given.
    unsafe { real(handle, trans, alpha, mat, x, beta, y, compute_type, alg, buffer_size, temp) }
}

fn load_rocsparse(candidates: &[String]) -> Result<&'static RocsparseApi, BackendError> {
    let opened = open(Library::Rocsparse, candidates)?;
    // SAFETY: these three symbols have had these signatures in every
    // rocSPARSE release this crate knows (and before).
    let (create, destroy, get_version) = unsafe {
        (
            std::mem::transmute::<*const c_void, CreateHandle>(opened.symbol("rocsparse_create_handle")?),
            std::mem::transmute::<*const c_void, DestroyHandle>(opened.symbol("rocsparse_destroy_handle")?),
            std::mem::transmute::<*const c_void, GetVersion>(opened.symbol("rocsparse_get_version")?),
        )
    };
    let mut handle: rocsparse_handle = std::ptr::null_mut();
    // SAFETY: `handle` is a valid out-pointer.
    let status = unsafe { create(&mut handle) };
    if status != rocsparse_status::rocsparse_status_success {
        return Err(BackendError::LibraryUnavailable {
            library: Library::Rocsparse.name().to_owned(),
            hint: format!(
                "{} loaded, but rocsparse_create_handle failed (status {}) while reading its version on the \
                 current device. To fix: check that the GPU works (hipGetDeviceCount), or set AMDGPU_BACKEND=sim",
                opened.path(),
                status.0
            ),
        });
    }
    let mut version: c_int = 0;
    // SAFETY: `handle` was just created; `version` is a valid out-pointer.
    let status = unsafe { get_version(handle, &mut version) };
    // SAFETY: `handle` was created above and is destroyed once.
    unsafe { destroy(handle) };
    if status != rocsparse_status::rocsparse_status_success {
        return Err(
            opened.unsupported(format!("unknown (rocsparse_get_version: status {})", status.0), ROCSPARSE_SUPPORTED)
        );
    }
    let abi = rocsparse_spmv_abi(version).map_err(|found| opened.unsupported(found, ROCSPARSE_SUPPORTED))?;
    log::debug!("loaded {}: rocSPARSE version {version}, {abi:?}", opened.path());
    let (spmv, spmv_ex): (*const c_void, *const c_void) = match abi {
        SpmvAbi::V2 => {
            let unstaged = opened.symbol("rocsparse_spmv")?;
            match opened.symbol("rocsparse_spmv_ex") {
                Ok(staged) => (unstaged, staged),
                Err(_) => {
                    // SAFETY: on 2.x `rocsparse_spmv` is the unstaged function.
                    let real = unsafe { std::mem::transmute::<*const c_void, SpmvUnstaged>(unstaged) };
                    REAL_SPMV_UNSTAGED.get_or_init(|| real);
                    (unstaged, spmv_staged_shim as *const c_void)
                }
            }
        }
        SpmvAbi::V3 => {
            let staged = opened.symbol("rocsparse_spmv")?;
            // SAFETY: on 3.x and 4.x `rocsparse_spmv` is the staged function.
            let real = unsafe { std::mem::transmute::<*const c_void, SpmvStaged>(staged) };
            REAL_SPMV_STAGED.get_or_init(|| real);
            (spmv_unstaged_shim as *const c_void, staged)
        }
    };
    let resolve = |name: &'static str| match name {
        "rocsparse_spmv" => Ok(spmv),
        "rocsparse_spmv_ex" => Ok(spmv_ex),
        other => opened.symbol(other),
    };
    // SAFETY: every other symbol has the signature of the bindings in
    // rocSPARSE 2.x to 4.x (module docs); the two SpMV fields hold functions
    // of their declared signatures for this version, chosen above.
    let api = unsafe { RocsparseApi::from_resolver(resolve) }?;
    opened.keep();
    Ok(Box::leak(Box::new(api)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rocsparse_versions_pick_the_spmv_abi() {
        assert_eq!(rocsparse_spmv_abi(200_504), Ok(SpmvAbi::V2)); // ROCm 5.7
        assert_eq!(rocsparse_spmv_abi(200_000), Ok(SpmvAbi::V2)); // ROCm 5.0
        assert_eq!(rocsparse_spmv_abi(300_002), Ok(SpmvAbi::V3)); // ROCm 6.0
        assert_eq!(rocsparse_spmv_abi(400_200), Ok(SpmvAbi::V3)); // ROCm 7.2
        let err = rocsparse_spmv_abi(102_202).expect_err("1.x is unknown");
        assert_eq!(err, "rocSPARSE 1.22.2 (102202)");
        assert!(rocsparse_spmv_abi(500_000).is_err());
    }

    /// The version shims, run over the simulator's rocSPARSE standing in
    /// for the library: a 2.x table without `rocsparse_spmv_ex` (staged
    /// shim over the unstaged function) and a 3.x table (unstaged shim over
    /// the staged function) compute the same SpMV as the simulator.
    #[test]
    #[allow(non_snake_case)]
    fn spmv_shims_compute_like_the_library() {
        let (hipMemcpyHostToDevice, hipMemcpyDeviceToHost) =
            (crate::hipMemcpyKind::hipMemcpyHostToDevice, crate::hipMemcpyKind::hipMemcpyDeviceToHost);
        let _guard = crate::sim::exclusive();
        let sim_table = *crate::sim::rocsparse_api();
        REAL_SPMV_UNSTAGED.get_or_init(|| sim_table.rocsparse_spmv);
        REAL_SPMV_STAGED.get_or_init(|| sim_table.rocsparse_spmv_ex);
        let mut v2 = sim_table;
        v2.rocsparse_spmv_ex = spmv_staged_shim;
        let mut v3 = sim_table;
        v3.rocsparse_spmv = spmv_unstaged_shim;
        let hip = crate::sim::api();
        let upload = |bytes: &[u8]| {
            let mut p = std::ptr::null_mut();
            // SAFETY: valid out-pointer; `bytes` is readable for its length.
            unsafe {
                assert_eq!((hip.hipMalloc)(&mut p, bytes.len()), crate::hipError_t::hipSuccess);
                let status = (hip.hipMemcpy)(p, bytes.as_ptr().cast(), bytes.len(), hipMemcpyHostToDevice);
                assert_eq!(status, crate::hipError_t::hipSuccess);
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
            assert_eq!(status, crate::hipError_t::hipSuccess);
            out
        };
        for table in [&v2, &v3] {
            let mut size = 0;
            for stage in [1, 2, 3] {
                let temp = if stage == 1 { std::ptr::null_mut() } else { buffer };
                let stage = rocsparse_spmv_stage(stage);
                // SAFETY: the arguments satisfy the C contract.
                let status = unsafe {
                    rocsparse_spmv_staged(
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
            assert_eq!(unsafe { (hip.hipMemset)(yp, 0, 16) }, crate::hipError_t::hipSuccess);
        }
        // SAFETY: objects created above, destroyed once.
        unsafe {
            (sim_table.rocsparse_destroy_dnvec_descr)(x);
            (sim_table.rocsparse_destroy_dnvec_descr)(y);
            (sim_table.rocsparse_destroy_spmat_descr)(mat);
            (sim_table.rocsparse_destroy_handle)(handle);
            for p in [offsets, cols, vals, xp, yp, buffer] {
                assert_eq!((hip.hipFree)(p), crate::hipError_t::hipSuccess);
            }
        }
    }

    #[test]
    fn a_library_without_its_symbols_is_an_error() {
        let err = load_rocsparse(&["libm.so.6".to_owned()]).expect_err("not rocSPARSE");
        assert!(matches!(err, BackendError::SymbolMissing { .. }), "{err:?}");
    }
}
