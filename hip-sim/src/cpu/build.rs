//! One compilation of a HIP program for the CPU.
//!
//! The program's source, its headers, the CPU prelude (as
//! `hip/hip_runtime.h`, with the headers all compilers share:
//! `hip/hip_cooperative_groups.h`) and the launcher are written into a private
//! directory (mode 0700, removed after), with a file that includes the
//! source and lists its kernels; the compiler runs there without a shell,
//! its arguments made of fixed words and the options the simulator
//! understands, none taken from the source. Its log names the program's
//! own file. A shared object is kept in memory, keyed by everything that
//! makes it: the source, the headers, the options, the kernels, the
//! prelude and the compiler.

use super::compiler::{self, Cxx};
use super::{object, source, HEADERS};
use crate::machine::lock::lock;
use crate::shared::prelude::SHARED;
use std::collections::hash_map::DefaultHasher;
use std::collections::HashMap;
use std::hash::{Hash, Hasher};
use std::path::{Component, Path, PathBuf};
use std::process::Command;
use std::sync::{Arc, Mutex};

/// What to compile.
pub struct Request<'a> {
    /// The program's name, which its file takes (`program.hip`).
    pub name: &'a str,
    pub source: &'a str,
    /// Headers given by name, (include name, text).
    pub headers: &'a [(String, String)],
    pub options: &'a [String],
    /// Name expressions (templates' instances), in order.
    pub expressions: &'a [String],
    /// The HIP major version simulated: the prelude's `HIP_VERSION_MAJOR`,
    /// and what it provides (the `_sync` warp intrinsics from 7).
    pub hip_major: u32,
    /// Whether to build the shared-memory race check in (racecheck.h).
    pub racecheck: bool,
}

/// A compilation's outcome: the code object, or the log.
pub struct Built {
    /// The code object (`object::encode`), `None` when it did not compile.
    pub code: Option<Arc<Vec<u8>>>,
    /// The compiler's messages, or why it did not run.
    pub log: String,
    /// Whether an option was refused (hipRTC's `HIPRTC_ERROR_INVALID_OPTION`).
    pub invalid_option: bool,
}

/// The compiled code objects of the process, by key.
static CACHE: Mutex<Option<HashMap<u64, Arc<Vec<u8>>>>> = Mutex::new(None);

/// Compile `request`, or find it compiled.
pub fn build(request: &Request<'_>) -> Built {
    let cxx = match compiler::find() {
        Ok(cxx) => cxx,
        Err(why) => return Built { code: None, log: format!("{}: error: {why}", request.name), invalid_option: false },
    };
    let flags = match flags(request.options) {
        Ok(mut flags) => {
            flags.push(format!("-DAMDGPU_SIM_HIP_MAJOR={}", request.hip_major));
            if request.racecheck {
                flags.extend(RACECHECK.iter().map(|f| f.to_string()));
            }
            flags
        }
        Err(option) => {
            return Built {
                code: None,
                log: format!(
                    "{}: error: the simulator's compiler does not take the option `{option}` (it takes -D, -U, -O, \
                     -std=c++17/20, -ffast-math, -g, -w and ignores GPU architecture options)",
                    request.name
                ),
                invalid_option: true,
            }
        }
    };
    let key = key(request, &flags);
    if let Some(code) = lock(&CACHE).get_or_insert_with(HashMap::new).get(&key) {
        return Built { code: Some(code.clone()), log: String::new(), invalid_option: false };
    }
    match compile(request, &flags, cxx) {
        Ok((so, log)) => {
            let code = Arc::new(object::encode(&so));
            lock(&CACHE).get_or_insert_with(HashMap::new).insert(key, code.clone());
            Built { code: Some(code), log, invalid_option: false }
        }
        Err(log) => Built { code: None, log, invalid_option: false },
    }
}

/// The name a name expression's kernel is looked up by: the expression,
/// without a leading `&` or spaces.
pub fn lowered(expression: &str) -> String {
    expression.trim().trim_start_matches('&').split_whitespace().collect::<Vec<_>>().join(" ")
}

/// The compiler flags the options give; the option refused, if one is.
fn flags(options: &[String]) -> Result<Vec<String>, String> {
    let mut flags = Vec::new();
    let mut optimization = "-O2".to_owned();
    let mut standard = "-std=c++17".to_owned();
    for option in options {
        let o = option.trim();
        if o.starts_with("-D") || o.starts_with("-U") {
            flags.push(o.to_owned());
        } else if matches!(o, "-O0" | "-O1" | "-O2" | "-O3") {
            optimization = o.to_owned();
        } else if matches!(o, "-std=c++17" | "-std=c++20" | "--std=c++17" | "--std=c++20") {
            standard = o.trim_start_matches('-').replace("std=", "-std=");
        } else if matches!(o, "-ffast-math" | "-g" | "-w") {
            flags.push(o.to_owned());
        } else if o.starts_with("--offload-arch=")
            || o.starts_with("--gpu-architecture=")
            || o.starts_with("-arch=")
            || o.starts_with("--gpu-max-threads-per-block=")
            || o == "-fgpu-rdc"
        {
            // The GPU's architecture: the CPU has its own.
        } else {
            return Err(o.to_owned());
        }
    }
    flags.push(optimization);
    flags.push(standard);
    Ok(flags)
}

