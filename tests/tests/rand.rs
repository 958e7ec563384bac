//! rocRAND through hip-libs: the simulator against rocRAND 5.7's host API
//! (values computed by rocRAND's own code); where the numbers are
//! rocRAND's (AMD, the simulator) how uniforms are made of the words and
//! how far each fill moves the stream; and on every backend with rocRAND,
//! cuRAND's mapping included, the stream's rules (seeds, offsets,
//! continuation across fills, odd normal counts, one stream per thread
//! and device, capture) and statistics (mean, variance and a
//! Kolmogorov-Smirnov test against the distribution). Where the backend
//! lacks rocRAND the tests say so and pass.

use amdgpu::libs::Library;
use amdgpu::prelude::*;
use amdgpu::rand;
use amdgpu::runtime::CaptureMode;
use hip_sys::sim;

mod common;
use common::{have, on_sim, on_thread};

/// rocRAND 5.7's host API, Philox, seed 0 (the C API's default): the first
/// twelve words.
const SEED_0: [u32; 12] = [
    0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8, 0xf8e4cca4, 0x5cb200db, 0xb1a574eb, 0x097eff67, 0x04faa329,
    0x51c732a6, 0x241513ad, 0x459135e4,
];

/// Whether the numbers are rocRAND's own (AMD's library or the
/// simulator's), not cuRAND's behind the same table, whose sequences and
/// conversions differ.
fn rocrands_numbers() -> bool {
    hip_sys::backend() != hip_sys::Backend::Nvidia
}

fn words(n: usize) -> Vec<u32> {
    let mut out = DeviceArray::<u32>::zeros(n).unwrap();
    rand::bits(&mut out).unwrap();
    out.to_vec().unwrap()
}

fn restart(seed: u64) {
    let device = Device::new(0).unwrap();
    rand::set_seed(device, seed).unwrap();
    rand::set_offset(device, 0).unwrap();
}

#[test]
fn a_thread_starts_at_rocrands_seed_0_and_fills_continue_the_stream() {
    let _x = sim::exclusive();
    if !have(Library::Rocrand) {
        return;
    }
    on_thread("fresh", || {
        // A new thread's generator: rocRAND's default seed and offset.
        let first = words(5);
        let rest = words(7);
        if on_sim() {
            assert_eq!([first, rest].concat(), SEED_0, "the words of rocRAND 5.7, seed 0");
        } else {
            restart(0);
            assert_eq!(words(12), [first, rest].concat(), "two fills continue one stream");
        }
    });
}

#[test]
fn seeds_and_offsets_restart_the_stream() {
    let _x = sim::exclusive();
    if !have(Library::Rocrand) {
        return;
    }
    on_thread("seeds", || {
        let device = Device::new(0).unwrap();
        restart(0);
        let reference = words(12);
        words(100);
        restart(0);
        assert_eq!(words(12), reference, "set_seed restarts");
        rand::set_offset(device, 5).unwrap();
        assert_eq!(words(7), reference[5..12], "an offset counts words");
        rand::set_seed(device, 12345).unwrap();
        rand::set_offset(device, 0).unwrap();
        let other = words(4);
        assert_ne!(other, reference[..4]);
        if on_sim() {
            assert_eq!(other, [0xd1fa3e81, 0x2f7fea51, 0xd2ca9611, 0xe328bbe0], "rocRAND 5.7, seed 12345");
        }
    });
}

