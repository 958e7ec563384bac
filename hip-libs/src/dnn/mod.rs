//! MIOpen: softmax, activations and 2-D convolution on NCHW tensors.
//!
//! Each device has a handle per thread (see [`handle_stats`]); MIOpen
//! calls run under the handle's device and the thread's HIP device is
//! restored after them (MIOpen itself sets the device and leaves it set).
//! Tensor descriptors are RAII values. A convolution's descriptors and
//! algorithm search are made once per (handle, shapes, parameters) and
//! kept with the handle, as MIOpen's search results are.
//!
//! # Capture
//!
//! Softmax, activations and a convolution whose algorithm this handle
//! already found capture; the algorithm search (it runs and times every
//! algorithm) and a thread's first handle are refused inside a capture
//! (`HipError::CaptureUnderway`): run each convolution once before
//! capturing.

mod activation;
mod conv;
mod conv_plan;
mod handle;
mod raw;
mod softmax;
mod tensor;

pub use activation::{activation, Activation};
pub use conv::{conv2d_forward, conv2d_output_shape};
pub use conv_plan::Conv2d;
pub use handle::{clear_idle_handles, handle_stats, warm_handle};
pub use softmax::{softmax, SoftmaxAlgorithm, SoftmaxMode};
pub use tensor::{DnnScalar, Shape4};
