//! The simulator's rocSPARSE, rocFFT and MIOpen against reference loops.
//! Every test holds `sim::exclusive()`: violations, memory and library
//! objects are process-wide, and each test checks it left none behind.
//!
//! Tolerances: results are compared with a relative tolerance of 1e-4 for
//! single precision and 1e-10 for double precision, scaled by the size of
//! the values involved (the references compute in double precision; the
//! simulator computes single precision in single precision, in all three
//! libraries).

use hip_sys::miopen::*;
use hip_sys::rocfft::*;
use hip_sys::rocsparse::*;
use hip_sys::sim::{self, Exclusive};
use hip_sys::{hipError_t, hipMemcpyKind, hipStream_t, HipApi};
use std::ffi::c_void;
use std::ptr::{null, null_mut};

fn hip() -> &'static HipApi {
    sim::api()
}

/// Take the simulator and start from a clean violation log.
fn start() -> Exclusive {
    let guard = sim::exclusive();
    sim::clear_violations();
    set_device(0);
    guard
}

/// Check that the test left no objects, allocations or violations.
fn finish() {
    sync();
    for device in 0..2 {
        assert_eq!(sim::live_library_objects(device), 0, "library objects left on device {device}");
        assert_eq!(sim::live_allocations(device), 0, "allocations left on device {device}");
    }
    assert_eq!(sim::violations(), vec![], "violations");
}

fn set_device(d: i32) {
    // SAFETY: a plain call.
    assert_eq!(unsafe { (hip().hipSetDevice)(d) }, hipError_t::hipSuccess);
}

fn sync() {
    for d in 0..2 {
        set_device(d);
        // SAFETY: a plain call.
        assert_eq!(unsafe { (hip().hipDeviceSynchronize)() }, hipError_t::hipSuccess);
    }
    set_device(0);
}

/// Element types the tests use.
trait Num: Copy + Default + 'static {
    fn from_f64(v: f64) -> Self;
    fn to_f64(self) -> f64;
    const TOL: f64;
}
impl Num for f32 {
    fn from_f64(v: f64) -> Self {
        v as f32
    }
    fn to_f64(self) -> f64 {
        self as f64
    }
    const TOL: f64 = 1e-4;
}
impl Num for f64 {
    fn from_f64(v: f64) -> Self {
        v
    }
    fn to_f64(self) -> f64 {
        self
    }
    const TOL: f64 = 1e-10;
}
impl Num for i32 {
    fn from_f64(v: f64) -> Self {
        v as i32
    }
    fn to_f64(self) -> f64 {
        self as f64
    }
    const TOL: f64 = 0.0;
}

fn malloc(bytes: usize) -> *mut c_void {
    let mut p = null_mut();
    // SAFETY: valid out-pointer.
    assert_eq!(unsafe { (hip().hipMalloc)(&mut p, bytes) }, hipError_t::hipSuccess);
    p
}

fn free(p: *mut c_void) {
    // SAFETY: a pointer from malloc, freed once.
    assert_eq!(unsafe { (hip().hipFree)(p) }, hipError_t::hipSuccess);
}

fn upload<T: Num>(values: &[T]) -> *mut c_void {
    let bytes = std::mem::size_of_val(values);
    let p = malloc(bytes.max(4));
    // SAFETY: both ranges hold `bytes` bytes.
    let status = unsafe { (hip().hipMemcpy)(p, values.as_ptr().cast(), bytes, hipMemcpyKind::hipMemcpyHostToDevice) };
    assert_eq!(status, hipError_t::hipSuccess);
    p
}

fn download<T: Num>(p: *const c_void, n: usize) -> Vec<T> {
    let mut out = vec![T::default(); n];
    // SAFETY: both ranges hold n elements.
    let status = unsafe {
        (hip().hipMemcpy)(
            out.as_mut_ptr().cast(),
            p,
            n * std::mem::size_of::<T>(),
            hipMemcpyKind::hipMemcpyDeviceToHost,
        )
    };
    assert_eq!(status, hipError_t::hipSuccess);
    out
}

fn assert_close<T: Num>(got: &[T], want: &[f64], what: &str) {
    assert_eq!(got.len(), want.len(), "{what}: length");
    let scale = want.iter().fold(1.0f64, |m, v| m.max(v.abs()));
    for (i, (g, w)) in got.iter().zip(want).enumerate() {
        let g = g.to_f64();
        assert!((g - w).abs() <= T::TOL * scale, "{what}[{i}]: got {g}, want {w}");
    }
}

/// A small deterministic pseudo-random sequence in [-1, 1).
fn values(n: usize, seed: u64) -> Vec<f64> {
    let mut state = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
    (0..n)
        .map(|_| {
            state = state.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            ((state >> 11) as f64 / (1u64 << 53) as f64) * 2.0 - 1.0
        })
        .collect()
}

// ---- rocSPARSE ---------------------------------------------------------------

fn sparse() -> &'static RocsparseApi {
    sim::rocsparse_api()
}

macro_rules! sp_ok {
    ($call:expr) => {{
        // SAFETY: each call site passes valid arguments for the C function.
        let status = unsafe { $call };
        assert_eq!(status, rocsparse_status::rocsparse_status_success, "{}", stringify!($call));
    }};
}

macro_rules! status {
    ($call:expr) => {{
        // SAFETY: each call site passes arguments the C function accepts.
        unsafe { $call }
    }};
}

/// A dense 5 × 4 matrix with some zeros, and its CSR form with `base`.
fn csr_example(base: i32) -> (Vec<Vec<f64>>, Vec<i32>, Vec<i32>, Vec<f64>) {
    let dense = vec![
        vec![1.0, 0.0, 2.0, 0.0],
        vec![0.0, 0.0, 0.0, 0.0],
        vec![0.0, 3.0, 0.0, 4.0],
        vec![5.0, 6.0, 7.0, 0.0],
        vec![0.0, 0.0, 0.0, -8.5],
    ];
    let (mut offsets, mut cols, mut vals) = (vec![base], Vec::new(), Vec::new());
    for row in &dense {
        for (j, v) in row.iter().enumerate() {
            if *v != 0.0 {
                cols.push(j as i32 + base);
                vals.push(*v);
            }
        }
        offsets.push(cols.len() as i32 + base);
    }
    (dense, offsets, cols, vals)
}

fn datatype<T: Num>() -> rocsparse_datatype {
    if std::mem::size_of::<T>() == 4 {
        rocsparse_datatype::rocsparse_datatype_f32_r
    } else {
        rocsparse_datatype::rocsparse_datatype_f64_r
    }
}

/// The device arrays and descriptor of the example matrix.
struct Csr {
    descr: rocsparse_spmat_descr,
    arrays: [*mut c_void; 3],
    dense: Vec<Vec<f64>>,
}

impl Csr {
    fn new<T: Num>(base: i32) -> Csr {
        let (dense, offsets, cols, vals) = csr_example(base);
        let vals: Vec<T> = vals.iter().map(|v| T::from_f64(*v)).collect();
        let arrays = [upload(&offsets), upload(&cols), upload(&vals)];
        let mut descr = null_mut();
        let idx = if base == 0 {
            rocsparse_index_base::rocsparse_index_base_zero
        } else {
            rocsparse_index_base::rocsparse_index_base_one
        };
        let i32t = rocsparse_indextype::rocsparse_indextype_i32;
        sp_ok!((sparse().rocsparse_create_csr_descr)(
            &mut descr,
            5,
            4,
            vals.len() as i64,
            arrays[0],
            arrays[1],
            arrays[2],
            i32t,
            i32t,
            idx,
            datatype::<T>()
        ));
        Csr { descr, arrays, dense }
    }

    fn destroy(self) {
        sp_ok!((sparse().rocsparse_destroy_spmat_descr)(self.descr));
        self.arrays.into_iter().for_each(free);
    }
}

fn dnvec<T: Num>(values: &[f64]) -> (rocsparse_dnvec_descr, *mut c_void) {
    let host: Vec<T> = values.iter().map(|v| T::from_f64(*v)).collect();
    let p = upload(&host);
    let mut d = null_mut();
    sp_ok!((sparse().rocsparse_create_dnvec_descr)(&mut d, values.len() as i64, p, datatype::<T>()));
    (d, p)
}

