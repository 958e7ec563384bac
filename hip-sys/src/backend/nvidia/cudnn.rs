//! MIOpen over cuDNN: the nvidia backend's [`MiopenApi`].
//!
//! As HIP's hipDNN idea does for NVIDIA, each MIOpen entry point the
//! wrappers use is a Rust function over cuDNN's legacy API
//! (`libcudnn.so.9`, `.8`, loaded at run time).
//!
//! # The mapping
//!
//! - **Handles**: a MIOpen handle is a cuDNN handle (`cudnnCreate`, bound
//!   to the device current then, as MIOpen's is), with its stream.
//! - **Tensors**: a 4-d MIOpen tensor descriptor holds a cuDNN tensor
//!   descriptor and a filter descriptor of the same NCHW shape, since
//!   MIOpen passes filters as tensors and cuDNN wants filter descriptors.
//!   `miopenFloat` and `miopenDouble` map to `CUDNN_DATA_FLOAT`/`DOUBLE`;
//!   other types are `miopenStatusNotImplemented`.
//! - **Scalars**: MIOpen reads `alpha` and `beta` as `float` whatever the
//!   tensor type; cuDNN reads `double` for double tensors. The mapping
//!   reads MIOpen's floats and passes cuDNN the type it reads.
//! - **Softmax**: algorithms (fast, accurate, log) and modes (instance,
//!   channel) have the same numbers in both.
//! - **Activations** map one to one where cuDNN has the function with the
//!   same parameters: logistic to sigmoid, relu, tanh (MIOpen's
//!   `beta * tanh(alpha * x)` only with alpha = beta = 1), clipped relu
//!   (ceiling alpha), elu (alpha). Pass-through, soft relu, abs, power and
//!   leaky relu have no cuDNN activation and are
//!   `miopenStatusNotImplemented` at `miopenSetActivationDescriptor`.
//! - **Convolution**: mode `miopenConvolution` is cuDNN's cross-correlation,
//!   computed in the tensors' type. Algorithms pair one to one:
//!   GEMM with `GEMM`, direct with `IMPLICIT_GEMM` (cuDNN has no direct
//!   kernel), FFT with `FFT`, Winograd with `WINOGRAD`, implicit GEMM with
//!   `IMPLICIT_PRECOMP_GEMM`; the search (`cudnnFindConvolutionForwardAlgorithmEx`)
//!   considers only those five and reports the fastest that fits the
//!   workspace, in MIOpen's numbering. The workspace size is the largest
//!   any of the five needs. As in MIOpen, alpha must be 1 and beta 0.
//! - **Statuses** map by cuDNN's category (cuDNN 9 numbers them in
//!   thousands: 1xxx not initialized, 2xxx bad parameter, 3xxx not
//!   supported, 4xxx internal, 5xxx execution failed; cuDNN 8's small
//!   numbers likewise), with cuDNN's own string in the log.
//! - `miopenGetVersion` reports 3.1.0, the MIOpen whose API this mapping
//!   implements; the cuDNN version is in the debug log.
//!
//! # Differences from MIOpen
//!
//! cuDNN needs no algorithm search on the handle that runs a convolution:
//! forward with any of the five algorithms works on any handle. The
//! simulator keeps MIOpen's rule (forward without a search on that handle
//! fails), so code tested there runs on both.

use std::ffi::{c_char, c_int, c_void, CStr};
use std::sync::OnceLock;

use super::{catch_status, library_candidates, open, Handle};
use crate::miopen::{
    miopenActivationDescriptor_t, miopenActivationMode_t, miopenConvAlgoPerf_algo, miopenConvAlgoPerf_t,
    miopenConvFwdAlgorithm_t, miopenConvolutionDescriptor_t, miopenConvolutionMode_t, miopenDataType_t, miopenHandle_t,
    miopenSoftmaxAlgorithm_t, miopenSoftmaxMode_t, miopenStatus_t, miopenTensorDescriptor_t, MiopenApi,
};
use crate::BackendError;

/// `cudnnStatus_t`.
type CudnnStatus = c_int;

/// `cudnnConvolutionFwdAlgoPerf_t` (cuDNN 8 and 9, `cudnn_cnn.h`): 48 bytes.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct CudnnFwdPerf {
    algo: c_int,
    status: CudnnStatus,
    time: f32,
    memory: usize,
    determinism: c_int,
    math_type: c_int,
    reserved: [c_int; 3],
}

const _: () = {
    assert!(std::mem::size_of::<CudnnFwdPerf>() == 48);
    assert!(std::mem::offset_of!(CudnnFwdPerf, memory) == 16);
    assert!(std::mem::offset_of!(CudnnFwdPerf, determinism) == 24);
};

