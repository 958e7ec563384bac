//! MIOpen's C API, the part this project calls, declared by hand.
//!
//! There is no Debian package of MIOpen to generate these from, so they
//! are written from `include/miopen/miopen.h` of ROCm/MIOpen, checked
//! against the 3.x header (the ROCm 6.x series; `miopenStatusVersionMismatch
//! = 10` present, `miopenInt8x4` retired) and against the 5.2.3 header as
//! recorded in the project's reference notes (`hip_semantics.md` §7). Every
//! function and enum value used here is the same in both: the numbering of
//! the enums did not change between MIOpen 2.x (ROCm 5.x) and 3.x (ROCm
//! 6.x and 7.x), values were only appended.
//!
//! The shapes follow the generated tables of [`rocsparse`](mod@super::rocsparse) and
//! [`rocfft`](mod@super::rocfft): opaque pointer types for handles and descriptors,
//! C enums as `#[repr(transparent)]` newtypes with associated constants (an
//! unknown value from the library is never undefined behaviour), and
//! `MiopenApi`, a struct of function pointers that every backend fills.
//! MIOpen API reference: <https://rocm.docs.amd.com/projects/MIOpen/en/latest/reference/index.html>.

use core::ffi::{c_int, c_uint, c_void};

pub use super::hip::hipStream_t;

/// `struct miopenHandle` (`MIOPEN_DECLARE_OBJECT(miopenHandle)`, handle group).
#[repr(C)]
#[derive(Debug, Copy, Clone)]
pub struct miopenHandle {
    _unused: [u8; 0],
}
/// `miopenHandle_t`: a MIOpen handle, bound to the device current at creation.
pub type miopenHandle_t = *mut miopenHandle;

/// `struct miopenTensorDescriptor` (tensor group).
#[repr(C)]
#[derive(Debug, Copy, Clone)]
pub struct miopenTensorDescriptor {
    _unused: [u8; 0],
}
/// `miopenTensorDescriptor_t`: shape, strides and data type of a tensor.
pub type miopenTensorDescriptor_t = *mut miopenTensorDescriptor;

/// `struct miopenActivationDescriptor` (activation group).
#[repr(C)]
#[derive(Debug, Copy, Clone)]
pub struct miopenActivationDescriptor {
    _unused: [u8; 0],
}
/// `miopenActivationDescriptor_t`: an activation mode and its α, β, γ.
pub type miopenActivationDescriptor_t = *mut miopenActivationDescriptor;

/// `struct miopenConvolutionDescriptor` (convolutions group).
#[repr(C)]
#[derive(Debug, Copy, Clone)]
pub struct miopenConvolutionDescriptor {
    _unused: [u8; 0],
}
/// `miopenConvolutionDescriptor_t`: mode, padding, stride and dilation.
pub type miopenConvolutionDescriptor_t = *mut miopenConvolutionDescriptor;

/// `miopenAcceleratorQueue_t`: on the HIP backend of MIOpen, a `hipStream_t`.
pub type miopenAcceleratorQueue_t = hipStream_t;

