//! The simulator's MIOpen table.

use super::activation::*;
use super::conv_forward::*;
use super::convolution::*;
use super::handles::*;
use super::softmax::*;
use super::tensors::*;
use crate::bindings::miopen::MiopenApi;

/// The simulator's MIOpen table.
pub(crate) static SIM_MIOPEN: MiopenApi = MiopenApi {
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
