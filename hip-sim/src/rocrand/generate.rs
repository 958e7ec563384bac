//! The generate calls: words, uniforms, normals, log-normals and Poisson
//! numbers, each queued on the generator's stream as one write of its
//! output.

use super::engines::Widths;
use super::generator::{generator_device, initialize, with_generator, Engine, Status, INTERNAL, NOT_CREATED, OK};
use super::{mrg32k3a, poisson, xorwow};
use crate::bindings::rocrand::*;
use crate::library::{accesses, call, span};
use crate::machine::violations::AccessKind;
use crate::submit::{self, Op};
use crate::targets;
use std::sync::Arc;

const LAUNCH_FAILURE: Status = rocrand_status::ROCRAND_STATUS_LAUNCH_FAILURE;

/// 2^-32 in f32, 2^-53 and 2^-52 in f64 (rocRAND's `ROCRAND_2POW32_INV`
/// and `ROCRAND_2POW53_INV_DOUBLE`, and twice the latter).
const INV32: f32 = 2.328_306_4e-10;
const INV53: f64 = 1.110_223_024_625_156_5e-16;
const INV52: f64 = 2.220_446_049_250_313e-16;
/// `ROCRAND_2POW32_INV_2PI`, as rocRAND spells it (a product of floats).
const INV32_2PI: f32 = 2.328_306_4e-10 * 6.283_185_5;

/// What makes a distribution's values of its draws.
type Make<T> = Box<dyn Fn(&[u32]) -> Vec<T> + Send + Sync>;

/// A distribution as rocRAND's functors give it for one engine: `input`
/// draws make `output` values, by `make`.
struct Distribution<T> {
    widths: Widths,
    make: Make<T>,
}

impl<T> Distribution<T> {
    fn new(input: usize, output: usize, make: impl Fn(&[u32]) -> Vec<T> + Send + Sync + 'static) -> Self {
        Distribution { widths: Widths { input, output }, make: Box::new(make) }
    }
}

