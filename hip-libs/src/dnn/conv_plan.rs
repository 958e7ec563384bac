//! What a MIOpen handle keeps for each convolution problem: the
//! descriptors, made once, and the algorithm its own search found with the
//! workspace that algorithm needs.
//!
//! MIOpen's forward convolution runs an invoker that only its algorithm
//! search registers, in the handle that ran the search, so the search's
//! answer belongs to the handle. Keeping the descriptors with it too means
//! a repeated convolution makes no descriptor calls, no workspace query
//! and no search: on cuDNN those took 5 % of a ResNet-50 layer.

use super::raw;
use super::tensor::{DnnScalar, Shape4, TensorDesc};
use crate::{LibError, Result};
use hip_core::audit;
use hip_sys::miopen::{miopenConvFwdAlgorithm_t, miopenConvolutionDescriptor_t};
use std::collections::HashMap;

/// Padding, stride and dilation of a 2-D convolution (height, width).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Conv2d {
    /// Zero padding on each side.
    pub pad: (usize, usize),
    /// Step between outputs.
    pub stride: (usize, usize),
    /// Spacing of filter taps.
    pub dilation: (usize, usize),
}

impl Default for Conv2d {
    fn default() -> Self {
        Conv2d { pad: (0, 0), stride: (1, 1), dilation: (1, 1) }
    }
}

pub(crate) struct ConvDesc(pub miopenConvolutionDescriptor_t);

impl Drop for ConvDesc {
    fn drop(&mut self) {
        let _scope = audit::drop_scope();
        if let Ok(api) = hip_sys::miopen() {
            // SAFETY: made by miopenCreateConvolutionDescriptor, destroyed once.
            let _ = unsafe { raw::destroy_convolution(api, self.0) };
        }
    }
}

pub(crate) fn conv_desc(params: Conv2d) -> Result<ConvDesc> {
    let op = "conv2d";
    let values = [params.pad.0, params.pad.1, params.stride.0, params.stride.1, params.dilation.0, params.dilation.1];
    if values.iter().any(|v| *v > i32::MAX as usize)
        || params.stride.0 == 0
        || params.stride.1 == 0
        || params.dilation.0 == 0
        || params.dilation.1 == 0
    {
        return Err(LibError::invalid(
            op,
            format!("{params:?}: strides and dilations must be positive and all values fit an int"),
        ));
    }
    let api = hip_sys::miopen()?;
    let desc = ConvDesc(raw::create_convolution(api)?);
    let pair = |(h, w): (usize, usize)| (h as i32, w as i32);
    // SAFETY: a live descriptor; values fit an int.
    unsafe { raw::init_convolution(api, desc.0, [pair(params.pad), pair(params.stride), pair(params.dilation)]) }?;
    Ok(desc)
}

/// A forward convolution problem: input and filter shapes, the
/// convolution's parameters and whether the data is FP64 (the output
/// follows from them).
pub(crate) type ConvProblem = (Shape4, Shape4, Conv2d, bool);

/// One problem's descriptors and, once searched, its algorithm.
pub(crate) struct ConvPlan {
    pub x: TensorDesc,
    pub w: TensorDesc,
    pub y: TensorDesc,
    pub conv: ConvDesc,
    /// The algorithm this handle's search found and the workspace bytes
    /// it needs; `None` before the search.
    pub algorithm: Option<(miopenConvFwdAlgorithm_t, usize)>,
}

impl ConvPlan {
    /// The descriptors of convolving `input` with `filter` into `output`.
    pub fn new<T: DnnScalar>(input: Shape4, filter: Shape4, output: Shape4, params: Conv2d) -> Result<ConvPlan> {
        Ok(ConvPlan {
            x: TensorDesc::new::<T>(input)?,
            w: TensorDesc::new::<T>(filter)?,
            y: TensorDesc::new::<T>(output)?,
            conv: conv_desc(params)?,
            algorithm: None,
        })
    }
}

/// A handle's plans, at most [`ConvPlans::CAPACITY`]: past it they are
/// dropped and made again when used (a new search then).
#[derive(Default)]
pub(crate) struct ConvPlans {
    plans: HashMap<ConvProblem, ConvPlan>,
}

impl ConvPlans {
    /// The most plans one handle keeps.
    pub const CAPACITY: usize = 64;

    /// The plan of `problem`, made by `make` if there is none.
    pub fn get_or_make(
        &mut self,
        problem: ConvProblem,
        make: impl FnOnce() -> Result<ConvPlan>,
    ) -> Result<&mut ConvPlan> {
        if !self.plans.contains_key(&problem) && self.plans.len() >= Self::CAPACITY {
            self.plans.clear();
        }
        match self.plans.entry(problem) {
            std::collections::hash_map::Entry::Occupied(e) => Ok(e.into_mut()),
            std::collections::hash_map::Entry::Vacant(e) => Ok(e.insert(make()?)),
        }
    }
}
