//! The kernel cache: compiled [`Code`] keyed by (source, name, options,
//! headers, name expressions, architecture, backend and runtime
//! versions), in memory for the process and, where asked, on disk; and
//! the [`Program`] methods that go through it.

use crate::raw::rtc::Failed;
use crate::{raw, Code, CompileError, Device, HipError, Module, Program, Result, Target};
use hip_sys::sync::MutexExt;
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, OnceLock};

/// Where a [`KernelCache::get_or_compile`] answer came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CacheOrigin {
    /// The compiler ran.
    Compiled,
    /// This process had compiled it before.
    Memory,
    /// The disk cache had it (from this or an earlier process).
    Disk,
}

/// A kernel cache's counters.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct CacheStats {
    /// Compilations run.
    pub compiles: u64,
    /// Answers from memory.
    pub memory_hits: u64,
    /// Answers from disk.
    pub disk_hits: u64,
    /// Entries written to disk.
    pub disk_writes: u64,
    /// Disk entries ignored as corrupt or foreign (then recompiled).
    pub disk_rejected: u64,
}

/// Compiled code by program and target: in memory, and in a directory when
/// one is given.
///
/// The process's cache, [`KernelCache::global`], writes to disk only where
/// `AMDGPU_KERNEL_CACHE=<dir>` asks (read once, at first use; off by
/// default). Disk entries are written atomically (a temporary file renamed
/// into place), so concurrent processes never see half an entry; an entry
/// that is corrupt, of another format version or of another key is
/// ignored with a log line and compiled again.
pub struct KernelCache {
    memory: Mutex<HashMap<Vec<u8>, Arc<Code>>>,
    disk: Option<PathBuf>,
    compiles: AtomicU64,
    memory_hits: AtomicU64,
    disk_hits: AtomicU64,
    disk_writes: AtomicU64,
    disk_rejected: AtomicU64,
}

impl KernelCache {
    /// A cache of its own, on disk in `disk` if given.
    pub fn new(disk: Option<PathBuf>) -> KernelCache {
        KernelCache {
            memory: Mutex::new(HashMap::new()),
            disk,
            compiles: AtomicU64::new(0),
            memory_hits: AtomicU64::new(0),
            disk_hits: AtomicU64::new(0),
            disk_writes: AtomicU64::new(0),
            disk_rejected: AtomicU64::new(0),
        }
    }