/// Queue a fill of `n` values of type `T` at `out` on `generator`'s
/// stream, made by the distribution `pick` gives for the generator's
/// engine when the work runs: from Philox's one stream of words, or from
/// XORWOW's and MRG32k3a's engines as their kernel lays work out.
fn fill<T: Copy + Default + Send + 'static, const N: usize>(
    function: &'static str,
    generator: rocrand_generator,
    out: *mut T,
    n: usize,
    to_bytes: fn(T) -> [u8; N],
    pick: impl FnOnce(Engine) -> Result<Distribution<T>, Status>,
) -> Status {
    call(function, OK, INTERNAL, || {
        let device = generator_device(function, generator)?;
        let engine = with_generator(generator, |g| g.engine)?;
        let distribution = pick(engine)?;
        if n == 0 {
            return Ok(());
        }
        let bytes = n.checked_mul(N).ok_or(rocrand_status::ROCRAND_STATUS_OUT_OF_RANGE)?;
        let vector = distribution.widths.output > 1 || distribution.widths.input > 1;
        if engine == Engine::Philox && vector && out as usize % 16 != 0 {
            // rocRAND's Philox kernel then hands the head to one thread
            // and misplaces values; refused here rather than computed
            // right.
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
        let Widths { input, output: width } = distribution.widths;
        let compute: Box<dyn Fn() -> Vec<T> + Send + Sync> = match engine {
            Engine::Philox => {
                let words = with_generator(generator, |g| g.take((n.div_ceil(width) * input) as u64))?;
                Box::new(move || words.all().chunks_exact(input).flat_map(|w| (distribution.make)(w)).collect())
            }
            Engine::Xorwow | Engine::Mrg32k3a => {
                let misalignment = (width - (out as usize / N) % width) % width;
                let launch =
                    with_generator(generator, |g| g.launch(n, misalignment, distribution.widths))?.ok_or(INTERNAL)?;
                match engine {
                    Engine::Xorwow => Box::new(move || launch.run::<xorwow::State, T>(&distribution.make)),
                    _ => Box::new(move || launch.run::<mrg32k3a::State, T>(&distribution.make)),
                }
            }
        };
        let op = Op::with(function, accesses([(&output, AccessKind::Write)]));
        submit::submit(&target, false, op, move || {
            let made: Vec<u8> = compute().into_iter().take(n).flat_map(to_bytes).collect();
            output.write_bytes(&made)
        })
        .map_err(|_| LAUNCH_FAILURE)
    })
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

/// MRG32k3a's Box-Muller of two draws in float (`mrg_box_muller`).
fn mrg_normal_pair_f32(x: u32, y: u32) -> [f32; 2] {
    let u = mrg32k3a::uniform(x);
    let v = mrg32k3a::uniform(y) * 6.283_185_5;
    let s = (-2.0 * u.ln()).sqrt();
    [v.sin() * s, v.cos() * s]
}

/// MRG32k3a's Box-Muller in double (`mrg_box_muller_double`): its
/// uniforms are the float ones, widened.
fn mrg_normal_pair_f64(x: u32, y: u32) -> [f64; 2] {
    let u = f64::from(mrg32k3a::uniform(x));
    let v = f64::from(mrg32k3a::uniform(y)) * 2.0;
    let s = (-2.0 * u.ln()).sqrt();
    let angle = v * std::f64::consts::PI;
    [angle.sin() * s, angle.cos() * s]
}

pub(crate) unsafe extern "C" fn rocrand_generate(generator: rocrand_generator, out: *mut u32, n: usize) -> Status {
    fill("rocrand_generate", generator, out, n, u32::to_ne_bytes, |engine| {
        Ok(match engine {
            Engine::Mrg32k3a => Distribution::new(1, 1, |w| vec![mrg32k3a::word(w[0])]),
            _ => Distribution::new(1, 1, |w| w.to_vec()),
        })
    })
}

pub(crate) unsafe extern "C" fn rocrand_generate_uniform(
    generator: rocrand_generator,
    out: *mut f32,
    n: usize,
) -> Status {
    fill("rocrand_generate_uniform", generator, out, n, f32::to_ne_bytes, |engine| {
        Ok(match engine {
            Engine::Mrg32k3a => Distribution::new(1, 1, |w| vec![mrg32k3a::uniform(w[0])]),
            _ => Distribution::new(1, 1, |w| vec![uniform_f32(w[0])]),
        })
    })
}

pub(crate) unsafe extern "C" fn rocrand_generate_uniform_double(
    generator: rocrand_generator,
    out: *mut f64,
    n: usize,
) -> Status {
    fill("rocrand_generate_uniform_double", generator, out, n, f64::to_ne_bytes, |engine| {
        Ok(match engine {
            Engine::Mrg32k3a => Distribution::new(1, 1, |w| vec![mrg32k3a::uniform_double(w[0])]),
            _ => Distribution::new(2, 1, |w| vec![uniform_f64(w[0], w[1])]),
        })
    })
}

/// `mean + z * stddev` of each normal `z`, or its `exp` for log-normals.
fn shifted<T: Copy + std::ops::Mul<Output = T> + std::ops::Add<Output = T>>(
    pair: [T; 2],
    (mean, stddev): (T, T),
    exp: Option<fn(T) -> T>,
) -> Vec<T> {
    pair.into_iter()
        .map(|z| {
            let v = mean + z * stddev;
            exp.map_or(v, |exp| exp(v))
        })
        .collect()
}

/// A normal or log-normal entry point of rocRAND's: its name, element
/// type, and whether it is log-normal; Philox's and XORWOW's draws per
/// pair and pair function, then MRG32k3a's pair function (two draws).
macro_rules! normals {
    ($name:ident, $t:ty, $log:expr, $words:expr, $pair:expr, $mrg_pair:expr) => {
        pub(crate) unsafe extern "C" fn $name(
            generator: rocrand_generator,
            out: *mut $t,
            n: usize,
            mean: $t,
            stddev: $t,
        ) -> Status {
            let exp: Option<fn($t) -> $t> = if $log { Some(<$t>::exp) } else { None };
            fill(stringify!($name), generator, out, n, <$t>::to_ne_bytes, |engine| {
                Ok(match engine {
                    Engine::Mrg32k3a => {
                        Distribution::new(2, 2, move |w| shifted($mrg_pair(w[0], w[1]), (mean, stddev), exp))
                    }
                    _ => Distribution::new($words, 2, move |w| shifted($pair(w), (mean, stddev), exp)),
                })
            })
        }
    };
}

fn pair_f32(w: &[u32]) -> [f32; 2] {
    normal_pair_f32(w[0], w[1])
}

normals!(rocrand_generate_normal, f32, false, 2, pair_f32, mrg_normal_pair_f32);
normals!(rocrand_generate_normal_double, f64, false, 4, normal_pair_f64, mrg_normal_pair_f64);
normals!(rocrand_generate_log_normal, f32, true, 2, pair_f32, mrg_normal_pair_f32);
normals!(rocrand_generate_log_normal_double, f64, true, 4, normal_pair_f64, mrg_normal_pair_f64);

pub(crate) unsafe extern "C" fn rocrand_generate_poisson(
    generator: rocrand_generator,
    out: *mut u32,
    n: usize,
    lambda: f64,
) -> Status {
    let function = "rocrand_generate_poisson";
    if generator.is_null() {
        return NOT_CREATED;
    }
    // rocRAND refuses `lambda <= 0`; NaN, infinities and values of 2^31
    // or more are undefined behaviour in its table code (a cast to `int`),
    // refused here too.
    if !(lambda > 0.0 && lambda < 2_147_483_648.0) {
        log::error!("hip simulator: {function} with lambda {lambda}: rocRAND takes a positive lambda below 2^31");
        return rocrand_status::ROCRAND_STATUS_OUT_OF_RANGE;
    }
    fill(function, generator, out, n, u32::to_ne_bytes, |engine| {
        let table = poisson_table(generator, lambda)?;
        Ok(match engine {
            Engine::Mrg32k3a => Distribution::new(1, 1, move |w| vec![table.value(mrg32k3a::word(w[0]))]),
            _ => Distribution::new(1, 1, move |w| vec![table.value(w[0])]),
        })
    })
}

/// `generator`'s table for `lambda`: the one it keeps for its last
/// `lambda`, or a new one, which rocRAND puts in device memory it
/// allocates (refused, as that allocation would be, inside a capture the
/// thread may not allocate in) and fills with a synchronous copy.
fn poisson_table(generator: rocrand_generator, lambda: f64) -> Result<Arc<poisson::Table>, Status> {
    if let Some(table) = with_generator(generator, |g| g.poisson_table(lambda))? {
        return Ok(table);
    }
    crate::machine::capture::check_allocation().map_err(|_| rocrand_status::ROCRAND_STATUS_ALLOCATION_FAILED)?;
    let table = Arc::new(poisson::Table::new(lambda));
    with_generator(generator, |g| g.keep_poisson_table(lambda, table.clone()))?;
    Ok(table)
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
}
