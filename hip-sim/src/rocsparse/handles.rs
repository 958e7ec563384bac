//! Handles and descriptors: `rocsparse_get_version`, creating and
//! destroying handles and descriptors, and a handle's stream and pointer
//! mode.

use super::objects::*;
use super::status::*;
use super::{Kind, OBJECTS};
use crate::bindings::rocsparse::*;
use crate::library::{call, write_out};
use crate::machine::thread::current_device;
use crate::machine::violations;
use crate::rocsparse_mode::rocsparse_version;
use std::ffi::{c_int, c_void};

pub(crate) unsafe extern "C" fn rocsparse_get_version(handle: rocsparse_handle, version: *mut c_int) -> Status {
    call("rocsparse_get_version", OK, INTERNAL, || {
        handle_device("rocsparse_get_version", handle)?;
        let encoded: c_int = rocsparse_version().encoded();
        // SAFETY: null is refused; otherwise valid per the C contract.
        unsafe { write_out(version, encoded, INVALID_POINTER) }
    })
}

pub(crate) unsafe extern "C" fn rocsparse_create_handle(handle: *mut rocsparse_handle) -> Status {
    call("rocsparse_create_handle", OK, INTERNAL, || {
        if handle.is_null() {
            return Err(INVALID_HANDLE);
        }
        // rocSPARSE's handle makes its buffers with five hipMalloc and ends
        // with a hipStreamSynchronize: a capture refuses (and, from HIP 6,
        // is invalidated) as by the first hipMalloc; the library reports
        // the failed HIP call as an internal error.
        crate::machine::capture::check_allocation().map_err(|_| INTERNAL)?;
        let device = current_device();
        let memory = allocate_all(device, std::iter::once(HANDLE_BUFFER).chain(HANDLE_SCALARS))?;
        let h = OBJECTS.insert(Kind::SparseHandle(Handle { stream: 0, memory }));
        // SAFETY: checked non-null; valid per the C contract.
        unsafe { write_out(handle, h as rocsparse_handle, INVALID_HANDLE) }
    })
}

pub(crate) unsafe extern "C" fn rocsparse_destroy_handle(handle: rocsparse_handle) -> Status {
    call("rocsparse_destroy_handle", OK, INTERNAL, || {
        let object =
            OBJECTS.remove_if(handle as usize, |k| matches!(k, Kind::SparseHandle(_))).ok_or(INVALID_HANDLE)?;
        violations::check("rocsparse_destroy_handle", object.device);
        if let Kind::SparseHandle(h) = &object.kind {
            release_all(object.device, &h.memory);
        }
        Ok(())
    })
}

pub(crate) unsafe extern "C" fn rocsparse_set_stream(
    handle: rocsparse_handle,
    stream: crate::bindings::hip::hipStream_t,
) -> Status {
    call("rocsparse_set_stream", OK, INTERNAL, || {
        handle_device("rocsparse_set_stream", handle)?;
        OBJECTS.with(handle as usize, |o| {
            if let Kind::SparseHandle(h) = &mut o.kind {
                h.stream = stream as usize;
            }
        });
        Ok(())
    })
}

pub(crate) unsafe extern "C" fn rocsparse_get_stream(
    handle: rocsparse_handle,
    stream: *mut crate::bindings::hip::hipStream_t,
) -> Status {
    call("rocsparse_get_stream", OK, INTERNAL, || {
        handle_device("rocsparse_get_stream", handle)?;
        let s = OBJECTS
            .with(handle as usize, |o| match &o.kind {
                Kind::SparseHandle(h) => h.stream,
                _ => 0,
            })
            .unwrap_or(0);
        // SAFETY: null is refused; otherwise valid per the C contract.
        unsafe { write_out(stream, s as crate::bindings::hip::hipStream_t, INVALID_POINTER) }
    })
}

pub(crate) unsafe extern "C" fn rocsparse_set_pointer_mode(
    handle: rocsparse_handle,
    mode: rocsparse_pointer_mode,
) -> Status {
    call("rocsparse_set_pointer_mode", OK, INTERNAL, || {
        handle_device("rocsparse_set_pointer_mode", handle)?;
        match mode {
            rocsparse_pointer_mode::rocsparse_pointer_mode_host => Ok(()),
            rocsparse_pointer_mode::rocsparse_pointer_mode_device => Err(NOT_IMPLEMENTED),
            _ => Err(INVALID_VALUE),
        }
    })
}

// ---- descriptors -----------------------------------------------------------

