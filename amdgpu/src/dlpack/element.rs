//! Which Rust element types are which DLPack dtypes.

use crate::DeviceCopy;
use hip_sys::dlpack::{DLDataType, DLDataTypeCode};

/// An element type with a DLPack dtype: the one a tensor of it has, and
/// the one a tensor must have to be taken as an array of it.
pub trait DlPackElement: DeviceCopy {
    /// The dtype (`code`, `bits`, one lane).
    const DTYPE: DLDataType;
}

/// A DLPack boolean (`kDLBool`, one byte: 0 false, 1 true), for tensors
/// of `torch.bool` and the like; `bool` itself cannot be a device element
/// (any byte but 0 and 1 would be undefined behaviour).
#[repr(transparent)]
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, bytemuck::Pod, bytemuck::Zeroable)]
pub struct DlBool(pub u8);

impl DlBool {
    /// The value: any byte but 0 is true.
    pub fn get(self) -> bool {
        self.0 != 0
    }
}

impl From<bool> for DlBool {
    fn from(value: bool) -> Self {
        DlBool(u8::from(value))
    }
}

const fn dtype(code: DLDataTypeCode, bits: u8) -> DLDataType {
    DLDataType { code: code.0, bits, lanes: 1 }
}

/// One impl a type: its code and its bits.
macro_rules! elements {
    ($($t:ty => $code:ident, $bits:expr;)*) => {$(
        impl DlPackElement for $t {
            const DTYPE: DLDataType = dtype(DLDataTypeCode::$code, $bits);
        }
    )*};
}

elements! {
    i8 => kDLInt, 8; i16 => kDLInt, 16; i32 => kDLInt, 32; i64 => kDLInt, 64;
    u8 => kDLUInt, 8; u16 => kDLUInt, 16; u32 => kDLUInt, 32; u64 => kDLUInt, 64;
    half::f16 => kDLFloat, 16; f32 => kDLFloat, 32; f64 => kDLFloat, 64;
    half::bf16 => kDLBfloat, 16;
    [f32; 2] => kDLComplex, 64; [f64; 2] => kDLComplex, 128;
    DlBool => kDLBool, 8;
}