#[test]
fn uniforms_are_in_0_1_and_made_of_the_words() {
    let _x = sim::exclusive();
    if !have(Library::Rocrand) {
        return;
    }
    on_thread("uniform", || {
        restart(0);
        let w = words(8);
        restart(0);
        let mut f = DeviceArray::<f32>::zeros(8).unwrap();
        rand::uniform(&mut f).unwrap();
        let f = f.to_vec().unwrap();
        assert!(f.iter().all(|&x| x > 0.0 && x <= 1.0), "{f:?}");
        if !rocrands_numbers() {
            return;
        }
        let expected: Vec<f32> = w.iter().map(|&v| (v as f32).mul_add(2f32.powi(-32), 2f32.powi(-32))).collect();
        assert_eq!(f, expected, "a float uniform is one word, (v + 1) 2^-32");
        // A double takes two words: the 53 bits of the first and the top
        // 21 of the second.
        restart(0);
        let mut d = DeviceArray::<f64>::zeros(4).unwrap();
        rand::uniform(&mut d).unwrap();
        let d = d.to_vec().unwrap();
        let expected: Vec<f64> = w
            .chunks_exact(2)
            .map(|p| ((u64::from(p[0]) | u64::from(p[1] >> 11) << 32) as f64).mul_add(2f64.powi(-53), 2f64.powi(-53)))
            .collect();
        assert_eq!(d, expected);
        // After 4 doubles the stream is 8 words on.
        let mut next = DeviceArray::<u32>::zeros(1).unwrap();
        rand::bits(&mut next).unwrap();
        restart(0);
        assert_eq!(next.to_vec().unwrap()[0], words(9)[8], "a double uniform takes two words");
    });
}

/// The Kolmogorov-Smirnov statistic of `sample` against `cdf`.
fn ks(sample: &mut [f64], cdf: impl Fn(f64) -> f64) -> f64 {
    sample.sort_by(f64::total_cmp);
    let n = sample.len() as f64;
    sample.iter().enumerate().fold(0.0f64, |d, (i, &x)| {
        let f = cdf(x);
        d.max((f - i as f64 / n).abs()).max(((i + 1) as f64 / n - f).abs())
    })
}

/// The standard normal CDF (Abramowitz-Stegun 7.1.26 for erf, error below
/// 1.5e-7, far under the test's bound).
fn phi(x: f64) -> f64 {
    let z = x.abs() / std::f64::consts::SQRT_2;
    let t = 1.0 / (1.0 + 0.327_591_1 * z);
    let poly =
        t * (0.254_829_592 + t * (-0.284_496_736 + t * (1.421_413_741 + t * (-1.453_152_027 + t * 1.061_405_429))));
    let erf = 1.0 - poly * (-z * z).exp();
    if x >= 0.0 {
        0.5 * (1.0 + erf)
    } else {
        0.5 * (1.0 - erf)
    }
}

fn moments(sample: &[f64]) -> (f64, f64) {
    let n = sample.len() as f64;
    let mean = sample.iter().sum::<f64>() / n;
    let var = sample.iter().map(|x| (x - mean) * (x - mean)).sum::<f64>() / (n - 1.0);
    (mean, var)
}

/// 2^16 values: the KS statistic's 99.9 % point is 1.95 / sqrt(n) = 0.0076;
/// the bounds below are above it, and fixed seeds make the tests exact
/// repeats, not flaky draws.
const N: usize = 1 << 16;

const ENGINES: [rand::Engine; 3] = [rand::Engine::Philox4x32_10, rand::Engine::Xorwow, rand::Engine::Mrg32k3a];

/// Run `check` on one fresh thread named `name` for every engine in turn,
/// each chosen for device 0 and seeded with `seed` first.
fn on_every_engine(name: &str, seed: u64, check: impl Fn(rand::Engine) + Send + 'static) {
    on_thread(name, move || {
        let device = Device::new(0).unwrap();
        for engine in ENGINES {
            rand::set_engine(device, engine).unwrap();
            rand::set_seed(device, seed).unwrap();
            check(engine);
        }
    });
}

