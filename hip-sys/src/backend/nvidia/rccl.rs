//! RCCL over NCCL: the nvidia backend's [`RcclApi`].
//!
//! RCCL is NCCL's API, so the mapping is thin: every function is NCCL's
//! own of the same name and numbers (`libnccl.so.2`, loaded at run time),
//! called with the CUDA stream behind the HIP stream handle. What differs:
//!
//! - **Streams.** A HIP stream of this backend is a generation-tagged
//!   handle (`objects`); a destroyed one is `ncclInvalidArgument` here
//!   instead of a crash in NCCL.
//! - **One rank per GPU.** `ncclCommInitRankMulti` (RCCL's several ranks
//!   on one GPU) is `ncclCommInitRank`, which NCCL since 2.5 refuses for
//!   a GPU that already has a rank of the communicator.
//! - **Where NCCL is.** `AMDGPU_NCCL_PATH` (the library file, or the folder
//!   holding `libnccl.so.2`) comes first, then the loader's path, then
//!   `/usr/local/cuda/lib64` and the system's library folder.

use std::ffi::{c_char, c_int, c_void};
use std::sync::OnceLock;

use crate::backend::nvidia::{catch_status, library_candidates, objects, open};
use crate::bindings::hip::hipStream_t;
use crate::rccl::{
    ncclComm_t, ncclDataType_t, ncclRedOp_t, ncclResult_t, ncclScalarResidence_t, ncclUniqueId, RcclApi,
};
use crate::BackendError;

/// `cudaStream_t`, as NCCL takes it.
type CudaStream = *mut c_void;

