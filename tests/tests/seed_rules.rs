//! The four rules of the design, each shown by a test that fails if the
//! rule breaks. They need a backend with two or more devices (the
//! simulator has two by default); with fewer they say so and pass.
//! Context violations can only be counted on the simulator.

use hip_core::{
    default_device, device, prepare_state, raw, set_default_device, set_device, stream, thread_state_exists,
    with_device, with_stream, Device, Event, Stream,
};
use hip_sys::{sim, Backend};

mod common;
use common::{on_thread, violations_of};

/// Two devices and the simulator lock, or `None` (with a note) if the
/// backend has fewer than two devices.
fn two_devices() -> Option<(Device, Device, sim::Exclusive)> {
    let guard = sim::exclusive();
    if Device::count().unwrap_or(0) < 2 {
        eprintln!("skipped: needs two devices; {:?} has fewer", hip_sys::backend());
        return None;
    }
    Some((Device::new(0).unwrap(), Device::new(1).unwrap(), guard))
}

fn assert_audit_clean() {
    let hits = hip_core::audit::hits();
    assert!(hits.is_empty(), "thread-state accesses inside drops: {hits:?}");
}

// ---- rule 1: a drop never touches thread state -------------------------------

#[test]
fn resources_of_device_1_dropped_on_a_device_0_thread() {
    let Some((d0, d1, _x)) = two_devices() else {
        return;
    };
    let (s, e) = on_thread("maker", move || (Stream::new_on(d1).unwrap(), Event::new_on(d1).unwrap()));
    on_thread("dropper", move || {
        set_device(d0).unwrap();
        drop(s);
        drop(e);
        assert_eq!(device(), d0);
        assert_eq!(raw::hip_current_device().unwrap(), d0, "HIP's own device is restored too");
    });
    assert_eq!(violations_of("dropper"), []);
    assert_audit_clean();
}

#[test]
fn a_drop_creates_no_thread_state() {
    let Some((_, d1, _x)) = two_devices() else {
        return;
    };
    let s = Stream::new_on(d1).unwrap();
    let e = Event::new_on(d1).unwrap();
    on_thread("fresh-dropper", move || {
        assert!(!thread_state_exists());
        drop(s);
        drop(e);
        assert!(!thread_state_exists(), "the drop created thread state");
    });
    assert_eq!(violations_of("fresh-dropper"), []);
}

#[test]
fn a_pending_hip_error_survives_a_drop() {
    let Some((_, d1, _x)) = two_devices() else {
        return;
    };
    let s = Stream::new_on(d1).unwrap();
    on_thread("pending", move || {
        let api = hip_sys::hip().unwrap();
        // SAFETY: an out-of-range ordinal is a plain error.
        let status = unsafe { (api.hipSetDevice)(9999) };
        assert_eq!(status, hip_sys::hipError_t::hipErrorInvalidDevice);
        let reads = || {
            ["hipGetLastError", "hipPeekAtLastError"].iter().map(|f| hip_sys::sim::thread_call_count(f)).sum::<u64>()
        };
        let before = reads();
        drop(s);
        if hip_sys::backend() == Backend::Sim {
            assert_eq!(reads(), before, "the drop read the thread's last error");
        }
        if hip_sys::last_error_is_sticky() {
            // HIP 7 and CUDA: the drop's successful calls leave it in place.
            let pending = hip_core::take_last_error().unwrap().expect("the error is still pending");
            assert_eq!(pending.code(), Some(hip_sys::hipError_t::hipErrorInvalidDevice));
        }
    });
}

// ---- rule 2: scoped switches always restore -----------------------------------

#[test]
fn with_device_on_a_fresh_thread_restores_the_default() {
    let Some((_, d1, _x)) = two_devices() else {
        return;
    };
    let default = default_device();
    on_thread("fresh-scoped", move || {
        with_device(d1, || {
            assert_eq!(device(), d1);
            assert_eq!(raw::hip_current_device().unwrap(), d1);
        });
        assert_eq!(device(), default);
        assert_eq!(raw::hip_current_device().unwrap(), default);
    });
    on_thread("fresh-panic", move || {
        let caught = std::panic::catch_unwind(|| with_device(d1, || panic!("inside")));
        assert!(caught.is_err());
        assert_eq!(device(), default);
        assert_eq!(raw::hip_current_device().unwrap(), default);
    });
}

#[test]
fn with_stream_installs_the_stream_and_restores_the_previous() {
    let Some((d0, d1, _x)) = two_devices() else {
        return;
    };
    on_thread("scoped-stream", move || {
        set_device(d0).unwrap();
        let before = stream();
        let mine = Stream::new_on(d1).unwrap();
        with_stream(&mine, || {
            assert_eq!(stream(), mine);
            assert_eq!(device(), d1);
            let inner = Stream::new_on(d1).unwrap();
            with_stream(&inner, || assert_eq!(stream(), inner));
            assert_eq!(stream(), mine);
        });
        assert_eq!(device(), d0);
        assert_eq!(stream(), before);
        let caught = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| with_stream(&mine, || panic!("x"))));
        assert!(caught.is_err());
        assert_eq!(stream(), before);
    });
}

// ---- rule 3: the process default device is explicit ---------------------------

