//! Handles: `miopenGetVersion`, `miopenCreate`, `miopenDestroy` and a
//! handle's stream.

use super::objects::*;
use super::status::*;
use super::{Kind, OBJECTS};
use crate::bindings::miopen::*;
use crate::library::{call, write_out};
use crate::machine::sim;
use crate::machine::thread::current_device;
use crate::machine::violations;

pub(crate) unsafe extern "C" fn miopenGetVersion(major: *mut usize, minor: *mut usize, patch: *mut usize) -> Status {
    call("miopenGetVersion", OK, INTERNAL, || {
        let (a, b, c) = VERSION;
        // SAFETY: null pointers are ignored, as MIOpen documents; others
        // are valid per the C contract.
        unsafe {
            for (out, value) in [(major, a), (minor, b), (patch, c)] {
                if !out.is_null() {
                    out.write(value);
                }
            }
        }
        Ok(())
    })
}

pub(crate) unsafe extern "C" fn miopenCreate(handle: *mut miopenHandle_t) -> Status {
    call("miopenCreate", OK, INTERNAL, || {
        if handle.is_null() {
            return Err(BAD_PARM);
        }
        if sim().device(current_device()).is_none() {
            return Err(miopenStatus_t::miopenStatusNotInitialized);
        }
        // MIOpen's handle makes a rocBLAS handle and a hipBLASLt handle
        // (its handlehip.cpp), and rocBLAS's allocates with hipMalloc: a
        // capture refuses (and from HIP 6 is invalidated) as that call
        // would, and MIOpen reports the failure as an internal error.
        crate::machine::capture::check_allocation().map_err(|_| INTERNAL)?;
        let h = OBJECTS.insert(Kind::DnnHandle(Handle { stream: 0, invokers: Vec::new() }));
        // SAFETY: checked non-null; valid per the C contract.
        unsafe { write_out(handle, h as miopenHandle_t, BAD_PARM) }
    })
}

pub(crate) unsafe extern "C" fn miopenDestroy(handle: miopenHandle_t) -> Status {
    call("miopenDestroy", OK, INTERNAL, || {
        let object = OBJECTS.remove_if(handle as usize, |k| matches!(k, Kind::DnnHandle(_))).ok_or(BAD_PARM)?;
        violations::check("miopenDestroy", object.device);
        Ok(())
    })
}

pub(crate) unsafe extern "C" fn miopenSetStream(handle: miopenHandle_t, stream: miopenAcceleratorQueue_t) -> Status {
    call("miopenSetStream", OK, INTERNAL, || {
        handle_target("miopenSetStream", handle)?;
        OBJECTS.with(handle as usize, |o| {
            if let Kind::DnnHandle(h) = &mut o.kind {
                h.stream = stream as usize;
            }
        });
        Ok(())
    })
}

pub(crate) unsafe extern "C" fn miopenGetStream(
    handle: miopenHandle_t,
    stream: *mut miopenAcceleratorQueue_t,
) -> Status {
    call("miopenGetStream", OK, INTERNAL, || {
        let device = OBJECTS
            .with(handle as usize, |o| match &o.kind {
                Kind::DnnHandle(h) => Some((o.device, h.stream)),
                _ => None,
            })
            .flatten()
            .ok_or(BAD_PARM)?;
        violations::check("miopenGetStream", device.0);
        // SAFETY: null is refused; otherwise valid per the C contract.
        unsafe { write_out(stream, device.1 as miopenAcceleratorQueue_t, BAD_PARM) }
    })
}
