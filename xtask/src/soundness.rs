//! `soundness`: every `unsafe impl Send`/`Sync` and every `Drop` of the
//! crates above hip-sys is named, with its file, in the attack table of
//! `tests/tests/soundness.rs`, which says what attack each resists and
//! where it is tested. A type added without its row fails the lint, so the
//! table cannot drift from the code.
//!
//! A row names a type as `` `Type` (path/to/file.rs) ``. Unit-test
//! modules are not scanned. Run as `cargo xtask soundness`; also a test of this crate.

use std::path::{Path, PathBuf};

use crate::sources::{rust_files, without_unit_tests};

/// The crates whose types the table covers.
const CRATES: [&str; 4] = ["hip-core", "hip-pool", "hip-libs", "amdgpu"];

/// The attack suite, whose docs hold the table.
const SUITE: &str = "tests/tests/soundness.rs";

/// A type with an `unsafe impl Send`/`Sync` or a `Drop`: its file
/// (relative to the workspace, `/`-separated), name and what it has.
#[derive(Debug, PartialEq, Eq)]
pub struct Claim {
    pub file: String,
    pub name: String,
    pub what: &'static str,
}

/// The claims of one source file (`file` is its relative path).
pub fn claims(file: &str, source: &str) -> Vec<Claim> {
    let mut found = Vec::new();
    for line in without_unit_tests(source).lines() {
        let code = line.trim_start();
        let what = if code.starts_with("unsafe impl") && code.contains(" Send for ") {
            "unsafe impl Send"
        } else if code.starts_with("unsafe impl") && code.contains(" Sync for ") {
            "unsafe impl Sync"
        } else if code.starts_with("impl") && code.contains(" Drop for ") {
            "Drop"
        } else {
            continue;
        };
        let after = code.split(" for ").nth(1).unwrap_or_default();
        let name: String = after.chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect();
        if !name.is_empty() {
            found.push(Claim { file: file.to_owned(), name, what });
        }
    }
    found
}

/// Whether the table in `suite` has a row for `claim`.
pub fn has_row(suite: &str, claim: &Claim) -> bool {
    let key = format!("`{}` ({})", claim.name, claim.file);
    suite.lines().any(|line| line.starts_with("//! |") && line.contains(&key))
}

/// The claims of the crates under `root` that the table misses.
pub fn missing(root: &Path) -> Result<Vec<Claim>, String> {
    let suite_path = root.join(SUITE);
    let suite = std::fs::read_to_string(&suite_path).map_err(|e| format!("reading {}: {e}", suite_path.display()))?;
    let mut missing = Vec::new();
    for krate in CRATES {
        for path in rust_files(&root.join(krate).join("src"))? {
            let source = std::fs::read_to_string(&path).map_err(|e| format!("reading {}: {e}", path.display()))?;
            let relative: PathBuf = path.strip_prefix(root).unwrap_or(&path).to_path_buf();
            let file = relative.to_string_lossy().replace('\\', "/");
            missing.extend(claims(&file, &source).into_iter().filter(|c| !has_row(&suite, c)));
        }
    }
    Ok(missing)
}

/// `cargo xtask soundness`.
pub fn run(root: &Path) -> Result<(), String> {
    let missing = missing(root)?;
    if missing.is_empty() {
        println!("soundness: every unsafe impl Send/Sync and every Drop of {CRATES:?} has its row in {SUITE}");
        return Ok(());
    }
    let lines: Vec<String> = missing.iter().map(|c| format!("  `{}` ({}): {}", c.name, c.file, c.what)).collect();
    Err(format!(
        "{} type(s) without a row in {SUITE}'s attack table: say what attack each resists, how, and \
         where it is tested\n{}",
        missing.len(),
        lines.join("\n")
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn claims_are_found_outside_unit_tests() {
        let source = "unsafe impl Send for Event {}\n\
                      unsafe impl<T: Copy> Sync for Thing<T> {}\n\
                      impl<T> Drop for Guard<'_, T> {\n\
                      impl Clone for Event {}\n\
                      #[cfg(test)]\n\
                      mod tests {\n\
                      impl Drop for Test {}\n";
        let found = claims("a/b.rs", source);
        let names: Vec<_> = found.iter().map(|c| (c.name.as_str(), c.what)).collect();
        assert_eq!(names, [("Event", "unsafe impl Send"), ("Thing", "unsafe impl Sync"), ("Guard", "Drop")]);
    }

    #[test]
    fn a_row_names_the_type_with_its_file() {
        let claim = Claim { file: "a/b.rs".into(), name: "Event".into(), what: "Drop" };
        assert!(has_row("//! | `Event` (a/b.rs) | Drop | ... |", &claim));
        assert!(!has_row("//! | `Event` (a/c.rs) | Drop | ... |", &claim), "another file's Event");
        assert!(!has_row("`Event` (a/b.rs)", &claim), "not a table row");
    }

    #[test]
    fn the_workspace_table_is_complete() {
        let missing = missing(&crate::workspace_root()).expect("the sources read");
        assert!(missing.is_empty(), "{missing:?}");
    }
}
