//! Buffers of the pool shared with another process: the test shares a
//! buffer and reruns its own binary as the other process (`POOL_IPC_ROLE`,
//! the handle in hex), which opens it, reads the exporter's queued write
//! (ordered by the handle's event, no host synchronize), writes its own
//! and closes; the exporter's block is kept while the other process has it
//! open and given back once it closed or died; and shares that follow
//! one another, whose IPC events are used again on both sides; finished
//! shares go back at the shares that follow and before an allocation
//! runs out of memory.

use hip_core::{Device, Stream};
use hip_pool::ipc::{self, IpcHandle};
use hip_pool::{Pool, Strategy};
use hip_sys::sim;
use std::io::{BufRead, BufReader, Write};
use std::process::{Command, Stdio};

const ROLE: &str = "POOL_IPC_ROLE";

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

fn unhex(text: &str) -> Vec<u8> {
    (0..text.len() / 2).map(|i| u8::from_str_radix(&text[2 * i..2 * i + 2], 16).unwrap()).collect()
}

fn read(buffer: &hip_pool::Buffer) -> Vec<u8> {
    buffer.stream().synchronize().unwrap();
    let mut out = vec![0u8; buffer.len()];
    // SAFETY: `len` bytes each side.
    unsafe { hip_core::raw::mem::copy(buffer.device(), out.as_mut_ptr().cast(), buffer.as_ptr(), buffer.len()) }
        .unwrap();
    out
}

/// Run this test as the other process with `role`, the handle, and
/// `wait` (a file the child waits for before it closes, or empty).
fn spawn(role: &str, handle: &IpcHandle, wait: &str) -> std::process::Child {
    Command::new(std::env::current_exe().unwrap())
        .args(["--exact", "a_shared_buffer_is_opened_by_another_process_and_kept_while_it_is", "--test-threads=1"])
        .env(ROLE, role)
        .env("POOL_IPC_HANDLE", hex(&handle.to_bytes()))
        .env("POOL_IPC_WAIT", wait)
        .env("AMDGPU_BACKEND", hip_sys::backend().to_string())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap()
}

fn the_other_process(role: &str) {
    let handle = IpcHandle::from_bytes(&unhex(&std::env::var("POOL_IPC_HANDLE").unwrap())).unwrap();
    let device = Device::new(0).unwrap();
    let stream = Stream::new_on(device).unwrap();
    let opened = ipc::open(&handle, &stream).unwrap();
    assert_eq!(opened.len(), handle.len());
    assert!(read(&opened).iter().all(|b| *b == 7), "the exporter's write, ordered by the handle's event");
    // SAFETY: the opened buffer's bytes, waited for below.
    unsafe { hip_core::raw::mem::fill_async(device, opened.as_ptr(), 3, opened.len(), stream.as_raw()) }.unwrap();
    stream.synchronize().unwrap();
    let wait = std::env::var("POOL_IPC_WAIT").unwrap_or_default();
    // Never long: a parent that failed leaves no process behind.
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
    while !wait.is_empty() && !std::path::Path::new(&wait).exists() && std::time::Instant::now() < deadline {
        std::thread::sleep(std::time::Duration::from_millis(5));
    }
    if role == "crash" {
        // Dies with the memory open: its ledger entry must not keep the
        // exporter's block forever.
        std::process::exit(0);
    }
    drop(opened);
}

#[test]
fn a_shared_buffer_is_opened_by_another_process_and_kept_while_it_is() {
    if let Ok(role) = std::env::var(ROLE) {
        return the_other_process(&role);
    }
    let _x = sim::exclusive();
    let device = Device::new(0).unwrap();
    let pool = Pool::new(device, Strategy::Cached).unwrap();
    let stream = Stream::new_on(device).unwrap();
    for role in ["close", "crash"] {
        let buffer = pool.alloc(1 << 16, &stream).unwrap();
        let address = buffer.as_ptr();
        // The write the other process must see: queued, not waited for.
        // SAFETY: the buffer's bytes, alive past the fill.
        unsafe { hip_core::raw::mem::fill_async(device, buffer.as_ptr(), 7, buffer.len(), stream.as_raw()) }.unwrap();
        let handle = ipc::share(&buffer).unwrap();
        let gate = std::env::temp_dir().join(format!("pool-ipc-gate-{}-{role}", std::process::id()));
        let _ = std::fs::remove_file(&gate);
        let mut child = spawn(role, &handle, gate.to_str().unwrap());
        // Wait until the other process has it open.
        while ipc::importers(&handle) == 0 {
            if child.try_wait().unwrap().is_some() {
                let out = child.wait_with_output().unwrap();
                panic!("the other process ended early: {}", String::from_utf8_lossy(&out.stderr));
            }
            std::thread::sleep(std::time::Duration::from_millis(5));
        }
        drop(buffer);
        assert_eq!(ipc::collect(), 1, "kept while the other process has it open ({role})");
        let other = pool.alloc(1 << 16, &stream).unwrap();
        assert_ne!(other.as_ptr(), address, "the kept block is not handed out again");
        std::fs::write(&gate, b"").unwrap();
        let out = child.wait_with_output().unwrap();
        let text = String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr);
        assert!(out.status.success(), "the other process ({role}) failed:\n{text}");
        let _ = std::fs::remove_file(&gate);
        assert_eq!(ipc::collect(), 0, "given back once the other process {role}d");
        drop(other);
    }
}

