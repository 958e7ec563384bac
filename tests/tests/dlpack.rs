//! DLPack: arrays made into tensors and taken back with no copy, for
//! every element type; tensors of other producers (made here by hand, as
//! PyTorch's look) taken with their deleter called exactly once on every
//! path; the read-only flag honoured; shapes that overflow, strides that
//! are not compact and tensors of other devices refused; the stream
//! handshake ordering the producer's writes before the consumer's reads;
//! the unversioned tensors of DLPack before 1.0 (JAX's), both ways, with
//! each deleter run once.

use amdgpu::dlpack::sys::{
    DLDataType, DLDevice, DLDeviceType, DLManagedTensor, DLManagedTensorVersioned, DLPackVersion, DLTensor,
    DLPACK_FLAG_BITMASK_READ_ONLY,
};
use amdgpu::dlpack::{DlBool, DlPackElement, DlTensor};
use amdgpu::half::{bf16, f16};
use amdgpu::prelude::*;
use amdgpu::Error;
use hip_sys::sim;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

mod common;

fn round_trip<T: DlPackElement + PartialEq + std::fmt::Debug>(values: &[T]) {
    let array = DeviceArray::from_slice(values).unwrap();
    let pointer = array.as_ptr();
    let tensor = array.into_dlpack(None).unwrap();
    assert_eq!(tensor.tensor().dtype, T::DTYPE);
    assert_eq!(tensor.shape(), [values.len() as i64]);
    let imported = DeviceArray::<T>::from_dlpack(tensor, &Stream::new().unwrap()).unwrap();
    assert_eq!(imported.array().as_ptr(), pointer, "no copy");
    assert_eq!(imported.array().to_vec().unwrap(), values);
}

#[test]
fn every_element_type_round_trips_with_no_copy() {
    round_trip(&[-1i8, 2]);
    round_trip(&[-1i16, 2]);
    round_trip(&[-1i32, 2]);
    round_trip(&[-1i64, 2]);
    round_trip(&[1u8, 255]);
    round_trip(&[1u16, 2]);
    round_trip(&[1u32, 2]);
    round_trip(&[1u64, u64::MAX]);
    round_trip(&[f16::from_f32(1.5), f16::from_f32(-2.0)]);
    round_trip(&[bf16::from_f32(1.5), bf16::from_f32(-2.0)]);
    round_trip(&[1.5f32, -2.0]);
    round_trip(&[1.5f64, -2.0]);
    round_trip(&[[1.0f32, 2.0], [3.0, 4.0]]);
    round_trip(&[[1.0f64, 2.0], [3.0, 4.0]]);
    round_trip(&[DlBool::from(true), DlBool::from(false)]);
    let codes: Vec<DLDataType> = vec![f32::DTYPE, bf16::DTYPE, <[f64; 2]>::DTYPE, DlBool::DTYPE];
    assert_eq!(
        codes.iter().map(|d| (d.code, d.bits, d.lanes)).collect::<Vec<_>>(),
        [(2, 32, 1), (4, 16, 1), (5, 128, 1), (6, 8, 1)],
        "dlpack.h's codes"
    );
}

/// A tensor over `array`'s memory as another framework makes one: its
/// own shape, strides and flags, and a deleter that counts its calls.
/// `repr(C)`: the tensor is the first field, so its address is the box's.
#[repr(C)]
struct Foreign {
    managed: DLManagedTensorVersioned,
    shape: Vec<i64>,
    strides: Vec<i64>,
    deleted: Arc<AtomicUsize>,
    _memory: DeviceArray<f32>,
}

unsafe extern "C" fn count_and_free(this: *mut DLManagedTensorVersioned) {
    // SAFETY: `this` is the `managed` field of a leaked `Foreign` box,
    // its first field, freed once.
    let foreign = unsafe { Box::from_raw(this.cast::<Foreign>()) };
    foreign.deleted.fetch_add(1, Ordering::SeqCst);
}

