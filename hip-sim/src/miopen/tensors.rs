//! 4-d tensor descriptors: creating, setting and destroying them.

use super::objects::*;
use super::status::*;
use super::{Kind, OBJECTS};
use crate::bindings::miopen::*;
use crate::library::{call, write_out, Real};
use std::ffi::c_int;

pub(crate) unsafe extern "C" fn miopenCreateTensorDescriptor(desc: *mut miopenTensorDescriptor_t) -> Status {
    call("miopenCreateTensorDescriptor", OK, INTERNAL, || {
        if desc.is_null() {
            return Err(BAD_PARM);
        }
        let h = OBJECTS.insert(Kind::Tensor(Tensor { shape: None }));
        // SAFETY: checked non-null; valid per the C contract.
        unsafe { write_out(desc, h as miopenTensorDescriptor_t, BAD_PARM) }
    })
}

pub(crate) unsafe extern "C" fn miopenSet4dTensorDescriptor(
    desc: miopenTensorDescriptor_t,
    data_type: miopenDataType_t,
    n: c_int,
    c: c_int,
    h: c_int,
    w: c_int,
) -> Status {
    call("miopenSet4dTensorDescriptor", OK, INTERNAL, || {
        let real = match data_type {
            miopenDataType_t::miopenFloat => Real::F32,
            miopenDataType_t::miopenDouble => Real::F64,
            _ => return Err(NOT_IMPLEMENTED),
        };
        let dims = [n, c, h, w].map(|d| usize::try_from(d).ok().filter(|d| *d > 0));
        let [Some(n), Some(c), Some(h), Some(w)] = dims else {
            return Err(BAD_PARM);
        };
        OBJECTS
            .with(desc as usize, |o| match &mut o.kind {
                Kind::Tensor(t) => {
                    t.shape = Some(([n, c, h, w], real));
                    true
                }
                _ => false,
            })
            .filter(|found| *found)
            .map(drop)
            .ok_or(BAD_PARM)
    })
}

pub(crate) unsafe extern "C" fn miopenDestroyTensorDescriptor(desc: miopenTensorDescriptor_t) -> Status {
    call("miopenDestroyTensorDescriptor", OK, INTERNAL, || {
        OBJECTS.remove_if(desc as usize, |k| matches!(k, Kind::Tensor(_))).map(drop).ok_or(BAD_PARM)
    })
}
