//! `cargo xtask bindgen [--check]`: generate hip-abi's bindings.
//!
//! Each library gets one file under `hip-abi/src/bindings/` holding the C
//! types it needs (enums as `#[repr(transparent)]` newtypes with associated
//! consts) and a function table derived from the C declarations (see
//! [`crate::table`]). Only the functions listed here are kept, plus what
//! their signatures need.

use crate::apt::{self, Unpacked};
use crate::{names, table};
use std::path::{Path, PathBuf};

/// One generated file.
struct Library {
    /// Output file name under `hip-abi/src/bindings/`.
    file: &'static str,
    /// The header bindgen reads, relative to `usr/include`.
    header: &'static str,
    /// The Debian package the header comes from.
    package: &'static str,
    /// Name of the function-table struct.
    table: &'static str,
    /// The C library that exports the functions, for the docs.
    soname: &'static str,
    /// Functions that go into the table.
    functions: &'static [&'static str],
    /// Types and macros kept even if no listed function names them.
    extra_types: &'static [&'static str],
    extra_vars: &'static [&'static str],
    /// Types taken from another binding file instead of being generated again.
    shared_types: &'static [(&'static str, &'static str)],
    /// C declarations of newer versions than the packaged header, read
    /// after it (each with the version that added it, in a comment); the
    /// loaders resolve these functions only where the library has them.
    newer: &'static str,
    /// Status types (as bindgen names them) that get a generated `name()`
    /// (see [`crate::names`]).
    statuses: &'static [&'static str],
}

const HIP_FUNCTIONS: &[&str] = &[
    // initialisation, versions
    "hipInit",
    "hipDriverGetVersion",
    "hipRuntimeGetVersion",
    // devices
    "hipGetDeviceCount",
    "hipSetDevice",
    "hipGetDevice",
    "hipDeviceGet",
    "hipDeviceGetName",
    "hipDeviceGetAttribute",
    "hipDeviceTotalMem",
    "hipDeviceSynchronize",
    "hipDeviceReset",
    "hipDeviceGetPCIBusId",
    "hipDeviceGetStreamPriorityRange",
    "hipDeviceCanAccessPeer",
    "hipDeviceEnablePeerAccess",
    "hipDeviceDisablePeerAccess",
    // contexts
    "hipCtxGetCurrent",
    "hipCtxSetCurrent",
    "hipCtxGetDevice",
    "hipCtxPushCurrent",
    "hipCtxPopCurrent",
    "hipDevicePrimaryCtxRetain",
    "hipDevicePrimaryCtxRelease",
    "hipDevicePrimaryCtxGetState",
    // streams
    "hipStreamCreate",
    "hipStreamCreateWithFlags",
    "hipStreamCreateWithPriority",
    "hipStreamDestroy",
    "hipStreamSynchronize",
    "hipStreamQuery",
    "hipStreamWaitEvent",
    "hipStreamGetPriority",
    "hipStreamGetFlags",
    "hipLaunchHostFunc",
    // events
    "hipEventCreate",
    "hipEventCreateWithFlags",
    "hipEventRecord",
    "hipEventSynchronize",
    "hipEventQuery",
    "hipEventElapsedTime",
    "hipEventDestroy",
    // memory
    "hipMalloc",
    "hipFree",
    "hipHostMalloc",
    "hipHostFree",
    "hipHostRegister",
    "hipHostUnregister",
    "hipMemGetInfo",
    "hipPointerGetAttributes",
    // memory and events shared with other processes
    "hipIpcGetMemHandle",
    "hipIpcOpenMemHandle",
    "hipIpcCloseMemHandle",
    "hipIpcGetEventHandle",
    "hipIpcOpenEventHandle",
    "hipMemGetAddressRange",
    // virtual memory: reserved addresses, physical allocations, mappings
    "hipMemAddressReserve",
    "hipMemAddressFree",
    "hipMemCreate",
    "hipMemRelease",
    "hipMemMap",
    "hipMemUnmap",
    "hipMemSetAccess",
    "hipMemGetAccess",
    "hipMemGetAllocationGranularity",
    "hipMemGetAllocationPropertiesFromHandle",
    "hipMemRetainAllocationHandle",
    "hipMemExportToShareableHandle",
    "hipMemImportFromShareableHandle",
    // managed memory
    "hipMallocManaged",
    "hipMemPrefetchAsync",
    "hipMemAdvise",
    "hipMemRangeGetAttribute",
    "hipMemcpy",
    "hipMemcpyAsync",
    "hipMemcpyPeer",
    "hipMemcpyPeerAsync",
    "hipMemset",
    "hipMemsetAsync",
    "hipMemsetD32",
    "hipMemsetD32Async",
    // stream-ordered memory and pools
    "hipMallocAsync",
    "hipFreeAsync",
    "hipMallocFromPoolAsync",
    "hipMemPoolCreate",
    "hipMemPoolDestroy",
    "hipMemPoolTrimTo",
    "hipMemPoolSetAttribute",
    "hipMemPoolGetAttribute",
    "hipDeviceGetDefaultMemPool",
    "hipDeviceGetMemPool",
    "hipDeviceSetMemPool",
    // stream capture and graphs
    "hipStreamBeginCapture",
    "hipStreamEndCapture",
    "hipStreamIsCapturing",
    "hipStreamGetCaptureInfo",
    "hipStreamGetCaptureInfo_v2",
    "hipThreadExchangeStreamCaptureMode",
    "hipGraphCreate",
    "hipGraphDestroy",
    "hipGraphGetNodes",
    "hipGraphInstantiate",
    "hipGraphInstantiateWithFlags",
    "hipGraphLaunch",
    "hipGraphUpload",
    "hipGraphExecDestroy",
    "hipGraphExecUpdate",
    "hipGraphNodeGetType",
    "hipDeviceGraphMemTrim",
    "hipDeviceGetGraphMemAttribute",
    "hipDeviceSetGraphMemAttribute",
    // modules
    "hipModuleLoadData",
    "hipModuleUnload",
    "hipModuleGetFunction",
    "hipModuleLaunchKernel",
    // errors
    "hipGetLastError",
    "hipPeekAtLastError",
    "hipGetErrorName",
    "hipGetErrorString",
];

