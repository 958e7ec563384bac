//! Backend selection as a process sees it, run in a child process so that
//! the environment variable is set before the first selection.

use std::process::Command;

use hip_sys::{Backend, BackendError};

/// Set in the child process; the helper test does nothing without it.
const CHILD_MARKER: &str = "HIP_SYS_SELECTION_TEST_CHILD";

/// Runs only in the child that [`bogus_amdgpu_backend_is_an_error`] spawns.
#[test]
#[ignore = "helper: runs in a child process with AMDGPU_BACKEND set"]
fn child_reports_invalid_backend() {
    if std::env::var_os(CHILD_MARKER).is_none() {
        return;
    }
    let err = hip_sys::selection().expect_err("AMDGPU_BACKEND=bogus must fail");
    assert_eq!(err, BackendError::InvalidBackend { value: "bogus".to_owned() });
    // The same error on every call, from every entry point.
    let again = hip_sys::hip().expect_err("still an error");
    assert_eq!(again, err);
    assert_eq!(hip_sys::backend(), Backend::Sim);
    let message = err.to_string();
    for name in ["amd", "nvidia", "sim"] {
        assert!(message.contains(name), "{message} lists {name}");
    }
}

#[test]
fn bogus_amdgpu_backend_is_an_error() {
    let exe = std::env::current_exe().expect("the test binary's path");
    let output = Command::new(exe)
        .args(["--exact", "child_reports_invalid_backend", "--ignored", "--test-threads=1"])
        .env("AMDGPU_BACKEND", "bogus")
        .env(CHILD_MARKER, "1")
        .output()
        .expect("the test binary runs");
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "child failed:\n{stdout}\n{stderr}");
    assert!(stdout.contains("1 passed"), "the helper test ran in the child:\n{stdout}");
    // A forced (even invalid) backend never prints the fallback notice.
    assert!(!stderr.contains("using the HIP simulator"), "{stderr}");
}

#[test]
fn messages_say_what_to_do() {
    let not_found = BackendError::LibraryNotFound {
        library: "libamdhip64".to_owned(),
        tried: vec!["/a/libamdhip64.so (no such file)".to_owned(), "libamdhip64.so.6 (no)".to_owned()],
        hint: "install ROCm".to_owned(),
    };
    let m = not_found.to_string();
    assert!(m.contains("libamdhip64"), "{m}");
    assert!(m.contains("/a/libamdhip64.so (no such file), libamdhip64.so.6"), "{m}");
    assert!(m.contains("install ROCm"), "{m}");

    let version = BackendError::UnsupportedVersion {
        library: "/opt/rocm/lib/libamdhip64.so".to_owned(),
        found: "HIP 4.5.0".to_owned(),
        supported: "HIP 5.x, 6.x and 7.x".to_owned(),
    };
    let m = version.to_string();
    assert!(m.contains("4.5.0") && m.contains("5.x") && m.contains("AMDGPU_BACKEND=sim"), "{m}");

    let sim = BackendError::InvalidSimConfig {
        variable: "AMDGPU_SIM_DEVICES".to_owned(),
        value: "lots".to_owned(),
        reason: "expected a whole number of devices, e.g. 2".to_owned(),
    };
    assert_eq!(sim.to_string(), "AMDGPU_SIM_DEVICES=\"lots\" is invalid: expected a whole number of devices, e.g. 2");
    let cloned = sim.clone();
    assert_eq!(cloned, sim);
}
