//! The element types and reductions of the collectives, on bytes: NCCL's
//! ten types, its five built-in operations and the pre-multiplied sums.
//!
//! Each step is computed in the element type, in rank order, as one
//! reduction kernel step is on a GPU: integers wrap, half and bfloat16
//! round to their type after every step. A GPU's ring or tree adds in
//! another order, so float results agree to rounding, integers exactly.

use crate::bindings::rccl::{ncclDataType_t, ncclRedOp_t};
use half::{bf16, f16};

/// One of NCCL's element types.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Element {
    I8,
    U8,
    I32,
    U32,
    I64,
    U64,
    F16,
    F32,
    F64,
    Bf16,
}

impl Element {
    /// The element type of `datatype`; `None` for a value NCCL 2.13 lacks.
    pub fn of(datatype: ncclDataType_t) -> Option<Element> {
        Some(match datatype.0 {
            0 => Element::I8,
            1 => Element::U8,
            2 => Element::I32,
            3 => Element::U32,
            4 => Element::I64,
            5 => Element::U64,
            6 => Element::F16,
            7 => Element::F32,
            8 => Element::F64,
            9 => Element::Bf16,
            _ => return None,
        })
    }

    /// Bytes per element.
    pub fn size(self) -> usize {
        match self {
            Element::I8 | Element::U8 => 1,
            Element::F16 | Element::Bf16 => 2,
            Element::I32 | Element::U32 | Element::F32 => 4,
            Element::I64 | Element::U64 | Element::F64 => 8,
        }
    }
}

/// A reduction: a built-in operation, or a sum of inputs each multiplied
/// by a scalar first (`ncclRedOpCreatePreMulSum`; the scalar as bytes of
/// the element type).
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Reduction {
    Sum,
    Prod,
    Max,
    Min,
    /// The sum divided by the rank count: floats multiply each input by
    /// `1/n` first (NCCL's pre-multiplied sum), integers divide the sum.
    Avg,
    PreMulSum(Vec<u8>),
}

impl Reduction {
    /// A built-in operation; `None` for others.
    pub fn builtin(op: ncclRedOp_t) -> Option<Reduction> {
        Some(match op.0 {
            0 => Reduction::Sum,
            1 => Reduction::Prod,
            2 => Reduction::Max,
            3 => Reduction::Min,
            4 => Reduction::Avg,
            _ => return None,
        })
    }
}

/// Reduce `inputs` (one slice per rank, each `count` elements) into one.
pub(crate) fn reduce(element: Element, reduction: &Reduction, inputs: &[&[u8]]) -> Vec<u8> {
    let n = inputs.len();
    macro_rules! ints {
        ($t:ty) => {{
            const S: usize = std::mem::size_of::<$t>();
            let read = |b: &[u8]| -> Vec<$t> {
                b.chunks_exact(S).map(|c| <$t>::from_ne_bytes(c.try_into().unwrap_or([0; S]))).collect()
            };
            let scalar = match reduction {
                Reduction::PreMulSum(s) => read(s).first().copied(),
                _ => None,
            };
            let mut acc: Vec<$t> = Vec::new();
            for (r, input) in inputs.iter().enumerate() {
                let mut x = read(input);
                if let Some(s) = scalar {
                    x.iter_mut().for_each(|v| *v = v.wrapping_mul(s));
                }
                if r == 0 {
                    acc = x;
                    continue;
                }
                for (a, v) in acc.iter_mut().zip(x) {
                    *a = match reduction {
                        Reduction::Sum | Reduction::Avg | Reduction::PreMulSum(_) => a.wrapping_add(v),
                        Reduction::Prod => a.wrapping_mul(v),
                        Reduction::Max => (*a).max(v),
                        Reduction::Min => (*a).min(v),
                    };
                }
            }
            if *reduction == Reduction::Avg {
                let d = n as $t;
                acc.iter_mut().for_each(|a| *a /= d);
            }
            acc.into_iter().flat_map(<$t>::to_ne_bytes).collect()
        }};
    }
    match element {
        Element::I8 => ints!(i8),
        Element::U8 => ints!(u8),
        Element::I32 => ints!(i32),
        Element::U32 => ints!(u32),
        Element::I64 => ints!(i64),
        Element::U64 => ints!(u64),
        Element::F32 => floats::<f32>(reduction, inputs),
        Element::F64 => floats::<f64>(reduction, inputs),
        Element::F16 => floats::<f16>(reduction, inputs),
        Element::Bf16 => floats::<bf16>(reduction, inputs),
    }
}