#[test]
fn what_cannot_be_shared_or_opened_says_why() {
    if std::env::var(ROLE).is_ok() {
        return;
    }
    let _x = sim::exclusive();
    let device = Device::new(0).unwrap();
    let stream = Stream::new_on(device).unwrap();
    let empty = hip_pool::Buffer::empty(&stream);
    assert!(matches!(ipc::share(&empty), Err(hip_pool::PoolError::Ipc(_))));
    let mut buffer = Pool::new(device, Strategy::Cached).unwrap().alloc(4096, &stream).unwrap();
    let handle = ipc::share(&buffer).unwrap();
    let moved = buffer.set_stream(&Stream::new_on(device).unwrap()).unwrap_err();
    assert!(moved.to_string().contains("shared with other processes"), "{moved}");
    let err = ipc::open(&handle, &stream).unwrap_err();
    assert!(err.to_string().contains("made by this process"), "{err}");
    assert!(IpcHandle::from_bytes(b"not a handle").is_err());
    let async_pool = Pool::new(device, Strategy::Async).unwrap();
    assert!(ipc::share(&async_pool.alloc(4096, &stream).unwrap()).is_err(), "stream-ordered memory");
    hip_pool::history::clear_history();
    hip_pool::history::record_history(true);
    drop(buffer);
    hip_pool::history::record_history(false);
    let frees: Vec<_> = hip_pool::history::history().into_iter().map(|e| e.kind).collect();
    assert_eq!(
        frees,
        [hip_pool::history::MemoryEventKind::Free(hip_pool::history::Waits::Processes { shares: 1 })],
        "the history says why the block is kept"
    );
    assert_eq!(ipc::collect(), 0, "a share nobody opened finishes when its buffer goes");
}

#[test]
fn a_share_finishes_the_finished_shares_it_looks_at_and_the_ladder_all_of_them() {
    if std::env::var(ROLE).is_ok() {
        return;
    }
    let _x = sim::exclusive();
    ipc::collect();
    let device = Device::new(0).unwrap();
    let stream = Stream::new_on(device).unwrap();
    let pool = Pool::new(device, Strategy::Cached).unwrap();
    const MIB: usize = 1 << 20;
    // Shared, opened by nobody, dropped: each share that follows finishes
    // the one before (it looks at a few, in turn), with no collect.
    for _ in 0..3 {
        let buffer = pool.alloc(12 * MIB, &stream).unwrap();
        drop(ipc::share(&buffer).unwrap());
        drop(buffer);
        assert_eq!(pool.stats().allocated, 12 * MIB, "{}", pool.stats());
    }
    // The last is still kept (the first's segment, which the second
    // needed, goes back); under a hard limit that leaves no room for
    // another, the out-of-memory ladder finishes it before it fails.
    pool.reclaim().unwrap();
    assert_eq!((pool.stats().allocated, pool.stats().reserved), (12 * MIB, 12 * MIB), "{}", pool.stats());
    pool.set_hard_limit(hip_pool::Limit::Bytes(16 * MIB));
    let again = pool.alloc(12 * MIB, &stream).unwrap();
    let stats = pool.stats();
    assert_eq!((stats.allocated, stats.reserved), (12 * MIB, 12 * MIB), "{stats}");
    assert!(stats.oom_retries > 0, "{stats}");
    drop(again);
    assert_eq!(ipc::collect(), 0);
    pool.set_hard_limit(hip_pool::Limit::None);
}

/// The child of the test below: opens each handle it reads (a line of
/// hex, then the byte the buffer must hold), checks the bytes and closes,
/// answering `read {byte}`; at the end says how many events it opened.
fn the_opener_of_one_share_after_another() {
    let device = Device::new(0).unwrap();
    let stream = Stream::new_on(device).unwrap();
    let opens = || sim::thread_call_count("hipIpcOpenEventHandle");
    let before = opens();
    for line in std::io::stdin().lock().lines() {
        let line = line.unwrap();
        let (handle, value) = line.split_once(' ').unwrap();
        let handle = IpcHandle::from_bytes(&unhex(handle)).unwrap();
        let waits = || sim::thread_call_count("hipStreamWaitEvent");
        let before_open = waits();
        let opened = ipc::open(&handle, &stream).unwrap();
        // Said before the read, which the exporter's hold keeps back.
        println!("opened, waits {}", waits() - before_open);
        std::io::stdout().flush().unwrap();
        let value: u8 = value.parse().unwrap();
        assert!(read(&opened).iter().all(|b| *b == value), "the exporter's latest write, {value}");
        // The stream is idle after the read: the close needs no wait.
        let syncs = || sim::thread_call_count("hipStreamSynchronize");
        let before_close = syncs();
        drop(opened);
        println!("read {value}, syncs {}", syncs() - before_close);
    }
    println!("events opened: {}", opens() - before);
}

