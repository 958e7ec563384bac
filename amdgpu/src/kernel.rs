//! Kernels with declared parameter types, launched safely: [`Kernel`].
//!
//! A kernel's parameter list is declared once, as a tuple type, when the
//! [`Kernel`] is made ([`Kernel::new`], `unsafe`: the one place where a
//! user vouches for the signature). Every launch then checks its arguments
//! against it, before anything is enqueued:
//!
//! - the stream and each array argument are on the launch's device (else
//!   a [`DeviceMismatch`] naming the stream or the argument, in
//!   [`HipError::DeviceMismatch`](hip_core::HipError::DeviceMismatch));
//! - each array argument is long enough for what the declaration says the
//!   kernel touches (its [`LengthRule`]; else [`Error::ArgumentTooShort`]);
//! - the configuration fits the device ([`LaunchLimits::check`]);
//! - each array's use is declared through the operand protocol
//!   ([`hip_pool::enqueue`]), on the launch stream, as a read ([`In`]) or
//!   a write ([`Out`]): prepared before the launch and recorded after it,
//!   also when the launch fails (part of it may be queued).
//!
//! The arguments' values and the `kernelParams` pointers live in arrays on
//! the stack: a launch allocates nothing (beyond what an event for a use
//! on a foreign stream needs).
//!
//! ```
//! use amdgpu::prelude::*;
//! use amdgpu::kernel::{In, Kernel, Len, Out};
//! use amdgpu::{LaunchConfig, Module};
//!
//! // The simulator's built-in vector_add_f32; on a GPU, Program::load of
//! // HIP source gives the module.
//! # if amdgpu::backend() != amdgpu::Backend::Sim { return Ok(()); }
//! let module = Module::load(device(), &amdgpu::sys::sim::code_object(&["vector_add_f32"]))?;
//! // SAFETY: vector_add_f32(const float* a, const float* b, float* c, uint32_t n)
//! // reads a[0..n) and b[0..n) and writes c[0..n).
//! let add = unsafe { Kernel::<(In<f32>, In<f32>, Out<f32>, Len)>::new(module.function("vector_add_f32")?)? };
//! let a = DeviceArray::from_slice(&[1.0f32; 1000])?;
//! let b = DeviceArray::from_slice(&[2.0f32; 1000])?;
//! let mut c = DeviceArray::<f32>::zeros(1000)?;
//! add.launch(LaunchConfig::linear(device(), 1000)?, &stream(), (&a, &b, &mut c, 1000))?;
//! assert_eq!(c.to_vec()?, vec![3.0; 1000]);
//! # Ok::<(), amdgpu::Error>(())
//! ```

use crate::{
    DeviceArray, DeviceCopy, DeviceMismatch, DeviceSlice, Error, Function, LaunchConfig, Module, Result, Stream,
};
use hip_core::LaunchLimits;
use hip_pool::{Access, Buffer};
use std::ffi::c_void;
use std::marker::PhantomData;

/// The most parameters a declared kernel may have.
pub const MAX_PARAMS: usize = 12;

/// How many elements of an array argument the kernel may touch.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Bound {
    /// The value of the kernel's first [`Len`] argument.
    Len,
    /// One per thread of the launch (grid × block).
    Threads,
    /// One per block of the launch.
    Blocks,
    /// A fixed number.
    AtLeast(usize),
}

/// A length rule of an array parameter: [`Elements`] (the default),
/// [`PerThread`], [`PerBlock`] or [`Fixed`].
pub trait LengthRule: 'static {
    /// The bound the rule names.
    const BOUND: Bound;
}

/// At least as many elements as the kernel's [`Len`] argument.
#[derive(Debug)]
pub struct Elements;
/// At least one element per thread of the launch.
#[derive(Debug)]
pub struct PerThread;
/// At least one element per block of the launch.
#[derive(Debug)]
pub struct PerBlock;
/// At least `N` elements.
#[derive(Debug)]
pub struct Fixed<const N: usize>;

impl LengthRule for Elements {
    const BOUND: Bound = Bound::Len;
}
impl LengthRule for PerThread {
    const BOUND: Bound = Bound::Threads;
}
impl LengthRule for PerBlock {
    const BOUND: Bound = Bound::Blocks;
}
impl<const N: usize> LengthRule for Fixed<N> {
    const BOUND: Bound = Bound::AtLeast(N);
}

