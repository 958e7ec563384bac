//! The math libraries' function tables: rocSPARSE, rocFFT and MIOpen.
//!
//! Each table is loaded lazily, once per process, for the process's
//! [backend](crate::backend()):
//!
//! - **amd**: AMD's shared library, opened at run time from
//!   `$ROCM_PATH/lib`, then `/opt/rocm/lib`, then the loader's path, under
//!   the names `librocsparse.so` (`.so.1`, `.so.0`), `librocfft.so`
//!   (`.so.0`) and `libMIOpen.so` (`.so.1`). A library that is not found is
//!   [`BackendError::LibraryNotFound`] (with every path tried), a symbol
//!   that is missing [`BackendError::SymbolMissing`], a version whose ABI
//!   this crate does not know [`BackendError::UnsupportedVersion`]. None of
//!   them panics.
//! - **sim**: the simulator's implementations ([`crate::sim`]).
//! - **nvidia**: rocFFT is mapped onto cuFFT (`libcufft.so.12`, `.11`),
//!   rocSPARSE onto cuSPARSE (`libcusparse.so.12`, `.11`) and MIOpen onto
//!   cuDNN (`libcudnn.so.9`, `.8`), as hipFFT, hipSPARSE and hipDNN do
//!   (see the nvidia backend's `cufft.rs`, `cusparse.rs` and `cudnn.rs` for
//!   the mappings and where they differ). A missing NVIDIA library is
//!   [`BackendError::LibraryNotFound`], naming every path tried.
//!
//! If backend selection itself failed, that error is returned.
//!
//! # ABI versions (amd)
//!
//! Calling a function through a signature that does not match the library
//! is undefined behaviour, not an error, so the loaders read each library's
//! version before filling a table and refuse versions they do not know.
//! The tables' signatures are those of the bindings (rocSPARSE of ROCm
//! 5.7.1, rocFFT of ROCm 6.1.2, MIOpen 3.x); what differs between versions:
//!
//! - **rocSPARSE** reports its own version through `rocsparse_get_version`
//!   (`major * 100000 + minor * 100 + patch`): 2.x in ROCm 5.x, 3.x in ROCm
//!   6.x, 4.x in ROCm 7.x. The call needs a handle, so the loader creates
//!   one under the calling thread's current device, reads the version and
//!   destroys it. Per the rocSPARSE changelog:
//!   - `rocsparse_spmv` had no stage argument through 2.x; 2.x (from ROCm
//!     5.4) has the staged form as `rocsparse_spmv_ex`. In 3.0 (ROCm 6.0)
//!     the unstaged `rocsparse_spmv` was removed, `rocsparse_spmv` itself
//!     took the staged signature (with `const` descriptors, the same ABI)
//!     and `rocsparse_spmv_ex` was deprecated; 4.x keeps that `rocsparse_spmv`.
//!     The table's `rocsparse_spmv_ex` field therefore always holds the
//!     staged function: `rocsparse_spmv_ex` on 2.x (or, before ROCm 5.4
//!     where it is absent, a shim over the unstaged `rocsparse_spmv`), and
//!     the library's `rocsparse_spmv` on 3.x and 4.x. The table's unstaged
//!     `rocsparse_spmv` field is, on 3.x and 4.x, a shim over the staged
//!     function with explicit stages: buffer size when `temp_buffer` is
//!     null, otherwise preprocess then compute (what 2.x's unstaged call
//!     does). 3.0 removed the auto stage (`rocsparse_spmv_stage_auto`, 0,
//!     and the same for SpMM): 3.x and 4.x reject it with `invalid_value`,
//!     so nothing here passes it on those versions; the bindings' constant
//!     exists for 2.x only. [`rocsparse_spmv_staged`] is the one entry point
//!     to use.
//!   - `rocsparse_spmm` has had its stage argument since 2.0 (ROCm 5.0;
//!     1.x had it only in `rocsparse_spmm_ex`, deprecated in 2.0 and removed
//!     in 3.0); 3.x made the A and B descriptors `const`, the same ABI. It
//!     is resolved as it is; as for SpMV, 3.x and 4.x have no auto stage,
//!     so callers run buffer size, preprocess and compute.
//!   - Handles, streams, pointer mode and the CSR, dense vector and dense
//!     matrix descriptors kept their signatures from 2.0 to 4.x.
//!
//!   Supported: rocSPARSE 2.x, 3.x and 4.x.
//! - **rocFFT** reports its own version through `rocfft_get_version_string`:
//!   1.0.x in every ROCm from 5.0 (1.0.15) to 7.2 (1.0.36). Its C API is
//!   stable across 1.0.x; every function of the table has the same
//!   signature in the 5.x, 6.x and 7.x headers. Supported: rocFFT 1.0.x.
//!   What does change is behaviour: before 1.0.25 (ROCm 6.0) a real
//!   forward (R2C) transform may overwrite its input even when it is not in
//!   place; real inverse (C2R) transforms may in every version, complex
//!   ones never. [`rocfft_version`] gives the loaded version, and
//!   [`RocfftVersion::r2c_may_overwrite_input`] the rule.
//! - **MIOpen** reports its version through `miopenGetVersion`: 2.x in ROCm
//!   5.x, 3.x in ROCm 6.x and 7.x. The functions of the table and the enum
//!   values they take are the same in 2.x and 3.x (see
//!   [`crate::miopen`](mod@crate::miopen)). Supported: MIOpen 2.x and 3.x.
//!
//! None of this has been run against AMD's libraries yet: the decisions
//! rest on the changelogs and headers named above.

