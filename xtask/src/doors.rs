//! `doors`: every call into C from the crates above hip-sys goes through
//! one door per crate, and the door is where the lint says.
//!
//! A call into C is a call through a function-pointer field of one of
//! hip-sys's tables, written `(table.name)(…)` with `name` a HIP, hipRTC,
//! rocBLAS, rocSPARSE, rocFFT, rocRAND, rocSOLVER, RCCL, MIOpen or ROCTx function. The doors:
//!
//! - `hip-core/src/raw/`: the HIP runtime, hipRTC and ROCTx, for the workspace;
//! - a `raw.rs` file or `raw/` folder inside a hip-libs library
//!   (`blas`, `sparse`, `fft`, `dnn`, `rand`, `solver`, `collective`): that library.
//!
//! No exception: HIP's name and text of a status, which every wrapper's
//! error is made of, come from `hip_sys::status_text`.
//!
//! hip-sys itself (the tables and the backends behind them), tests,
//! benchmarks (whose baseline is the raw call) and examples are not
//! scanned. Run as `cargo xtask doors`; also a test of this crate.

use std::path::{Path, PathBuf};

use crate::sources::rust_files;

/// The crates whose sources are held to their doors.
const CRATES: [&str; 4] = ["hip-core", "hip-pool", "hip-libs", "amdgpu"];

/// The C function prefixes of hip-sys's tables.
const C_PREFIXES: [&str; 10] =
    ["hip", "rocblas_", "rocsparse_", "rocfft_", "rocrand_", "rocsolver_", "miopen", "hiprtc", "nccl", "roctx"];

/// A C call outside the doors: file, line and the call as written.
#[derive(Debug, PartialEq, Eq)]
pub struct Stray {
    pub file: PathBuf,
    pub line: usize,
    pub call: String,
}

/// Whether `path` (relative to the workspace) is a door.
fn is_door(path: &Path) -> bool {
    let text = path.to_string_lossy().replace('\\', "/");
    text.starts_with("hip-core/src/raw/")
        || (text.starts_with("hip-libs/src/") && (text.ends_with("/raw.rs") || text.contains("/raw/")))
}

/// The C calls in `source`: each `(x.name)(` with `name` a C function of
/// the tables, as (line, `x.name`).
pub fn c_calls(source: &str) -> Vec<(usize, String)> {
    let mut calls = Vec::new();
    for (index, line) in source.lines().enumerate() {
        let code = line.split("//").next().unwrap_or_default();
        let mut rest = code;
        while let Some(close) = rest.find(")(") {
            let before = &rest[..close];
            if let Some(open) = before.rfind('(') {
                let inner = &before[open + 1..];
                if let Some((table, name)) = inner.split_once('.') {
                    let is_ident = |s: &str| !s.is_empty() && s.chars().all(|c| c.is_alphanumeric() || c == '_');
                    if is_ident(table) && is_ident(name) && C_PREFIXES.iter().any(|p| name.starts_with(p)) {
                        calls.push((index + 1, inner.to_owned()));
                    }
                }
            }
            rest = &rest[close + 2..];
        }
    }
    calls
}

/// The C calls of the held crates' sources outside their doors, and how
/// many calls were found in all (so that a scanner that finds nothing is
/// seen to).
pub fn strays(root: &Path) -> Result<(Vec<Stray>, usize), String> {
    let (mut strays, mut total) = (Vec::new(), 0);
    for krate in CRATES {
        for file in rust_files(&root.join(krate).join("src"))? {
            let source = std::fs::read_to_string(&file).map_err(|e| format!("reading {}: {e}", file.display()))?;
            let relative = file.strip_prefix(root).unwrap_or(&file).to_owned();
            for (line, call) in c_calls(&source) {
                total += 1;
                if !is_door(&relative) {
                    strays.push(Stray { file: relative.clone(), line, call });
                }
            }
        }
    }
    Ok((strays, total))
}

/// `cargo xtask doors`: list the strays, fail if there are any.
pub fn run(root: &Path) -> Result<(), String> {
    let (strays, total) = strays(root)?;
    if strays.is_empty() {
        println!("{total} calls into C, all through their crate's door");
        return Ok(());
    }
    let list: Vec<String> =
        strays.iter().map(|s| format!("  {}:{}: ({})(…)", s.file.display(), s.line, s.call)).collect();
    Err(format!(
        "{} of {total} calls into C are outside their crate's door:\n{}\nmove each into hip_core::raw (HIP) or the \
         library's raw module (hip-libs), and call that",
        strays.len(),
        list.join("\n")
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn calls_through_a_table_are_found_and_others_are_not() {
        let source = "let s = unsafe { (api.hipMemcpyAsync)(d, s, n, k, q) };\n\
                      check(unsafe { (cu.rocblas_sgemm)(h) }, \"x\")?; (f)(x); (self.callback)(y);\n\
                      // (api.hipFree)(p) in a comment\n\
                      let x = (a.b)(c); (lib.miopenCreate)(&mut h);";
        assert_eq!(
            c_calls(source),
            [
                (1, "api.hipMemcpyAsync".to_owned()),
                (2, "cu.rocblas_sgemm".to_owned()),
                (4, "lib.miopenCreate".to_owned())
            ]
        );
    }

    #[test]
    fn the_doors_are_the_raw_modules_only() {
        for door in ["hip-core/src/raw/mem.rs", "hip-libs/src/blas/raw/scalar.rs", "hip-libs/src/fft/raw.rs"] {
            assert!(is_door(Path::new(door)), "{door}");
        }
        for other in ["hip-libs/src/fft/exec.rs", "amdgpu/src/copy.rs", "hip-pool/src/driver/raw_notes.rs"] {
            assert!(!is_door(Path::new(other)), "{other}");
        }
        assert!(!is_door(Path::new("hip-core/src/error.rs")), "no exception");
    }

    #[test]
    fn every_call_into_c_in_the_workspace_goes_through_its_door() {
        let (strays, total) = strays(&crate::workspace_root()).expect("the sources are readable");
        assert!(total > 80, "the scan found {total} calls (99 when written): it no longer sees them");
        assert!(strays.is_empty(), "{}", run(&crate::workspace_root()).unwrap_err());
    }
}