/// A parameter the kernel only reads through: `const T*`. Its argument is
/// `&DeviceArray<T>` or a `DeviceSlice<T>`.
#[derive(Debug)]
pub struct In<T, R = Elements>(PhantomData<(fn() -> T, R)>);
/// A parameter the kernel writes (and may read) through: `T*`. Its
/// argument is `&mut DeviceArray<T>`.
#[derive(Debug)]
pub struct Out<T, R = Elements>(PhantomData<(fn() -> T, R)>);
/// The element count, a `uint32_t`; its argument is a `u32`. Arrays of
/// rule [`Elements`] must hold at least this many elements.
#[derive(Debug)]
pub struct Len;

/// What a declared parameter is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ParamKind {
    /// An array read through.
    Read(Bound),
    /// An array written through.
    Write(Bound),
    /// The element count.
    Len,
    /// A plain value.
    Scalar,
}

/// A declared kernel parameter type: [`In`], [`Out`], [`Len`], or a
/// scalar (`f32`, `f64`, `i8` ... `u64`).
pub trait Param: 'static {
    /// What the parameter is.
    const KIND: ParamKind;
}

impl<T: DeviceCopy, R: LengthRule> Param for In<T, R> {
    const KIND: ParamKind = ParamKind::Read(R::BOUND);
}
impl<T: DeviceCopy, R: LengthRule> Param for Out<T, R> {
    const KIND: ParamKind = ParamKind::Write(R::BOUND);
}
impl Param for Len {
    const KIND: ParamKind = ParamKind::Len;
}

/// An array argument's memory, as a launch checks and declares it.
#[derive(Debug, Clone, Copy)]
pub struct ArrayArg<'a> {
    buffer: &'a Buffer,
    len: usize,
}

/// One launch argument: its value for the kernel (at most 8 bytes) and,
/// for arrays, its memory.
#[derive(Debug, Clone, Copy)]
pub struct RawArg<'a> {
    value: u64,
    array: Option<ArrayArg<'a>>,
}

/// A value that can be passed for parameter `P`.
pub trait Arg<P: Param> {
    /// The value and memory of the argument.
    fn raw(&self) -> RawArg<'_>;
}

fn array_arg<T: DeviceCopy>(buffer: &Buffer, address: *const T, len: usize) -> RawArg<'_> {
    RawArg { value: address as usize as u64, array: Some(ArrayArg { buffer, len }) }
}

impl<T: DeviceCopy, R: LengthRule> Arg<In<T, R>> for &DeviceArray<T> {
    fn raw(&self) -> RawArg<'_> {
        array_arg(self.buffer(), self.as_ptr(), self.len())
    }
}
impl<T: DeviceCopy, R: LengthRule> Arg<In<T, R>> for &mut DeviceArray<T> {
    fn raw(&self) -> RawArg<'_> {
        array_arg(self.buffer(), self.as_ptr(), self.len())
    }
}
impl<T: DeviceCopy, R: LengthRule> Arg<In<T, R>> for DeviceSlice<'_, T> {
    fn raw(&self) -> RawArg<'_> {
        array_arg(self.array().buffer(), self.as_ptr(), self.len())
    }
}
impl<T: DeviceCopy, R: LengthRule> Arg<In<T, R>> for &DeviceSlice<'_, T> {
    fn raw(&self) -> RawArg<'_> {
        array_arg(self.array().buffer(), self.as_ptr(), self.len())
    }
}
impl<T: DeviceCopy, R: LengthRule> Arg<Out<T, R>> for &mut DeviceArray<T> {
    fn raw(&self) -> RawArg<'_> {
        array_arg(self.buffer(), self.as_ptr(), self.len())
    }
}
impl Arg<Len> for u32 {
    fn raw(&self) -> RawArg<'_> {
        RawArg { value: u64::from(*self), array: None }
    }
}

