//! The code object of a program compiled for the CPU, as hipRTC hands it
//! out and `hipModuleLoadData` takes it: a text header, then the shared
//! object's bytes.
//!
//! ```text
//! hip-sim-cpu-object v1
//! length 123456
//!
//! <123456 bytes>
//! ```

/// The first line.
pub const HEADER: &str = "hip-sim-cpu-object v1\n";

/// The code object of the shared object `so`.
pub fn encode(so: &[u8]) -> Vec<u8> {
    let mut out = format!("{HEADER}length {}\n\n", so.len()).into_bytes();
    out.extend_from_slice(so);
    out
}

/// Whether `image` starts a CPU code object: its first bytes are
/// [`HEADER`] (read no further than a NUL or the header's length).
///
/// # Safety
/// `image` points at bytes that are readable up to a NUL or for the
/// header's length, whichever comes first.
pub unsafe fn is_object(image: *const u8) -> bool {
    for (i, expected) in HEADER.bytes().enumerate() {
        // SAFETY: the bytes before this one matched the header, so none
        // was a NUL: this one is readable (the caller's guarantee).
        if unsafe { *image.add(i) } != expected {
            return false;
        }
    }
    true
}

/// The shared object of the code object at `image`; `None` for a header
/// that does not parse.
///
/// # Safety
/// `image` is a code object for which [`is_object`] holds, whole: its
/// header's length line and that many bytes after it are readable.
pub unsafe fn shared_object<'a>(image: *const u8) -> Option<&'a [u8]> {
    let mut at = HEADER.len();
    let mut digits = String::new();
    // "length N\n\n"
    for expected in "length ".bytes() {
        // SAFETY: inside the header the caller vouches for; a mismatch
        // stops the read.
        if unsafe { *image.add(at) } != expected {
            return None;
        }
        at += 1;
    }
    loop {
        // SAFETY: as above: the digits end with a newline.
        let b = unsafe { *image.add(at) };
        at += 1;
        match b {
            b'0'..=b'9' if digits.len() < 12 => digits.push(char::from(b)),
            b'\n' => break,
            _ => return None,
        }
    }
    // SAFETY: as above.
    if unsafe { *image.add(at) } != b'\n' {
        return None;
    }
    let len: usize = digits.parse().ok()?;
    // SAFETY: the caller guarantees the `len` bytes after the header.
    Some(unsafe { std::slice::from_raw_parts(image.add(at + 1), len) })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_code_object_round_trips_and_others_are_told_apart() {
        let code = encode(b"\x7fELF and more");
        // SAFETY: a whole code object.
        unsafe {
            assert!(is_object(code.as_ptr()));
            assert_eq!(shared_object(code.as_ptr()), Some(&b"\x7fELF and more"[..]));
            assert!(!is_object(c"hip-sim-code-object v1\n".as_ptr().cast()));
            assert!(!is_object(c"hip".as_ptr().cast()));
        }
    }
}
