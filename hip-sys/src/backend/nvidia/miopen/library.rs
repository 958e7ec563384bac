//! cuDNN itself: the functions the mapping calls, its numbers, and loading it.

use std::ffi::{c_char, c_int, c_void};
use std::sync::OnceLock;

use crate::backend::nvidia::{library_candidates, open, Handle};
use crate::miopen::miopenStatus_t;
use crate::BackendError;

/// `cudnnStatus_t`.
pub(super) type CudnnStatus = c_int;

/// `cudnnConvolutionFwdAlgoPerf_t` (cuDNN 8 and 9, `cudnn_cnn.h`): 48 bytes.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct CudnnFwdPerf {
    pub(super) algo: c_int,
    pub(super) status: CudnnStatus,
    pub(super) time: f32,
    pub(super) memory: usize,
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
        /// `cudnnStatus_t cudnnSetConvolutionMathType(cudnnConvolutionDescriptor_t convDesc, cudnnMathType_t
        /// mathType)`
        cudnnSetConvolutionMathType = "cudnnSetConvolutionMathType": fn(Handle, c_int) -> CudnnStatus;
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

/// `CUDNN_TENSOR_NCHW`, `CUDNN_CROSS_CORRELATION`, `CUDNN_NOT_PROPAGATE_NAN`,
/// `CUDNN_DATA_FLOAT`.
pub(super) const NCHW: c_int = 0;
pub(super) const CROSS_CORRELATION: c_int = 1;
pub(super) const NOT_PROPAGATE_NAN: c_int = 0;
pub(super) const FLOAT: c_int = 0;
/// `CUDNN_FMA_MATH` (cuDNN 8 and 9): FP32 kernels only, no TF32.
pub(super) const FMA_MATH: c_int = 3;

/// The candidate files for cuDNN, in the order they are tried.
pub(crate) fn candidates() -> Vec<String> {
    library_candidates(&["libcudnn.so.9", "libcudnn.so.8", "libcudnn.so"])
}

const HINT: &str = "install cuDNN 8 or 9 (the libcudnn package) and add its directory to \
     LD_LIBRARY_PATH; or set AMDGPU_BACKEND=sim to use the simulator's MIOpen";

static LOADED: OnceLock<Result<Cudnn, BackendError>> = OnceLock::new();

/// The loaded functions; `miopenStatusNotInitialized` before a successful load.
pub(super) fn fns() -> Result<&'static Cudnn, miopenStatus_t> {
    LOADED.get().and_then(|l| l.as_ref().ok()).ok_or(miopenStatus_t::miopenStatusNotInitialized)
}

/// Load cuDNN from `candidates`, once: later calls give the first call's
/// outcome.
pub(super) fn load_once(candidates: &[String]) -> Result<(), BackendError> {
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
        .map(|_| ())
        .map_err(Clone::clone)
}