const ROCSPARSE_FUNCTIONS: &[&str] = &[
    "rocsparse_get_version",
    "rocsparse_create_handle",
    "rocsparse_destroy_handle",
    "rocsparse_set_stream",
    "rocsparse_get_stream",
    "rocsparse_set_pointer_mode",
    "rocsparse_create_csr_descr",
    "rocsparse_destroy_spmat_descr",
    "rocsparse_create_dnvec_descr",
    "rocsparse_destroy_dnvec_descr",
    "rocsparse_create_dnmat_descr",
    "rocsparse_destroy_dnmat_descr",
    "rocsparse_spmv",
    "rocsparse_spmv_ex",
    "rocsparse_spmm",
];

const ROCFFT_FUNCTIONS: &[&str] = &[
    "rocfft_setup",
    "rocfft_cleanup",
    "rocfft_get_version_string",
    "rocfft_plan_create",
    "rocfft_plan_destroy",
    "rocfft_plan_get_work_buffer_size",
    "rocfft_plan_description_create",
    "rocfft_plan_description_destroy",
    "rocfft_plan_description_set_data_layout",
    "rocfft_execution_info_create",
    "rocfft_execution_info_destroy",
    "rocfft_execution_info_set_stream",
    "rocfft_execution_info_set_work_buffer",
    "rocfft_execute",
];