fn_table! {
    /// The NCCL functions the mapping calls (`nccl.h`, NCCL 2.13 and later).
    struct Nccl {
        /// `ncclResult_t ncclGetVersion(int *version)`
        ncclGetVersion = "ncclGetVersion": fn(*mut c_int) -> ncclResult_t;
        /// `ncclResult_t ncclGetUniqueId(ncclUniqueId *uniqueId)`
        ncclGetUniqueId = "ncclGetUniqueId": fn(*mut ncclUniqueId) -> ncclResult_t;
        /// `ncclResult_t ncclCommInitRank(ncclComm_t *comm, int nranks, ncclUniqueId commId, int rank)`
        ncclCommInitRank = "ncclCommInitRank": fn(*mut ncclComm_t, c_int, ncclUniqueId, c_int) -> ncclResult_t;
        /// `ncclResult_t ncclCommInitAll(ncclComm_t *comm, int ndev, const int *devlist)`
        ncclCommInitAll = "ncclCommInitAll": fn(*mut ncclComm_t, c_int, *const c_int) -> ncclResult_t;
        /// `ncclResult_t ncclCommDestroy(ncclComm_t comm)`
        ncclCommDestroy = "ncclCommDestroy": fn(ncclComm_t) -> ncclResult_t;
        /// `ncclResult_t ncclCommAbort(ncclComm_t comm)`
        ncclCommAbort = "ncclCommAbort": fn(ncclComm_t) -> ncclResult_t;
        /// `const char *ncclGetErrorString(ncclResult_t result)`
        ncclGetErrorString = "ncclGetErrorString": fn(ncclResult_t) -> *const c_char;
        /// `const char *ncclGetLastError(ncclComm_t comm)`
        ncclGetLastError = "ncclGetLastError": fn(ncclComm_t) -> *const c_char;
        /// `ncclResult_t ncclCommGetAsyncError(ncclComm_t comm, ncclResult_t *asyncError)`
        ncclCommGetAsyncError = "ncclCommGetAsyncError": fn(ncclComm_t, *mut ncclResult_t) -> ncclResult_t;
        /// `ncclResult_t ncclCommCount(const ncclComm_t comm, int *count)`
        ncclCommCount = "ncclCommCount": fn(ncclComm_t, *mut c_int) -> ncclResult_t;
        /// `ncclResult_t ncclCommCuDevice(const ncclComm_t comm, int *device)`
        ncclCommCuDevice = "ncclCommCuDevice": fn(ncclComm_t, *mut c_int) -> ncclResult_t;
        /// `ncclResult_t ncclCommUserRank(const ncclComm_t comm, int *rank)`
        ncclCommUserRank = "ncclCommUserRank": fn(ncclComm_t, *mut c_int) -> ncclResult_t;
        /// `ncclResult_t ncclRedOpCreatePreMulSum(ncclRedOp_t *op, void *scalar, ncclDataType_t datatype,
        /// ncclScalarResidence_t residence, ncclComm_t comm)`
        ncclRedOpCreatePreMulSum = "ncclRedOpCreatePreMulSum":
            fn(*mut ncclRedOp_t, *mut c_void, ncclDataType_t, ncclScalarResidence_t, ncclComm_t) -> ncclResult_t;
        /// `ncclResult_t ncclRedOpDestroy(ncclRedOp_t op, ncclComm_t comm)`
        ncclRedOpDestroy = "ncclRedOpDestroy": fn(ncclRedOp_t, ncclComm_t) -> ncclResult_t;
        /// `ncclResult_t ncclReduce(const void *sendbuff, void *recvbuff, size_t count, ncclDataType_t datatype,
        /// ncclRedOp_t op, int root, ncclComm_t comm, cudaStream_t stream)`
        ncclReduce = "ncclReduce": fn(
            *const c_void, *mut c_void, usize, ncclDataType_t, ncclRedOp_t, c_int, ncclComm_t, CudaStream,
        ) -> ncclResult_t;
        /// `ncclResult_t ncclBroadcast(const void *sendbuff, void *recvbuff, size_t count, ncclDataType_t datatype,
        /// int root, ncclComm_t comm, cudaStream_t stream)`
        ncclBroadcast = "ncclBroadcast":
            fn(*const c_void, *mut c_void, usize, ncclDataType_t, c_int, ncclComm_t, CudaStream) -> ncclResult_t;
        /// `ncclResult_t ncclAllReduce(const void *sendbuff, void *recvbuff, size_t count, ncclDataType_t datatype,
        /// ncclRedOp_t op, ncclComm_t comm, cudaStream_t stream)`
        ncclAllReduce = "ncclAllReduce":
            fn(*const c_void, *mut c_void, usize, ncclDataType_t, ncclRedOp_t, ncclComm_t, CudaStream) -> ncclResult_t;
        /// `ncclResult_t ncclReduceScatter(const void *sendbuff, void *recvbuff, size_t recvcount,
        /// ncclDataType_t datatype, ncclRedOp_t op, ncclComm_t comm, cudaStream_t stream)`
        ncclReduceScatter = "ncclReduceScatter":
            fn(*const c_void, *mut c_void, usize, ncclDataType_t, ncclRedOp_t, ncclComm_t, CudaStream) -> ncclResult_t;
        /// `ncclResult_t ncclAllGather(const void *sendbuff, void *recvbuff, size_t sendcount,
        /// ncclDataType_t datatype, ncclComm_t comm, cudaStream_t stream)`
        ncclAllGather = "ncclAllGather":
            fn(*const c_void, *mut c_void, usize, ncclDataType_t, ncclComm_t, CudaStream) -> ncclResult_t;
        /// `ncclResult_t ncclSend(const void *sendbuff, size_t count, ncclDataType_t datatype, int peer,
        /// ncclComm_t comm, cudaStream_t stream)`
        ncclSend = "ncclSend": fn(*const c_void, usize, ncclDataType_t, c_int, ncclComm_t, CudaStream) -> ncclResult_t;
        /// `ncclResult_t ncclRecv(void *recvbuff, size_t count, ncclDataType_t datatype, int peer,
        /// ncclComm_t comm, cudaStream_t stream)`
        ncclRecv = "ncclRecv": fn(*mut c_void, usize, ncclDataType_t, c_int, ncclComm_t, CudaStream) -> ncclResult_t;
        /// `ncclResult_t ncclGroupStart(void)`
        ncclGroupStart = "ncclGroupStart": fn() -> ncclResult_t;
        /// `ncclResult_t ncclGroupEnd(void)`
        ncclGroupEnd = "ncclGroupEnd": fn() -> ncclResult_t;
    }
}

/// The candidate files for NCCL, in the order they are tried.
pub(crate) fn candidates() -> Vec<String> {
    candidates_with(std::env::var("AMDGPU_NCCL_PATH").ok().as_deref())
}

/// [`candidates`] with `AMDGPU_NCCL_PATH` set to `chosen`.
fn candidates_with(chosen: Option<&str>) -> Vec<String> {
    let mut out = Vec::new();
    if let Some(path) = chosen.filter(|p| !p.trim().is_empty()) {
        let path = path.trim().trim_end_matches('/').to_owned();
        if std::path::Path::new(&path).is_dir() {
            out.push(format!("{path}/libnccl.so.2"));
            out.push(format!("{path}/libnccl.so"));
        } else {
            out.push(path);
        }
    }
    out.extend(library_candidates(&["libnccl.so.2", "libnccl.so"]));
    out.push("/usr/lib/x86_64-linux-gnu/libnccl.so.2".to_owned());
    out
}