fn_table! {
    /// The cuDNN functions this mapping calls (`cudnn_graph.h`,
    /// `cudnn_ops.h`, `cudnn_cnn.h` of cuDNN 9; the same in cuDNN 8).
    struct Cudnn {
        /// `size_t cudnnGetVersion(void)`
        cudnnGetVersion = "cudnnGetVersion": fn() -> usize;
        /// `const char *cudnnGetErrorString(cudnnStatus_t status)`
        cudnnGetErrorString = "cudnnGetErrorString": fn(CudnnStatus) -> *const c_char;
        /// `cudnnStatus_t cudnnCreate(cudnnHandle_t *handle)`
        cudnnCreate = "cudnnCreate": fn(*mut Handle) -> CudnnStatus;
        /// `cudnnStatus_t cudnnDestroy(cudnnHandle_t handle)`
        cudnnDestroy = "cudnnDestroy": fn(Handle) -> CudnnStatus;
        /// `cudnnStatus_t cudnnSetStream(cudnnHandle_t handle, cudaStream_t streamId)`
        cudnnSetStream = "cudnnSetStream": fn(Handle, Handle) -> CudnnStatus;
        /// `cudnnStatus_t cudnnGetStream(cudnnHandle_t handle, cudaStream_t *streamId)`
        cudnnGetStream = "cudnnGetStream": fn(Handle, *mut Handle) -> CudnnStatus;
        /// `cudnnStatus_t cudnnCreateTensorDescriptor(cudnnTensorDescriptor_t *tensorDesc)`
        cudnnCreateTensorDescriptor = "cudnnCreateTensorDescriptor": fn(*mut Handle) -> CudnnStatus;
        /// `cudnnStatus_t cudnnSetTensor4dDescriptor(cudnnTensorDescriptor_t tensorDesc, cudnnTensorFormat_t format,
        /// cudnnDataType_t dataType, int n, int c, int h, int w)`
        cudnnSetTensor4dDescriptor = "cudnnSetTensor4dDescriptor": fn(Handle, c_int, c_int, c_int, c_int, c_int, c_int) -> CudnnStatus;
        /// `cudnnStatus_t cudnnDestroyTensorDescriptor(cudnnTensorDescriptor_t tensorDesc)`
        cudnnDestroyTensorDescriptor = "cudnnDestroyTensorDescriptor": fn(Handle) -> CudnnStatus;
        /// `cudnnStatus_t cudnnCreateFilterDescriptor(cudnnFilterDescriptor_t *filterDesc)`
        cudnnCreateFilterDescriptor = "cudnnCreateFilterDescriptor": fn(*mut Handle) -> CudnnStatus;
        /// `cudnnStatus_t cudnnSetFilter4dDescriptor(cudnnFilterDescriptor_t filterDesc, cudnnDataType_t dataType,
        /// cudnnTensorFormat_t format, int k, int c, int h, int w)`
        cudnnSetFilter4dDescriptor = "cudnnSetFilter4dDescriptor": fn(Handle, c_int, c_int, c_int, c_int, c_int, c_int) -> CudnnStatus;
        /// `cudnnStatus_t cudnnDestroyFilterDescriptor(cudnnFilterDescriptor_t filterDesc)`
        cudnnDestroyFilterDescriptor = "cudnnDestroyFilterDescriptor": fn(Handle) -> CudnnStatus;
        /// `cudnnStatus_t cudnnSoftmaxForward(cudnnHandle_t handle, cudnnSoftmaxAlgorithm_t algo, cudnnSoftmaxMode_t
        /// mode, const void *alpha, const cudnnTensorDescriptor_t xDesc, const void *x, const void *beta,
        /// const cudnnTensorDescriptor_t yDesc, void *y)`
        cudnnSoftmaxForward = "cudnnSoftmaxForward": fn(
            Handle, c_int, c_int, *const c_void, Handle, *const c_void, *const c_void, Handle, *mut c_void,
        ) -> CudnnStatus;
        /// `cudnnStatus_t cudnnCreateActivationDescriptor(cudnnActivationDescriptor_t *activationDesc)`
        cudnnCreateActivationDescriptor = "cudnnCreateActivationDescriptor": fn(*mut Handle) -> CudnnStatus;
        /// `cudnnStatus_t cudnnSetActivationDescriptor(cudnnActivationDescriptor_t activationDesc,
        /// cudnnActivationMode_t mode, cudnnNanPropagation_t reluNanOpt, double coef)`
        cudnnSetActivationDescriptor = "cudnnSetActivationDescriptor": fn(Handle, c_int, c_int, f64) -> CudnnStatus;
        /// `cudnnStatus_t cudnnDestroyActivationDescriptor(cudnnActivationDescriptor_t activationDesc)`
        cudnnDestroyActivationDescriptor = "cudnnDestroyActivationDescriptor": fn(Handle) -> CudnnStatus;
        /// `cudnnStatus_t cudnnActivationForward(cudnnHandle_t handle, cudnnActivationDescriptor_t activationDesc,
        /// const void *alpha, const cudnnTensorDescriptor_t xDesc, const void *x, const void *beta,
        /// const cudnnTensorDescriptor_t yDesc, void *y)`
        cudnnActivationForward = "cudnnActivationForward": fn(
            Handle, Handle, *const c_void, Handle, *const c_void, *const c_void, Handle, *mut c_void,
        ) -> CudnnStatus;
        /// `cudnnStatus_t cudnnCreateConvolutionDescriptor(cudnnConvolutionDescriptor_t *convDesc)`
        cudnnCreateConvolutionDescriptor = "cudnnCreateConvolutionDescriptor": fn(*mut Handle) -> CudnnStatus;
        /// `cudnnStatus_t cudnnSetConvolution2dDescriptor(cudnnConvolutionDescriptor_t convDesc, int pad_h,
        /// int pad_w, int u, int v, int dilation_h, int dilation_w, cudnnConvolutionMode_t mode,
        /// cudnnDataType_t computeType)`
        cudnnSetConvolution2dDescriptor = "cudnnSetConvolution2dDescriptor": fn(
            Handle, c_int, c_int, c_int, c_int, c_int, c_int, c_int, c_int,
        ) -> CudnnStatus;
        /// `cudnnStatus_t cudnnDestroyConvolutionDescriptor(cudnnConvolutionDescriptor_t convDesc)`
        cudnnDestroyConvolutionDescriptor = "cudnnDestroyConvolutionDescriptor": fn(Handle) -> CudnnStatus;
        /// `cudnnStatus_t cudnnGetConvolution2dForwardOutputDim(const cudnnConvolutionDescriptor_t convDesc,
        /// const cudnnTensorDescriptor_t inputTensorDesc, const cudnnFilterDescriptor_t filterDesc, int *n,
        /// int *c, int *h, int *w)`
        cudnnGetConvolution2dForwardOutputDim = "cudnnGetConvolution2dForwardOutputDim": fn(
            Handle, Handle, Handle, *mut c_int, *mut c_int, *mut c_int, *mut c_int,
        ) -> CudnnStatus;
        /// `cudnnStatus_t cudnnGetConvolutionForwardWorkspaceSize(cudnnHandle_t handle, const
        /// cudnnTensorDescriptor_t xDesc, const cudnnFilterDescriptor_t wDesc, const cudnnConvolutionDescriptor_t
        /// convDesc, const cudnnTensorDescriptor_t yDesc, cudnnConvolutionFwdAlgo_t algo, size_t *sizeInBytes)`
        cudnnGetConvolutionForwardWorkspaceSize = "cudnnGetConvolutionForwardWorkspaceSize": fn(
            Handle, Handle, Handle, Handle, Handle, c_int, *mut usize,
        ) -> CudnnStatus;
        /// `cudnnStatus_t cudnnFindConvolutionForwardAlgorithmEx(cudnnHandle_t handle, const cudnnTensorDescriptor_t
        /// xDesc, const void *x, const cudnnFilterDescriptor_t wDesc, const void *w, const
        /// cudnnConvolutionDescriptor_t convDesc, const cudnnTensorDescriptor_t yDesc, void *y, const int
        /// requestedAlgoCount, int *returnedAlgoCount, cudnnConvolutionFwdAlgoPerf_t *perfResults, void *workSpace,
        /// size_t workSpaceSizeInBytes)`
        cudnnFindConvolutionForwardAlgorithmEx = "cudnnFindConvolutionForwardAlgorithmEx": fn(
            Handle, Handle, *const c_void, Handle, *const c_void, Handle, Handle, *mut c_void, c_int, *mut c_int,
            *mut CudnnFwdPerf, *mut c_void, usize,
        ) -> CudnnStatus;
        /// `cudnnStatus_t cudnnConvolutionForward(cudnnHandle_t handle, const void *alpha, const
        /// cudnnTensorDescriptor_t xDesc, const void *x, const cudnnFilterDescriptor_t wDesc, const void *w, const
        /// cudnnConvolutionDescriptor_t convDesc, cudnnConvolutionFwdAlgo_t algo, void *workSpace, size_t
        /// workSpaceSizeInBytes, const void *beta, const cudnnTensorDescriptor_t yDesc, void *y)`
        cudnnConvolutionForward = "cudnnConvolutionForward": fn(
            Handle, *const c_void, Handle, *const c_void, Handle, *const c_void, Handle, c_int, *mut c_void, usize,
            *const c_void, Handle, *mut c_void,
        ) -> CudnnStatus;
    }
}