#[test]
fn uniform_and_normal_fills_have_their_distributions_on_every_engine() {
    let _x = sim::exclusive();
    if !have(Library::Rocrand) {
        return;
    }
    on_every_engine("statistics", 2024, |engine| {
        let mut u = DeviceArray::<f32>::zeros(N).unwrap();
        rand::uniform(&mut u).unwrap();
        let u: Vec<f64> = u.to_vec().unwrap().into_iter().map(f64::from).collect();
        let mut u64s = DeviceArray::<f64>::zeros(N).unwrap();
        rand::uniform(&mut u64s).unwrap();
        for (name, mut u) in [("f32", u), ("f64", u64s.to_vec().unwrap())] {
            assert!(u.iter().all(|&x| x > 0.0 && x <= 1.0), "{engine:?}: {name} uniforms in (0, 1]");
            let (mean, var) = moments(&u);
            assert!(
                (mean - 0.5).abs() < 0.005 && (var - 1.0 / 12.0).abs() < 0.002,
                "{engine:?}: {name} uniform: mean {mean}, variance {var}"
            );
            let d = ks(&mut u, |x| x.clamp(0.0, 1.0));
            assert!(d < 0.01, "{engine:?}: {name} uniform: KS statistic {d}");
        }

        let mut z = DeviceArray::<f64>::zeros(N).unwrap();
        rand::normal(&mut z, 3.0, 2.0).unwrap();
        let mut z = z.to_vec().unwrap();
        let (mean, var) = moments(&z);
        assert!(
            (mean - 3.0).abs() < 0.03 && (var - 4.0).abs() < 0.1,
            "{engine:?}: normal: mean {mean}, variance {var}"
        );
        let d = ks(&mut z, |x| phi((x - 3.0) / 2.0));
        assert!(d < 0.01, "{engine:?}: normal (f64): KS statistic {d}");

        let mut z = DeviceArray::<f32>::zeros(N).unwrap();
        rand::normal(&mut z, 0.0, 1.0).unwrap();
        let mut z: Vec<f64> = z.to_vec().unwrap().into_iter().map(f64::from).collect();
        let d = ks(&mut z, phi);
        assert!(d < 0.01, "{engine:?}: normal (f32): KS statistic {d}");
    });
}

/// The largest gap between the CDF of `sample` (counts) and the Poisson
/// CDF of `lambda`, at every point of the sample's support.
fn poisson_cdf_gap(sample: &[f64], lambda: f64) -> f64 {
    let mut sorted = sample.to_vec();
    sorted.sort_by(f64::total_cmp);
    let n = sorted.len() as f64;
    let (mut below, mut p, mut cdf, mut gap) = (0, (-lambda).exp(), 0.0f64, 0.0f64);
    for value in 0..=*sorted.last().unwrap() as u64 {
        if value > 0 {
            p *= lambda / value as f64;
        }
        cdf = (cdf + p).min(1.0);
        while below < sorted.len() && sorted[below] <= value as f64 {
            below += 1;
        }
        gap = gap.max((below as f64 / n - cdf).abs());
    }
    gap
}

#[test]
fn poisson_fills_have_their_distribution_on_every_engine() {
    let _x = sim::exclusive();
    if !have(Library::Rocrand) {
        return;
    }
    on_every_engine("poisson", 99, |engine| {
        // Small, medium and large means (rocRAND's table grows with
        // lambda; cuRAND switches method above about 64).
        for lambda in [0.5, 4.5, 300.0, 20_000.0] {
            let mut k = DeviceArray::<u32>::zeros(N).unwrap();
            rand::poisson(&mut k, lambda).unwrap();
            let k: Vec<f64> = k.to_vec().unwrap().into_iter().map(f64::from).collect();
            let (mean, var) = moments(&k);
            let sd = (lambda / N as f64).sqrt();
            assert!((mean - lambda).abs() < 5.0 * sd, "{engine:?}, lambda {lambda}: mean {mean}");
            assert!((var / lambda - 1.0).abs() < 0.05, "{engine:?}, lambda {lambda}: variance {var}");
            if lambda < 1000.0 {
                let d = poisson_cdf_gap(&k, lambda);
                assert!(d < 0.01, "{engine:?}, lambda {lambda}: largest CDF gap {d}");
            }
        }
    });
}

