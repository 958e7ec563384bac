//! Sizes computed from user input, at the extremes: every one is a typed
//! error (or a right answer), never a panic or a wrap. Lengths of
//! `usize::MAX / size_of::<T>() + 1` and up, `u32::MAX` launch dimensions,
//! convolution paddings and dilations near `usize::MAX`, a `Duration::MAX`
//! timeout. The attacks of the soundness suite (`soundness.rs`) on the
//! launch count live there.

use amdgpu::libs::blas::{self, Gemm};
use amdgpu::libs::collective::UniqueId;
use amdgpu::libs::dnn::{conv2d_output_shape, Conv2d, Shape4};
use amdgpu::libs::fft::{self, Direction};
use amdgpu::libs::solver::{self, Pivots, Shape};
use amdgpu::libs::{available, Library};
use amdgpu::prelude::*;
use amdgpu::{Error, LaunchConfig, LaunchLimits};
use proptest::prelude::*;

mod common;

/// Any size, biased to the extremes: 0 and 1, near `u32::MAX` and
/// `i32::MAX`, and near `usize::MAX`.
fn size() -> impl Strategy<Value = usize> {
    prop_oneof![
        0usize..=2,
        (i32::MAX as usize - 1)..=(u32::MAX as usize + 1),
        (usize::MAX / 2)..=usize::MAX,
        0usize..=usize::MAX,
    ]
}

