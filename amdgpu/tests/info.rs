//! `amdgpu-info`: its report, its JSON, and its error path.

use std::process::Command;

fn info(args: &[&str], env: &[(&str, &str)]) -> std::process::Output {
    let mut command = Command::new(env!("CARGO_BIN_EXE_amdgpu-info"));
    command.args(args).env("AMDGPU_BACKEND", "sim").env("AMDGPU_SIM_DEVICES", "2");
    for (k, v) in env {
        command.env(k, v);
    }
    command.output().expect("amdgpu-info runs")
}

#[test]
fn the_report_lists_the_backend_libraries_and_devices() {
    let out = info(&[], &[]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("backend    sim"), "{text}");
    assert!(text.contains("rocSPARSE (available)") && text.contains("MIOpen (available)"), "{text}");
    assert!(text.contains("device 0: HIP simulator device 0") && text.contains("device 1:"), "{text}");
    assert!(text.contains("compute units  4 (wavefront 64)"), "{text}");
}

#[test]
fn json_output_is_json() {
    let out = info(&["--json"], &[("AMDGPU_SIM_DEVICES", "3")]);
    assert!(out.status.success());
    let text = String::from_utf8_lossy(&out.stdout);
    let text = text.trim();
    assert!(text.starts_with("{\"backend\":\"sim\"") && text.ends_with("]}"), "{text}");
    assert_eq!(text.matches("\"ordinal\":").count(), 3, "{text}");
    assert!(text.contains("\"total_memory\":1073741824"), "{text}");
    assert!(text.contains("\"integrated\":false,\"usable_memory\":"), "{text}");
    // Balanced braces and brackets, and no trailing commas.
    assert_eq!(text.matches('{').count(), text.matches('}').count());
    assert_eq!(text.matches('[').count(), text.matches(']').count());
    assert!(!text.contains(",}") && !text.contains(",]"), "{text}");
}

#[test]
fn no_devices_is_a_one_line_cause_and_hint() {
    let out = info(&[], &[("AMDGPU_SIM_DEVICES", "0")]);
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    let lines: Vec<&str> = err.lines().filter(|l| l.starts_with("amdgpu-info:")).collect();
    assert_eq!(lines.len(), 1, "{err}");
    assert!(lines[0].contains("no GPU device") && lines[0].contains("hint:"), "{err}");
    assert!(out.stdout.is_empty());
}

#[test]
fn a_bad_argument_is_exit_2() {
    let out = info(&["--bogus"], &[]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("usage"));
}

#[test]
fn memory_summarizes_a_history_and_names_a_bad_line() {
    let dir = std::env::temp_dir().join(format!("amdgpu-info-memory-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let _x = amdgpu::sys::sim::exclusive();
    let history = amdgpu::pool::history::to_json_lines(&{
        amdgpu::pool::history::clear_history();
        amdgpu::pool::history::record_history(true);
        drop(amdgpu::pool::alloc(3 << 20).unwrap());
        amdgpu::pool::history::record_history(false);
        amdgpu::pool::history::history()
    });
    let good = dir.join("good.jsonl");
    std::fs::write(&good, &history).unwrap();
    let out = info(&["memory", good.to_str().unwrap()], &[]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(text.contains("device 0: peak 3.0 MiB in buffers"), "{text}");
    assert!(text.contains("1 buffers handed out (largest 3.0 MiB), 1 given back"), "{text}");

    let bad = dir.join("bad.jsonl");
    std::fs::write(&bad, format!("{history}{{\"us\":1}}\n")).unwrap();
    let out = info(&["memory", bad.to_str().unwrap()], &[]);
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains(&format!("line {}", history.lines().count() + 1)), "{err}");
    assert_eq!(info(&["memory"], &[]).status.code(), Some(2), "no file named");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn an_apu_is_reported_as_one() {
    let out = info(&[], &[("AMDGPU_SIM_APU", "on"), ("AMDGPU_SIM_HIP_VERSION", "7")]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let text = String::from_utf8_lossy(&out.stdout);
    // The simulator has no driver files: the GTT is unknown there.
    assert!(
        text.contains("APU            shares the host's memory: the host memory it maps unknown; 1.0 GiB usable"),
        "{text}"
    );
    let plain = String::from_utf8_lossy(&info(&[], &[]).stdout).into_owned();
    assert!(!plain.contains("APU"), "{plain}");
    let older = info(&["--json"], &[("AMDGPU_SIM_APU", "on"), ("AMDGPU_SIM_HIP_VERSION", "6")]);
    assert!(String::from_utf8_lossy(&older.stdout).contains("\"integrated\":false"), "HIP 6.0 never says so");
}