#[test]
fn poisson_refuses_bad_means_and_captures() {
    let _x = sim::exclusive();
    if !have(Library::Rocrand) {
        return;
    }
    on_thread("poisson-refusals", || {
        let stream = Stream::new().unwrap();
        let mut k = DeviceArray::<u32>::zeros_on(&stream, 16).unwrap();
        for bad in [0.0, -2.0, f64::NAN, f64::INFINITY, 3e9] {
            let error = rand::poisson(&mut k, bad).expect_err("refused");
            assert!(matches!(error, amdgpu::libs::LibError::InvalidInput { .. }), "lambda {bad}: {error}");
            assert!(error.to_string().contains("lambda"), "{error}");
        }
        rand::poisson(&mut k, 2.0).unwrap();
        let result = stream.capture(CaptureMode::ThreadLocal, |_| rand::poisson(&mut k, 2.0));
        let error = result.expect_err("refused inside a capture");
        assert!(error.to_string().contains("rand::poisson"), "{error}");
    });
}

/// rocRAND 5.7's first words of seed 0 on XORWOW and MRG32k3a.
const XORWOW_0: [u32; 4] = [0x62d407df, 0xa567c184, 0x3f139bca, 0xed708045];
const MRG32K3A_0: [u32; 4] = [0xb776a57c, 0x21e73d49, 0x11630f0a, 0xa0901886];

#[test]
fn engines_are_chosen_per_thread_and_device_and_start_at_seed_0() {
    let _x = sim::exclusive();
    if !have(Library::Rocrand) {
        return;
    }
    on_thread("engines", || {
        let device = Device::new(0).unwrap();
        assert_eq!(rand::engine(device), rand::Engine::Philox4x32_10, "the default");
        let philox = words(4);
        let before = rand::handle_stats();
        rand::set_engine(device, rand::Engine::Philox4x32_10).unwrap();
        assert_eq!(rand::handle_stats(), before, "choosing the current engine changes nothing");
        let next = words(2);
        restart(0);
        assert_eq!(words(6)[4..], next, "and the stream goes on");

        rand::set_engine(device, rand::Engine::Xorwow).unwrap();
        let after = rand::handle_stats();
        assert_eq!(after.destroyed, before.destroyed + 1, "the old generator is destroyed: {after:?}");
        let xorwow = words(4);
        rand::set_engine(device, rand::Engine::Mrg32k3a).unwrap();
        let mrg = words(4);
        if rocrands_numbers() {
            assert_eq!(xorwow, XORWOW_0, "rocRAND 5.7's XORWOW, seed 0");
            assert_eq!(mrg, MRG32K3A_0, "rocRAND 5.7's MRG32k3a, seed 0");
        }
        assert_ne!(xorwow, philox);
        assert_ne!(mrg, xorwow);
        // Another thread still has Philox.
        let other = on_thread("engines-other", move || (rand::engine(device), words(4)));
        assert_eq!(other, (rand::Engine::Philox4x32_10, philox.clone()));
        // Back to Philox: a new generator, at seed 0 again.
        rand::set_engine(device, rand::Engine::Philox4x32_10).unwrap();
        assert_eq!(words(4), philox);
        // Choosing an engine inside a capture is refused, and says why.
        let stream = Stream::new().unwrap();
        let result = stream.capture(CaptureMode::ThreadLocal, |_| rand::set_engine(device, rand::Engine::Xorwow));
        let error = result.expect_err("refused");
        assert!(error.to_string().contains("rand::set_engine"), "{error}");
        assert_eq!(rand::engine(device), rand::Engine::Philox4x32_10, "unchanged by the refusal");
    });
}

#[test]
fn odd_normal_fills_drop_the_last_pairs_second_value() {
    let _x = sim::exclusive();
    if !have(Library::Rocrand) {
        return;
    }
    on_thread("odd", || {
        restart(7);
        let mut four = DeviceArray::<f32>::zeros(4).unwrap();
        rand::normal(&mut four, 0.0, 1.0).unwrap();
        let four = four.to_vec().unwrap();
        restart(7);
        let mut three = DeviceArray::<f32>::zeros(3).unwrap();
        rand::normal(&mut three, 0.0, 1.0).unwrap();
        assert_eq!(three.to_vec().unwrap(), four[..3], "an odd fill is a prefix");
        if !rocrands_numbers() {
            return;
        }
        // The third value's pair was computed whole: the next fill starts
        // after it (four words in).
        let mut next = DeviceArray::<u32>::zeros(1).unwrap();
        rand::bits(&mut next).unwrap();
        restart(7);
        assert_eq!(next.to_vec().unwrap()[0], words(5)[4]);
    });
}

