//! The simulator's RCCL table.

use super::calls::*;
use crate::bindings::rccl::RcclApi;

/// The simulator's RCCL table.
pub(crate) static SIM_RCCL: RcclApi = RcclApi {
    ncclGetVersion,
    ncclGetUniqueId,
    ncclCommInitRank,
    ncclCommInitRankMulti,
    ncclCommInitAll,
    ncclCommDestroy,
    ncclCommAbort,
    ncclGetErrorString,
    ncclGetLastError,
    ncclCommGetAsyncError,
    ncclCommCount,
    ncclCommCuDevice,
    ncclCommUserRank,
    ncclRedOpCreatePreMulSum,
    ncclRedOpDestroy,
    ncclReduce,
    ncclBroadcast,
    ncclAllReduce,
    ncclReduceScatter,
    ncclAllGather,
    ncclSend,
    ncclRecv,
    ncclGroupStart,
    ncclGroupEnd,
};
