//! rocSPARSE over cuSPARSE: the nvidia backend's [`RocsparseApi`](crate::rocsparse::RocsparseApi).
//!
//! As hipSPARSE does for NVIDIA, each rocSPARSE entry point the wrappers
//! use is a Rust function over cuSPARSE's generic API (`libcusparse.so.12`,
//! `.11`, loaded at run time).
//!
//! # The mapping
//!
//! - **Handles and descriptors** are cuSPARSE's own, passed through as
//!   rocSPARSE's opaque pointers. A handle belongs to the device current at
//!   `cusparseCreate`, as a rocSPARSE handle does; its stream and pointer
//!   mode are cuSPARSE's.
//! - **Enums** are translated: operations (111, 112, 113 to 0, 1, 2), data
//!   types (`f32_r` 151 to `CUDA_R_32F` 0, `f64_r` 152 to `CUDA_R_64F` 1,
//!   `f32_c` 154 to `CUDA_C_32F` 4, `f64_c` 155 to `CUDA_C_64F` 5), dense
//!   orders (row 0 to `CUSPARSE_ORDER_ROW` 2, column 1 to
//!   `CUSPARSE_ORDER_COL` 1). Index types, index bases and pointer modes
//!   have the same numbers. Statuses map to the rocSPARSE status of the
//!   same meaning, with cuSPARSE's name in the log.
//! - **Stages** are those of rocSPARSE 3.x (ROCm 6 and 7), the version
//!   `rocsparse_get_version` reports (3.0.0): buffer size, preprocess and
//!   compute go to `cusparseSpMV_bufferSize`, `cusparseSpMV_preprocess`
//!   and `cusparseSpMV` (likewise for SpMM); the `auto` stage, which 3.x
//!   removed, is `rocsparse_status_invalid_value`. cuSPARSE before 12.4
//!   has no `cusparseSpMV_preprocess`: there the stage succeeds and does
//!   nothing (compute needs no analysis). The unstaged `rocsparse_spmv` of
//!   the 5.7 bindings sizes the buffer when it is null and computes
//!   otherwise, as rocSPARSE 2.x's did.
//! - **Algorithms**: only the default ones are mapped; any other is
//!   `rocsparse_status_not_implemented` rather than a different algorithm.
//!
//! # Differences from rocSPARSE
//!
//! cuSPARSE needs no preprocess before compute (rocSPARSE falls back to a
//! slower kernel without it), and its buffer sizes differ; neither changes
//! a result. The simulator stays the strictest of the three.

mod descriptors;
mod enums;
mod handles;
mod library;
mod products;
mod status;
mod table;

pub(crate) use library::candidates;
pub(crate) use table::load;
