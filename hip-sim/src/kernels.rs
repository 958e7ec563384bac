//! The registry of simulator kernels and the sim code-object format.
//!
//! A sim code object is NUL-terminated UTF-8 text:
//!
//! ```text
//! hip-sim-code-object v1
//! kernel vector_add_f32
//! kernel fill_f32
//! ```
//!
//! The first line is the header; each `kernel NAME` line names a kernel of
//! [`KERNELS`]; blank lines and lines starting with `#` are ignored.
//! [`code_object`] writes one. `hipModuleLoadData` rejects anything else
//! with `hipErrorInvalidImage`.
//!
//! Kernels see a 1-D index space: thread `i` (0 ≤ i < grid × block, both
//! flattened over x, y, z) handles element `i` when `i < n`, exactly as the
//! usual `if (i < n)` guard of a GPU kernel.

use super::place::{resolve, Place};
use crate::bindings::hip::hipError_t;
use crate::machine::lock::lock;
use crate::machine::memory::Allocation;
use crate::machine::peers::peer_access_enabled;
use crate::machine::races::{race_check_enabled, Access};
use crate::machine::violations::{self, AccessKind};
use std::cell::RefCell;
use std::sync::Arc;

/// The header line of a sim code object.
pub const CODE_OBJECT_HEADER: &str = "hip-sim-code-object v1";

/// A kernel parameter's type, as passed through `kernelParams`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Param {
    /// A device pointer (8 bytes).
    Ptr,
    /// `float`.
    F32,
    /// `double`.
    F64,
    /// `uint32_t`.
    U32,
}

impl Param {
    /// Bytes of the argument.
    pub fn size(self) -> usize {
        match self {
            Param::Ptr | Param::F64 => 8,
            Param::F32 | Param::U32 => 4,
        }
    }
}

/// What a kernel does to the memory one pointer argument names: `n`
/// elements of `elem` bytes from the pointer, where `n` is
/// `min(count argument, threads × per_thread)` (every kernel of the
/// registry covers its elements in order, `per_thread` a thread). The race detector checks these ranges.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ArgAccess {
    /// The index of the pointer parameter.
    pub ptr: usize,
    /// The index of the `uint32_t` element-count parameter.
    pub count: usize,
    /// Bytes per element.
    pub elem: usize,
    /// Whether the kernel writes the elements (read-modify-write included);
    /// else it only reads them.
    pub write: bool,
}

const fn reads(ptr: usize, count: usize, elem: usize) -> ArgAccess {
    ArgAccess { ptr, count, elem, write: false }
}

const fn writes(ptr: usize, count: usize, elem: usize) -> ArgAccess {
    ArgAccess { ptr, count, elem, write: true }
}

/// An argument value read at launch.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Arg {
    Ptr(usize),
    F32(f32),
    F64(f64),
    U32(u32),
}

/// One kernel of the registry.
#[derive(Debug)]
pub struct KernelInfo {
    /// The name a code object uses.
    pub name: &'static str,
    /// The C signature, for documentation.
    pub signature: &'static str,
    /// Parameter types, in order.
    pub params: &'static [Param],
    /// The memory each pointer argument is read or written through.
    pub accesses: &'static [ArgAccess],
    /// Elements each thread covers (1 but for the portable Philox's
    /// kernels, whose threads compute one four-word block each).
    pub per_thread: usize,
    run: fn(&[Arg], usize) -> Result<(), hipError_t>,
}

/// The launch a kernel runs for: the device it runs on, and who launched it.
#[derive(Clone)]
pub(crate) struct Launch {
    /// The device of the launch's stream.
    pub device: usize,
    /// The HIP function that launched it.
    pub function: &'static str,
    /// The launching thread's name, for violations.
    pub thread: std::sync::Arc<str>,
}

thread_local! {
    /// The launch the kernel running on this (worker) thread belongs to.
    static RUNNING: RefCell<Option<Launch>> = const { RefCell::new(None) };
}

impl KernelInfo {
    /// Run over `threads` threads with `args` (already type-checked), as
    /// part of `launch`: memory of another device is reachable only with
    /// peer access enabled.
    pub(crate) fn run(&self, args: &[Arg], threads: usize, launch: Launch) -> Result<(), hipError_t> {
        RUNNING.with(|r| *r.borrow_mut() = Some(launch));
        let result = (self.run)(args, threads.saturating_mul(self.per_thread));
        RUNNING.with(|r| *r.borrow_mut() = None);
        result
    }
}

