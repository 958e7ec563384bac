//! The Rust sources under a folder, for the lints that read the crates.

use std::path::{Path, PathBuf};

/// Every `.rs` file under `dir`, in any depth, sorted.
pub fn rust_files(dir: &Path) -> Result<Vec<PathBuf>, String> {
    fn walk(dir: &Path, out: &mut Vec<PathBuf>) -> Result<(), String> {
        let entries = std::fs::read_dir(dir).map_err(|e| format!("reading {}: {e}", dir.display()))?;
        for entry in entries {
            let path = entry.map_err(|e| format!("reading {}: {e}", dir.display()))?.path();
            if path.is_dir() {
                walk(&path, out)?;
            } else if path.extension().is_some_and(|e| e == "rs") {
                out.push(path);
            }
        }
        Ok(())
    }
    let mut files = Vec::new();
    walk(dir, &mut files)?;
    files.sort();
    Ok(files)
}

/// `source` without its unit tests: everything before the first
/// `#[cfg(test)]` (or `#[cfg(all(test, …))]`) that guards a `mod` (past
/// other attributes). A
/// `#[cfg(test)]` on a single item elsewhere cuts nothing.
pub fn without_unit_tests(source: &str) -> &str {
    let mut offset = 0;
    let mut lines = source.split_inclusive('\n');
    while let Some(line) = lines.next() {
        let code = line.trim_start();
        if code.starts_with("#[cfg(test)]") || code.starts_with("#[cfg(all(test") {
            // The item it guards, past other attributes.
            let item = lines.clone().map(str::trim_start).find(|next| !next.starts_with("#["));
            let opens_mod = item.is_some_and(|next| {
                next.starts_with("mod ") || next.starts_with("pub mod ") || next.starts_with("pub(crate) mod ")
            });
            if opens_mod {
                return &source[..offset];
            }
        }
        offset += line.len();
    }
    source
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unit_tests_are_cut_and_test_only_items_are_not() {
        let source = "a\n#[cfg(test)]\nuse x;\nb\n#[cfg(test)]\nmod tests {\n c\n}\n";
        assert_eq!(without_unit_tests(source), "a\n#[cfg(test)]\nuse x;\nb\n");
        assert_eq!(without_unit_tests("a\n"), "a\n");
        assert_eq!(without_unit_tests("a\n#[cfg(test)]\n#[cfg(feature = \"sim\")]\nmod tests {}\n"), "a\n");
    }
}