const ROCBLAS_FUNCTIONS: &[&str] = &[
    "rocblas_create_handle",
    "rocblas_destroy_handle",
    "rocblas_set_stream",
    "rocblas_get_stream",
    "rocblas_set_pointer_mode",
    "rocblas_get_pointer_mode",
    "rocblas_set_workspace",
    "rocblas_start_device_memory_size_query",
    "rocblas_stop_device_memory_size_query",
    "rocblas_get_version_string",
    "rocblas_get_version_string_size",
    "rocblas_set_math_mode",
    "rocblas_get_math_mode",
    // level 3
    "rocblas_sgemm",
    "rocblas_dgemm",
    "rocblas_cgemm",
    "rocblas_zgemm",
    "rocblas_sgemm_strided_batched",
    "rocblas_dgemm_strided_batched",
    "rocblas_cgemm_strided_batched",
    "rocblas_zgemm_strided_batched",
    "rocblas_gemm_ex",
    "rocblas_gemm_strided_batched_ex",
    // level 2
    "rocblas_sgemv",
    "rocblas_dgemv",
    "rocblas_cgemv",
    "rocblas_zgemv",
    // level 1
    "rocblas_saxpy",
    "rocblas_daxpy",
    "rocblas_caxpy",
    "rocblas_zaxpy",
    "rocblas_sdot",
    "rocblas_ddot",
    "rocblas_cdotu",
    "rocblas_zdotu",
    "rocblas_cdotc",
    "rocblas_zdotc",
    "rocblas_snrm2",
    "rocblas_dnrm2",
    "rocblas_scnrm2",
    "rocblas_dznrm2",
    "rocblas_sscal",
    "rocblas_dscal",
    "rocblas_cscal",
    "rocblas_zscal",
];

/// rocBLAS declarations newer than Debian's 5.5 headers.
const ROCBLAS_NEWER: &str = "
/* rocBLAS 3.1 (ROCm 5.7): XF32 math on the CDNA 3 parts (gfx94x). */
typedef enum rocblas_math_mode_ { rocblas_default_math = 0x0, rocblas_xf32_xdl_math_op = 0x1 } rocblas_math_mode;
extern \"C\" rocblas_status rocblas_set_math_mode(rocblas_handle handle, rocblas_math_mode math_mode);
extern \"C\" rocblas_status rocblas_get_math_mode(rocblas_handle handle, rocblas_math_mode* math_mode);
";

const HIPRTC_FUNCTIONS: &[&str] = &[
    "hiprtcGetErrorString",
    "hiprtcVersion",
    "hiprtcCreateProgram",
    "hiprtcDestroyProgram",
    "hiprtcCompileProgram",
    "hiprtcAddNameExpression",
    "hiprtcGetLoweredName",
    "hiprtcGetProgramLogSize",
    "hiprtcGetProgramLog",
    "hiprtcGetCodeSize",
    "hiprtcGetCode",
];

const ROCRAND_FUNCTIONS: &[&str] = &[
    "rocrand_get_version",
    "rocrand_create_generator",
    "rocrand_destroy_generator",
    "rocrand_set_stream",
    "rocrand_set_seed",
    "rocrand_set_offset",
    "rocrand_set_ordering",
    "rocrand_initialize_generator",
    "rocrand_generate",
    "rocrand_generate_uniform",
    "rocrand_generate_uniform_double",
    "rocrand_generate_normal",
    "rocrand_generate_normal_double",
    "rocrand_generate_log_normal",
    "rocrand_generate_log_normal_double",
    "rocrand_generate_poisson",
];

/// RCCL (NCCL's API on HIP): communicators, the collectives, point to point
/// and groups. RCCL-only calls (gather, scatter, all-to-all) are left out:
/// NCCL has no counterpart for the nvidia mapping.
const RCCL_FUNCTIONS: &[&str] = &[
    "ncclGetVersion",
    "ncclGetUniqueId",
    "ncclCommInitRank",
    "ncclCommInitRankMulti",
    "ncclCommInitAll",
    "ncclCommDestroy",
    "ncclCommAbort",
    "ncclGetErrorString",
    "ncclGetLastError",
    "ncclCommGetAsyncError",
    "ncclCommCount",
    "ncclCommCuDevice",
    "ncclCommUserRank",
    "ncclRedOpCreatePreMulSum",
    "ncclRedOpDestroy",
    "ncclReduce",
    "ncclBroadcast",
    "ncclAllReduce",
    "ncclReduceScatter",
    "ncclAllGather",
    "ncclSend",
    "ncclRecv",
    "ncclGroupStart",
    "ncclGroupEnd",
];