#[test]
fn log_normals_are_exp_of_the_normals() {
    let _x = sim::exclusive();
    if !have(Library::Rocrand) {
        return;
    }
    on_thread("log-normal", || {
        restart(11);
        let mut z = DeviceArray::<f64>::zeros(64).unwrap();
        rand::normal(&mut z, 0.5, 0.25).unwrap();
        restart(11);
        let mut l = DeviceArray::<f64>::zeros(64).unwrap();
        rand::log_normal(&mut l, 0.5, 0.25).unwrap();
        for (z, l) in z.to_vec().unwrap().into_iter().zip(l.to_vec().unwrap()) {
            assert!((z.exp() - l).abs() <= 1e-12 * l, "exp({z}) against {l}");
        }
    });
}

#[test]
fn each_thread_has_its_own_stream_and_its_generator_goes_with_it() {
    let _x = sim::exclusive();
    if !have(Library::Rocrand) {
        return;
    }
    let before = rand::handle_stats();
    let a = on_thread("a", || {
        let w = words(4);
        words(1000);
        w
    });
    let b = on_thread("b", || words(4));
    assert_eq!(a, b, "a new thread starts at seed 0, not where an exited thread left off");
    let after = rand::handle_stats();
    assert!(after.destroyed >= before.destroyed + 2, "generators destroyed with their threads: {after:?}");
    assert!(after.idle.iter().all(|(_, n)| *n == 0), "none kept idle: {after:?}");
}

#[test]
fn every_device_has_its_own_generator_under_its_own_device() {
    let _x = sim::exclusive();
    if !have(Library::Rocrand) || Device::count().unwrap() < 2 {
        eprintln!("skipped: needs rocRAND and two devices");
        return;
    }
    on_thread("devices", || {
        let zero = words(6);
        let one = with_device(Device::new(1).unwrap(), || {
            let mut out = DeviceArray::<u32>::zeros(6).unwrap();
            rand::bits(&mut out).unwrap();
            out.to_vec().unwrap()
        });
        assert_eq!(zero, one, "device 1's stream starts at seed 0 as well");
    });
    if on_sim() {
        assert_eq!(common::violations_of("devices").len(), 0, "every generator call under its device");
    }
}

#[test]
fn fills_capture_and_replay_the_same_numbers() {
    let _x = sim::exclusive();
    // Exclusive, as every test here: a synchronous copy on any thread
    // during a capture is refused.
    if !have(Library::Rocrand) {
        return;
    }
    on_thread("capture", || {
        let stream = Stream::new().unwrap();
        let mut out = DeviceArray::<f32>::zeros_on(&stream, 256).unwrap();
        // The generator is made here, outside the capture.
        rand::warm_handle(&stream).unwrap();
        let (graph, ()) = stream.capture(CaptureMode::ThreadLocal, |_| rand::uniform(&mut out)).unwrap();
        let exec = graph.instantiate().unwrap();
        exec.launch(&stream).unwrap();
        let first = out.to_vec().unwrap();
        out.fill(0.0).unwrap();
        exec.launch(&stream).unwrap();
        let second = out.to_vec().unwrap();
        if rocrands_numbers() {
            // rocRAND passes the stream's position to the kernel by value.
            assert_eq!(second, first, "a replay draws what the capture baked in");
        } else {
            // cuRAND keeps it where the kernel moves it on.
            assert_ne!(second, first, "a replay draws new numbers on cuRAND");
        }
        assert!(first.iter().all(|&x| x > 0.0));
        // A new seed makes the state again (cuRAND allocates it): refused
        // inside a capture, as the error says.
        let device = stream.device();
        let result = stream.capture(CaptureMode::ThreadLocal, |_| rand::set_seed(device, 1));
        let error = result.expect_err("refused");
        assert!(error.to_string().contains("rocrand_set_seed"), "{error}");
        // After a new seed outside, fills capture again.
        rand::set_seed(device, 1).unwrap();
        let (graph, ()) = stream.capture(CaptureMode::ThreadLocal, |_| rand::uniform(&mut out)).unwrap();
        graph.instantiate().unwrap().launch(&stream).unwrap();
        assert_ne!(out.to_vec().unwrap(), first, "seed 1's numbers");
        assert_ne!(out.to_vec().unwrap(), second);
    });
    // A thread with no generator yet cannot make one inside a capture.
    on_thread("capture-cold", || {
        let stream = Stream::new().unwrap();
        let mut out = DeviceArray::<f32>::zeros_on(&stream, 16).unwrap();
        let result = stream.capture(CaptureMode::ThreadLocal, |_| rand::uniform(&mut out));
        let error = result.expect_err("refused");
        assert!(error.to_string().contains("rocrand_create_generator"), "{error}");
    });
}

