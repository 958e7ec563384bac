//! MIOpen over cuDNN: the nvidia backend's [`MiopenApi`](crate::miopen::MiopenApi).
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
//!   computed in FP32 arithmetic (`CUDNN_FMA_MATH`): cuDNN's default math
//!   would let kernels round the operands to TF32 on GPUs since the A100,
//!   a hundred times FP32's error, which MIOpen never does. Each MIOpen
//!   algorithm stands for a family of cuDNN algorithms that compute the
//!   same way: GEMM for `GEMM`, direct for `IMPLICIT_GEMM` (cuDNN's
//!   `DIRECT` has no kernels), FFT for `FFT_TILING` and `FFT`, Winograd
//!   for `WINOGRAD` and `WINOGRAD_NONFUSED`, implicit GEMM for
//!   `IMPLICIT_PRECOMP_GEMM`. The search
//!   (`cudnnFindConvolutionForwardAlgorithmEx`, run three times, each
//!   algorithm ranked by its fastest time) times all of them and
//!   reports each family once, at its fastest member that fits the
//!   workspace, in MIOpen's numbering; the convolution descriptor keeps
//!   that member per problem and forward runs it (without a search, the
//!   family's first member that fits). The workspace size is the largest
//!   any member needs. As in MIOpen, alpha must be 1 and beta 0.
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

mod activations;
mod algorithms;
mod convolution;
mod handles;
mod library;
mod scalar;
mod softmax;
mod status;
mod table;
mod tensors;

pub(crate) use library::candidates;
pub(crate) use table::load;
