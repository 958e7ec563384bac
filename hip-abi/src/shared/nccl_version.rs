//! NCCL's version codes, read by every backend's RCCL loader.

/// Whether an `ncclGetVersion` code is an API this crate's table fits.
pub fn supported_version(code: i32) -> bool {
    let (major, minor) = split_version(code);
    major == 2 && minor >= 13
}

/// An `ncclGetVersion` code as (major, minor): `X*1000 + Y*100 + Z` up to
/// 2.8, `X*10000 + Y*100 + Z` after (NCCL's `NCCL_VERSION`).
pub fn split_version(code: i32) -> (i32, i32) {
    if code < 10_000 {
        (code / 1000, code / 100 % 10)
    } else {
        (code / 10_000, code / 100 % 100)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn versions_read_both_encodings() {
        assert_eq!(split_version(2804), (2, 8));
        assert_eq!(split_version(21304), (2, 13));
        assert_eq!(split_version(22805), (2, 28));
        assert!(supported_version(21304) && supported_version(22805));
        assert!(!supported_version(21204) && !supported_version(2804) && !supported_version(30001));
    }
}
