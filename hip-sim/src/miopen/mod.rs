//! MIOpen in the simulator: handles, 4-d tensor descriptors, softmax,
//! activations and forward convolution, computed with direct loops in FP32.
//!
//! As strict as MIOpen (3.x, `convolutionocl.cpp`, `softmax.cpp`,
//! `activ.cpp`), where being lenient would hide a bug:
//!
//! - `miopenGetVersion` reports 3.1.0 (the MIOpen of ROCm 6.1).
//! - Tensors: NCHW, packed, `miopenFloat` or `miopenDouble` descriptors;
//!   other types are `miopenStatusNotImplemented`. No operation computes in
//!   FP64, as MIOpen has no FP64 kernels for them: softmax and activations
//!   of a `miopenDouble` tensor are `miopenStatusNotImplemented` (MIOpen's
//!   softmax would run its FP32 kernel over the doubles and return
//!   garbage), convolution of one is `miopenStatusUnknownError` (no solver
//!   applies).
//! - `alpha` and `beta` are read as `float` whatever the tensor type, as
//!   MIOpen reads them. Softmax computes `y = alpha * f(x) + beta * y`
//!   (with `beta == 0`, `y` is not read). Activations and convolution
//!   accept only alpha 1 and beta 0 (activations: `miopenStatusUnknownError`;
//!   2-d convolution: `miopenStatusNotImplemented`).
//! - Softmax V2: fast does not subtract the maximum (it overflows where
//!   MIOpen's does), accurate does, log gives log-softmax; mode instance
//!   normalizes over C × H × W of each image, mode channel over C at each
//!   (n, h, w).
//! - Activations with MIOpen's α, β, γ (the descriptor's `activAlpha`,
//!   `activBeta`, `activPower`): see [`activate`](activation::activate).
//! - Convolution: mode `miopenConvolution` (cross-correlation, no groups),
//!   `miopenFloat` only; the filter is a 4-d tensor K × C × R × S; padding,
//!   stride and dilation per dimension.
//!   - The workspace is that of MIOpen's im2col GEMM, C × R × S × (output
//!     H × W) floats, except for a 1 × 1 filter of stride 1 and no padding
//!     (0 bytes). A workspace pointer and size must be both null and zero
//!     or both non-null and non-zero (`miopenStatusBadParm`; MIOpen
//!     asserts it).
//!   - The algorithm search reports GEMM when the workspace it is given
//!     holds the im2col buffer and direct otherwise; it does not write
//!     `y`. What it found is recorded **on that handle**, as MIOpen's
//!     invoker cache is: forward on a handle that never searched this
//!     problem with this algorithm fails with `miopenStatusUnknownError`
//!     ("No invoker was registered ... Was find executed?").

mod activation;
mod conv_forward;
mod convolution;
mod handles;
mod objects;
mod softmax;
mod status;
mod table;
mod tensors;
mod unary;

pub(crate) use objects::{Activation, Convolution, Handle, Tensor};
pub(crate) use table::SIM_MIOPEN;

/// MIOpen's objects: handles and descriptors.
pub(crate) enum Kind {
    DnnHandle(Handle),
    Tensor(Tensor),
    Activation(Activation),
    Convolution(Convolution),
}

/// Where they are kept.
pub(crate) static OBJECTS: crate::library::Registry<Kind> = crate::library::Registry::new();
