//! The MIOpen statuses the simulator answers with.

use crate::bindings::miopen::miopenStatus_t;

pub(super) type Status = miopenStatus_t;
pub(super) const OK: Status = miopenStatus_t::miopenStatusSuccess;
pub(super) const BAD_PARM: Status = miopenStatus_t::miopenStatusBadParm;
pub(super) const INTERNAL: Status = miopenStatus_t::miopenStatusInternalError;
pub(super) const NOT_IMPLEMENTED: Status = miopenStatus_t::miopenStatusNotImplemented;
pub(super) const UNKNOWN: Status = miopenStatus_t::miopenStatusUnknownError;