use std::ffi::{c_int, c_void};
use std::fmt;
use std::sync::OnceLock;

use libloading::Library as SharedLibrary;

use crate::backend::Backend;
use crate::miopen::{miopenStatus_t, MiopenApi};
use crate::rocfft::{rocfft_status, RocfftApi};
use crate::rocsparse::*;
use crate::BackendError;

/// One of the math libraries.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Library {
    /// rocSPARSE, `librocsparse.so`.
    Rocsparse,
    /// rocFFT, `librocfft.so`.
    Rocfft,
    /// MIOpen, `libMIOpen.so`.
    Miopen,
}

impl Library {
    /// Every library.
    pub const ALL: [Library; 3] = [Library::Rocsparse, Library::Rocfft, Library::Miopen];

    /// The C library's name: `rocSPARSE`, `rocFFT` or `MIOpen`.
    pub const fn name(self) -> &'static str {
        match self {
            Library::Rocsparse => "rocSPARSE",
            Library::Rocfft => "rocFFT",
            Library::Miopen => "MIOpen",
        }
    }

    /// The file names tried in each directory and through the loader path.
    const fn file_names(self) -> &'static [&'static str] {
        match self {
            Library::Rocsparse => &["librocsparse.so", "librocsparse.so.1", "librocsparse.so.0"],
            Library::Rocfft => &["librocfft.so", "librocfft.so.0"],
            Library::Miopen => &["libMIOpen.so", "libMIOpen.so.1"],
        }
    }
}

impl fmt::Display for Library {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Where a library's table comes from on a backend.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Source {
    /// AMD's shared library.
    Amd,
    /// The simulator.
    Sim,
    /// The nvidia backend's mapping onto NVIDIA's library.
    Nvidia,
}

/// Decide where the libraries come from, given the process's backend (or
/// why there is none): every backend provides all three.
pub(crate) fn source(selection: Result<Backend, BackendError>) -> Result<Source, BackendError> {
    match selection? {
        Backend::Amd => Ok(Source::Amd),
        Backend::Sim => Ok(Source::Sim),
        Backend::Nvidia => Ok(Source::Nvidia),
    }
}

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

/// The process's rocFFT table.
pub fn rocfft() -> Result<&'static RocfftApi, BackendError> {
    static TABLE: OnceLock<Result<&'static RocfftApi, BackendError>> = OnceLock::new();
    TABLE
        .get_or_init(|| match source(crate::selection())? {
            Source::Sim => crate::sim::rocfft_env_version().map(|_| crate::sim::rocfft_api()),
            Source::Amd => load_rocfft(&candidates(Library::Rocfft, rocm_path().as_deref())),
            Source::Nvidia => {
                let api = crate::backend::nvidia::cufft::load(&crate::backend::nvidia::cufft::candidates())?;
                // cuFFT keeps out-of-place R2C inputs and may overwrite C2R
                // ones: the input rules of rocFFT 1.0.25 and later.
                let _ = LIBRARY_ROCFFT_VERSION.set(RocfftVersion::R2C_KEEPS_INPUT);
                Ok(api)
            }
        })
        .clone()
}

