//! The shape of a matrix operand, and its checks.

use crate::{LibError, Result};

/// A column-major `rows × cols` matrix with leading dimension `ld`
/// (elements between columns; at least `rows`, and at least 1).
///
/// ```
/// use hip_libs::solver::Shape;
/// let a = Shape::square(4);
/// assert_eq!((a.rows, a.cols, a.ld(), a.len()), (4, 4, 4, 16));
/// let b = Shape::new(4, 2).with_ld(6);
/// assert_eq!(b.len(), 6 + 4, "the last column ends after its 4 rows");
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Shape {
    /// Rows.
    pub rows: usize,
    /// Columns.
    pub cols: usize,
    ld: Option<usize>,
}

impl Shape {
    /// A `rows × cols` matrix with a tight leading dimension.
    pub fn new(rows: usize, cols: usize) -> Shape {
        Shape { rows, cols, ld: None }
    }

    /// An `n × n` matrix with a tight leading dimension.
    pub fn square(n: usize) -> Shape {
        Shape::new(n, n)
    }

    /// Set the leading dimension.
    pub fn with_ld(mut self, ld: usize) -> Shape {
        self.ld = Some(ld);
        self
    }

    /// The leading dimension: as set, or `rows` (at least 1).
    pub fn ld(&self) -> usize {
        self.ld.unwrap_or(self.rows.max(1))
    }

    /// The elements the matrix spans: `ld × (cols − 1) + rows`, 0 if empty.
    pub fn len(&self) -> usize {
        if self.rows == 0 || self.cols == 0 {
            0
        } else {
            (self.cols - 1).saturating_mul(self.ld()).saturating_add(self.rows)
        }
    }

    /// Whether the matrix has no elements.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Check `ld`, rocSOLVER's 32-bit sizes and that `have` elements hold
    /// the matrix `name`; its rows, columns and `ld` as `rocblas_int`s.
    pub(crate) fn check(&self, op: &'static str, name: &str, have: usize) -> Result<[i32; 3]> {
        let dims = self.dims(op, name)?;
        if have < self.len() {
            return Err(LibError::invalid(
                op,
                format!(
                    "{name} holds {have} elements; a {}×{} matrix with leading dimension {} spans {}",
                    self.rows,
                    self.cols,
                    self.ld(),
                    self.len()
                ),
            ));
        }
        Ok(dims)
    }

    /// Check `ld` and rocSOLVER's 32-bit sizes of the matrix `name`; its
    /// rows, columns and `ld` as `rocblas_int`s.
    pub(crate) fn dims(&self, op: &'static str, name: &str) -> Result<[i32; 3]> {
        if self.ld() < self.rows.max(1) {
            return Err(LibError::invalid(
                op,
                format!(
                    "{name}'s leading dimension {} is less than its {} rows (and at least 1)",
                    self.ld(),
                    self.rows
                ),
            ));
        }
        let dim = |what: &str, value: usize| {
            i32::try_from(value).map_err(|_| {
                LibError::invalid(op, format!("{name}'s {what} = {value} exceeds rocSOLVER's 32-bit sizes"))
            })
        };
        Ok([dim("rows", self.rows)?, dim("columns", self.cols)?, dim("leading dimension", self.ld())?])
    }

    /// Check a solve's shapes: A (`self`) square, B with A's rows, both
    /// within rocSOLVER's sizes; `[n, lda, nrhs, ldb]`.
    pub(crate) fn solve_dims(&self, op: &'static str, b: &Shape) -> Result<[i32; 4]> {
        self.square_check(op, "A")?;
        let [n, _, lda] = self.dims(op, "A")?;
        let [_, nrhs, ldb] = b.dims(op, "B")?;
        if b.rows != self.rows {
            return Err(LibError::invalid(op, format!("B has {} rows; A is {}×{}", b.rows, n, n)));
        }
        Ok([n, lda, nrhs, ldb])
    }

    /// Check that the matrix is square.
    pub(crate) fn square_check(&self, op: &'static str, name: &str) -> Result<()> {
        if self.rows != self.cols {
            return Err(LibError::invalid(op, format!("{name} is {}×{}; it must be square", self.rows, self.cols)));
        }
        Ok(())
    }
}