/// `CUDNN_TENSOR_NCHW`, `CUDNN_CROSS_CORRELATION`, `CUDNN_NOT_PROPAGATE_NAN`.
const NCHW: c_int = 0;
const CROSS_CORRELATION: c_int = 1;
const NOT_PROPAGATE_NAN: c_int = 0;

/// The candidate files for cuDNN, in the order they are tried.
pub(crate) fn candidates() -> Vec<String> {
    library_candidates(&["libcudnn.so.9", "libcudnn.so.8", "libcudnn.so"])
}

const HINT: &str = "install cuDNN 8 or 9 (the libcudnn package) and add its directory to \
     LD_LIBRARY_PATH; or set AMDGPU_BACKEND=sim to use the simulator's MIOpen";

static LOADED: OnceLock<Result<Cudnn, BackendError>> = OnceLock::new();

fn fns() -> Result<&'static Cudnn, miopenStatus_t> {
    LOADED.get().and_then(|l| l.as_ref().ok()).ok_or(miopenStatus_t::miopenStatusNotInitialized)
}

/// Load cuDNN from `candidates` and return the MIOpen table over it.
pub(crate) fn load(candidates: &[String]) -> Result<&'static MiopenApi, BackendError> {
    LOADED
        .get_or_init(|| {
            let library = open("libcudnn", candidates, HINT)?;
            let path = library.path().to_owned();
            // SAFETY: `library` is cuDNN, whose exported functions have the
            // signatures declared in `Cudnn` (cuDNN 8 and 9 headers).
            let fns = unsafe { Cudnn::resolve(&library) }?;
            // SAFETY: no arguments.
            let version = unsafe { (fns.cudnnGetVersion)() };
            if version < 8000 {
                return Err(BackendError::LibraryUnavailable {
                    library: "MIOpen".to_owned(),
                    hint: format!("{path} is cuDNN {version}; the mapping needs cuDNN 8 or 9. {HINT}"),
                });
            }
            library.keep();
            log::debug!("MIOpen over {path} (cuDNN {version})");
            Ok(fns)
        })
        .as_ref()
        .map(|_| &MIOPEN_OVER_CUDNN)
        .map_err(Clone::clone)
}

/// A cuDNN status as the MIOpen status of the same meaning.
fn to_miopen(status: CudnnStatus) -> miopenStatus_t {
    // cuDNN 9 numbers statuses by category in thousands; cuDNN 8 used 1-14.
    let category = match status {
        0 => 0,
        s if s >= 1000 => s / 1000,
        1 => 1,
        2 => 4, // ALLOC_FAILED: an internal (allocation) failure
        3 | 5 => 2,
        6 | 9 | 11 => 3,
        _ => 4,
    };
    match (status, category) {
        (0, _) => miopenStatus_t::miopenStatusSuccess,
        // cuDNN 9's device-allocation failure, and cuDNN 8's.
        (4004 | 4003 | 2, _) => miopenStatus_t::miopenStatusAllocFailed,
        (_, 1) => miopenStatus_t::miopenStatusNotInitialized,
        (_, 2) => miopenStatus_t::miopenStatusBadParm,
        (_, 3) => miopenStatus_t::miopenStatusNotImplemented,
        (_, 4) => miopenStatus_t::miopenStatusInternalError,
        _ => miopenStatus_t::miopenStatusUnknownError,
    }
}

fn ok(function: &str, status: CudnnStatus) -> Result<(), miopenStatus_t> {
    if status == 0 {
        return Ok(());
    }
    let text = fns().ok().map_or_else(String::new, |f| {
        // SAFETY: cuDNN returns a static NUL-terminated string for any status.
        let p = unsafe { (f.cudnnGetErrorString)(status) };
        if p.is_null() {
            String::new()
        } else {
            // SAFETY: non-null and NUL-terminated.
            unsafe { CStr::from_ptr(p) }.to_string_lossy().into_owned()
        }
    });
    log::error!("MIOpen over cuDNN: {function} failed with {text} ({status})");
    Err(to_miopen(status))
}

