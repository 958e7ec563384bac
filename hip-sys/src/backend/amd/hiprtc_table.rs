//! What the amd table puts in front of AMD's hipRTC, so that no call
//! through it can crash the process:
//!
//! - **The portable prelude.** `hiprtcCreateProgram` adds the prelude's
//!   headers after the caller's ([`crate::prelude`]), as the nvidia
//!   backend's table does, so programs from the raw table get it too.
//! - **One call at a time.** hipRTC before ROCm 5.4 has no lock of its
//!   own (clr dropped its comgr lock once comgr locked internally): with
//!   hipRTC 5.2, a compilation beside another compilation aborts the
//!   process (`Option 'h' registered more than once`, `double free or
//!   corruption`), and `hiprtcAddNameExpression` beside a compilation
//!   segfaults. A process cannot tell a 5.2 hipRTC from a newer one
//!   (`hiprtcVersion` is 9.0 in all), so every function that touches a
//!   program takes the one lock of this module for its call. It costs
//!   parallel compilation on newer ROCm, never a crash on older;
//!   `hiprtcVersion` and `hiprtcGetErrorString` read constants and stay
//!   AMD's own.
//! - **Known processors.** hipRTC 5.x also aborts (`munmap_chunk():
//!   invalid pointer`) when an option names a processor its comgr does
//!   not know, so `hiprtcCompileProgram` answers such an option with
//!   `HIPRTC_ERROR_INVALID_OPTION` before AMD's function is called.
//!
//! A process keeps one AMD hipRTC, so the guards keep one real table.

use std::ffi::{c_char, c_int, CStr};
use std::sync::{Mutex, OnceLock};

use crate::hiprtc::{hiprtcProgram, hiprtcResult, HiprtcApi};
use crate::shared::compiler::CompilerKind;
use crate::shared::prelude::with_prelude;
use crate::sync::MutexExt;

/// AMD's own functions, behind the guards.
static REAL: OnceLock<HiprtcApi> = OnceLock::new();
/// The processors comgr knows (unset where comgr cannot list them: then
/// no processor is refused).
static PROCESSORS: OnceLock<&'static [&'static str]> = OnceLock::new();
/// Held by every guarded call for its duration.
static ONE_AT_A_TIME: Mutex<()> = Mutex::new(());

/// `api` with its program functions guarded, checking architecture
/// options against `processors` where comgr listed them. `None` where a
/// different hipRTC was guarded before in this process.
pub(super) fn guarded(api: HiprtcApi, processors: Option<&'static [&'static str]>) -> Option<HiprtcApi> {
    let real = REAL.get_or_init(|| api);
    if real.hiprtcCompileProgram as usize != api.hiprtcCompileProgram as usize {
        return None;
    }
    if let Some(list) = processors {
        let _ = PROCESSORS.set(list);
    }
    let mut api = api;
    api.hiprtcCreateProgram = hiprtcCreateProgram;
    api.hiprtcCompileProgram = hiprtcCompileProgram;
    one_at_a_time::install(&mut api);
    Some(api)
}

/// `hiprtcCreateProgram`: AMD's, under the lock, with the portable
/// prelude's headers after the caller's (those it does not give by name).
#[allow(non_snake_case)]
unsafe extern "C" fn hiprtcCreateProgram(
    prog: *mut hiprtcProgram,
    src: *const c_char,
    name: *const c_char,
    count: c_int,
    headers: *mut *const c_char,
    include_names: *mut *const c_char,
) -> hiprtcResult {
    let Some(real) = REAL.get() else { return hiprtcResult::HIPRTC_ERROR_INTERNAL_ERROR };
    // SAFETY: the caller's arrays of `count` entries (hipRTC's contract).
    let mut merged = match unsafe { with_prelude(CompilerKind::Hiprtc, count, headers, include_names) } {
        Ok(merged) => merged,
        Err(status) => return status,
    };
    let _one = ONE_AT_A_TIME.lock_unpoisoned();
    // SAFETY: the caller's out-pointer, source and name; the arrays hold
    // `merged.count()` NUL-terminated strings, alive for the call (hipRTC
    // copies them).
    unsafe {
        (real.hiprtcCreateProgram)(
            prog,
            src,
            name,
            merged.count(),
            merged.texts.as_mut_ptr(),
            merged.names.as_mut_ptr(),
        )
    }
}

