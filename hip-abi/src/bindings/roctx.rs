//! ROCTx, AMD's code annotation API, the part this project calls: a
//! thread's nested ranges and marks (`roctx.h` of rocprofiler-sdk-roctx,
//! the same three functions as roctracer's older `libroctx64`), declared
//! by hand (three functions; Debian packages neither header).
//!
//! The facts, from the header: `roctxRangePushA` returns the 0-based
//! level the new range starts at; `roctxRangePop` returns the level the
//! range it stops was started at, or a negative value when the thread has
//! no range open; the messages are NUL-terminated and never null.
//! Ranges are per CPU thread. ROCTx API reference:
//! <https://rocm.docs.amd.com/projects/rocprofiler-sdk/en/latest/api-reference/rocprofiler-sdk-roctx_api_reference.html>.

use core::ffi::{c_char, c_int, c_void};

/// The functions of ROCTx that this project calls, as function pointers.
///
/// Every backend fills this same struct: the amd backend with the
/// symbols of `librocprofiler-sdk-roctx.so` (or `libroctx64.so`), the
/// nvidia backend with the functions an NVTX tool attached
/// (`nvtxMarkA`, `nvtxRangePushA`, `nvtxRangePop`, of the same C
/// signatures and return values), the simulator with Rust functions of
/// the same C signature that record into its timeline.
#[derive(Clone, Copy)]
pub struct RoctxApi {
    /// `void roctxMarkA(const char* message)`
    pub roctxMarkA: unsafe extern "C" fn(message: *const c_char),
    /// `int roctxRangePushA(const char* message)`
    pub roctxRangePushA: unsafe extern "C" fn(message: *const c_char) -> c_int,
    /// `int roctxRangePop(void)`
    pub roctxRangePop: unsafe extern "C" fn() -> c_int,
}

impl RoctxApi {
    /// The C symbol names, in field order.
    pub const SYMBOLS: &'static [&'static str] = &["roctxMarkA", "roctxRangePushA", "roctxRangePop"];

    /// Build the table by resolving each symbol of [`Self::SYMBOLS`].
    ///
    /// # Safety
    /// For every name, `resolve` must return a non-null pointer to a
    /// function with exactly the C signature declared for it here, valid
    /// for as long as the table is used.
    pub unsafe fn from_resolver<E>(
        mut resolve: impl FnMut(&'static str) -> Result<*const c_void, E>,
    ) -> Result<Self, E> {
        let [mark, push, pop] = [Self::SYMBOLS[0], Self::SYMBOLS[1], Self::SYMBOLS[2]];
        let (mark, push, pop) = (resolve(mark)?, resolve(push)?, resolve(pop)?);
        // SAFETY: each pointer is the named function, of the declared
        // signature (the caller's guarantee); function and data pointers
        // have one size.
        unsafe {
            Ok(RoctxApi {
                roctxMarkA: core::mem::transmute::<*const c_void, unsafe extern "C" fn(*const c_char)>(mark),
                roctxRangePushA: core::mem::transmute::<*const c_void, unsafe extern "C" fn(*const c_char) -> c_int>(
                    push,
                ),
                roctxRangePop: core::mem::transmute::<*const c_void, unsafe extern "C" fn() -> c_int>(pop),
            })
        }
    }
}

impl core::fmt::Debug for RoctxApi {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(f, "RoctxApi {{ {} functions }}", Self::SYMBOLS.len())
    }
}