use Param::{Ptr, F32, F64, U32};

/// Every kernel the simulator can run.
pub static KERNELS: &[KernelInfo] = &[
    KernelInfo {
        name: "fill_f32",
        signature: "fill_f32(float* p, float value, uint32_t n)",
        params: &[Ptr, F32, U32],
        accesses: &[writes(0, 2, 4)],
        per_thread: 1,
        run: fill::<f32>,
    },
    KernelInfo {
        name: "fill_u32",
        signature: "fill_u32(uint32_t* p, uint32_t value, uint32_t n)",
        params: &[Ptr, U32, U32],
        accesses: &[writes(0, 2, 4)],
        per_thread: 1,
        run: fill::<u32>,
    },
    KernelInfo {
        name: "vector_add_f32",
        signature: "vector_add_f32(const float* a, const float* b, float* c, uint32_t n)",
        params: &[Ptr, Ptr, Ptr, U32],
        accesses: &[reads(0, 3, 4), reads(1, 3, 4), writes(2, 3, 4)],
        per_thread: 1,
        run: vector_add::<f32>,
    },
    KernelInfo {
        name: "vector_add_f64",
        signature: "vector_add_f64(const double* a, const double* b, double* c, uint32_t n)",
        params: &[Ptr, Ptr, Ptr, U32],
        accesses: &[reads(0, 3, 8), reads(1, 3, 8), writes(2, 3, 8)],
        per_thread: 1,
        run: vector_add::<f64>,
    },
    KernelInfo {
        name: "axpy_f32",
        signature: "axpy_f32(float a, const float* x, float* y, uint32_t n)  // y = a*x + y",
        params: &[F32, Ptr, Ptr, U32],
        accesses: &[reads(1, 3, 4), writes(2, 3, 4)],
        per_thread: 1,
        run: axpy::<f32>,
    },
    KernelInfo {
        name: "axpy_f64",
        signature: "axpy_f64(double a, const double* x, double* y, uint32_t n)  // y = a*x + y",
        params: &[F64, Ptr, Ptr, U32],
        accesses: &[reads(1, 3, 8), writes(2, 3, 8)],
        per_thread: 1,
        run: axpy::<f64>,
    },
    // hip-libs's portable Philox (its `rand/philox.hip`), bit for bit.
    KernelInfo {
        name: "amdgpu_philox_bits",
        signature: "amdgpu_philox_bits(uint32_t* out, uint32_t n, uint32_t seed_lo, uint32_t seed_hi, \
                    uint32_t position_lo, uint32_t position_hi)",
        params: &[Ptr, U32, U32, U32, U32, U32],
        accesses: &[writes(0, 1, 4)],
        per_thread: 4,
        run: philox_bits,
    },
    KernelInfo {
        name: "amdgpu_philox_uniform_f32",
        signature: "amdgpu_philox_uniform_f32(float* out, uint32_t n, uint32_t seed_lo, uint32_t seed_hi, \
                    uint32_t position_lo, uint32_t position_hi)",
        params: &[Ptr, U32, U32, U32, U32, U32],
        accesses: &[writes(0, 1, 4)],
        per_thread: 4,
        run: philox_uniform_f32,
    },
    KernelInfo {
        name: "amdgpu_philox_uniform_f64",
        signature: "amdgpu_philox_uniform_f64(double* out, uint32_t n, uint32_t seed_lo, uint32_t seed_hi, \
                    uint32_t position_lo, uint32_t position_hi)",
        params: &[Ptr, U32, U32, U32, U32, U32],
        accesses: &[writes(0, 1, 8)],
        per_thread: 2,
        run: philox_uniform_f64,
    },
];

/// The memory a launch of `kernel` with `args` over `threads` threads
/// touches, for the race detector; ranges that are not memory of a live
/// allocation are left out (the kernel faults on them when it runs).
pub(crate) fn launch_accesses(kernel: &KernelInfo, args: &[Arg], threads: usize) -> Vec<Access> {
    if !race_check_enabled() {
        return Vec::new();
    }
    kernel
        .accesses
        .iter()
        .filter_map(|a| {
            let bytes = covered(u32_arg(*args.get(a.count)?), threads.saturating_mul(kernel.per_thread)) * a.elem;
            if bytes == 0 {
                return None;
            }
            let place = resolve(ptr(*args.get(a.ptr)?), bytes).ok().filter(|p| p.device().is_some())?;
            place.access(bytes, if a.write { AccessKind::Write } else { AccessKind::Read })
        })
        .collect()
}

