//! Which public types may cross threads, pinned at compile time: arrays
//! and host buffers are dropped on any thread and shared between threads,
//! kernels are launched from any thread; the views borrow their array and
//! are as sendable as a reference to it, as is a solver batch of them;
//! a factorization's info and pivots are read on any thread.

use amdgpu::kernel::{In, Kernel, Len, Out};
use amdgpu::prelude::*;

fn send_sync<T: Send + Sync>() {}
fn unpin<T: Unpin>() {}

#[test]
fn arrays_buffers_kernels_and_views_are_send_and_sync() {
    send_sync::<DeviceArray<f32>>();
    send_sync::<DeviceArray<[f64; 2]>>();
    send_sync::<amdgpu::DeviceSlice<'static, f32>>();
    send_sync::<amdgpu::DeviceSliceMut<'static, f32>>();
    send_sync::<HostBuffer<f32>>();
    send_sync::<amdgpu::HostSlice<'static, f32>>();
    send_sync::<amdgpu::HostSliceMut<'static, f32>>();
    send_sync::<Kernel<(In<f32>, Out<f32>, Len)>>();
    send_sync::<amdgpu::Error>();
    unpin::<DeviceArray<f32>>();
    unpin::<HostBuffer<f32>>();
    fn error<E: std::error::Error + Send + Sync + 'static>() {}
    error::<amdgpu::Error>();
}

#[test]
fn solver_batches_and_results_are_send_and_sync() {
    use amdgpu::solver::{Info, MatrixBatch, Pivots};
    // A batch borrows its matrices mutably: as sendable as `&mut [A]`.
    send_sync::<MatrixBatch<'static, f64, DeviceArray<f64>>>();
    send_sync::<MatrixBatch<'static, [f32; 2], amdgpu::DeviceSliceMut<'static, [f32; 2]>>>();
    send_sync::<Info>();
    send_sync::<Pivots>();
}
