//! The simulator's rocRAND through its table, against values rocRAND
//! 5.7's own host code gives: XORWOW's and MRG32k3a's words and uniforms
//! (their seeding and their 131072-engine layout), every distribution in
//! their kernel's layout, Poisson numbers, rocRAND's default type, what is not
//! modelled, and the device rule. Every test holds `sim::exclusive()`:
//! violations and library objects are process-wide.

use hip_sys::bindings::hip::{hipError_t, hipMemcpyKind, hipStreamCaptureMode};
use hip_sys::rocrand::{rocrand_generator, rocrand_rng_type, rocrand_status, RocrandApi};
use hip_sys::sim;
use std::ffi::c_void;

fn rand() -> &'static RocrandApi {
    sim::rocrand_api()
}

fn generator(kind: rocrand_rng_type) -> rocrand_generator {
    let mut g: rocrand_generator = std::ptr::null_mut();
    // SAFETY: a valid out-pointer.
    assert_eq!(unsafe { (rand().rocrand_create_generator)(&mut g, kind) }, rocrand_status::ROCRAND_STATUS_SUCCESS);
    g
}

/// Device memory of `bytes`, freed by the caller.
fn device(bytes: usize) -> *mut c_void {
    let mut p = std::ptr::null_mut();
    // SAFETY: a valid out-pointer.
    assert_eq!(unsafe { (sim::api().hipMalloc)(&mut p, bytes) }, hipError_t::hipSuccess);
    p
}

fn read<T: Copy + Default>(p: *mut c_void, n: usize) -> Vec<T> {
    let mut out = vec![T::default(); n];
    let bytes = n * std::mem::size_of::<T>();
    // SAFETY: `p` holds `bytes` (the caller's allocation); a synchronous
    // copy after the work queued on the null stream.
    let status =
        unsafe { (sim::api().hipMemcpy)(out.as_mut_ptr().cast(), p, bytes, hipMemcpyKind::hipMemcpyDeviceToHost) };
    assert_eq!(status, hipError_t::hipSuccess);
    out
}

fn free(p: *mut c_void) {
    // SAFETY: allocated by `device`, freed once.
    assert_eq!(unsafe { (sim::api().hipFree)(p) }, hipError_t::hipSuccess);
}

#[test]
fn xorwow_words_and_uniforms_are_rocrands() {
    let _x = sim::exclusive();
    for kind in [rocrand_rng_type::ROCRAND_RNG_PSEUDO_XORWOW, rocrand_rng_type::ROCRAND_RNG_PSEUDO_DEFAULT] {
        let g = generator(kind);
        let out = device(16);
        // SAFETY: a live generator; 4 words of device memory.
        assert_eq!(unsafe { (rand().rocrand_generate)(g, out.cast(), 4) }, rocrand_status::ROCRAND_STATUS_SUCCESS);
        let words = read::<u32>(out, 4);
        assert_eq!(words, [0x62d407df, 0xa567c184, 0x3f139bca, 0xed708045], "rocRAND 5.7, seed 0");
        // SAFETY: as above; restarts at the offset, then 4 floats.
        unsafe {
            assert_eq!((rand().rocrand_set_offset)(g, 0), rocrand_status::ROCRAND_STATUS_SUCCESS);
            assert_eq!((rand().rocrand_generate_uniform)(g, out.cast(), 4), rocrand_status::ROCRAND_STATUS_SUCCESS);
        }
        let floats = read::<f32>(out, 4);
        let expected: Vec<f32> = words.iter().map(|&v| (v as f32).mul_add(2f32.powi(-32), 2f32.powi(-32))).collect();
        assert_eq!(floats, expected);
        free(out);
        // SAFETY: destroyed once.
        assert_eq!(unsafe { (rand().rocrand_destroy_generator)(g) }, rocrand_status::ROCRAND_STATUS_SUCCESS);
    }
}