/// rocSOLVER's dense factorizations and solves, each in s, d, c and z,
/// the symmetric / Hermitian eigensolver and QR, their strided batches
/// and the pointer-array batches of LU, Cholesky, QR, the eigensolver
/// and the SVD.
const ROCSOLVER_FUNCTIONS: &[&str] = &[
    "rocsolver_get_version_string",
    "rocsolver_get_version_string_size",
    "rocsolver_sgetrf",
    "rocsolver_dgetrf",
    "rocsolver_cgetrf",
    "rocsolver_zgetrf",
    "rocsolver_sgetrs",
    "rocsolver_dgetrs",
    "rocsolver_cgetrs",
    "rocsolver_zgetrs",
    "rocsolver_spotrf",
    "rocsolver_dpotrf",
    "rocsolver_cpotrf",
    "rocsolver_zpotrf",
    "rocsolver_spotrs",
    "rocsolver_dpotrs",
    "rocsolver_cpotrs",
    "rocsolver_zpotrs",
    "rocsolver_ssyevd",
    "rocsolver_dsyevd",
    "rocsolver_cheevd",
    "rocsolver_zheevd",
    "rocsolver_sgeqrf",
    "rocsolver_dgeqrf",
    "rocsolver_cgeqrf",
    "rocsolver_zgeqrf",
    "rocsolver_sorgqr",
    "rocsolver_dorgqr",
    "rocsolver_cungqr",
    "rocsolver_zungqr",
    "rocsolver_sgesvd",
    "rocsolver_dgesvd",
    "rocsolver_cgesvd",
    "rocsolver_zgesvd",
    "rocsolver_sgetrf_strided_batched",
    "rocsolver_dgetrf_strided_batched",
    "rocsolver_cgetrf_strided_batched",
    "rocsolver_zgetrf_strided_batched",
    "rocsolver_sgetrs_strided_batched",
    "rocsolver_dgetrs_strided_batched",
    "rocsolver_cgetrs_strided_batched",
    "rocsolver_zgetrs_strided_batched",
    "rocsolver_spotrf_strided_batched",
    "rocsolver_dpotrf_strided_batched",
    "rocsolver_cpotrf_strided_batched",
    "rocsolver_zpotrf_strided_batched",
    "rocsolver_spotrs_strided_batched",
    "rocsolver_dpotrs_strided_batched",
    "rocsolver_cpotrs_strided_batched",
    "rocsolver_zpotrs_strided_batched",
    "rocsolver_sgeqrf_strided_batched",
    "rocsolver_dgeqrf_strided_batched",
    "rocsolver_cgeqrf_strided_batched",
    "rocsolver_zgeqrf_strided_batched",
    "rocsolver_ssyevd_strided_batched",
    "rocsolver_dsyevd_strided_batched",
    "rocsolver_cheevd_strided_batched",
    "rocsolver_zheevd_strided_batched",
    "rocsolver_sgesvd_strided_batched",
    "rocsolver_dgesvd_strided_batched",
    "rocsolver_cgesvd_strided_batched",
    "rocsolver_zgesvd_strided_batched",
    "rocsolver_sgetrf_batched",
    "rocsolver_dgetrf_batched",
    "rocsolver_cgetrf_batched",
    "rocsolver_zgetrf_batched",
    "rocsolver_sgetrs_batched",
    "rocsolver_dgetrs_batched",
    "rocsolver_cgetrs_batched",
    "rocsolver_zgetrs_batched",
    "rocsolver_spotrf_batched",
    "rocsolver_dpotrf_batched",
    "rocsolver_cpotrf_batched",
    "rocsolver_zpotrf_batched",
    "rocsolver_spotrs_batched",
    "rocsolver_dpotrs_batched",
    "rocsolver_cpotrs_batched",
    "rocsolver_zpotrs_batched",
    "rocsolver_sgeqrf_batched",
    "rocsolver_dgeqrf_batched",
    "rocsolver_cgeqrf_batched",
    "rocsolver_zgeqrf_batched",
    "rocsolver_ssyevd_batched",
    "rocsolver_dsyevd_batched",
    "rocsolver_cheevd_batched",
    "rocsolver_zheevd_batched",
    "rocsolver_sgesvd_batched",
    "rocsolver_dgesvd_batched",
    "rocsolver_cgesvd_batched",
    "rocsolver_zgesvd_batched",
];