/// The process's MIOpen table.
pub fn miopen() -> Result<&'static MiopenApi, BackendError> {
    static TABLE: OnceLock<Result<&'static MiopenApi, BackendError>> = OnceLock::new();
    TABLE
        .get_or_init(|| match source(crate::selection())? {
            Source::Sim => Ok(crate::sim::miopen_api()),
            Source::Amd => load_miopen(&candidates(Library::Miopen, rocm_path().as_deref())),
            Source::Nvidia => crate::backend::nvidia::cudnn::load(&crate::backend::nvidia::cudnn::candidates()),
        })
        .clone()
}

/// A rocFFT version, as `rocfft_get_version_string` reports it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct RocfftVersion {
    /// Major version (1 in every ROCm from 5.0 on).
    pub major: u32,
    /// Minor version.
    pub minor: u32,
    /// Patch version (15 in ROCm 5.0 to 36 in ROCm 7.2).
    pub patch: u32,
}

impl RocfftVersion {
    /// The first rocFFT whose out-of-place real forward (R2C) transforms
    /// leave their input intact: 1.0.25, of ROCm 6.0 (its changelog: "Real
    /// forward transforms (real-to-complex) no longer overwrite input").
    pub const R2C_KEEPS_INPUT: RocfftVersion = RocfftVersion::new(1, 0, 25);

    /// The version `major.minor.patch`.
    pub const fn new(major: u32, minor: u32, patch: u32) -> RocfftVersion {
        RocfftVersion { major, minor, patch }
    }

    /// Parse rocFFT's version string (`1.0.27.abcdef`, `1.0.27`).
    pub fn parse(text: &str) -> Option<RocfftVersion> {
        parse_rocfft_version(text).map(|(major, minor, patch)| RocfftVersion { major, minor, patch })
    }

    /// Whether an out-of-place real forward (R2C) transform of this version
    /// may overwrite its input: before 1.0.25. Real inverse (C2R)
    /// transforms may overwrite their input in every version; complex
    /// (C2C) transforms never do, in any 1.0.x.
    ///
    /// The rule goes by the version the library reports, which lagged once:
    /// ROCm 6.0.0's rocFFT reports 1.0.23 (ROCm 5.7's number) although its
    /// R2C transforms already keep their input; for it the rule errs on the
    /// safe side. No release reports 1.0.25 or later and overwrites.
    pub fn r2c_may_overwrite_input(self) -> bool {
        self < RocfftVersion::R2C_KEEPS_INPUT
    }
}

impl fmt::Display for RocfftVersion {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}.{}.{}", self.major, self.minor, self.patch)
    }
}

/// The version of the rocFFT this process uses (loading it if needed):
/// the library's own report on the amd backend, the simulated version
/// (`AMDGPU_SIM_ROCFFT_VERSION`, see [`crate::sim`]) on the simulator, and
/// on the nvidia backend 1.0.25, the first rocFFT whose rules for inputs
/// cuFFT follows.
pub fn rocfft_version() -> Result<RocfftVersion, BackendError> {
    rocfft()?;
    match LIBRARY_ROCFFT_VERSION.get() {
        Some(version) => Ok(*version),
        None => Ok(crate::sim::rocfft_version()),
    }
}

/// The version `load_rocfft` read from AMD's library, or the rocFFT whose
/// rules cuFFT follows on the nvidia backend.
static LIBRARY_ROCFFT_VERSION: OnceLock<RocfftVersion> = OnceLock::new();

/// Whether `library` can be used in this process (loading it if needed).
pub fn available(library: Library) -> bool {
    match library {
        Library::Rocsparse => rocsparse().is_ok(),
        Library::Rocfft => rocfft().is_ok(),
        Library::Miopen => miopen().is_ok(),
    }
}

/// SpMV with a stage, whatever the rocSPARSE version: calls the table's
/// `rocsparse_spmv_ex` field, which the loaders fill with the staged
/// function of the library's version (`rocsparse_spmv_ex` on rocSPARSE
/// 2.x, the staged `rocsparse_spmv` on 3.x and 4.x, the simulator's
/// `rocsparse_spmv_ex`; see the [module docs](self)).
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

// ---- loading (amd) ------------------------------------------------------------

fn rocm_path() -> Option<String> {
    std::env::var("ROCM_PATH").ok()
}

/// The candidate files of `library`, in the order they are tried.
pub(crate) fn candidates(library: Library, rocm_path: Option<&str>) -> Vec<String> {
    let mut dirs = Vec::with_capacity(2);
    if let Some(root) = rocm_path.map(str::trim).filter(|p| !p.is_empty()) {
        dirs.push(root.trim_end_matches('/').to_owned());
    }
    if !dirs.iter().any(|d| d == "/opt/rocm") {
        dirs.push("/opt/rocm".to_owned());
    }
    let mut out = Vec::new();
    for dir in &dirs {
        for name in library.file_names() {
            out.push(format!("{dir}/lib/{name}"));
        }
    }
    out.extend(library.file_names().iter().map(|name| (*name).to_owned()));
    out
}