#[test]
fn mrg32k3a_words_and_uniforms_are_rocrands() {
    let _x = sim::exclusive();
    let g = generator(rocrand_rng_type::ROCRAND_RNG_PSEUDO_MRG32K3A);
    let out = device(16);
    // SAFETY: a live generator; 4 words of device memory; then 3 floats
    // from the offset's restart.
    unsafe {
        assert_eq!((rand().rocrand_generate)(g, out.cast(), 4), rocrand_status::ROCRAND_STATUS_SUCCESS);
        assert_eq!(read::<u32>(out, 4), [0xb776a57c, 0x21e73d49, 0x11630f0a, 0xa0901886], "rocRAND 5.7, seed 0");
        assert_eq!((rand().rocrand_set_offset)(g, 0), rocrand_status::ROCRAND_STATUS_SUCCESS);
        assert_eq!((rand().rocrand_generate_uniform)(g, out.cast(), 3), rocrand_status::ROCRAND_STATUS_SUCCESS);
    }
    for (f, expected) in
        read::<f32>(out, 3).into_iter().zip([0.716_654_122_f64, 0.132_434_681, 0.067_917_764_2].map(|x| x as f32))
    {
        assert!((f - expected).abs() <= f32::EPSILON * expected, "{f} against {expected}");
    }
    free(out);
    // SAFETY: destroyed once.
    assert_eq!(unsafe { (rand().rocrand_destroy_generator)(g) }, rocrand_status::ROCRAND_STATUS_SUCCESS);
}

/// Bits of values against rocRAND's, within `ulps` units in the last
/// place (the transcendental functions of the CPU's maths library, which
/// rocRAND's host code used as the simulator does, may differ by a unit
/// between library versions).
fn close<const N: usize>(what: &str, got: &[u64], expected: [u64; N], ulps: u64) {
    assert_eq!(got.len(), N, "{what}");
    for (i, (&g, e)) in got.iter().zip(expected).enumerate() {
        assert!(g.abs_diff(e) <= ulps, "{what}: value {i} is {g:#x}, rocRAND's {e:#x}");
    }
}

fn f32_bits(p: *mut c_void, n: usize) -> Vec<u64> {
    read::<f32>(p, n).into_iter().map(|v| u64::from(v.to_bits())).collect()
}

fn f64_bits(p: *mut c_void, n: usize) -> Vec<u64> {
    read::<f64>(p, n).into_iter().map(f64::to_bits).collect()
}

