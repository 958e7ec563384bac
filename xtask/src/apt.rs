//! Fetch Debian packages with a private apt configuration under `target/`.
//!
//! Nothing is installed and the machine's own apt state is never touched:
//! the sources list, the package lists and the cache all live below
//! `target/xtask/apt`, and `apt-get download` + `dpkg -x` unpack the
//! headers into `target/xtask/root`.

use std::path::{Path, PathBuf};
use std::process::Command;

/// The Debian suite whose ROCm headers the bindings follow.
pub const SUITE: &str = "trixie";
/// The packages whose headers are read.
pub const PACKAGES: &[&str] = &[
    "libamdhip64-dev",
    "librocsparse-dev",
    "librocfft-dev",
    "librocblas-dev",
    "librocrand-dev",
    "librocsolver-dev",
    "librccl-dev",
];

/// A package that was downloaded and unpacked.
pub struct Unpacked {
    /// Package name.
    pub name: String,
    /// Exact Debian version, e.g. `5.7.1-6+deb13u1`.
    pub version: String,
}

/// Download and unpack [`PACKAGES`]; returns the unpack root and the versions.
pub fn fetch_headers(target: &Path) -> Result<(PathBuf, Vec<Unpacked>), String> {
    let base = target.join("xtask").join("apt");
    let lists = base.join("lists");
    let cache = base.join("cache");
    let parts = base.join("sources.list.d");
    let debs = base.join("debs");
    let root = target.join("xtask").join("root");
    for dir in [&lists.join("partial"), &cache.join("archives").join("partial"), &parts, &debs] {
        std::fs::create_dir_all(dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    }
    let sources = base.join("sources.list");
    let mirror = mirror_uri();
    std::fs::write(
        &sources,
        format!("deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] {mirror} {SUITE} main\n"),
    )
    .map_err(|e| format!("cannot write {}: {e}", sources.display()))?;

    let options = [
        format!("-oDir::Etc::SourceList={}", sources.display()),
        format!("-oDir::Etc::SourceParts={}", parts.display()),
        format!("-oDir::State::Lists={}", lists.display()),
        format!("-oDir::Cache={}", cache.display()),
        "-oAPT::Sandbox::User=root".to_string(),
        "-qq".to_string(),
    ];
    run(Command::new("apt-get").args(&options).arg("update"), "apt-get update")?;

    let mut unpacked = Vec::new();
    let _ = std::fs::remove_dir_all(&root);
    for package in PACKAGES {
        for old in read_dir(&debs)? {
            if file_name(&old).starts_with(&format!("{package}_")) {
                let _ = std::fs::remove_file(&old);
            }
        }
        run(
            Command::new("apt-get").args(&options).arg("download").arg(package).current_dir(&debs),
            &format!("apt-get download {package}"),
        )?;
        let deb = read_dir(&debs)?
            .into_iter()
            .find(|p| file_name(p).starts_with(&format!("{package}_")) && file_name(p).ends_with(".deb"))
            .ok_or_else(|| format!("apt-get download {package} left no .deb in {}", debs.display()))?;
        run(Command::new("dpkg").arg("-x").arg(&deb).arg(&root), &format!("dpkg -x {}", deb.display()))?;
        // File names are NAME_VERSION_ARCH.deb with ':' in the version escaped as %3a.
        let version = file_name(&deb).split('_').nth(1).unwrap_or("unknown").replace("%3a", ":");
        unpacked.push(Unpacked { name: package.to_string(), version });
    }
    Ok((root, unpacked))
}

/// The Debian mirror the machine's own apt sources use, else deb.debian.org.
fn mirror_uri() -> String {
    let candidates = ["/etc/apt/sources.list.d/debian.sources", "/etc/apt/sources.list"];
    for path in candidates {
        let Ok(text) = std::fs::read_to_string(path) else {
            continue;
        };
        for line in text.lines() {
            let line = line.trim();
            if let Some(uri) = line.strip_prefix("URIs:") {
                if let Some(first) = uri.split_whitespace().find(|u| !u.contains("security")) {
                    return first.to_string();
                }
            }
            if let Some(rest) = line.strip_prefix("deb ") {
                let uri = rest.split_whitespace().find(|w| w.starts_with("http"));
                if let Some(uri) = uri.filter(|u| !u.contains("security")) {
                    return uri.to_string();
                }
            }
        }
    }
    "http://deb.debian.org/debian".to_string()
}

fn run(command: &mut Command, what: &str) -> Result<(), String> {
    let output = command
        .output()
        .map_err(|e| format!("{what}: cannot start ({e}); this command needs Debian's apt-get and dpkg"))?;
    if output.status.success() {
        Ok(())
    } else {
        Err(format!(
            "{what} failed ({}):\n{}{}",
            output.status,
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr)
        ))
    }
}

fn read_dir(dir: &Path) -> Result<Vec<PathBuf>, String> {
    let entries = std::fs::read_dir(dir).map_err(|e| format!("cannot read {}: {e}", dir.display()))?;
    Ok(entries.filter_map(|e| e.ok().map(|e| e.path())).collect())
}

fn file_name(path: &Path) -> String {
    path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default()
}