#[test]
fn empty_fills_make_no_call() {
    let _x = sim::exclusive();
    if !have(Library::Rocrand) {
        return;
    }
    let mut empty = DeviceArray::<f32>::zeros(0).unwrap();
    rand::uniform(&mut empty).unwrap();
    rand::normal(&mut empty, 0.0, 1.0).unwrap();
}

/// An array from its element `skip` on: an output the safe API cannot
/// make (its outputs are whole arrays, which the pool aligns), as a user's
/// own `DeviceDataMut` may be.
struct From<'a, T: DeviceCopy> {
    array: &'a mut DeviceArray<T>,
    skip: usize,
}

// SAFETY: the view covers the array's elements from `skip` on, inside its
// buffer, and borrows the array mutably.
unsafe impl<T: DeviceCopy> amdgpu::libs::DeviceData<T> for From<'_, T> {
    fn device_ptr(&self) -> *const std::ffi::c_void {
        self.array.as_ptr().wrapping_add(self.skip).cast()
    }
    fn len(&self) -> usize {
        self.array.len() - self.skip
    }
    fn device(&self) -> Device {
        amdgpu::libs::DeviceData::device(&*self.array)
    }
    fn buffer(&self) -> &amdgpu::pool::Buffer {
        amdgpu::libs::DeviceData::buffer(&*self.array)
    }
}

// SAFETY: as above, for writing through the mutable borrow.
unsafe impl<T: DeviceCopy> amdgpu::libs::DeviceDataMut<T> for From<'_, T> {
    fn device_ptr_mut(&mut self) -> *mut std::ffi::c_void {
        self.array.as_mut_ptr().wrapping_add(self.skip).cast()
    }
}

#[test]
fn outputs_rocrand_would_misplace_are_refused_before_any_call() {
    let _x = sim::exclusive();
    if !have(Library::Rocrand) {
        return;
    }
    on_thread("aligned", || {
        let mut f = DeviceArray::<f32>::zeros(9).unwrap();
        // One word an element: any start works.
        rand::uniform(&mut From { array: &mut f, skip: 1 }).unwrap();
        // A normal from element 1 (4 bytes in) is refused, and says why.
        let error = rand::normal(&mut From { array: &mut f, skip: 1 }, 0.0, 1.0).unwrap_err();
        assert!(matches!(error, amdgpu::libs::LibError::InvalidInput { .. }), "{error}");
        assert!(error.to_string().contains("16 bytes"), "{error}");
        rand::normal(&mut From { array: &mut f, skip: 4 }, 0.0, 1.0).unwrap();
        let mut d = DeviceArray::<f64>::zeros(5).unwrap();
        assert!(rand::uniform(&mut From { array: &mut d, skip: 1 }).is_err(), "a double takes two words");
        rand::uniform(&mut From { array: &mut d, skip: 2 }).unwrap();
        let mut w = DeviceArray::<u32>::zeros(5).unwrap();
        rand::bits(&mut From { array: &mut w, skip: 3 }).unwrap();
    });
}