/// The arithmetic a float reduction is computed in: `f32` or `f64`.
trait Real: Copy + std::ops::Add<Output = Self> + std::ops::Mul<Output = Self> {
    /// `fmax`, as NCCL's kernels: a NaN loses.
    fn max(self, other: Self) -> Self;
    /// `fmin`, likewise.
    fn min(self, other: Self) -> Self;
}

impl Real for f32 {
    fn max(self, other: f32) -> f32 {
        f32::max(self, other)
    }
    fn min(self, other: f32) -> f32 {
        f32::min(self, other)
    }
}

impl Real for f64 {
    fn max(self, other: f64) -> f64 {
        f64::max(self, other)
    }
    fn min(self, other: f64) -> f64 {
        f64::min(self, other)
    }
}

/// A float element type as its reductions compute it: in `Acc` (itself,
/// or `f32` for the 16-bit floats), rounded back to the type after every
/// step.
trait Float {
    type Acc: Real;
    /// Bytes per element.
    const SIZE: usize;
    fn load(bytes: &[u8]) -> Self::Acc;
    fn store(v: Self::Acc) -> Vec<u8>;
    fn narrow(v: f64) -> Self::Acc;
    /// `v` rounded to the element type.
    fn round(v: Self::Acc) -> Self::Acc;
}

impl Float for f32 {
    type Acc = f32;
    const SIZE: usize = 4;
    fn load(b: &[u8]) -> f32 {
        f32::from_ne_bytes([b[0], b[1], b[2], b[3]])
    }
    fn store(v: f32) -> Vec<u8> {
        v.to_ne_bytes().to_vec()
    }
    fn narrow(v: f64) -> f32 {
        v as f32
    }
    fn round(v: f32) -> f32 {
        v
    }
}

impl Float for f64 {
    type Acc = f64;
    const SIZE: usize = 8;
    fn load(b: &[u8]) -> f64 {
        f64::from_ne_bytes([b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7]])
    }
    fn store(v: f64) -> Vec<u8> {
        v.to_ne_bytes().to_vec()
    }
    fn narrow(v: f64) -> f64 {
        v
    }
    fn round(v: f64) -> f64 {
        v
    }
}

impl Float for f16 {
    type Acc = f32;
    const SIZE: usize = 2;
    fn load(b: &[u8]) -> f32 {
        f16::from_ne_bytes([b[0], b[1]]).to_f32()
    }
    fn store(v: f32) -> Vec<u8> {
        f16::from_f32(v).to_ne_bytes().to_vec()
    }
    fn narrow(v: f64) -> f32 {
        v as f32
    }
    fn round(v: f32) -> f32 {
        f16::from_f32(v).to_f32()
    }
}

impl Float for bf16 {
    type Acc = f32;
    const SIZE: usize = 2;
    fn load(b: &[u8]) -> f32 {
        bf16::from_ne_bytes([b[0], b[1]]).to_f32()
    }
    fn store(v: f32) -> Vec<u8> {
        bf16::from_f32(v).to_ne_bytes().to_vec()
    }
    fn narrow(v: f64) -> f32 {
        v as f32
    }
    fn round(v: f32) -> f32 {
        bf16::from_f32(v).to_f32()
    }
}

