//! What both sides of IPC keep alike: the runtime (the simulator's) and
//! its callers, and the processes that share memory.

use std::path::PathBuf;

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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_flag_changed_value_with_hip_6() {
        assert_eq!([5, 6, 7].map(lazy_enable_peer_access), [0, 1, 1]);
        assert!(shared_memory_folder().is_dir());
    }
}
