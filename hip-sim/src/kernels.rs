//! The simulator's built-in kernels and the sim code-object format.
//!
//! A kernel here is a Rust function over the launch's arguments
//! ([`KernelArgs`]), run for the whole grid at once: the simulator's
//! built-ins ([`KERNELS`]). They stand for a precompiled code object
//! (what `hipModuleLoad` reads from a file), so that programs and tests
//! that load kernels by name run with no C++ compiler. A kernel whose
//! source is at hand runs from that source instead (`crate::cpu`): the
//! project's own kernels do, with no hand-written twin to drift from it.
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

use super::place::{reachable, resolve, Place};
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
/// `min(count argument, threads)` (every built-in covers its elements in
/// order, one a thread). The race detector checks these ranges.
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

/// An argument value read at launch, by its parameter's [`Param`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Arg {
    /// A device address.
    Ptr(usize),
    /// `float`.
    F32(f32),
    /// `double`.
    F64(f64),
    /// `uint32_t`.
    U32(u32),
}

/// One built-in kernel.
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
    run: KernelFn,
}

/// What a kernel computes: over the launch's arguments and its threads
/// (grid × block), the memory it
/// writes; an error is a device fault (`hipErrorIllegalAddress` for
/// memory it may not touch).
pub type KernelFn = fn(&KernelArgs<'_>, usize) -> Result<(), hipError_t>;

/// A launch's argument values, as a kernel sees them, and the device
/// memory it reaches through them.
pub struct KernelArgs<'a> {
    args: &'a [Arg],
}

impl KernelArgs<'_> {
    /// Argument `i` as a device address (0 if it is not a pointer).
    pub fn ptr(&self, i: usize) -> usize {
        self.args.get(i).copied().map_or(0, ptr)
    }

    /// Argument `i` as a `uint32_t` (0 if it is not one).
    pub fn u32(&self, i: usize) -> u32 {
        match self.args.get(i) {
            Some(Arg::U32(v)) => *v,
            _ => 0,
        }
    }

    /// Argument `i` as a value of `T`, if it is one.
    pub fn value<T: DeviceValue>(&self, i: usize) -> Option<T> {
        self.args.get(i).copied().and_then(T::from_arg)
    }

    /// `count` elements of device memory at `ptr`, as the kernel's
    /// device reads them: `hipErrorIllegalAddress` outside an allocation,
    /// or on another device without peer access (also a violation).
    pub fn read<T: DeviceValue>(&self, ptr: usize, count: usize) -> Result<Vec<T>, hipError_t> {
        read(ptr, count)
    }

    /// Write `values` to device memory at `ptr`, with the checks of
    /// [`KernelArgs::read`].
    pub fn write<T: DeviceValue>(&self, ptr: usize, values: &[T]) -> Result<(), hipError_t> {
        write(ptr, values)
    }
}

/// The names of every kernel the simulator can run by name.
pub(crate) fn kernel_names() -> Vec<&'static str> {
    KERNELS.iter().map(|k| k.name).collect()
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
        let result = (self.run)(&KernelArgs { args }, threads);
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
        run: fill::<f32>,
    },
    KernelInfo {
        name: "fill_u32",
        signature: "fill_u32(uint32_t* p, uint32_t value, uint32_t n)",
        params: &[Ptr, U32, U32],
        accesses: &[writes(0, 2, 4)],
        run: fill::<u32>,
    },
    KernelInfo {
        name: "vector_add_f32",
        signature: "vector_add_f32(const float* a, const float* b, float* c, uint32_t n)",
        params: &[Ptr, Ptr, Ptr, U32],
        accesses: &[reads(0, 3, 4), reads(1, 3, 4), writes(2, 3, 4)],
        run: vector_add::<f32>,
    },
    KernelInfo {
        name: "vector_add_f64",
        signature: "vector_add_f64(const double* a, const double* b, double* c, uint32_t n)",
        params: &[Ptr, Ptr, Ptr, U32],
        accesses: &[reads(0, 3, 8), reads(1, 3, 8), writes(2, 3, 8)],
        run: vector_add::<f64>,
    },
    KernelInfo {
        name: "axpy_f32",
        signature: "axpy_f32(float a, const float* x, float* y, uint32_t n)  // y = a*x + y",
        params: &[F32, Ptr, Ptr, U32],
        accesses: &[reads(1, 3, 4), writes(2, 3, 4)],
        run: axpy::<f32>,
    },
    KernelInfo {
        name: "axpy_f64",
        signature: "axpy_f64(double a, const double* x, double* y, uint32_t n)  // y = a*x + y",
        params: &[F64, Ptr, Ptr, U32],
        accesses: &[reads(1, 3, 8), writes(2, 3, 8)],
        run: axpy::<f64>,
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
            let bytes = covered(u32_arg(*args.get(a.count)?), threads) * a.elem;
            if bytes == 0 {
                return None;
            }
            let place = resolve(ptr(*args.get(a.ptr)?), bytes).ok().filter(|p| p.device().is_some())?;
            place.access(bytes, if a.write { AccessKind::Write } else { AccessKind::Read })
        })
        .collect()
}