macro_rules! scalars {
    ($($t:ty),*) => { $(
        impl Param for $t {
            const KIND: ParamKind = ParamKind::Scalar;
        }
        impl Arg<$t> for $t {
            fn raw(&self) -> RawArg<'_> {
                let mut value = 0u64;
                // SAFETY: the scalar's bytes (at most 8) are copied into the
                // start of `value`, where the kernel reads its parameter.
                unsafe {
                    std::ptr::copy_nonoverlapping(
                        (self as *const $t).cast::<u8>(),
                        (&mut value as *mut u64).cast::<u8>(),
                        std::mem::size_of::<$t>(),
                    )
                };
                RawArg { value, array: None }
            }
        }
    )* };
}
scalars!(f32, f64, i8, i16, i32, i64, u8, u16, u32, u64);

/// A kernel's declared parameter list: a tuple of [`Param`]s, 1 to
/// [`MAX_PARAMS`] long.
pub trait Params: 'static {
    /// The parameters, in order.
    const KINDS: &'static [ParamKind];
}

/// Launch arguments for the parameter list `P`: a tuple of [`Arg`]s.
pub trait Args<P: Params> {
    /// Check, declare and launch (see [`Kernel::launch`]).
    fn launch(self, function: &Function, config: LaunchConfig, stream: &Stream) -> Result<()>;
}

/// The operation that errors name.
const LAUNCH: &str = "Kernel::launch";

/// Names of arguments, for errors.
const ARGUMENT: [&str; MAX_PARAMS] = [
    "argument 0",
    "argument 1",
    "argument 2",
    "argument 3",
    "argument 4",
    "argument 5",
    "argument 6",
    "argument 7",
    "argument 8",
    "argument 9",
    "argument 10",
    "argument 11",
];

/// The bound `bound` names for `config` and the `Len` value `len`.
/// In a `u128`: a launch's threads overflow a `u64` (see
/// [`LaunchConfig::threads`]), and a wrapped count would pass a short array.
fn needed(bound: Bound, config: &LaunchConfig, len: Option<u32>) -> u128 {
    match bound {
        Bound::Len => len.map_or(0, u128::from),
        Bound::Threads => config.threads(),
        Bound::Blocks => config.blocks(),
        Bound::AtLeast(n) => n as u128,
    }
}