const HINT: &str = "install NCCL 2 (the libnccl2 package, or the one that ships with PyTorch) and add its \
     folder to LD_LIBRARY_PATH, or name the library file or its folder in AMDGPU_NCCL_PATH; or set \
     AMDGPU_BACKEND=sim to use the simulator's collectives";

static LOADED: OnceLock<Result<Nccl, BackendError>> = OnceLock::new();
static TABLE: OnceLock<RcclApi> = OnceLock::new();

/// The loaded functions; `ncclSystemError` before a load.
fn fns() -> Result<&'static Nccl, ncclResult_t> {
    LOADED.get().and_then(|l| l.as_ref().ok()).ok_or(ncclResult_t::ncclSystemError)
}

/// The table over NCCL from `candidates` (loaded once: later calls give
/// the first call's outcome).
pub(crate) fn load(candidates: &[String]) -> Result<&'static RcclApi, BackendError> {
    LOADED
        .get_or_init(|| {
            let library = open("libnccl", candidates, HINT)?;
            // SAFETY: `library` is NCCL, whose exported functions have the
            // signatures declared in `Nccl` (NCCL 2.13 and later 2.x).
            let fns = unsafe { Nccl::resolve(&library) }?;
            let mut code = 0;
            // SAFETY: a valid out-pointer.
            let status = unsafe { (fns.ncclGetVersion)(&mut code) };
            if status != ncclResult_t::ncclSuccess || !crate::shared::nccl_version::supported_version(code) {
                let (major, minor) = crate::shared::nccl_version::split_version(code);
                return Err(library.unsupported(
                    format!("NCCL {major}.{minor} (code {code}, ncclGetVersion result {})", status.0),
                    "NCCL 2.13 or a later 2.x",
                ));
            }
            let path = library.keep();
            log::debug!("RCCL over {path} (NCCL code {code})");
            Ok(fns)
        })
        .as_ref()
        .map_err(Clone::clone)?;
    Ok(TABLE.get_or_init(|| RcclApi {
        ncclGetVersion,
        ncclGetUniqueId,
        ncclCommInitRank,
        ncclCommInitRankMulti,
        ncclCommInitAll,
        ncclCommDestroy,
        ncclCommAbort,
        ncclGetErrorString,
        ncclGetLastError,
        ncclCommGetAsyncError,
        ncclCommCount,
        ncclCommCuDevice,
        ncclCommUserRank,
        ncclRedOpCreatePreMulSum,
        ncclRedOpDestroy,
        ncclReduce,
        ncclBroadcast,
        ncclAllReduce,
        ncclReduceScatter,
        ncclAllGather,
        ncclSend,
        ncclRecv,
        ncclGroupStart,
        ncclGroupEnd,
    }))
}

/// Run one entry point: its body's result, `ncclInternalError` for a
/// panic, which must not unwind into a C caller.
fn entry(body: impl FnOnce() -> Result<ncclResult_t, ncclResult_t>) -> ncclResult_t {
    catch_status("RCCL over NCCL", ncclResult_t::ncclSuccess, ncclResult_t::ncclInternalError, || match body() {
        Ok(r) if r == ncclResult_t::ncclSuccess => Ok(()),
        Ok(r) | Err(r) => Err(r),
    })
}

/// The CUDA stream behind a HIP stream handle; a dead handle is
/// `ncclInvalidArgument` (NCCL would take it as a dangling pointer).
fn cuda(stream: hipStream_t) -> Result<CudaStream, ncclResult_t> {
    objects::stream_of(stream).map_err(|_| {
        log::error!("RCCL over NCCL: stream {stream:p} was destroyed or never made");
        ncclResult_t::ncclInvalidArgument
    })
}

// The entry points. Each forwards its arguments unchanged (the C contract
// is NCCL's, the same as RCCL's), the stream resolved to CUDA's.

unsafe extern "C" fn ncclGetVersion(version: *mut c_int) -> ncclResult_t {
    // SAFETY: forwarded under the caller's C contract.
    entry(|| Ok(unsafe { (fns()?.ncclGetVersion)(version) }))
}

unsafe extern "C" fn ncclGetUniqueId(id: *mut ncclUniqueId) -> ncclResult_t {
    // SAFETY: forwarded under the caller's C contract.
    entry(|| Ok(unsafe { (fns()?.ncclGetUniqueId)(id) }))
}

unsafe extern "C" fn ncclCommInitRank(
    comm: *mut ncclComm_t,
    nranks: c_int,
    id: ncclUniqueId,
    rank: c_int,
) -> ncclResult_t {
    // SAFETY: forwarded under the caller's C contract.
    entry(|| Ok(unsafe { (fns()?.ncclCommInitRank)(comm, nranks, id, rank) }))
}