    /// The process's cache, on disk where `AMDGPU_KERNEL_CACHE` names a
    /// directory.
    pub fn global() -> &'static KernelCache {
        static GLOBAL: OnceLock<KernelCache> = OnceLock::new();
        GLOBAL.get_or_init(|| {
            let disk = std::env::var_os("AMDGPU_KERNEL_CACHE").filter(|d| !d.is_empty()).map(PathBuf::from);
            KernelCache::new(disk)
        })
    }

    /// The directory of the disk cache, if there is one.
    pub fn directory(&self) -> Option<&Path> {
        self.disk.as_deref()
    }

    /// The counters so far.
    pub fn stats(&self) -> CacheStats {
        CacheStats {
            compiles: self.compiles.load(Ordering::Relaxed),
            memory_hits: self.memory_hits.load(Ordering::Relaxed),
            disk_hits: self.disk_hits.load(Ordering::Relaxed),
            disk_writes: self.disk_writes.load(Ordering::Relaxed),
            disk_rejected: self.disk_rejected.load(Ordering::Relaxed),
        }
    }

    /// `program`'s code for `device`: from memory, else from disk, else
    /// compiled (and kept in both). Failures are not cached.
    ///
    /// # Errors
    /// As [`Device::target`]; [`HipError::Backend`] or HIP's status when the
    /// runtime's or compiler's version (part of the key) cannot be read;
    /// else as [`Program::compile`] on a miss. A disk entry that cannot be
    /// read or written is logged and skipped, never an error.
    pub fn get_or_compile(&self, program: &Program, device: Device) -> Result<(Arc<Code>, CacheOrigin)> {
        let key = key(program, &device.target()?, &runtime_versions()?);
        self.get_or_insert_with(&key, || program.compile(device))
    }

    /// `program`'s code for `target` (no device): from memory, else from
    /// disk, else compiled with [`Program::compile_for`]. The key holds
    /// the full target id (`gfx90a:xnack+` and `gfx90a:xnack-` are two
    /// entries) and the compiler's file and version.
    ///
    /// # Errors
    /// [`HipError::Backend`] when the target's compiler is not installed;
    /// [`HipError::Compile`] when its version cannot be read; else as
    /// [`Program::compile_for`] on a miss. Disk failures are only logged.
    pub fn get_or_compile_for(&self, program: &Program, target: &Target) -> Result<(Arc<Code>, CacheOrigin)> {
        let compiler = raw::rtc::compiler_of(target.compiler())?;
        let key = key(program, &target.to_string(), &compiler_identity(compiler)?);
        self.get_or_insert_with(&key, || program.compile_for(target))
    }

    /// The entry of `key`, or what `compile` makes of it.
    pub(crate) fn get_or_insert_with(
        &self,
        key: &[u8],
        compile: impl FnOnce() -> Result<Code>,
    ) -> Result<(Arc<Code>, CacheOrigin)> {
        if let Some(code) = self.lock().get(key) {
            self.memory_hits.fetch_add(1, Ordering::Relaxed);
            return Ok((code.clone(), CacheOrigin::Memory));
        }
        let path = self.disk.as_ref().map(|dir| dir.join(format!("{}.kernel", hex_hash(key))));
        if let Some(path) = &path {
            match read_entry(path, key) {
                Ok(Some(code)) => {
                    self.disk_hits.fetch_add(1, Ordering::Relaxed);
                    let code = Arc::new(code);
                    self.lock().insert(key.to_vec(), code.clone());
                    return Ok((code, CacheOrigin::Disk));
                }
                Ok(None) => {}
                Err(reason) => {
                    self.disk_rejected.fetch_add(1, Ordering::Relaxed);
                    log::warn!("kernel cache: ignoring {}: {reason}; compiling again", path.display());
                }
            }
        }
        let code = Arc::new(compile()?);
        self.compiles.fetch_add(1, Ordering::Relaxed);
        if let Some(path) = &path {
            match write_entry(path, key, &code) {
                Ok(()) => {
                    self.disk_writes.fetch_add(1, Ordering::Relaxed);
                }
                Err(error) => log::warn!("kernel cache: cannot write {}: {error}", path.display()),
            }
        }
        self.lock().insert(key.to_vec(), code.clone());
        Ok((code, CacheOrigin::Compiled))
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<Vec<u8>, Arc<Code>>> {
        self.memory.lock_unpoisoned()
    }
}

impl std::fmt::Debug for KernelCache {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "KernelCache({} entries, disk {:?}, {:?})", self.lock().len(), self.disk, self.stats())
    }
}

impl Program {
    /// The code for `device`, from the process's [kernel
    /// cache](crate::KernelCache::global) (and its disk cache where
    /// `AMDGPU_KERNEL_CACHE` names one), compiled on a miss.
    ///
    /// # Errors
    /// As [`KernelCache::get_or_compile`].
    pub fn build(&self, device: Device) -> Result<Arc<Code>> {
        KernelCache::global().get_or_compile(self, device).map(|(code, _)| code)
    }

    /// [`Program::build`], loaded on `device`.
    ///
    /// # Errors
    /// As [`Program::build`], then as [`Module::load`].
    pub fn load(&self, device: Device) -> Result<Module> {
        self.build(device)?.load(device)
    }

    /// The code for `target` (no device), from the process's kernel cache,
    /// compiled with [`Program::compile_for`] on a miss.
    ///
    /// # Errors
    /// As [`KernelCache::get_or_compile_for`].
    pub fn build_for(&self, target: &Target) -> Result<Arc<Code>> {
        KernelCache::global().get_or_compile_for(self, target).map(|(code, _)| code)
    }
}

/// A compiler as text for keys: which, its file and its version (AMD's
/// hipRTC reports 9.0 in every release, so the file tells releases apart).
fn compiler_identity(compiler: raw::rtc::Compiler) -> Result<String> {
    let (major, minor) = compiler.version().map_err(|Failed { operation, status }| {
        HipError::Compile(Box::new(CompileError {
            operation,
            status,
            program: String::new(),
            target: String::new(),
            log: String::new(),
        }))
    })?;
    Ok(format!("{} {} {major}.{minor} {}", compiler.kind(), compiler.library(), (compiler.info().builds)()))
}

