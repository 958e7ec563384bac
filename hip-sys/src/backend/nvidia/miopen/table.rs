//! The MIOpen table over cuDNN, and loading it.

use super::activations::*;
use super::convolution::*;
use super::handles::*;
use super::library;
use super::softmax::*;
use super::tensors::*;
use crate::miopen::MiopenApi;
use crate::BackendError;

/// Load cuDNN from `candidates` and return the MIOpen table over it.
pub(crate) fn load(candidates: &[String]) -> Result<&'static MiopenApi, BackendError> {
    library::load_once(candidates).map(|_| &MIOPEN_OVER_CUDNN)
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
