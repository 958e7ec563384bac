//! IPC on the simulator between two real processes: the test exports
//! device memory and an event, and reruns its own binary as the other
//! process (`SIM_IPC_ROLE`, the handles in hex in the environment), which
//! opens them, orders its work after the exporter's recording without a
//! host synchronize, and records in turn; and clr's rules and codes for
//! every misuse (a handle opened in its own process, wrong flags for the
//! HIP version, a zeroed handle, double closes, the same handle opened
//! twice, handles of freed memory and of destroyed events, events that
//! were not made for IPC, pool memory).

mod common;

use common::*;
use hip_sys::bindings::hip::{hipError_t, hipEvent_t, hipIpcEventHandle_t, hipIpcMemHandle_t, hipMemcpyKind};
use hip_sys::sim;
use std::ffi::c_void;
use std::ptr::null_mut;

const ROLE: &str = "SIM_IPC_ROLE";

/// `hipIpcMemLazyEnablePeerAccess` of the simulated HIP version: 0 before
/// HIP 6, 1 after.
fn lazy() -> u32 {
    u32::from(hip_major() >= 6)
}

fn hex(bytes: &[std::ffi::c_char; 64]) -> String {
    bytes.iter().map(|b| format!("{:02x}", *b as u8)).collect()
}

fn unhex(text: &str) -> [std::ffi::c_char; 64] {
    let mut out = [0; 64];
    for (i, byte) in out.iter_mut().enumerate() {
        *byte = u8::from_str_radix(&text[2 * i..2 * i + 2], 16).expect("hex") as std::ffi::c_char;
    }
    out
}

/// Run this test again as the other process, with `role` and the handles.
fn other_process(test: &str, role: &str, memory: &hipIpcMemHandle_t, event: &hipIpcEventHandle_t) {
    let (memory, event) = (hex(&memory.reserved), hex(&event.reserved));
    let env = [(ROLE, role), ("SIM_IPC_MEMORY", memory.as_str()), ("SIM_IPC_EVENT", event.as_str())];
    let (status, text) = child_process(test, &env);
    assert!(status.success(), "the other process ({role}) failed:\n{text}");
    assert!(text.contains("1 passed"), "the other process ran the test:\n{text}");
}

fn handles() -> (hipIpcMemHandle_t, hipIpcEventHandle_t) {
    let var = |name: &str| std::env::var(name).expect("set by the parent");
    (
        hipIpcMemHandle_t { reserved: unhex(&var("SIM_IPC_MEMORY")) },
        hipIpcEventHandle_t { reserved: unhex(&var("SIM_IPC_EVENT")) },
    )
}

fn ipc_event() -> hipEvent_t {
    let mut event = null_mut();
    let flags = hip_sys::bindings::hip::hipEventInterprocess | hip_sys::bindings::hip::hipEventDisableTiming;
    ok!((api().hipEventCreateWithFlags)(&mut event, flags));
    event
}

/// The exporter fills memory on a stream and records an event after it;
/// the other process opens both, waits for the event on its own stream
/// (no host synchronize), reads what the exporter wrote, writes its own
/// bytes and records the event; the exporter waits for that recording
/// and reads them. An opened handle is the allocation's base; the
/// exported pointer's offset is the opener's to add.
#[test]
fn memory_and_an_event_cross_between_processes() {
    const TEST: &str = "memory_and_an_event_cross_between_processes";
    let api = api();
    if std::env::var(ROLE).as_deref() == Ok("reader") {
        let (memory, event_handle) = handles();
        set_device(0);
        let mut base: *mut c_void = null_mut();
        ok!((api.hipIpcOpenMemHandle)(&mut base, memory, lazy()));
        let mut again: *mut c_void = null_mut();
        ok!((api.hipIpcOpenMemHandle)(&mut again, memory, lazy()));
        assert_eq!(base, again, "the same handle opens at the same address");
        // The allocation's base, as on clr and CUDA: the exporter's offset
        // is the opener's to add.
        let opened = base.cast::<u8>().wrapping_add(4096).cast::<c_void>();
        let mut event: hipEvent_t = null_mut();
        ok!((api.hipIpcOpenEventHandle)(&mut event, event_handle));
        let s = stream();
        ok!((api.hipStreamWaitEvent)(s, event, 0));
        let mut seen = [0u8; 16];
        ok!((api.hipMemcpyAsync)(seen.as_mut_ptr().cast(), opened, 16, hipMemcpyKind::hipMemcpyDeviceToHost, s));
        ok!((api.hipStreamSynchronize)(s));
        assert_eq!(seen, [9; 16], "the exporter's write, ordered by its event");
        ok!((api.hipMemsetAsync)(opened, 5, 16, s));
        ok!((api.hipEventRecord)(event, s));
        ok!((api.hipStreamSynchronize)(s));
        ok!((api.hipIpcCloseMemHandle)(base));
        ok!((api.hipIpcCloseMemHandle)(again));
        assert_eq!(status!((api.hipIpcCloseMemHandle)(base)), hipError_t::hipErrorInvalidValue, "closed twice");
        ok!((api.hipEventDestroy)(event));
        return;
    }
    if std::env::var(ROLE).is_ok() {
        return;
    }
    let _x = sim::exclusive();
    set_device(0);
    let memory = malloc(1 << 16);
    ok!((api.hipMemset)(memory, 0, 1 << 16));
    let exported = memory.cast::<u8>().wrapping_add(4096).cast::<c_void>();
    let s = stream();
    let event = ipc_event();
    // The write runs well after the other process has queued its read: a
    // read not ordered by the event would see zeros.
    extern "C" fn nap(_: *mut c_void) {
        std::thread::sleep(std::time::Duration::from_millis(300));
    }
    ok!((api.hipLaunchHostFunc)(s, Some(nap), null_mut()));
    ok!((api.hipMemsetAsync)(exported, 9, 16, s));
    ok!((api.hipEventRecord)(event, s));
    let mut memory_handle = hipIpcMemHandle_t::default();
    ok!((api.hipIpcGetMemHandle)(&mut memory_handle, exported));
    let mut event_handle = hipIpcEventHandle_t::default();
    ok!((api.hipIpcGetEventHandle)(&mut event_handle, event));
    other_process(TEST, "reader", &memory_handle, &event_handle);
    ok!((api.hipEventSynchronize)(event));
    let mut seen = [0u8; 16];
    ok!((api.hipMemcpy)(seen.as_mut_ptr().cast(), exported, 16, hipMemcpyKind::hipMemcpyDeviceToHost));
    assert_eq!(seen, [5; 16], "the other process's write, at the exported offset");
    ok!((api.hipEventDestroy)(event));
    ok!((api.hipFree)(memory));
}

