//! What both sides of IPC keep alike: the runtime (the simulator's) and
//! its callers, and the processes that share memory.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::Once;

/// `hipIpcMemLazyEnablePeerAccess` on HIP `major`: 0 in HIP 5's headers,
/// 1 from HIP 6.0 (clr's changelog: "The value of the flag
/// hipIpcMemLazyEnablePeerAccess is changed to 0x01"); clr's
/// `hipIpcOpenMemHandle` takes exactly that value and no other.
pub fn lazy_enable_peer_access(hip_major: u32) -> u32 {
    u32::from(hip_major >= 6)
}

/// The folder shared-memory files live in: `/dev/shm`, else the temporary
/// folder.
pub fn shared_memory_folder() -> PathBuf {
    let shm = PathBuf::from("/dev/shm");
    if shm.is_dir() {
        shm
    } else {
        std::env::temp_dir()
    }
}

/// This process's id, asked of the system once (and once more in a child
/// after `fork`): `getpid` is a system call each time, and every share and
/// every open of IPC memory names the process.
pub fn this_process() -> u32 {
    static PID: AtomicU32 = AtomicU32::new(0);
    static AT_FORK: Once = Once::new();
    extern "C" fn forget_in_child() {
        PID.store(0, Ordering::Relaxed);
    }
    let pid = PID.load(Ordering::Relaxed);
    if pid != 0 {
        return pid;
    }
    // Registered before the first id is kept, so no child keeps it.
    #[cfg(unix)]
    AT_FORK.call_once(|| {
        // SAFETY: registers a handler that only stores to an atomic, which
        // is async-signal-safe as a child's handler after `fork` must be.
        let _ = unsafe { libc::pthread_atfork(None, None, Some(forget_in_child)) };
    });
    let pid = std::process::id();
    PID.store(pid, Ordering::Relaxed);
    pid
}

/// Whether process `pid` still runs, as `/proc` tells. A pid reused by
/// another process counts as running (what it holds is kept longer, never
/// taken early), and so does every pid where there is no `/proc` to ask.
pub fn process_alive(pid: u32) -> bool {
    let proc = Path::new("/proc");
    !proc.join("self").exists() || proc.join(pid.to_string()).exists()
}

/// Remove what processes that are gone left in the shared-memory folder:
/// each entry (a file or a folder) named `{prefix}{pid}-…` whose process no
/// longer runs. A process that exits keeps its exports to the end, as a
/// real one's IPC memory lives until it exits; this is how they go once it
/// has. Entries of other users, or that vanish meanwhile, are left alone.
pub fn sweep_orphans(prefix: &str) {
    let Ok(entries) = std::fs::read_dir(shared_memory_folder()) else { return };
    for entry in entries.flatten() {
        let name = entry.file_name();
        let Some(rest) = name.to_str().and_then(|n| n.strip_prefix(prefix)) else { continue };
        let Some(Ok(pid)) = rest.split('-').next().map(str::parse::<u32>) else { continue };
        if process_alive(pid) {
            continue;
        }
        let path = entry.path();
        let _ = if path.is_dir() { std::fs::remove_dir_all(&path) } else { std::fs::remove_file(&path) };
    }
}

/// [`sweep_orphans`] the first time this process asks for `prefix`, and
/// nothing after: what exited processes left goes at a process's first
/// export, and exports after it (each of which would read the whole
/// folder) cost nothing more.
pub fn sweep_orphans_once(prefix: &str) {
    static SWEPT: std::sync::Mutex<Vec<String>> = std::sync::Mutex::new(Vec::new());
    let mut swept = SWEPT.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
    if swept.iter().any(|p| p == prefix) {
        return;
    }
    swept.push(prefix.to_owned());
    drop(swept);
    sweep_orphans(prefix);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_flag_changed_value_with_hip_6() {
        assert_eq!([5, 6, 7].map(lazy_enable_peer_access), [0, 1, 1]);
        assert!(shared_memory_folder().is_dir());
    }

    #[test]
    #[cfg(unix)]
    fn the_process_id_is_kept_and_a_forked_child_finds_its_own() {
        let pid = this_process();
        assert_eq!(pid, std::process::id());
        assert_eq!(this_process(), pid, "kept");
        // SAFETY: the child only loads and stores atomics, calls getpid and
        // exits with `_exit`, all of which are safe after `fork`.
        let child = unsafe { libc::fork() };
        if child == 0 {
            let own = this_process() == std::process::id() && this_process() != pid;
            // SAFETY: ends the child at once, running nothing of the parent's.
            unsafe { libc::_exit(if own { 0 } else { 1 }) };
        }
        assert!(child > 0, "fork failed");
        let mut status = 0;
        // SAFETY: waits for the child just made, with a valid out-pointer.
        assert_eq!(unsafe { libc::waitpid(child, &mut status, 0) }, child);
        assert!(libc::WIFEXITED(status) && libc::WEXITSTATUS(status) == 0, "the child kept its parent's id");
        assert_eq!(this_process(), pid);
    }

    #[test]
    fn the_sweep_removes_only_what_gone_processes_left() {
        // 4294967294 is above every pid Linux hands out.
        let gone_file = shared_memory_folder().join("sweep-test-4294967294-0");
        let gone_folder = shared_memory_folder().join("sweep-test-4294967294-1");
        let mine = shared_memory_folder().join(format!("sweep-test-{}-2", std::process::id()));
        let other_prefix = shared_memory_folder().join("sweep-other-4294967294-0");
        std::fs::write(&gone_file, b"").unwrap();
        std::fs::create_dir_all(gone_folder.join("an-entry")).unwrap();
        std::fs::write(&mine, b"").unwrap();
        std::fs::write(&other_prefix, b"").unwrap();
        assert!(process_alive(std::process::id()));
        assert!(!process_alive(4_294_967_294));
        sweep_orphans("sweep-test-");
        assert!(!gone_file.exists() && !gone_folder.exists(), "a gone process's entries go");
        assert!(mine.exists(), "a living process's entry stays");
        assert!(other_prefix.exists(), "another prefix is not looked at");
        let _ = std::fs::remove_file(mine);
        let _ = std::fs::remove_file(other_prefix);
    }

    #[test]
    fn the_sweep_once_sweeps_at_the_first_call_only() {
        let first = shared_memory_folder().join("sweep-once-4294967294-0");
        std::fs::write(&first, b"").unwrap();
        sweep_orphans_once("sweep-once-");
        assert!(!first.exists(), "swept at the first call");
        let second = shared_memory_folder().join("sweep-once-4294967294-1");
        std::fs::write(&second, b"").unwrap();
        sweep_orphans_once("sweep-once-");
        assert!(second.exists(), "not read again");
        sweep_orphans("sweep-once-");
        assert!(!second.exists());
    }
}