fn create_handle() -> rocsparse_handle {
    let mut h = null_mut();
    sp_ok!((sparse().rocsparse_create_handle)(&mut h));
    h
}

fn spmv_case<T: Num>(base: i32, transpose: bool, staged: bool) {
    let handle = create_handle();
    let mut stream: hipStream_t = null_mut();
    // SAFETY: valid out-pointer.
    assert_eq!(unsafe { (hip().hipStreamCreate)(&mut stream) }, hipError_t::hipSuccess);
    sp_ok!((sparse().rocsparse_set_stream)(handle, stream));
    let csr = Csr::new::<T>(base);
    let (rows, cols) = if transpose { (4, 5) } else { (5, 4) };
    let x = values(cols, 7);
    let y0 = values(rows, 9);
    let (xd, xp) = dnvec::<T>(&x);
    let (yd, yp) = dnvec::<T>(&y0);
    let (alpha, beta) = (T::from_f64(1.5), T::from_f64(-0.5));
    let op = if transpose {
        rocsparse_operation::rocsparse_operation_transpose
    } else {
        rocsparse_operation::rocsparse_operation_none
    };
    let alg = rocsparse_spmv_alg::rocsparse_spmv_alg_default;
    let dt = datatype::<T>();
    let a = (&alpha as *const T).cast::<c_void>();
    let b = (&beta as *const T).cast::<c_void>();
    let mut size = 0usize;
    if staged {
        let stage = rocsparse_spmv_stage::rocsparse_spmv_stage_buffer_size;
        sp_ok!(hip_sys::rocsparse_spmv_staged(
            sparse(),
            handle,
            op,
            a,
            csr.descr,
            xd,
            b,
            yd,
            dt,
            alg,
            stage,
            &mut size,
            null_mut()
        ));
    } else {
        sp_ok!((sparse().rocsparse_spmv)(handle, op, a, csr.descr, xd, b, yd, dt, alg, &mut size, null_mut()));
    }
    assert_eq!(size, sim::ROCSPARSE_BUFFER_SIZE);
    let buffer = malloc(size);
    if staged {
        for stage in
            [rocsparse_spmv_stage::rocsparse_spmv_stage_preprocess, rocsparse_spmv_stage::rocsparse_spmv_stage_compute]
        {
            sp_ok!(hip_sys::rocsparse_spmv_staged(
                sparse(),
                handle,
                op,
                a,
                csr.descr,
                xd,
                b,
                yd,
                dt,
                alg,
                stage,
                &mut size,
                buffer
            ));
        }
    } else {
        sp_ok!((sparse().rocsparse_spmv)(handle, op, a, csr.descr, xd, b, yd, dt, alg, &mut size, buffer));
    }
    // SAFETY: a live stream.
    assert_eq!(unsafe { (hip().hipStreamSynchronize)(stream) }, hipError_t::hipSuccess);
    let got: Vec<T> = download(yp, rows);
    let want: Vec<f64> = (0..rows)
        .map(|i| {
            let dot: f64 = (0..cols).map(|j| if transpose { csr.dense[j][i] } else { csr.dense[i][j] } * x[j]).sum();
            1.5 * dot - 0.5 * y0[i]
        })
        .collect();
    assert_close(&got, &want, &format!("spmv base {base} transpose {transpose} staged {staged}"));
    sp_ok!((sparse().rocsparse_destroy_dnvec_descr)(xd));
    sp_ok!((sparse().rocsparse_destroy_dnvec_descr)(yd));
    csr.destroy();
    [xp, yp, buffer].into_iter().for_each(free);
    sp_ok!((sparse().rocsparse_destroy_handle)(handle));
    // SAFETY: a live stream, destroyed once.
    assert_eq!(unsafe { (hip().hipStreamDestroy)(stream) }, hipError_t::hipSuccess);
}

#[test]
fn spmv_matches_dense_product() {
    let _g = start();
    for base in [0, 1] {
        for transpose in [false, true] {
            for staged in [false, true] {
                spmv_case::<f32>(base, transpose, staged);
                spmv_case::<f64>(base, transpose, staged);
            }
        }
    }
    finish();
}

fn spmm_case<T: Num>(base: i32, trans_a: bool, trans_b: bool, row_major: bool) {
    let handle = create_handle();
    let csr = Csr::new::<T>(base);
    let (m, k) = if trans_a { (4, 5) } else { (5, 4) };
    let n = 3;
    // B as stored is k × n, or n × k when transposed; C is m × n.
    let (b_rows, b_cols) = if trans_b { (n, k) } else { (k, n) };
    let order = if row_major { rocsparse_order::rocsparse_order_row } else { rocsparse_order::rocsparse_order_column };
    let dense_mat = |rows: usize, cols: usize, vals: &[f64]| -> (rocsparse_dnmat_descr, *mut c_void) {
        let ld = if row_major { cols } else { rows };
        let host: Vec<T> = vals.iter().map(|v| T::from_f64(*v)).collect();
        let p = upload(&host);
        let mut d = null_mut();
        sp_ok!((sparse().rocsparse_create_dnmat_descr)(
            &mut d,
            rows as i64,
            cols as i64,
            ld as i64,
            p,
            datatype::<T>(),
            order
        ));
        (d, p)
    };
    let at = |rows: usize, cols: usize, i: usize, j: usize| {
        let _ = rows;
        if row_major {
            i * cols + j
        } else {
            i + j * rows
        }
    };
    let bv = values(b_rows * b_cols, 3);
    let cv = values(m * n, 4);
    let (bd, bp) = dense_mat(b_rows, b_cols, &bv);
    let (cd, cp) = dense_mat(m, n, &cv);
    let (alpha, beta) = (T::from_f64(2.0), T::from_f64(0.25));
    let op = |t: bool| {
        if t {
            rocsparse_operation::rocsparse_operation_transpose
        } else {
            rocsparse_operation::rocsparse_operation_none
        }
    };
    let alg = rocsparse_spmm_alg::rocsparse_spmm_alg_default;
    let a = (&alpha as *const T).cast::<c_void>();
    let b = (&beta as *const T).cast::<c_void>();
    let mut size = 0usize;
    let dt = datatype::<T>();
    sp_ok!((sparse().rocsparse_spmm)(
        handle,
        op(trans_a),
        op(trans_b),
        a,
        csr.descr,
        bd,
        b,
        cd,
        dt,
        alg,
        rocsparse_spmm_stage::rocsparse_spmm_stage_buffer_size,
        &mut size,
        null_mut()
    ));
    let buffer = malloc(size);
    for stage in
        [rocsparse_spmm_stage::rocsparse_spmm_stage_preprocess, rocsparse_spmm_stage::rocsparse_spmm_stage_compute]
    {
        sp_ok!((sparse().rocsparse_spmm)(
            handle,
            op(trans_a),
            op(trans_b),
            a,
            csr.descr,
            bd,
            b,
            cd,
            dt,
            alg,
            stage,
            &mut size,
            buffer
        ));
    }
    let got: Vec<T> = download(cp, m * n);
    let a_at = |i: usize, j: usize| if trans_a { csr.dense[j][i] } else { csr.dense[i][j] };
    let b_at = |i: usize, j: usize| if trans_b { bv[at(b_rows, b_cols, j, i)] } else { bv[at(b_rows, b_cols, i, j)] };
    let mut want = vec![0.0; m * n];
    for i in 0..m {
        for j in 0..n {
            let dot: f64 = (0..k).map(|l| a_at(i, l) * b_at(l, j)).sum();
            want[at(m, n, i, j)] = 2.0 * dot + 0.25 * cv[at(m, n, i, j)];
        }
    }
    assert_close(&got, &want, &format!("spmm base {base} ta {trans_a} tb {trans_b} row-major {row_major}"));
    sp_ok!((sparse().rocsparse_destroy_dnmat_descr)(bd));
    sp_ok!((sparse().rocsparse_destroy_dnmat_descr)(cd));
    csr.destroy();
    [bp, cp, buffer].into_iter().for_each(free);
    sp_ok!((sparse().rocsparse_destroy_handle)(handle));
}

