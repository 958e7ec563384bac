//! The generate calls: words, uniforms, normals and log-normals, each
//! queued on the generator's stream as one write of its output.

use super::generator::{generator_device, initialize, with_generator, Engine, Status, INTERNAL, OK};
use super::mrg32k3a;
use crate::backend::sim::library::{accesses, call, span};
use crate::backend::sim::submit::{self, Op};
use crate::backend::sim::targets;
use crate::backend::sim::violations::AccessKind;
use crate::bindings::rocrand::*;
use std::ffi::c_void;

const LAUNCH_FAILURE: Status = rocrand_status::ROCRAND_STATUS_LAUNCH_FAILURE;

/// 2^-32 in f32, 2^-53 and 2^-52 in f64 (rocRAND's `ROCRAND_2POW32_INV`
/// and `ROCRAND_2POW53_INV_DOUBLE`, and twice the latter).
const INV32: f32 = 2.328_306_4e-10;
const INV53: f64 = 1.110_223_024_625_156_5e-16;
const INV52: f64 = 2.220_446_049_250_313e-16;
/// `ROCRAND_2POW32_INV_2PI`, as rocRAND spells it (a product of floats).
const INV32_2PI: f32 = 2.328_306_4e-10 * 6.283_185_5;

/// Queue a fill of `n` elements of `size` bytes at `out` on `generator`'s
/// stream, from the next `words` words of its stream, made into bytes by
/// `convert` (given the generator's engine) when the work runs.
/// `wordwise`: one word makes one element (the only layout modelled for
/// XORWOW and MRG32k3a, whose engines draw several words an element
/// otherwise).
#[allow(clippy::too_many_arguments)]
fn fill(
    function: &'static str,
    generator: rocrand_generator,
    out: *mut c_void,
    n: usize,
    size: usize,
    words: u64,
    wordwise: bool,
    convert: impl Fn(&[u32], Engine) -> Vec<u8> + Send + Sync + 'static,
) -> Status {
    call(function, OK, INTERNAL, || {
        let device = generator_device(function, generator)?;
        let engine = with_generator(generator, |g| g.engine)?;
        if !wordwise && engine != Engine::Philox {
            log::error!("hip simulator: {function} is not modelled for {engine:?} (words and float uniforms are)");
            return Err(INTERNAL);
        }
        if n == 0 {
            return Ok(());
        }
        let bytes = n.checked_mul(size).ok_or(rocrand_status::ROCRAND_STATUS_OUT_OF_RANGE)?;
        if !wordwise && out as usize % 16 != 0 {
            // rocRAND's kernels then hand the head to one thread and
            // misplace values; refused here rather than computed right.
            log::error!("hip simulator: {function} into {out:p}, not 16-byte aligned, misplaces values on rocRAND");
            return Err(LAUNCH_FAILURE);
        }
        let output = span(out as usize, bytes).ok_or(LAUNCH_FAILURE)?;
        let stream = with_generator(generator, |g| g.stream)?;
        let target = if stream == 0 {
            targets::null_target(device).map_err(|_| INTERNAL)?
        } else {
            targets::target(stream as crate::bindings::hip::hipStream_t).map_err(|_| LAUNCH_FAILURE)?
        };
        if target.device != device || output.device() != Some(device) {
            return Err(LAUNCH_FAILURE);
        }
        initialize(generator)?;
        let run = with_generator(generator, |g| g.take(words))?;
        let op = Op::with(function, accesses([(&output, AccessKind::Write)]));
        submit::submit(&target, false, op, move || {
            let mut made = convert(&run.all(), run.engine);
            made.truncate(bytes);
            output.write_bytes(&made)
        })
        .map_err(|_| LAUNCH_FAILURE)
    })
}

fn bytes_of<T: Copy, const N: usize>(values: impl Iterator<Item = T>, to_bytes: fn(T) -> [u8; N]) -> Vec<u8> {
    values.flat_map(to_bytes).collect()
}

/// rocRAND's float uniform of one word, in (0, 1].
fn uniform_f32(v: u32) -> f32 {
    (v as f32).mul_add(INV32, INV32)
}

/// rocRAND's double uniform of two words, in (0, 1].
fn uniform_f64(a: u32, b: u32) -> f64 {
    let bits = u64::from(a) | u64::from(b >> 11) << 32;
    (bits as f64).mul_add(INV53, INV53)
}

/// Box-Muller on two words: the first sets the radius, the second the
/// angle; `sin` first.
fn normal_pair_f32(x: u32, y: u32) -> [f32; 2] {
    let u = uniform_f32(x);
    let t = (y as f32).mul_add(INV32_2PI, INV32_2PI);
    let s = (-2.0 * u.ln()).sqrt();
    [t.sin() * s, t.cos() * s]
}

/// Box-Muller on four words (rocRAND's double normal).
fn normal_pair_f64(w: &[u32]) -> [f64; 2] {
    let v1 = u64::from(w[0]) ^ u64::from(w[1]) << 21;
    let v2 = u64::from(w[2]) ^ u64::from(w[3]) << 21;
    let u = (v1 as f64).mul_add(INV53, INV53);
    let angle = (v2 as f64).mul_add(INV52, INV52) * std::f64::consts::PI;
    let s = (-2.0 * u.ln()).sqrt();
    [angle.sin() * s, angle.cos() * s]
}

/// Words a normal fill of `n` takes: `per_pair` for each pair, the last
/// one whole for an odd `n`.
fn pair_words(n: usize, per_pair: u64) -> u64 {
    (n as u64).div_ceil(2) * per_pair
}

