//! A loaded shared object of kernels compiled for the CPU, and its
//! kernels as the launcher lists them.
//!
//! The object is written to an anonymous file and opened from there, once
//! per distinct object for the process; it stays loaded (and its file
//! open) until the process ends, since a fault handler it installed may
//! still be called.

use super::statics::{self, Static};
use crate::bindings::hip::hipError_t;
use crate::machine::lock::lock;
use std::collections::hash_map::DefaultHasher;
use std::collections::HashMap;
use std::ffi::{c_char, c_int, c_void, CStr};
use std::hash::{Hash, Hasher};
use std::io::Write;
use std::os::unix::io::FromRawFd;
use std::sync::atomic::AtomicU64;
use std::sync::{Arc, Mutex};

/// `amdgpu_sim::Launch` (launch.h), field for field.
#[repr(C)]
pub struct LaunchC {
    pub grid: [u32; 3],
    pub block: [u32; 3],
    pub dynamic_shared: u32,
    pub warp_size: u32,
    pub translate: unsafe extern "C" fn(*mut c_void, usize) -> *mut c_void,
    pub context: *mut c_void,
    /// Shared by the launch's host threads (see launch.h).
    pub next_block: *const AtomicU64,
    pub first_fault: *const AtomicU64,
    pub fault: u32,
    pub fault_block: [u32; 3],
    pub fault_thread: [u32; 3],
    pub fault_address: usize,
    pub message: [c_char; 512],
    /// With the race check: how many shared-memory races, and the first.
    pub races: u32,
    pub race_block: [u32; 3],
    pub race_threads: [u32; 6],
    pub race_kinds: [u32; 2],
    pub race_dynamic: u32,
    pub race_offset: u64,
    /// In: how many consecutive blocks a host thread claims at once. Out:
    /// the first block it claimed and did not run, or the grid's count.
    pub block_run: u32,
    pub not_run: u64,
}

// SAFETY: the pointers are to the launch's context, which the launcher
// only reads, and to atomics; all outlive every part of the launch
// (`run::run`), whichever host thread runs it.
unsafe impl Send for LaunchC {}

/// A kernel's launcher: `launch(config, kernelParams)`; 0, or 1 with the
/// fault in the config.
pub type LaunchFn = unsafe extern "C" fn(*mut LaunchC, *mut *mut c_void) -> c_int;

/// `amdgpu_sim::Kernel` (launch.h).
#[repr(C)]
struct KernelC {
    name: *const c_char,
    launch: Option<LaunchFn>,
    params: u32,
    sizes: *const u32,
    pointers: *const u8,
}

/// One kernel of a loaded object.
pub struct Kernel {
    /// The name it is looked up by.
    pub name: String,
    pub launch: LaunchFn,
    /// Each parameter's size in bytes.
    pub sizes: Vec<usize>,
    /// Whether each parameter is a pointer.
    pub pointers: Vec<bool>,
    /// Whether each parameter is a pointer to `const` (the kernel reads
    /// through it only).
    pub reads_only: Vec<bool>,
    /// The object's thread-locals (its static shared memory among them).
    pub statics: Arc<Vec<Static>>,
}

/// A loaded shared object's kernels.
pub struct Module {
    pub kernels: Vec<Arc<Kernel>>,
}

/// The loaded objects, by their bytes' hash.
static LOADED: Mutex<Option<HashMap<u64, Arc<Module>>>> = Mutex::new(None);

/// Load `so` (or find it loaded) and read its kernels.
pub fn load(so: &[u8]) -> Result<Arc<Module>, hipError_t> {
    let mut h = DefaultHasher::new();
    so.hash(&mut h);
    let key = h.finish();
    let mut loaded = lock(&LOADED);
    let map = loaded.get_or_insert_with(HashMap::new);
    if let Some(module) = map.get(&key) {
        return Ok(module.clone());
    }
    let module = Arc::new(open(so)?);
    map.insert(key, module.clone());
    Ok(module)
}

fn open(so: &[u8]) -> Result<Module, hipError_t> {
    // SAFETY: a NUL-terminated name and a flag; the result is checked.
    let fd = unsafe { libc::memfd_create(c"hip-sim-kernels".as_ptr(), libc::MFD_CLOEXEC) };
    if fd < 0 {
        return Err(hipError_t::hipErrorOutOfMemory);
    }
    // SAFETY: a descriptor just made, owned by nothing else.
    let mut file = unsafe { std::fs::File::from_raw_fd(fd) };
    file.write_all(so).map_err(|_| hipError_t::hipErrorOutOfMemory)?;
    let path = std::ffi::CString::new(format!("/proc/self/fd/{fd}")).map_err(|_| hipError_t::hipErrorInvalidImage)?;
    // SAFETY: a NUL-terminated path of a shared object this process
    // compiled (the code object's contents); its initializers are the C++
    // runtime's and the launcher's, which only set up statics.
    let handle = unsafe { libc::dlopen(path.as_ptr(), libc::RTLD_NOW | libc::RTLD_LOCAL) };
    // The descriptor stays open with the object: the loader knows objects
    // by path, and a closed descriptor's number, reused, would name this
    // object again for the next one.
    let _kept = std::os::unix::io::IntoRawFd::into_raw_fd(file);
    if handle.is_null() {
        // SAFETY: a plain call; its text is valid until the next dl call.
        let why = unsafe { libc::dlerror() };
        let why = if why.is_null() {
            "unknown".into()
        } else {
            // SAFETY: non-null: dlerror's NUL-terminated text.
            unsafe { CStr::from_ptr(why) }.to_string_lossy()
        };
        log::error!("hip simulator: cannot load a compiled kernel object: {why}");
        return Err(hipError_t::hipErrorInvalidImage);
    }
    // SAFETY: a live handle and NUL-terminated names; the symbols are the
    // launcher's table and count (launch.h), of the declared types.
    let (table, count) = unsafe {
        let table = libc::dlsym(handle, c"amdgpu_sim_kernels".as_ptr()) as *const KernelC;
        let count = libc::dlsym(handle, c"amdgpu_sim_kernel_count".as_ptr()) as *const u32;
        if table.is_null() || count.is_null() {
            return Err(hipError_t::hipErrorInvalidImage);
        }
        (table, *count as usize)
    };
    let statics = Arc::new(statics::of(so));
    let mut kernels = Vec::with_capacity(count);
    for i in 0..count {
        // SAFETY: the table holds `count` entries (and a terminator), each
        // with a NUL-terminated name and arrays of `params` entries.
        let k = unsafe { &*table.add(i) };
        let (Some(launch), false) = (k.launch, k.name.is_null()) else {
            return Err(hipError_t::hipErrorInvalidImage);
        };
        let n = k.params as usize;
        // SAFETY: as above.
        let (name, sizes, kinds) = unsafe {
            (
                CStr::from_ptr(k.name).to_string_lossy().into_owned(),
                std::slice::from_raw_parts(k.sizes, n).iter().map(|&s| s as usize).collect(),
                std::slice::from_raw_parts(k.pointers, n).to_vec(),
            )
        };
        let pointers = kinds.iter().map(|&k| k != 0).collect();
        let reads_only = kinds.iter().map(|&k| k == 2).collect();
        kernels.push(Arc::new(Kernel { name, launch, sizes, pointers, reads_only, statics: statics.clone() }));
    }
    // The handle stays open for the process (see the module docs).
    Ok(Module { kernels })
}
