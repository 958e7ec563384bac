//! The element types the collectives move and reduce, and the reductions.

use hip_sys::rccl::{ncclDataType_t, ncclRedOp_t};

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