/// Run one entry point, never unwinding into C.
fn entry(body: impl FnOnce() -> Result<(), miopenStatus_t>) -> miopenStatus_t {
    catch_status(
        "MIOpen over cuDNN",
        miopenStatus_t::miopenStatusSuccess,
        miopenStatus_t::miopenStatusInternalError,
        body,
    )
}

/// A 4-d MIOpen tensor descriptor: cuDNN's tensor and filter descriptors
/// of the same shape and type.
#[derive(Debug)]
struct Tensor {
    tensor: Handle,
    filter: Handle,
    /// `true` for `miopenDouble`; `None` until set.
    double: Option<bool>,
}

/// A MIOpen activation descriptor: cuDNN's, once its mode is mapped.
#[derive(Debug)]
struct Activation {
    cudnn: Handle,
}

fn tensor<'a>(desc: miopenTensorDescriptor_t) -> Result<&'a Tensor, miopenStatus_t> {
    if desc.is_null() {
        return Err(miopenStatus_t::miopenStatusBadParm);
    }
    // SAFETY: a descriptor made by `miopenCreateTensorDescriptor` below
    // (C contract), alive while the caller uses it.
    Ok(unsafe { &*desc.cast::<Tensor>() })
}

/// The tensor's type, once set.
fn double(t: &Tensor) -> Result<bool, miopenStatus_t> {
    t.double.ok_or(miopenStatus_t::miopenStatusNotInitialized)
}

/// MIOpen's float scalar, as the type cuDNN reads for the tensors: a
/// float for float tensors, a double for double ones.
enum Scalar {
    F32(f32),
    F64(f64),
}

impl Scalar {
    /// Read MIOpen's `float *`.
    ///
    /// # Safety
    /// `p` is null or points to a readable `float`.
    unsafe fn read(p: *const c_void, double: bool) -> Result<Scalar, miopenStatus_t> {
        if p.is_null() {
            return Err(miopenStatus_t::miopenStatusBadParm);
        }
        // SAFETY: the caller's guarantee; MIOpen reads a float.
        let v = unsafe { p.cast::<f32>().read_unaligned() };
        Ok(if double { Scalar::F64(f64::from(v)) } else { Scalar::F32(v) })
    }

    fn ptr(&self) -> *const c_void {
        match self {
            Scalar::F32(v) => (v as *const f32).cast(),
            Scalar::F64(v) => (v as *const f64).cast(),
        }
    }

    fn value(&self) -> f64 {
        match self {
            Scalar::F32(v) => f64::from(*v),
            Scalar::F64(v) => *v,
        }
    }
}

// ---- handles and tensors -----------------------------------------------------

unsafe extern "C" fn miopenGetVersion(major: *mut usize, minor: *mut usize, patch: *mut usize) -> miopenStatus_t {
    entry(|| {
        for (out, value) in [(major, 3), (minor, 1), (patch, 0)] {
            if !out.is_null() {
                // SAFETY: non-null out-pointers are valid (C contract).
                unsafe { out.write(value) };
            }
        }
        Ok(())
    })
}

unsafe extern "C" fn miopenCreate(handle: *mut miopenHandle_t) -> miopenStatus_t {
    entry(|| {
        if handle.is_null() {
            return Err(miopenStatus_t::miopenStatusBadParm);
        }
        // SAFETY: non-null and valid for a write of a handle.
        ok("cudnnCreate", unsafe { (fns()?.cudnnCreate)(handle.cast()) })
    })
}

unsafe extern "C" fn miopenDestroy(handle: miopenHandle_t) -> miopenStatus_t {
    entry(|| {
        if handle.is_null() {
            return Err(miopenStatus_t::miopenStatusBadParm);
        }
        // SAFETY: a handle made by cudnnCreate, destroyed once.
        ok("cudnnDestroy", unsafe { (fns()?.cudnnDestroy)(handle.cast()) })
    })
}

unsafe extern "C" fn miopenSetStream(handle: miopenHandle_t, stream: crate::hipStream_t) -> miopenStatus_t {
    entry(|| {
        if handle.is_null() {
            return Err(miopenStatus_t::miopenStatusBadParm);
        }
        // SAFETY: a live handle; on this backend a HIP stream is a CUDA stream.
        ok("cudnnSetStream", unsafe { (fns()?.cudnnSetStream)(handle.cast(), stream.cast()) })
    })
}

unsafe extern "C" fn miopenGetStream(handle: miopenHandle_t, stream: *mut crate::hipStream_t) -> miopenStatus_t {
    entry(|| {
        if handle.is_null() || stream.is_null() {
            return Err(miopenStatus_t::miopenStatusBadParm);
        }
        // SAFETY: a live handle and a valid out-pointer.
        ok("cudnnGetStream", unsafe { (fns()?.cudnnGetStream)(handle.cast(), stream.cast()) })
    })
}

unsafe extern "C" fn miopenCreateTensorDescriptor(desc: *mut miopenTensorDescriptor_t) -> miopenStatus_t {
    entry(|| {
        let f = fns()?;
        if desc.is_null() {
            return Err(miopenStatus_t::miopenStatusBadParm);
        }
        let (mut tensor, mut filter): (Handle, Handle) = (std::ptr::null_mut(), std::ptr::null_mut());
        // SAFETY: valid out-pointers.
        ok("cudnnCreateTensorDescriptor", unsafe { (f.cudnnCreateTensorDescriptor)(&mut tensor) })?;
        // SAFETY: as above.
        if let Err(s) = ok("cudnnCreateFilterDescriptor", unsafe { (f.cudnnCreateFilterDescriptor)(&mut filter) }) {
            // SAFETY: made above, destroyed once.
            let _ = unsafe { (f.cudnnDestroyTensorDescriptor)(tensor) };
            return Err(s);
        }
        let made = Box::into_raw(Box::new(Tensor { tensor, filter, double: None }));
        // SAFETY: non-null and valid for a write (C contract).
        unsafe { desc.write(made.cast()) };
        Ok(())
    })
}