/// The rocBLAS types rocSOLVER's header takes from rocBLAS's, shared
/// with rocBLAS's bindings (a rocSOLVER call takes a rocBLAS handle).
const ROCBLAS_SHARED: &[(&str, &str)] = &[
    ("rocblas", "_rocblas_handle"),
    ("rocblas", "rocblas_handle"),
    ("rocblas", "rocblas_int"),
    ("rocblas", "rocblas_stride"),
    ("rocblas", "rocblas_float_complex"),
    ("rocblas", "rocblas_double_complex"),
    ("rocblas", "rocblas_operation"),
    ("rocblas", "rocblas_operation_"),
    ("rocblas", "rocblas_status"),
    ("rocblas", "rocblas_status_"),
    ("hip", "hipStream_t"),
    ("hip", "ihipStream_t"),
];

const LIBRARIES: &[Library] = &[
    Library {
        file: "hip.rs",
        header: "hip/hip_runtime_api.h",
        package: "libamdhip64-dev",
        table: "HipApi",
        soname: "libamdhip64.so",
        functions: HIP_FUNCTIONS,
        extra_types: &[
            "hipDeviceAttribute_t",
            "hipMemcpyKind",
            "hipMemPoolAttr",
            "hipMemoryType",
            "hipStreamCaptureMode",
            "hipStreamCaptureStatus",
            "hipGraphExecUpdateResult",
            "hipGraphInstantiateFlags",
        ],
        extra_vars: &[
            "hipStreamDefault",
            "hipStreamNonBlocking",
            "hipEventDefault",
            "hipEventBlockingSync",
            "hipEventDisableTiming",
            "hipEventInterprocess",
            "hipIpcMemLazyEnablePeerAccess",
            "hipMemAttachGlobal",
            "hipMemAttachHost",
            "hipCpuDeviceId",
            "hipInvalidDeviceId",
            "hipHostMallocDefault",
            "hipHostRegisterDefault",
            "hipHostRegisterPortable",
        ],
        shared_types: &[],
        newer: "",
        statuses: &["hipError_t"],
    },
    Library {
        file: "rocsparse.rs",
        header: "rocsparse/rocsparse.h",
        package: "librocsparse-dev",
        table: "RocsparseApi",
        soname: "librocsparse.so",
        functions: ROCSPARSE_FUNCTIONS,
        extra_types: &["rocsparse_status", "rocsparse_spmv_stage", "rocsparse_spmm_stage"],
        extra_vars: &[],
        shared_types: &[("hip", "hipStream_t"), ("hip", "ihipStream_t")],
        newer: "",
        statuses: &["rocsparse_status_"],
    },
    Library {
        file: "rocfft.rs",
        header: "rocfft/rocfft.h",
        package: "librocfft-dev",
        table: "RocfftApi",
        soname: "librocfft.so",
        functions: ROCFFT_FUNCTIONS,
        extra_types: &["rocfft_status", "rocfft_array_type"],
        extra_vars: &[],
        shared_types: &[],
        newer: "",
        statuses: &["rocfft_status_e"],
    },
    Library {
        file: "rocblas.rs",
        header: "rocblas/rocblas.h",
        package: "librocblas-dev",
        table: "RocblasApi",
        soname: "librocblas.so",
        functions: ROCBLAS_FUNCTIONS,
        extra_types: &["rocblas_status", "rocblas_datatype", "rocblas_gemm_flags"],
        extra_vars: &[],
        shared_types: &[("hip", "hipStream_t"), ("hip", "ihipStream_t")],
        newer: ROCBLAS_NEWER,
        statuses: &["rocblas_status_"],
    },
    Library {
        file: "rocrand.rs",
        header: "rocrand/rocrand.h",
        package: "librocrand-dev",
        table: "RocrandApi",
        soname: "librocrand.so",
        functions: ROCRAND_FUNCTIONS,
        extra_types: &["rocrand_status", "rocrand_rng_type", "rocrand_ordering"],
        extra_vars: &[],
        shared_types: &[("hip", "hipStream_t"), ("hip", "ihipStream_t")],
        newer: "",
        statuses: &["rocrand_status"],
    },
    Library {
        file: "rocsolver.rs",
        header: "rocsolver/rocsolver.h",
        package: "librocsolver-dev",
        table: "RocsolverApi",
        soname: "librocsolver.so",
        functions: ROCSOLVER_FUNCTIONS,
        extra_types: &["rocblas_fill", "rocblas_evect", "rocblas_svect", "rocblas_workmode"],
        extra_vars: &[],
        shared_types: ROCBLAS_SHARED,
        newer: "",
        statuses: &[],
    },
    Library {
        file: "rccl.rs",
        header: "rccl/rccl.h",
        package: "librccl-dev",
        table: "RcclApi",
        soname: "librccl.so",
        functions: RCCL_FUNCTIONS,
        extra_types: &["ncclResult_t", "ncclRedOp_t", "ncclDataType_t", "ncclScalarResidence_t"],
        extra_vars: &["NCCL_UNIQUE_ID_BYTES"],
        shared_types: &[("hip", "hipStream_t"), ("hip", "ihipStream_t")],
        newer: "",
        statuses: &["ncclResult_t"],
    },
    Library {
        file: "hiprtc.rs",
        header: "hip/hiprtc.h",
        package: "libamdhip64-dev",
        table: "HiprtcApi",
        soname: "libhiprtc.so",
        functions: HIPRTC_FUNCTIONS,
        extra_types: &["hiprtcResult"],
        extra_vars: &[],
        shared_types: &[],
        newer: "",
        statuses: &["hiprtcResult"],
    },
];