/// The values rocRAND 5.7's host generators give for a run of calls of
/// every distribution, computed by rocRAND's own engines and distribution
/// functors on the CPU with its generate kernel's layout: several draws of
/// one engine a value, the unaligned head and the tail from the thread
/// that would write the next vector, and each call starting where the
/// last one's `ceil(n / width)` engines left off.
#[test]
fn xorwow_and_mrg32k3a_distributions_follow_rocrands_kernel_layout() {
    let _x = sim::exclusive();
    let ok = rocrand_status::ROCRAND_STATUS_SUCCESS;
    let out = device(64);
    // One element past the allocation's start: misaligned for pairs.
    let f32_at_1 = out.cast::<f32>().wrapping_add(1);
    let f64_at_1 = out.cast::<f64>().wrapping_add(1);

    let g = generator(rocrand_rng_type::ROCRAND_RNG_PSEUDO_XORWOW);
    // SAFETY: a live generator; at most 64 bytes of device memory written.
    unsafe {
        assert_eq!((rand().rocrand_generate_normal)(g, out.cast(), 6, 0.0, 1.0), ok);
        let expected = [0x3f8d4486, 0x3f53f5f0, 0x3f536578, 0xbee026ea, 0xbf89faa5, 0x3fa3e716];
        close("XORWOW normal floats", &f32_bits(out, 6), expected, 2);
        assert_eq!((rand().rocrand_generate_normal)(g, f32_at_1, 5, 1.0, 2.0), ok);
        let expected = [0xbd48c7c0, 0x3fc00091, 0x3ed0305e, 0xbef2eab4, 0xbcb424c0];
        close("XORWOW normal floats, misaligned", &f32_bits(f32_at_1.cast(), 5), expected, 2);
        assert_eq!((rand().rocrand_generate)(g, out.cast(), 3), ok);
        assert_eq!(read::<u32>(out, 3), [0xa4ea2ad2, 0xdd5fd0e4, 0x05a69bbb], "XORWOW words after normals");
        assert_eq!((rand().rocrand_generate_normal_double)(g, out.cast(), 3, 0.0, 1.0), ok);
        let expected = [0x3fe2bff4af1a82ae, 0x3fc34b6fa90f92b3, 0x3fefe3bb92aeddbc];
        close("XORWOW normal doubles", &f64_bits(out, 3), expected, 2);
        assert_eq!((rand().rocrand_generate_uniform_double)(g, out.cast(), 3), ok);
        let expected = [0x3feed10f56bc78d0, 0x3fe7d69a71c4e074, 0x3fdb9d7b4b9d4762];
        close("XORWOW uniform doubles", &f64_bits(out, 3), expected, 0);
        assert_eq!((rand().rocrand_generate_log_normal)(g, out.cast(), 4, 0.0, 0.5), ok);
        let expected = [0x40d880c9, 0x3f96a55c, 0x3f3f26ce, 0x3fa2ed5a];
        close("XORWOW log-normal floats", &f32_bits(out, 4), expected, 2);
        // A seed and an offset past one round of the engines.
        assert_eq!((rand().rocrand_set_seed)(g, 42), ok);
        assert_eq!((rand().rocrand_set_offset)(g, 131_075), ok);
        assert_eq!((rand().rocrand_generate_normal_double)(g, f64_at_1, 5, 0.0, 1.0), ok);
        let expected =
            [0x3fbfbacbbe4f8892, 0x3ff61a4e213a398d, 0x3ffc61d7d7e07031, 0xbfd0e6c2151b3c7a, 0x3fca97196552962d];
        close("XORWOW normal doubles at an offset, misaligned", &f64_bits(f64_at_1.cast(), 5), expected, 2);
        assert_eq!((rand().rocrand_destroy_generator)(g), ok);
    }

    let g = generator(rocrand_rng_type::ROCRAND_RNG_PSEUDO_MRG32K3A);
    // SAFETY: as above.
    unsafe {
        assert_eq!((rand().rocrand_generate_normal)(g, out.cast(), 6, 0.0, 1.0), ok);
        let expected = [0x3f26ae44, 0x3efc13c5, 0x3e48a25a, 0xc000143d, 0x3dc63886, 0xc0144d78];
        close("MRG32k3a normal floats", &f32_bits(out, 6), expected, 2);
        assert_eq!((rand().rocrand_generate_normal_double)(g, out.cast(), 3, 0.0, 1.0), ok);
        let expected = [0x3feeb4950bcb7cbd, 0xbfbc584ba1e97181, 0xbff80271e620c826];
        close("MRG32k3a normal doubles", &f64_bits(out, 3), expected, 2);
        assert_eq!((rand().rocrand_generate_uniform_double)(g, out.cast(), 3), ok);
        let expected = [0x3fdd033426af9d94, 0x3fd018461de3d13f, 0x3fcb05edef0fd741];
        close("MRG32k3a uniform doubles", &f64_bits(out, 3), expected, 0);
        assert_eq!((rand().rocrand_generate_log_normal_double)(g, f64_at_1, 3, 0.5, 0.25), ok);
        let expected = [0x3ffc8f8f5763d4d2, 0x3ffc4e1d4e1d426c, 0x3ffe9553b243c396];
        close("MRG32k3a log-normal doubles, misaligned", &f64_bits(f64_at_1.cast(), 3), expected, 2);
        assert_eq!((rand().rocrand_generate)(g, out.cast(), 2), ok);
        assert_eq!(read::<u32>(out, 2), [0x0df12117, 0xe4a3aaa2], "MRG32k3a words after the rest");
        assert_eq!((rand().rocrand_destroy_generator)(g), ok);
    }
    free(out);
}

