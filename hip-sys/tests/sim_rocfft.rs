//! The simulator's rocFFT against a naive DFT: complex and real transforms
//! of one to three dimensions, batched, in and out of place; its argument
//! checks; which inputs it overwrites, per rocFFT version; its
//! single-precision arithmetic; and setup and cleanup.
//! Every test holds `sim::exclusive()`: violations, memory and library
//! objects are process-wide, and each test checks it left none behind.
//!
//! Tolerances: results are compared with a relative tolerance of 1e-4 for
//! single precision and 1e-10 for double precision, scaled by the size of
//! the values involved (the references compute in double precision; the
//! simulator computes single precision in single precision).

mod common;
use common::libs::*;
use common::status;
use hip_sys::bindings::hip::{hipError_t, hipStream_t};
use hip_sys::rocfft::*;
use hip_sys::sim;
use std::ffi::c_void;
use std::ptr::{null, null_mut};

fn fft() -> &'static RocfftApi {
    sim::rocfft_api()
}

macro_rules! fft_ok {
    ($call:expr) => {{
        // SAFETY: each call site passes valid arguments for the C function.
        let status = unsafe { $call };
        assert_eq!(status, rocfft_status::rocfft_status_success, "{}", stringify!($call));
    }};
}

/// A naive multi-dimensional DFT (lengths innermost first), sign -1 forward.
fn dft(input: &[(f64, f64)], lengths: &[usize], inverse: bool) -> Vec<(f64, f64)> {
    let total: usize = lengths.iter().product();
    let sign = if inverse { 1.0 } else { -1.0 };
    let index = |mut i: usize| -> Vec<usize> {
        lengths
            .iter()
            .map(|l| {
                let v = i % l;
                i /= l;
                v
            })
            .collect()
    };
    (0..total)
        .map(|k| {
            let kk = index(k);
            let mut acc = (0.0, 0.0);
            for (j, x) in input.iter().enumerate().take(total) {
                let jj = index(j);
                let phase: f64 =
                    kk.iter().zip(&jj).zip(lengths).map(|((a, b), l)| (a * b) as f64 / *l as f64).sum::<f64>()
                        * 2.0
                        * std::f64::consts::PI
                        * sign;
                let (c, s) = (phase.cos(), phase.sin());
                acc.0 += x.0 * c - x.1 * s;
                acc.1 += x.0 * s + x.1 * c;
            }
            acc
        })
        .collect()
}

fn precision<T: Num>() -> rocfft_precision {
    if std::mem::size_of::<T>() == 4 {
        rocfft_precision::rocfft_precision_single
    } else {
        rocfft_precision::rocfft_precision_double
    }
}

fn plan_create<T: Num>(
    in_place: bool,
    kind: rocfft_transform_type,
    lengths: &[usize],
    batch: usize,
) -> (rocfft_plan, usize) {
    let mut plan = null_mut();
    let placement = if in_place {
        rocfft_result_placement::rocfft_placement_inplace
    } else {
        rocfft_result_placement::rocfft_placement_notinplace
    };
    fft_ok!((fft().rocfft_plan_create)(
        &mut plan,
        placement,
        kind,
        precision::<T>(),
        lengths.len(),
        lengths.as_ptr(),
        batch,
        null_mut()
    ));
    let mut work = 0;
    fft_ok!((fft().rocfft_plan_get_work_buffer_size)(plan, &mut work));
    (plan, work)
}