#[test]
fn spmm_matches_dense_product() {
    let _g = start();
    for base in [0, 1] {
        for trans_a in [false, true] {
            for trans_b in [false, true] {
                for row_major in [false, true] {
                    spmm_case::<f32>(base, trans_a, trans_b, row_major);
                    spmm_case::<f64>(base, trans_a, trans_b, row_major);
                }
            }
        }
    }
    finish();
}

#[test]
fn rocsparse_bad_input_gives_rocsparse_errors() {
    let _g = start();
    let s = sparse();
    assert_eq!(status!((s.rocsparse_create_handle)(null_mut())), rocsparse_status::rocsparse_status_invalid_handle);
    assert_eq!(status!((s.rocsparse_destroy_handle)(null_mut())), rocsparse_status::rocsparse_status_invalid_handle);
    let handle = create_handle();
    let mut version = 0;
    sp_ok!((s.rocsparse_get_version)(handle, &mut version));
    assert_eq!(version, 300_002, "rocSPARSE 3.0.2, the library of ROCm 6.0.0");
    let mut stream: hipStream_t = 1 as hipStream_t;
    sp_ok!((s.rocsparse_get_stream)(handle, &mut stream));
    assert!(stream.is_null());
    assert_eq!(
        status!((s.rocsparse_set_pointer_mode)(handle, rocsparse_pointer_mode::rocsparse_pointer_mode_device)),
        rocsparse_status::rocsparse_status_not_implemented
    );
    sp_ok!((s.rocsparse_set_pointer_mode)(handle, rocsparse_pointer_mode::rocsparse_pointer_mode_host));
    let mut d = null_mut();
    let dt = rocsparse_datatype::rocsparse_datatype_f32_r;
    let p = malloc(64);
    assert_eq!(
        status!((s.rocsparse_create_dnvec_descr)(&mut d, -1, p, dt)),
        rocsparse_status::rocsparse_status_invalid_size
    );
    assert_eq!(
        status!((s.rocsparse_create_dnvec_descr)(&mut d, 4, null_mut(), dt)),
        rocsparse_status::rocsparse_status_invalid_pointer
    );
    let i32t = rocsparse_indextype::rocsparse_indextype_i32;
    let zero = rocsparse_index_base::rocsparse_index_base_zero;
    assert_eq!(
        status!((s.rocsparse_create_csr_descr)(
            &mut d as *mut _ as *mut _,
            2,
            2,
            1,
            null_mut(),
            p,
            p,
            i32t,
            i32t,
            zero,
            dt
        )),
        rocsparse_status::rocsparse_status_invalid_pointer
    );
    assert_eq!(
        status!((s.rocsparse_create_csr_descr)(&mut d as *mut _ as *mut _, 2, -2, 1, p, p, p, i32t, i32t, zero, dt)),
        rocsparse_status::rocsparse_status_invalid_size
    );
    // SpMV with mismatched sizes, then without a buffer at the compute stage.
    let csr = Csr::new::<f32>(0);
    let (xd, xp) = dnvec::<f32>(&[1.0; 3]);
    let (yd, yp) = dnvec::<f32>(&[0.0; 5]);
    let one = 1.0f32;
    let one = (&one as *const f32).cast::<c_void>();
    let none = rocsparse_operation::rocsparse_operation_none;
    let alg = rocsparse_spmv_alg::rocsparse_spmv_alg_default;
    let mut size = 0;
    let compute = rocsparse_spmv_stage::rocsparse_spmv_stage_compute;
    let buffer_size = rocsparse_spmv_stage::rocsparse_spmv_stage_buffer_size;
    assert_eq!(
        status!(hip_sys::rocsparse_spmv_staged(
            s,
            handle,
            none,
            one,
            csr.descr,
            xd,
            one,
            yd,
            dt,
            alg,
            buffer_size,
            &mut size,
            null_mut()
        )),
        rocsparse_status::rocsparse_status_invalid_size
    );
    let (xd4, xp4) = dnvec::<f32>(&[1.0; 4]);
    assert_eq!(
        status!(hip_sys::rocsparse_spmv_staged(
            s,
            handle,
            none,
            one,
            csr.descr,
            xd4,
            one,
            yd,
            dt,
            alg,
            compute,
            &mut size,
            null_mut()
        )),
        rocsparse_status::rocsparse_status_invalid_pointer
    );
    assert_eq!(
        status!(hip_sys::rocsparse_spmv_staged(
            s,
            handle,
            none,
            one,
            csr.descr,
            xd4,
            one,
            yd,
            rocsparse_datatype::rocsparse_datatype_f64_r,
            alg,
            buffer_size,
            &mut size,
            null_mut()
        )),
        rocsparse_status::rocsparse_status_not_implemented
    );
    for d in [xd, xd4, yd] {
        sp_ok!((s.rocsparse_destroy_dnvec_descr)(d));
    }
    assert_eq!(status!((s.rocsparse_destroy_dnvec_descr)(xd)), rocsparse_status::rocsparse_status_invalid_pointer);
    csr.destroy();
    [p, xp, xp4, yp].into_iter().for_each(free);
    sp_ok!((s.rocsparse_destroy_handle)(handle));
    assert_eq!(status!((s.rocsparse_destroy_handle)(handle)), rocsparse_status::rocsparse_status_invalid_handle);
    finish();
}

#[test]
fn handles_and_plans_used_under_another_device_are_violations() {
    let _g = start();
    let handle = create_handle();
    let mut dnn = null_mut();
    // SAFETY: valid out-pointer.
    assert_eq!(unsafe { (sim::miopen_api().miopenCreate)(&mut dnn) }, miopenStatus_t::miopenStatusSuccess);
    let mut plan = null_mut();
    let len = [8usize];
    // SAFETY: valid pointers.
    let status = unsafe {
        (sim::rocfft_api().rocfft_plan_create)(
            &mut plan,
            rocfft_result_placement::rocfft_placement_inplace,
            rocfft_transform_type::rocfft_transform_type_complex_forward,
            rocfft_precision::rocfft_precision_single,
            1,
            len.as_ptr(),
            1,
            null_mut(),
        )
    };
    assert_eq!(status, rocfft_status::rocfft_status_success);
    assert_eq!(sim::live_library_objects(0), 3);
    set_device(1);
    sp_ok!((sparse().rocsparse_set_stream)(handle, null_mut()));
    let mut size = 1;
    // SAFETY: valid pointers.
    unsafe {
        (sim::rocfft_api().rocfft_plan_get_work_buffer_size)(plan, &mut size);
        (sim::miopen_api().miopenSetStream)(dnn, null_mut());
    }
    sp_ok!((sparse().rocsparse_destroy_handle)(handle));
    // SAFETY: live objects, destroyed once.
    unsafe {
        (sim::rocfft_api().rocfft_plan_destroy)(plan);
        (sim::miopen_api().miopenDestroy)(dnn);
    }
    let seen: Vec<(&str, usize, usize)> =
        sim::violations().iter().map(|v| (v.function, v.object_device, v.current_device)).collect();
    assert_eq!(
        seen,
        vec![
            ("rocsparse_set_stream", 0, 1),
            ("rocfft_plan_get_work_buffer_size", 0, 1),
            ("miopenSetStream", 0, 1),
            ("rocsparse_destroy_handle", 0, 1),
            ("rocfft_plan_destroy", 0, 1),
            ("miopenDestroy", 0, 1),
        ]
    );
    sim::clear_violations();
    set_device(0);
    finish();
}