/// [`reduce`] for a float type: each rank's input pre-multiplied (by its
/// scalar, or by `1/n` for the average), then combined in rank order,
/// rounded to the type after every step.
fn floats<F: Float>(reduction: &Reduction, inputs: &[&[u8]]) -> Vec<u8> {
    let read = |b: &[u8]| -> Vec<F::Acc> { b.chunks_exact(F::SIZE).map(F::load).collect() };
    let scalar = match reduction {
        Reduction::PreMulSum(s) => read(s).first().copied(),
        Reduction::Avg => Some(F::round(F::narrow(1.0 / inputs.len() as f64))),
        _ => None,
    };
    let mut acc: Vec<F::Acc> = Vec::new();
    for (r, input) in inputs.iter().enumerate() {
        let mut x = read(input);
        if let Some(s) = scalar {
            x.iter_mut().for_each(|v| *v = F::round(*v * s));
        }
        if r == 0 {
            acc = x;
            continue;
        }
        for (a, v) in acc.iter_mut().zip(x) {
            *a = F::round(match reduction {
                Reduction::Sum | Reduction::Avg | Reduction::PreMulSum(_) => *a + v,
                Reduction::Prod => *a * v,
                Reduction::Max => a.max(v),
                Reduction::Min => a.min(v),
            });
        }
    }
    acc.into_iter().flat_map(F::store).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bytes_i32(v: &[i32]) -> Vec<u8> {
        v.iter().flat_map(|x| x.to_ne_bytes()).collect()
    }

    #[test]
    fn integers_wrap_and_average_by_division() {
        let a = bytes_i32(&[i32::MAX, -7, 3]);
        let b = bytes_i32(&[1, 2, 4]);
        let sum = reduce(Element::I32, &Reduction::Sum, &[&a, &b]);
        assert_eq!(sum, bytes_i32(&[i32::MIN, -5, 7]));
        let avg = reduce(Element::I32, &Reduction::Avg, &[&a, &b]);
        assert_eq!(avg, bytes_i32(&[i32::MIN / 2, -2, 3]), "the wrapped sum divided, truncating");
        let max = reduce(Element::I32, &Reduction::Max, &[&a, &b]);
        assert_eq!(max, bytes_i32(&[i32::MAX, 2, 4]));
    }

    #[test]
    fn floats_pre_multiply_for_the_average() {
        let a: Vec<u8> = [1.0f32, 3.0].iter().flat_map(|x| x.to_ne_bytes()).collect();
        let b: Vec<u8> = [2.0f32, 5.0].iter().flat_map(|x| x.to_ne_bytes()).collect();
        let c: Vec<u8> = [4.0f32, 1.0].iter().flat_map(|x| x.to_ne_bytes()).collect();
        let avg = reduce(Element::F32, &Reduction::Avg, &[&a, &b, &c]);
        let third = 1.0f32 / 3.0;
        let expect: Vec<u8> = [1.0 * third + 2.0 * third + 4.0 * third, 3.0 * third + 5.0 * third + third]
            .iter()
            .flat_map(|x: &f32| x.to_ne_bytes())
            .collect();
        assert_eq!(avg, expect);
        let scaled = reduce(Element::F32, &Reduction::PreMulSum(2.0f32.to_ne_bytes().to_vec()), &[&a, &b]);
        let expect: Vec<u8> = [6.0f32, 16.0].iter().flat_map(|x| x.to_ne_bytes()).collect();
        assert_eq!(scaled, expect);
    }

    #[test]
    fn half_rounds_after_every_step() {
        // 2048 + 1 is not a half: each step rounds back to 2048.
        let big = f16::from_f32(2048.0).to_ne_bytes();
        let one = f16::from_f32(1.0).to_ne_bytes();
        let sum = reduce(Element::F16, &Reduction::Sum, &[&big, &one, &one]);
        assert_eq!(f16::from_ne_bytes([sum[0], sum[1]]).to_f32(), 2048.0);
        let b = bf16::from_f32(1.5).to_ne_bytes();
        let prod = reduce(Element::Bf16, &Reduction::Prod, &[&b, &b]);
        assert_eq!(bf16::from_ne_bytes([prod[0], prod[1]]).to_f32(), 2.25);
    }
}