fn not_found_hint(library: Library) -> String {
    format!(
        "install {library} of ROCm 5.x, 6.x or 7.x, then set ROCM_PATH to its prefix (e.g. /opt/rocm) or add its \
         lib directory to LD_LIBRARY_PATH; or set AMDGPU_BACKEND=sim to use the simulator's {library}"
    )
}

/// A library opened and kept for the process.
struct Opened {
    /// Closed again (dlclose) if loading fails; kept for the process by
    /// [`Opened::keep`] once the table is built.
    library: SharedLibrary,
    path: String,
    which: Library,
}

impl Opened {
    /// Keep the library loaded for the rest of the process: the table's
    /// function pointers point into it.
    fn keep(self) {
        std::mem::forget(self.library);
    }

    /// The non-null address of `name`.
    fn symbol(&self, name: &str) -> Result<*const c_void, BackendError> {
        // SAFETY: the symbol is read as an untyped pointer, which is valid
        // for any symbol; its type is asserted where it is used.
        let symbol = unsafe { self.library.get::<*const c_void>(name.as_bytes()) };
        match symbol {
            Ok(symbol) if !(*symbol).is_null() => Ok(*symbol),
            _ => Err(BackendError::SymbolMissing {
                library: self.path.clone(),
                symbol: name.to_owned(),
                hint: format!(
                    "point ROCM_PATH at a ROCm 5.x, 6.x or 7.x installation whose {} is complete, \
                     or set AMDGPU_BACKEND=sim",
                    self.which
                ),
            }),
        }
    }

    fn unsupported(&self, found: String, supported: &str) -> BackendError {
        BackendError::UnsupportedVersion { library: self.path.clone(), found, supported: supported.to_owned() }
    }
}

/// Open the first candidate that loads; it stays loaded for the process,
/// so pointers into it stay valid.
fn open(library: Library, candidates: &[String]) -> Result<Opened, BackendError> {
    let mut tried = Vec::with_capacity(candidates.len());
    for path in candidates {
        // SAFETY: loading a shared library runs its initialisers; the
        // candidates name AMD's math libraries, meant to be loaded by any
        // process.
        match unsafe { SharedLibrary::new(path) } {
            Ok(opened) => return Ok(Opened { library: opened, path: path.clone(), which: library }),
            Err(e) => {
                let reason = e.to_string();
                let reason = reason.strip_prefix(path.as_str()).and_then(|r| r.strip_prefix(": ")).unwrap_or(&reason);
                tried.push(format!("{path} ({reason})"));
            }
        }
    }
    Err(BackendError::LibraryNotFound { library: library.name().to_owned(), tried, hint: not_found_hint(library) })
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
                opened.path, status.0
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
    log::debug!("loaded {}: rocSPARSE version {version}, {abi:?}", opened.path);
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

/// Parse rocFFT's version string (`1.0.27.abcdef`, `1.0.27`) into
/// (major, minor, patch).
pub(crate) fn parse_rocfft_version(text: &str) -> Option<(u32, u32, u32)> {
    let mut parts = text.trim().split(['.', '-', ' ']);
    let major = parts.next()?.parse().ok()?;
    let minor = parts.next()?.parse().ok()?;
    let patch = parts.next()?.parse().ok()?;
    Some((major, minor, patch))
}

fn load_rocfft(candidates: &[String]) -> Result<&'static RocfftApi, BackendError> {
    let opened = open(Library::Rocfft, candidates)?;
    // SAFETY: every symbol has the signature of the bindings in rocFFT
    // 1.0.x (module docs); the version is checked before any other call.
    let api = unsafe { RocfftApi::from_resolver(|name| opened.symbol(name)) }?;
    let mut buf = [0 as std::ffi::c_char; 64];
    // SAFETY: `buf` is valid for its length.
    let status = unsafe { (api.rocfft_get_version_string)(buf.as_mut_ptr(), buf.len()) };
    // SAFETY: on success the library wrote a NUL-terminated string into `buf`;
    // the last byte is kept NUL in any case.
    let text = unsafe {
        buf[buf.len() - 1] = 0;
        std::ffi::CStr::from_ptr(buf.as_ptr()).to_string_lossy().into_owned()
    };
    const SUPPORTED: &str = "rocFFT 1.0.x (ROCm 5.x, 6.x and 7.x)";
    if status != rocfft_status::rocfft_status_success {
        return Err(opened.unsupported(format!("unknown (rocfft_get_version_string: status {})", status.0), SUPPORTED));
    }
    match parse_rocfft_version(&text) {
        Some((1, 0, patch)) => {
            let _ = LIBRARY_ROCFFT_VERSION.set(RocfftVersion::new(1, 0, patch));
            log::debug!("loaded {}: rocFFT {text}", opened.path);
            opened.keep();
            Ok(Box::leak(Box::new(api)))
        }
        _ => Err(opened.unsupported(format!("rocFFT {text}"), SUPPORTED)),
    }
}

