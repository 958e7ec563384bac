//! `libraries`: every table of contents names every math library. The
//! libraries are those of `hip_sys::Library` (read from its `name()`), and
//! each crate root's opening docs that speak of them (hip-abi, hip-sim,
//! hip-sys, hip-libs, amdgpu), ARCHITECTURE.md and the README must name
//! each one, so that adding a library without saying so fails. Run as
//! `cargo xtask libraries`; also a test of this crate.

use std::path::Path;

/// The file that names the libraries.
const LIBRARY: &str = "hip-abi/src/shared/library.rs";

/// The tables of contents: a crate root (its `//!` docs are read) or a
/// Markdown file (read whole).
const CONTENTS: [&str; 7] = [
    "hip-abi/src/lib.rs",
    "hip-sim/src/lib.rs",
    "hip-sys/src/lib.rs",
    "hip-libs/src/lib.rs",
    "amdgpu/src/lib.rs",
    "ARCHITECTURE.md",
    "README.md",
];

/// The library names in `source`: the strings `name()` maps to (`=> "rocBLAS",`).
pub fn names(source: &str) -> Vec<String> {
    let body = source.split("fn name(").nth(1).unwrap_or_default();
    let body = body.split("\n    }").next().unwrap_or_default();
    body.lines().filter_map(|line| line.split("=> \"").nth(1)?.split('"').next().map(str::to_owned)).collect()
}

/// What `file` says about itself: a crate root's `//!` lines, or all of
/// a Markdown file.
fn contents(file: &str, text: &str) -> String {
    if file.ends_with(".rs") {
        text.lines().filter(|l| l.starts_with("//!")).collect::<Vec<_>>().join("\n")
    } else {
        text.to_owned()
    }
}

/// The (file, library) pairs where a table of contents misses a library.
pub fn missing(root: &Path) -> Result<Vec<(String, String)>, String> {
    let read = |file: &str| std::fs::read_to_string(root.join(file)).map_err(|e| format!("reading {file}: {e}"));
    let names = names(&read(LIBRARY)?);
    if names.len() < 7 {
        return Err(format!("{LIBRARY}: found only {names:?} in Library::name"));
    }
    let mut missing = Vec::new();
    for file in CONTENTS {
        let text = contents(file, &read(file)?);
        missing.extend(names.iter().filter(|n| !text.contains(n.as_str())).map(|n| (file.to_owned(), n.clone())));
    }
    Ok(missing)
}

/// `cargo xtask libraries`.
pub fn run(root: &Path) -> Result<(), String> {
    let missing = missing(root)?;
    if missing.is_empty() {
        println!("libraries: every table of contents names every library");
        return Ok(());
    }
    let lines: Vec<String> = missing.iter().map(|(f, n)| format!("  {f} does not name {n}")).collect();
    Err(format!("tables of contents that miss a library:\n{}", lines.join("\n")))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_come_from_the_match_of_name() {
        let source = "impl Library {\n    pub const fn name(self) -> &'static str {\n        match self {\n\
                      \x20           Library::A => \"rocA\",\n            Library::B => \"RCCL\",\n        }\n    }\n}\n";
        assert_eq!(names(source), ["rocA", "RCCL"]);
    }

    #[test]
    fn every_table_of_contents_names_every_library() {
        let missing = missing(&crate::workspace_root()).expect("the files read");
        assert!(missing.is_empty(), "{missing:?}");
    }
}
