//! Bad input everywhere: each public constructor and operation given
//! invalid arguments answers with a typed error whose message names the
//! problem, and nothing is leaked.

use amdgpu::libs::{dnn, fft, sparse, LibError};
use amdgpu::prelude::*;
use amdgpu::Module;
use hip_pool::{Limit, Pool, PoolError, Strategy};
use hip_sys::{sim, Backend};

/// `(what was tried, the error's message, words the message must hold)`.
type Case = (&'static str, String, Vec<String>);

fn text<T, E: std::fmt::Display>(result: Result<T, E>) -> String {
    match result {
        Ok(_) => "(no error)".to_string(),
        Err(e) => e.to_string(),
    }
}

#[test]
fn every_bad_argument_is_a_typed_error_naming_the_problem() {
    let _x = sim::exclusive();
    let d0 = Device::new(0).unwrap();
    let count = Device::count().unwrap();
    for d in Device::all().unwrap() {
        hip_pool::reclaim(d).unwrap();
    }
    let baseline: Vec<usize> = (0..count).map(sim::live_allocations).collect();
    let s0 = Stream::new_on(d0).unwrap();
    let mut cases: Vec<Case> = Vec::new();

    cases.push(("a bad ordinal", text(Device::new(count + 7)), vec![(count + 7).to_string(), count.to_string()]));
    let huge = 1usize << 60;
    let oom = hip_pool::alloc_on(d0, huge, &s0);
    assert!(matches!(&oom, Err(PoolError::OutOfMemory { .. })), "{oom:?}");
    cases.push(("a huge allocation", text(oom), vec!["out of memory".into(), huge.to_string()]));
    let pool = Pool::new(d0, Strategy::Cached).unwrap();
    pool.set_hard_limit(Limit::Bytes(usize::MAX / 2)); // a limit above the device's memory
    let capacity = d0.total_memory().unwrap();
    cases.push(("a limit above device memory", text(pool.alloc(capacity + 1, &s0)), vec!["out of memory".into()]));
    cases.push((
        "a bad limit",
        text(Limit::parse("AMDGPU_SOFT_MEMORY_LIMIT", "12 parsecs")),
        vec!["12 parsecs".into()],
    ));
    cases.push(("a bad strategy", text(Strategy::parse("lazy")), vec!["lazy".into(), "cached".into()]));

    let mut array = DeviceArray::<f32>::zeros(10).unwrap();
    cases.push(("a short host slice", text(array.copy_from_slice(&[1.0; 9])), vec!["10".into(), "9".into()]));
    let mut out = [0.0f32; 11];
    cases.push(("a long host slice", text(array.copy_to_slice(&mut out)), vec!["11".into()]));
    cases.push(("a range past the end", text(array.slice(5..12)), vec!["5..12".into(), "10".into()]));
    #[allow(clippy::reversed_empty_ranges)]
    let reversed = array.slice(7..3);
    cases.push(("a reversed range", text(reversed), vec!["7..3".into()]));
    let other = DeviceArray::<f32>::zeros(3).unwrap();
    cases.push(("copies of different lengths", text(array.copy_from(&other)), vec!["10".into(), "3".into()]));
    if count > 1 {
        let d1 = Device::new(1).unwrap();
        // SAFETY: the array is never read.
        let wrong = unsafe { DeviceArray::<f32>::uninit_on(d1, 4, &s0) };
        cases.push(("a stream of another device", text(wrong), vec!["device 0".into(), "device 1".into()]));
    }

    cases.push((
        "a garbage code object",
        text(Module::load(d0, b"\x7fELF not really")),
        vec!["hipModuleLoadData".into()],
    ));
    if hip_sys::backend() == Backend::Sim {
        let module = Module::load(d0, &sim::code_object(&["fill_f32"])).unwrap();
        cases.push(("a kernel name with NUL", text(module.function("fill\0f32")), vec!["hipModuleGetFunction".into()]));
        cases.push(("an unknown kernel", text(module.function("nope")), vec!["hipErrorNotFound".into()]));
    }

    if amdgpu::libs::available(amdgpu::libs::Library::Rocsparse) {
        let a = sparse::CsrMatrix::from_host(&s0, 2, 2, &[0, 1, 2], &[0, 1], &[1.0f32, 1.0]).unwrap();
        let b = DeviceArray::<f32>::zeros(4).unwrap();
        let mut c = DeviceArray::<f32>::zeros(4).unwrap();
        let spmm = sparse::spmm(1.0, &a, &b, 0, 0.0, &mut c, sparse::DenseOrder::RowMajor);
        cases.push(("spmm with no columns", text(spmm), vec!["n > 0".into()]));
        let dims = sparse::CsrMatrix::<f32>::check_host(3, 2, &[0, 0], &[], &[]);
        cases.push(("a row_ptr of the wrong length", text(dims), vec!["row_ptr has 2".into()]));
    }
    if amdgpu::libs::available(amdgpu::libs::Library::Rocfft) {
        let x = DeviceArray::<[f32; 2]>::zeros(16).unwrap();
        let mut y = DeviceArray::<[f32; 2]>::zeros(16).unwrap();
        cases.push((
            "an FFT of 4 dimensions",
            text(fft::c2c(&x, &mut y, &[2, 2, 2, 2], 1, fft::Direction::Forward)),
            vec!["1 to 3".into()],
        ));
        cases.push((
            "an FFT of the wrong size",
            text(fft::c2c(&x, &mut y, &[15], 1, fft::Direction::Forward)),
            vec!["16".into(), "15".into()],
        ));
    }
    if amdgpu::libs::available(amdgpu::libs::Library::Miopen) {
        let shape = dnn::Shape4::new(1, 3, 4, 4);
        let x = DeviceArray::<f32>::zeros(48).unwrap();
        let mut y = DeviceArray::<f32>::zeros(47).unwrap();
        let softmax = dnn::softmax(&x, &mut y, shape, dnn::SoftmaxAlgorithm::Accurate, dnn::SoftmaxMode::Channel);
        cases.push(("a softmax output too short", text(softmax), vec!["48".into(), "47".into()]));
        let channels = dnn::conv2d_output_shape(shape, dnn::Shape4::new(2, 4, 3, 3), dnn::Conv2d::default());
        cases.push(("a filter with other channels", text(channels), vec!["3 channels".into(), "4".into()]));
        let zero = dnn::activation(&x, &mut y, dnn::Shape4::new(0, 3, 4, 4), dnn::Activation::Relu);
        cases.push(("a zero dimension", text(zero), vec!["every dimension".into()]));
        let big = dnn::conv2d_output_shape(shape, dnn::Shape4::new(2, 3, 9, 9), dnn::Conv2d::default());
        cases.push(("a filter larger than the input", text(big), vec!["does not fit".into()]));
        assert!(matches!(
            dnn::activation(&x, &mut y, shape, dnn::Activation::Relu),
            Err(LibError::InvalidInput { .. })
        ));
    }

    let mut failures = Vec::new();
    for (what, message, words) in &cases {
        if message == "(no error)" {
            failures.push(format!("{what}: accepted"));
        }
        for word in words {
            if !message.contains(word.as_str()) {
                failures.push(format!("{what}: {message:?} does not mention {word:?}"));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    eprintln!("bad input: {} cases", cases.len());

    drop((array, other, s0));
    pool.reclaim().unwrap();
    for d in Device::all().unwrap() {
        hip_pool::reclaim(d).unwrap();
    }
    if hip_sys::backend() == Backend::Sim {
        let after: Vec<usize> = (0..count).map(sim::live_allocations).collect();
        assert_eq!(after, baseline, "nothing leaked");
    }
}