/// clr's codes for what cannot be shared or opened.
#[test]
fn misuse_is_refused_with_clrs_codes() {
    const TEST: &str = "misuse_is_refused_with_clrs_codes";
    let api = api();
    if std::env::var(ROLE).as_deref() == Ok("late") {
        let (memory, event_handle) = handles();
        set_device(0);
        let mut opened: *mut c_void = null_mut();
        assert_eq!(
            status!((api.hipIpcOpenMemHandle)(&mut opened, memory, lazy())),
            hipError_t::hipErrorInvalidDevicePointer,
            "a handle of freed memory does not attach"
        );
        let mut event: hipEvent_t = null_mut();
        assert_eq!(
            status!((api.hipIpcOpenEventHandle)(&mut event, event_handle)),
            hipError_t::hipErrorInvalidValue,
            "the event of a destroyed handle's shared memory is gone"
        );
        return;
    }
    if std::env::var(ROLE).is_ok() {
        return;
    }
    let _x = sim::exclusive();
    set_device(0);
    let memory = malloc(4096);
    let mut handle = hipIpcMemHandle_t::default();
    assert_eq!(status!((api.hipIpcGetMemHandle)(null_mut(), memory)), hipError_t::hipErrorInvalidValue);
    assert_eq!(status!((api.hipIpcGetMemHandle)(&mut handle, null_mut())), hipError_t::hipErrorInvalidValue);
    let mut host = [0u8; 8];
    assert_eq!(
        status!((api.hipIpcGetMemHandle)(&mut handle, host.as_mut_ptr().cast())),
        hipError_t::hipErrorInvalidValue,
        "host memory is no device allocation"
    );
    ok!((api.hipIpcGetMemHandle)(&mut handle, memory));
    let mut opened: *mut c_void = null_mut();
    assert_eq!(
        status!((api.hipIpcOpenMemHandle)(&mut opened, handle, lazy())),
        hipError_t::hipErrorInvalidContext,
        "opened in the exporting process"
    );
    assert_eq!(
        status!((api.hipIpcOpenMemHandle)(&mut opened, handle, 1 - lazy())),
        hipError_t::hipErrorInvalidValue,
        "the other HIP version's flag value"
    );
    assert_eq!(status!((api.hipIpcOpenMemHandle)(null_mut(), handle, lazy())), hipError_t::hipErrorInvalidValue);
    assert_eq!(
        status!((api.hipIpcOpenMemHandle)(&mut opened, hipIpcMemHandle_t::default(), lazy())),
        hipError_t::hipErrorInvalidValue,
        "a zeroed handle has no size"
    );
    assert_eq!(status!((api.hipIpcCloseMemHandle)(memory)), hipError_t::hipErrorInvalidValue, "never opened");
    assert_eq!(status!((api.hipIpcCloseMemHandle)(null_mut())), hipError_t::hipErrorInvalidValue);

    let plain = event();
    let mut event_handle = hipIpcEventHandle_t::default();
    assert_eq!(
        status!((api.hipIpcGetEventHandle)(&mut event_handle, plain)),
        hipError_t::hipErrorInvalidConfiguration,
        "an event not made for IPC"
    );
    let shared = ipc_event();
    ok!((api.hipIpcGetEventHandle)(&mut event_handle, shared));
    let mut opened_event: hipEvent_t = null_mut();
    assert_eq!(
        status!((api.hipIpcOpenEventHandle)(&mut opened_event, event_handle)),
        hipError_t::hipErrorInvalidContext,
        "opened in the exporting process"
    );
    assert_eq!(status!((api.hipIpcOpenEventHandle)(null_mut(), event_handle)), hipError_t::hipErrorInvalidValue);

    let mut pooled: *mut c_void = null_mut();
    let s = stream();
    ok!((api.hipMallocAsync)(&mut pooled, 4096, s));
    assert_eq!(
        status!((api.hipIpcGetMemHandle)(&mut handle, pooled)),
        hipError_t::hipErrorInvalidValue,
        "stream-ordered pool memory"
    );
    ok!((api.hipFreeAsync)(pooled, s));
    ok!((api.hipStreamSynchronize)(s));

    // Freed memory and a destroyed event: their handles stop opening.
    let mut freed_handle = hipIpcMemHandle_t::default();
    ok!((api.hipIpcGetMemHandle)(&mut freed_handle, memory));
    ok!((api.hipFree)(memory));
    ok!((api.hipEventDestroy)(shared));
    other_process(TEST, "late", &freed_handle, &event_handle);
    ok!((api.hipEventDestroy)(plain));
}