/// Execute `plan` on device buffers with an execution info carrying a
/// work buffer when the plan needs one; waits for the result.
fn execute(plan: rocfft_plan, work: usize, input: *mut c_void, output: *mut c_void) {
    let mut info = null_mut();
    fft_ok!((fft().rocfft_execution_info_create)(&mut info));
    let mut stream: hipStream_t = null_mut();
    // SAFETY: valid out-pointer.
    assert_eq!(unsafe { (hip().hipStreamCreate)(&mut stream) }, hipError_t::hipSuccess);
    fft_ok!((fft().rocfft_execution_info_set_stream)(info, stream.cast()));
    let work_buffer = if work > 0 { malloc(work) } else { null_mut() };
    if work > 0 {
        fft_ok!((fft().rocfft_execution_info_set_work_buffer)(info, work_buffer, work));
    }
    let mut ins = [input];
    let mut outs = [output];
    fft_ok!((fft().rocfft_execute)(plan, ins.as_mut_ptr(), outs.as_mut_ptr(), info));
    // SAFETY: a live stream.
    assert_eq!(unsafe { (hip().hipStreamSynchronize)(stream) }, hipError_t::hipSuccess);
    fft_ok!((fft().rocfft_execution_info_destroy)(info));
    // SAFETY: a live stream, destroyed once.
    assert_eq!(unsafe { (hip().hipStreamDestroy)(stream) }, hipError_t::hipSuccess);
    if work > 0 {
        free(work_buffer);
    }
}

fn interleave<T: Num>(data: &[(f64, f64)]) -> Vec<T> {
    data.iter().flat_map(|(re, im)| [T::from_f64(*re), T::from_f64(*im)]).collect()
}

fn complex_case<T: Num>(lengths: &[usize], batch: usize, inverse: bool, in_place: bool) {
    let n: usize = lengths.iter().product();
    let raw = values(2 * n * batch, n as u64 + batch as u64);
    let data: Vec<(f64, f64)> = raw.chunks(2).map(|c| (c[0], c[1])).collect();
    let kind = if inverse {
        rocfft_transform_type::rocfft_transform_type_complex_inverse
    } else {
        rocfft_transform_type::rocfft_transform_type_complex_forward
    };
    let (plan, work) = plan_create::<T>(in_place, kind, lengths, batch);
    let input = upload(&interleave::<T>(&data));
    let output = if in_place { input } else { malloc(2 * n * batch * std::mem::size_of::<T>()) };
    execute(plan, work, input, if in_place { null_mut() } else { output });
    let got: Vec<T> = download(output, 2 * n * batch);
    let want: Vec<f64> =
        data.chunks(n).flat_map(|one| dft(one, lengths, inverse)).flat_map(|(re, im)| [re, im]).collect();
    assert_close(&got, &want, &format!("c2c {lengths:?} batch {batch} inverse {inverse} in-place {in_place}"));
    fft_ok!((fft().rocfft_plan_destroy)(plan));
    free(input);
    if !in_place {
        free(output);
    }
}

#[test]
fn complex_ffts_match_a_naive_dft() {
    let _g = start();
    fft_ok!((fft().rocfft_setup)());
    for in_place in [false, true] {
        for inverse in [false, true] {
            complex_case::<f32>(&[8], 1, inverse, in_place);
            complex_case::<f64>(&[7], 1, inverse, in_place);
            complex_case::<f32>(&[4, 3], 1, inverse, in_place);
            complex_case::<f64>(&[3, 2, 4], 1, inverse, in_place);
            complex_case::<f64>(&[5], 3, inverse, in_place);
            complex_case::<f32>(&[2, 3], 2, inverse, in_place);
        }
    }
    fft_ok!((fft().rocfft_cleanup)());
    finish();
}

#[test]
fn inverse_of_forward_is_n_times_the_input() {
    let _g = start();
    let lengths = [6usize];
    let data: Vec<(f64, f64)> = values(12, 1).chunks(2).map(|c| (c[0], c[1])).collect();
    let buffer = upload(&interleave::<f64>(&data));
    for kind in [
        rocfft_transform_type::rocfft_transform_type_complex_forward,
        rocfft_transform_type::rocfft_transform_type_complex_inverse,
    ] {
        let (plan, work) = plan_create::<f64>(true, kind, &lengths, 1);
        execute(plan, work, buffer, null_mut());
        fft_ok!((fft().rocfft_plan_destroy)(plan));
    }
    let got: Vec<f64> = download(buffer, 12);
    let want: Vec<f64> = data.iter().flat_map(|(re, im)| [6.0 * re, 6.0 * im]).collect();
    assert_close(&got, &want, "inverse(forward(x))");
    free(buffer);
    finish();
}