/// The backend, the HIP runtime's version and the compiler's, as text.
fn runtime_versions() -> Result<String> {
    static VERSIONS: OnceLock<String> = OnceLock::new();
    if let Some(v) = VERSIONS.get() {
        return Ok(v.clone());
    }
    let runtime = raw::runtime::version()?;
    let compiler = compiler_identity(raw::rtc::compiler()?)?;
    let text = format!("{:?} runtime {runtime} compiler {compiler}", hip_sys::backend());
    Ok(VERSIONS.get_or_init(|| text).clone())
}

/// Append `bytes` with its length.
fn field(out: &mut Vec<u8>, bytes: &[u8]) {
    out.extend_from_slice(&(bytes.len() as u64).to_le_bytes());
    out.extend_from_slice(bytes);
}

/// The key: every input of the compilation, length-prefixed.
pub(crate) fn key(program: &Program, target: &str, versions: &str) -> Vec<u8> {
    let mut out = Vec::with_capacity(program.source.len() + 256);
    field(&mut out, b"amdgpu-kernel-key v1");
    field(&mut out, versions.as_bytes());
    field(&mut out, target.as_bytes());
    field(&mut out, program.name.as_bytes());
    field(&mut out, program.source.as_bytes());
    out.extend_from_slice(&(program.options.len() as u64).to_le_bytes());
    for option in &program.options {
        field(&mut out, option.as_bytes());
    }
    out.extend_from_slice(&(program.headers.len() as u64).to_le_bytes());
    for (name, text) in &program.headers {
        field(&mut out, name.as_bytes());
        field(&mut out, text.as_bytes());
    }
    out.extend_from_slice(&(program.name_expressions.len() as u64).to_le_bytes());
    for expression in &program.name_expressions {
        field(&mut out, expression.as_bytes());
    }
    out
}

/// FNV-1a, 64 bits, from `seed`.
fn fnv1a(bytes: &[u8], seed: u64) -> u64 {
    bytes.iter().fold(seed, |h, b| (h ^ u64::from(*b)).wrapping_mul(0x0000_0100_0000_01b3))
}

/// A file name for `key`: 128 bits of two FNV-1a hashes (the entry holds
/// the whole key, so a collision only costs a compilation).
fn hex_hash(key: &[u8]) -> String {
    format!("{:016x}{:016x}", fnv1a(key, 0xcbf2_9ce4_8422_2325), fnv1a(key, 0x6c62_272e_07bb_0142))
}

/// The first line of every entry, with the format version.
const MAGIC: &[u8] = b"amdgpu-kernel-cache v1\n";

/// An entry: MAGIC, then length-prefixed key, target, log, lowered names
/// (a count, then expression and symbol each) and code, then FNV-1a of all
/// of it.
pub(crate) fn encode(key: &[u8], code: &Code) -> Vec<u8> {
    let mut out = Vec::with_capacity(key.len() + code.bytes.len() + code.log.len() + 128);
    out.extend_from_slice(MAGIC);
    field(&mut out, key);
    field(&mut out, code.target.as_bytes());
    field(&mut out, code.log.as_bytes());
    out.extend_from_slice(&(code.lowered.len() as u64).to_le_bytes());
    for (expression, symbol) in &code.lowered {
        field(&mut out, expression.as_bytes());
        field(&mut out, symbol.as_bytes());
    }
    field(&mut out, &code.bytes);
    let sum = fnv1a(&out, 0xcbf2_9ce4_8422_2325);
    out.extend_from_slice(&sum.to_le_bytes());
    out
}

/// A reader over an entry's bytes.
struct Reader<'a>(&'a [u8]);

impl<'a> Reader<'a> {
    fn take(&mut self, n: usize) -> std::result::Result<&'a [u8], String> {
        if self.0.len() < n {
            return Err(format!("truncated ({} bytes short)", n - self.0.len()));
        }
        let (head, rest) = self.0.split_at(n);
        self.0 = rest;
        Ok(head)
    }
    fn number(&mut self) -> std::result::Result<usize, String> {
        let mut raw = [0u8; 8];
        raw.copy_from_slice(self.take(8)?);
        usize::try_from(u64::from_le_bytes(raw)).map_err(|_| "a length out of range".to_owned())
    }
    fn field(&mut self) -> std::result::Result<&'a [u8], String> {
        let n = self.number()?;
        self.take(n)
    }
    fn text(&mut self) -> std::result::Result<String, String> {
        String::from_utf8(self.field()?.to_vec()).map_err(|_| "text that is not UTF-8".to_owned())
    }
}

