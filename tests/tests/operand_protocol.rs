//! The operand protocol's failure rule (`hip_pool::enqueue`), the one way
//! kernels, copies, fills and library calls declare the memory they use:
//!
//! 1. a prepare that fails enqueues nothing;
//! 2. an operation that fails still records every operand (part of it may
//!    be queued), so a block is never reused under it;
//! 3. a record that fails synchronizes the stream before the error comes
//!    back.
//!
//! Faults are injected into the simulator's HIP calls.

use amdgpu::kernel::{In, Kernel, Len, Out};
use amdgpu::pool::{enqueue, Access};
use amdgpu::prelude::*;
use amdgpu::LaunchConfig;
use hip_sys::{hipError_t, sim, Backend};

mod common;

type VectorAdd = (In<f32>, In<f32>, Out<f32>, Len);

fn fault(function: &str, nth: u64) {
    assert!(sim::inject_fault(sim::Fault { function: function.into(), nth, error: hipError_t::hipErrorUnknown }));
}

fn sim_only() -> bool {
    let ok = amdgpu::backend() == Backend::Sim;
    if !ok {
        eprintln!("skipped: the rule is checked by injecting faults, which only the simulator can do");
    }
    ok
}

#[test]
fn a_failed_launch_still_records_the_arrays_it_was_given() {
    let _x = sim::exclusive();
    if !sim_only() {
        return;
    }
    common::on_thread("failed-launch", || {
        let Some(module) = common::test_module(device()) else { return };
        // SAFETY: vector_add_f32(const float* a, const float* b, float* c,
        // uint32_t n) reads a[0..n), b[0..n) and writes c[0..n).
        let add: Kernel<VectorAdd> = unsafe { Kernel::from_module(&module, "vector_add_f32") }.expect("vector_add_f32");
        let n = 1024;
        let (a, b) =
            (DeviceArray::from_slice(&vec![1.0f32; n]).unwrap(), DeviceArray::from_slice(&vec![2.0f32; n]).unwrap());
        let mut c = DeviceArray::<f32>::zeros(n).unwrap();
        let other = Stream::new().unwrap();
        let config = LaunchConfig::linear(device(), n).unwrap();
        fault("hipModuleLaunchKernel", 1);
        let error = add.launch(config, &other, (&a, &b, &mut c, n as u32)).unwrap_err();
        sim::reset_faults();
        assert!(error.to_string().contains("hipModuleLaunchKernel"), "{error}");
        for (name, array) in [("a", &a), ("b", &b), ("c", &c)] {
            assert!(
                array.buffer().has_foreign_uses(),
                "{name}: the failed launch's use on the other stream is recorded"
            );
        }
        other.synchronize().unwrap();
    });
}

#[test]
fn a_use_that_cannot_be_recorded_synchronizes_its_stream_first() {
    let _x = sim::exclusive();
    if !sim_only() {
        return;
    }
    common::on_thread("failed-record", || {
        let buffer = amdgpu::pool::alloc(4096).unwrap();
        let other = Stream::new().unwrap();
        // Make the buffer's own stream have work, so the prepare on the
        // other stream records one event there (the first hipEventRecord)
        // and the record after the operation is the second.
        buffer.prepare(&other, Access::Read).unwrap();
        buffer.record(&other, Access::Read).unwrap();
        other.synchronize().unwrap();
        let third = Stream::new().unwrap();
        let before = sim::thread_call_count("hipStreamSynchronize");
        let records = sim::thread_call_count("hipEventRecord");
        fault("hipEventRecord", 2);
        let result = enqueue(&third, [(&buffer, Access::Write)], || Ok::<u32, amdgpu::pool::PoolError>(7));
        sim::reset_faults();
        assert!(sim::thread_call_count("hipEventRecord") >= records + 2, "the prepare and the record each recorded");
        let error = result.unwrap_err();
        assert!(error.to_string().contains("hipEventRecord"), "{error}");
        assert_eq!(
            sim::thread_call_count("hipStreamSynchronize"),
            before + 1,
            "the stream whose use went unrecorded was synchronized"
        );
    });
}

#[test]
fn a_failed_prepare_enqueues_nothing_and_a_failed_operation_comes_first() {
    let _x = sim::exclusive();
    if !sim_only() {
        return;
    }
    common::on_thread("failed-prepare", || {
        let buffer = amdgpu::pool::alloc(4096).unwrap();
        let other = Stream::new().unwrap();
        fault("hipStreamWaitEvent", 1);
        let mut ran = false;
        let result = enqueue(&other, [(&buffer, Access::Read)], || {
            ran = true;
            Ok::<(), amdgpu::pool::PoolError>(())
        });
        sim::reset_faults();
        assert!(result.is_err() && !ran, "a failed prepare runs nothing");
        // The operation's error wins over none from the records.
        let result: Result<(), amdgpu::Error> =
            enqueue(&other, [(&buffer, Access::Read)], || Err(amdgpu::Error::HostBufferLost));
        assert!(matches!(result, Err(amdgpu::Error::HostBufferLost)));
        assert!(buffer.has_foreign_uses(), "and its operands are recorded");
        other.synchronize().unwrap();
    });
}