/// R2C then C2R on `lengths` with `batch`, checked against the DFT.
fn real_case<T: Num>(lengths: &[usize], batch: usize, in_place: bool) {
    let n0 = lengths[0];
    let h0 = n0 / 2 + 1;
    let outer: usize = lengths[1..].iter().product();
    let n = n0 * outer;
    let hermitian = h0 * outer;
    let pitch = if in_place { 2 * h0 } else { n0 };
    let real_len = pitch * outer;
    let dist = if in_place { 2 * hermitian } else { real_len };
    let x = values(n * batch, 5 + n as u64);
    let mut host = vec![0.0f64; dist * batch];
    for t in 0..batch {
        for row in 0..outer {
            for k in 0..n0 {
                host[t * dist + row * pitch + k] = x[t * n + row * n0 + k];
            }
        }
    }
    let host_t: Vec<T> = host.iter().map(|v| T::from_f64(*v)).collect();
    let input = upload(&host_t);
    let spectrum = if in_place { input } else { malloc(2 * hermitian * batch * std::mem::size_of::<T>()) };
    let (plan, work) =
        plan_create::<T>(in_place, rocfft_transform_type::rocfft_transform_type_real_forward, lengths, batch);
    execute(plan, work, input, if in_place { null_mut() } else { spectrum });
    fft_ok!((fft().rocfft_plan_destroy)(plan));
    let got: Vec<T> = download(spectrum, 2 * hermitian * batch);
    let mut want = Vec::new();
    for t in 0..batch {
        let complex: Vec<(f64, f64)> = x[t * n..(t + 1) * n].iter().map(|v| (*v, 0.0)).collect();
        let full = dft(&complex, lengths, false);
        for row in 0..outer {
            for k in 0..h0 {
                let (re, im) = full[row * n0 + k];
                want.extend([re, im]);
            }
        }
    }
    let what = format!("r2c {lengths:?} batch {batch} in-place {in_place}");
    assert_close(&got, &want, &what);

    // Back: C2R gives n × the input (no normalization).
    let back = if in_place { spectrum } else { malloc(real_len * batch * std::mem::size_of::<T>()) };
    let (plan, work) =
        plan_create::<T>(in_place, rocfft_transform_type::rocfft_transform_type_real_inverse, lengths, batch);
    execute(plan, work, spectrum, if in_place { null_mut() } else { back });
    fft_ok!((fft().rocfft_plan_destroy)(plan));
    let got: Vec<T> = download(back, dist * batch);
    let mut got_dense = Vec::new();
    let mut want_dense = Vec::new();
    for t in 0..batch {
        for row in 0..outer {
            for k in 0..n0 {
                got_dense.push(got[t * dist + row * pitch + k]);
                want_dense.push(n as f64 * x[t * n + row * n0 + k]);
            }
        }
    }
    assert_close(&got_dense, &want_dense, &format!("c2r of {what}"));
    free(input);
    if !in_place {
        free(spectrum);
        free(back);
    }
}

#[test]
fn real_ffts_match_a_naive_dft() {
    let _g = start();
    for in_place in [false, true] {
        real_case::<f32>(&[8], 1, in_place);
        real_case::<f64>(&[7], 2, in_place);
        real_case::<f64>(&[6, 3], 1, in_place);
        real_case::<f32>(&[5, 2, 3], 2, in_place);
    }
    finish();
}