/// The kernel named `name`, if the registry has it.
pub(crate) fn find(name: &str) -> Option<&'static KernelInfo> {
    KERNELS.iter().find(|k| k.name == name)
}

/// A sim code object naming `kernels` (NUL-terminated, ready for
/// `hipModuleLoadData`).
pub fn code_object(kernels: &[&str]) -> Vec<u8> {
    let mut text = String::from(CODE_OBJECT_HEADER);
    for kernel in kernels {
        text.push_str("\nkernel ");
        text.push_str(kernel);
    }
    text.push('\n');
    let mut bytes = text.into_bytes();
    bytes.push(0);
    bytes
}

/// Parse a code object's text into its kernels.
pub(crate) fn parse_code_object(text: &str) -> Result<Vec<&'static KernelInfo>, hipError_t> {
    let mut lines = text.lines().map(str::trim).filter(|l| !l.is_empty() && !l.starts_with('#'));
    if lines.next() != Some(CODE_OBJECT_HEADER) {
        return Err(hipError_t::hipErrorInvalidImage);
    }
    let mut kernels = Vec::new();
    for line in lines {
        let name = line.strip_prefix("kernel ").map(str::trim).ok_or(hipError_t::hipErrorInvalidImage)?;
        kernels.push(find(name).ok_or(hipError_t::hipErrorInvalidImage)?);
    }
    Ok(kernels)
}

// ---- element access ---------------------------------------------------------

trait Elem: Copy + Send + 'static {
    const SIZE: usize;
    fn read(bytes: &[u8]) -> Self;
    fn write(self, out: &mut [u8]);
    fn add(self, other: Self) -> Self;
    fn mul_add(a: Self, x: Self, y: Self) -> Self;
    fn from_arg(arg: Arg) -> Option<Self>;
}

macro_rules! elem {
    ($t:ty, $variant:ident) => {
        impl Elem for $t {
            const SIZE: usize = std::mem::size_of::<$t>();
            fn read(bytes: &[u8]) -> Self {
                let mut raw = [0u8; std::mem::size_of::<$t>()];
                raw.copy_from_slice(bytes);
                <$t>::from_ne_bytes(raw)
            }
            fn write(self, out: &mut [u8]) {
                out.copy_from_slice(&self.to_ne_bytes());
            }
            fn add(self, other: Self) -> Self {
                self + other
            }
            fn mul_add(a: Self, x: Self, y: Self) -> Self {
                a * x + y
            }
            fn from_arg(arg: Arg) -> Option<Self> {
                match arg {
                    Arg::$variant(v) => Some(v),
                    _ => None,
                }
            }
        }
    };
}
elem!(f32, F32);
elem!(f64, F64);
elem!(u32, U32);

/// The device bytes of `count` elements at `ptr`; a GPU kernel touching
/// anything else faults, hence `hipErrorIllegalAddress`. So does touching
/// another device's memory without peer access, which is also recorded as
/// a [`ViolationKind::PeerAccess`](super::ViolationKind::PeerAccess).
fn device_place<T: Elem>(ptr: usize, count: usize) -> Result<(Arc<Allocation>, usize), hipError_t> {
    let (allocation, offset) = match resolve(ptr, count * T::SIZE) {
        Ok(Place::Device(allocation, offset)) => (allocation, offset),
        _ => return Err(hipError_t::hipErrorIllegalAddress),
    };
    let denied = RUNNING.with(|r| {
        let running = r.borrow();
        let launch = running.as_ref()?;
        (!peer_access_enabled(launch.device, allocation.device))
            .then(|| (launch.function, launch.thread.to_string(), launch.device))
    });
    if let Some((function, thread, device)) = denied {
        violations::record_peer_access(function, thread, device, allocation.device);
        return Err(hipError_t::hipErrorIllegalAddress);
    }
    Ok((allocation, offset))
}