/// Lengths whose bytes overflow a `usize` for elements of `size` bytes.
fn overflowing(size: usize) -> impl Strategy<Value = usize> {
    (usize::MAX / size + 1)..=usize::MAX
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    #[test]
    fn arrays_whose_bytes_overflow_are_refused(len in overflowing(4)) {
        let error = DeviceArray::<f32>::zeros(len).unwrap_err();
        prop_assert!(matches!(error, Error::OutOfBounds { .. }), "{error}");
    }

    #[test]
    fn host_buffers_whose_bytes_overflow_are_refused(len in overflowing(8)) {
        let error = HostBuffer::<f64>::zeroed(len).unwrap_err();
        prop_assert!(matches!(error, Error::HostRangeOutOfBounds { .. }), "{error}");
    }

    #[test]
    fn launch_counts_are_exact_or_saturated(grid in prop::array::uniform3(1u32..), block in prop::array::uniform3(1u32..)) {
        let config = LaunchConfig { grid, block, shared_memory: 0 };
        let blocks = grid.iter().map(|&g| u128::from(g)).product::<u128>();
        prop_assert_eq!(config.blocks(), blocks);
        let exact = block.iter().try_fold(blocks, |n, &b| n.checked_mul(u128::from(b)));
        prop_assert_eq!(config.threads(), exact.unwrap_or(u128::MAX));
    }

    #[test]
    fn linear_and_covering_launches_refuse_what_the_device_cannot_run(
        n in (u32::MAX as usize)..=usize::MAX,
        extent in prop::array::uniform3(0usize..=usize::MAX),
        block in prop::array::uniform3(0u32..=u32::MAX),
    ) {
        let linear = LaunchConfig::linear(device(), n);
        prop_assert!(linear.is_err() || linear.unwrap().threads() >= n as u128);
        if let Ok(config) = LaunchConfig::covering(device(), extent, block) {
            for ((grid, block), extent) in config.grid.iter().zip(config.block).zip(extent) {
                prop_assert!(u128::from(*grid) * u128::from(block) >= extent.max(1) as u128);
            }
        }
    }

    #[test]
    fn convolution_shapes_never_overflow(
        pad in (0usize..=usize::MAX, 0usize..=usize::MAX),
        dilation in (1usize..=usize::MAX, 1usize..=usize::MAX),
        stride in (1usize..=usize::MAX, 1usize..=usize::MAX),
        taps in (1usize..=4, 1usize..=4),
    ) {
        let input = Shape4::new(1, 1, 2, 2);
        let filter = Shape4::new(1, 1, taps.0, taps.1);
        if let Ok(output) = conv2d_output_shape(input, filter, Conv2d { pad, stride, dilation }) {
            // A shape handed out fits MIOpen's int dimensions and a usize count.
            for d in [output.n, output.c, output.h, output.w] {
                prop_assert!((1..=i32::MAX as usize).contains(&d), "{output:?}");
            }
            let exact = [output.n, output.c, output.h, output.w].iter().try_fold(1usize, |a, d| a.checked_mul(*d));
            prop_assert_eq!(Some(output.len()), exact);
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

    #[test]
    fn gemm_shapes_and_batches_at_the_extremes_are_refused(
        (m, n, k) in (size(), size(), size()),
        lds in (size(), size(), size()),
        (count, strides) in (size(), (size(), size(), size())),
    ) {
        prop_assume!(available(Library::Rocblas));
        let (a, b) = (DeviceArray::<f32>::zeros(4).unwrap(), DeviceArray::<f32>::zeros(4).unwrap());
        let mut c = DeviceArray::<f32>::zeros(4).unwrap();
        let shape = Gemm::new(m, n, k).leading_dims(lds.0, lds.1, lds.2);
        // An empty GEMM may be a quick return; four elements hold no
        // other matrix of these sizes but the tiniest.
        let empty = m == 0 || n == 0 || k == 0;
        let fits = m.saturating_mul(n) <= 4 && m.saturating_mul(k) <= 4 && k.saturating_mul(n) <= 4;
        if !empty && !fits {
            prop_assert!(blas::gemm(&shape, 1.0, &a, &b, 0.0, &mut c).is_err());
        }
        let batch = blas::Batch { count, stride_a: strides.0, stride_b: strides.1, stride_c: strides.2 };
        if !empty && count != 0 && (count > 4 || !fits) {
            // More than four GEMMs write more than four elements of C.
            prop_assert!(blas::gemm_strided_batched(&Gemm::new(m, n, k), &batch, 1.0, &a, &b, 0.0, &mut c).is_err());
        }
    }

    #[test]
    fn fft_shapes_at_the_extremes_are_refused(shape in prop::collection::vec(size(), 1..=3), batch in size()) {
        prop_assume!(available(Library::Rocfft));
        let input = DeviceArray::<[f32; 2]>::zeros(4).unwrap();
        let mut output = DeviceArray::<[f32; 2]>::zeros(4).unwrap();
        let elements = shape.iter().try_fold(batch, |n, d| n.checked_mul(*d));
        if elements != Some(4) {
            prop_assert!(fft::c2c(&input, &mut output, &shape, batch, Direction::Forward).is_err());
        }
    }

    #[test]
    fn solver_batches_at_the_extremes_are_refused(
        (rows, cols) in (size(), size()),
        (count, stride) in (size(), size()),
    ) {
        prop_assume!(available(Library::Rocsolver));
        let mut a = DeviceArray::<f64>::zeros(4).unwrap();
        let shape = Shape::new(rows, cols);
        let batch = solver::Batch { count, stride_a: stride, stride_b: 0 };
        let k = rows.min(cols).clamp(1, 4);
        let mut pivots = Pivots::batched(k, count.clamp(1, 4), &stream()).unwrap();
        // Empty matrices or an empty batch may be a quick return. Else
        // the batch must lie in A's four elements without overlapping, and
        // the pivots hold at most four problems of at most four.
        let empty = rows == 0 || cols == 0 || count == 0;
        let one = (cols.saturating_sub(1)).saturating_mul(rows).saturating_add(rows);
        let span = stride.saturating_mul(count.saturating_sub(1)).saturating_add(one);
        let overlap = count > 1 && stride < one;
        let fits = span <= 4 && !overlap && count <= 4 && rows.min(cols) <= 4;
        if !empty && !fits {
            prop_assert!(solver::getrf_strided_batched(&shape, &batch, &mut a, &mut pivots).is_err());
        }
    }
}

#[test]
fn a_padding_that_wraps_the_output_shape_is_refused() {
    // 1×1×2×2 padded by 2^31 − 1 a side is an output of 2^32 × 2^32: more
    // than MIOpen's int dimensions, and 2^64 elements (0 in a usize).
    let params = Conv2d { pad: (i32::MAX as usize, i32::MAX as usize), ..Conv2d::default() };
    let error = conv2d_output_shape(Shape4::new(1, 1, 2, 2), Shape4::new(1, 1, 1, 1), params).unwrap_err();
    assert!(error.to_string().contains("the output"), "{error}");
    // A dilation whose span is exactly usize::MAX + 1.
    let params = Conv2d { dilation: (usize::MAX, 1), ..Conv2d::default() };
    assert!(conv2d_output_shape(Shape4::new(1, 1, 2, 2), Shape4::new(1, 1, 2, 1), params).is_err());
    let params = Conv2d { pad: (1 << (usize::BITS - 1), 0), ..Conv2d::default() };
    assert!(conv2d_output_shape(Shape4::new(1, 1, 2, 2), Shape4::new(1, 1, 1, 1), params).is_err());
    // A shape built by hand counts its elements saturating.
    assert_eq!(Shape4::new(1 << 32, 1 << 32, 1, 1).len(), usize::MAX);
}

#[test]
fn a_block_size_of_a_device_with_no_warp_is_still_a_size() {
    let limits = LaunchLimits {
        max_threads_per_block: 1024,
        max_block: [1024; 3],
        max_grid: [u32::MAX; 3],
        max_shared_memory_per_block: 0,
        warp_size: 0,
    };
    assert_eq!(limits.block_size(256), 256);
}

#[test]
fn an_id_file_read_with_no_deadline_is_read() {
    let Some(id) = UniqueId::new().ok() else {
        eprintln!("skipped: no collective library on this backend");
        return;
    };
    let path = std::env::temp_dir().join(format!("amdgpu-id-{}", std::process::id()));
    id.write_file(&path).unwrap();
    let read = UniqueId::read_file(&path, std::time::Duration::MAX).unwrap();
    assert_eq!(read.to_string(), id.to_string());
    std::fs::remove_file(path).unwrap();
}