pub(crate) unsafe extern "C" fn rocrand_generate(generator: rocrand_generator, out: *mut u32, n: usize) -> Status {
    fill("rocrand_generate", generator, out.cast(), n, 4, n as u64, true, |w, engine| match engine {
        Engine::Mrg32k3a => bytes_of(w.iter().map(|&v| mrg32k3a::word(v)), u32::to_ne_bytes),
        _ => bytes_of(w.iter().copied(), u32::to_ne_bytes),
    })
}

pub(crate) unsafe extern "C" fn rocrand_generate_uniform(
    generator: rocrand_generator,
    out: *mut f32,
    n: usize,
) -> Status {
    fill("rocrand_generate_uniform", generator, out.cast(), n, 4, n as u64, true, |w, engine| match engine {
        Engine::Mrg32k3a => bytes_of(w.iter().map(|&v| mrg32k3a::uniform(v)), f32::to_ne_bytes),
        _ => bytes_of(w.iter().map(|&v| uniform_f32(v)), f32::to_ne_bytes),
    })
}

pub(crate) unsafe extern "C" fn rocrand_generate_uniform_double(
    generator: rocrand_generator,
    out: *mut f64,
    n: usize,
) -> Status {
    fill("rocrand_generate_uniform_double", generator, out.cast(), n, 8, 2 * n as u64, false, |w, _| {
        bytes_of(w.chunks_exact(2).map(|p| uniform_f64(p[0], p[1])), f64::to_ne_bytes)
    })
}

/// `mean + z * stddev` of each normal `z`, or its `exp` for log-normals.
fn shifted<T: Copy + std::ops::Mul<Output = T> + std::ops::Add<Output = T>>(
    z: impl Iterator<Item = T>,
    (mean, stddev): (T, T),
    exp: Option<fn(T) -> T>,
) -> impl Iterator<Item = T> {
    z.map(move |z| {
        let v = mean + z * stddev;
        exp.map_or(v, |exp| exp(v))
    })
}

/// A normal or log-normal entry point of rocRAND's: its name, element
/// type, the words a pair takes, the pair function and whether it is
/// log-normal.
macro_rules! normals {
    ($name:ident, $t:ty, $pair_words:expr, $pairs:expr, $log:expr) => {
        pub(crate) unsafe extern "C" fn $name(
            generator: rocrand_generator,
            out: *mut $t,
            n: usize,
            mean: $t,
            stddev: $t,
        ) -> Status {
            let size = std::mem::size_of::<$t>();
            fill(stringify!($name), generator, out.cast(), n, size, pair_words(n, $pair_words), false, move |w, _| {
                let exp: Option<fn($t) -> $t> = if $log { Some(<$t>::exp) } else { None };
                bytes_of(shifted($pairs(w), (mean, stddev), exp), <$t>::to_ne_bytes)
            })
        }
    };
}

fn pairs_f32(w: &[u32]) -> impl Iterator<Item = f32> + '_ {
    w.chunks_exact(2).flat_map(|p| normal_pair_f32(p[0], p[1]))
}

fn pairs_f64(w: &[u32]) -> impl Iterator<Item = f64> + '_ {
    w.chunks_exact(4).flat_map(normal_pair_f64)
}

normals!(rocrand_generate_normal, f32, 2, pairs_f32, false);
normals!(rocrand_generate_normal_double, f64, 4, pairs_f64, false);
normals!(rocrand_generate_log_normal, f32, 2, pairs_f32, true);
normals!(rocrand_generate_log_normal_double, f64, 4, pairs_f64, true);

pub(crate) unsafe extern "C" fn rocrand_generate_poisson(
    generator: rocrand_generator,
    _out: *mut u32,
    _n: usize,
    _lambda: f64,
) -> Status {
    call("rocrand_generate_poisson", OK, INTERNAL, || {
        generator_device("rocrand_generate_poisson", generator)?;
        log::error!("hip simulator: rocrand_generate_poisson is not modelled");
        Err(INTERNAL)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// rocRAND 5.7's host API on the CPU, seed 0: the first floats and
    /// doubles.
    #[test]
    fn uniforms_of_rocrand_5_7() {
        let w = [0x6627e8d5u32, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8, 0xf8e4cca4, 0x5cb200db, 0xb1a574eb, 0x097eff67];
        let floats: Vec<u32> = w[..4].iter().map(|&v| uniform_f32(v).to_bits()).collect();
        // 0x1.989fa4p-2, 0x1.c2d38cp-1, 0x1.78af58p-1, 0x1.3601b8p-1
        assert_eq!(floats, [0x3ecc4fd2, 0x3f6169c6, 0x3f3c57ac, 0x3f1b00dc]);
        let doubles: Vec<f64> = w.chunks_exact(2).map(|p| uniform_f64(p[0], p[1])).collect();
        let expected = [
            f64::from_bits(0x3fec2d386627e8d6),
            f64::from_bits(0x3fe3601bbc57ac4d),
            f64::from_bits(0x3fd72c81f1c9994a),
            f64::from_bits(0x3fa2fdfb1a574ec0),
        ];
        assert_eq!(doubles, expected);
        assert_eq!(uniform_f32(u32::MAX), 1.0);
        assert_eq!(uniform_f32(0), INV32);
    }

    #[test]
    fn normal_fills_take_whole_pairs() {
        assert_eq!(pair_words(3, 2), 4);
        assert_eq!(pair_words(4, 2), 4);
        assert_eq!(pair_words(1, 4), 4);
    }
}
