//! A state-machine property test of the public API against a model:
//! device switches (plain and scoped, nested), stream switches,
//! allocations, drops here and on other threads, reclaim and limit
//! changes. After every step the thread's device (ours and HIP's) and each
//! device's allocated bytes must be what the model says; at the end every
//! byte is back and no call was made under the wrong device.

use amdgpu::prelude::*;
use hip_pool::Limit;
use hip_sys::{sim, Backend};
use proptest::prelude::*;

#[derive(Debug, Clone)]
enum Op {
    SetDevice(usize),
    WithDevice(usize, Vec<Op>),
    WithNewStream(usize, Vec<Op>),
    Alloc(usize),
    DropHere(usize),
    DropElsewhere(usize),
    Reclaim(usize),
    HardLimit(usize, Option<usize>),
}

fn leaf() -> impl Strategy<Value = Op> {
    prop_oneof![
        (0usize..4).prop_map(Op::SetDevice),
        (1usize..300_000).prop_map(Op::Alloc),
        any::<usize>().prop_map(Op::DropHere),
        any::<usize>().prop_map(Op::DropElsewhere),
        (0usize..4).prop_map(Op::Reclaim),
        ((0usize..4), prop::option::of(1usize..8)).prop_map(|(d, mib)| Op::HardLimit(d, mib)),
    ]
}

fn op() -> impl Strategy<Value = Op> {
    leaf().prop_recursive(2, 24, 6, |inner| {
        prop_oneof![
            ((0usize..4), prop::collection::vec(inner.clone(), 0..6)).prop_map(|(d, ops)| Op::WithDevice(d, ops)),
            ((0usize..4), prop::collection::vec(inner, 0..6)).prop_map(|(d, ops)| Op::WithNewStream(d, ops)),
        ]
    })
}

/// The model: the thread's device and the arrays held.
struct Model {
    devices: Vec<Device>,
    current: Device,
    held: Vec<DeviceArray<u8>>,
    limited: Vec<bool>,
}

impl Model {
    fn check(&self) {
        assert_eq!(amdgpu::device(), self.current, "the thread's device");
        assert_eq!(hip_core::raw::hip_current_device().unwrap(), self.current, "HIP's device");
        for device in &self.devices {
            let held: usize = self.held.iter().filter(|a| a.device() == *device).map(|a| a.buffer().block_size()).sum();
            let stats = amdgpu::pool::stats(*device);
            assert_eq!(stats.allocated, held, "allocated bytes on {device}");
        }
    }

    fn run(&mut self, op: &Op) {
        let pick = |n: usize, devices: &[Device]| devices[n % devices.len()];
        match op {
            Op::SetDevice(d) => {
                let d = pick(*d, &self.devices);
                set_device(d).unwrap();
                self.current = d;
            }
            Op::WithDevice(d, ops) => {
                let (d, previous) = (pick(*d, &self.devices), self.current);
                with_device(d, || {
                    self.current = d;
                    for op in ops {
                        self.run(op);
                    }
                });
                self.current = previous;
            }
            Op::WithNewStream(d, ops) => {
                let (d, previous) = (pick(*d, &self.devices), self.current);
                let s = Stream::new_on(d).unwrap();
                with_stream(&s, || {
                    self.current = d;
                    assert_eq!(stream(), s);
                    for op in ops {
                        self.run(op);
                    }
                });
                self.current = previous;
            }
            Op::Alloc(bytes) => match DeviceArray::<u8>::zeros(*bytes) {
                Ok(array) => {
                    assert_eq!(array.device(), self.current);
                    self.held.push(array);
                }
                Err(amdgpu::Error::Pool(e)) if e.is_out_of_memory() && self.limited[self.current.ordinal()] => {}
                Err(e) => panic!("allocating {bytes} bytes: {e}"),
            },
            Op::DropHere(i) if !self.held.is_empty() => {
                let n = self.held.len();
                drop(self.held.swap_remove(i % n));
            }
            Op::DropElsewhere(i) if !self.held.is_empty() => {
                let n = self.held.len();
                let array = self.held.swap_remove(i % n);
                std::thread::Builder::new()
                    .name("prop-dropper".into())
                    .spawn(move || drop(array))
                    .unwrap()
                    .join()
                    .unwrap();
            }
            Op::DropHere(_) | Op::DropElsewhere(_) => {}
            Op::Reclaim(d) => {
                amdgpu::pool::reclaim(pick(*d, &self.devices)).unwrap();
            }
            Op::HardLimit(d, mib) => {
                let d = pick(*d, &self.devices);
                let limit = mib.map_or(Limit::None, |m| Limit::Bytes(m << 20));
                amdgpu::pool::set_hard_limit(d, limit).unwrap();
                self.limited[d.ordinal()] = mib.is_some();
            }
        }
        self.check();
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

    #[test]
    fn the_api_matches_its_model(ops in prop::collection::vec(op(), 1..30)) {
        let _x = sim::exclusive();
        let devices = Device::all().unwrap();
        for d in &devices {
            amdgpu::pool::reclaim(*d).unwrap();
        }
        let baseline: Vec<usize> = devices.iter().map(|d| sim::live_allocations(d.ordinal())).collect();
        let result = std::thread::Builder::new()
            .name("prop-api".into())
            .spawn(move || {
                let devices = Device::all().unwrap();
                let mut model = Model { current: default_device(), limited: vec![false; devices.len()], devices, held: Vec::new() };
                model.check();
                for op in &ops {
                    model.run(op);
                }
                for d in model.devices.clone() {
                    amdgpu::pool::set_hard_limit(d, Limit::None).unwrap();
                }
            })
            .unwrap()
            .join();
        prop_assert!(result.is_ok(), "a step broke the model");
        for d in &devices {
            amdgpu::pool::reclaim(*d).unwrap();
        }
        if hip_sys::backend() == Backend::Sim {
            let after: Vec<usize> = devices.iter().map(|d| sim::live_allocations(d.ordinal())).collect();
            prop_assert_eq!(after, baseline);
            let bad: Vec<_> = sim::violations().into_iter().filter(|v| v.thread.starts_with("prop-")).collect();
            prop_assert_eq!(bad, vec![]);
        }
    }
}
