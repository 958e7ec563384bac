//! The project's own counter-based Philox4x32-10: numbers that are bit
//! for bit the same on every backend (AMD, NVIDIA, the simulator), where
//! rocRAND's and cuRAND's differ.
//!
//! A [`Philox`] is a seed and a position in the seed's stream of 32-bit
//! words, kept on the host: word `w` is lane `w % 4` of the Philox4x32-10
//! block at counter `w / 4` under the key (seed's low word, high word).
//! Each fill computes its elements from their words alone (a kernel
//! compiled from `philox.hip` by hipRTC, NVRTC, or on the simulator the
//! machine's C++ compiler) with integer arithmetic and exact conversions, so no
//! compiler, math library or fused multiply-add can change a bit, and
//! moves the position past the words it used. The same seed and position
//! give the same numbers on any device, stream, grid or backend.
//!
//! - [`Philox::bits`]: the words themselves.
//! - [`Philox::uniform`]: `f32` in [0, 1) from one word (`(w >> 8) · 2⁻²⁴`),
//!   `f64` in [0, 1) from two (`((a >> 11) · 2³² + b) · 2⁻⁵³`) at an even
//!   position: a double fill from an odd position skips one word first.
//!
//! Each GPU thread computes one four-word block and writes the elements
//! whose words it holds.
//!
//! In a capture the position is baked into the graph: every replay draws
//! the numbers of the capture, and the generator moves on once.

use crate::data::DeviceDataMut;
use crate::{LibError, Result};
use hip_core::{Device, Function, KernelArg, LaunchConfig, Module, Program};
use hip_pool::{enqueue, Access};
use hip_sys::sync::MutexExt;
use std::sync::{Arc, Mutex};

/// The kernels' source, compiled once per device.
const SOURCE: &str = include_str!("philox.hip");
/// The kernels, by what they fill.
const KERNELS: [&str; 3] = ["amdgpu_philox_bits", "amdgpu_philox_uniform_f32", "amdgpu_philox_uniform_f64"];
/// The most elements one launch fills (its count is a `uint32_t`).
const PER_LAUNCH: usize = 1 << 30;

/// A seed and a position in its stream of words: the state of the
/// portable generator, on the host.
///
/// ```
/// use hip_libs::rand::Philox;
/// # fn fill<A: hip_libs::DeviceDataMut<f32>>(a: &mut A) -> hip_libs::Result<()> {
/// let mut rng = Philox::new(42);
/// rng.uniform(a)?; // the same numbers on AMD, NVIDIA and the simulator
/// assert_eq!(rng.position(), a.len() as u64);
/// # Ok(()) }
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Philox {
    seed: u64,
    position: u64,
}

/// The element types [`Philox::uniform`] fills: `f32` (one word each) and
/// `f64` (two).
pub trait PortableFloat: Copy + sealed::Sealed {
    #[doc(hidden)]
    const KERNEL: usize;
    #[doc(hidden)]
    const WORDS: u64;
}

mod sealed {
    pub trait Sealed {}
    impl Sealed for f32 {}
    impl Sealed for f64 {}
}

impl PortableFloat for f32 {
    const KERNEL: usize = 1;
    const WORDS: u64 = 1;
}

impl PortableFloat for f64 {
    const KERNEL: usize = 2;
    const WORDS: u64 = 2;
}

impl Philox {
    /// The stream of `seed`, from its start.
    pub fn new(seed: u64) -> Philox {
        Philox { seed, position: 0 }
    }

    /// The stream of `seed` from word `position` on (to skip ahead, or to
    /// give each of many workers its own part of one stream).
    pub fn at(seed: u64, position: u64) -> Philox {
        Philox { seed, position }
    }

    /// The seed.
    pub fn seed(&self) -> u64 {
        self.seed
    }

    /// The next word a fill uses.
    pub fn position(&self) -> u64 {
        self.position
    }