/// The launch, over the arguments of any arity (on the stack).
fn launch_checked(
    function: &Function,
    kinds: &[ParamKind],
    args: &[RawArg<'_>],
    values: &mut [u64],
    config: LaunchConfig,
    stream: &Stream,
) -> Result<()> {
    let device = function.device();
    DeviceMismatch::check(LAUNCH, "the stream", device, stream.device())?;
    LaunchLimits::of(device)?.check(&config, device)?;
    let len = kinds.iter().zip(args).find(|(k, _)| **k == ParamKind::Len).map(|(_, a)| a.value as u32);
    for (i, (kind, arg)) in kinds.iter().zip(args).enumerate() {
        let (ParamKind::Read(bound) | ParamKind::Write(bound)) = *kind else { continue };
        let Some(array) = arg.array else { continue };
        DeviceMismatch::check(LAUNCH, ARGUMENT[i], device, array.buffer.device())?;
        let need = needed(bound, &config, len);
        if (array.len as u128) < need {
            return Err(Error::ArgumentTooShort {
                kernel: function.name().to_owned(),
                argument: i,
                len: array.len,
                needed: need,
                bound,
            });
        }
    }
    let access = |kind: &ParamKind| if matches!(kind, ParamKind::Write(_)) { Access::Write } else { Access::Read };
    let mut params = [std::ptr::null_mut::<c_void>(); MAX_PARAMS];
    for (param, value) in params.iter_mut().zip(values.iter_mut()) {
        *param = (value as *mut u64).cast();
    }
    let operands = kinds.iter().zip(args).filter_map(|(kind, arg)| arg.array.map(|a| (a.buffer, access(kind))));
    hip_pool::enqueue(stream, operands, || {
        // SAFETY: the declaration (`Kernel::new`'s contract) vouches that
        // the kernel's parameters are `kinds`, each given here by a pointer
        // to its value (the start of a u64); the arrays are on the stream's
        // device, long enough for what the kernel touches, and ordered on
        // the stream by the operand protocol around this launch, which
        // keeps their memory from reuse until the kernel is done.
        unsafe { function.launch_params(config, stream, &mut params[..values.len()]) }.map_err(Error::from)
    })
}

macro_rules! tuples {
    ($( ($($p:ident $a:ident $v:ident),+) )*) => { $(
        impl<$($p: Param),+> Params for ($($p,)+) {
            const KINDS: &'static [ParamKind] = &[$($p::KIND),+];
        }
        impl<$($p: Param, $a: Arg<$p>),+> Args<($($p,)+)> for ($($a,)+) {
            fn launch(self, function: &Function, config: LaunchConfig, stream: &Stream) -> Result<()> {
                let ($($v,)+) = &self;
                let args = [$(<$a as Arg<$p>>::raw($v)),+];
                let mut values = args.map(|a| a.value);
                launch_checked(function, <($($p,)+) as Params>::KINDS, &args, &mut values, config, stream)
            }
        }
    )* };
}

tuples! {
    (P0 A0 a0)
    (P0 A0 a0, P1 A1 a1)
    (P0 A0 a0, P1 A1 a1, P2 A2 a2)
    (P0 A0 a0, P1 A1 a1, P2 A2 a2, P3 A3 a3)
    (P0 A0 a0, P1 A1 a1, P2 A2 a2, P3 A3 a3, P4 A4 a4)
    (P0 A0 a0, P1 A1 a1, P2 A2 a2, P3 A3 a3, P4 A4 a4, P5 A5 a5)
    (P0 A0 a0, P1 A1 a1, P2 A2 a2, P3 A3 a3, P4 A4 a4, P5 A5 a5, P6 A6 a6)
    (P0 A0 a0, P1 A1 a1, P2 A2 a2, P3 A3 a3, P4 A4 a4, P5 A5 a5, P6 A6 a6, P7 A7 a7)
    (P0 A0 a0, P1 A1 a1, P2 A2 a2, P3 A3 a3, P4 A4 a4, P5 A5 a5, P6 A6 a6, P7 A7 a7, P8 A8 a8)
    (P0 A0 a0, P1 A1 a1, P2 A2 a2, P3 A3 a3, P4 A4 a4, P5 A5 a5, P6 A6 a6, P7 A7 a7, P8 A8 a8, P9 A9 a9)
    (P0 A0 a0, P1 A1 a1, P2 A2 a2, P3 A3 a3, P4 A4 a4, P5 A5 a5, P6 A6 a6, P7 A7 a7, P8 A8 a8, P9 A9 a9,
     P10 A10 a10)
    (P0 A0 a0, P1 A1 a1, P2 A2 a2, P3 A3 a3, P4 A4 a4, P5 A5 a5, P6 A6 a6, P7 A7 a7, P8 A8 a8, P9 A9 a9,
     P10 A10 a10, P11 A11 a11)
}

/// A kernel whose parameter list `P` was declared once, launched safely
/// with checked arguments (see the [module docs](self)).
pub struct Kernel<P: Params> {
    function: Function,
    _params: PhantomData<fn(P)>,
}

impl<P: Params> Kernel<P> {
    /// Declare `function`'s parameters as `P`.
    ///
    /// An error if `P` has an array of rule [`Elements`] but no [`Len`].
    ///
    /// # Errors
    /// [`Error::KernelDeclaration`] when an array of rule [`Elements`] has no
    /// [`Len`] parameter to bound it. No HIP call.
    ///
    /// # Safety
    /// `P` must be the kernel's parameter list exactly: the same number of
    /// parameters, in order, each of the C type its declaration names
    /// ([`In<T>`]: `const T*`, [`Out<T>`]: `T*`, [`Len`]: `uint32_t`, a
    /// scalar: its C type). The kernel may read an [`In`] array, and read
    /// and write an [`Out`] array, only at indices below the bound of its
    /// [`LengthRule`] (for the launch's configuration and `Len` argument),
    /// may touch no other global memory, and may use no more dynamic
    /// shared memory than the launch gives it.
    pub unsafe fn new(function: Function) -> Result<Kernel<P>> {
        let has_len = P::KINDS.contains(&ParamKind::Len);
        let needs_len =
            P::KINDS.iter().any(|k| matches!(k, ParamKind::Read(Bound::Len) | ParamKind::Write(Bound::Len)));
        if needs_len && !has_len {
            return Err(Error::KernelDeclaration {
                kernel: function.name().to_owned(),
                problem: "an array of rule Elements needs a Len parameter to bound it; add one, or give the array \
                          another rule (PerThread, PerBlock, Fixed<N>)"
                    .to_owned(),
            });
        }
        Ok(Kernel { function, _params: PhantomData })
    }

    /// [`Kernel::new`] of `module`'s kernel `name`.
    ///
    /// # Errors
    /// As [`Module::function`] (as [`Error::Hip`]), then as [`Kernel::new`].
    ///
    /// # Safety
    /// As [`Kernel::new`].
    ///
    /// # Examples
    /// ```
    /// use amdgpu::prelude::*;
    /// use amdgpu::kernel::{Kernel, Len, Out};
    /// use amdgpu::Module;
    ///
    /// // The simulator's built-in fill_f32; on a GPU, Program::load of HIP
    /// // source gives the module.
    /// # if amdgpu::backend() != amdgpu::Backend::Sim { return Ok(()); }
    /// let module = Module::load(device(), &amdgpu::sys::sim::code_object(&["fill_f32"]))?;
    /// // SAFETY: fill_f32(float* p, float value, uint32_t n) writes p[0..n).
    /// let fill = unsafe { Kernel::<(Out<f32>, f32, Len)>::from_module(&module, "fill_f32")? };
    /// assert_eq!(fill.function().name(), "fill_f32");
    /// // SAFETY: as above; the module has no such kernel, so nothing is declared.
    /// assert!(unsafe { Kernel::<(Out<f32>, f32, Len)>::from_module(&module, "no_such_kernel") }.is_err());
    /// # Ok::<(), amdgpu::Error>(())
    /// ```
    pub unsafe fn from_module(module: &Module, name: &str) -> Result<Kernel<P>> {
        // SAFETY: the caller's guarantee, passed on.
        unsafe { Kernel::new(module.function(name)?) }
    }

    /// Launch on `stream` (`hipModuleLaunchKernel`) with `args`, a tuple with
    /// one argument per parameter: `&DeviceArray<T>` or `DeviceSlice<T>` for
    /// [`In<T>`], `&mut DeviceArray<T>` for [`Out<T>`], a `u32` for [`Len`],
    /// the value for a scalar. Everything is checked before the launch;
    /// nothing is allocated.
    ///
    /// # Errors
    /// Before any launch: [`Error::Hip`] with a device mismatch naming the
    /// stream or the argument on another device, as [`LaunchLimits::of`] and
    /// [`LaunchLimits::check`] (`HipError::InvalidLaunch`), and
    /// [`Error::ArgumentTooShort`]. Then [`Error::Pool`] when ordering an
    /// array fails, or HIP's status of `hipModuleLaunchKernel`.
    ///
    /// # Examples
    /// ```
    /// use amdgpu::prelude::*;
    /// use amdgpu::kernel::{Kernel, Len, Out};
    /// use amdgpu::{LaunchConfig, Module};
    ///
    /// # if amdgpu::backend() != amdgpu::Backend::Sim { return Ok(()); }
    /// let module = Module::load(device(), &amdgpu::sys::sim::code_object(&["fill_f32"]))?;
    /// // SAFETY: fill_f32(float* p, float value, uint32_t n) writes p[0..n).
    /// let fill = unsafe { Kernel::<(Out<f32>, f32, Len)>::from_module(&module, "fill_f32")? };
    /// let mut x = DeviceArray::<f32>::zeros(100)?;
    /// fill.launch(LaunchConfig::linear(device(), 100)?, &stream(), (&mut x, 0.5f32, 100u32))?;
    /// assert_eq!(x.to_vec()?, vec![0.5; 100]);
    /// // Checked before anything is enqueued: `x` is too short for n = 200.
    /// let too_long = fill.launch(LaunchConfig::linear(device(), 200)?, &stream(), (&mut x, 1.0f32, 200u32));
    /// assert!(matches!(too_long, Err(amdgpu::Error::ArgumentTooShort { .. })));
    /// # Ok::<(), amdgpu::Error>(())
    /// ```
    #[doc(alias = "hipModuleLaunchKernel")]
    pub fn launch<A: Args<P>>(&self, config: LaunchConfig, stream: &Stream, args: A) -> Result<()> {
        args.launch(&self.function, config, stream)
    }

    /// The kernel.
    pub fn function(&self) -> &Function {
        &self.function
    }
}

impl<P: Params> std::fmt::Debug for Kernel<P> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Kernel({:?}, {:?})", self.function, P::KINDS)
    }
}
