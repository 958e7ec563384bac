//! Arrays shared with another process through `DeviceArray::ipc_handle`
//! and `open_ipc`: the test reruns its own binary as the other process
//! (`AMDGPU_TESTS_IPC_ROLE`, the handle in hex), which opens the array,
//! reads what the exporter queued (ordered by the handle's event), and
//! writes back through an IPC event the exporter waits for; and the
//! refusals (a handle of this process, a length that is no whole number
//! of the element type, corrupt bytes).

use amdgpu::ipc::{IpcEventHandle, IpcHandle};
use amdgpu::prelude::*;
use amdgpu::Event;
use hip_sys::sim;

mod common;

const ROLE: &str = "AMDGPU_TESTS_IPC_ROLE";

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

fn unhex(text: &str) -> Vec<u8> {
    (0..text.len() / 2).map(|i| u8::from_str_radix(&text[2 * i..2 * i + 2], 16).unwrap()).collect()
}

#[test]
fn an_array_and_an_event_cross_to_another_process() {
    let var = |name: &str| unhex(&std::env::var(name).unwrap());
    if std::env::var(ROLE).is_ok() {
        let handle = IpcHandle::from_bytes(&var("IPC_ARRAY")).unwrap();
        let back = IpcEventHandle(var("IPC_EVENT").try_into().unwrap());
        let stream = Stream::new().unwrap();
        let mut opened = DeviceArray::<f32>::open_ipc(&handle, &stream).unwrap();
        assert_eq!(opened.to_vec().unwrap(), [1.5; 1024], "the exporter's queued upload");
        opened.copy_from_slice(&[2.5; 1024]).unwrap();
        // Tell the exporter, through its event, that the write is done.
        let done = Event::open_ipc(stream.device(), &back).unwrap();
        done.record(&stream).unwrap();
        stream.synchronize().unwrap();
        return;
    }
    let _x = sim::exclusive();
    let stream = Stream::new().unwrap();
    let mut array = DeviceArray::<f32>::zeros_on(&stream, 1024).unwrap();
    let upload = vec![1.5f32; 1024];
    array.copy_from_slice(&upload).unwrap();
    let handle = array.ipc_handle().unwrap();
    let done = Event::interprocess_on(stream.device()).unwrap();
    let (array_hex, event_hex) = (hex(&handle.to_bytes()), hex(&done.ipc_handle().unwrap().0));
    let backend = hip_sys::backend().to_string();
    // An expandable pool's array goes by descriptor, which the other
    // process takes from this one: allowed under Yama's ptrace_scope 1.
    amdgpu::ipc::allow_openers().unwrap();
    common::rerun_this_test(
        "an_array_and_an_event_cross_to_another_process",
        &[
            (ROLE, "other".as_ref()),
            ("IPC_ARRAY", array_hex.as_ref()),
            ("IPC_EVENT", event_hex.as_ref()),
            ("AMDGPU_BACKEND", backend.as_ref()),
        ],
    );
    stream.wait(&done).unwrap();
    assert_eq!(array.to_vec().unwrap(), [2.5; 1024], "the other process's write, after its event");
    drop(array);
    assert_eq!(amdgpu::ipc::collect(), 0, "closed by the other process: the memory went back");
}

#[test]
fn refusals_say_why() {
    if std::env::var(ROLE).is_ok() {
        return;
    }
    let _x = sim::exclusive();
    let stream = Stream::new().unwrap();
    let array = DeviceArray::from_slice(&[1u8, 2, 3]).unwrap();
    let handle = array.ipc_handle().unwrap();
    let own = DeviceArray::<u8>::open_ipc(&handle, &stream).unwrap_err();
    assert!(own.to_string().contains("made by this process"), "{own}");
    let odd = DeviceArray::<f32>::open_ipc(&handle, &stream).unwrap_err();
    assert!(odd.to_string().contains("no whole number of f32"), "{odd}");
    let mut bytes = handle.to_bytes();
    bytes.truncate(bytes.len() - 1);
    assert!(IpcHandle::from_bytes(&bytes).is_err(), "a cut handle");
    assert!(DeviceArray::<u8>::from_slice(&[]).unwrap().ipc_handle().is_err(), "an empty array");
}