/// Declare a C enum as a newtype with associated constants.
macro_rules! c_enum {
    ($(#[$doc:meta])* $name:ident { $($(#[$vdoc:meta])* $variant:ident = $value:expr,)* }) => {
        $(#[$doc])*
        #[repr(transparent)]
        #[derive(Debug, Copy, Clone, Hash, PartialEq, Eq)]
        pub struct $name(pub c_uint);
        impl $name {
            $($(#[$vdoc])* pub const $variant: $name = $name($value);)*
        }
    };
}

c_enum! {
    /// `miopenStatus_t`: what every MIOpen call returns.
    miopenStatus_t {
        /// No error.
        miopenStatusSuccess = 0,
        /// Data not initialized.
        miopenStatusNotInitialized = 1,
        /// Incorrect variable value.
        miopenStatusInvalidValue = 2,
        /// Incorrect parameter detected.
        miopenStatusBadParm = 3,
        /// Memory allocation error.
        miopenStatusAllocFailed = 4,
        /// MIOpen failure.
        miopenStatusInternalError = 5,
        /// Use of an unimplemented feature.
        miopenStatusNotImplemented = 6,
        /// Unknown error.
        miopenStatusUnknownError = 7,
        /// Unsupported operator for fusion.
        miopenStatusUnsupportedOp = 8,
        /// Not an error.
        miopenStatusGpuOperationsSkipped = 9,
        /// Version mismatch of supplied binary data (3.x).
        miopenStatusVersionMismatch = 10,
    }
}

c_enum! {
    /// `miopenDataType_t`: element types of tensors.
    miopenDataType_t {
        /// 16-bit float.
        miopenHalf = 0,
        /// 32-bit float.
        miopenFloat = 1,
        /// 32-bit integer.
        miopenInt32 = 2,
        /// 8-bit integer.
        miopenInt8 = 3,
        /// bfloat16.
        miopenBFloat16 = 5,
        /// 64-bit float (partially supported by MIOpen).
        miopenDouble = 6,
    }
}

c_enum! {
    /// `miopenActivationMode_t`: activation functions. α, β, γ are the
    /// descriptor's `activAlpha`, `activBeta`, `activPower`.
    miopenActivationMode_t {
        /// y = x.
        miopenActivationPASTHRU = 0,
        /// y = 1 / (1 + e^-x).
        miopenActivationLOGISTIC = 1,
        /// y = β tanh(α x).
        miopenActivationTANH = 2,
        /// y = max(0, x).
        miopenActivationRELU = 3,
        /// y = log(1 + e^x).
        miopenActivationSOFTRELU = 4,
        /// y = |x|.
        miopenActivationABS = 5,
        /// y = (α + β x)^γ.
        miopenActivationPOWER = 6,
        /// y = min(α, max(0, x)).
        miopenActivationCLIPPEDRELU = 7,
        /// y = x for x > 0, α x otherwise.
        miopenActivationLEAKYRELU = 8,
        /// y = x for x > 0, α (e^x - 1) otherwise.
        miopenActivationELU = 9,
    }
}

c_enum! {
    /// `miopenSoftmaxAlgorithm_t`.
    miopenSoftmaxAlgorithm_t {
        /// Straightforward softmax.
        MIOPEN_SOFTMAX_FAST = 0,
        /// Softmax scaled by the maximum of the input.
        MIOPEN_SOFTMAX_ACCURATE = 1,
        /// Log-softmax.
        MIOPEN_SOFTMAX_LOG = 2,
    }
}

c_enum! {
    /// `miopenSoftmaxMode_t`.
    miopenSoftmaxMode_t {
        /// Per image (N), across C, H and W.
        MIOPEN_SOFTMAX_MODE_INSTANCE = 0,
        /// Per spatial location (H, W) of each image, across C.
        MIOPEN_SOFTMAX_MODE_CHANNEL = 1,
    }
}

c_enum! {
    /// `miopenConvolutionMode_t`.
    miopenConvolutionMode_t {
        /// Cross-correlation.
        miopenConvolution = 0,
        /// Transposed convolution.
        miopenTranspose = 1,
        /// Deprecated group convolution.
        miopenGroupConv = 2,
        /// Deprecated depthwise convolution.
        miopenDepthwise = 3,
    }
}

c_enum! {
    /// `miopenConvFwdAlgorithm_t` (4 is unused).
    miopenConvFwdAlgorithm_t {
        /// GEMM variant.
        miopenConvolutionFwdAlgoGEMM = 0,
        /// Direct convolution.
        miopenConvolutionFwdAlgoDirect = 1,
        /// FFT.
        miopenConvolutionFwdAlgoFFT = 2,
        /// Winograd.
        miopenConvolutionFwdAlgoWinograd = 3,
        /// Implicit GEMM.
        miopenConvolutionFwdAlgoImplicitGEMM = 5,
    }
}

c_enum! {
    /// `miopenConvBwdWeightsAlgorithm_t`, a member of [`miopenConvAlgoPerf_t`]'s union.
    miopenConvBwdWeightsAlgorithm_t {
        /// GEMM variant.
        miopenConvolutionBwdWeightsAlgoGEMM = 0,
        /// Direct convolution.
        miopenConvolutionBwdWeightsAlgoDirect = 1,
        /// Winograd.
        miopenConvolutionBwdWeightsAlgoWinograd = 3,
        /// Implicit GEMM.
        miopenConvolutionBwdWeightsAlgoImplicitGEMM = 5,
    }
}

c_enum! {
    /// `miopenConvBwdDataAlgorithm_t`, a member of [`miopenConvAlgoPerf_t`]'s union.
    miopenConvBwdDataAlgorithm_t {
        /// GEMM variant.
        miopenConvolutionBwdDataAlgoGEMM = 0,
        /// Direct convolution.
        miopenConvolutionBwdDataAlgoDirect = 1,
        /// FFT.
        miopenConvolutionBwdDataAlgoFFT = 2,
        /// Winograd.
        miopenConvolutionBwdDataAlgoWinograd = 3,
        /// Deprecated transpose GEMM.
        miopenTransposeBwdDataAlgoGEMM = 4,
        /// Implicit GEMM.
        miopenConvolutionBwdDataAlgoImplicitGEMM = 5,
    }
}

/// The anonymous union of [`miopenConvAlgoPerf_t`]: which algorithm the
/// entry describes, for the direction that was searched.
#[repr(C)]
#[derive(Copy, Clone)]
pub union miopenConvAlgoPerf_algo {
    /// Forward convolution algorithm.
    pub fwd_algo: miopenConvFwdAlgorithm_t,
    /// Backward-weights algorithm.
    pub bwd_weights_algo: miopenConvBwdWeightsAlgorithm_t,
    /// Backward-data algorithm.
    pub bwd_data_algo: miopenConvBwdDataAlgorithm_t,
}

impl core::fmt::Debug for miopenConvAlgoPerf_algo {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        // SAFETY: every member is a 32-bit integer newtype, so any bit
        // pattern is a valid value of the first.
        let raw = unsafe { self.fwd_algo.0 };
        write!(f, "algorithm {raw}")
    }
}

/// `miopenConvAlgoPerf_t`: one result of an algorithm search (16 bytes on
/// 64-bit targets: the union, `float time`, `size_t memory`).
#[repr(C)]
#[derive(Debug, Copy, Clone)]
pub struct miopenConvAlgoPerf_t {
    /// The algorithm.
    pub algo: miopenConvAlgoPerf_algo,
    /// Time it took, in milliseconds.
    pub time: f32,
    /// Workspace bytes it needs.
    pub memory: usize,
}

const _: () = assert!(core::mem::size_of::<miopenConvAlgoPerf_t>() == 16);

/// Declare the function table: the struct, its symbol list and its resolver.
macro_rules! api_table {
    ($(#[$doc:meta])* $name:ident { $($(#[$fdoc:meta])* $f:ident($($arg:ident: $ty:ty),* $(,)?);)* }) => {
        $(#[$doc])*
        #[derive(Clone, Copy)]
        pub struct $name {
            $($(#[$fdoc])* pub $f: unsafe extern "C" fn($($arg: $ty),*) -> miopenStatus_t,)*
        }

        impl $name {
            /// The C symbol names, in field order.
            pub const SYMBOLS: &'static [&'static str] = &[$(stringify!($f)),*];

            /// Build the table by resolving each symbol of [`Self::SYMBOLS`].
            ///
            /// # Safety
            /// For every name, `resolve` must return a non-null pointer to a
            /// function with exactly the C signature declared for it here,
            /// valid for as long as the table is used.
            pub unsafe fn from_resolver<E>(
                mut resolve: impl FnMut(&'static str) -> Result<*const c_void, E>,
            ) -> Result<Self, E> {
                Ok(Self {
                    $($f: {
                        let pointer = resolve(stringify!($f))?;
                        // SAFETY: the caller guarantees the pointer is a
                        // function of this signature.
                        unsafe {
                            core::mem::transmute::<*const c_void, unsafe extern "C" fn($($ty),*) -> miopenStatus_t>(
                                pointer,
                            )
                        }
                    },)*
                })
            }
        }

    };
}

api_table! {
    /// The functions of `libMIOpen.so` that this project calls, as function
    /// pointers.
    ///
    /// Every backend fills this same struct: the amd backend with the
    /// symbols of `libMIOpen.so`, the simulator with Rust functions of the
    /// same C signature. Signatures as in `miopen.h` (2.x and 3.x alike).
    MiopenApi {
        /// `miopenGetVersion(size_t* major, size_t* minor, size_t* patch)`; null pointers are ignored.
        miopenGetVersion(major: *mut usize, minor: *mut usize, patch: *mut usize);
        /// `miopenCreate(miopenHandle_t* handle)`.
        miopenCreate(handle: *mut miopenHandle_t);
        /// `miopenDestroy(miopenHandle_t handle)`.
        miopenDestroy(handle: miopenHandle_t);
        /// `miopenSetStream(miopenHandle_t handle, miopenAcceleratorQueue_t streamID)`.
        miopenSetStream(handle: miopenHandle_t, stream_id: miopenAcceleratorQueue_t);
        /// `miopenGetStream(miopenHandle_t handle, miopenAcceleratorQueue_t* streamID)`.
        miopenGetStream(handle: miopenHandle_t, stream_id: *mut miopenAcceleratorQueue_t);
        /// `miopenCreateTensorDescriptor(miopenTensorDescriptor_t* tensorDesc)`.
        miopenCreateTensorDescriptor(tensor_desc: *mut miopenTensorDescriptor_t);
        /// `miopenSet4dTensorDescriptor(tensorDesc, dataType, int n, int c, int h, int w)`: NCHW, packed.
        miopenSet4dTensorDescriptor(
            tensor_desc: miopenTensorDescriptor_t,
            data_type: miopenDataType_t,
            n: c_int,
            c: c_int,
            h: c_int,
            w: c_int,
        );
        /// `miopenDestroyTensorDescriptor(miopenTensorDescriptor_t tensorDesc)`.
        miopenDestroyTensorDescriptor(tensor_desc: miopenTensorDescriptor_t);
        /// `miopenSoftmaxForward_V2(handle, alpha, xDesc, x, beta, yDesc, y, algorithm, mode)`.
        miopenSoftmaxForward_V2(
            handle: miopenHandle_t,
            alpha: *const c_void,
            x_desc: miopenTensorDescriptor_t,
            x: *const c_void,
            beta: *const c_void,
            y_desc: miopenTensorDescriptor_t,
            y: *mut c_void,
            algorithm: miopenSoftmaxAlgorithm_t,
            mode: miopenSoftmaxMode_t,
        );
        /// `miopenCreateActivationDescriptor(miopenActivationDescriptor_t* activDesc)`.
        miopenCreateActivationDescriptor(activ_desc: *mut miopenActivationDescriptor_t);
        /// `miopenSetActivationDescriptor(activDesc, mode, double activAlpha, double activBeta, double activPower)`.
        miopenSetActivationDescriptor(
            activ_desc: miopenActivationDescriptor_t,
            mode: miopenActivationMode_t,
            activ_alpha: f64,
            activ_beta: f64,
            activ_power: f64,
        );
        /// `miopenDestroyActivationDescriptor(miopenActivationDescriptor_t activDesc)`.
        miopenDestroyActivationDescriptor(activ_desc: miopenActivationDescriptor_t);
        /// `miopenActivationForward(handle, activDesc, alpha, xDesc, x, beta, yDesc, y)`.
        miopenActivationForward(
            handle: miopenHandle_t,
            activ_desc: miopenActivationDescriptor_t,
            alpha: *const c_void,
            x_desc: miopenTensorDescriptor_t,
            x: *const c_void,
            beta: *const c_void,
            y_desc: miopenTensorDescriptor_t,
            y: *mut c_void,
        );
        /// `miopenCreateConvolutionDescriptor(miopenConvolutionDescriptor_t* convDesc)`.
        miopenCreateConvolutionDescriptor(conv_desc: *mut miopenConvolutionDescriptor_t);
        /// `miopenInitConvolutionDescriptor(convDesc, c_mode, pad_h, pad_w, stride_h, stride_w, dilation_h, dilation_w)`.
        miopenInitConvolutionDescriptor(
            conv_desc: miopenConvolutionDescriptor_t,
            c_mode: miopenConvolutionMode_t,
            pad_h: c_int,
            pad_w: c_int,
            stride_h: c_int,
            stride_w: c_int,
            dilation_h: c_int,
            dilation_w: c_int,
        );
        /// `miopenDestroyConvolutionDescriptor(miopenConvolutionDescriptor_t convDesc)`.
        miopenDestroyConvolutionDescriptor(conv_desc: miopenConvolutionDescriptor_t);
        /// `miopenGetConvolutionForwardOutputDim(convDesc, inputTensorDesc, filterDesc, int* n, int* c, int* h, int* w)`.
        miopenGetConvolutionForwardOutputDim(
            conv_desc: miopenConvolutionDescriptor_t,
            input_tensor_desc: miopenTensorDescriptor_t,
            filter_desc: miopenTensorDescriptor_t,
            n: *mut c_int,
            c: *mut c_int,
            h: *mut c_int,
            w: *mut c_int,
        );
        /// `miopenConvolutionForwardGetWorkSpaceSize(handle, wDesc, xDesc, convDesc, yDesc, size_t* workSpaceSize)`.
        miopenConvolutionForwardGetWorkSpaceSize(
            handle: miopenHandle_t,
            w_desc: miopenTensorDescriptor_t,
            x_desc: miopenTensorDescriptor_t,
            conv_desc: miopenConvolutionDescriptor_t,
            y_desc: miopenTensorDescriptor_t,
            work_space_size: *mut usize,
        );
        /// `miopenFindConvolutionForwardAlgorithm(handle, xDesc, x, wDesc, w, convDesc, yDesc, y,
        /// requestAlgoCount, returnedAlgoCount, perfResults, workSpace, workSpaceSize, exhaustiveSearch)`.
        miopenFindConvolutionForwardAlgorithm(
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
            exhaustive_search: bool,
        );
        /// `miopenConvolutionForward(handle, alpha, xDesc, x, wDesc, w, convDesc, algo, beta, yDesc, y,
        /// workSpace, workSpaceSize)`.
        miopenConvolutionForward(
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
        );
    }
}

impl core::fmt::Debug for MiopenApi {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(f, "MiopenApi {{ {} functions }}", Self::SYMBOLS.len())
    }
}