/// The built-in kernel named `name`, if there is one.
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

mod sealed {
    pub trait Sealed {}
    impl Sealed for f32 {}
    impl Sealed for f64 {}
    impl Sealed for u32 {}
}

/// A value kernels read and write in device memory and take as an
/// argument: `f32`, `f64` or `u32`.
pub trait DeviceValue: Copy + Send + 'static + sealed::Sealed {
    #[doc(hidden)]
    const SIZE: usize;
    #[doc(hidden)]
    fn read(bytes: &[u8]) -> Self;
    #[doc(hidden)]
    fn write(self, out: &mut [u8]);
    #[doc(hidden)]
    fn add(self, other: Self) -> Self;
    #[doc(hidden)]
    fn mul_add(a: Self, x: Self, y: Self) -> Self;
    #[doc(hidden)]
    fn from_arg(arg: Arg) -> Option<Self>;
}

macro_rules! elem {
    ($t:ty, $variant:ident) => {
        impl DeviceValue for $t {
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
/// a [`ViolationKind::PeerAccess`](super::ViolationKind::PeerAccess), and
/// touching mapped virtual memory the kernel's device was given no access
/// to (`write`: no write access), recorded as a
/// [`ViolationKind::VirtualMemory`](super::ViolationKind::VirtualMemory)
/// (peer access does not cover virtual memory: its access is its own).
fn device_place<T: DeviceValue>(ptr: usize, count: usize, write: bool) -> Result<(Arc<Allocation>, usize), hipError_t> {
    let (allocation, offset) = match resolve(ptr, count * T::SIZE) {
        Ok(Place::Device(allocation, offset)) => (allocation, offset),
        _ => return Err(hipError_t::hipErrorIllegalAddress),
    };
    let launch = RUNNING.with(|r| r.borrow().as_ref().map(|l| (l.function, l.thread.to_string(), l.device)));
    let Some((function, thread, device)) = launch else { return Ok((allocation, offset)) };
    if allocation.virtual_range {
        let place = Place::Device(allocation.clone(), offset);
        if !reachable(&place, count * T::SIZE, device, write) {
            violations::record_virtual_memory(
                function,
                thread,
                device,
                "a kernel touched mapped memory its device was given no access to (hipMemSetAccess): a GPU page \
                 fault",
            );
            return Err(hipError_t::hipErrorIllegalAddress);
        }
    } else if !allocation.managed && !peer_access_enabled(device, allocation.device) {
        violations::record_peer_access(function, thread, device, allocation.device);
        return Err(hipError_t::hipErrorIllegalAddress);
    }
    Ok((allocation, offset))
}

fn read<T: DeviceValue>(ptr: usize, count: usize) -> Result<Vec<T>, hipError_t> {
    if count == 0 {
        return Ok(Vec::new());
    }
    let (a, off) = device_place::<T>(ptr, count, false)?;
    let data = lock(&a.data);
    Ok(data[off..off + count * T::SIZE].chunks_exact(T::SIZE).map(T::read).collect())
}

fn write<T: DeviceValue>(ptr: usize, values: &[T]) -> Result<(), hipError_t> {
    if values.is_empty() {
        return Ok(());
    }
    let (a, off) = device_place::<T>(ptr, values.len(), true)?;
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

fn fill<T: DeviceValue>(args: &KernelArgs<'_>, threads: usize) -> Result<(), hipError_t> {
    let value = args.value::<T>(1).ok_or(hipError_t::hipErrorInvalidValue)?;
    let m = covered(args.u32(2) as usize, threads);
    args.write(args.ptr(0), &vec![value; m])
}

fn vector_add<T: DeviceValue>(args: &KernelArgs<'_>, threads: usize) -> Result<(), hipError_t> {
    let m = covered(args.u32(3) as usize, threads);
    let a = args.read::<T>(args.ptr(0), m)?;
    let b = args.read::<T>(args.ptr(1), m)?;
    let c: Vec<T> = a.iter().zip(&b).map(|(x, y)| x.add(*y)).collect();
    args.write(args.ptr(2), &c)
}

fn axpy<T: DeviceValue>(args: &KernelArgs<'_>, threads: usize) -> Result<(), hipError_t> {
    let alpha = args.value::<T>(0).ok_or(hipError_t::hipErrorInvalidValue)?;
    let m = covered(args.u32(3) as usize, threads);
    let x = args.read::<T>(args.ptr(1), m)?;
    let y = args.read::<T>(args.ptr(2), m)?;
    let out: Vec<T> = x.iter().zip(&y).map(|(x, y)| T::mul_add(alpha, *x, *y)).collect();
    args.write(args.ptr(2), &out)
}