fn foreign(
    memory: DeviceArray<f32>,
    shape: &[i64],
    strides: Option<&[i64]>,
    edit: impl FnOnce(&mut DLManagedTensorVersioned),
) -> (DlTensor, Arc<AtomicUsize>) {
    let deleted = Arc::new(AtomicUsize::new(0));
    let device = DLDevice { device_type: DLDeviceType::kDLROCM, device_id: memory.device().ordinal() as i32 };
    let mut boxed = Box::new(Foreign {
        managed: DLManagedTensorVersioned {
            version: DLPackVersion { major: 1, minor: 0 },
            manager_ctx: std::ptr::null_mut(),
            deleter: Some(count_and_free),
            flags: 0,
            dl_tensor: DLTensor {
                data: memory.as_ptr().cast_mut().cast(),
                device,
                ndim: shape.len() as i32,
                dtype: f32::DTYPE,
                shape: std::ptr::null_mut(),
                strides: std::ptr::null_mut(),
                byte_offset: 0,
            },
        },
        shape: shape.to_vec(),
        strides: strides.map(<[i64]>::to_vec).unwrap_or_default(),
        deleted: deleted.clone(),
        _memory: memory,
    });
    boxed.managed.dl_tensor.shape = boxed.shape.as_mut_ptr();
    if strides.is_some() {
        boxed.managed.dl_tensor.strides = boxed.strides.as_mut_ptr();
    }
    if amdgpu::backend() == amdgpu::Backend::Nvidia {
        boxed.managed.dl_tensor.device.device_type = DLDeviceType::kDLCUDA;
    }
    edit(&mut boxed.managed);
    let raw = Box::into_raw(boxed).cast::<DLManagedTensorVersioned>();
    // SAFETY: a tensor just made, owned by nobody else.
    (unsafe { DlTensor::from_raw(raw) }.unwrap(), deleted)
}

fn six() -> DeviceArray<f32> {
    DeviceArray::from_slice(&[0.0f32, 1.0, 2.0, 3.0, 4.0, 5.0]).unwrap()
}

fn dlpack_problem(error: Error) -> String {
    match error {
        Error::DlPack { problem } => problem,
        other => panic!("not a DLPack refusal: {other}"),
    }
}

#[test]
fn another_producers_tensor_is_taken_and_deleted_once_after_its_uses() {
    let stream = Stream::new().unwrap();
    let (tensor, deleted) = foreign(six(), &[2, 3], Some(&[3, 1]), |_| {});
    let mut imported = DeviceArray::<f32>::from_dlpack(tensor, &stream).unwrap();
    assert_eq!((imported.shape(), imported.is_read_only()), (&[2i64, 3][..], false));
    imported.array_mut().unwrap().copy_from_slice(&[6.0, 7.0, 8.0, 9.0, 10.0, 11.0]).unwrap();
    assert_eq!(imported.array().to_vec().unwrap()[5], 11.0);
    assert_eq!(deleted.load(Ordering::SeqCst), 0, "not while in use");
    drop(imported);
    assert_eq!(deleted.load(Ordering::SeqCst), 1, "once, at the drop");
}

#[test]
fn every_refusal_deletes_the_tensor_once_and_says_why() {
    let stream = Stream::new().unwrap();
    type Edit = fn(&mut DLManagedTensorVersioned);
    type Case<'a> = (&'a [i64], Option<&'a [i64]>, Edit, &'a str);
    let cases: [Case<'_>; 9] = [
        (&[6], None, |m| m.version.major = 2, "major version"),
        (&[6], None, |m| m.dl_tensor.device.device_type = DLDeviceType::kDLCPU, "device type 1"),
        (&[6], None, |m| m.dl_tensor.device.device_id = 7, "on device 7"),
        (&[6], None, |m| m.dl_tensor.dtype = f64::DTYPE, "dtype"),
        (&[2, 2], Some(&[i64::MAX, 1]), |_| {}, "overflow"),
        (&[2], Some(&[-1]), |m| m.dl_tensor.data = std::ptr::null_mut(), "below address 0"),
        (&[-1, 3], None, |_| {}, "negative extent"),
        (&[i64::MAX, i64::MAX], None, |_| {}, "overflows"),
        (&[6], None, |m| m.dl_tensor.byte_offset = 2, "not aligned"),
    ];
    for (shape, strides, edit, says) in cases {
        let (tensor, deleted) = foreign(six(), shape, strides, edit);
        let problem = dlpack_problem(DeviceArray::<f32>::from_dlpack(tensor, &stream).unwrap_err());
        assert!(problem.contains(says), "{problem:?} should say {says:?}");
        assert_eq!(deleted.load(Ordering::SeqCst), 1, "{says}: deleted once");
    }
}

