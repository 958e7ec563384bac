//! The simulator's rocRAND table.

use super::generate::*;
use super::generator::*;
use crate::bindings::rocrand::RocrandApi;

/// The simulator's rocRAND table.
pub(crate) static SIM_ROCRAND: RocrandApi = RocrandApi {
    rocrand_get_version,
    rocrand_create_generator,
    rocrand_destroy_generator,
    rocrand_set_stream,
    rocrand_set_seed,
    rocrand_set_offset,
    rocrand_set_ordering,
    rocrand_initialize_generator,
    rocrand_generate,
    rocrand_generate_uniform,
    rocrand_generate_uniform_double,
    rocrand_generate_normal,
    rocrand_generate_normal_double,
    rocrand_generate_log_normal,
    rocrand_generate_log_normal_double,
    rocrand_generate_poisson,
};
