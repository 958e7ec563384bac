//! `cargo xtask macros`: no `macro_rules!` of the workspace is over
//! [`MOST_LINES`] lines. Code inside a macro hides from rustfmt, from
//! go-to-definition and from the function-size numbers; a large one is
//! better written as generic functions over a small trait.

use crate::sources::rust_files;
use std::path::{Path, PathBuf};

/// The most lines one macro may take, from `macro_rules!` to its closing
/// brace.
pub const MOST_LINES: usize = 40;

/// The folders whose sources are read: every crate of the workspace.
const CRATES: [&str; 9] =
    ["hip-abi", "hip-sim", "hip-sys", "hip-core", "hip-pool", "hip-libs", "amdgpu", "tests", "xtask"];

/// One `macro_rules!` and where it is.
#[derive(Debug, PartialEq, Eq)]
pub struct Macro {
    pub file: PathBuf,
    /// Its first line, 1-based.
    pub line: usize,
    pub name: String,
    /// From `macro_rules!` to its closing brace.
    pub lines: usize,
}

/// The macros defined in `source`, with their lengths: each runs from its
/// `macro_rules!` line to the line where its braces close (counted
/// outside strings and comments, which macro bodies here do not hide
/// braces in; a macro that never closes runs to the end).
pub fn macros_in(source: &str) -> Vec<(usize, String, usize)> {
    let lines: Vec<&str> = source.lines().collect();
    let mut found = Vec::new();
    for (start, line) in lines.iter().enumerate() {
        let Some(rest) = line.trim_start().strip_prefix("macro_rules!") else {
            continue;
        };
        let name: String = rest.trim_start().chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect();
        let (mut depth, mut opened) = (0i64, false);
        let mut end = lines.len() - 1;
        for (at, text) in lines.iter().enumerate().skip(start) {
            let code = text.split("//").next().unwrap_or("");
            opened |= code.contains(['{', '(', '[']);
            depth += code.matches(['{', '(', '[']).count() as i64 - code.matches(['}', ')', ']']).count() as i64;
            if opened && depth <= 0 {
                end = at;
                break;
            }
        }
        found.push((start + 1, name, end - start + 1));
    }
    found
}

/// Every macro of the workspace.
pub fn all(root: &Path) -> Result<Vec<Macro>, String> {
    let mut all = Vec::new();
    for krate in CRATES {
        for file in rust_files(&root.join(krate))? {
            if file.components().any(|c| c.as_os_str() == "target") {
                continue;
            }
            let source = std::fs::read_to_string(&file).map_err(|e| format!("reading {}: {e}", file.display()))?;
            let relative = file.strip_prefix(root).unwrap_or(&file).to_owned();
            for (line, name, lines) in macros_in(&source) {
                all.push(Macro { file: relative.clone(), line, name, lines });
            }
        }
    }
    Ok(all)
}

/// `cargo xtask macros`: list the macros over the limit, fail if any is.
pub fn run(root: &Path) -> Result<(), String> {
    let all = all(root)?;
    let total: usize = all.iter().map(|m| m.lines).sum();
    let large: Vec<String> = all
        .iter()
        .filter(|m| m.lines > MOST_LINES)
        .map(|m| format!("  {}:{}: {}! ({} lines)", m.file.display(), m.line, m.name, m.lines))
        .collect();
    if large.is_empty() {
        println!("{} macros, {total} lines, none over {MOST_LINES}", all.len());
        return Ok(());
    }
    Err(format!(
        "{} macros are over {MOST_LINES} lines:\n{}\nwrite each as generic functions over a small trait (see \
         hip-sys's nvidia `precision.rs`), or split it",
        large.len(),
        large.join("\n")
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_macro_runs_to_its_closing_brace() {
        let source = "fn a() {}\nmacro_rules! small {\n    ($x:expr) => {\n        $x + 1 // }\n    };\n}\n\
                      fn b() {}\n  macro_rules! one_line { () => {} }\n";
        assert_eq!(macros_in(source), [(2, "small".to_owned(), 5), (8, "one_line".to_owned(), 1)]);
    }

    #[test]
    fn no_macro_of_the_workspace_is_over_the_limit() {
        let all = all(&crate::workspace_root()).expect("the sources are readable");
        assert!(all.len() > 10, "the scan found {} macros (29 when written): it no longer sees them", all.len());
        assert!(all.iter().any(|m| m.name == "fn_table"), "fn_table! is found");
        assert!(run(&crate::workspace_root()).is_ok(), "{}", run(&crate::workspace_root()).unwrap_err());
    }
}
