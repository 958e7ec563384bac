//! The fuzz targets over their saved corpus (`fuzz/corpus/<target>/`), as
//! plain tests: what the fuzzer found once stays checked.

use amdgpu_tests::fuzz_targets;

fn run(target: &str, body: fn(&[u8])) {
    let _x = hip_sys::sim::exclusive();
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../fuzz/corpus").join(target);
    let mut count = 0;
    for entry in std::fs::read_dir(&dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display())) {
        let path = entry.unwrap().path();
        let data = std::fs::read(&path).unwrap();
        body(&data);
        count += 1;
    }
    assert!(count > 0, "no corpus in {}", dir.display());
}

#[test]
fn limit_parse_corpus() {
    run("limit_parse", fuzz_targets::limit_parse);
}

#[test]
fn env_parse_corpus() {
    run("env_parse", fuzz_targets::env_parse);
}

#[test]
fn csr_validate_corpus() {
    run("csr_validate", fuzz_targets::csr_validate);
}

#[test]
fn code_object_corpus() {
    run("code_object", fuzz_targets::code_object);
}

#[test]
fn fft_plan_corpus() {
    run("fft_plan", fuzz_targets::fft_plan);
}
