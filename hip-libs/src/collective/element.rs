//! The element types the collectives move and reduce, and the reductions.

use super::raw;
use hip_sys::rccl::{ncclComm_t, ncclDataType_t, ncclRedOp_t, ncclResult_t, RcclApi};

mod sealed {
    pub trait Sealed {}
    impl Sealed for i8 {}
    impl Sealed for u8 {}
    impl Sealed for i32 {}
    impl Sealed for u32 {}
    impl Sealed for i64 {}
    impl Sealed for u64 {}
    impl Sealed for half::f16 {}
    impl Sealed for f32 {}
    impl Sealed for f64 {}
    impl Sealed for half::bf16 {}
}

/// An element type of the collectives: NCCL's ten, `i8`, `u8`, `i32`,
/// `u32`, `i64`, `u64`, `f16`, `f32`, `f64` and `bf16` (the 16-bit
/// floats of the `half` crate).
pub trait CollectiveElement: Copy + Send + Sync + 'static + sealed::Sealed {
    /// NCCL's `ncclDataType_t` of the type.
    const DATATYPE: ncclDataType_t;
    /// The type's name, for messages.
    const NAME: &'static str;
}

macro_rules! element {
    ($($t:ty => $c:ident, $name:literal;)*) => {$(
        impl CollectiveElement for $t {
            const DATATYPE: ncclDataType_t = ncclDataType_t::$c;
            const NAME: &'static str = $name;
        }
    )*};
}

element! {
    i8 => ncclInt8, "i8";
    u8 => ncclUint8, "u8";
    i32 => ncclInt32, "i32";
    u32 => ncclUint32, "u32";
    i64 => ncclInt64, "i64";
    u64 => ncclUint64, "u64";
    half::f16 => ncclFloat16, "f16";
    f32 => ncclFloat32, "f32";
    f64 => ncclFloat64, "f64";
    half::bf16 => ncclBfloat16, "bf16";
}

/// How a reduction combines the ranks' elements (`ncclRedOp_t`).
///
/// Integers wrap on overflow. [`Avg`](ReduceOp::Avg) divides integers'
/// sum by the rank count (truncating), and multiplies each float by
/// `1/n` before summing (NCCL's pre-multiplied sum), so a float average
/// rounds differently from a sum divided afterwards.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ReduceOp {
    /// The sum (`ncclSum`).
    Sum,
    /// The product (`ncclProd`).
    Prod,
    /// The largest (`ncclMax`); for floats a NaN loses, as `fmax`.
    Max,
    /// The smallest (`ncclMin`); for floats a NaN loses, as `fmin`.
    Min,
    /// The mean over the ranks (`ncclAvg`).
    Avg,
}

impl ReduceOp {
    pub(crate) fn raw(self) -> ncclRedOp_t {
        match self {
            ReduceOp::Sum => ncclRedOp_t::ncclSum,
            ReduceOp::Prod => ncclRedOp_t::ncclProd,
            ReduceOp::Max => ncclRedOp_t::ncclMax,
            ReduceOp::Min => ncclRedOp_t::ncclMin,
            ReduceOp::Avg => ncclRedOp_t::ncclAvg,
        }
    }
}

/// The reduction of one call: a built-in [`ReduceOp`], or a sum of the
/// ranks' elements each multiplied first by this rank's scalar
/// (`ncclRedOpCreatePreMulSum`). Every reducing operation takes either,
/// so a `ReduceOp` can be passed as it is.
///
/// Each rank gives its own scalar: a weighted sum over the ranks, or a
/// mean over a count the built-in [`Avg`](ReduceOp::Avg) does not know
/// (PyTorch's gradient pre-division). The scalar is of the element type
/// and read when the call is made, so a later change of the caller's
/// value does not reach a queued collective.
///
/// # Examples
/// ```
/// use hip_libs::collective::{Communicator, Reduction};
/// # fn mean(comm: &Communicator, grads: &mut impl hip_libs::DeviceDataMut<f32>, samples: usize) -> hip_libs::Result<()> {
/// // The mean over every rank's samples, whatever the ranks' counts.
/// let scale = 1.0 / (samples * comm.size()) as f32;
/// comm.all_reduce_in_place(grads, Reduction::PreMulSum(scale))?;
/// # Ok(()) }
/// ```
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Reduction<T> {
    /// A built-in reduction.
    Op(ReduceOp),
    /// The sum of each rank's elements times its scalar.
    #[doc(alias = "ncclRedOpCreatePreMulSum")]
    PreMulSum(T),
}

impl<T> From<ReduceOp> for Reduction<T> {
    fn from(op: ReduceOp) -> Self {
        Reduction::Op(op)
    }
}

impl<T: CollectiveElement> Reduction<T> {
    /// Make `call` with this reduction's `ncclRedOp_t`: a pre-multiplied
    /// sum is made on `comm` before and destroyed after (NCCL allows that
    /// once the call has returned, also inside a group).
    pub(crate) fn with_raw(
        self,
        api: &RcclApi,
        comm: ncclComm_t,
        call: impl FnOnce(ncclRedOp_t) -> ncclResult_t,
    ) -> ncclResult_t {
        let scalar = match self {
            Reduction::Op(op) => return call(op.raw()),
            Reduction::PreMulSum(scalar) => scalar,
        };
        let mut op = ncclRedOp_t(0);
        // SAFETY: `scalar` is one element of `T::DATATYPE`, on the host
        // for the whole call; `comm` is the caller's live communicator.
        let made =
            unsafe { raw::red_op_create_pre_mul_sum(api, &mut op, (&raw const scalar).cast(), T::DATATYPE, comm) };
        if made != ncclResult_t::ncclSuccess {
            return made;
        }
        let result = call(op);
        // SAFETY: made above on `comm`; the call given it has returned.
        let destroyed = unsafe { raw::red_op_destroy(api, op, comm) };
        if result == ncclResult_t::ncclSuccess {
            destroyed
        } else {
            result
        }
    }
}
