//! rocSPARSE's enums as cuSPARSE's numbers.

use std::ffi::c_int;

use crate::rocsparse::{
    rocsparse_datatype, rocsparse_indextype, rocsparse_operation, rocsparse_order, rocsparse_spmm_alg,
    rocsparse_spmv_alg, rocsparse_status,
};

/// `rocsparse_operation` as `cusparseOperation_t`.
pub(super) fn operation(op: rocsparse_operation) -> Result<c_int, rocsparse_status> {
    match op {
        rocsparse_operation::rocsparse_operation_none => Ok(0),
        rocsparse_operation::rocsparse_operation_transpose => Ok(1),
        rocsparse_operation::rocsparse_operation_conjugate_transpose => Ok(2),
        _ => Err(rocsparse_status::rocsparse_status_invalid_value),
    }
}

/// `rocsparse_datatype` as `cudaDataType` (the floating types cuSPARSE's
/// SpMV and SpMM take).
pub(super) fn datatype(t: rocsparse_datatype) -> Result<c_int, rocsparse_status> {
    match t {
        rocsparse_datatype::rocsparse_datatype_f32_r => Ok(0),
        rocsparse_datatype::rocsparse_datatype_f64_r => Ok(1),
        rocsparse_datatype::rocsparse_datatype_f32_c => Ok(4),
        rocsparse_datatype::rocsparse_datatype_f64_c => Ok(5),
        _ => Err(rocsparse_status::rocsparse_status_not_implemented),
    }
}

/// `rocsparse_order` as `cusparseOrder_t`.
pub(super) fn order(o: rocsparse_order) -> Result<c_int, rocsparse_status> {
    match o {
        rocsparse_order::rocsparse_order_row => Ok(2),
        rocsparse_order::rocsparse_order_column => Ok(1),
        _ => Err(rocsparse_status::rocsparse_status_invalid_value),
    }
}

/// `rocsparse_indextype` as `cusparseIndexType_t` (same numbers).
pub(super) fn indextype(t: rocsparse_indextype) -> Result<c_int, rocsparse_status> {
    match t.0 {
        1..=3 => Ok(t.0 as c_int),
        _ => Err(rocsparse_status::rocsparse_status_invalid_value),
    }
}

/// Only the default algorithms are mapped.
pub(super) fn default_spmv_alg(alg: rocsparse_spmv_alg) -> Result<c_int, rocsparse_status> {
    if alg == rocsparse_spmv_alg::rocsparse_spmv_alg_default {
        Ok(0) // CUSPARSE_SPMV_ALG_DEFAULT
    } else {
        log::error!("rocSPARSE over cuSPARSE: SpMV algorithm {} is not mapped; use the default", alg.0);
        Err(rocsparse_status::rocsparse_status_not_implemented)
    }
}

pub(super) fn default_spmm_alg(alg: rocsparse_spmm_alg) -> Result<c_int, rocsparse_status> {
    if alg == rocsparse_spmm_alg::rocsparse_spmm_alg_default {
        Ok(0) // CUSPARSE_SPMM_ALG_DEFAULT
    } else {
        log::error!("rocSPARSE over cuSPARSE: SpMM algorithm {} is not mapped; use the default", alg.0);
        Err(rocsparse_status::rocsparse_status_not_implemented)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn enums_translate_to_cusparses_numbers() {
        assert_eq!(operation(rocsparse_operation::rocsparse_operation_none), Ok(0));
        assert_eq!(operation(rocsparse_operation::rocsparse_operation_transpose), Ok(1));
        assert_eq!(operation(rocsparse_operation::rocsparse_operation_conjugate_transpose), Ok(2));
        assert_eq!(operation(rocsparse_operation(0)), Err(rocsparse_status::rocsparse_status_invalid_value));
        assert_eq!(datatype(rocsparse_datatype::rocsparse_datatype_f32_r), Ok(0));
        assert_eq!(datatype(rocsparse_datatype::rocsparse_datatype_f64_r), Ok(1));
        assert_eq!(datatype(rocsparse_datatype::rocsparse_datatype_f32_c), Ok(4));
        assert_eq!(datatype(rocsparse_datatype::rocsparse_datatype_f64_c), Ok(5));
        assert_eq!(
            datatype(rocsparse_datatype::rocsparse_datatype_i8_r),
            Err(rocsparse_status::rocsparse_status_not_implemented)
        );
        assert_eq!(order(rocsparse_order::rocsparse_order_row), Ok(2));
        assert_eq!(order(rocsparse_order::rocsparse_order_column), Ok(1));
        assert_eq!(indextype(rocsparse_indextype::rocsparse_indextype_i32), Ok(2));
        assert_eq!(indextype(rocsparse_indextype(9)), Err(rocsparse_status::rocsparse_status_invalid_value));
    }

    #[test]
    fn only_default_algorithms_are_mapped() {
        assert_eq!(default_spmv_alg(rocsparse_spmv_alg::rocsparse_spmv_alg_default), Ok(0));
        assert!(default_spmv_alg(rocsparse_spmv_alg::rocsparse_spmv_alg_csr_adaptive).is_err());
        assert_eq!(default_spmm_alg(rocsparse_spmm_alg::rocsparse_spmm_alg_default), Ok(0));
        assert!(default_spmm_alg(rocsparse_spmm_alg::rocsparse_spmm_alg_csr).is_err());
    }
}