fn load_miopen(candidates: &[String]) -> Result<&'static MiopenApi, BackendError> {
    let opened = open(Library::Miopen, candidates)?;
    // SAFETY: every symbol has the signature of the bindings in MIOpen 2.x
    // and 3.x (module docs); the version is checked before any other call.
    let api = unsafe { MiopenApi::from_resolver(|name| opened.symbol(name)) }?;
    let (mut major, mut minor, mut patch) = (0usize, 0usize, 0usize);
    // SAFETY: three valid out-pointers.
    let status = unsafe { (api.miopenGetVersion)(&mut major, &mut minor, &mut patch) };
    const SUPPORTED: &str = "MIOpen 2.x and 3.x (ROCm 5.x, 6.x and 7.x)";
    if status != miopenStatus_t::miopenStatusSuccess {
        return Err(opened.unsupported(format!("unknown (miopenGetVersion: status {})", status.0), SUPPORTED));
    }
    match major {
        2 | 3 => {
            opened.keep();
            Ok(Box::leak(Box::new(api)))
        }
        _ => Err(opened.unsupported(format!("MIOpen {major}.{minor}.{patch}"), SUPPORTED)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_backend_chooses_its_source() {
        assert_eq!(source(Ok(Backend::Nvidia)), Ok(Source::Nvidia));
        assert_eq!(source(Ok(Backend::Amd)), Ok(Source::Amd));
        assert_eq!(source(Ok(Backend::Sim)), Ok(Source::Sim));
        let failed = BackendError::InvalidBackend { value: "x".to_owned() };
        assert_eq!(source(Err(failed.clone())), Err(failed));
    }

    #[test]
    fn library_names_and_candidates() {
        assert_eq!(Library::Rocsparse.to_string(), "rocSPARSE");
        assert_eq!(Library::Rocfft.to_string(), "rocFFT");
        assert_eq!(Library::Miopen.to_string(), "MIOpen");
        let c = candidates(Library::Rocsparse, Some("/x/rocm/"));
        assert_eq!(c[0], "/x/rocm/lib/librocsparse.so");
        assert_eq!(c[3], "/opt/rocm/lib/librocsparse.so");
        assert_eq!(c.last().map(String::as_str), Some("librocsparse.so.0"));
        assert_eq!(
            candidates(Library::Miopen, None),
            ["/opt/rocm/lib/libMIOpen.so", "/opt/rocm/lib/libMIOpen.so.1", "libMIOpen.so", "libMIOpen.so.1"]
        );
    }

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

    #[test]
    fn rocfft_versions_parse() {
        assert_eq!(parse_rocfft_version("1.0.27.c3a0b8"), Some((1, 0, 27)));
        assert_eq!(parse_rocfft_version("1.0.36"), Some((1, 0, 36)));
        assert_eq!(parse_rocfft_version("garbage"), None);
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
    fn missing_libraries_and_symbols_are_errors() {
        let err = load_rocfft(&["/nonexistent/amdgpu-rs/librocfft.so".to_owned()]).expect_err("absent");
        assert!(matches!(err, BackendError::LibraryNotFound { ref library, .. } if library == "rocFFT"), "{err:?}");
        // libm has none of MIOpen's symbols.
        let err = load_miopen(&["libm.so.6".to_owned()]).expect_err("not MIOpen");
        assert!(
            matches!(err, BackendError::SymbolMissing { ref symbol, .. } if symbol == "miopenGetVersion"),
            "{err:?}"
        );
        let err = load_rocsparse(&["libm.so.6".to_owned()]).expect_err("not rocSPARSE");
        assert!(matches!(err, BackendError::SymbolMissing { .. }), "{err:?}");
    }
}