/// A capture begun through the raw API is unknown to the library, so a
/// thread may make its generator inside one: making the state then fails
/// (the allocation cuRAND makes), and the generator made just before must
/// be destroyed, not leaked.
#[test]
fn a_generator_whose_state_cannot_be_made_is_destroyed() {
    let _x = sim::exclusive();
    if !on_sim() || !have(Library::Rocrand) {
        eprintln!("skipped: counts the simulator's library objects");
        return;
    }
    on_thread("raw-capture", || {
        let api = sim::api();
        let stream = Stream::new().unwrap();
        let before = sim::live_library_objects(0);
        let thread_local = hip_sys::hipStreamCaptureMode::hipStreamCaptureModeThreadLocal;
        // SAFETY: a live stream of this thread, not capturing.
        let begun = unsafe { (api.hipStreamBeginCapture)(stream.as_raw(), thread_local) };
        assert_eq!(begun, hip_sys::hipError_t::hipSuccess);
        let error = rand::warm_handle(&stream).unwrap_err();
        assert!(error.to_string().contains("rocrand_initialize_generator"), "{error}");
        let mut graph = std::ptr::null_mut();
        // SAFETY: the capture begun above, ended on its thread; the capture
        // was invalidated, so there is no graph to destroy.
        let ended = unsafe { (api.hipStreamEndCapture)(stream.as_raw(), &mut graph) };
        assert!(graph.is_null(), "{ended:?}");
        assert_eq!(sim::live_library_objects(0), before, "the generator was leaked");
    });
}

/// Philox4x32-10 on the CPU, written from the paper (Salmon et al.), not
/// from the library: word `w` of the portable generator's stream.
fn reference_word(seed: u64, w: u64) -> u32 {
    let (mut c, mut k) = ([(w >> 2) as u32, (w >> 34) as u32, 0, 0], [seed as u32, (seed >> 32) as u32]);
    for r in 0..10 {
        if r > 0 {
            k = [k[0].wrapping_add(0x9E37_79B9), k[1].wrapping_add(0xBB67_AE85)];
        }
        let (p0, p1) = (0xD251_1F53u64 * u64::from(c[0]), 0xCD9E_8D57u64 * u64::from(c[2]));
        c = [(p1 >> 32) as u32 ^ c[1] ^ k[0], p1 as u32, (p0 >> 32) as u32 ^ c[3] ^ k[1], p0 as u32];
    }
    c[(w & 3) as usize]
}

#[test]
fn the_portable_philox_gives_the_same_bits_on_every_backend() {
    if !common::compiles() {
        return;
    }
    let _x = sim::exclusive();
    let stream = Stream::new().unwrap();
    // Seed 0 from the start is Random123's counter-0 known answer, then
    // counters 1 and 2: the same words as rocRAND's host stream of seed 0.
    let mut rng = rand::Philox::new(0);
    let mut out = DeviceArray::<u32>::zeros_on(&stream, 12).unwrap();
    rng.bits(&mut out).unwrap();
    assert_eq!(out.to_vec().unwrap(), SEED_0);
    assert_eq!(rng.position(), 12);
    // Any seed and position, against the CPU, bit for bit: words, floats
    // (one word each) and doubles (two).
    let (seed, at) = (0x0123_4567_89ab_cdef, (1u64 << 33) + 3);
    let mut rng = rand::Philox::at(seed, at);
    let mut words = DeviceArray::<u32>::zeros_on(&stream, 1001).unwrap();
    let mut floats = DeviceArray::<f32>::zeros_on(&stream, 1001).unwrap();
    let mut doubles = DeviceArray::<f64>::zeros_on(&stream, 1001).unwrap();
    rng.bits(&mut words).unwrap();
    rng.uniform(&mut floats).unwrap();
    rng.uniform(&mut doubles).unwrap();
    // at + 2002 is odd: the doubles start one word later, at an even one.
    assert_eq!(rng.position(), at + 2002 + 1 + 2002, "a word a float, two a double");
    let word = |w: u64| reference_word(seed, w);
    let want_words: Vec<u32> = (0..1001).map(|i| word(at + i)).collect();
    let want_floats: Vec<u32> =
        (0..1001).map(|i| ((word(at + 1001 + i) >> 8) as f32 / 16_777_216.0).to_bits()).collect();
    let want_doubles: Vec<u64> = (0..1001)
        .map(|i| {
            let w = at + 2003 + 2 * i;
            let (a, b) = (u64::from(word(w)), u64::from(word(w + 1)));
            (((a >> 11) << 32 | b) as f64 / 9_007_199_254_740_992.0).to_bits()
        })
        .collect();
    assert_eq!(words.to_vec().unwrap(), want_words);
    assert_eq!(floats.to_vec().unwrap().iter().map(|x| x.to_bits()).collect::<Vec<_>>(), want_floats);
    assert_eq!(doubles.to_vec().unwrap().iter().map(|x| x.to_bits()).collect::<Vec<_>>(), want_doubles);
    // Uniform on [0, 1).
    let mut sample: Vec<f64> = doubles.to_vec().unwrap();
    assert!(sample.iter().all(|&x| (0.0..1.0).contains(&x)));
    let mut big = DeviceArray::<f32>::zeros_on(&stream, N).unwrap();
    rand::Philox::new(7).uniform(&mut big).unwrap();
    let mut sample_f32: Vec<f64> = big.to_vec().unwrap().into_iter().map(f64::from).collect();
    let (mean, var) = moments(&sample_f32);
    assert!((mean - 0.5).abs() < 0.01 && (var - 1.0 / 12.0).abs() < 0.005, "{mean} {var}");
    assert!(ks(&mut sample_f32, |x| x.clamp(0.0, 1.0)) < 0.01);
    assert!(ks(&mut sample, |x| x.clamp(0.0, 1.0)) < 0.06, "1001 doubles");
}