unsafe extern "C" fn ncclCommInitRankMulti(
    comm: *mut ncclComm_t,
    nranks: c_int,
    id: ncclUniqueId,
    rank: c_int,
    _virtual_id: c_int,
) -> ncclResult_t {
    // SAFETY: forwarded under the caller's C contract; NCCL has one rank
    // per GPU, so the virtual id has no meaning there (module docs).
    entry(|| Ok(unsafe { (fns()?.ncclCommInitRank)(comm, nranks, id, rank) }))
}

unsafe extern "C" fn ncclCommInitAll(comm: *mut ncclComm_t, ndev: c_int, devlist: *const c_int) -> ncclResult_t {
    // SAFETY: forwarded under the caller's C contract (HIP's device
    // ordinals on this backend are CUDA's).
    entry(|| Ok(unsafe { (fns()?.ncclCommInitAll)(comm, ndev, devlist) }))
}

unsafe extern "C" fn ncclCommDestroy(comm: ncclComm_t) -> ncclResult_t {
    // SAFETY: forwarded under the caller's C contract.
    entry(|| Ok(unsafe { (fns()?.ncclCommDestroy)(comm) }))
}

unsafe extern "C" fn ncclCommAbort(comm: ncclComm_t) -> ncclResult_t {
    // SAFETY: forwarded under the caller's C contract.
    entry(|| Ok(unsafe { (fns()?.ncclCommAbort)(comm) }))
}

unsafe extern "C" fn ncclGetErrorString(result: ncclResult_t) -> *const c_char {
    match fns() {
        // SAFETY: takes any value and returns a static string.
        Ok(f) => unsafe { (f.ncclGetErrorString)(result) },
        Err(_) => c"NCCL is not loaded".as_ptr(),
    }
}

unsafe extern "C" fn ncclGetLastError(comm: ncclComm_t) -> *const c_char {
    match fns() {
        // SAFETY: forwarded under the caller's C contract.
        Ok(f) => unsafe { (f.ncclGetLastError)(comm) },
        Err(_) => c"NCCL is not loaded".as_ptr(),
    }
}

unsafe extern "C" fn ncclCommGetAsyncError(comm: ncclComm_t, error: *mut ncclResult_t) -> ncclResult_t {
    // SAFETY: forwarded under the caller's C contract.
    entry(|| Ok(unsafe { (fns()?.ncclCommGetAsyncError)(comm, error) }))
}

unsafe extern "C" fn ncclCommCount(comm: ncclComm_t, count: *mut c_int) -> ncclResult_t {
    // SAFETY: forwarded under the caller's C contract.
    entry(|| Ok(unsafe { (fns()?.ncclCommCount)(comm, count) }))
}

unsafe extern "C" fn ncclCommCuDevice(comm: ncclComm_t, device: *mut c_int) -> ncclResult_t {
    // SAFETY: forwarded under the caller's C contract.
    entry(|| Ok(unsafe { (fns()?.ncclCommCuDevice)(comm, device) }))
}

unsafe extern "C" fn ncclCommUserRank(comm: ncclComm_t, rank: *mut c_int) -> ncclResult_t {
    // SAFETY: forwarded under the caller's C contract.
    entry(|| Ok(unsafe { (fns()?.ncclCommUserRank)(comm, rank) }))
}

unsafe extern "C" fn ncclRedOpCreatePreMulSum(
    op: *mut ncclRedOp_t,
    scalar: *mut c_void,
    datatype: ncclDataType_t,
    residence: ncclScalarResidence_t,
    comm: ncclComm_t,
) -> ncclResult_t {
    // SAFETY: forwarded under the caller's C contract.
    entry(|| Ok(unsafe { (fns()?.ncclRedOpCreatePreMulSum)(op, scalar, datatype, residence, comm) }))
}

unsafe extern "C" fn ncclRedOpDestroy(op: ncclRedOp_t, comm: ncclComm_t) -> ncclResult_t {
    // SAFETY: forwarded under the caller's C contract.
    entry(|| Ok(unsafe { (fns()?.ncclRedOpDestroy)(op, comm) }))
}

#[allow(clippy::too_many_arguments)]
unsafe extern "C" fn ncclReduce(
    send: *const c_void,
    recv: *mut c_void,
    count: usize,
    datatype: ncclDataType_t,
    op: ncclRedOp_t,
    root: c_int,
    comm: ncclComm_t,
    stream: hipStream_t,
) -> ncclResult_t {
    entry(|| {
        let s = cuda(stream)?;
        // SAFETY: forwarded under the caller's C contract, the stream resolved.
        Ok(unsafe { (fns()?.ncclReduce)(send, recv, count, datatype, op, root, comm, s) })
    })
}