#[test]
fn library_work_is_stream_ordered() {
    // An SpMV queued on a stream runs after the copy queued before it.
    let _g = start();
    let handle = create_handle();
    let mut stream: hipStream_t = null_mut();
    // SAFETY: valid out-pointer.
    assert_eq!(unsafe { (hip().hipStreamCreate)(&mut stream) }, hipError_t::hipSuccess);
    sp_ok!((sparse().rocsparse_set_stream)(handle, stream));
    let csr = Csr::new::<f64>(0);
    let (xd, xp) = dnvec::<f64>(&[0.0; 4]);
    let (yd, yp) = dnvec::<f64>(&[0.0; 5]);
    let ones = [1.0f64; 4];
    // SAFETY: `ones` outlives the synchronization below.
    let status =
        unsafe { (hip().hipMemcpyAsync)(xp, ones.as_ptr().cast(), 32, hipMemcpyKind::hipMemcpyHostToDevice, stream) };
    assert_eq!(status, hipError_t::hipSuccess);
    let (one, zero) = (1.0f64, 0.0f64);
    let buffer = malloc(sim::ROCSPARSE_BUFFER_SIZE);
    let mut size = 0;
    for stage in
        [rocsparse_spmv_stage::rocsparse_spmv_stage_preprocess, rocsparse_spmv_stage::rocsparse_spmv_stage_compute]
    {
        sp_ok!(hip_sys::rocsparse_spmv_staged(
            sparse(),
            handle,
            rocsparse_operation::rocsparse_operation_none,
            (&one as *const f64).cast(),
            csr.descr,
            xd,
            (&zero as *const f64).cast(),
            yd,
            rocsparse_datatype::rocsparse_datatype_f64_r,
            rocsparse_spmv_alg::rocsparse_spmv_alg_default,
            stage,
            &mut size,
            buffer
        ));
    }
    // SAFETY: a live stream.
    assert_eq!(unsafe { (hip().hipStreamSynchronize)(stream) }, hipError_t::hipSuccess);
    let got: Vec<f64> = download(yp, 5);
    assert_eq!(got, vec![3.0, 0.0, 7.0, 18.0, -8.5]);
    sp_ok!((sparse().rocsparse_destroy_dnvec_descr)(xd));
    sp_ok!((sparse().rocsparse_destroy_dnvec_descr)(yd));
    csr.destroy();
    [xp, yp, buffer].into_iter().for_each(free);
    sp_ok!((sparse().rocsparse_destroy_handle)(handle));
    // SAFETY: a live stream, destroyed once.
    assert_eq!(unsafe { (hip().hipStreamDestroy)(stream) }, hipError_t::hipSuccess);
    finish();
}

// ---- rocSPARSE 3.x fidelity -------------------------------------------------

/// One staged SpMV call through the table's staged entry point.
#[allow(clippy::too_many_arguments)]
fn spmv_stage<T: Num>(
    handle: rocsparse_handle,
    op: rocsparse_operation,
    mat: rocsparse_spmat_descr,
    x: rocsparse_dnvec_descr,
    y: rocsparse_dnvec_descr,
    stage: rocsparse_spmv_stage,
    size: &mut usize,
    buffer: *mut c_void,
) -> rocsparse_status {
    let (alpha, beta) = (T::from_f64(1.0), T::from_f64(0.0));
    status!(hip_sys::rocsparse_spmv_staged(
        sparse(),
        handle,
        op,
        (&alpha as *const T).cast(),
        mat,
        x,
        (&beta as *const T).cast(),
        y,
        datatype::<T>(),
        rocsparse_spmv_alg::rocsparse_spmv_alg_default,
        stage,
        size,
        buffer
    ))
}

/// A column-major f64 dense matrix descriptor and its device array.
fn dense_mat(rows: usize, cols: usize, vals: &[f64]) -> (rocsparse_dnmat_descr, *mut c_void) {
    let p = upload(vals);
    let mut d = null_mut();
    let dt = rocsparse_datatype::rocsparse_datatype_f64_r;
    let order = rocsparse_order::rocsparse_order_column;
    sp_ok!((sparse().rocsparse_create_dnmat_descr)(&mut d, rows as i64, cols as i64, rows as i64, p, dt, order));
    (d, p)
}

#[test]
fn rocsparse_3_reports_its_version_and_has_no_auto_stage() {
    // rocSPARSE 3.0 (ROCm 6.0) removed the auto stages of SpMV and SpMM;
    // the stage argument is checked like any enum: invalid_value.
    let _g = start();
    let handle = create_handle();
    let mut version = 0;
    sp_ok!((sparse().rocsparse_get_version)(handle, &mut version));
    assert_eq!(version / 100_000, 3, "the default simulated rocSPARSE is 3.x (ROCm 6), got {version}");
    let csr = Csr::new::<f64>(0);
    let (xd, xp) = dnvec::<f64>(&[1.0; 4]);
    let (yd, yp) = dnvec::<f64>(&[0.0; 5]);
    let buffer = malloc(sim::ROCSPARSE_BUFFER_SIZE);
    let none = rocsparse_operation::rocsparse_operation_none;
    let mut size = 0;
    for temp in [null_mut(), buffer] {
        let auto = rocsparse_spmv_stage(0);
        let got = spmv_stage::<f64>(handle, none, csr.descr, xd, yd, auto, &mut size, temp);
        assert_eq!(got, rocsparse_status::rocsparse_status_invalid_value, "spmv stage auto");
    }
    let (bd, bp) = dense_mat(4, 2, &[1.0; 8]);
    let (cd, cp) = dense_mat(5, 2, &[0.0; 10]);
    let (one, zero) = (1.0f64, 0.0f64);
    for temp in [null_mut(), buffer] {
        let got = status!((sparse().rocsparse_spmm)(
            handle,
            none,
            none,
            (&one as *const f64).cast(),
            csr.descr,
            bd,
            (&zero as *const f64).cast(),
            cd,
            rocsparse_datatype::rocsparse_datatype_f64_r,
            rocsparse_spmm_alg::rocsparse_spmm_alg_default,
            rocsparse_spmm_stage(0),
            &mut size,
            temp
        ));
        assert_eq!(got, rocsparse_status::rocsparse_status_invalid_value, "spmm stage auto");
    }
    sp_ok!((sparse().rocsparse_destroy_dnvec_descr)(xd));
    sp_ok!((sparse().rocsparse_destroy_dnvec_descr)(yd));
    sp_ok!((sparse().rocsparse_destroy_dnmat_descr)(bd));
    sp_ok!((sparse().rocsparse_destroy_dnmat_descr)(cd));
    csr.destroy();
    [xp, yp, bp, cp, buffer].into_iter().for_each(free);
    sp_ok!((sparse().rocsparse_destroy_handle)(handle));
    finish();
}

#[test]
fn rocsparse_handles_hold_device_memory_of_their_device() {
    // A real handle allocates a work buffer and device scalars on the
    // device current at creation, and frees them when destroyed.
    let _g = start();
    set_device(1);
    let before = (sim::live_allocations(0), sim::live_allocations(1));
    let handle = create_handle();
    assert!(sim::live_allocations(1) > before.1, "the handle took device 1's memory");
    assert_eq!(sim::live_allocations(0), before.0, "and none of device 0's");
    sp_ok!((sparse().rocsparse_destroy_handle)(handle));
    assert_eq!((sim::live_allocations(0), sim::live_allocations(1)), before, "destroy frees it");
    set_device(0);
    finish();
}

#[test]
fn single_precision_spmv_computes_in_single_precision() {
    // One row [1 1 1] times x = [1e8, 1, -1e8]: in f32 arithmetic
    // 1e8 + 1 rounds to 1e8, so the sum is 0; in f64 it would be 1.
    let _g = start();
    let handle = create_handle();
    let (offsets, cols, vals) = (upload(&[0i32, 3]), upload(&[0i32, 1, 2]), upload(&[1.0f32; 3]));
    let mut mat = null_mut();
    let i32t = rocsparse_indextype::rocsparse_indextype_i32;
    sp_ok!((sparse().rocsparse_create_csr_descr)(
        &mut mat,
        1,
        3,
        3,
        offsets,
        cols,
        vals,
        i32t,
        i32t,
        rocsparse_index_base::rocsparse_index_base_zero,
        rocsparse_datatype::rocsparse_datatype_f32_r
    ));
    let (xd, xp) = dnvec::<f32>(&[1e8, 1.0, -1e8]);
    let (yd, yp) = dnvec::<f32>(&[0.0]);
    let buffer = malloc(sim::ROCSPARSE_BUFFER_SIZE);
    let none = rocsparse_operation::rocsparse_operation_none;
    let mut size = 0;
    for stage in
        [rocsparse_spmv_stage::rocsparse_spmv_stage_preprocess, rocsparse_spmv_stage::rocsparse_spmv_stage_compute]
    {
        let got = spmv_stage::<f32>(handle, none, mat, xd, yd, stage, &mut size, buffer);
        assert_eq!(got, rocsparse_status::rocsparse_status_success);
    }
    sync();
    let sequential = (1e8f32 + 1.0f32) + -1e8f32;
    assert_eq!(download::<f32>(yp, 1), vec![sequential]);
    assert_eq!(sequential, 0.0);
    sp_ok!((sparse().rocsparse_destroy_dnvec_descr)(xd));
    sp_ok!((sparse().rocsparse_destroy_dnvec_descr)(yd));
    sp_ok!((sparse().rocsparse_destroy_spmat_descr)(mat));
    [offsets, cols, vals, xp, yp, buffer].into_iter().for_each(free);
    sp_ok!((sparse().rocsparse_destroy_handle)(handle));
    finish();
}