#[test]
fn the_portable_philox_is_one_stream_whatever_the_device_thread_or_capture() {
    if !common::compiles() {
        return;
    }
    let _x = sim::exclusive();
    let reference: Vec<u32> = (0..300).map(|w| reference_word(99, w)).collect();
    // Split over fills of different sizes, on several threads and devices.
    let devices = Device::count().unwrap();
    let parts: Vec<Vec<u32>> = [(0u64, 100usize), (100, 1), (101, 199)]
        .into_iter()
        .enumerate()
        .map(|(t, (at, len))| {
            on_thread(&format!("philox-{t}"), move || {
                let stream = Stream::new_on(Device::new(t % devices).unwrap()).unwrap();
                let mut out = DeviceArray::<u32>::zeros_on(&stream, len).unwrap();
                rand::Philox::at(99, at).bits(&mut out).unwrap();
                out.to_vec().unwrap()
            })
        })
        .collect();
    assert_eq!(parts.concat(), reference);
    // A slice starting at an odd element is fine (no alignment rule here).
    let stream = Stream::new().unwrap();
    let mut whole = DeviceArray::<f64>::zeros_on(&stream, 9).unwrap();
    let mut rng = rand::Philox::new(5);
    rng.uniform(&mut whole.slice_mut(3..8).unwrap()).unwrap();
    let got = whole.to_vec().unwrap();
    assert_eq!(&got[..3], &[0.0; 3]);
    assert!(got[3..8].iter().all(|&x| x > 0.0) && got[8] == 0.0);
    // In a capture the position is baked in: each replay draws the same.
    on_thread("philox-capture", || {
        let stream = Stream::new().unwrap();
        let mut out = DeviceArray::<u32>::zeros_on(&stream, 64).unwrap();
        let mut rng = rand::Philox::new(99);
        rng.bits(&mut out).unwrap(); // the kernels are loaded outside the capture
        let (graph, ()) = stream.capture(CaptureMode::ThreadLocal, |_| rng.bits(&mut out)).unwrap();
        let exec = graph.instantiate().unwrap();
        out.fill(0).unwrap();
        exec.launch(&stream).unwrap();
        let first = out.to_vec().unwrap();
        exec.launch(&stream).unwrap();
        assert_eq!(out.to_vec().unwrap(), first);
        assert_eq!(first, (64..128).map(|w| reference_word(99, w)).collect::<Vec<_>>());
        assert_eq!(rng.position(), 128, "the generator moved on once, at the capture");
    });
}
