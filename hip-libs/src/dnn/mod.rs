//! MIOpen: softmax, activations and 2-D convolution on NCHW tensors.
//!
//! Each device has a handle per thread (see [`handle_stats`]); MIOpen
//! calls run under the handle's device and the thread's HIP device is
//! restored after them (MIOpen itself sets the device and leaves it set).
//! Tensor descriptors are RAII values. A convolution's algorithm search
//! runs once per (device, shapes, parameters) and is cached.

mod activation;
mod conv;
mod handle;
mod softmax;
mod tensor;

pub use activation::{activation, Activation};
pub use conv::{conv2d_forward, conv2d_output_shape, Conv2d};
pub use handle::{clear_idle_handles, handle_stats};
pub use softmax::{softmax, SoftmaxAlgorithm, SoftmaxMode};
pub use tensor::{DnnScalar, Shape4};