#[test]
fn the_csr_analysis_is_made_once_per_matrix_for_the_first_operation() {
    // rocSPARSE analyses a CSR matrix at its first preprocess only, for
    // that call's operation; a later non-transposed compute on a matrix
    // analysed for the transpose is invalid_value (the analysis does not
    // match), while transposed computes never use the analysis.
    let _g = start();
    let handle = create_handle();
    let csr = Csr::new::<f64>(0);
    let (x5, x5p) = dnvec::<f64>(&[1.0; 5]);
    let (y4, y4p) = dnvec::<f64>(&[0.0; 4]);
    let (x4, x4p) = dnvec::<f64>(&[1.0; 4]);
    let (y5, y5p) = dnvec::<f64>(&[0.0; 5]);
    let buffer = malloc(sim::ROCSPARSE_BUFFER_SIZE);
    let (none, trans) =
        (rocsparse_operation::rocsparse_operation_none, rocsparse_operation::rocsparse_operation_transpose);
    let (pre, compute) =
        (rocsparse_spmv_stage::rocsparse_spmv_stage_preprocess, rocsparse_spmv_stage::rocsparse_spmv_stage_compute);
    let mut size = 0;
    let ok = rocsparse_status::rocsparse_status_success;
    assert_eq!(spmv_stage::<f64>(handle, trans, csr.descr, x5, y4, pre, &mut size, buffer), ok);
    assert_eq!(spmv_stage::<f64>(handle, trans, csr.descr, x5, y4, compute, &mut size, buffer), ok);
    // A second preprocess, now for `none`, does not analyse again.
    assert_eq!(spmv_stage::<f64>(handle, none, csr.descr, x4, y5, pre, &mut size, buffer), ok);
    assert_eq!(
        spmv_stage::<f64>(handle, none, csr.descr, x4, y5, compute, &mut size, buffer),
        rocsparse_status::rocsparse_status_invalid_value
    );
    for d in [x5, y4, x4, y5] {
        sp_ok!((sparse().rocsparse_destroy_dnvec_descr)(d));
    }
    csr.destroy();
    [x5p, y4p, x4p, y5p, buffer].into_iter().for_each(free);
    sp_ok!((sparse().rocsparse_destroy_handle)(handle));
    finish();
}

#[test]
fn a_compute_without_preprocess_is_recorded_as_a_slow_path() {
    // Real rocSPARSE computes a never-preprocessed CSR SpMV with its
    // general kernel, silently: the simulator records it, once per such
    // compute, and not after a preprocess.
    let _g = start();
    sim::clear_rocsparse_slow_paths();
    let handle = create_handle();
    let csr = Csr::new::<f64>(0);
    let (xd, xp) = dnvec::<f64>(&[1.0; 4]);
    let (yd, yp) = dnvec::<f64>(&[0.0; 5]);
    let buffer = malloc(sim::ROCSPARSE_BUFFER_SIZE);
    let none = rocsparse_operation::rocsparse_operation_none;
    let (pre, compute) =
        (rocsparse_spmv_stage::rocsparse_spmv_stage_preprocess, rocsparse_spmv_stage::rocsparse_spmv_stage_compute);
    let mut size = 0;
    let ok = rocsparse_status::rocsparse_status_success;
    let analyses = sim::rocsparse_analyses();
    assert_eq!(spmv_stage::<f64>(handle, none, csr.descr, xd, yd, compute, &mut size, buffer), ok);
    let slow = sim::rocsparse_slow_paths();
    assert_eq!(slow.len(), 1, "{slow:?}");
    assert_eq!((slow[0].function, slow[0].device), ("rocsparse_spmv_ex", 0));
    assert!(slow[0].to_string().contains("preprocess"), "{}", slow[0]);
    assert_eq!(spmv_stage::<f64>(handle, none, csr.descr, xd, yd, pre, &mut size, buffer), ok);
    assert_eq!(sim::rocsparse_analyses(), analyses + 1, "the preprocess analysed the matrix");
    let live = sim::live_allocations(0);
    assert_eq!(spmv_stage::<f64>(handle, none, csr.descr, xd, yd, pre, &mut size, buffer), ok);
    assert_eq!(sim::rocsparse_analyses(), analyses + 1, "once per matrix");
    assert_eq!(sim::live_allocations(0), live);
    assert_eq!(spmv_stage::<f64>(handle, none, csr.descr, xd, yd, compute, &mut size, buffer), ok);
    assert_eq!(sim::rocsparse_slow_paths().len(), 1, "no slow path after the preprocess");
    sync();
    assert_eq!(download::<f64>(yp, 5), vec![3.0, 0.0, 7.0, 18.0, -8.5]);
    sim::clear_rocsparse_slow_paths();
    sp_ok!((sparse().rocsparse_destroy_dnvec_descr)(xd));
    sp_ok!((sparse().rocsparse_destroy_dnvec_descr)(yd));
    csr.destroy(); // frees the analysis's device memory too (finish checks)
    [xp, yp, buffer].into_iter().for_each(free);
    sp_ok!((sparse().rocsparse_destroy_handle)(handle));
    finish();
}

/// Select a rocSPARSE version for the rest of the guard's life.
struct Version(sim::RocsparseVersion);

impl Version {
    fn set(version: sim::RocsparseVersion) -> Version {
        Version(sim::set_rocsparse_version(version))
    }
}

impl Drop for Version {
    fn drop(&mut self) {
        sim::set_rocsparse_version(self.0);
    }
}

#[test]
fn rocsparse_2_is_selectable_and_has_the_auto_stage() {
    let _g = start();
    assert_eq!(sim::parse_rocsparse_version("2"), Ok(sim::RocsparseVersion::V2));
    assert_eq!(sim::parse_rocsparse_version(" 3.0 "), Ok(sim::RocsparseVersion::V3));
    let bad = sim::parse_rocsparse_version("4").unwrap_err().to_string();
    assert!(bad.contains("AMDGPU_SIM_ROCSPARSE_VERSION"), "{bad}");
    let version = Version::set(sim::RocsparseVersion::V2);
    sim::clear_rocsparse_slow_paths();
    let handle = create_handle();
    let mut encoded = 0;
    sp_ok!((sparse().rocsparse_get_version)(handle, &mut encoded));
    assert_eq!(encoded, 200_504, "rocSPARSE 2.5.4, the library of ROCm 5.7.1");
    let csr = Csr::new::<f64>(0);
    let (xd, xp) = dnvec::<f64>(&[1.0; 4]);
    let (yd, yp) = dnvec::<f64>(&[0.0; 5]);
    let auto = rocsparse_spmv_stage(0);
    let none = rocsparse_operation::rocsparse_operation_none;
    let mut size = 0;
    let ok = rocsparse_status::rocsparse_status_success;
    assert_eq!(spmv_stage::<f64>(handle, none, csr.descr, xd, yd, auto, &mut size, null_mut()), ok);
    assert_eq!(size, sim::ROCSPARSE_BUFFER_SIZE, "auto without a buffer sizes it");
    let buffer = malloc(size);
    assert_eq!(spmv_stage::<f64>(handle, none, csr.descr, xd, yd, auto, &mut size, buffer), ok);
    sync();
    assert_eq!(download::<f64>(yp, 5), vec![3.0, 0.0, 7.0, 18.0, -8.5]);
    assert_eq!(sim::rocsparse_slow_paths(), vec![], "2.x's auto stage preprocesses before computing");
    drop(version);
    assert_eq!(
        spmv_stage::<f64>(handle, none, csr.descr, xd, yd, auto, &mut size, buffer),
        rocsparse_status::rocsparse_status_invalid_value,
        "back on 3.x"
    );
    sp_ok!((sparse().rocsparse_destroy_dnvec_descr)(xd));
    sp_ok!((sparse().rocsparse_destroy_dnvec_descr)(yd));
    csr.destroy();
    [xp, yp, buffer].into_iter().for_each(free);
    sp_ok!((sparse().rocsparse_destroy_handle)(handle));
    finish();
}