/// Decode an entry of `key`; the error says why it is not one.
pub(crate) fn decode(bytes: &[u8], key: &[u8]) -> std::result::Result<Code, String> {
    if !bytes.starts_with(MAGIC) {
        return Err("not a kernel cache entry of this version (its first line differs)".to_owned());
    }
    if bytes.len() < MAGIC.len() + 8 {
        return Err("truncated".to_owned());
    }
    let (body, sum) = bytes.split_at(bytes.len() - 8);
    let mut raw = [0u8; 8];
    raw.copy_from_slice(sum);
    if fnv1a(body, 0xcbf2_9ce4_8422_2325) != u64::from_le_bytes(raw) {
        return Err("corrupt (its checksum does not match)".to_owned());
    }
    let mut r = Reader(&body[MAGIC.len()..]);
    if r.field()? != key {
        return Err("the entry of another program, target or runtime (its key differs)".to_owned());
    }
    let target = r.text()?;
    let log = r.text()?;
    let count = r.number()?;
    let mut lowered = Vec::with_capacity(count.min(1024));
    for _ in 0..count {
        lowered.push((r.text()?, r.text()?));
    }
    let code = r.field()?.to_vec();
    if !r.0.is_empty() {
        return Err(format!("{} bytes of trailing data", r.0.len()));
    }
    Ok(Code { bytes: code, log, lowered, target })
}

/// The entry at `path`, `None` if there is none.
fn read_entry(path: &Path, key: &[u8]) -> std::result::Result<Option<Code>, String> {
    match std::fs::read(path) {
        Ok(bytes) => decode(&bytes, key).map(Some),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(format!("unreadable ({e})")),
    }
}

