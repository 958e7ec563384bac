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
    macro_rules! floats {
        ($t:ty, $from:expr, $to:expr, $size:expr) => {{
            let read = |b: &[u8]| -> Vec<$t> { b.chunks_exact($size).map(|c| $from(c)).collect() };
            let scalar: Option<$t> = match reduction {
                Reduction::PreMulSum(s) => read(s).first().copied(),
                Reduction::Avg => Some((1.0f64 / n as f64) as $t),
                _ => None,
            };
            let mut acc: Vec<$t> = Vec::new();
            for (r, input) in inputs.iter().enumerate() {
                let mut x = read(input);
                if let Some(s) = scalar {
                    x.iter_mut().for_each(|v| *v *= s);
                }
                if r == 0 {
                    acc = x;
                    continue;
                }
                for (a, v) in acc.iter_mut().zip(x) {
                    *a = match reduction {
                        Reduction::Sum | Reduction::Avg | Reduction::PreMulSum(_) => *a + v,
                        Reduction::Prod => *a * v,
                        // fmax and fmin, as NCCL's kernels: a NaN loses.
                        Reduction::Max => a.max(v),
                        Reduction::Min => a.min(v),
                    };
                }
            }
            acc.into_iter().flat_map($to).collect()
        }};
    }
    match element {
        Element::I8 => ints!(i8),
        Element::U8 => ints!(u8),
        Element::I32 => ints!(i32),
        Element::U32 => ints!(u32),
        Element::I64 => ints!(i64),
        Element::U64 => ints!(u64),
        Element::F32 => floats!(f32, |c: &[u8]| f32::from_ne_bytes([c[0], c[1], c[2], c[3]]), f32::to_ne_bytes, 4),
        Element::F64 => floats!(
            f64,
            |c: &[u8]| f64::from_ne_bytes([c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7]]),
            f64::to_ne_bytes,
            8
        ),
        Element::F16 => half_floats::<f16>(reduction, inputs, n),
        Element::Bf16 => half_floats::<bf16>(reduction, inputs, n),
    }
}

/// The 16-bit floats: each step in f32, rounded to the type after it.
trait Half: Copy {
    fn load(bytes: [u8; 2]) -> f32;
    fn store(v: f32) -> [u8; 2];
}

impl Half for f16 {
    fn load(bytes: [u8; 2]) -> f32 {
        f16::from_ne_bytes(bytes).to_f32()
    }
    fn store(v: f32) -> [u8; 2] {
        f16::from_f32(v).to_ne_bytes()
    }
}

impl Half for bf16 {
    fn load(bytes: [u8; 2]) -> f32 {
        bf16::from_ne_bytes(bytes).to_f32()
    }
    fn store(v: f32) -> [u8; 2] {
        bf16::from_f32(v).to_ne_bytes()
    }
}

fn half_floats<H: Half>(reduction: &Reduction, inputs: &[&[u8]], n: usize) -> Vec<u8> {
    let round = |v: f32| H::load(H::store(v));
    let read = |b: &[u8]| -> Vec<f32> { b.chunks_exact(2).map(|c| H::load([c[0], c[1]])).collect() };
    let scalar = match reduction {
        Reduction::PreMulSum(s) => read(s).first().copied(),
        Reduction::Avg => Some(round((1.0f64 / n as f64) as f32)),
        _ => None,
    };
    let mut acc: Vec<f32> = Vec::new();
    for (r, input) in inputs.iter().enumerate() {
        let mut x = read(input);
        if let Some(s) = scalar {
            x.iter_mut().for_each(|v| *v = round(*v * s));
        }
        if r == 0 {
            acc = x;
            continue;
        }
        for (a, v) in acc.iter_mut().zip(x) {
            *a = round(match reduction {
                Reduction::Sum | Reduction::Avg | Reduction::PreMulSum(_) => *a + v,
                Reduction::Prod => *a * v,
                Reduction::Max => a.max(v),
                Reduction::Min => a.min(v),
            });
        }
    }
    acc.into_iter().flat_map(H::store).collect()
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