unsafe extern "C" fn miopenSet4dTensorDescriptor(
    desc: miopenTensorDescriptor_t,
    data_type: miopenDataType_t,
    n: c_int,
    c: c_int,
    h: c_int,
    w: c_int,
) -> miopenStatus_t {
    entry(|| {
        let f = fns()?;
        let t = tensor(desc)?;
        let (cudnn_type, double) = match data_type {
            miopenDataType_t::miopenFloat => (0, false),
            miopenDataType_t::miopenDouble => (1, true),
            _ => return Err(miopenStatus_t::miopenStatusNotImplemented),
        };
        // SAFETY: live descriptors of this tensor.
        ok("cudnnSetTensor4dDescriptor", unsafe {
            (f.cudnnSetTensor4dDescriptor)(t.tensor, NCHW, cudnn_type, n, c, h, w)
        })?;
        // SAFETY: as above.
        ok("cudnnSetFilter4dDescriptor", unsafe {
            (f.cudnnSetFilter4dDescriptor)(t.filter, cudnn_type, NCHW, n, c, h, w)
        })?;
        // SAFETY: the descriptor is used by one caller at a time (MIOpen's rule).
        unsafe { (*desc.cast::<Tensor>()).double = Some(double) };
        Ok(())
    })
}

unsafe extern "C" fn miopenDestroyTensorDescriptor(desc: miopenTensorDescriptor_t) -> miopenStatus_t {
    entry(|| {
        let f = fns()?;
        if desc.is_null() {
            return Err(miopenStatus_t::miopenStatusBadParm);
        }
        // SAFETY: made by miopenCreateTensorDescriptor, destroyed once (C contract).
        let t = unsafe { Box::from_raw(desc.cast::<Tensor>()) };
        // SAFETY: its live cuDNN descriptors, destroyed once.
        let (a, b) =
            unsafe { ((f.cudnnDestroyTensorDescriptor)(t.tensor), (f.cudnnDestroyFilterDescriptor)(t.filter)) };
        ok("cudnnDestroyTensorDescriptor", a)?;
        ok("cudnnDestroyFilterDescriptor", b)
    })
}

// ---- softmax and activations ----------------------------------------------------

#[allow(clippy::too_many_arguments)]
unsafe extern "C" fn miopenSoftmaxForward_V2(
    handle: miopenHandle_t,
    alpha: *const c_void,
    x_desc: miopenTensorDescriptor_t,
    x: *const c_void,
    beta: *const c_void,
    y_desc: miopenTensorDescriptor_t,
    y: *mut c_void,
    algorithm: miopenSoftmaxAlgorithm_t,
    mode: miopenSoftmaxMode_t,
) -> miopenStatus_t {
    entry(|| {
        let f = fns()?;
        let (xt, yt) = (tensor(x_desc)?, tensor(y_desc)?);
        let d = double(xt)?;
        if handle.is_null() || algorithm.0 > 2 || mode.0 > 1 {
            return Err(miopenStatus_t::miopenStatusBadParm);
        }
        // SAFETY: MIOpen's host floats (C contract).
        let (a, b) = unsafe { (Scalar::read(alpha, d)?, Scalar::read(beta, d)?) };
        // SAFETY: live handle and descriptors; the buffers hold the tensors
        // (C contract). The numbers of algorithm and mode are cuDNN's too.
        ok("cudnnSoftmaxForward", unsafe {
            (f.cudnnSoftmaxForward)(
                handle.cast(),
                algorithm.0 as c_int,
                mode.0 as c_int,
                a.ptr(),
                xt.tensor,
                x,
                b.ptr(),
                yt.tensor,
                y,
            )
        })
    })
}

unsafe extern "C" fn miopenCreateActivationDescriptor(desc: *mut miopenActivationDescriptor_t) -> miopenStatus_t {
    entry(|| {
        if desc.is_null() {
            return Err(miopenStatus_t::miopenStatusBadParm);
        }
        let mut cudnn: Handle = std::ptr::null_mut();
        // SAFETY: a valid out-pointer.
        ok("cudnnCreateActivationDescriptor", unsafe { (fns()?.cudnnCreateActivationDescriptor)(&mut cudnn) })?;
        // SAFETY: non-null and valid for a write (C contract).
        unsafe { desc.write(Box::into_raw(Box::new(Activation { cudnn })).cast()) };
        Ok(())
    })
}

/// MIOpen's activation as cuDNN's `(mode, coef)`; `None` where cuDNN has
/// no activation computing the same function.
fn activation_mode(mode: miopenActivationMode_t, alpha: f64, beta: f64) -> Option<(c_int, f64)> {
    use miopenActivationMode_t as M;
    match mode {
        M::miopenActivationLOGISTIC => Some((0, 0.0)),
        M::miopenActivationRELU => Some((1, 0.0)),
        M::miopenActivationTANH if alpha == 1.0 && beta == 1.0 => Some((2, 0.0)),
        M::miopenActivationCLIPPEDRELU => Some((3, alpha)),
        M::miopenActivationELU => Some((4, alpha)),
        _ => None,
    }
}

unsafe extern "C" fn miopenSetActivationDescriptor(
    desc: miopenActivationDescriptor_t,
    mode: miopenActivationMode_t,
    alpha: f64,
    beta: f64,
    _power: f64,
) -> miopenStatus_t {
    entry(|| {
        if desc.is_null() {
            return Err(miopenStatus_t::miopenStatusBadParm);
        }
        let Some((cudnn_mode, coef)) = activation_mode(mode, alpha, beta) else {
            log::error!("MIOpen over cuDNN: activation mode {} ({alpha}, {beta}) has no cuDNN counterpart", mode.0);
            return Err(miopenStatus_t::miopenStatusNotImplemented);
        };
        // SAFETY: a descriptor made below (C contract).
        let a = unsafe { &*desc.cast::<Activation>() };
        // SAFETY: its live cuDNN descriptor.
        ok("cudnnSetActivationDescriptor", unsafe {
            (fns()?.cudnnSetActivationDescriptor)(a.cudnn, cudnn_mode, NOT_PROPAGATE_NAN, coef)
        })
    })
}

