//! Convolution descriptors, the forward search, and convolution forward.

use std::ffi::{c_int, c_void};

use super::algorithms::{all_members, family, members, Picks, Problem, Timing, Timings, CUDNN_ALGORITHMS, SEARCHES};
use super::library::{fns, CudnnFwdPerf, CROSS_CORRELATION, FLOAT, FMA_MATH};
use super::scalar::Scalar;
use super::status::{entry, ok};
use super::tensors::{double, tensor, Tensor};
use crate::backend::nvidia::Handle;
use crate::miopen::{
    miopenConvAlgoPerf_algo, miopenConvAlgoPerf_t, miopenConvFwdAlgorithm_t, miopenConvolutionDescriptor_t,
    miopenConvolutionMode_t, miopenHandle_t, miopenStatus_t, miopenTensorDescriptor_t,
};

/// A MIOpen convolution descriptor: cuDNN's, and what the search picked
/// with it.
#[derive(Debug)]
struct Convolution {
    desc: Handle,
    picks: Picks,
}

fn convolution<'a>(desc: miopenConvolutionDescriptor_t) -> Result<&'a Convolution, miopenStatus_t> {
    if desc.is_null() {
        return Err(miopenStatus_t::miopenStatusBadParm);
    }
    // SAFETY: a descriptor made by `miopenCreateConvolutionDescriptor`
    // below (C contract), alive while the caller uses it.
    Ok(unsafe { &*desc.cast::<Convolution>() })
}

pub(super) unsafe extern "C" fn miopenCreateConvolutionDescriptor(
    desc: *mut miopenConvolutionDescriptor_t,
) -> miopenStatus_t {
    entry(|| {
        if desc.is_null() {
            return Err(miopenStatus_t::miopenStatusBadParm);
        }
        let mut made: Handle = std::ptr::null_mut();
        // SAFETY: a valid out-pointer.
        ok("cudnnCreateConvolutionDescriptor", unsafe { (fns()?.cudnnCreateConvolutionDescriptor)(&mut made) })?;
        let made = Box::into_raw(Box::new(Convolution { desc: made, picks: Picks::default() }));
        // SAFETY: non-null and valid for a write (C contract).
        unsafe { desc.write(made.cast()) };
        Ok(())
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
        let f = fns()?;
        let conv = convolution(desc)?;
        if mode != miopenConvolutionMode_t::miopenConvolution {
            return Err(miopenStatus_t::miopenStatusNotImplemented);
        }
        // Computed in FP32: the only type MIOpen convolves in (double
        // tensors are refused before cuDNN sees them).
        // SAFETY: a live descriptor.
        ok("cudnnSetConvolution2dDescriptor", unsafe {
            (f.cudnnSetConvolution2dDescriptor)(
                conv.desc,
                pad_h,
                pad_w,
                stride_h,
                stride_w,
                dilation_h,
                dilation_w,
                CROSS_CORRELATION,
                FLOAT,
            )
        })?;
        // FP32 arithmetic, as MIOpen's: cuDNN's default math lets kernels
        // round the operands to TF32 on GPUs since the A100.
        // SAFETY: a live descriptor.
        ok("cudnnSetConvolutionMathType", unsafe { (f.cudnnSetConvolutionMathType)(conv.desc, FMA_MATH) })
    })
}

