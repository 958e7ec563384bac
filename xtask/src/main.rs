//! Project automation, run as `cargo xtask <command>`.
//!
//! - `bindgen [--check]`: regenerate `hip-abi/src/bindings/{hip,rocsparse,rocfft,hiprtc}.rs`
//!   from the headers of Debian's ROCm packages, or check that the committed
//!   files match what would be generated.
//! - `dispatch [--check]`: regenerate the per-precision dispatch traits
//!   (hip-libs's `SolverScalar`) from the bindings, or check them.
//! - `audit`: run the integration tests with hip-core's `tls-audit` feature
//!   and print, per resource drop, how often it ran and touched thread state.
//! - `doors`: check that every call into C from the crates above hip-sys is
//!   made through its crate's door (`hip_core::raw`, a library's `raw`).
//! - `layers`: check that no crate's modules import each other in a loop,
//!   at any depth, and that every source file is a declared module.
//! - `libraries`: check that every table of contents names every math
//!   library.
//! - `macros`: check that no `macro_rules!` is over 40 lines.
//! - `soundness`: check that every `unsafe impl Send`/`Sync` and every
//!   `Drop` of the crates above hip-sys has its row in the attack suite.

mod apt;
mod audit;
mod bindgen;
mod dispatch;
mod doors;
mod layers;
mod libraries;
mod macros;
mod names;
mod soundness;
mod sources;
mod table;

use std::path::PathBuf;
use std::process::ExitCode;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let result = match args.first().map(String::as_str) {
        Some("bindgen") => {
            let check = match args.get(1).map(String::as_str) {
                None => false,
                Some("--check") => true,
                Some(other) => {
                    eprintln!("xtask bindgen: unknown argument `{other}`; the only option is --check");
                    return ExitCode::from(2);
                }
            };
            bindgen::run(&workspace_root(), check)
        }
        Some("dispatch") => match args.get(1).map(String::as_str) {
            None => dispatch::run(&workspace_root(), false),
            Some("--check") => dispatch::run(&workspace_root(), true),
            Some(other) => Err(format!("xtask dispatch: unknown argument `{other}`; the only option is --check")),
        },
        Some("audit") => audit::run(&workspace_root()),
        Some("doors") => doors::run(&workspace_root()),
        Some("layers") => layers::run(&workspace_root()),
        Some("libraries") => libraries::run(&workspace_root()),
        Some("macros") => macros::run(&workspace_root()),
        Some("soundness") => soundness::run(&workspace_root()),
        Some(other) => Err(format!("unknown command `{other}`\n\n{USAGE}")),
        None => Err(USAGE.to_string()),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("xtask: {message}");
            ExitCode::FAILURE
        }
    }
}

const USAGE: &str = "usage: cargo xtask <command>

commands:
  bindgen           regenerate hip-abi/src/bindings from Debian's ROCm headers
  bindgen --check   fail if the committed bindings differ from freshly generated ones
  dispatch          regenerate the per-precision dispatch traits from the bindings
  dispatch --check  fail if a committed dispatch trait differs from a freshly generated one
  audit             run the integration tests counting thread-state accesses inside drops
  doors             fail if a call into C bypasses its crate's door (hip_core::raw, a library's raw)
  layers            fail if a crate's modules import each other in a loop, at any depth, or a file is no module
  libraries         fail if a crate root's docs, ARCHITECTURE.md or the README miss a math library
  macros            fail if a macro_rules! is over 40 lines
  soundness         fail if an unsafe impl Send/Sync or a Drop lacks its row in tests/tests/soundness.rs";

/// The workspace root: the parent of this crate's manifest directory.
pub fn workspace_root() -> PathBuf {
    let manifest = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    manifest.parent().map(PathBuf::from).unwrap_or(manifest)
}