/// Write the entry to a temporary file beside `path`, then rename it there.
fn write_entry(path: &Path, key: &[u8], code: &Code) -> std::io::Result<()> {
    use std::io::Write;
    static SERIAL: AtomicU64 = AtomicU64::new(0);
    let dir = path.parent().unwrap_or_else(|| Path::new("."));
    std::fs::create_dir_all(dir)?;
    let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    let temporary = dir.join(format!(".{name}.{}.{}.tmp", std::process::id(), SERIAL.fetch_add(1, Ordering::Relaxed)));
    let result = (|| {
        let mut file = std::fs::File::create(&temporary)?;
        file.write_all(&encode(key, code))?;
        file.sync_all()?;
        std::fs::rename(&temporary, path)
    })();
    if result.is_err() {
        let _ = std::fs::remove_file(&temporary);
    }
    result
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::cell::Cell;

    fn code(bytes: &[u8]) -> Code {
        Code {
            bytes: bytes.to_vec(),
            log: "a warning".into(),
            lowered: vec![("axpy<float>".into(), "_Z4axpyIfEvT_PKS0_PS0_j".into())],
            target: "sm_90".into(),
        }
    }

    fn scratch(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("amdgpu-kernel-cache-test-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        dir
    }

    #[test]
    fn keys_change_with_every_input() {
        let base = Program::new("src").option("-O3").header("a.h", "int a;").name_expression("k<int>");
        let k = key(&base, "sm_90", "v1");
        for other in [
            key(&base, "sm_80", "v1"),
            key(&base, "sm_90", "v2"),
            key(&base.clone().option("-DX"), "sm_90", "v1"),
            key(&base.clone().header("b.h", ""), "sm_90", "v1"),
            key(&base.clone().name_expression("k<float>"), "sm_90", "v1"),
            key(&base.clone().name("other.hip"), "sm_90", "v1"),
            key(&Program::new("src2").option("-O3").header("a.h", "int a;").name_expression("k<int>"), "sm_90", "v1"),
        ] {
            assert_ne!(k, other);
        }
        assert_eq!(k, key(&base.clone(), "sm_90", "v1"));
        // Length prefixes keep field boundaries: "ab" + "c" is not "a" + "bc".
        assert_ne!(
            key(&Program::new("x").option("ab").option("c"), "t", "v"),
            key(&Program::new("x").option("a").option("bc"), "t", "v")
        );
    }

    #[test]
    fn on_the_simulator_the_key_names_what_builds_its_cpu_code() {
        if hip_sys::backend() != hip_sys::Backend::Sim {
            return;
        }
        // A kernel cached by a process with another prelude, launcher,
        // C++ compiler or race-check setting is not served to this one.
        let versions = runtime_versions().unwrap();
        assert!(versions.contains("; headers ") && versions.contains("; racecheck false"), "{versions}");
    }

    #[test]
    fn entries_round_trip_and_bad_ones_say_why() {
        let entry = encode(b"key", &code(b"\x7fELF code"));
        assert_eq!(decode(&entry, b"key"), Ok(code(b"\x7fELF code")));
        assert!(decode(&entry, b"other").unwrap_err().contains("key differs"));
        let mut flipped = entry.clone();
        flipped[MAGIC.len() + 12] ^= 1;
        assert!(decode(&flipped, b"key").unwrap_err().contains("checksum"));
        assert!(decode(&entry[..entry.len() - 3], b"key").is_err());
        assert!(decode(b"amdgpu-kernel-cache v0\nxxxxxxxxxxxx", b"key").unwrap_err().contains("first line"));
    }

    #[test]
    fn every_flipped_byte_and_every_truncation_is_refused_without_a_panic() {
        let entry = encode(b"key", &code(b"\x7fELF code"));
        for i in 0..entry.len() {
            let mut bad = entry.clone();
            bad[i] ^= 0x5a;
            assert!(decode(&bad, b"key").is_err(), "byte {i} flipped");
            assert!(decode(&entry[..i], b"key").is_err(), "truncated to {i}");
        }
        // Lengths that lie, under a valid checksum, are refused too.
        let mut lying = MAGIC.to_vec();
        lying.extend_from_slice(&u64::MAX.to_le_bytes());
        let sum = fnv1a(&lying, 0xcbf2_9ce4_8422_2325);
        lying.extend_from_slice(&sum.to_le_bytes());
        assert!(decode(&lying, b"key").is_err());
    }

    #[test]
    fn hits_skip_compilation_in_memory_and_on_disk() {
        let dir = scratch("hits");
        let compiles = Cell::new(0);
        let compile = || {
            compiles.set(compiles.get() + 1);
            Ok(code(b"CODE"))
        };
        let first = KernelCache::new(Some(dir.clone()));
        assert_eq!(first.get_or_insert_with(b"k", compile).unwrap().1, CacheOrigin::Compiled);
        assert_eq!(first.get_or_insert_with(b"k", compile).unwrap().1, CacheOrigin::Memory);
        assert_eq!(compiles.get(), 1);
        assert_eq!(first.stats(), CacheStats { compiles: 1, memory_hits: 1, disk_writes: 1, ..CacheStats::default() });
        let files: Vec<_> = std::fs::read_dir(&dir).unwrap().map(|e| e.unwrap().file_name()).collect();
        assert_eq!(files.len(), 1, "one entry and no temporary files: {files:?}");

        // A new cache over the same directory is what a new process sees.
        let second = KernelCache::new(Some(dir.clone()));
        let (got, origin) = second.get_or_insert_with(b"k", compile).unwrap();
        assert_eq!((origin, compiles.get()), (CacheOrigin::Disk, 1));
        assert_eq!(*got, code(b"CODE"));
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn corrupt_and_foreign_entries_are_ignored_and_rewritten() {
        let dir = scratch("corrupt");
        let compiles = Cell::new(0);
        let compile = || {
            compiles.set(compiles.get() + 1);
            Ok(code(b"FRESH"))
        };
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join(format!("{}.kernel", hex_hash(b"k")));
        for bad in [b"garbage".to_vec(), encode(b"another key", &code(b"OLD"))] {
            std::fs::write(&path, bad).unwrap();
            let cache = KernelCache::new(Some(dir.clone()));
            let (got, origin) = cache.get_or_insert_with(b"k", compile).unwrap();
            assert_eq!((origin, &got.bytes[..]), (CacheOrigin::Compiled, &b"FRESH"[..]));
            assert_eq!(cache.stats().disk_rejected, 1);
            assert_eq!(decode(&std::fs::read(&path).unwrap(), b"k"), Ok(code(b"FRESH")), "rewritten");
        }
        assert_eq!(compiles.get(), 2);
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn failures_are_not_cached() {
        let cache = KernelCache::new(None);
        let fail = || Err(HipError::InvalidLaunch("no".into()));
        assert!(cache.get_or_insert_with(b"k", fail).is_err());
        assert_eq!(cache.get_or_insert_with(b"k", || Ok(code(b"C"))).unwrap().1, CacheOrigin::Compiled);
    }
}
