//! The simulator's rocSPARSE against reference loops: SpMV and SpMM
//! against dense products in every base, operation and order, its errors,
//! and its work in stream order.
//! Every test holds `sim::exclusive()`: violations, memory and library
//! objects are process-wide, and each test checks it left none behind.
//!
//! Tolerances: results are compared with a relative tolerance of 1e-4 for
//! single precision and 1e-10 for double precision, scaled by the size of
//! the values involved (the references compute in double precision; the
//! simulator computes single precision in single precision).

mod common;
use common::libs::*;
use common::rocsparse::*;
use common::status;
use hip_sys::bindings::hip::{hipError_t, hipMemcpyKind, hipStream_t};
use hip_sys::rocsparse::*;
use hip_sys::sim;
use std::ffi::c_void;
use std::ptr::null_mut;

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