unsafe extern "C" fn ncclBroadcast(
    send: *const c_void,
    recv: *mut c_void,
    count: usize,
    datatype: ncclDataType_t,
    root: c_int,
    comm: ncclComm_t,
    stream: hipStream_t,
) -> ncclResult_t {
    entry(|| {
        let s = cuda(stream)?;
        // SAFETY: forwarded under the caller's C contract, the stream resolved.
        Ok(unsafe { (fns()?.ncclBroadcast)(send, recv, count, datatype, root, comm, s) })
    })
}

unsafe extern "C" fn ncclAllReduce(
    send: *const c_void,
    recv: *mut c_void,
    count: usize,
    datatype: ncclDataType_t,
    op: ncclRedOp_t,
    comm: ncclComm_t,
    stream: hipStream_t,
) -> ncclResult_t {
    entry(|| {
        let s = cuda(stream)?;
        // SAFETY: forwarded under the caller's C contract, the stream resolved.
        Ok(unsafe { (fns()?.ncclAllReduce)(send, recv, count, datatype, op, comm, s) })
    })
}

unsafe extern "C" fn ncclReduceScatter(
    send: *const c_void,
    recv: *mut c_void,
    count: usize,
    datatype: ncclDataType_t,
    op: ncclRedOp_t,
    comm: ncclComm_t,
    stream: hipStream_t,
) -> ncclResult_t {
    entry(|| {
        let s = cuda(stream)?;
        // SAFETY: forwarded under the caller's C contract, the stream resolved.
        Ok(unsafe { (fns()?.ncclReduceScatter)(send, recv, count, datatype, op, comm, s) })
    })
}

unsafe extern "C" fn ncclAllGather(
    send: *const c_void,
    recv: *mut c_void,
    count: usize,
    datatype: ncclDataType_t,
    comm: ncclComm_t,
    stream: hipStream_t,
) -> ncclResult_t {
    entry(|| {
        let s = cuda(stream)?;
        // SAFETY: forwarded under the caller's C contract, the stream resolved.
        Ok(unsafe { (fns()?.ncclAllGather)(send, recv, count, datatype, comm, s) })
    })
}

unsafe extern "C" fn ncclSend(
    send: *const c_void,
    count: usize,
    datatype: ncclDataType_t,
    peer: c_int,
    comm: ncclComm_t,
    stream: hipStream_t,
) -> ncclResult_t {
    entry(|| {
        let s = cuda(stream)?;
        // SAFETY: forwarded under the caller's C contract, the stream resolved.
        Ok(unsafe { (fns()?.ncclSend)(send, count, datatype, peer, comm, s) })
    })
}

unsafe extern "C" fn ncclRecv(
    recv: *mut c_void,
    count: usize,
    datatype: ncclDataType_t,
    peer: c_int,
    comm: ncclComm_t,
    stream: hipStream_t,
) -> ncclResult_t {
    entry(|| {
        let s = cuda(stream)?;
        // SAFETY: forwarded under the caller's C contract, the stream resolved.
        Ok(unsafe { (fns()?.ncclRecv)(recv, count, datatype, peer, comm, s) })
    })
}

unsafe extern "C" fn ncclGroupStart() -> ncclResult_t {
    // SAFETY: no arguments.
    entry(|| Ok(unsafe { (fns()?.ncclGroupStart)() }))
}

unsafe extern "C" fn ncclGroupEnd() -> ncclResult_t {
    // SAFETY: no arguments.
    entry(|| Ok(unsafe { (fns()?.ncclGroupEnd)() }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_missing_library_is_an_error() {
        let err = load(&["/nonexistent/amdgpu-rs/libnccl.so.2".to_owned()]).expect_err("absent");
        assert!(matches!(err, BackendError::LibraryNotFound { .. }), "{err:?}");
    }

    #[test]
    fn the_environment_names_a_file_or_a_folder_first() {
        let dir = std::env::temp_dir();
        let dir = dir.to_str().expect("a UTF-8 temporary folder");
        let from_dir = candidates_with(Some(dir));
        assert_eq!(from_dir[0], format!("{}/libnccl.so.2", dir.trim_end_matches('/')));
        let from_file = candidates_with(Some("/opt/nccl/libnccl.so.2.28.5"));
        assert_eq!(from_file[0], "/opt/nccl/libnccl.so.2.28.5");
        let unset = candidates_with(None);
        assert_eq!(unset[0], "libnccl.so.2", "the loader's path first when unset");
        assert_eq!(candidates_with(Some("  ")), unset, "a blank setting is unset");
    }
}