/// Strided views (a transposed matrix, a reversed vector) are taken as the
/// span of memory their elements lie in, with their strides.
#[test]
fn strided_tensors_are_taken_as_their_span_with_their_strides() {
    let stream = Stream::new().unwrap();
    let (transposed, deleted) = foreign(six(), &[3, 2], Some(&[1, 3]), |_| {});
    let imported = DeviceArray::<f32>::from_dlpack(transposed, &stream).unwrap();
    assert_eq!((imported.shape(), imported.strides(), imported.first()), (&[3i64, 2][..], &[1i64, 3][..], 0));
    assert!(!imported.is_contiguous());
    assert_eq!(imported.array().to_vec().unwrap(), [0.0, 1.0, 2.0, 3.0, 4.0, 5.0]);
    drop(imported);
    assert_eq!(deleted.load(Ordering::SeqCst), 1);

    // Elements 4, 3, 2: the first at byte offset 16, stepping back.
    let (reversed, _) = foreign(six(), &[3], Some(&[-1]), |m| m.dl_tensor.byte_offset = 16);
    let imported = DeviceArray::<f32>::from_dlpack(reversed, &stream).unwrap();
    assert_eq!((imported.first(), imported.array().len()), (2, 3));
    assert_eq!(imported.array().to_vec().unwrap(), [2.0, 3.0, 4.0], "the span, lowest first");

    // A compact tensor that states its strides, with extents of 1 whose
    // strides do not matter, is contiguous.
    let (stated, _) = foreign(six(), &[1, 6, 1], Some(&[99, 1, 7]), |_| {});
    let imported = DeviceArray::<f32>::from_dlpack(stated, &stream).unwrap();
    assert!(imported.is_contiguous());
    assert_eq!(imported.array().len(), 6);
}