// ---- rocFFT ------------------------------------------------------------------

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

// ---- MIOpen ------------------------------------------------------------------

fn dnn() -> &'static MiopenApi {
    sim::miopen_api()
}

macro_rules! mi_ok {
    ($call:expr) => {{
        // SAFETY: each call site passes valid arguments for the C function.
        let status = unsafe { $call };
        assert_eq!(status, miopenStatus_t::miopenStatusSuccess, "{}", stringify!($call));
    }};
}

fn tensor<T: Num>(shape: [i32; 4]) -> miopenTensorDescriptor_t {
    let mut d = null_mut();
    mi_ok!((dnn().miopenCreateTensorDescriptor)(&mut d));
    let dt = if std::mem::size_of::<T>() == 4 { miopenDataType_t::miopenFloat } else { miopenDataType_t::miopenDouble };
    mi_ok!((dnn().miopenSet4dTensorDescriptor)(d, dt, shape[0], shape[1], shape[2], shape[3]));
    d
}

fn dnn_handle() -> miopenHandle_t {
    let mut h = null_mut();
    mi_ok!((dnn().miopenCreate)(&mut h));
    h
}

fn softmax_case<T: Num>(log: bool, channel: bool) {
    let handle = dnn_handle();
    let shape = [2, 3, 2, 2];
    let desc = tensor::<T>(shape);
    let total = 24;
    let x = values(total, 11);
    let y0 = values(total, 12);
    let xp = upload(&x.iter().map(|v| T::from_f64(*v * 3.0)).collect::<Vec<T>>());
    let yp = upload(&y0.iter().map(|v| T::from_f64(*v)).collect::<Vec<T>>());
    // MIOpen reads alpha and beta as float, whatever the tensor type.
    let (alpha, beta) = (1.0f32, 0.5f32);
    let algorithm = if log {
        miopenSoftmaxAlgorithm_t::MIOPEN_SOFTMAX_LOG
    } else {
        miopenSoftmaxAlgorithm_t::MIOPEN_SOFTMAX_ACCURATE
    };
    let mode = if channel {
        miopenSoftmaxMode_t::MIOPEN_SOFTMAX_MODE_CHANNEL
    } else {
        miopenSoftmaxMode_t::MIOPEN_SOFTMAX_MODE_INSTANCE
    };
    mi_ok!((dnn().miopenSoftmaxForward_V2)(
        handle,
        (&alpha as *const f32).cast(),
        desc,
        xp,
        (&beta as *const f32).cast(),
        desc,
        yp,
        algorithm,
        mode
    ));
    let got: Vec<T> = download(yp, total);
    let xs: Vec<f64> = x.iter().map(|v| T::from_f64(v * 3.0).to_f64()).collect();
    let mut want = vec![0.0; total];
    let (c, hw) = (3, 4);
    for n in 0..2 {
        let groups: Vec<Vec<usize>> = if channel {
            (0..hw).map(|s| (0..c).map(|ci| (n * c + ci) * hw + s).collect()).collect()
        } else {
            vec![(n * c * hw..(n + 1) * c * hw).collect()]
        };
        for g in groups {
            let sum: f64 = g.iter().map(|&i| xs[i].exp()).sum();
            for &i in &g {
                let f = if log { xs[i] - sum.ln() } else { xs[i].exp() / sum };
                want[i] = f + 0.5 * T::from_f64(y0[i]).to_f64();
            }
        }
    }
    assert_close(&got, &want, &format!("softmax log {log} channel {channel}"));
    mi_ok!((dnn().miopenDestroyTensorDescriptor)(desc));
    free(xp);
    free(yp);
    mi_ok!((dnn().miopenDestroy)(handle));
}

#[test]
fn softmax_matches_direct_loops() {
    let _g = start();
    for log in [false, true] {
        for channel in [false, true] {
            softmax_case::<f32>(log, channel);
        }
    }
    finish();
}

/// One softmax of `x` (1 × 4 × 1 × 1, channel mode) with `algorithm` and
/// `T` tensors; the status and the output.
fn softmax_of<T: Num>(x: &[f64], algorithm: miopenSoftmaxAlgorithm_t) -> (miopenStatus_t, Vec<f64>) {
    let handle = dnn_handle();
    let desc = tensor::<T>([1, 4, 1, 1]);
    let xp = upload(&x.iter().map(|v| T::from_f64(*v)).collect::<Vec<T>>());
    let yp = upload(&[T::from_f64(0.0); 4]);
    let (alpha, beta) = (1.0f32, 0.0f32);
    // SAFETY: live handle and descriptor, device buffers of 4 elements, host floats.
    let status = unsafe {
        (dnn().miopenSoftmaxForward_V2)(
            handle,
            (&alpha as *const f32).cast(),
            desc,
            xp,
            (&beta as *const f32).cast(),
            desc,
            yp,
            algorithm,
            miopenSoftmaxMode_t::MIOPEN_SOFTMAX_MODE_CHANNEL,
        )
    };
    let got: Vec<T> = download(yp, 4);
    mi_ok!((dnn().miopenDestroyTensorDescriptor)(desc));
    free(xp);
    free(yp);
    mi_ok!((dnn().miopenDestroy)(handle));
    (status, got.iter().map(|v| v.to_f64()).collect())
}

#[test]
fn fast_softmax_does_not_subtract_the_maximum() {
    let _g = start();
    let x = [100.0, 101.0, 102.0, 103.0];
    let (status, accurate) = softmax_of::<f32>(&x, miopenSoftmaxAlgorithm_t::MIOPEN_SOFTMAX_ACCURATE);
    assert_eq!(status, miopenStatus_t::miopenStatusSuccess);
    assert!(accurate.iter().all(|v| v.is_finite()) && (accurate.iter().sum::<f64>() - 1.0).abs() < 1e-5);
    // e^103 overflows FP32: MIOpen's fast softmax gives NaN there, and so
    // must the simulator, so that nobody relies on it.
    let (status, fast) = softmax_of::<f32>(&x, miopenSoftmaxAlgorithm_t::MIOPEN_SOFTMAX_FAST);
    assert_eq!(status, miopenStatus_t::miopenStatusSuccess);
    assert!(fast.iter().any(|v| !v.is_finite()), "{fast:?}");
    finish();
}

#[test]
fn miopen_computes_nothing_in_fp64() {
    let _g = start();
    let x = [0.0, 1.0, 2.0, 3.0];
    let (status, _) = softmax_of::<f64>(&x, miopenSoftmaxAlgorithm_t::MIOPEN_SOFTMAX_ACCURATE);
    assert_eq!(status, miopenStatus_t::miopenStatusNotImplemented);
    let handle = dnn_handle();
    let desc = tensor::<f64>([1, 1, 1, 4]);
    let (xp, yp) = (upload(&[0.5f64; 4]), malloc(32));
    let mut act = null_mut();
    mi_ok!((dnn().miopenCreateActivationDescriptor)(&mut act));
    mi_ok!((dnn().miopenSetActivationDescriptor)(act, miopenActivationMode_t::miopenActivationRELU, 0.0, 0.0, 0.0));
    let (alpha, beta) = (1.0f32, 0.0f32);
    assert_eq!(
        status!((dnn().miopenActivationForward)(
            handle,
            act,
            (&alpha as *const f32).cast(),
            desc,
            xp,
            (&beta as *const f32).cast(),
            desc,
            yp
        )),
        miopenStatus_t::miopenStatusNotImplemented
    );
    mi_ok!((dnn().miopenDestroyActivationDescriptor)(act));
    mi_ok!((dnn().miopenDestroyTensorDescriptor)(desc));
    free(xp);
    free(yp);
    mi_ok!((dnn().miopenDestroy)(handle));
    finish();
}