#[test]
fn rocfft_checks_its_arguments() {
    let _g = start();
    let f = fft();
    let mut buf = [0 as std::ffi::c_char; 32];
    fft_ok!((f.rocfft_get_version_string)(buf.as_mut_ptr(), buf.len()));
    // SAFETY: NUL-terminated by the call.
    let version = unsafe { std::ffi::CStr::from_ptr(buf.as_ptr()) }.to_str().expect("utf-8").to_owned();
    assert_eq!(version, "1.0.27");
    let mut plan = null_mut();
    let lengths = [4usize, 4, 4, 4];
    let call = |plan: &mut rocfft_plan, dims: usize, batch: usize| {
        // SAFETY: valid pointers.
        unsafe {
            (f.rocfft_plan_create)(
                plan,
                rocfft_result_placement::rocfft_placement_inplace,
                rocfft_transform_type::rocfft_transform_type_complex_forward,
                rocfft_precision::rocfft_precision_single,
                dims,
                lengths.as_ptr(),
                batch,
                null_mut(),
            )
        }
    };
    assert_eq!(call(&mut plan, 4, 1), rocfft_status::rocfft_status_invalid_dimensions);
    assert_eq!(call(&mut plan, 0, 1), rocfft_status::rocfft_status_invalid_dimensions);
    assert_eq!(call(&mut plan, 1, 0), rocfft_status::rocfft_status_invalid_arg_value);
    // A 2-D plan needs a work buffer: executing without one is an error.
    let (plan, work) =
        plan_create::<f32>(true, rocfft_transform_type::rocfft_transform_type_complex_forward, &[4, 4], 1);
    assert_eq!(work, sim::ROCFFT_WORK_BUFFER_SIZE);
    let data = malloc(4 * 2 * 16);
    let mut ins = [data];
    assert_eq!(
        status!((f.rocfft_execute)(plan, ins.as_mut_ptr(), null_mut(), null_mut())),
        rocfft_status::rocfft_status_invalid_work_buffer
    );
    let mut info = null_mut();
    fft_ok!((f.rocfft_execution_info_create)(&mut info));
    let small = malloc(16);
    fft_ok!((f.rocfft_execution_info_set_work_buffer)(info, small, 16));
    assert_eq!(
        status!((f.rocfft_execute)(plan, ins.as_mut_ptr(), null_mut(), info)),
        rocfft_status::rocfft_status_invalid_work_buffer
    );
    // Plan descriptions accept the default layout only.
    let mut desc = null_mut();
    fft_ok!((f.rocfft_plan_description_create)(&mut desc));
    let unset = rocfft_array_type::rocfft_array_type_unset;
    fft_ok!((f.rocfft_plan_description_set_data_layout)(
        desc,
        unset,
        unset,
        null(),
        null(),
        0,
        null(),
        0,
        0,
        null(),
        0
    ));
    let strides = [2usize];
    assert_eq!(
        status!((f.rocfft_plan_description_set_data_layout)(
            desc,
            unset,
            unset,
            null(),
            null(),
            1,
            strides.as_ptr(),
            0,
            0,
            null(),
            0
        )),
        rocfft_status::rocfft_status_failure
    );
    fft_ok!((f.rocfft_plan_description_destroy)(desc));
    fft_ok!((f.rocfft_execution_info_destroy)(info));
    fft_ok!((f.rocfft_plan_destroy)(plan));
    assert_eq!(status!((f.rocfft_plan_destroy)(plan)), rocfft_status::rocfft_status_invalid_arg_value);
    fft_ok!((f.rocfft_cleanup)());
    free(data);
    free(small);
    finish();
}

/// Upload `values`, run a 1-D out-of-place transform of `kind` on them
/// into a fresh buffer, and return (the input buffer's contents
/// afterwards, the output).
fn out_of_place<T: Num>(kind: rocfft_transform_type, n: usize, values: &[T], out_len: usize) -> (Vec<T>, Vec<T>) {
    let (plan, work) = plan_create::<T>(false, kind, &[n], 1);
    let input = upload(values);
    let output = malloc(out_len * std::mem::size_of::<T>());
    execute(plan, work, input, output);
    let after: Vec<T> = download(input, values.len());
    let got: Vec<T> = download(output, out_len);
    fft_ok!((fft().rocfft_plan_destroy)(plan));
    free(input);
    free(output);
    (after, got)
}

