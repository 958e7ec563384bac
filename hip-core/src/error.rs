//! Errors of the safe HIP layer: [`HipError`], [`CompileError`] and
//! [`check`], which turns a HIP status into a `Result`.
//!
//! This module sits at the bottom of the crate: it needs `Device` and
//! [`DeviceMismatch`] as plain types only. HIP's name and description of a
//! code (asked when an error is displayed) come from
//! [`hip_sys::status_text`], so the crate's one door to C stays `raw`.

use crate::DeviceMismatch;
use hip_sys::hiprtc::hiprtcResult;
use hip_sys::{hipError_t, BackendError};

/// The result of a HIP operation.
pub type Result<T, E = HipError> = std::result::Result<T, E>;

/// Why a HIP operation failed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum HipError {
    /// A HIP call returned an error code. HIP's name and description of
    /// the code are looked up when the error is displayed.
    #[error("{operation} failed: {} ({}): {}", self.name(), code.0, self.description())]
    Call {
        /// HIP's code, kept as returned (unknown codes too).
        code: hipError_t,
        /// The operation that failed, e.g. `hipMalloc`.
        operation: &'static str,
    },
    /// A device ordinal that does not exist.
    #[error("invalid device ordinal {ordinal}: this machine has {count} device(s) (ordinals 0..{count})")]
    InvalidDevice {
        /// The ordinal asked for.
        ordinal: usize,
        /// How many devices there are.
        count: usize,
    },
    /// An operand on another device than the operation's: the one place
    /// where every crate reports a mismatch (see [`DeviceMismatch`]).
    #[error(transparent)]
    DeviceMismatch(#[from] DeviceMismatch),
    /// Peer access that the hardware does not offer.
    #[error(
        "device {device} cannot access the memory of device {peer} directly (hipDeviceCanAccessPeer says no): \
         there is no peer-to-peer path between them; copies between them still work, staged by the runtime \
         (or copy through pinned host memory)"
    )]
    PeerAccessUnsupported {
        /// The device that would gain access.
        device: u32,
        /// The device whose memory it would reach.
        peer: u32,
    },
    /// A runtime compilation (hipRTC, NVRTC on nvidia) failed; the error
    /// carries the compiler's log (boxed, as below).
    #[error(transparent)]
    Compile(Box<CompileError>),
    /// A launch configuration the device cannot run, found before the
    /// launch: the message names the value and the device's limit.
    #[error("{0}")]
    InvalidLaunch(Box<str>),
    /// `hipGraphExecUpdate` refused a graph: it does not have the shape of
    /// the executable graph's (instantiate it instead).
    #[error(
        "the graph cannot update this executable graph: {0} (hipErrorGraphExecUpdateFailure); \
         instantiate the new graph instead"
    )]
    GraphUpdate(GraphUpdateRefusal),
    /// A call that a stream capture forbids (it would synchronize, free or
    /// allocate through the driver, or make what the capture needs)
    /// was made while one is underway; refused before HIP, so the capture
    /// stays valid.
    #[error(
        "{operation} cannot run during a stream capture: {why}; \
         do it before the capture begins or after it ends"
    )]
    CaptureUnderway {
        /// What was refused (`"Pool::reclaim"`, `"DeviceArray::to_vec"`).
        operation: &'static str,
        /// What it would have done to the capture.
        why: &'static str,
    },
    /// Work that would touch host memory the host is using: a graph
    /// replay whose captured copies would write pinned host memory under a
    /// live view of it, or read it while the host writes it. Refused before
    /// anything is enqueued.
    #[error("{operation} refused: {why}; drop the host view before launching (a refusal, not a failure: nothing ran)")]
    HostBorrowed {
        /// What was refused (`"GraphExec::launch"`).
        operation: &'static str,
        /// Which borrow it met.
        why: &'static str,
    },
    /// No backend could be loaded (boxed: errors stay small, so results
    /// on hot paths stay cheap to return).
    #[error(transparent)]
    Backend(Box<BackendError>),
}

impl From<BackendError> for HipError {
    fn from(error: BackendError) -> Self {
        HipError::Backend(Box::new(error))
    }
}

impl HipError {
    /// The HIP code, when a HIP call failed.
    pub fn code(&self) -> Option<hipError_t> {
        match self {
            HipError::Call { code, .. } => Some(*code),
            HipError::InvalidDevice { .. } => Some(hipError_t::hipErrorInvalidDevice),
            HipError::PeerAccessUnsupported { .. } => Some(hipError_t::hipErrorPeerAccessUnsupported),
            HipError::GraphUpdate(_) => Some(hipError_t::hipErrorGraphExecUpdateFailure),
            HipError::CaptureUnderway { .. } => Some(hipError_t::hipErrorStreamCaptureUnsupported),
            _ => None,
        }
    }