#[test]
fn activations_follow_miopen_definitions() {
    let _g = start();
    let handle = dnn_handle();
    let mut stream: hipStream_t = null_mut();
    // SAFETY: valid out-pointer.
    assert_eq!(unsafe { (hip().hipStreamCreate)(&mut stream) }, hipError_t::hipSuccess);
    mi_ok!((dnn().miopenSetStream)(handle, stream));
    let mut got_stream: hipStream_t = null_mut();
    mi_ok!((dnn().miopenGetStream)(handle, &mut got_stream));
    assert_eq!(got_stream, stream);
    let desc = tensor::<f32>([1, 2, 2, 3]);
    let x: Vec<f32> = values(12, 21).iter().map(|v| (v * 3.0) as f32).collect();
    let xp = upload(&x);
    let yp = malloc(12 * 4);
    let (a, b, g) = (0.7, 1.3, 2.0);
    type Reference = fn(f64, f64, f64, f64) -> f64;
    let cases: [(miopenActivationMode_t, Reference); 10] = [
        (miopenActivationMode_t::miopenActivationPASTHRU, |x, _, _, _| x),
        (miopenActivationMode_t::miopenActivationLOGISTIC, |x, _, _, _| 1.0 / (1.0 + (-x).exp())),
        (miopenActivationMode_t::miopenActivationTANH, |x, a, b, _| b * (a * x).tanh()),
        (miopenActivationMode_t::miopenActivationRELU, |x, _, _, _| if x > 0.0 { x } else { 0.0 }),
        (miopenActivationMode_t::miopenActivationSOFTRELU, |x, _, _, _| (1.0 + x.exp()).ln()),
        (miopenActivationMode_t::miopenActivationABS, |x, _, _, _| x.abs()),
        (miopenActivationMode_t::miopenActivationPOWER, |x, a, b, g| {
            let v = a + b * x;
            if v <= 0.0 {
                0.0
            } else {
                v.powf(g)
            }
        }),
        (miopenActivationMode_t::miopenActivationCLIPPEDRELU, |x, a, _, _| x.clamp(0.0, a)),
        (miopenActivationMode_t::miopenActivationLEAKYRELU, |x, a, _, _| if x > 0.0 { x } else { a * x }),
        (miopenActivationMode_t::miopenActivationELU, |x, a, _, _| if x > 0.0 { x } else { a * (x.exp() - 1.0) }),
    ];
    for (mode, reference) in cases {
        let mut act = null_mut();
        mi_ok!((dnn().miopenCreateActivationDescriptor)(&mut act));
        mi_ok!((dnn().miopenSetActivationDescriptor)(act, mode, a, b, g));
        // MIOpen's activation forward takes alpha 1 and beta 0 only, as floats.
        let (two, alpha, beta) = (2.0f32, 1.0f32, 0.0f32);
        let refused = status!((dnn().miopenActivationForward)(
            handle,
            act,
            (&two as *const f32).cast(),
            desc,
            xp,
            (&beta as *const f32).cast(),
            desc,
            yp
        ));
        assert_eq!(refused, miopenStatus_t::miopenStatusUnknownError, "alpha 2");
        mi_ok!((dnn().miopenActivationForward)(
            handle,
            act,
            (&alpha as *const f32).cast(),
            desc,
            xp,
            (&beta as *const f32).cast(),
            desc,
            yp
        ));
        // SAFETY: a live stream.
        assert_eq!(unsafe { (hip().hipStreamSynchronize)(stream) }, hipError_t::hipSuccess);
        let got: Vec<f32> = download(yp, 12);
        let want: Vec<f64> = x.iter().map(|v| reference(f64::from(*v), a, b, g)).collect();
        assert_close(&got, &want, &format!("activation {mode:?}"));
        mi_ok!((dnn().miopenDestroyActivationDescriptor)(act));
    }
    mi_ok!((dnn().miopenDestroyTensorDescriptor)(desc));
    free(xp);
    free(yp);
    mi_ok!((dnn().miopenDestroy)(handle));
    // SAFETY: a live stream, destroyed once.
    assert_eq!(unsafe { (hip().hipStreamDestroy)(stream) }, hipError_t::hipSuccess);
    finish();
}