/// Generate (or, with `check`, compare) every binding file.
pub fn run(root: &Path, check: bool) -> Result<(), String> {
    let out_dir = root.join("hip-abi").join("src").join("bindings");
    run_in(&out_dir, &root.join("target"), check)
}

/// [`run`] on the binding files of `out_dir`, with `target` for downloads.
fn run_in(out_dir: &Path, target: &Path, check: bool) -> Result<(), String> {
    ensure_libclang()?;
    let (include_root, packages) = apt::fetch_headers(target)?;
    let include = include_root.join("usr").join("include");
    let mut drifted = Vec::new();
    for library in LIBRARIES {
        let text = generate(library, &include, &packages)?;
        let path = out_dir.join(library.file);
        if check {
            let committed = std::fs::read_to_string(&path).unwrap_or_default();
            if committed != text {
                let scratch = target.join("xtask").join("check");
                std::fs::create_dir_all(&scratch).map_err(|e| e.to_string())?;
                let fresh = scratch.join(library.file);
                std::fs::write(&fresh, &text).map_err(|e| e.to_string())?;
                drifted.push(format!(
                    "{} differs from freshly generated {} (diff the two; run `cargo xtask bindgen` to regenerate)",
                    path.display(),
                    fresh.display()
                ));
            }
        } else {
            std::fs::write(&path, text).map_err(|e| format!("cannot write {}: {e}", path.display()))?;
            println!("wrote {}", path.display());
        }
    }
    if drifted.is_empty() {
        if check {
            println!("bindings are up to date ({} files)", LIBRARIES.len());
        }
        Ok(())
    } else {
        Err(format!("generated bindings drifted:\n  {}", drifted.join("\n  ")))
    }
}

/// Load libclang for this thread, as bindgen would, but with an error that
/// says what to install where bindgen would panic.
fn ensure_libclang() -> Result<(), String> {
    if clang_sys::is_loaded() {
        return Ok(());
    }
    clang_sys::load().map_err(|e| {
        format!(
            "bindgen needs libclang, which could not be loaded ({e}). To fix: on Debian or Ubuntu \
             `apt-get install libclang-14-dev` (libclang 14 generated the committed bindings), or set \
             LIBCLANG_PATH to the folder holding libclang.so"
        )
    })
}

