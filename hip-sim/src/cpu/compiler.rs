//! The host's C++ compiler: `AMDGPU_SIM_CXX` names one (a path, or a name
//! looked up on `PATH`), else the first of `c++`, `g++` and `clang++` on
//! `PATH`; its version (the first line of `--version`) keys the cache.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

/// A C++ compiler found on this machine.
#[derive(Debug, Clone)]
pub struct Cxx {
    /// Its path.
    pub path: PathBuf,
    /// The first line of its `--version`.
    pub version: String,
}

/// The compilers tried on `PATH`, in order.
const CANDIDATES: [&str; 3] = ["c++", "g++", "clang++"];

/// The variable that names the compiler.
pub const VARIABLE: &str = "AMDGPU_SIM_CXX";

/// The compiler, found once for the process; or why there is none, with
/// what to install.
pub fn find() -> Result<&'static Cxx, &'static str> {
    static FOUND: OnceLock<Result<Cxx, String>> = OnceLock::new();
    FOUND.get_or_init(search).as_ref().map_err(String::as_str)
}

fn search() -> Result<Cxx, String> {
    let named = std::env::var_os(VARIABLE).filter(|v| !v.is_empty());
    let path = match &named {
        Some(name) => on_path(Path::new(name)).ok_or_else(|| {
            format!(
                "{VARIABLE}={} names no compiler that can be run; name a C++ compiler (g++ or clang++) or unset it",
                name.to_string_lossy()
            )
        })?,
        None => CANDIDATES.iter().find_map(|c| on_path(Path::new(c))).ok_or_else(|| {
            format!(
                "the simulator found no C++ compiler to run HIP kernels on the CPU: install one (Debian and \
                 Ubuntu: apt-get install g++; Fedora: dnf install gcc-c++; macOS: xcode-select --install) or \
                 name it with {VARIABLE}"
            )
        })?,
    };
    let output = Command::new(&path).arg("--version").output().map_err(|e| format!("{}: {e}", path.display()))?;
    let version = String::from_utf8_lossy(&output.stdout).lines().next().unwrap_or("").trim().to_owned();
    if !output.status.success() || version.is_empty() {
        return Err(format!("{} --version failed: is it a C++ compiler?", path.display()));
    }
    Ok(Cxx { path, version })
}

/// `name` as a file to run: a path as it is, a bare name looked up on
/// `PATH`.
fn on_path(name: &Path) -> Option<PathBuf> {
    if name.components().count() > 1 {
        return name.is_file().then(|| name.to_owned());
    }
    std::env::split_paths(&std::env::var_os("PATH")?).map(|dir| dir.join(name)).find(|p| p.is_file())
}