/// Poisson numbers, one word a value through rocRAND's alias table, as
/// rocRAND 5.7's own table and engines give them on the CPU; a new lambda
/// makes a new table; a lambda rocRAND refuses, or whose table code is
/// undefined, is out of range.
#[test]
fn poisson_numbers_are_rocrands() {
    let _x = sim::exclusive();
    let ok = rocrand_status::ROCRAND_STATUS_SUCCESS;
    let out = device(64);
    let cases: [(rocrand_rng_type, &[u32], &[u32]); 3] = [
        (rocrand_rng_type::ROCRAND_RNG_PSEUDO_PHILOX4_32_10, &[2, 5], &[]),
        (rocrand_rng_type::ROCRAND_RNG_PSEUDO_XORWOW, &[2, 3, 6, 6, 3, 5], &[249, 260, 229]),
        (rocrand_rng_type::ROCRAND_RNG_PSEUDO_MRG32K3A, &[4, 3, 1, 3, 1, 2], &[]),
    ];
    for (kind, small, large) in cases {
        let g = generator(kind);
        // SAFETY: a live generator; at most 16 words of device memory.
        unsafe {
            assert_eq!((rand().rocrand_generate_poisson)(g, out.cast(), small.len(), 3.7), ok);
            assert_eq!(read::<u32>(out, small.len()), small, "{kind:?}, lambda 3.7");
            if !large.is_empty() {
                assert_eq!((rand().rocrand_generate_poisson)(g, out.cast(), large.len(), 250.0), ok);
                assert_eq!(read::<u32>(out, large.len()), large, "{kind:?}, then lambda 250");
            }
            for bad in [0.0, -1.0, f64::NAN, f64::INFINITY, 3e9] {
                let status = (rand().rocrand_generate_poisson)(g, out.cast(), 4, bad);
                assert_eq!(status, rocrand_status::ROCRAND_STATUS_OUT_OF_RANGE, "lambda {bad}");
            }
            assert_eq!((rand().rocrand_destroy_generator)(g), ok);
        }
    }
    free(out);
}

/// A new lambda's table is device memory and a synchronous copy on
/// rocRAND: inside a capture it is refused (and the capture broken), while
/// the lambda whose table the generator keeps is captured.
#[test]
fn a_new_poisson_table_is_refused_inside_a_capture() {
    let _x = sim::exclusive();
    let ok = rocrand_status::ROCRAND_STATUS_SUCCESS;
    let api = sim::api();
    let g = generator(rocrand_rng_type::ROCRAND_RNG_PSEUDO_XORWOW);
    let out = device(64);
    let mut stream = std::ptr::null_mut();
    let thread_local = hipStreamCaptureMode::hipStreamCaptureModeThreadLocal;
    // SAFETY: valid out-pointers, a live generator and stream, 16 words of
    // device memory; each capture is begun and ended on this thread.
    unsafe {
        assert_eq!((api.hipStreamCreate)(&mut stream), hipError_t::hipSuccess);
        assert_eq!((rand().rocrand_set_stream)(g, stream), ok);
        // The state and the table of lambda 2, outside any capture.
        assert_eq!((rand().rocrand_generate_poisson)(g, out.cast(), 16, 2.0), ok);

        assert_eq!((api.hipStreamBeginCapture)(stream, thread_local), hipError_t::hipSuccess);
        assert_eq!((rand().rocrand_generate_poisson)(g, out.cast(), 16, 2.0), ok, "the kept table captures");
        let mut graph = std::ptr::null_mut();
        assert_eq!((api.hipStreamEndCapture)(stream, &mut graph), hipError_t::hipSuccess);
        assert!(!graph.is_null());
        assert_eq!((api.hipGraphDestroy)(graph), hipError_t::hipSuccess);

        assert_eq!((api.hipStreamBeginCapture)(stream, thread_local), hipError_t::hipSuccess);
        let status = (rand().rocrand_generate_poisson)(g, out.cast(), 16, 3.0);
        assert_eq!(status, rocrand_status::ROCRAND_STATUS_ALLOCATION_FAILED, "a new table inside a capture");
        let mut graph = std::ptr::null_mut();
        let ended = (api.hipStreamEndCapture)(stream, &mut graph);
        assert!(graph.is_null(), "the capture was invalidated: {ended:?}");

        assert_eq!((rand().rocrand_destroy_generator)(g), ok);
        assert_eq!((api.hipStreamDestroy)(stream), hipError_t::hipSuccess);
    }
    free(out);
}

