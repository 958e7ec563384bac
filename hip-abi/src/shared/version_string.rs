//! rocBLAS's and rocSOLVER's version-string pair (`*_get_version_string_size`,
//! `*_get_version_string`), answered the same way by every backend that
//! provides the libraries itself: a null pointer is `invalid_pointer`, a
//! buffer too short for the text and its NUL `invalid_size`.

use crate::rocblas::rocblas_status;
use std::ffi::c_char;

/// Write the length of `text` with its NUL through `len`.
///
/// # Safety
/// `len` is null or valid for a write.
pub unsafe fn size(text: &str, len: *mut usize) -> Result<(), rocblas_status> {
    if len.is_null() {
        return Err(rocblas_status::rocblas_status_invalid_pointer);
    }
    // SAFETY: non-null, valid for a write (the caller's guarantee).
    unsafe { len.write(text.len() + 1) };
    Ok(())
}

/// Write `text` and its NUL into the `len` bytes at `buf`.
///
/// # Safety
/// `buf` is null or valid for writes of `len` bytes.
pub unsafe fn write(text: &str, buf: *mut c_char, len: usize) -> Result<(), rocblas_status> {
    if buf.is_null() {
        return Err(rocblas_status::rocblas_status_invalid_pointer);
    }
    if len < text.len() + 1 {
        return Err(rocblas_status::rocblas_status_invalid_size);
    }
    // SAFETY: `buf` holds `len` bytes, enough for the text and its NUL.
    unsafe {
        std::ptr::copy_nonoverlapping(text.as_ptr().cast::<c_char>(), buf, text.len());
        buf.add(text.len()).write(0);
    }
    Ok(())
}
