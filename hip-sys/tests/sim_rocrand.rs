//! The simulator's rocRAND through its table, against values rocRAND
//! 5.7's own host code gives: XORWOW's and MRG32k3a's words and uniforms
//! (their seeding and their 131072-engine layout), rocRAND's default type, what is not
//! modelled, and the device rule. Every test holds `sim::exclusive()`:
//! violations and library objects are process-wide.

use hip_sys::bindings::hip::{hipError_t, hipMemcpyKind};
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
        // SAFETY: as above.
        let normal = unsafe { (rand().rocrand_generate_normal)(g, out.cast(), 4, 0.0, 1.0) };
        assert_eq!(normal, rocrand_status::ROCRAND_STATUS_INTERNAL_ERROR, "not modelled for XORWOW, and says so");
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