unsafe extern "C" fn miopenDestroyActivationDescriptor(desc: miopenActivationDescriptor_t) -> miopenStatus_t {
    entry(|| {
        if desc.is_null() {
            return Err(miopenStatus_t::miopenStatusBadParm);
        }
        // SAFETY: made by miopenCreateActivationDescriptor, destroyed once.
        let a = unsafe { Box::from_raw(desc.cast::<Activation>()) };
        // SAFETY: its live cuDNN descriptor, destroyed once.
        ok("cudnnDestroyActivationDescriptor", unsafe { (fns()?.cudnnDestroyActivationDescriptor)(a.cudnn) })
    })
}

#[allow(clippy::too_many_arguments)]
unsafe extern "C" fn miopenActivationForward(
    handle: miopenHandle_t,
    desc: miopenActivationDescriptor_t,
    alpha: *const c_void,
    x_desc: miopenTensorDescriptor_t,
    x: *const c_void,
    beta: *const c_void,
    y_desc: miopenTensorDescriptor_t,
    y: *mut c_void,
) -> miopenStatus_t {
    entry(|| {
        let f = fns()?;
        let (xt, yt) = (tensor(x_desc)?, tensor(y_desc)?);
        let d = double(xt)?;
        if handle.is_null() || desc.is_null() {
            return Err(miopenStatus_t::miopenStatusBadParm);
        }
        // SAFETY: MIOpen's host floats (C contract).
        let (a, b) = unsafe { (Scalar::read(alpha, d)?, Scalar::read(beta, d)?) };
        if a.value() != 1.0 || b.value() != 0.0 {
            // MIOpen's activation forward takes only alpha 1, beta 0.
            return Err(miopenStatus_t::miopenStatusUnknownError);
        }
        // SAFETY: a descriptor made above (C contract).
        let act = unsafe { &*desc.cast::<Activation>() };
        // SAFETY: live handle and descriptors; the buffers hold the tensors.
        ok("cudnnActivationForward", unsafe {
            (f.cudnnActivationForward)(handle.cast(), act.cudnn, a.ptr(), xt.tensor, x, b.ptr(), yt.tensor, y)
        })
    })
}

// ---- convolution ------------------------------------------------------------------

unsafe extern "C" fn miopenCreateConvolutionDescriptor(desc: *mut miopenConvolutionDescriptor_t) -> miopenStatus_t {
    entry(|| {
        if desc.is_null() {
            return Err(miopenStatus_t::miopenStatusBadParm);
        }
        // SAFETY: non-null and valid for a write of a descriptor.
        ok("cudnnCreateConvolutionDescriptor", unsafe { (fns()?.cudnnCreateConvolutionDescriptor)(desc.cast()) })
    })
}

#[allow(clippy::too_many_arguments)]
unsafe extern "C" fn miopenInitConvolutionDescriptor(
    desc: miopenConvolutionDescriptor_t,
    mode: miopenConvolutionMode_t,
    pad_h: c_int,
    pad_w: c_int,
    stride_h: c_int,
    stride_w: c_int,
    dilation_h: c_int,
    dilation_w: c_int,
) -> miopenStatus_t {
    entry(|| {
        if desc.is_null() {
            return Err(miopenStatus_t::miopenStatusBadParm);
        }
        if mode != miopenConvolutionMode_t::miopenConvolution {
            return Err(miopenStatus_t::miopenStatusNotImplemented);
        }
        // Computed in FP32: the only type MIOpen convolves in (double
        // tensors are refused before cuDNN sees them).
        // SAFETY: a live descriptor.
        ok("cudnnSetConvolution2dDescriptor", unsafe {
            (fns()?.cudnnSetConvolution2dDescriptor)(
                desc.cast(),
                pad_h,
                pad_w,
                stride_h,
                stride_w,
                dilation_h,
                dilation_w,
                CROSS_CORRELATION,
                0,
            )
        })
    })
}

unsafe extern "C" fn miopenDestroyConvolutionDescriptor(desc: miopenConvolutionDescriptor_t) -> miopenStatus_t {
    entry(|| {
        if desc.is_null() {
            return Err(miopenStatus_t::miopenStatusBadParm);
        }
        // SAFETY: made by cudnnCreateConvolutionDescriptor, destroyed once.
        ok("cudnnDestroyConvolutionDescriptor", unsafe { (fns()?.cudnnDestroyConvolutionDescriptor)(desc.cast()) })
    })
}

unsafe extern "C" fn miopenGetConvolutionForwardOutputDim(
    desc: miopenConvolutionDescriptor_t,
    input: miopenTensorDescriptor_t,
    filter: miopenTensorDescriptor_t,
    n: *mut c_int,
    c: *mut c_int,
    h: *mut c_int,
    w: *mut c_int,
) -> miopenStatus_t {
    entry(|| {
        let (it, ft) = (tensor(input)?, tensor(filter)?);
        if desc.is_null() || n.is_null() || c.is_null() || h.is_null() || w.is_null() {
            return Err(miopenStatus_t::miopenStatusBadParm);
        }
        // SAFETY: live descriptors; valid out-pointers.
        ok("cudnnGetConvolution2dForwardOutputDim", unsafe {
            (fns()?.cudnnGetConvolution2dForwardOutputDim)(desc.cast(), it.tensor, ft.filter, n, c, h, w)
        })
    })
}