/// What decides the code this process's compilations make beside their
/// inputs, for a cache across processes: the C++ compiler, the headers
/// (prelude and launcher) and the race check.
pub fn identity() -> String {
    let mut h = DefaultHasher::new();
    (HEADERS, SHARED).hash(&mut h);
    let cxx = match compiler::find() {
        Ok(cxx) => format!("{} {}", cxx.path.display(), cxx.version),
        Err(_) => "no C++ compiler".to_owned(),
    };
    let racecheck = crate::machine::sim().config.racecheck;
    format!("cpu: {cxx}; headers {:016x}; racecheck {racecheck}", h.finish())
}

/// The key of a compiled object in memory: its inputs, and what
/// [`identity`] says makes it.
fn key(request: &Request<'_>, flags: &[String]) -> u64 {
    let mut h = DefaultHasher::new();
    (request.name, request.source, request.headers, request.options, request.expressions, flags).hash(&mut h);
    identity().hash(&mut h);
    h.finish()
}

/// The flags of a build with the race check: the compiler's
/// thread-sanitizer instrumentation, whose calls the launcher answers
/// (racecheck.h). Its runtime is not linked: the object is compiled, then
/// linked without them.
const RACECHECK: [&str; 2] = ["-fsanitize=thread", "-DAMDGPU_SIM_RACECHECK=1"];

/// A private directory, removed when dropped.
struct Scratch(PathBuf);

impl Scratch {
    fn new() -> Result<Scratch, String> {
        use std::os::unix::fs::DirBuilderExt;
        static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
        for _ in 0..16 {
            let n = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            let nanos = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_nanos());
            let dir = std::env::temp_dir().join(format!("hip-sim-cxx-{}-{n}-{nanos}", std::process::id()));
            match std::fs::DirBuilder::new().mode(0o700).create(&dir) {
                Ok(()) => return Ok(Scratch(dir)),
                Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => continue,
                Err(e) => return Err(format!("cannot make a directory for the compiler in {}: {e}", dir.display())),
            }
        }
        Err("cannot make a private directory for the compiler".to_owned())
    }

    /// Write `text` at `relative`, which must stay inside.
    fn write(&self, relative: &str, text: &[u8]) -> Result<(), String> {
        let path = Path::new(relative);
        let inside = path.components().all(|c| matches!(c, Component::Normal(_)));
        if !inside || relative.is_empty() {
            return Err(format!("the header name `{relative}` is not a relative path inside the program"));
        }
        let full = self.0.join(path);
        if let Some(parent) = full.parent() {
            std::fs::create_dir_all(parent).map_err(|e| format!("{}: {e}", parent.display()))?;
        }
        std::fs::write(&full, text).map_err(|e| format!("{}: {e}", full.display()))
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// The file name the program's source takes: its name's last part, or
/// `program.hip`.
fn file_name(name: &str) -> String {
    let base = Path::new(name).file_name().and_then(|n| n.to_str()).unwrap_or("");
    let clean = !base.is_empty() && base.chars().all(|c| c.is_ascii_alphanumeric() || "._-".contains(c));
    if clean && base != "amdgpu_sim_wrapper.cpp" {
        base.to_owned()
    } else {
        "program.hip".to_owned()
    }
}

/// GCC's TLS descriptors, with which the launcher's thread-locals cost a
/// load rather than a call in a library loaded at run time (clang before
/// 19 does not take the option, and is left to its default).
fn tls_descriptors(cxx: &Cxx) -> &'static [&'static str] {
    if cxx.version.contains("clang") {
        &[]
    } else {
        &["-mtls-dialect=gnu2"]
    }
}