/// The next line of `from` that starts with `start` (past the test
/// harness's own lines), trimmed.
fn next_line(from: &mut impl BufRead, start: &str) -> String {
    let mut line = String::new();
    while from.read_line(&mut line).unwrap() > 0 {
        if line.starts_with(start) {
            return line.trim().to_owned();
        }
        line.clear();
    }
    panic!("the other process ended before a line starting {start:?}")
}

#[test]
fn shares_one_after_another_record_one_event_and_each_opener_waits_for_its_own_share() {
    if std::env::var(ROLE).is_ok() {
        return the_opener_of_one_share_after_another();
    }
    let _x = sim::exclusive();
    let on_sim = hip_sys::backend() == hip_sys::Backend::Sim;
    let device = Device::new(0).unwrap();
    let pool = Pool::new(device, Strategy::Cached).unwrap();
    let stream = Stream::new_on(device).unwrap();
    let mut child = Command::new(std::env::current_exe().unwrap())
        .args([
            "--exact",
            "shares_one_after_another_record_one_event_and_each_opener_waits_for_its_own_share",
            "--nocapture",
        ])
        .env(ROLE, "sequence")
        .env("AMDGPU_BACKEND", hip_sys::backend().to_string())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut to = child.stdin.take().unwrap();
    let mut from = BufReader::new(child.stdout.take().unwrap());
    let creates = || sim::thread_call_count("hipEventCreateWithFlags");
    let before = creates();
    // Kept at the start of the segment: each shared buffer lies further
    // in, so the handle's offset from the segment's start counts.
    let start = pool.alloc(1 << 16, &stream).unwrap();
    for value in [7u8, 9, 11, 13, 15] {
        // The last share comes after its write finished.
        let held = value != 15;
        let buffer = pool.alloc(1 << 16, &stream).unwrap();
        // The write the other process must see is held back until it has
        // opened the share: were its stream not to wait for this share's
        // recording of the event (a wait on an earlier share's, say), it
        // would read the earlier value the block still holds.
        let hold = (on_sim && held).then(|| sim::hold_stream(stream.as_raw()).unwrap());
        // SAFETY: the buffer's bytes, alive past the fill.
        unsafe { hip_core::raw::mem::fill_async(device, buffer.as_ptr(), value, buffer.len(), stream.as_raw()) }
            .unwrap();
        if !held {
            stream.synchronize().unwrap();
        }
        let records = || sim::thread_call_count("hipEventRecord");
        let queries = || sim::thread_call_count("hipEventQuery");
        let (before_share, queries_before) = (records(), queries());
        let handle = ipc::share(&buffer).unwrap();
        if on_sim {
            // The event is recorded after work still queued, and not again
            // where the stream is idle (its last recording is done: it was
            // on this stream, so the event is not even asked).
            assert_eq!(records() - before_share, u64::from(held), "the share's recordings");
            if value != 7 {
                assert_eq!(queries() - queries_before, 0, "the share's event queries");
            }
        }
        writeln!(to, "{} {value}", hex(&handle.to_bytes())).unwrap();
        to.flush().unwrap();
        let opened = next_line(&mut from, "opened, ");
        drop(hold);
        let read = next_line(&mut from, "read ");
        assert!(read.starts_with(&format!("read {value},")), "the other process read it: {read}");
        if on_sim {
            // Its stream waited on the GPU for a write still held back,
            // and queued no wait for one done; its close waited for
            // nothing on an idle stream.
            assert_eq!(opened, format!("opened, waits {}", u8::from(held)), "the other process's open");
            assert_eq!(read, format!("read {value}, syncs 0"), "the other process's close");
        }
        drop(buffer);
        assert_eq!(ipc::collect(), 0, "closed by the other process: finished");
    }
    drop((to, start));
    let mut rest = String::new();
    std::io::Read::read_to_string(&mut from, &mut rest).unwrap();
    assert!(child.wait().unwrap().success(), "the other process failed:\n{rest}");
    if on_sim {
        // One event for the five shares: made by the first, or by an
        // earlier test's share and given back.
        assert!(creates() - before <= 1, "{} events made for five shares", creates() - before);
        assert!(rest.contains("events opened: 1"), "opened once by the other process: {rest}");
    }
}