fn read<T: Elem>(ptr: usize, count: usize) -> Result<Vec<T>, hipError_t> {
    if count == 0 {
        return Ok(Vec::new());
    }
    let (a, off) = device_place::<T>(ptr, count)?;
    let data = lock(&a.data);
    Ok(data[off..off + count * T::SIZE].chunks_exact(T::SIZE).map(T::read).collect())
}

fn write<T: Elem>(ptr: usize, values: &[T]) -> Result<(), hipError_t> {
    if values.is_empty() {
        return Ok(());
    }
    let (a, off) = device_place::<T>(ptr, values.len())?;
    let mut data = lock(&a.data);
    for (chunk, v) in data[off..off + values.len() * T::SIZE].chunks_exact_mut(T::SIZE).zip(values) {
        v.write(chunk);
    }
    Ok(())
}

fn ptr(arg: Arg) -> usize {
    match arg {
        Arg::Ptr(p) => p,
        _ => 0,
    }
}

fn u32_arg(arg: Arg) -> usize {
    match arg {
        Arg::U32(v) => v as usize,
        _ => 0,
    }
}

/// Elements the grid covers: `min(n, threads)`.
fn covered(n: usize, threads: usize) -> usize {
    n.min(threads)
}

fn fill<T: Elem>(args: &[Arg], threads: usize) -> Result<(), hipError_t> {
    let value = T::from_arg(args[1]).ok_or(hipError_t::hipErrorInvalidValue)?;
    let m = covered(u32_arg(args[2]), threads);
    write(ptr(args[0]), &vec![value; m])
}

fn vector_add<T: Elem>(args: &[Arg], threads: usize) -> Result<(), hipError_t> {
    let m = covered(u32_arg(args[3]), threads);
    let a = read::<T>(ptr(args[0]), m)?;
    let b = read::<T>(ptr(args[1]), m)?;
    let c: Vec<T> = a.iter().zip(&b).map(|(x, y)| x.add(*y)).collect();
    write(ptr(args[2]), &c)
}

/// The portable Philox's arguments: elements, key, and the stream position
/// (in words) of element 0.
fn philox_args(args: &[Arg], threads: usize) -> (usize, [u32; 2], u64) {
    let word = |i: usize| u32_arg(args[i]) as u64;
    let key = [word(2) as u32, word(3) as u32];
    (covered(u32_arg(args[1]), threads), key, word(4) | word(5) << 32)
}

/// Word `w` of the portable Philox's stream under `key`.
fn philox_word(w: u64, key: [u32; 2]) -> u32 {
    super::rocrand::philox_block(super::rocrand::philox_counter(u128::from(w >> 2)), key)[(w & 3) as usize]
}

fn philox_bits(args: &[Arg], threads: usize) -> Result<(), hipError_t> {
    let (m, key, at) = philox_args(args, threads);
    write(ptr(args[0]), &(0..m as u64).map(|i| philox_word(at + i, key)).collect::<Vec<u32>>())
}

fn philox_uniform_f32(args: &[Arg], threads: usize) -> Result<(), hipError_t> {
    let (m, key, at) = philox_args(args, threads);
    let uniform = |i: u64| (philox_word(at + i, key) >> 8) as f32 * (1.0 / 16_777_216.0);
    write(ptr(args[0]), &(0..m as u64).map(uniform).collect::<Vec<f32>>())
}

fn philox_uniform_f64(args: &[Arg], threads: usize) -> Result<(), hipError_t> {
    let (m, key, at) = philox_args(args, threads);
    let uniform = |i: u64| {
        let (a, b) = (u64::from(philox_word(at + 2 * i, key)), u64::from(philox_word(at + 2 * i + 1, key)));
        ((a >> 11) << 32 | b) as f64 * (1.0 / 9_007_199_254_740_992.0)
    };
    write(ptr(args[0]), &(0..m as u64).map(uniform).collect::<Vec<f64>>())
}

fn axpy<T: Elem>(args: &[Arg], threads: usize) -> Result<(), hipError_t> {
    let alpha = T::from_arg(args[0]).ok_or(hipError_t::hipErrorInvalidValue)?;
    let m = covered(u32_arg(args[3]), threads);
    let x = read::<T>(ptr(args[1]), m)?;
    let y = read::<T>(ptr(args[2]), m)?;
    let out: Vec<T> = x.iter().zip(&y).map(|(x, y)| T::mul_add(alpha, *x, *y)).collect();
    write(ptr(args[2]), &out)
}