#[test]
fn unmodelled_generators_are_type_errors() {
    let _x = sim::exclusive();
    let mut g: rocrand_generator = std::ptr::null_mut();
    // SAFETY: a valid out-pointer.
    let status = unsafe { (rand().rocrand_create_generator)(&mut g, rocrand_rng_type::ROCRAND_RNG_PSEUDO_MTGP32) };
    assert_eq!(status, rocrand_status::ROCRAND_STATUS_TYPE_ERROR);
}

#[test]
fn generators_belong_to_their_device() {
    let _x = sim::exclusive();
    if sim::configured_devices() < 2 {
        eprintln!("skipped: needs two simulated devices");
        return;
    }
    sim::clear_violations();
    let g = generator(rocrand_rng_type::ROCRAND_RNG_PSEUDO_PHILOX4_32_10);
    // SAFETY: device 1 exists.
    assert_eq!(unsafe { (sim::api().hipSetDevice)(1) }, hipError_t::hipSuccess);
    // SAFETY: a live generator.
    assert_eq!(unsafe { (rand().rocrand_set_seed)(g, 3) }, rocrand_status::ROCRAND_STATUS_SUCCESS);
    // SAFETY: back to device 0; destroyed there.
    unsafe {
        assert_eq!((sim::api().hipSetDevice)(0), hipError_t::hipSuccess);
        assert_eq!((rand().rocrand_destroy_generator)(g), rocrand_status::ROCRAND_STATUS_SUCCESS);
    }
    let found: Vec<_> = sim::violations().into_iter().filter(|v| v.function == "rocrand_set_seed").collect();
    assert_eq!(found.len(), 1, "a call on another device's generator is a violation: {found:?}");
    sim::clear_violations();
}

/// rocRAND misplaces values of the distributions that take several words
/// an element when the output does not start on 16 bytes: the simulator
/// refuses them rather than computing them right.
#[test]
fn misaligned_multiword_outputs_are_refused() {
    let _x = sim::exclusive();
    let g = generator(rocrand_rng_type::ROCRAND_RNG_PSEUDO_PHILOX4_32_10);
    let out = device(64);
    let at = out.cast::<f32>().wrapping_add(1);
    let launch = rocrand_status::ROCRAND_STATUS_LAUNCH_FAILURE;
    // SAFETY: a live generator; 15 floats of device memory from `at`.
    unsafe {
        assert_eq!((rand().rocrand_generate_uniform)(g, at, 8), rocrand_status::ROCRAND_STATUS_SUCCESS);
        assert_eq!((rand().rocrand_generate_normal)(g, at, 8, 0.0, 1.0), launch);
        assert_eq!(
            (rand().rocrand_generate_normal)(g, at.wrapping_add(3), 8, 0.0, 1.0),
            rocrand_status::ROCRAND_STATUS_SUCCESS
        );
        assert_eq!((rand().rocrand_destroy_generator)(g), rocrand_status::ROCRAND_STATUS_SUCCESS);
    }
    free(out);
}
