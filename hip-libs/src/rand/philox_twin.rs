//! The CPU twins of `philox.hip`'s three kernels, which the simulator runs
//! in their place (it has no compiler): registered with it the first time
//! the portable generator loads its kernels on the simulator, and loaded
//! by name. Each computes, bit for bit, what its HIP kernel writes for
//! the same launch: the same threads, blocks, words and conversions.

use crate::Result;
use hip_core::{Device, Module};
use hip_sys::bindings::hip::hipError_t;
use hip_sys::sim::{self, ArgAccess, KernelArgs, KernelInfo, Param};

use Param::{Ptr, U32};

/// Every kernel's parameters: `(out, n, seed_lo, seed_hi, position_lo,
/// position_hi)`.
const PARAMS: &[Param] = &[Ptr, U32, U32, U32, U32, U32];

/// `n` elements of `elem` bytes written through `out`.
const fn writes(elem: usize) -> [ArgAccess; 1] {
    [ArgAccess { ptr: 0, count: 1, elem, write: true }]
}

static BITS_WRITES: [ArgAccess; 1] = writes(4);
static F64_WRITES: [ArgAccess; 1] = writes(8);

/// The twins, as the simulator's registry holds them. A thread covers
/// four words: four elements of `bits` and `uniform_f32`, two of
/// `uniform_f64`.
static TWINS: [KernelInfo; 3] = [
    KernelInfo::new("amdgpu_philox_bits", "see philox.hip", PARAMS, &BITS_WRITES, 4, bits),
    KernelInfo::new("amdgpu_philox_uniform_f32", "see philox.hip", PARAMS, &BITS_WRITES, 4, uniform_f32),
    KernelInfo::new("amdgpu_philox_uniform_f64", "see philox.hip", PARAMS, &F64_WRITES, 2, uniform_f64),
];

/// The module of the three kernels on `device` of the simulator, the
/// twins registered first (once; registering again does nothing).
pub(super) fn load(device: Device, names: &[&str]) -> Result<Module> {
    for twin in &TWINS {
        sim::register_kernel(twin).map_err(|e| crate::LibError::invalid("Philox", e.to_string()))?;
    }
    Ok(Module::load(device, &sim::code_object(names))?)
}

/// `amdgpu_philox_block`: the Philox4x32-10 block at the 64-bit
/// `counter` (its upper two words 0) under the key `(k0, k1)`.
fn block(counter: u64, mut k: [u32; 2]) -> [u32; 4] {
    let mut c = [counter as u32, (counter >> 32) as u32, 0, 0];
    for round in 0..10 {
        if round > 0 {
            k = [k[0].wrapping_add(0x9E37_79B9), k[1].wrapping_add(0xBB67_AE85)];
        }
        let p0 = u64::from(0xD251_1F53u32) * u64::from(c[0]);
        let p1 = u64::from(0xCD9E_8D57u32) * u64::from(c[2]);
        c = [(p1 >> 32) as u32 ^ c[1] ^ k[0], p1 as u32, (p0 >> 32) as u32 ^ c[3] ^ k[1], p0 as u32];
    }
    c
}

/// One launch as the kernels see it: the elements asked for, the key,
/// the stream position of word 0, and the threads (one block each).
struct Launch {
    n: usize,
    key: [u32; 2],
    position: u64,
    threads: u64,
}

impl Launch {
    /// `threads` is the grid's threads times the words a thread covers
    /// in elements (the registry's `per_thread`).
    fn of(args: &KernelArgs<'_>, threads: usize, per_thread: usize) -> Launch {
        let position = u64::from(args.u32(4)) | u64::from(args.u32(5)) << 32;
        let threads = (threads / per_thread) as u64;
        Launch { n: args.u32(1) as usize, key: [args.u32(2), args.u32(3)], position, threads }
    }

    /// Word `i` after the position: lane `w % 4` of the block at `w / 4`.
    fn word(&self, i: u64) -> u32 {
        let w = self.position.wrapping_add(i);
        block(w >> 2, self.key)[(w & 3) as usize]
    }

    /// The words the grid's blocks cover from the position on (thread `t`
    /// holds the block `position / 4 + t`).
    fn words_covered(&self) -> u64 {
        self.threads.saturating_mul(4).saturating_sub(self.position & 3)
    }
}

fn bits(args: &KernelArgs<'_>, threads: usize) -> std::result::Result<(), hipError_t> {
    let launch = Launch::of(args, threads, 4);
    let m = (launch.n as u64).min(launch.words_covered());
    args.write(args.ptr(0), &(0..m).map(|i| launch.word(i)).collect::<Vec<u32>>())
}

fn uniform_f32(args: &KernelArgs<'_>, threads: usize) -> std::result::Result<(), hipError_t> {
    let launch = Launch::of(args, threads, 4);
    let m = (launch.n as u64).min(launch.words_covered());
    // (word >> 8) · 2⁻²⁴: exact.
    let uniform = |i: u64| (launch.word(i) >> 8) as f32 * (1.0 / 16_777_216.0);
    args.write(args.ptr(0), &(0..m).map(uniform).collect::<Vec<f32>>())
}

fn uniform_f64(args: &KernelArgs<'_>, threads: usize) -> std::result::Result<(), hipError_t> {
    let launch = Launch::of(args, threads, 2);
    let m = (launch.n as u64).min(launch.words_covered() / 2);
    // ((a >> 11) · 2³² + b) · 2⁻⁵³: exact.
    let uniform = |i: u64| {
        let (a, b) = (u64::from(launch.word(2 * i)), u64::from(launch.word(2 * i + 1)));
        ((a >> 11) << 32 | b) as f64 * (1.0 / 9_007_199_254_740_992.0)
    };
    args.write(args.ptr(0), &(0..m).map(uniform).collect::<Vec<f64>>())
}

#[cfg(test)]
mod tests {
    use super::block;

    /// Random123's known answer for philox4x32-10 at counter 0, key 0.
    #[test]
    fn the_block_is_philox4x32_10() {
        assert_eq!(block(0, [0, 0]), [0x6627_e8d5, 0xe169_c58d, 0xbc57_ac4c, 0x9b00_dbd8]);
    }
}