/// A tensor used for a scope without being taken: the owner keeps it,
/// the scope's work is waited for when it ends, a refusal deletes
/// nothing, and a read-only tensor is never written.
#[test]
fn a_tensor_borrowed_for_a_scope_stays_its_owners() {
    let stream = Stream::new().unwrap();
    let (mut tensor, deleted) = foreign(six(), &[6], None, |_| {});
    let twice = tensor
        .with_array_mut(&stream, |mut view: DeviceSliceMut<'_, f32>| amdgpu::blas::scal(2.0f32, &mut view))
        .unwrap();
    twice.unwrap();
    let read = tensor.with_array(&stream, |array: &DeviceArray<f32>| array.to_vec().unwrap()).unwrap();
    assert_eq!(read, [0.0, 2.0, 4.0, 6.0, 8.0, 10.0]);
    assert!(tensor.with_array(&stream, |_: &DeviceArray<f64>| ()).is_err(), "f64 is refused");
    assert_eq!(deleted.load(Ordering::SeqCst), 0, "borrowed, refused: still the owner's");
    drop(tensor);
    assert_eq!(deleted.load(Ordering::SeqCst), 1);

    let (mut read_only, _) = foreign(six(), &[6], None, |m| m.flags = DLPACK_FLAG_BITMASK_READ_ONLY);
    let refused = read_only.with_array_mut(&stream, |_: DeviceSliceMut<'_, f32>| ()).unwrap_err();
    assert!(dlpack_problem(refused).contains("read-only"));
}

#[test]
fn a_read_only_tensor_is_never_written() {
    let (tensor, deleted) = foreign(six(), &[6], None, |m| m.flags = DLPACK_FLAG_BITMASK_READ_ONLY);
    let mut imported = DeviceArray::<f32>::from_dlpack(tensor, &Stream::new().unwrap()).unwrap();
    assert!(imported.is_read_only());
    assert!(dlpack_problem(imported.array_mut().unwrap_err()).contains("read-only"));
    assert_eq!(imported.array().to_vec().unwrap(), [0.0, 1.0, 2.0, 3.0, 4.0, 5.0], "reading is fine");
    assert!(dlpack_problem(imported.into_array().unwrap_err()).contains("read-only"));
    assert_eq!(deleted.load(Ordering::SeqCst), 1);
}

#[test]
fn shapes_that_do_not_hold_the_array_or_overflow_are_refused() {
    for shape in [&[4usize][..], &[usize::MAX, 2], &[3, 3]] {
        let problem = dlpack_problem(six().into_dlpack_shaped(shape, None).unwrap_err());
        assert!(problem.contains("holds"), "{problem}");
    }
    let tensor = six().into_dlpack_shaped(&[1, 2, 1, 3], None).unwrap();
    assert_eq!((tensor.shape(), tensor.strides()), (&[1i64, 2, 1, 3][..], Some(&[6i64, 3, 3, 1][..])));
    let empty = DeviceArray::<f32>::from_slice(&[]).unwrap().into_dlpack_shaped(&[0, 5], None).unwrap();
    let imported = DeviceArray::<f32>::from_dlpack(empty, &Stream::new().unwrap()).unwrap();
    assert!(imported.array().is_empty());
}

/// The handshake: the consumer's stream waits for the producer's queued
/// write before it reads (on the simulator, a missing wait is a race that
/// fails the run); after the deleter, the producer's next allocation on
/// its own stream waits for the consumer's queued work.
#[test]
fn the_consumer_stream_sees_the_producers_writes_without_a_host_wait() {
    let (producer, consumer) = (Stream::new().unwrap(), Stream::new().unwrap());
    let threes = DeviceArray::from_slice(&vec![3.0f32; 1 << 16]).unwrap();
    let mut array = DeviceArray::<f32>::zeros_on(&producer, 1 << 16).unwrap();
    array.copy_from_async(&threes, &producer).unwrap();
    let tensor = array.into_dlpack(Some(&consumer)).unwrap();
    let imported = DeviceArray::<f32>::from_dlpack(tensor, &consumer).unwrap();
    let mut copy = DeviceArray::<f32>::zeros_on(&consumer, 1 << 16).unwrap();
    copy.copy_from_async(imported.array(), &consumer).unwrap();
    drop(imported);
    let nines = DeviceArray::from_slice(&vec![9.0f32; 1 << 16]).unwrap();
    let mut next = DeviceArray::<f32>::zeros_on(&producer, 1 << 16).unwrap();
    next.copy_from_async(&nines, &producer).unwrap();
    assert!(copy.to_vec().unwrap().iter().all(|v| *v == 3.0));
    assert!(next.to_vec().unwrap().iter().all(|v| *v == 9.0));
    if amdgpu::backend() == amdgpu::Backend::Sim {
        let races: Vec<_> =
            sim::violations().into_iter().filter(|v| v.kind == sim::ViolationKind::StreamRace).collect();
        assert_eq!(races, [], "the consumer's read is ordered after the producer's write, and the next owner after it");
    }
}

/// The row for `DlTensor`'s `Send` in `soundness.rs`: a tensor dropped on
/// another thread is deleted there, once; a forgotten one never.
#[test]
fn a_tensor_dropped_on_another_thread_is_deleted_once() {
    let (tensor, deleted) = foreign(six(), &[6], None, |_| {});
    std::thread::spawn(move || drop(tensor)).join().unwrap();
    assert_eq!(deleted.load(Ordering::SeqCst), 1);
    let (tensor, deleted) = foreign(six(), &[6], None, |_| {});
    let imported = DeviceArray::<f32>::from_dlpack(tensor, &Stream::new().unwrap()).unwrap();
    std::mem::forget(imported);
    assert_eq!(deleted.load(Ordering::SeqCst), 0, "forgotten: leaked, never freed under a use");
}

/// A consumer that reads the memory on its stream and calls the deleter
/// at once, with no wait (as a framework freeing its tensor does): the
/// memory's next owner still waits for that read on the GPU.
#[test]
fn a_deleter_called_before_the_consumers_work_ends_orders_the_next_owner_after_it() {
    let (producer, consumer) = (Stream::new().unwrap(), Stream::new().unwrap());
    let tensor =
        DeviceArray::from_slice_on(&producer, &vec![3.0f32; 1 << 16]).unwrap().into_dlpack(Some(&consumer)).unwrap();
    let read = DeviceArray::<f32>::zeros_on(&consumer, 1 << 16).unwrap();
    // SAFETY: both hold 1 << 16 floats of the device; the tensor's memory
    // stays valid until its deleter, which runs after this is queued.
    unsafe {
        hip_core::raw::mem::copy_async(
            consumer.device(),
            read.as_ptr().cast_mut().cast(),
            tensor.tensor().data,
            4 << 16,
            hip_sys::hipMemcpyKind::hipMemcpyDeviceToDevice,
            consumer.as_raw(),
        )
        .unwrap();
    }
    // The deleter, with the read still queued.
    drop(tensor);
    // On the producer's stream only (the null stream would order it after
    // every blocking stream's work by itself).
    // SAFETY: the memory is written below before anything reads it.
    let next = unsafe { DeviceArray::<f32>::uninit_on(producer.device(), 1 << 16, &producer) }.unwrap();
    // SAFETY: the array's whole memory, alive past the fill (waited for
    // below).
    unsafe {
        hip_core::raw::mem::fill_async(
            producer.device(),
            next.as_ptr().cast_mut().cast(),
            0x41,
            4 << 16,
            producer.as_raw(),
        )
    }
    .unwrap();
    consumer.synchronize().unwrap();
    producer.synchronize().unwrap();
    assert!(read.to_vec().unwrap().iter().all(|v| *v == 3.0), "the read saw the tensor, not the next owner's write");
    if amdgpu::backend() == amdgpu::Backend::Sim {
        let races: Vec<_> =
            sim::violations().into_iter().filter(|v| v.kind == sim::ViolationKind::StreamRace).collect();
        assert_eq!(races, []);
    }
}

#[test]
fn an_unversioned_tensor_wraps_a_versioned_one_both_ways_and_each_deleter_runs_once() {
    let stream = Stream::new().unwrap();
    // Theirs, handed over unversioned and taken back: one deletion.
    let (tensor, deleted) = foreign(six(), &[2, 3], None, |_| {});
    let pointer = tensor.tensor().data;
    let raw = tensor.into_raw_unversioned().unwrap();
    // SAFETY: a valid tensor, just made; read before it is handed on.
    assert_eq!(unsafe { (*raw).dl_tensor.data }, pointer);
    // SAFETY: owned by nobody else.
    let back = unsafe { DlTensor::from_raw_unversioned(raw) }.unwrap();
    assert_eq!((back.shape(), back.version().major, back.is_read_only()), (&[2i64, 3][..], 1, false));
    let imported = DeviceArray::<f32>::from_dlpack(back, &stream).unwrap();
    assert_eq!(imported.array().to_vec().unwrap(), [0.0, 1.0, 2.0, 3.0, 4.0, 5.0]);
    assert_eq!(deleted.load(Ordering::SeqCst), 0, "not while in use");
    drop(imported);
    assert_eq!(deleted.load(Ordering::SeqCst), 1, "once, through both wrappers");

    // Dropped unused: the versioned deleter still runs once.
    let (tensor, deleted) = foreign(six(), &[6], None, |_| {});
    let raw = tensor.into_raw_unversioned().unwrap();
    // SAFETY: the wrapper's own deleter, called once.
    unsafe { ((*raw).deleter.unwrap())(raw) };
    assert_eq!(deleted.load(Ordering::SeqCst), 1);
    // SAFETY: null is refused, not read.
    assert!(unsafe { DlTensor::from_raw_unversioned(std::ptr::null_mut::<DLManagedTensor>()) }.is_none());
}

#[test]
fn a_read_only_tensor_is_not_handed_over_unversioned() {
    let (tensor, deleted) = foreign(six(), &[6], None, |m| m.flags = DLPACK_FLAG_BITMASK_READ_ONLY);
    let why = dlpack_problem(tensor.into_raw_unversioned().unwrap_err());
    assert!(why.contains("read-only") && why.contains("max_version"), "{why}");
    assert_eq!(deleted.load(Ordering::SeqCst), 1, "the refused tensor is deleted, once");
}
