//! A state-machine property test of the public API against a model:
//! device switches (plain and scoped, nested), stream switches,
//! allocations, drops here and on other threads, reclaim and limit
//! changes, priority scopes. After every step the thread's device (ours
//! and HIP's), its stream (the installed one, else the same one for each
//! device and priority every time) and each device's allocated bytes must
//! be what the model says; at the end every byte is back and no call was
//! made under the wrong device.

use amdgpu::prelude::*;
use amdgpu::with_priority;
use hip_pool::Limit;
use hip_sys::{sim, Backend};
use proptest::prelude::*;

#[derive(Debug, Clone)]
enum Op {
    SetDevice(usize),
    WithDevice(usize, Vec<Op>),
    WithNewStream(usize, Vec<Op>),
    WithPriority(i32, Vec<Op>),
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
            ((0usize..4), prop::collection::vec(inner.clone(), 0..6)).prop_map(|(d, ops)| Op::WithNewStream(d, ops)),
            ((-2i32..=0), prop::collection::vec(inner, 0..6)).prop_map(|(p, ops)| Op::WithPriority(p, ops)),
        ]
    })
}

/// The model: the thread's device, priority and streams, and the arrays
/// held.
struct Model {
    devices: Vec<Device>,
    current: Device,
    priority: i32,
    /// Streams installed by `with_stream`, per device.
    installed: Vec<(Device, Stream)>,
    /// The thread's own stream per (device, priority), as first seen.
    own: Vec<((Device, i32), Stream)>,
    held: Vec<DeviceArray<u8>>,
    limited: Vec<bool>,
}

impl Model {
    fn new() -> Model {
        let devices = Device::all().unwrap();
        Model {
            current: default_device(),
            priority: 0,
            installed: Vec::new(),
            own: Vec::new(),
            limited: vec![false; devices.len()],
            devices,
            held: Vec::new(),
        }
    }

    fn check(&mut self) {
        assert_eq!(amdgpu::device(), self.current, "the thread's device");
        assert_eq!(hip_core::raw::hip_current_device().unwrap(), self.current, "HIP's device");
        assert_eq!(hip_core::priority(), self.priority, "the thread's priority");
        let stream = stream();
        assert_eq!(stream.device(), self.current, "the thread's stream is on its device");
        match self.installed.iter().rev().find(|(d, _)| *d == self.current) {
            Some((_, installed)) => assert_eq!(stream, *installed, "the installed stream"),
            None => {
                let key = (self.current, self.priority);
                match self.own.iter().find(|(k, _)| *k == key) {
                    Some((_, own)) => assert_eq!(stream, *own, "the thread's stream for {key:?}"),
                    None => {
                        assert!(self.own.iter().all(|(_, s)| *s != stream), "one stream for two keys");
                        self.own.push((key, stream));
                    }
                }
            }
        }
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
                    self.installed.push((d, s.clone()));
                    assert_eq!(stream(), s);
                    for op in ops {
                        self.run(op);
                    }
                    self.installed.pop();
                });
                self.current = previous;
            }
            Op::WithPriority(p, ops) => {
                let previous = self.priority;
                with_priority(*p, || {
                    self.priority = *p;
                    for op in ops {
                        self.run(op);
                    }
                });
                self.priority = previous;
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
                let mut model = Model::new();
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