#[test]
fn c2r_overwrites_its_input_even_out_of_place() {
    let _g = start();
    let n = 16;
    let signal = values(n, 3);
    let spectrum: Vec<f64> = dft(&signal.iter().map(|v| (*v, 0.0)).collect::<Vec<_>>(), &[n], false)[..n / 2 + 1]
        .iter()
        .flat_map(|(re, im)| [*re, *im])
        .collect();
    let (after, got) = out_of_place::<f64>(rocfft_transform_type::rocfft_transform_type_real_inverse, n, &spectrum, n);
    let want: Vec<f64> = signal.iter().map(|v| v * n as f64).collect();
    assert_close(&got, &want, "c2r result");
    // rocFFT may use a C2R input as scratch space; the simulator does.
    assert!(after.iter().all(|v| v.is_nan()), "the C2R input survived: {after:?}");
    // Complex transforms, and R2C in the default (modern) version, keep it.
    let complex = values(2 * n, 4);
    let (after, _) =
        out_of_place::<f64>(rocfft_transform_type::rocfft_transform_type_complex_forward, n, &complex, 2 * n);
    assert_eq!(after, complex, "C2C must leave its input intact");
    let (after, _) = out_of_place::<f64>(rocfft_transform_type::rocfft_transform_type_real_forward, n, &signal, n + 2);
    assert_eq!(after, signal, "R2C of rocFFT {} must leave its input intact", sim::rocfft_version());
    finish();
}

/// Model `version` until dropped.
struct ModelVersion;
impl ModelVersion {
    fn new(version: hip_sys::RocfftVersion) -> ModelVersion {
        sim::set_rocfft_version(Some(version));
        ModelVersion
    }
}
impl Drop for ModelVersion {
    fn drop(&mut self) {
        sim::set_rocfft_version(None);
    }
}

fn version_string() -> String {
    let mut buf = [0 as std::ffi::c_char; 32];
    fft_ok!((fft().rocfft_get_version_string)(buf.as_mut_ptr(), buf.len()));
    // SAFETY: NUL-terminated by the call.
    unsafe { std::ffi::CStr::from_ptr(buf.as_ptr()) }.to_str().expect("utf-8").to_owned()
}

#[test]
fn r2c_overwrites_its_input_before_rocfft_1_0_25() {
    let _g = start();
    let n = 12;
    let signal: Vec<f32> = values(n, 6).iter().map(|v| *v as f32).collect();
    let want: Vec<f64> = dft(&signal.iter().map(|v| (*v as f64, 0.0)).collect::<Vec<_>>(), &[n], false)[..n / 2 + 1]
        .iter()
        .flat_map(|(re, im)| [*re, *im])
        .collect();
    {
        let _old = ModelVersion::new(hip_sys::RocfftVersion::new(1, 0, 24));
        assert_eq!(version_string(), "1.0.24");
        let (after, got) =
            out_of_place::<f32>(rocfft_transform_type::rocfft_transform_type_real_forward, n, &signal, n + 2);
        assert_close(&got, &want, "r2c result, rocFFT 1.0.24");
        assert!(after.iter().all(|v| v.is_nan()), "the R2C input survived rocFFT 1.0.24: {after:?}");
    }
    assert_eq!(version_string(), sim::DEFAULT_ROCFFT_VERSION.to_string());
    let _new = ModelVersion::new(hip_sys::RocfftVersion::R2C_KEEPS_INPUT);
    let (after, got) =
        out_of_place::<f32>(rocfft_transform_type::rocfft_transform_type_real_forward, n, &signal, n + 2);
    assert_close(&got, &want, "r2c result, rocFFT 1.0.25");
    assert_eq!(after, signal, "rocFFT 1.0.25 keeps an R2C input");
    finish();
}

