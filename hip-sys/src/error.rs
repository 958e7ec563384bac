//! Errors of backend selection and library loading.

/// Why a backend or library could not be used (placeholder, being written).
#[derive(Debug)]
pub enum BackendError {}
