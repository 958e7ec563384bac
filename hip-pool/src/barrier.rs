//! An asymmetric memory barrier: a free light side for the hot path and a
//! heavy side, run rarely, that makes every thread of the process act as if
//! its light side had been a full `SeqCst` fence.
//!
//! On Linux the heavy side is `membarrier(MEMBARRIER_CMD_PRIVATE_EXPEDITED)`
//! (the kernel runs a full barrier on every running thread of the process;
//! a thread that is not running passes one when it is scheduled again),
//! registered once per process with
//! `MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED`. The light side is then only
//! a compiler fence. Where the registration fails (old kernels, sandboxes,
//! other systems), both sides are `SeqCst` fences: slower, equally correct.
//!
//! `AMDGPU_POOL_FENCE=1` forces the fence mode (to test it where
//! membarrier works). The mode is chosen once, by [`light_is_fence`]'s
//! first call, which every pool's creation makes (the registration may
//! take milliseconds, and a drop must not), before any light side runs,
//! and never changes.

use std::sync::atomic::{compiler_fence, fence, Ordering};
use std::sync::OnceLock;

/// How the light side works, chosen once.
static MEMBARRIER: OnceLock<bool> = OnceLock::new();

#[cfg(target_os = "linux")]
mod sys {
    // From <linux/membarrier.h>.
    const MEMBARRIER_CMD_QUERY: libc::c_int = 0;
    const MEMBARRIER_CMD_PRIVATE_EXPEDITED: libc::c_int = 1 << 3;
    const MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED: libc::c_int = 1 << 4;

    fn membarrier(cmd: libc::c_int) -> libc::c_long {
        // SAFETY: membarrier(2) takes (cmd, flags, cpu_id) integers and
        // touches no memory of ours; an unknown command is an error return.
        unsafe { libc::syscall(libc::SYS_membarrier, cmd, 0 as libc::c_uint, 0 as libc::c_int) }
    }

    /// Register for expedited private barriers; whether they are usable.
    pub fn register() -> bool {
        let supported = membarrier(MEMBARRIER_CMD_QUERY);
        if supported < 0 || supported & libc::c_long::from(MEMBARRIER_CMD_PRIVATE_EXPEDITED) == 0 {
            return false;
        }
        membarrier(MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED) == 0
    }

    /// A full barrier on every thread of the process.
    pub fn heavy() -> bool {
        membarrier(MEMBARRIER_CMD_PRIVATE_EXPEDITED) == 0
    }
}

#[cfg(not(target_os = "linux"))]
mod sys {
    pub fn register() -> bool {
        false
    }
    pub fn heavy() -> bool {
        false
    }
}

/// Whether the light side must be a real `SeqCst` fence (no membarrier).
/// Call it before a thread's first [`light`]; the answer never changes.
pub fn light_is_fence() -> bool {
    !*MEMBARRIER.get_or_init(|| std::env::var_os("AMDGPU_POOL_FENCE").is_none_or(|v| v != "1") && sys::register())
}

/// Whether the mode has been chosen (by a pool's creation, in practice).
#[cfg(test)]
pub fn chosen() -> bool {
    MEMBARRIER.get().is_some()
}

/// The light side, with the mode from [`light_is_fence`].
#[inline(always)]
pub fn light(fenced: bool) {
    if fenced {
        fence(Ordering::SeqCst);
    } else {
        compiler_fence(Ordering::SeqCst);
    }
}

/// The heavy side: after it returns, every light side that ran before it
/// acted as a `SeqCst` fence ordered before this one, and every later one
/// after it. `false` if the barrier failed (then nothing is promised about
/// light sides that were only compiler fences).
#[must_use]
pub fn heavy() -> bool {
    fence(Ordering::SeqCst);
    // Choosing the mode here too means no thread can start using compiler
    // fences between this check and the barrier below.
    let done = if light_is_fence() { true } else { sys::heavy() };
    fence(Ordering::SeqCst);
    done
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_heavy_side_works_in_the_chosen_mode() {
        let fenced = super::light_is_fence();
        println!("light side is a {}", if fenced { "SeqCst fence" } else { "compiler fence (membarrier)" });
        super::light(fenced);
        assert!(super::heavy());
    }
}