    /// HIP's name for the code (`hipErrorInvalidValue`), or a description
    /// of the error kind for errors that are not HIP codes.
    pub fn name(&self) -> String {
        match self {
            HipError::Call { code, .. } => error_text(*code).0,
            HipError::InvalidDevice { .. } => "hipErrorInvalidDevice".into(),
            HipError::DeviceMismatch(_) => "device mismatch".into(),
            HipError::PeerAccessUnsupported { .. } => "peer access unsupported".into(),
            HipError::Compile(error) => error.status_name().into(),
            HipError::InvalidLaunch(_) => "invalid launch configuration".into(),
            HipError::GraphUpdate(_) => "hipErrorGraphExecUpdateFailure".into(),
            HipError::CaptureUnderway { .. } => "refused during a capture".into(),
            HipError::HostBorrowed { .. } => "refused: host memory in use by the host".into(),
            HipError::Backend(_) => "no backend".into(),
        }
    }

    /// HIP's description of the code, or this error's message.
    pub fn description(&self) -> String {
        match self {
            HipError::Call { code, .. } => error_text(*code).1,
            other => other.to_string(),
        }
    }

    /// Whether this is HIP's out-of-memory error.
    pub fn is_out_of_memory(&self) -> bool {
        self.code() == Some(hipError_t::hipErrorOutOfMemory)
    }

    /// The device mismatch this error reports, if it is one.
    pub fn device_mismatch(&self) -> Option<&DeviceMismatch> {
        match self {
            HipError::DeviceMismatch(mismatch) => Some(mismatch),
            _ => None,
        }
    }
}

/// Turn a HIP status into a `Result`, naming `operation` on failure.
///
/// # Errors
/// [`HipError::Call`] with `status` and `operation` for every status but
/// `hipSuccess`.
pub fn check(status: hipError_t, operation: &'static str) -> Result<()> {
    if status == hipError_t::hipSuccess {
        return Ok(());
    }
    Err(HipError::Call { code: status, operation })
}

/// HIP's name and description of `status` (numbers when HIP has none),
/// from hip-sys, which makes the C calls.
fn error_text(status: hipError_t) -> (String, String) {
    hip_sys::status_text(status)
}

/// Why a runtime compilation failed: the hipRTC status, the operation,
/// the program's name, the architecture, and the compiler's log.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{operation} failed for program `{program}` ({target}): {}\n{log}", self.status_name())]
pub struct CompileError {
    /// The hipRTC call that failed (`hiprtcCompileProgram`).
    pub operation: &'static str,
    /// hipRTC's status.
    pub status: hiprtcResult,
    /// The program's name.
    pub program: String,
    /// The architecture it was compiled for.
    pub target: String,
    /// The compiler's log.
    pub log: String,
}

impl CompileError {
    /// hipRTC's name of the status (`HIPRTC_ERROR_COMPILATION`).
    pub fn status_name(&self) -> &'static str {
        hip_sys::hiprtc_status_name(self.status).unwrap_or("HIPRTC_ERROR_UNKNOWN")
    }
}

/// Why `hipGraphExecUpdate` refused a graph (`hipGraphExecUpdateResult`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum GraphUpdateRefusal {
    /// A different number of nodes, or different dependencies.
    TopologyChanged,
    /// A node of another kind (a copy where a kernel was).
    NodeTypeChanged,
    /// A kernel node runs another function.
    FunctionChanged,
    /// A node's parameters cannot change that way (a copy's direction).
    ParametersChanged,
    /// A change HIP cannot make in place.
    NotSupported,
    /// A kernel node's function changed in a way HIP cannot follow.
    UnsupportedFunctionChange,
    /// Another refusal (HIP's generic `hipGraphExecUpdateError`).
    Other,
}

impl std::fmt::Display for GraphUpdateRefusal {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            GraphUpdateRefusal::TopologyChanged => "the graphs differ in nodes or dependencies",
            GraphUpdateRefusal::NodeTypeChanged => "a node is of another kind",
            GraphUpdateRefusal::FunctionChanged => "a kernel node runs another function",
            GraphUpdateRefusal::ParametersChanged => "a node's parameters cannot change that way",
            GraphUpdateRefusal::NotSupported => "the change is not supported in place",
            GraphUpdateRefusal::UnsupportedFunctionChange => "a kernel node's function cannot change that way",
            GraphUpdateRefusal::Other => "HIP refused the update",
        })
    }
}

impl GraphUpdateRefusal {
    pub(crate) fn from_raw(result: hip_sys::hipGraphExecUpdateResult) -> Option<GraphUpdateRefusal> {
        use hip_sys::hipGraphExecUpdateResult as R;
        Some(match result {
            R::hipGraphExecUpdateSuccess => return None,
            R::hipGraphExecUpdateErrorTopologyChanged => GraphUpdateRefusal::TopologyChanged,
            R::hipGraphExecUpdateErrorNodeTypeChanged => GraphUpdateRefusal::NodeTypeChanged,
            R::hipGraphExecUpdateErrorFunctionChanged => GraphUpdateRefusal::FunctionChanged,
            R::hipGraphExecUpdateErrorParametersChanged => GraphUpdateRefusal::ParametersChanged,
            R::hipGraphExecUpdateErrorNotSupported => GraphUpdateRefusal::NotSupported,
            R::hipGraphExecUpdateErrorUnsupportedFunctionChange => GraphUpdateRefusal::UnsupportedFunctionChange,
            _ => GraphUpdateRefusal::Other,
        })
    }
}