#[test]
fn the_simulated_rocfft_version_is_validated() {
    assert_eq!(sim::parse_rocfft_version("1.0.24").unwrap(), hip_sys::RocfftVersion::new(1, 0, 24));
    assert_eq!(sim::parse_rocfft_version(" 1.0.30 ").unwrap(), hip_sys::RocfftVersion::new(1, 0, 30));
    for bad in ["", "1.0", "2.0.1", "1.1.0", "one"] {
        let text = sim::parse_rocfft_version(bad).unwrap_err().to_string();
        assert!(text.contains("AMDGPU_SIM_ROCFFT_VERSION") && text.contains("1.0.x"), "{bad}: {text}");
    }
    assert!(hip_sys::RocfftVersion::new(1, 0, 24).r2c_may_overwrite_input());
    assert!(!hip_sys::RocfftVersion::new(1, 0, 25).r2c_may_overwrite_input());
}

#[test]
fn single_precision_transforms_are_computed_in_single_precision() {
    let _g = start();
    let n = 4096;
    let data = values(2 * n, 11);
    let single: Vec<f32> = data.iter().map(|v| *v as f32).collect();
    let double: Vec<f64> = single.iter().map(|v| *v as f64).collect();
    let forward = rocfft_transform_type::rocfft_transform_type_complex_forward;
    let (_, got) = out_of_place::<f32>(forward, n, &single, 2 * n);
    let (_, exact) = out_of_place::<f64>(forward, n, &double, 2 * n);
    let scale = exact.iter().fold(0.0f64, |m, v| m.max(v.abs()));
    // Computed in f32, results carry f32 rounding from every stage, not
    // only the final one: many differ from the rounded f64 result by more
    // than one unit in the last place.
    let beyond_rounding =
        got.iter().zip(&exact).filter(|(g, e)| (**g - **e as f32).abs() > f32::EPSILON * (**e as f32).abs()).count();
    assert!(beyond_rounding > n / 10, "only {beyond_rounding} of {} results show single-precision arithmetic", 2 * n);
    // And the error is that of a single-precision FFT: about ε log2(n).
    let worst = got.iter().zip(&exact).fold(0.0f64, |m, (g, e)| m.max((*g as f64 - e).abs()));
    assert!(worst <= 1e-5 * scale, "error {worst} against a largest value of {scale}");
    finish();
}

#[test]
fn cleanup_frees_what_setup_built() {
    if !common::devices_at_least(2) {
        return;
    }
    let _g = start();
    let f = fft();
    // Setup reads the current device.
    set_device(1);
    fft_ok!((f.rocfft_setup)());
    assert_eq!(sim::rocfft_setup_device(), Some(1));
    set_device(0);
    let kind = rocfft_transform_type::rocfft_transform_type_complex_forward;
    let (before, work) = plan_create::<f64>(true, kind, &[8], 1);
    let data = upload(&values(16, 1));
    execute(before, work, data, null_mut());
    // rocFFT's cleanup succeeds with live plans, and frees their twiddles.
    fft_ok!((f.rocfft_cleanup)());
    assert_eq!(sim::rocfft_setup_device(), None);
    let mut ins = [data];
    assert_eq!(
        status!((f.rocfft_execute)(before, ins.as_mut_ptr(), null_mut(), null_mut())),
        rocfft_status::rocfft_status_failure,
        "a plan made before rocfft_cleanup must not run"
    );
    fft_ok!((f.rocfft_plan_destroy)(before));
    // A plan made afterwards works, with or without a new setup.
    let (after, work) = plan_create::<f64>(true, kind, &[8], 1);
    execute(after, work, data, null_mut());
    fft_ok!((f.rocfft_plan_destroy)(after));
    fft_ok!((f.rocfft_setup)());
    assert_eq!(sim::rocfft_setup_device(), Some(0));
    let (again, work) = plan_create::<f64>(true, kind, &[8], 1);
    execute(again, work, data, null_mut());
    fft_ok!((f.rocfft_plan_destroy)(again));
    fft_ok!((f.rocfft_cleanup)());
    free(data);
    finish();
}
