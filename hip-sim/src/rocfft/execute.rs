//! `rocfft_execute`: a plan's transforms, queued on the execution info's
//! stream, overwriting inputs where rocFFT may.

use super::plans::{plan_of, Transform};
use super::setup::cleanups;
use super::status::*;
use super::transform::{reals_per_transform, run};
use super::version::rocfft_version;
use super::{Kind, OBJECTS};
use crate::bindings::rocfft::*;
use crate::library::{accesses, call, span, Real};
use crate::machine::violations::AccessKind;
use crate::{submit, targets};
use std::ffi::c_void;

pub(crate) unsafe extern "C" fn rocfft_execute(
    plan: rocfft_plan,
    in_buffer: *mut *mut c_void,
    out_buffer: *mut *mut c_void,
    info: rocfft_execution_info,
) -> Status {
    call("rocfft_execute", OK, FAILURE, || {
        let (device, p) = plan_of("rocfft_execute", plan)?;
        if p.epoch != cleanups() {
            log::warn!(
                "hip simulator: rocfft_execute on a plan made before (or while) rocfft_cleanup ran: rocFFT freed \
                 its twiddle tables; destroy it and make a new plan"
            );
            return Err(FAILURE);
        }
        let (stream, work, work_size) = if info.is_null() {
            (0, 0, 0)
        } else {
            OBJECTS
                .with(info as usize, |o| match &o.kind {
                    Kind::Info(i) => Some((i.stream, i.work, i.work_size)),
                    _ => None,
                })
                .flatten()
                .ok_or(INVALID_ARG)?
        };
        let work_span = if p.work > 0 {
            if work_size < p.work {
                return Err(INVALID_WORK_BUFFER);
            }
            Some(span(work, p.work).ok_or(INVALID_WORK_BUFFER)?)
        } else {
            None
        };
        if in_buffer.is_null() || (!p.in_place && out_buffer.is_null()) {
            return Err(INVALID_ARG);
        }
        // SAFETY: non-null arrays holding at least one buffer pointer
        // (interleaved layouts have one), per the C contract.
        let (input, output) = unsafe { (*in_buffer as usize, if p.in_place { 0 } else { *out_buffer as usize }) };
        let (in_reals, out_reals) = reals_per_transform(&p);
        let size = p.real.size();
        let (in_span, out_span) = if p.in_place {
            let s = span(input, size * p.batch * in_reals.max(out_reals)).ok_or(INVALID_ARG)?;
            (s.clone(), s)
        } else {
            (
                span(input, size * p.batch * in_reals).ok_or(INVALID_ARG)?,
                span(output, size * p.batch * out_reals).ok_or(INVALID_ARG)?,
            )
        };
        let target = if stream == 0 {
            targets::null_target(device).map_err(|_| FAILURE)?
        } else {
            targets::target(stream as crate::bindings::hip::hipStream_t).map_err(|_| INVALID_ARG)?
        };
        if target.device != device {
            return Err(INVALID_ARG);
        }
        // Where rocFFT may use the input as scratch space, so does this.
        let scribble = !p.in_place
            && match p.transform {
                Transform::RealInverse => true,
                Transform::RealForward => rocfft_version().r2c_may_overwrite_input(),
                Transform::Forward | Transform::Inverse => false,
            };
        // In place, or where it scribbles on it, the input is written too.
        let input_kind = if p.in_place || scribble { AccessKind::Write } else { AccessKind::Read };
        let mut used = vec![(&in_span, input_kind)];
        if !p.in_place {
            used.push((&out_span, AccessKind::Write));
        }
        used.extend(work_span.iter().map(|w| (w, AccessKind::Write)));
        let op = submit::Op::with("rocfft_execute", accesses(used));
        submit::submit(&target, false, op, move || {
            // In place, each transform's input and output start at the same
            // place, at the larger of the two distances.
            let dists =
                if p.in_place { (in_reals.max(out_reals), in_reals.max(out_reals)) } else { (in_reals, out_reals) };
            match p.real {
                Real::F32 => run::<f32>(&p, &in_span, &out_span, dists, in_reals)?,
                Real::F64 => run::<f64>(&p, &in_span, &out_span, dists, in_reals)?,
            }
            if scribble {
                in_span.write(p.real, 0, &vec![f64::NAN; p.batch * in_reals])?;
            }
            Ok(())
        })
        .map_err(|_| FAILURE)
    })
}