#[test]
fn convolution_matches_direct_loops() {
    let _g = start();
    let handle = dnn_handle();
    let mut version = (0usize, 0usize, 0usize);
    mi_ok!((dnn().miopenGetVersion)(&mut version.0, &mut version.1, null_mut()));
    assert_eq!((version.0, version.1), (3, 1));
    // (pad, stride, dilation) for (h, w).
    for (pad, stride, dil) in [((0, 0), (1, 1), (1, 1)), ((1, 2), (2, 1), (1, 2)), ((2, 1), (1, 3), (2, 1))] {
        let (n, c, h, w, k, r, s) = (2usize, 3usize, 7usize, 8usize, 4usize, 3usize, 2usize);
        let xd = tensor::<f32>([n as i32, c as i32, h as i32, w as i32]);
        let wd = tensor::<f32>([k as i32, c as i32, r as i32, s as i32]);
        let mut conv = null_mut();
        mi_ok!((dnn().miopenCreateConvolutionDescriptor)(&mut conv));
        mi_ok!((dnn().miopenInitConvolutionDescriptor)(
            conv,
            miopenConvolutionMode_t::miopenConvolution,
            pad.0,
            pad.1,
            stride.0,
            stride.1,
            dil.0,
            dil.1
        ));
        let mut out = [0i32; 4];
        mi_ok!((dnn().miopenGetConvolutionForwardOutputDim)(
            conv,
            xd,
            wd,
            &mut out[0],
            &mut out[1],
            &mut out[2],
            &mut out[3]
        ));
        let oh = (h + 2 * pad.0 as usize - dil.0 as usize * (r - 1) - 1) / stride.0 as usize + 1;
        let ow = (w + 2 * pad.1 as usize - dil.1 as usize * (s - 1) - 1) / stride.1 as usize + 1;
        assert_eq!(out, [n as i32, k as i32, oh as i32, ow as i32]);
        let yd = tensor::<f32>(out);
        let mut ws_size = 0;
        mi_ok!((dnn().miopenConvolutionForwardGetWorkSpaceSize)(handle, wd, xd, conv, yd, &mut ws_size));
        // MIOpen's im2col buffer of one image: C × R × S × output pixels, floats.
        assert_eq!(ws_size, 4 * c * r * s * oh * ow);
        let workspace = malloc(ws_size);
        let x: Vec<f32> = values(n * c * h * w, 31).iter().map(|v| *v as f32).collect();
        let wv: Vec<f32> = values(k * c * r * s, 32).iter().map(|v| *v as f32).collect();
        let y0: Vec<f32> = values(n * k * oh * ow, 33).iter().map(|v| *v as f32).collect();
        let (xp, wp, yp) = (upload(&x), upload(&wv), upload(&y0));
        let mut perf = [miopenConvAlgoPerf_t {
            algo: miopenConvAlgoPerf_algo { fwd_algo: miopenConvFwdAlgorithm_t::miopenConvolutionFwdAlgoDirect },
            time: 0.0,
            memory: 99,
        }; 2];
        let mut returned = 0;
        let find = |handle, workspace: *mut c_void, size: usize, perf: *mut miopenConvAlgoPerf_t, returned| {
            status!((dnn().miopenFindConvolutionForwardAlgorithm)(
                handle, xd, xp, wd, wp, conv, yd, yp, 2, returned, perf, workspace, size, false
            ))
        };
        // The workspace pointer and size are both zero or both not.
        assert_eq!(
            find(handle, null_mut(), ws_size, perf.as_mut_ptr(), &mut returned),
            miopenStatus_t::miopenStatusBadParm
        );
        assert_eq!(find(handle, workspace, 0, perf.as_mut_ptr(), &mut returned), miopenStatus_t::miopenStatusBadParm);
        assert_eq!(
            find(handle, workspace, ws_size, perf.as_mut_ptr(), &mut returned),
            miopenStatus_t::miopenStatusSuccess
        );
        assert_eq!(returned, 1);
        // SAFETY: the simulator wrote the forward member.
        let found = unsafe { perf[0].algo.fwd_algo };
        assert_eq!(found, miopenConvFwdAlgorithm_t::miopenConvolutionFwdAlgoGEMM);
        assert!(perf[0].time > 0.0 && perf[0].memory == ws_size);
        let forward = |handle, alpha: f32, beta: f32, workspace, size| {
            status!((dnn().miopenConvolutionForward)(
                handle,
                (&alpha as *const f32).cast(),
                xd,
                xp,
                wd,
                wp,
                conv,
                found,
                (&beta as *const f32).cast(),
                yd,
                yp,
                workspace,
                size
            ))
        };
        // MIOpen's 2-d forward convolution takes only alpha 1 and beta 0.
        assert_eq!(forward(handle, 1.5, 0.0, workspace, ws_size), miopenStatus_t::miopenStatusNotImplemented);
        assert_eq!(forward(handle, 1.0, -1.0, workspace, ws_size), miopenStatus_t::miopenStatusNotImplemented);
        // Another handle never searched: MIOpen has no invoker there.
        let other = dnn_handle();
        assert_eq!(forward(other, 1.0, 0.0, workspace, ws_size), miopenStatus_t::miopenStatusUnknownError);
        mi_ok!((dnn().miopenDestroy)(other));
        assert_eq!(forward(handle, 1.0, 0.0, null_mut(), ws_size), miopenStatus_t::miopenStatusBadParm);
        assert_eq!(forward(handle, 1.0, 0.0, workspace, ws_size), miopenStatus_t::miopenStatusSuccess);
        free(workspace);
        let got: Vec<f32> = download(yp, n * k * oh * ow);
        let mut want = vec![0.0f64; n * k * oh * ow];
        for ni in 0..n {
            for ki in 0..k {
                for oy in 0..oh {
                    for ox in 0..ow {
                        let mut acc = 0.0f64;
                        for ci in 0..c {
                            for ry in 0..r {
                                for sx in 0..s {
                                    let iy = (oy * stride.0 as usize + ry * dil.0 as usize) as isize - pad.0 as isize;
                                    let ix = (ox * stride.1 as usize + sx * dil.1 as usize) as isize - pad.1 as isize;
                                    if iy >= 0 && ix >= 0 && (iy as usize) < h && (ix as usize) < w {
                                        acc += x[((ni * c + ci) * h + iy as usize) * w + ix as usize] as f64
                                            * wv[((ki * c + ci) * r + ry) * s + sx] as f64;
                                    }
                                }
                            }
                        }
                        let at = ((ni * k + ki) * oh + oy) * ow + ox;
                        want[at] = acc;
                    }
                }
            }
        }
        assert_close(&got, &want, &format!("convolution pad {pad:?} stride {stride:?} dilation {dil:?}"));
        for d in [xd, wd, yd] {
            mi_ok!((dnn().miopenDestroyTensorDescriptor)(d));
        }
        mi_ok!((dnn().miopenDestroyConvolutionDescriptor)(conv));
        [xp, wp, yp].into_iter().for_each(free);
    }
    mi_ok!((dnn().miopenDestroy)(handle));
    finish();
}

#[test]
fn miopen_bad_input_gives_miopen_errors() {
    let _g = start();
    let m = dnn();
    let bad = miopenStatus_t::miopenStatusBadParm;
    assert_eq!(status!((m.miopenCreate)(null_mut())), bad);
    assert_eq!(status!((m.miopenDestroy)(null_mut())), bad);
    let handle = dnn_handle();
    let mut d = null_mut();
    mi_ok!((m.miopenCreateTensorDescriptor)(&mut d));
    assert_eq!(status!((m.miopenSet4dTensorDescriptor)(d, miopenDataType_t::miopenFloat, 0, 1, 1, 1)), bad);
    assert_eq!(
        status!((m.miopenSet4dTensorDescriptor)(d, miopenDataType_t::miopenHalf, 1, 1, 1, 1)),
        miopenStatus_t::miopenStatusNotImplemented
    );
    mi_ok!((m.miopenSet4dTensorDescriptor)(d, miopenDataType_t::miopenFloat, 1, 2, 3, 4));
    let other = tensor::<f32>([1, 2, 3, 5]);
    let p = malloc(4 * 30);
    let one = 1.0f32;
    let one = (&one as *const f32).cast::<c_void>();
    let accurate = miopenSoftmaxAlgorithm_t::MIOPEN_SOFTMAX_ACCURATE;
    let channel = miopenSoftmaxMode_t::MIOPEN_SOFTMAX_MODE_CHANNEL;
    // Shapes differ, a scalar is null, an algorithm is unknown.
    assert_eq!(status!((m.miopenSoftmaxForward_V2)(handle, one, d, p, one, other, p, accurate, channel)), bad);
    assert_eq!(status!((m.miopenSoftmaxForward_V2)(handle, null(), d, p, one, d, p, accurate, channel)), bad);
    let unknown = miopenSoftmaxAlgorithm_t(7);
    assert_eq!(status!((m.miopenSoftmaxForward_V2)(handle, one, d, p, one, d, p, unknown, channel)), bad);
    let mut conv = null_mut();
    mi_ok!((m.miopenCreateConvolutionDescriptor)(&mut conv));
    let mode = miopenConvolutionMode_t::miopenConvolution;
    assert_eq!(status!((m.miopenInitConvolutionDescriptor)(conv, mode, -1, 0, 1, 1, 1, 1)), bad);
    assert_eq!(status!((m.miopenInitConvolutionDescriptor)(conv, mode, 0, 0, 0, 1, 1, 1)), bad);
    assert_eq!(
        status!((m.miopenInitConvolutionDescriptor)(conv, miopenConvolutionMode_t::miopenTranspose, 0, 0, 1, 1, 1, 1)),
        miopenStatus_t::miopenStatusNotImplemented
    );
    // A filter wider than the padded input.
    mi_ok!((m.miopenInitConvolutionDescriptor)(conv, mode, 0, 0, 1, 1, 1, 1));
    let filter = tensor::<f32>([1, 2, 1, 9]);
    let mut out = [0i32; 4];
    assert_eq!(
        status!((m.miopenGetConvolutionForwardOutputDim)(
            conv,
            d,
            filter,
            &mut out[0],
            &mut out[1],
            &mut out[2],
            &mut out[3]
        )),
        bad
    );
    for t in [d, other, filter] {
        mi_ok!((m.miopenDestroyTensorDescriptor)(t));
    }
    assert_eq!(status!((m.miopenDestroyTensorDescriptor)(d)), bad);
    mi_ok!((m.miopenDestroyConvolutionDescriptor)(conv));
    free(p);
    mi_ok!((m.miopenDestroy)(handle));
    finish();
}

#[test]
fn the_process_tables_are_the_simulators_on_the_sim_backend() {
    let _g = start();
    if hip_sys::backend() != hip_sys::Backend::Sim {
        eprintln!("skipped: the process's backend is {}, not sim", hip_sys::backend());
        return;
    }
    assert!(std::ptr::eq(hip_sys::rocsparse().expect("sim rocSPARSE"), sim::rocsparse_api()));
    assert!(std::ptr::eq(hip_sys::rocfft().expect("sim rocFFT"), sim::rocfft_api()));
    assert!(std::ptr::eq(hip_sys::miopen().expect("sim MIOpen"), sim::miopen_api()));
    for library in hip_sys::Library::ALL {
        assert!(hip_sys::available(library), "{library}");
    }
    finish();
}
