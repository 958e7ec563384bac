//! The simulator's events, call by call, against what real HIP (ROCm clr)
//! answers in the HIP major version simulated (`AMDGPU_SIM_HIP_VERSION`,
//! default 7): their flags, and events never recorded or not timed. Every
//! test holds `sim::exclusive()` and runs on a fresh thread.

mod common;
use common::*;
use hip_sys::bindings::hip::{hipError_t as E, hipEvent_t};
use std::ptr::null_mut;

// ---- 7. events -----------------------------------------------------------------

fn create_event(flags: u32) -> Result<hipEvent_t, E> {
    let mut e = null_mut();
    match status!((api().hipEventCreateWithFlags)(&mut e, flags)) {
        E::hipSuccess => Ok(e),
        status => Err(status),
    }
}

#[test]
fn event_flags_are_validated_as_clr_does() {
    isolated(|| {
        use hip_sys::bindings::hip::{
            hipEventBlockingSync as Blocking, hipEventDisableTiming as NoTiming, hipEventInterprocess as Ipc,
        };
        use hip_sys::{
            hipEventDisableSystemFence as NoFence, hipEventReleaseToDevice as ToDevice,
            hipEventReleaseToSystem as ToSystem,
        };
        for flags in [0, Blocking, NoTiming, Blocking | NoTiming, Ipc | NoTiming, NoFence, ToDevice, ToSystem] {
            let e = create_event(flags).unwrap_or_else(|s| panic!("flags {flags:#x}: {s:?}"));
            ok!((api().hipEventDestroy)(e));
        }
        for flags in [Ipc, Ipc | Blocking, ToDevice | ToSystem, NoFence | ToDevice, NoFence | ToSystem, 0x8, 0x100] {
            assert_eq!(create_event(flags).err(), Some(E::hipErrorInvalidValue), "flags {flags:#x}");
        }
        assert_eq!(status!((api().hipEventCreateWithFlags)(null_mut(), 0)), E::hipErrorInvalidValue);
    });
}

#[test]
fn unrecorded_and_untimed_events() {
    isolated(|| {
        let a = create_event(0).unwrap();
        let b = create_event(0).unwrap();
        ok!((api().hipEventQuery)(a));
        ok!((api().hipEventSynchronize)(a));
        let mut ms = 0f32;
        assert_eq!(status!((api().hipEventElapsedTime)(&mut ms, a, b)), E::hipErrorInvalidHandle);
        ok!((api().hipEventRecord)(a, null_mut()));
        assert_eq!(status!((api().hipEventElapsedTime)(&mut ms, a, b)), E::hipErrorInvalidHandle);
        ok!((api().hipEventRecord)(b, null_mut()));
        ok!((api().hipEventSynchronize)(b));
        ok!((api().hipEventElapsedTime)(&mut ms, a, b));
        ok!((api().hipEventElapsedTime)(&mut ms, a, a));
        assert_eq!(ms, 0.0);
        let untimed = create_event(hip_sys::bindings::hip::hipEventDisableTiming).unwrap();
        ok!((api().hipEventRecord)(untimed, null_mut()));
        ok!((api().hipEventSynchronize)(untimed));
        assert_eq!(status!((api().hipEventElapsedTime)(&mut ms, a, untimed)), E::hipErrorInvalidHandle);
        assert_eq!(status!((api().hipEventElapsedTime)(null_mut(), a, b)), E::hipErrorInvalidValue);
        assert_eq!(status!((api().hipEventElapsedTime)(&mut ms, null_mut(), b)), E::hipErrorInvalidHandle);
        for e in [a, b, untimed] {
            ok!((api().hipEventDestroy)(e));
        }
        assert_eq!(status!((api().hipEventDestroy)(null_mut())), E::hipErrorInvalidHandle);
        assert_eq!(status!((api().hipEventDestroy)(a)), E::hipErrorContextIsDestroyed);
        assert_eq!(status!((api().hipEventRecord)(null_mut(), null_mut())), E::hipErrorInvalidHandle);
    });
}

/// A completed event means its stream has got past it: with nothing
/// queued after the record, the stream is idle the moment a wait for the
/// event returns, as on a GPU (a window between the two broke a pool test).
#[test]
fn a_stream_is_idle_once_its_last_event_has_completed() {
    isolated(|| {
        let s = stream();
        let e = create_event(0).expect("an event");
        for i in 0..3000 {
            assert_eq!(status!((api().hipEventRecord)(e, s)), E::hipSuccess);
            assert_eq!(status!((api().hipEventSynchronize)(e)), E::hipSuccess);
            assert_eq!(status!((api().hipStreamQuery)(s)), E::hipSuccess, "iteration {i}: the stream is idle");
        }
        assert_eq!(status!((api().hipEventDestroy)(e)), E::hipSuccess);
        assert_eq!(status!((api().hipStreamDestroy)(s)), E::hipSuccess);
    });
}