/// MIOpen's forward algorithms and the cuDNN algorithm each stands for.
const ALGORITHMS: [(miopenConvFwdAlgorithm_t, c_int); 5] = [
    (miopenConvFwdAlgorithm_t::miopenConvolutionFwdAlgoGEMM, 2),
    (miopenConvFwdAlgorithm_t::miopenConvolutionFwdAlgoDirect, 0),
    (miopenConvFwdAlgorithm_t::miopenConvolutionFwdAlgoFFT, 4),
    (miopenConvFwdAlgorithm_t::miopenConvolutionFwdAlgoWinograd, 6),
    (miopenConvFwdAlgorithm_t::miopenConvolutionFwdAlgoImplicitGEMM, 1),
];

fn to_cudnn_algo(algo: miopenConvFwdAlgorithm_t) -> Option<c_int> {
    ALGORITHMS.iter().find(|(m, _)| *m == algo).map(|(_, c)| *c)
}

fn to_miopen_algo(algo: c_int) -> Option<miopenConvFwdAlgorithm_t> {
    ALGORITHMS.iter().find(|(_, c)| *c == algo).map(|(m, _)| *m)
}

/// Refuse double convolutions as MIOpen does (no solver applies).
fn convolution_tensors<'a>(
    x_desc: miopenTensorDescriptor_t,
    w_desc: miopenTensorDescriptor_t,
    y_desc: miopenTensorDescriptor_t,
) -> Result<(&'a Tensor, &'a Tensor, &'a Tensor), miopenStatus_t> {
    let (xt, wt, yt) = (tensor(x_desc)?, tensor(w_desc)?, tensor(y_desc)?);
    if double(xt)? || double(wt)? || double(yt)? {
        return Err(miopenStatus_t::miopenStatusUnknownError);
    }
    Ok((xt, wt, yt))
}

unsafe extern "C" fn miopenConvolutionForwardGetWorkSpaceSize(
    handle: miopenHandle_t,
    w_desc: miopenTensorDescriptor_t,
    x_desc: miopenTensorDescriptor_t,
    conv_desc: miopenConvolutionDescriptor_t,
    y_desc: miopenTensorDescriptor_t,
    size: *mut usize,
) -> miopenStatus_t {
    entry(|| {
        let f = fns()?;
        let (xt, wt, yt) = convolution_tensors(x_desc, w_desc, y_desc)?;
        if handle.is_null() || conv_desc.is_null() || size.is_null() {
            return Err(miopenStatus_t::miopenStatusBadParm);
        }
        let mut largest = 0usize;
        for (_, algo) in ALGORITHMS {
            let mut bytes = 0usize;
            // SAFETY: live handle and descriptors; a valid out-pointer. An
            // algorithm that does not apply answers an error, skipped.
            let status = unsafe {
                (f.cudnnGetConvolutionForwardWorkspaceSize)(
                    handle.cast(),
                    xt.tensor,
                    wt.filter,
                    conv_desc.cast(),
                    yt.tensor,
                    algo,
                    &mut bytes,
                )
            };
            if status == 0 {
                largest = largest.max(bytes);
            }
        }
        // SAFETY: non-null and valid for a write.
        unsafe { size.write(largest) };
        Ok(())
    })
}

#[allow(clippy::too_many_arguments)]
unsafe extern "C" fn miopenFindConvolutionForwardAlgorithm(
    handle: miopenHandle_t,
    x_desc: miopenTensorDescriptor_t,
    x: *const c_void,
    w_desc: miopenTensorDescriptor_t,
    w: *const c_void,
    conv_desc: miopenConvolutionDescriptor_t,
    y_desc: miopenTensorDescriptor_t,
    y: *mut c_void,
    request_algo_count: c_int,
    returned_algo_count: *mut c_int,
    perf_results: *mut miopenConvAlgoPerf_t,
    work_space: *mut c_void,
    work_space_size: usize,
    _exhaustive_search: bool,
) -> miopenStatus_t {
    entry(|| {
        let f = fns()?;
        let (xt, wt, yt) = convolution_tensors(x_desc, w_desc, y_desc)?;
        if handle.is_null()
            || conv_desc.is_null()
            || request_algo_count < 1
            || returned_algo_count.is_null()
            || perf_results.is_null()
        {
            return Err(miopenStatus_t::miopenStatusBadParm);
        }
        if work_space.is_null() != (work_space_size == 0) {
            return Err(miopenStatus_t::miopenStatusBadParm);
        }
        let mut found = [CudnnFwdPerf::default(); 8];
        let mut count: c_int = 0;
        // SAFETY: live handle and descriptors; the buffers hold the tensors
        // (C contract); `found` holds 8 results; the workspace holds its size.
        ok("cudnnFindConvolutionForwardAlgorithmEx", unsafe {
            (f.cudnnFindConvolutionForwardAlgorithmEx)(
                handle.cast(),
                xt.tensor,
                x,
                wt.filter,
                w,
                conv_desc.cast(),
                yt.tensor,
                y,
                8,
                &mut count,
                found.as_mut_ptr(),
                work_space,
                work_space_size,
            )
        })?;
        let usable = found
            .iter()
            .take(usize::try_from(count).unwrap_or(0))
            .filter(|p| p.status == 0 && p.memory <= work_space_size)
            .filter_map(|p| to_miopen_algo(p.algo).map(|m| (m, p)));
        let mut written = 0usize;
        let capacity = usize::try_from(request_algo_count).unwrap_or(0);
        // cuDNN reports the results fastest first.
        for (algorithm, perf) in usable.take(capacity) {
            let result = miopenConvAlgoPerf_t {
                algo: miopenConvAlgoPerf_algo { fwd_algo: algorithm },
                time: perf.time,
                memory: perf.memory,
            };
            // SAFETY: `perf_results` holds `request_algo_count` results (C contract).
            unsafe { perf_results.add(written).write(result) };
            written += 1;
        }
        if written == 0 {
            log::error!("MIOpen over cuDNN: no forward algorithm fits a workspace of {work_space_size} bytes");
            return Err(miopenStatus_t::miopenStatusUnknownError);
        }
        // SAFETY: non-null and valid for a write.
        unsafe { returned_algo_count.write(c_int::try_from(written).unwrap_or(c_int::MAX)) };
        Ok(())
    })
}