/// Run the compiler: the shared object and the log, or the log.
fn compile(request: &Request<'_>, flags: &[String], cxx: &Cxx) -> Result<(Vec<u8>, String), String> {
    let scratch = Scratch::new().map_err(|e| format!("{}: error: {e}", request.name))?;
    let file = file_name(request.name);
    let fail = |e: String| format!("{}: error: {e}", request.name);
    scratch.write(&format!("src/{file}"), source::dynamic_shared(request.source).as_bytes()).map_err(fail)?;
    for header in HEADERS.iter().chain(SHARED) {
        scratch.write(&format!("include/{}", header.name), header.text.as_bytes()).map_err(fail)?;
    }
    for (name, text) in request.headers {
        scratch.write(&format!("src/{name}"), text.as_bytes()).map_err(fail)?;
    }
    let mut kernels: Vec<(String, String)> =
        scan(&scratch, &file, flags, cxx)?.into_iter().map(|k| (k.clone(), k)).collect();
    kernels.extend(request.expressions.iter().map(|e| (lowered(e), e.clone())));
    scratch.write("src/amdgpu_sim_wrapper.cpp", source::wrapper(&file, &kernels).as_bytes()).map_err(fail)?;
    // With the race check, compiled to an object first, then linked
    // without the sanitizer's runtime (see RACECHECK).
    let (step, out) = if request.racecheck { ("-c", "../kernels.o") } else { ("-shared", "../kernels.so") };
    let output = Command::new(&cxx.path)
        .current_dir(scratch.0.join("src"))
        .args(flags)
        .args(["-fPIC", step, "-pthread", "-fno-exceptions", "-I", "../include", "-o", out])
        // Nothing of the object but its table of kernels is looked up from
        // outside (source::wrapper exports it): hidden, a kernel can be
        // inlined into the loop that runs a block's threads (a function
        // another library could interpose cannot), and the thread-locals
        // are reached from one base per function instead of one lookup
        // each (the elementwise bench, 107 → 99 ms).
        .arg("-fvisibility=hidden")
        .args(tls_descriptors(cxx))
        .args(["-x", "c++", "amdgpu_sim_wrapper.cpp"])
        .env("LC_ALL", "C")
        .output()
        .map_err(|e| format!("{}: error: running {}: {e}", request.name, cxx.path.display()))?;
    let prefix = format!("{}/", scratch.0.join("src").display());
    let log = String::from_utf8_lossy(&output.stderr).replace(&prefix, "").replace("../include/", "");
    if !output.status.success() {
        return Err(if log.trim().is_empty() { format!("{}: error: the compiler failed", request.name) } else { log });
    }
    if request.racecheck {
        let linked = Command::new(&cxx.path)
            .current_dir(scratch.0.join("src"))
            .args(["-shared", "-pthread", "-o", "../kernels.so", "../kernels.o"])
            .env("LC_ALL", "C")
            .output()
            .map_err(|e| format!("{}: error: running {}: {e}", request.name, cxx.path.display()))?;
        if !linked.status.success() {
            return Err(format!(
                "{}: error: linking the race check's object failed: {}",
                request.name,
                String::from_utf8_lossy(&linked.stderr)
            ));
        }
    }
    let so = std::fs::read(scratch.0.join("kernels.so")).map_err(|e| format!("{}: error: {e}", request.name))?;
    Ok((so, log))
}

/// The kernels of the program's own files (`file` and the headers it
/// includes from beside it), read after the preprocessor, as the compiler
/// sees them: a kernel inside `#if 0`, or under a condition the options
/// or the prelude leave false, is none. The prelude keeps the word
/// `__global__` for this pass (`AMDGPU_SIM_SCAN`).
fn scan(scratch: &Scratch, file: &str, flags: &[String], cxx: &Cxx) -> Result<Vec<String>, String> {
    let unit = format!("#include <hip/hip_runtime.h>\n#include \"{file}\"\n");
    scratch.write("src/amdgpu_sim_scan.cpp", unit.as_bytes())?;
    let output = Command::new(&cxx.path)
        .current_dir(scratch.0.join("src"))
        .args(flags)
        .args(["-E", "-DAMDGPU_SIM_SCAN", "-I", "../include", "-x", "c++", "amdgpu_sim_scan.cpp"])
        .env("LC_ALL", "C")
        .output()
        .map_err(|e| format!("{file}: error: running {}: {e}", cxx.path.display()))?;
    if !output.status.success() {
        // The compilation proper reports the error, with its log.
        return Ok(Vec::new());
    }
    let text = String::from_utf8_lossy(&output.stdout);
    Ok(source::kernels(&source::own_lines(&text)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn options_for_the_gpu_are_ignored_and_unknown_ones_refused() {
        let given = |o: &[&str]| flags(&o.iter().map(|s| s.to_string()).collect::<Vec<_>>());
        assert_eq!(given(&["-DN=4", "--offload-arch=gfx90a", "-O3"]).unwrap(), ["-DN=4", "-O3", "-std=c++17"]);
        assert_eq!(given(&["--save-temps"]).unwrap_err(), "--save-temps");
        assert_eq!(given(&["-I/etc"]).unwrap_err(), "-I/etc", "no include paths from outside");
    }

    #[test]
    fn file_names_stay_inside_the_directory() {
        assert_eq!(file_name("rtc_kernels.hip"), "rtc_kernels.hip");
        assert_eq!(file_name("../../etc/passwd"), "passwd");
        assert_eq!(file_name("a b;rm.hip"), "program.hip");
        assert_eq!(lowered(" &axpy<float> "), "axpy<float>");
    }
}
