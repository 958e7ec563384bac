//! `hip_core::raw::run_on`: a call under an explicit device that trusts
//! the crate's record of HIP's current device. On the recorded device it
//! makes no HIP call; anywhere else (another device, a thread without
//! state, inside `raw::on_device`'s switch) HIP ends up on the device asked
//! for and comes back. `raw::on_device`, what drops use, asks HIP instead,
//! so it stays right after foreign code moved HIP's device.

use hip_core::raw::run_on;
use hip_core::raw::{hip_current_device, on_device};
use hip_core::{set_device, thread_state_exists, Device};
use hip_sys::{sim, Backend};

fn hip_calls() -> u64 {
    hip_sys::HipApi::SYMBOLS.iter().map(|f| sim::thread_call_count(f)).sum()
}

fn two_devices() -> Option<(Device, Device)> {
    (Device::count().unwrap() >= 2).then(|| (Device::new(0).unwrap(), Device::new(1).unwrap()))
}

#[test]
fn on_the_bound_device_it_makes_no_hip_call() {
    std::thread::spawn(|| {
        let d0 = Device::new(0).unwrap();
        set_device(d0).unwrap();
        let before = hip_calls();
        let inside = run_on(d0, || 7).unwrap();
        if hip_sys::backend() == Backend::Sim {
            assert_eq!(hip_calls(), before, "run_on on the bound device asked HIP");
        }
        assert_eq!(inside, 7);
        assert_eq!(hip_current_device().unwrap(), d0);
    })
    .join()
    .unwrap();
}

#[test]
fn on_another_device_it_switches_and_restores() {
    let Some((d0, d1)) = two_devices() else {
        eprintln!("skipped: needs two devices");
        return;
    };
    std::thread::spawn(move || {
        set_device(d0).unwrap();
        assert_eq!(run_on(d1, || hip_current_device().unwrap()).unwrap(), d1);
        assert_eq!(hip_current_device().unwrap(), d0);
        assert_eq!(hip_core::device(), d0);
    })
    .join()
    .unwrap();
}

#[test]
fn inside_an_on_device_switch_it_follows_the_switch() {
    let Some((d0, d1)) = two_devices() else {
        eprintln!("skipped: needs two devices");
        return;
    };
    std::thread::spawn(move || {
        set_device(d0).unwrap();
        // The thread is on d0, but HIP is on d1 for the closure.
        let seen = on_device(d1, || {
            let back = run_on(d0, || hip_current_device().unwrap()).unwrap();
            (back, hip_current_device().unwrap())
        })
        .unwrap();
        assert_eq!(seen, (d0, d1), "run_on inside a switch: where it ran, and where it left HIP");
        assert_eq!(hip_current_device().unwrap(), d0);
    })
    .join()
    .unwrap();
}

#[test]
fn a_thread_without_state_gets_none() {
    std::thread::spawn(|| {
        let d0 = Device::new(0).unwrap();
        let binds = sim::thread_call_count("hipSetDevice");
        assert_eq!(run_on(d0, || hip_current_device().unwrap()).unwrap(), d0);
        if hip_sys::backend() == Backend::Sim {
            // No record yet: HIP is asked, and it is on d0 already.
            assert_eq!(sim::thread_call_count("hipSetDevice"), binds, "run_on bound the device HIP was on");
        }
        assert!(!thread_state_exists(), "run_on created thread state");
    })
    .join()
    .unwrap();
}

#[test]
fn on_device_asks_hip_after_foreign_code_moved_it() {
    let Some((d0, d1)) = two_devices() else {
        eprintln!("skipped: needs two devices");
        return;
    };
    std::thread::spawn(move || {
        set_device(d0).unwrap();
        let api = hip_sys::hip().unwrap();
        // SAFETY: a valid ordinal. Foreign code that breaks the rule of
        // restoring HIP's device.
        assert_eq!(unsafe { (api.hipSetDevice)(d1.ordinal() as i32) }, hip_sys::hipError_t::hipSuccess);
        // What a drop does: it must land on d0 although the record says d0.
        assert_eq!(on_device(d0, || hip_current_device().unwrap()).unwrap(), d0);
        assert_eq!(hip_current_device().unwrap(), d1, "on_device restores what it found");
    })
    .join()
    .unwrap();
}

#[test]
fn with_device_inside_an_on_device_switch_gives_hip_back_to_the_switch() {
    let Some((d0, d1)) = two_devices() else {
        eprintln!("skipped: needs two devices");
        return;
    };
    std::thread::spawn(move || {
        set_device(d0).unwrap();
        // A closure run under d1 (what `with_raw_handle` hands user code)
        // that switches the thread to d0 and back.
        let after = on_device(d1, || {
            hip_core::with_device(d0, || assert_eq!(hip_current_device().unwrap(), d0));
            hip_current_device().unwrap()
        })
        .unwrap();
        assert_eq!(after, d1, "with_device left HIP on the thread's device inside a switch to another");
        assert_eq!(hip_current_device().unwrap(), d0);
        assert_eq!(hip_core::device(), d0);
    })
    .join()
    .unwrap();
}