#[test]
fn set_device_on_a_spawned_thread_leaves_the_default_alone() {
    let Some((d0, d1, _x)) = two_devices() else {
        return;
    };
    let default = default_device();
    on_thread("mover", move || set_device(d1).unwrap());
    assert_eq!(default_device(), default);
    assert_eq!(on_thread("next", device), default);

    let other = if default == d0 { d1 } else { d0 };
    let old = on_thread("old", move || {
        let seen = device(); // has state before the change
        let (tx, rx) = std::sync::mpsc::channel::<()>();
        let waiter = std::thread::spawn(move || rx.recv());
        set_default_device(other).unwrap();
        let _ = tx.send(());
        let _ = waiter.join();
        (seen, device())
    });
    assert_eq!(old, (default, default), "a thread with state keeps its device");
    assert_eq!(on_thread("new", device), other, "threads started after it begin on the new default");
    set_default_device(default).unwrap();
}

// ---- rule 4 and the fast path --------------------------------------------------

#[test]
fn device_operations_take_their_device_explicitly() {
    let Some((d0, d1, _x)) = two_devices() else {
        return;
    };
    on_thread("explicit", move || {
        set_device(d0).unwrap();
        d1.synchronize().unwrap();
        let (free, total) = d1.mem_info().unwrap();
        assert!(free <= total && total > 0);
        assert_eq!(device(), d0);
        assert_eq!(raw::hip_current_device().unwrap(), d0);
    });
    assert_eq!(violations_of("explicit"), []);
}

#[test]
fn prepare_state_on_a_bound_thread_makes_no_hip_call() {
    let Some((_, d1, _x)) = two_devices() else {
        return;
    };
    if hip_sys::backend() != Backend::Sim {
        eprintln!("skipped: counting HIP calls needs the simulator");
        return;
    }
    on_thread("fast-path", move || {
        set_device(d1).unwrap();
        prepare_state().unwrap();
        let before: u64 = hip_sys::HipApi::SYMBOLS.iter().map(|f| sim::thread_call_count(f)).sum();
        for _ in 0..1000 {
            assert_eq!(prepare_state().unwrap(), d1);
        }
        let after: u64 = hip_sys::HipApi::SYMBOLS.iter().map(|f| sim::thread_call_count(f)).sum();
        assert_eq!(after, before, "the fast path called HIP");
    });
}

#[test]
fn a_bad_ordinal_names_the_ordinal_and_the_count() {
    let count = Device::count().unwrap();
    let error = Device::new(count + 3).unwrap_err();
    let text = error.to_string();
    assert!(text.contains(&(count + 3).to_string()) && text.contains(&count.to_string()), "{text}");
    assert_eq!(error.code(), Some(hip_sys::hipError_t::hipErrorInvalidDevice));
}

#[test]
fn event_record_on_another_devices_stream_is_a_typed_error() {
    let Some((d0, d1, _x)) = two_devices() else {
        return;
    };
    let e = Event::new_on(d1).unwrap();
    let s = Stream::new_on(d0).unwrap();
    let error = e.record(&s).unwrap_err();
    assert_eq!(common::mismatch(error.device_mismatch()), Some(("the stream", 1, 0)), "{error}");
    let s1 = Stream::new_on(d1).unwrap();
    let start = Event::new_on(d1).unwrap();
    start.record(&s1).unwrap();
    e.record(&s1).unwrap();
    e.synchronize().unwrap();
    assert!(e.query().unwrap());
    let _elapsed = e.elapsed_since(&start).unwrap();
}

#[test]
fn many_threads_switching_and_dropping_across_threads() {
    let Some((_, _, _x)) = two_devices() else {
        return;
    };
    let devices = Device::all().unwrap();
    let (tx, rx) = std::sync::mpsc::channel::<(Stream, Event)>();
    let rx = std::sync::Arc::new(std::sync::Mutex::new(rx));
    let workers: Vec<_> = (0..8)
        .map(|t| {
            let devices = devices.clone();
            let tx = tx.clone();
            let rx = rx.clone();
            std::thread::Builder::new()
                .name(format!("switcher-{t}"))
                .spawn(move || {
                    let home = devices[t % devices.len()];
                    set_device(home).unwrap();
                    for i in 0..40 {
                        let target = devices[(t + i) % devices.len()];
                        with_device(target, || {
                            assert_eq!(device(), target);
                            let s = stream();
                            assert_eq!(s.device(), target);
                            let e = Event::new().unwrap();
                            e.record(&s).unwrap();
                            tx.send((Stream::new().unwrap(), e)).unwrap();
                        });
                        assert_eq!(device(), home);
                        // Drop something another thread made, maybe on another device.
                        if let Ok(pair) = rx.lock().unwrap().try_recv() {
                            drop(pair);
                        }
                        assert_eq!(raw::hip_current_device().unwrap(), home);
                    }
                })
                .unwrap()
        })
        .collect();
    drop(tx);
    for w in workers {
        w.join().expect("a switcher failed");
    }
    let leftover: Vec<_> = rx.lock().unwrap().try_iter().collect();
    drop(leftover);
    if hip_sys::backend() == Backend::Sim {
        let bad: Vec<_> = sim::violations().into_iter().filter(|v| v.thread.starts_with("switcher-")).collect();
        assert_eq!(bad, []);
    }
    assert_audit_clean();
}

#[test]
fn an_exited_threads_stream_is_reused_not_destroyed() {
    let Some((_, d1, _x)) = two_devices() else {
        return;
    };
    let first = on_thread("first-user", move || {
        set_device(d1).unwrap();
        stream().as_raw() as usize
    });
    let second = on_thread("second-user", move || {
        set_device(d1).unwrap();
        stream().as_raw() as usize
    });
    assert_eq!(first, second, "the second thread took the first one's stream");
    assert_eq!(violations_of("first-user"), []);
}