pub(crate) unsafe extern "C" fn rocsparse_create_csr_descr(
    descr: *mut rocsparse_spmat_descr,
    rows: i64,
    cols: i64,
    nnz: i64,
    csr_row_ptr: *mut c_void,
    csr_col_ind: *mut c_void,
    csr_val: *mut c_void,
    row_ptr_type: rocsparse_indextype,
    col_ind_type: rocsparse_indextype,
    idx_base: rocsparse_index_base,
    data_type: rocsparse_datatype,
) -> Status {
    call("rocsparse_create_csr_descr", OK, INTERNAL, || {
        if descr.is_null() {
            return Err(INVALID_POINTER);
        }
        let (rows, cols, nnz) = (size_of(rows)?, size_of(cols)?, size_of(nnz)?);
        if nnz > rows.saturating_mul(cols) {
            return Err(INVALID_SIZE);
        }
        if csr_row_ptr.is_null() || (nnz > 0 && (csr_col_ind.is_null() || csr_val.is_null())) {
            return Err(INVALID_POINTER);
        }
        let base = match idx_base {
            rocsparse_index_base::rocsparse_index_base_zero => 0,
            rocsparse_index_base::rocsparse_index_base_one => 1,
            _ => return Err(INVALID_VALUE),
        };
        let i32_type = rocsparse_indextype::rocsparse_indextype_i32;
        if row_ptr_type != i32_type || col_ind_type != i32_type {
            return Err(NOT_IMPLEMENTED);
        }
        let real = real_of(data_type)?;
        let matrix = SpMat {
            rows,
            cols,
            nnz,
            row_ptr: csr_row_ptr as usize,
            col_ind: csr_col_ind as usize,
            values: csr_val as usize,
            base,
            real,
            analysed: false,
            analysis: None,
        };
        let h = OBJECTS.insert(Kind::SpMat(matrix));
        // SAFETY: checked non-null; valid per the C contract.
        unsafe { write_out(descr, h as rocsparse_spmat_descr, INVALID_POINTER) }
    })
}

pub(crate) unsafe extern "C" fn rocsparse_destroy_spmat_descr(descr: rocsparse_spmat_descr) -> Status {
    call("rocsparse_destroy_spmat_descr", OK, INTERNAL, || {
        let object = OBJECTS.remove_if(descr as usize, |k| matches!(k, Kind::SpMat(_))).ok_or(INVALID_POINTER)?;
        if let Kind::SpMat(SpMat { analysis: Some(a), .. }) = &object.kind {
            release_all(a.memory.0, &[a.memory.1]);
        }
        Ok(())
    })
}

pub(crate) unsafe extern "C" fn rocsparse_create_dnvec_descr(
    descr: *mut rocsparse_dnvec_descr,
    size: i64,
    values: *mut c_void,
    data_type: rocsparse_datatype,
) -> Status {
    call("rocsparse_create_dnvec_descr", OK, INTERNAL, || {
        if descr.is_null() {
            return Err(INVALID_POINTER);
        }
        let size = size_of(size)?;
        if size > 0 && values.is_null() {
            return Err(INVALID_POINTER);
        }
        let real = real_of(data_type)?;
        let h = OBJECTS.insert(Kind::DnVec(DnVec { size, values: values as usize, real }));
        // SAFETY: checked non-null; valid per the C contract.
        unsafe { write_out(descr, h as rocsparse_dnvec_descr, INVALID_POINTER) }
    })
}

pub(crate) unsafe extern "C" fn rocsparse_destroy_dnvec_descr(descr: rocsparse_dnvec_descr) -> Status {
    call("rocsparse_destroy_dnvec_descr", OK, INTERNAL, || {
        OBJECTS.remove_if(descr as usize, |k| matches!(k, Kind::DnVec(_))).map(drop).ok_or(INVALID_POINTER)
    })
}

pub(crate) unsafe extern "C" fn rocsparse_create_dnmat_descr(
    descr: *mut rocsparse_dnmat_descr,
    rows: i64,
    cols: i64,
    ld: i64,
    values: *mut c_void,
    data_type: rocsparse_datatype,
    order: rocsparse_order,
) -> Status {
    call("rocsparse_create_dnmat_descr", OK, INTERNAL, || {
        if descr.is_null() {
            return Err(INVALID_POINTER);
        }
        let (rows, cols, ld) = (size_of(rows)?, size_of(cols)?, size_of(ld)?);
        let row_major = match order {
            rocsparse_order::rocsparse_order_row => true,
            rocsparse_order::rocsparse_order_column => false,
            _ => return Err(INVALID_VALUE),
        };
        if ld < if row_major { cols } else { rows } {
            return Err(INVALID_SIZE);
        }
        if rows > 0 && cols > 0 && values.is_null() {
            return Err(INVALID_POINTER);
        }
        let real = real_of(data_type)?;
        let h = OBJECTS.insert(Kind::DnMat(DnMat { rows, cols, ld, values: values as usize, real, row_major }));
        // SAFETY: checked non-null; valid per the C contract.
        unsafe { write_out(descr, h as rocsparse_dnmat_descr, INVALID_POINTER) }
    })
}

pub(crate) unsafe extern "C" fn rocsparse_destroy_dnmat_descr(descr: rocsparse_dnmat_descr) -> Status {
    call("rocsparse_destroy_dnmat_descr", OK, INTERNAL, || {
        OBJECTS.remove_if(descr as usize, |k| matches!(k, Kind::DnMat(_))).map(drop).ok_or(INVALID_POINTER)
    })
}
