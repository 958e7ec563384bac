//! The `tls-audit` feature: count per-thread-state accesses made while a
//! resource's `Drop` runs, keyed by call site. With
//! `AMDGPU_TLS_AUDIT_FILE` set, every drop and every such access is also
//! appended to that file; `cargo xtask audit` runs the workspace tests so
//! and prints the table. The goal is zero: a drop
//! can run on any thread and must not read or change that thread's state
//! (rule 1). Without the feature every function here compiles to nothing.

#[cfg(feature = "tls-audit")]
mod enabled {
    use hip_sys::sync::MutexExt;
    use std::cell::RefCell;
    use std::collections::BTreeMap;
    use std::io::Write;
    use std::panic::Location;
    use std::sync::Mutex;

    thread_local! {
        /// The drops running on this thread, innermost last.
        static DROPS: RefCell<Vec<&'static Location<'static>>> = const { RefCell::new(Vec::new()) };
    }
    static HITS: Mutex<BTreeMap<String, u64>> = Mutex::new(BTreeMap::new());

    /// Append a line to the file named by `AMDGPU_TLS_AUDIT_FILE`, if set
    /// (`cargo xtask audit` collects them across test processes).
    fn report(line: String) {
        let Some(path) = std::env::var_os("AMDGPU_TLS_AUDIT_FILE") else {
            return;
        };
        if let Ok(mut file) = std::fs::OpenOptions::new().create(true).append(true).open(path) {
            let _ = writeln!(file, "{line}");
        }
    }

    /// Marks the extent of a resource's `Drop`; see [`super::drop_scope`].
    pub struct DropScope(());

    impl Drop for DropScope {
        fn drop(&mut self) {
            let _ = DROPS.try_with(|d| d.borrow_mut().pop());
        }
    }

    #[track_caller]
    pub fn drop_scope() -> DropScope {
        let site = Location::caller();
        let _ = DROPS.try_with(|d| d.borrow_mut().push(site));
        report(format!("drop\t{site}"));
        DropScope(())
    }

    #[track_caller]
    pub fn touch() {
        let Some(drop_site) = DROPS.try_with(|d| d.borrow().last().copied()).ok().flatten() else {
            return;
        };
        let site = Location::caller().to_string();
        report(format!("access\t{drop_site}\t{site}"));
        *HITS.lock_unpoisoned().entry(site).or_default() += 1;
    }

    pub fn hits() -> Vec<(String, u64)> {
        HITS.lock_unpoisoned().iter().map(|(k, v)| (k.clone(), *v)).collect()
    }
}

#[cfg(not(feature = "tls-audit"))]
mod enabled {
    /// Marks the extent of a resource's `Drop`; see [`super::drop_scope`].
    pub struct DropScope(());

    #[inline(always)]
    #[track_caller]
    pub fn drop_scope() -> DropScope {
        DropScope(())
    }

    #[inline(always)]
    pub fn touch() {}

    pub fn hits() -> Vec<(String, u64)> {
        Vec::new()
    }
}

pub(crate) use enabled::touch;
pub use enabled::DropScope;

/// Mark the extent of a resource's `Drop` (hold the guard for the whole
/// drop). Every resource of this workspace does, so the audit sees
/// thread-state accesses made from drops; without the `tls-audit` feature
/// it costs nothing.
#[track_caller]
#[inline(always)]
pub fn drop_scope() -> DropScope {
    enabled::drop_scope()
}

/// Per-thread-state accesses made inside a drop, by call site (empty
/// without the `tls-audit` feature).
pub fn hits() -> Vec<(String, u64)> {
    enabled::hits()
}

/// Whether this build counts (the `tls-audit` feature).
pub const ENABLED: bool = cfg!(feature = "tls-audit");

#[cfg(all(test, feature = "tls-audit"))]
mod tests {
    use super::*;

    /// A resource whose drop breaks rule 1, to show the audit sees it.
    struct ReadsStateInDrop;

    impl Drop for ReadsStateInDrop {
        fn drop(&mut self) {
            let _scope = drop_scope();
            let _ = crate::device();
        }
    }

    #[test]
    fn an_access_inside_a_drop_is_counted_by_site() {
        let _ = crate::device(); // outside a drop: not counted
        let before: u64 = hits().iter().map(|(_, n)| n).sum();
        drop(ReadsStateInDrop);
        let after = hits();
        assert_eq!(after.iter().map(|(_, n)| n).sum::<u64>(), before + 1);
        assert!(after.iter().any(|(site, _)| site.contains("audit.rs")), "{after:?}");
    }
}