/// The processor an architecture option names (`--offload-arch=gfx90a:xnack+`
/// and `--gpu-architecture=gfx90a` give `gfx90a`), if it is one.
fn named_processor(option: &[u8]) -> Option<&[u8]> {
    let value =
        [&b"--offload-arch="[..], b"--gpu-architecture="].iter().find_map(|prefix| option.strip_prefix(*prefix))?;
    Some(value.split(|b| *b == b':').next().unwrap_or(value))
}

/// `hiprtcCompileProgram`: AMD's, under the lock, after refusing an
/// option that names a processor comgr does not know.
#[allow(non_snake_case)]
unsafe extern "C" fn hiprtcCompileProgram(
    prog: hiprtcProgram,
    count: c_int,
    options: *mut *const c_char,
) -> hiprtcResult {
    let Some(real) = REAL.get() else { return hiprtcResult::HIPRTC_ERROR_INTERNAL_ERROR };
    if count > 0 && options.is_null() {
        return hiprtcResult::HIPRTC_ERROR_INVALID_INPUT;
    }
    let known = PROCESSORS.get().copied();
    for i in 0..usize::try_from(count).unwrap_or(0) {
        // SAFETY: the array holds `count` entries (hipRTC's contract).
        let option = unsafe { *options.add(i) };
        if option.is_null() {
            return hiprtcResult::HIPRTC_ERROR_INVALID_INPUT;
        }
        // SAFETY: a non-null option is NUL-terminated.
        let text = unsafe { CStr::from_ptr(option) }.to_bytes();
        if let (Some(known), Some(processor)) = (known, named_processor(text)) {
            if !known.iter().any(|k| k.as_bytes() == processor) {
                log::error!(
                    "hipRTC: {} names a processor this hipRTC's comgr does not know (it knows {}); refused",
                    String::from_utf8_lossy(text),
                    known.join(", ")
                );
                return hiprtcResult::HIPRTC_ERROR_INVALID_OPTION;
            }
        }
    }
    let _one = ONE_AT_A_TIME.lock_unpoisoned();
    // SAFETY: the caller's arguments, checked above, passed on.
    unsafe { (real.hiprtcCompileProgram)(prog, count, options) }
}

/// The functions that only take the lock around AMD's own, and
/// `install`, which puts them in a table.
macro_rules! only_locked {
    ($($name:ident($($arg:ident: $ty:ty),*);)*) => {
        $(
            #[doc = concat!("`", stringify!($name), "`: AMD's, under the lock.")]
            #[allow(non_snake_case)]
            pub(super) unsafe extern "C" fn $name($($arg: $ty),*) -> hiprtcResult {
                let Some(real) = REAL.get() else { return hiprtcResult::HIPRTC_ERROR_INTERNAL_ERROR };
                let _one = ONE_AT_A_TIME.lock_unpoisoned();
                // SAFETY: the caller's arguments, passed on to AMD's
                // function of the same signature.
                unsafe { (real.$name)($($arg),*) }
            }
        )*

        /// Puts this module's functions in `api`.
        pub(super) fn install(api: &mut HiprtcApi) {
            $(api.$name = $name;)*
        }
    };
}

mod one_at_a_time {
    use std::ffi::c_char;

    use super::{MutexExt, ONE_AT_A_TIME, REAL};
    use crate::hiprtc::{hiprtcProgram, hiprtcResult, HiprtcApi};

    only_locked! {
        hiprtcDestroyProgram(prog: *mut hiprtcProgram);
        hiprtcAddNameExpression(prog: hiprtcProgram, name_expression: *const c_char);
        hiprtcGetLoweredName(prog: hiprtcProgram, name_expression: *const c_char, lowered: *mut *const c_char);
        hiprtcGetProgramLogSize(prog: hiprtcProgram, size: *mut usize);
        hiprtcGetProgramLog(prog: hiprtcProgram, log: *mut c_char);
        hiprtcGetCodeSize(prog: hiprtcProgram, size: *mut usize);
        hiprtcGetCode(prog: hiprtcProgram, code: *mut c_char);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn architecture_options_name_their_processor() {
        assert_eq!(named_processor(b"--offload-arch=gfx942:sramecc+:xnack-"), Some(&b"gfx942"[..]));
        assert_eq!(named_processor(b"--gpu-architecture=gfx90a"), Some(&b"gfx90a"[..]));
        assert_eq!(named_processor(b"-O3"), None);
    }
}
