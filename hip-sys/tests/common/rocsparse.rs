//! rocSPARSE helpers of the library tests: the simulator's table, calls
//! checked by name, and the example matrix and vectors on the device.

use super::libs::{free, upload, Num};
use hip_sys::rocsparse::*;
use hip_sys::sim;
use std::ffi::c_void;
use std::ptr::null_mut;

/// The simulator's rocSPARSE table.
pub fn sparse() -> &'static RocsparseApi {
    sim::rocsparse_api()
}

/// Assert a rocSPARSE call succeeded, naming it.
macro_rules! sp_ok {
    ($call:expr) => {{
        // SAFETY: each call site passes valid arguments for the C function.
        let status = unsafe { $call };
        assert_eq!(status, hip_sys::rocsparse::rocsparse_status::rocsparse_status_success, "{}", stringify!($call));
    }};
}
pub(crate) use sp_ok;

/// A dense 5 × 4 matrix with some zeros, and its CSR form with `base`.
pub fn csr_example(base: i32) -> (Vec<Vec<f64>>, Vec<i32>, Vec<i32>, Vec<f64>) {
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

/// The rocSPARSE data type of `T`.
pub fn datatype<T: Num>() -> rocsparse_datatype {
    if std::mem::size_of::<T>() == 4 {
        rocsparse_datatype::rocsparse_datatype_f32_r
    } else {
        rocsparse_datatype::rocsparse_datatype_f64_r
    }
}

/// The device arrays and descriptor of the example matrix.
pub struct Csr {
    /// The CSR descriptor.
    pub descr: rocsparse_spmat_descr,
    /// The row offsets, column indices and values.
    pub arrays: [*mut c_void; 3],
    /// The matrix dense, row by row.
    pub dense: Vec<Vec<f64>>,
}

impl Csr {
    /// The example matrix with index base `base`, its values as `T`.
    pub fn new<T: Num>(base: i32) -> Csr {
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

    /// Destroy the descriptor and free the arrays.
    pub fn destroy(self) {
        sp_ok!((sparse().rocsparse_destroy_spmat_descr)(self.descr));
        self.arrays.into_iter().for_each(free);
    }
}

/// A dense vector of `values` as `T` on the device: its descriptor and array.
pub fn dnvec<T: Num>(values: &[f64]) -> (rocsparse_dnvec_descr, *mut c_void) {
    let host: Vec<T> = values.iter().map(|v| T::from_f64(*v)).collect();
    let p = upload(&host);
    let mut d = null_mut();
    sp_ok!((sparse().rocsparse_create_dnvec_descr)(&mut d, values.len() as i64, p, datatype::<T>()));
    (d, p)
}

/// A new rocSPARSE handle.
pub fn create_handle() -> rocsparse_handle {
    let mut h = null_mut();
    sp_ok!((sparse().rocsparse_create_handle)(&mut h));
    h
}
