//! Convolution descriptors, the forward algorithms and their search, and
//! convolution forward.

use std::ffi::{c_int, c_void};

use super::library::{fns, CudnnFwdPerf, CROSS_CORRELATION};
use super::scalar::Scalar;
use super::status::{entry, ok};
use super::tensors::{double, tensor, Tensor};
use crate::miopen::{
    miopenConvAlgoPerf_algo, miopenConvAlgoPerf_t, miopenConvFwdAlgorithm_t, miopenConvolutionDescriptor_t,
    miopenConvolutionMode_t, miopenHandle_t, miopenStatus_t, miopenTensorDescriptor_t,
};

pub(super) unsafe extern "C" fn miopenCreateConvolutionDescriptor(
    desc: *mut miopenConvolutionDescriptor_t,
) -> miopenStatus_t {
    entry(|| {
        if desc.is_null() {
            return Err(miopenStatus_t::miopenStatusBadParm);
        }
        // SAFETY: non-null and valid for a write of a descriptor.
        ok("cudnnCreateConvolutionDescriptor", unsafe { (fns()?.cudnnCreateConvolutionDescriptor)(desc.cast()) })
    })
}

#[allow(clippy::too_many_arguments)]
pub(super) unsafe extern "C" fn miopenInitConvolutionDescriptor(
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

pub(super) unsafe extern "C" fn miopenDestroyConvolutionDescriptor(
    desc: miopenConvolutionDescriptor_t,
) -> miopenStatus_t {
    entry(|| {
        if desc.is_null() {
            return Err(miopenStatus_t::miopenStatusBadParm);
        }
        // SAFETY: made by cudnnCreateConvolutionDescriptor, destroyed once.
        ok("cudnnDestroyConvolutionDescriptor", unsafe { (fns()?.cudnnDestroyConvolutionDescriptor)(desc.cast()) })
    })
}

pub(super) unsafe extern "C" fn miopenGetConvolutionForwardOutputDim(
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

pub(super) unsafe extern "C" fn miopenConvolutionForwardGetWorkSpaceSize(
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
pub(super) unsafe extern "C" fn miopenFindConvolutionForwardAlgorithm(
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
pub(super) unsafe extern "C" fn miopenConvolutionForward(
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
}