#[allow(clippy::too_many_arguments)]
unsafe extern "C" fn miopenConvolutionForward(
    handle: miopenHandle_t,
    alpha: *const c_void,
    x_desc: miopenTensorDescriptor_t,
    x: *const c_void,
    w_desc: miopenTensorDescriptor_t,
    w: *const c_void,
    conv_desc: miopenConvolutionDescriptor_t,
    algo: miopenConvFwdAlgorithm_t,
    beta: *const c_void,
    y_desc: miopenTensorDescriptor_t,
    y: *mut c_void,
    work_space: *mut c_void,
    work_space_size: usize,
) -> miopenStatus_t {
    entry(|| {
        let f = fns()?;
        let (xt, wt, yt) = convolution_tensors(x_desc, w_desc, y_desc)?;
        if handle.is_null() || conv_desc.is_null() {
            return Err(miopenStatus_t::miopenStatusBadParm);
        }
        let cudnn_algo = to_cudnn_algo(algo).ok_or(miopenStatus_t::miopenStatusBadParm)?;
        // SAFETY: MIOpen's host floats (C contract); the tensors are float.
        let (a, b) = unsafe { (Scalar::read(alpha, false)?, Scalar::read(beta, false)?) };
        if a.value() != 1.0 || b.value() != 0.0 {
            // MIOpen's 2-d forward convolution takes only alpha 1, beta 0.
            return Err(miopenStatus_t::miopenStatusNotImplemented);
        }
        if work_space.is_null() != (work_space_size == 0) {
            return Err(miopenStatus_t::miopenStatusBadParm);
        }
        // SAFETY: live handle and descriptors; the buffers hold the tensors
        // and the workspace its size (C contract).
        ok("cudnnConvolutionForward", unsafe {
            (f.cudnnConvolutionForward)(
                handle.cast(),
                a.ptr(),
                xt.tensor,
                x,
                wt.filter,
                w,
                conv_desc.cast(),
                cudnn_algo,
                work_space,
                work_space_size,
                b.ptr(),
                yt.tensor,
                y,
            )
        })
    })
}

/// The MIOpen table over cuDNN.
static MIOPEN_OVER_CUDNN: MiopenApi = MiopenApi {
    miopenGetVersion,
    miopenCreate,
    miopenDestroy,
    miopenSetStream,
    miopenGetStream,
    miopenCreateTensorDescriptor,
    miopenSet4dTensorDescriptor,
    miopenDestroyTensorDescriptor,
    miopenSoftmaxForward_V2,
    miopenCreateActivationDescriptor,
    miopenSetActivationDescriptor,
    miopenDestroyActivationDescriptor,
    miopenActivationForward,
    miopenCreateConvolutionDescriptor,
    miopenInitConvolutionDescriptor,
    miopenDestroyConvolutionDescriptor,
    miopenGetConvolutionForwardOutputDim,
    miopenConvolutionForwardGetWorkSpaceSize,
    miopenFindConvolutionForwardAlgorithm,
    miopenConvolutionForward,
};

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn algorithms_pair_one_to_one() {
        for (m, c) in ALGORITHMS {
            assert_eq!(to_cudnn_algo(m), Some(c));
            assert_eq!(to_miopen_algo(c), Some(m));
        }
        // cuDNN's direct, FFT tiling and non-fused Winograd are not offered.
        for c in [3, 5, 7] {
            assert_eq!(to_miopen_algo(c), None);
        }
    }

    #[test]
    fn activations_map_only_to_the_same_function() {
        use miopenActivationMode_t as M;
        assert_eq!(activation_mode(M::miopenActivationLOGISTIC, 0.0, 0.0), Some((0, 0.0)));
        assert_eq!(activation_mode(M::miopenActivationRELU, 0.0, 0.0), Some((1, 0.0)));
        assert_eq!(activation_mode(M::miopenActivationTANH, 1.0, 1.0), Some((2, 0.0)));
        assert_eq!(activation_mode(M::miopenActivationTANH, 2.0, 1.0), None, "scaled tanh");
        assert_eq!(activation_mode(M::miopenActivationCLIPPEDRELU, 6.0, 0.0), Some((3, 6.0)));
        assert_eq!(activation_mode(M::miopenActivationELU, 0.5, 0.0), Some((4, 0.5)));
        for m in [
            M::miopenActivationPASTHRU,
            M::miopenActivationSOFTRELU,
            M::miopenActivationABS,
            M::miopenActivationPOWER,
            M::miopenActivationLEAKYRELU,
        ] {
            assert_eq!(activation_mode(m, 1.0, 1.0), None, "{m:?}");
        }
    }

    #[test]
    fn statuses_map_by_category_for_cudnn_8_and_9() {
        assert_eq!(to_miopen(0), miopenStatus_t::miopenStatusSuccess);
        assert_eq!(to_miopen(2000), miopenStatus_t::miopenStatusBadParm);
        assert_eq!(to_miopen(2002), miopenStatus_t::miopenStatusBadParm);
        assert_eq!(to_miopen(3003), miopenStatus_t::miopenStatusNotImplemented);
        assert_eq!(to_miopen(4000), miopenStatus_t::miopenStatusInternalError);
        assert_eq!(to_miopen(4004), miopenStatus_t::miopenStatusAllocFailed);
        assert_eq!(to_miopen(1001), miopenStatus_t::miopenStatusNotInitialized);
        assert_eq!(to_miopen(5000), miopenStatus_t::miopenStatusUnknownError);
        // cuDNN 8: BAD_PARAM 3, NOT_SUPPORTED 9, ALLOC_FAILED 2.
        assert_eq!(to_miopen(3), miopenStatus_t::miopenStatusBadParm);
        assert_eq!(to_miopen(9), miopenStatus_t::miopenStatusNotImplemented);
        assert_eq!(to_miopen(2), miopenStatus_t::miopenStatusAllocFailed);
    }
}