fn generate(library: &Library, include: &Path, packages: &[Unpacked]) -> Result<String, String> {
    let header: PathBuf = include.join(library.header);
    if !header.exists() {
        return Err(format!("{} is missing from {}", library.header, library.package));
    }
    let mut builder = bindgen::Builder::default()
        .header(header.to_string_lossy())
        .clang_args(["-x", "c++", "-std=c++17", "-D__HIP_PLATFORM_AMD__"])
        .clang_arg(format!("-I{}", include.display()))
        .default_enum_style(bindgen::EnumVariation::NewType { is_bitfield: false, is_global: false })
        .generate_comments(false)
        .layout_tests(true)
        .derive_default(true)
        .derive_eq(true)
        .derive_hash(true)
        .use_core()
        .must_use_type("hipError_t")
        .must_use_type("rocsparse_status")
        .must_use_type("rocfft_status")
        .must_use_type("rocblas_status")
        .must_use_type("hiprtcResult")
        .must_use_type("ncclResult_t")
        .formatter(bindgen::Formatter::None);
    if !library.newer.is_empty() {
        let name = library.header.replace(['/', '.'], "_");
        let text = format!("#include <{}>\n{}", library.header, library.newer);
        builder = builder.header_contents(&format!("{name}_newer.h"), &text);
    }
    for function in library.functions {
        builder = builder.allowlist_function(format!("^{function}$"));
    }
    for ty in library.extra_types {
        builder = builder.allowlist_type(format!("^{ty}$"));
    }
    for (module, ty) in library.shared_types {
        builder = builder.blocklist_type(format!("^{ty}$")).raw_line(format!("pub use super::{module}::{ty};"));
    }
    for var in library.extra_vars {
        builder = builder.allowlist_var(format!("^{var}$"));
    }
    let bindings = builder.generate().map_err(|e| {
        format!(
            "bindgen failed on {}: {e}\n\
             bindgen needs libclang: on Debian or Ubuntu `apt-get install libclang-dev` \
             (or set LIBCLANG_PATH to the folder holding libclang.so)",
            library.header
        )
    })?;
    let version = packages.iter().find(|p| p.name == library.package).map(|p| p.version.as_str()).unwrap_or("unknown");
    let header = format!(
        "//! Generated by `cargo xtask bindgen`: do not edit by hand; `cargo xtask bindgen --check` fails on drift.\n\
         //!\n\
         //! Source: `{}` from Debian {} package `{} {}`, read by bindgen with\n\
         //! `-x c++ -std=c++17 -D__HIP_PLATFORM_AMD__`.\n\
         //! The C functions are not declared: [`{}`] holds them as function pointers,\n\
         //! filled by a backend (`{}` on the amd backend).\n\n",
        library.header,
        apt::SUITE,
        library.package,
        version,
        library.table,
        library.soname,
    );
    let body =
        table::split_functions_into_table(&bindings.to_string(), library.table, library.soname, library.functions)?;
    let body = names::add_status_names(&body, library.statuses)?;
    Ok(format!("{header}{body}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Copy the committed bindings into a scratch folder.
    fn scratch_copy(name: &str) -> PathBuf {
        let root = crate::workspace_root();
        let dir = root.join("target").join("xtask").join("test").join(name);
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).expect("scratch folder");
        for library in LIBRARIES {
            let from = root.join("hip-abi/src/bindings").join(library.file);
            std::fs::copy(&from, dir.join(library.file)).expect("copy bindings");
        }
        dir
    }

    #[test]
    fn a_missing_libclang_is_an_error_that_says_what_to_install() {
        // Where libclang is installed there is nothing to see: the check
        // then runs with it (the ignored test below).
        if let Err(message) = ensure_libclang() {
            assert!(message.contains("apt-get install libclang-14-dev"), "{message}");
            assert!(message.contains("LIBCLANG_PATH"), "{message}");
            let scratch = std::env::temp_dir().join("xtask-no-libclang");
            let error = run_in(&scratch, &scratch, true).expect_err("no libclang, no bindings");
            assert_eq!(error, message, "the check stops before downloading anything");
        }
    }

    #[test]
    #[ignore = "needs apt-get, a Debian mirror and libclang; run with --ignored"]
    fn check_accepts_the_committed_files_and_catches_a_hand_edit() {
        let target = crate::workspace_root().join("target");
        let clean = scratch_copy("clean");
        run_in(&clean, &target, true).expect("committed bindings are current");

        let edited = scratch_copy("edited");
        let path = edited.join("hip.rs");
        let text = std::fs::read_to_string(&path).expect("read");
        let text = text.replace(
            "hipErrorOutOfMemory: hipError_t = hipError_t(2)",
            "hipErrorOutOfMemory: hipError_t = hipError_t(3)",
        );
        std::fs::write(&path, text).expect("write");
        let error = run_in(&edited, &target, true).expect_err("a hand edit is drift");
        assert!(error.contains("hip.rs"), "{error}");
        assert!(!error.contains("rocfft.rs"), "{error}");
    }
}