pub(super) unsafe extern "C" fn miopenDestroyConvolutionDescriptor(
    desc: miopenConvolutionDescriptor_t,
) -> miopenStatus_t {
    entry(|| {
        let f = fns()?;
        if desc.is_null() {
            return Err(miopenStatus_t::miopenStatusBadParm);
        }
        // SAFETY: made by miopenCreateConvolutionDescriptor, destroyed once (C contract).
        let conv = unsafe { Box::from_raw(desc.cast::<Convolution>()) };
        // SAFETY: its live cuDNN descriptor, destroyed once.
        ok("cudnnDestroyConvolutionDescriptor", unsafe { (f.cudnnDestroyConvolutionDescriptor)(conv.desc) })
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
        let (it, ft, conv) = (tensor(input)?, tensor(filter)?, convolution(desc)?);
        if n.is_null() || c.is_null() || h.is_null() || w.is_null() {
            return Err(miopenStatus_t::miopenStatusBadParm);
        }
        // SAFETY: live descriptors; valid out-pointers.
        ok("cudnnGetConvolution2dForwardOutputDim", unsafe {
            (fns()?.cudnnGetConvolution2dForwardOutputDim)(conv.desc, it.tensor, ft.filter, n, c, h, w)
        })
    })
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

/// The problem the three tensors pose.
fn problem(xt: &Tensor, wt: &Tensor, yt: &Tensor) -> Problem {
    [xt.dims, wt.dims, yt.dims]
}

/// cuDNN's workspace size for `algorithm`, or `None` where it does not apply.
fn workspace_size(
    handle: miopenHandle_t,
    (xt, wt, yt): (&Tensor, &Tensor, &Tensor),
    conv: &Convolution,
    algorithm: c_int,
) -> Result<Option<usize>, miopenStatus_t> {
    let f = fns()?;
    let mut bytes = 0usize;
    // SAFETY: live handle and descriptors; a valid out-pointer. An
    // algorithm that does not apply answers an error.
    let status = unsafe {
        (f.cudnnGetConvolutionForwardWorkspaceSize)(
            handle.cast(),
            xt.tensor,
            wt.filter,
            conv.desc,
            yt.tensor,
            algorithm,
            &mut bytes,
        )
    };
    Ok((status == 0).then_some(bytes))
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
        let tensors = convolution_tensors(x_desc, w_desc, y_desc)?;
        let conv = convolution(conv_desc)?;
        if handle.is_null() || size.is_null() {
            return Err(miopenStatus_t::miopenStatusBadParm);
        }
        // The most any algorithm the search may pick needs, as MIOpen's
        // is the most any of its solvers needs.
        let mut largest = 0usize;
        for algorithm in all_members() {
            if let Some(bytes) = workspace_size(handle, tensors, conv, algorithm)? {
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
        let conv = convolution(conv_desc)?;
        if handle.is_null() || request_algo_count < 1 || returned_algo_count.is_null() || perf_results.is_null() {
            return Err(miopenStatus_t::miopenStatusBadParm);
        }
        if work_space.is_null() != (work_space_size == 0) {
            return Err(miopenStatus_t::miopenStatusBadParm);
        }
        let mut timings = Timings::default();
        for _ in 0..SEARCHES {
            let mut found = [CudnnFwdPerf::default(); CUDNN_ALGORITHMS];
            let mut count: c_int = 0;
            // SAFETY: live handle and descriptors; the buffers hold the
            // tensors (C contract); `found` holds every result; the
            // workspace holds its size.
            ok("cudnnFindConvolutionForwardAlgorithmEx", unsafe {
                (f.cudnnFindConvolutionForwardAlgorithmEx)(
                    handle.cast(),
                    xt.tensor,
                    x,
                    wt.filter,
                    w,
                    conv.desc,
                    yt.tensor,
                    y,
                    CUDNN_ALGORITHMS as c_int,
                    &mut count,
                    found.as_mut_ptr(),
                    work_space,
                    work_space_size,
                )
            })?;
            for perf in found.iter().take(usize::try_from(count).unwrap_or(0)) {
                if perf.status == 0 && perf.memory <= work_space_size {
                    timings.add(Timing { algorithm: perf.algo, time: perf.time, memory: perf.memory });
                }
            }
        }
        let problem = problem(xt, wt, yt);
        let capacity = usize::try_from(request_algo_count).unwrap_or(0);
        let mut reported: Vec<miopenConvFwdAlgorithm_t> = Vec::new();
        let ranked = timings.fastest_first();
        log::debug!(
            "MIOpen over cuDNN: the forward search for {problem:?} ranks (cuDNN algorithm, ms): {:?}",
            ranked.iter().map(|t| (t.algorithm, t.time)).collect::<Vec<_>>()
        );
        // Fastest first, so each family's first result is its fastest member.
        for perf in ranked {
            if reported.len() == capacity {
                break;
            }
            let Some(algorithm) = family(perf.algorithm) else { continue };
            if reported.contains(&algorithm) {
                continue;
            }
            conv.picks.record(problem, algorithm, perf.algorithm);
            let result = miopenConvAlgoPerf_t {
                algo: miopenConvAlgoPerf_algo { fwd_algo: algorithm },
                time: perf.time,
                memory: perf.memory,
            };
            // SAFETY: `perf_results` holds `request_algo_count` results (C contract).
            unsafe { perf_results.add(reported.len()).write(result) };
            reported.push(algorithm);
        }
        if reported.is_empty() {
            log::error!("MIOpen over cuDNN: no forward algorithm fits a workspace of {work_space_size} bytes");
            return Err(miopenStatus_t::miopenStatusUnknownError);
        }
        // SAFETY: non-null and valid for a write.
        unsafe { returned_algo_count.write(c_int::try_from(reported.len()).unwrap_or(c_int::MAX)) };
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
        let conv = convolution(conv_desc)?;
        if handle.is_null() {
            return Err(miopenStatus_t::miopenStatusBadParm);
        }
        let family = members(algo).ok_or(miopenStatus_t::miopenStatusBadParm)?;
        // SAFETY: MIOpen's host floats (C contract); the tensors are float.
        let (a, b) = unsafe { (Scalar::read(alpha, false)?, Scalar::read(beta, false)?) };
        if a.value() != 1.0 || b.value() != 0.0 {
            // MIOpen's 2-d forward convolution takes only alpha 1, beta 0.
            return Err(miopenStatus_t::miopenStatusNotImplemented);
        }
        if work_space.is_null() != (work_space_size == 0) {
            return Err(miopenStatus_t::miopenStatusBadParm);
        }
        let cudnn_algo = match conv.picks.get(&problem(xt, wt, yt), algo) {
            Some(picked) => picked,
            // No search on this descriptor for this problem: the first
            // member that applies and fits; cuDNN explains if none does.
            None => {
                let mut fitting = family[0];
                for &member in family {
                    if workspace_size(handle, (xt, wt, yt), conv, member)?.is_some_and(|b| b <= work_space_size) {
                        fitting = member;
                        break;
                    }
                }
                fitting
            }
        };
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
                conv.desc,
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
