//! `AMDGPU_MEMORY_HISTORY`: record from the first pool on, and with a
//! path, write the history there when the process exits.

use std::path::PathBuf;
use std::sync::OnceLock;

/// The file to write at exit, if the variable named one.
static AT_EXIT: OnceLock<Option<PathBuf>> = OnceLock::new();

/// What the variable asks for.
#[derive(Debug, PartialEq, Eq)]
enum Asked {
    /// Unset, empty or `0`.
    Nothing,
    /// `1`: record, for the program to read.
    Record,
    /// A path: record and write it at exit.
    Write(PathBuf),
}

fn asked(value: Option<&str>) -> Asked {
    match value.map(str::trim) {
        None | Some("" | "0") => Asked::Nothing,
        Some("1") => Asked::Record,
        Some(path) => Asked::Write(path.into()),
    }
}

/// The history of the process as the file `path` names by its extension:
/// the page for `.html`, PyTorch's snapshot for `.pickle`, JSON Lines
/// otherwise.
fn contents(path: &std::path::Path) -> Vec<u8> {
    match path.extension().and_then(|e| e.to_str()) {
        Some("html" | "htm") => super::history_html().into_bytes(),
        Some("pickle" | "pkl") => super::memory_viz_snapshot(),
        _ => super::history_json_lines().into_bytes(),
    }
}

/// Read `AMDGPU_MEMORY_HISTORY` once, when the first pool is made.
pub(crate) fn from_env() {
    let mut first = false;
    let path = AT_EXIT.get_or_init(|| {
        first = true;
        match asked(std::env::var("AMDGPU_MEMORY_HISTORY").ok().as_deref()) {
            Asked::Nothing => None,
            Asked::Record => {
                super::record_history(true);
                None
            }
            Asked::Write(path) => {
                super::record_history(true);
                Some(path)
            }
        }
    });
    if first && path.is_some() {
        write_at_exit();
    }
}

#[cfg(target_os = "linux")]
fn write_at_exit() {
    extern "C" fn write() {
        let Some(Some(path)) = AT_EXIT.get() else { return };
        super::record_history(false);
        if let Err(e) = std::fs::write(path, contents(path)) {
            use std::io::Write as _;
            let _ = writeln!(std::io::stderr(), "AMDGPU_MEMORY_HISTORY: cannot write {}: {e}", path.display());
        }
    }
    // SAFETY: `write` is an `extern "C" fn()` that does not unwind (a
    // failure is written to stderr, unchecked), as atexit requires.
    if unsafe { libc::atexit(write) } != 0 {
        log::warn!("AMDGPU_MEMORY_HISTORY names a file, but it cannot be written at exit (atexit failed)");
    }
}

#[cfg(not(target_os = "linux"))]
fn write_at_exit() {
    log::warn!(
        "AMDGPU_MEMORY_HISTORY names a file, but this platform does not write it at exit: the history is \
         recorded; write it with hip_pool::history::history_json_lines"
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_variable_records_or_names_a_file_whose_extension_picks_the_format() {
        assert_eq!(asked(None), Asked::Nothing);
        assert_eq!(asked(Some(" 0 ")), Asked::Nothing);
        assert_eq!(asked(Some("1")), Asked::Record);
        assert_eq!(asked(Some("out/memory.jsonl")), Asked::Write("out/memory.jsonl".into()));
        assert!(contents("m.html".as_ref()).starts_with(b"<!DOCTYPE html>"));
        assert_eq!(contents("m.pickle".as_ref())[0], 0x80, "a pickle's PROTO opcode");
        let lines = contents("m.jsonl".as_ref());
        assert!(lines.is_empty() || lines.starts_with(b"{"), "JSON Lines");
    }
}
