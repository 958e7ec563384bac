//! Where a batch's matrices are: at a base and a stride (the plain and
//! `_strided_batched` functions), or at the addresses of a device array
//! of pointers, one per problem (`_batched`).
//!
//! A strided operand's memory is known at the call, and checked by the
//! race detector then. A pointer array is only read at the call (a copy
//! queued before the call may still be filling it): the problems' own
//! addresses are read from it when the computation runs, as rocSOLVER's
//! kernels read them, and their memory is checked then with the clock of
//! the call (`races::Deferred`). A null or dangling address faults the
//! stream as an illegal address, where a GPU's kernel would fault; two
//! problems of a written operand sharing memory fault it too, where a GPU
//! would compute both into it in parallel.

use super::scalar::Scalar;
use crate::bindings::hip::hipError_t;
use crate::bindings::rocblas::rocblas_status;
use crate::library::{accesses, span, Span};
use crate::machine::races::Deferred;
use crate::machine::violations::AccessKind;

/// One operand's matrices over a batch.
pub(super) enum Matrices {
    /// Problem `i` at `i × stride` elements of `span` (`elems` in all).
    Strided { span: Span, elems: usize, stride: usize },
    /// Problem `i` at the `i`-th address of `array`, `len` elements each.
    Array { array: Span, count: usize, len: usize, size: usize },
}

impl Matrices {
    /// The `count` problems of `len` elements of `size` bytes whose
    /// addresses a device array at `ptr` holds; `invalid_pointer` if the
    /// array is not simulator device memory of `count` pointers.
    pub fn array(ptr: usize, count: usize, len: usize, size: usize) -> Result<Matrices, rocblas_status> {
        let array =
            span(ptr, count * std::mem::size_of::<usize>()).ok_or(rocblas_status::rocblas_status_invalid_pointer)?;
        Ok(Matrices::Array { array, count, len, size })
    }

    /// What the call itself touches, checked when it is enqueued: a strided
    /// operand's memory (as `kind`), or the pointer array (read).
    pub fn at_call(&self, kind: AccessKind) -> (Span, AccessKind) {
        match self {
            Matrices::Strided { span, .. } => (span.clone(), kind),
            Matrices::Array { array, .. } => (array.clone(), AccessKind::Read),
        }
    }

    /// Read the operand as the computation runs: its values, problem after
    /// problem for an array, and where each problem begins among them; an
    /// array's problems are checked for races then, as `written` or read,
    /// through `deferred`. `function` names a fault in the log.
    pub fn load<T: Scalar>(
        &self,
        function: &'static str,
        written: bool,
        deferred: Option<&Deferred>,
    ) -> Result<Loaded<T>, hipError_t> {
        match self {
            Matrices::Strided { span, elems, stride } => {
                let values = load(span, *elems)?;
                Ok(Loaded { values, parts: vec![(span.clone(), *elems)], step: *stride })
            }
            Matrices::Array { array, count, len, size } => {
                let addresses: Vec<usize> = array
                    .bytes(count * std::mem::size_of::<usize>())?
                    .chunks_exact(std::mem::size_of::<usize>())
                    .map(|c| usize::from_ne_bytes(c.try_into().unwrap_or_default()))
                    .collect();
                let mut parts = Vec::with_capacity(*count);
                let mut values = Vec::with_capacity(count * len);
                for (i, &address) in addresses.iter().enumerate() {
                    let Some(problem) = span(address, len * size) else {
                        log::error!(
                            "hip simulator: {function}: problem {i}'s address {address:#x} is not device memory of \
                             {len} elements: the kernel faults"
                        );
                        return Err(hipError_t::hipErrorIllegalAddress);
                    };
                    values.extend(load::<T>(&problem, *len)?);
                    parts.push((problem, *len));
                }
                if written {
                    disjoint(function, &parts, *size)?;
                }
                if let Some(deferred) = deferred {
                    let kind = if written { AccessKind::Write } else { AccessKind::Read };
                    deferred.check(&accesses(parts.iter().map(|(s, _)| (s, kind))));
                }
                Ok(Loaded { values, parts, step: *len })
            }
        }
    }
}

/// Fault when two problems of a written operand share memory.
fn disjoint(function: &'static str, parts: &[(Span, usize)], size: usize) -> Result<(), hipError_t> {
    let mut ranges: Vec<(usize, usize, usize)> =
        parts.iter().enumerate().map(|(i, (s, len))| (s.address(), s.address() + len * size, i)).collect();
    ranges.sort_unstable();
    for pair in ranges.windows(2) {
        let ((_, end, first), (start, _, second)) = (pair[0], pair[1]);
        if start < end {
            log::error!(
                "hip simulator: {function}: problems {first} and {second} write the same memory at {start:#x}; the \
                 GPU would compute both into it in parallel"
            );
            return Err(hipError_t::hipErrorLaunchFailure);
        }
    }
    Ok(())
}

/// An operand's values as the computation runs.
pub(super) struct Loaded<T> {
    /// Every problem's elements.
    pub values: Vec<T>,
    /// Where they came from, in order: one span (strided) or one per
    /// problem (array), with its elements.
    parts: Vec<(Span, usize)>,
    /// Elements from one problem's start to the next's.
    step: usize,
}

impl<T: Scalar> Loaded<T> {
    /// Where problem `i` begins in [`values`](Loaded::values).
    pub fn at(&self, i: usize) -> usize {
        i * self.step
    }

    /// Problem `i`'s elements on: its matrix first.
    pub fn problem(&mut self, i: usize) -> &mut [T] {
        let at = self.at(i);
        &mut self.values[at..]
    }

    /// Write the values back where they came from.
    pub fn store(&self) -> Result<(), hipError_t> {
        let mut at = 0;
        for (span, elems) in &self.parts {
            store(span, &self.values[at..at + elems])?;
            at += elems;
        }
        Ok(())
    }
}

/// `elems` elements of `T` from the start of `s`.
pub(super) fn load<T: Scalar>(s: &Span, elems: usize) -> Result<Vec<T>, hipError_t> {
    Ok(s.bytes(elems * T::SIZE)?.chunks_exact(T::SIZE).map(T::load).collect())
}

/// `values` from the start of `s`.
pub(super) fn store<T: Scalar>(s: &Span, values: &[T]) -> Result<(), hipError_t> {
    let mut bytes = vec![0u8; values.len() * T::SIZE];
    for (chunk, v) in bytes.chunks_exact_mut(T::SIZE).zip(values) {
        v.store(chunk);
    }
    s.write_bytes(&bytes)
}