    /// Fill `out` with the next words of the stream, on its stream.
    ///
    /// # Errors
    /// [`LibError::Hip`] when the kernels cannot be compiled or loaded for
    /// the output's device (the compiler's log in the error; on the
    /// simulator with no C++ compiler, the log says what to install) or the launch
    /// fails; `LibError::Pool` from ordering the output's uses;
    /// [`LibError::InvalidInput`] if the stream's position would pass 2⁶⁴.
    pub fn bits(&mut self, out: &mut impl DeviceDataMut<u32>) -> Result<()> {
        self.fill(out, 0, 1)
    }

    /// Fill `out` with uniform numbers in [0, 1) from the next words of the
    /// stream (one a float, two a double), on its stream.
    ///
    /// # Errors
    /// As [`Philox::bits`].
    pub fn uniform<T: PortableFloat>(&mut self, out: &mut impl DeviceDataMut<T>) -> Result<()> {
        self.fill(out, T::KERNEL, T::WORDS)
    }

    fn fill<T>(&mut self, out: &mut impl DeviceDataMut<T>, kernel: usize, words: u64) -> Result<()> {
        let n = out.len();
        // A double's two words are lanes 0-1 or 2-3 of one block.
        let start =
            if words == 2 && n > 0 { self.position.checked_add(self.position & 1) } else { Some(self.position) };
        let used = start.and_then(|start| (n as u64).checked_mul(words).and_then(|w| start.checked_add(w)));
        let (Some(start), Some(end)) = (start, used) else {
            return Err(LibError::invalid(
                "Philox",
                format!("{n} elements from word {} would pass the stream's 2^64 words", self.position),
            ));
        };
        if n == 0 {
            return Ok(());
        }
        let stream = out.stream().clone();
        let functions = kernels(stream.device())?;
        let function = &functions[kernel];
        let base = out.device_ptr_mut().cast::<u8>();
        let size = std::mem::size_of::<T>();
        let (seed_lo, seed_hi) = (self.seed as u32, (self.seed >> 32) as u32);
        enqueue(&stream, [(out.buffer(), Access::Write)], || {
            let mut done = 0usize;
            while done < n {
                let count = (n - done).min(PER_LAUNCH);
                let at = start + done as u64 * words;
                // SAFETY: `count` elements from element `done` of the output,
                // inside its memory.
                let ptr = unsafe { base.add(done * size) };
                let (count32, lo, hi) = (count as u32, at as u32, (at >> 32) as u32);
                // One thread a block, from the block holding word `at`.
                let blocks = ((at & 3) + count as u64 * words).div_ceil(4) as usize;
                // SAFETY: the kernel's parameters in order and type; the
                // output holds `count` elements there, kept from reuse until
                // the launch completes (the operand protocol).
                unsafe {
                    function.launch(
                        LaunchConfig::for_elements(blocks, 256),
                        &stream,
                        &[&ptr as &dyn KernelArg, &count32, &seed_lo, &seed_hi, &lo, &hi],
                    )
                }?;
                done += count;
            }
            Ok::<(), LibError>(())
        })?;
        self.position = end;
        Ok(())
    }
}

/// The three kernels of `device`, compiled from their source (by hipRTC,
/// NVRTC, or the simulator's C++ compiler), loaded once per device for
/// the process.
fn kernels(device: Device) -> Result<Arc<[Function; 3]>> {
    static LOADED: Mutex<Vec<(Device, Arc<[Function; 3]>)>> = Mutex::new(Vec::new());
    if let Some((_, loaded)) = LOADED.lock_unpoisoned().iter().find(|(d, _)| *d == device) {
        return Ok(loaded.clone());
    }
    let module = load(device)?;
    let functions =
        Arc::new([module.function(KERNELS[0])?, module.function(KERNELS[1])?, module.function(KERNELS[2])?]);
    let mut loaded = LOADED.lock_unpoisoned();
    if let Some((_, other)) = loaded.iter().find(|(d, _)| *d == device) {
        return Ok(other.clone());
    }
    loaded.push((device, functions.clone()));
    Ok(functions)
}

fn load(device: Device) -> Result<Module> {
    Ok(Program::new(SOURCE).name("amdgpu_philox.hip").load(device)?)
}
