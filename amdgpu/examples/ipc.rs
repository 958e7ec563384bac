//! Two processes work on one array in place, with no copy, through IPC.
//!
//! ```text
//! cargo run --example ipc
//! ```
//!
//! The producer (this program) uploads `0, 1, …, n-1` and shares the
//! array's memory (`DeviceArray::ipc_handle`). The consumer (this program
//! run again, the handle's bytes in an environment variable) opens it
//! (`DeviceArray::open_ipc`), and its stream waits on the GPU for the
//! producer's upload. It doubles the values with rocBLAS `scal` and
//! records an event made for IPC, whose handle it sends back on its
//! output. The producer's stream waits for that event, again on the GPU,
//! and reads the doubled values. No host synchronize orders the two
//! processes; the bytes of the handles go through a pipe.
//!
//! The consumer keeps its event alive until the producer says it is done
//! with it (a line on the consumer's input). Its array closes the shared
//! memory when it drops; the producer's array gives its memory back to the
//! pool only then.

use amdgpu::ipc::{IpcEventHandle, IpcHandle};
use amdgpu::prelude::*;
use std::io::{BufRead, BufReader, Write};
use std::process::{Command, Stdio};

/// Where the consumer finds the array's handle, in hex.
const HANDLE: &str = "AMDGPU_IPC_EXAMPLE_HANDLE";
/// Elements of the shared array.
const N: usize = 1 << 20;

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

fn unhex(text: &str) -> Option<Vec<u8>> {
    (0..text.len() / 2).map(|i| u8::from_str_radix(text.get(2 * i..2 * i + 2)?, 16).ok()).collect()
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    match std::env::var(HANDLE) {
        Ok(handle) => consumer(&handle),
        Err(_) => producer(),
    }
}

fn producer() -> Result<(), Box<dyn std::error::Error>> {
    let values: Vec<f32> = (0..N).map(|i| i as f32).collect();
    let array = DeviceArray::from_slice(&values)?;
    let handle = array.ipc_handle()?;
    println!("producer {}: shared {N} f32 on {}", std::process::id(), array.device());
    let mut consumer = Command::new(std::env::current_exe()?)
        .env(HANDLE, hex(&handle.to_bytes()))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()?;
    let mut to = consumer.stdin.take().ok_or("the consumer's input")?;
    let mut from = BufReader::new(consumer.stdout.take().ok_or("the consumer's output")?);
    let mut line = String::new();
    from.read_line(&mut line)?;
    let bytes =
        unhex(line.trim()).and_then(|b| <[u8; 64]>::try_from(b).ok()).ok_or("no event handle from the consumer")?;
    // The consumer's doubling comes before the producer's read, on the GPU.
    let doubled = Event::open_ipc(array.device(), &IpcEventHandle(bytes))?;
    array.stream().wait(&doubled)?;
    let back = array.to_vec()?;
    writeln!(to, "done")?;
    let status = consumer.wait()?;
    if !status.success() {
        return Err(format!("the consumer failed: {status}").into());
    }
    let wrong = back.iter().enumerate().filter(|(i, v)| **v != 2.0 * *i as f32).count();
    println!("producer: read the consumer's work in place: {} values, {wrong} wrong", back.len());
    if wrong > 0 {
        return Err("the consumer's values did not come back".into());
    }
    Ok(())
}

fn consumer(handle: &str) -> Result<(), Box<dyn std::error::Error>> {
    let handle = IpcHandle::from_bytes(&unhex(handle).ok_or("a handle that is no hex")?)?;
    let device = Device::new(handle.device())?;
    let stream = Stream::new_on(device)?;
    // Waits on the GPU for the producer's upload.
    let mut array = DeviceArray::<f32>::open_ipc(&handle, &stream)?;
    amdgpu::blas::scal(2.0f32, &mut array)?;
    let doubled = Event::interprocess_on(device)?;
    doubled.record(&stream)?;
    eprintln!("consumer {}: opened {} f32, doubled them", std::process::id(), array.len());
    println!("{}", hex(&doubled.ipc_handle()?.0));
    std::io::stdout().flush()?;
    // The event lives until the producer has waited for it.
    let mut line = String::new();
    std::io::stdin().lock().read_line(&mut line)?;
    drop(array);
    Ok(())
}
