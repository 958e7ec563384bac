//! `amdgpu-info`: the backend, its runtime and compiler, its libraries,
//! each device and its pool; `amdgpu-info compile`, which compiles HIP
//! files for named targets with no GPU; and `amdgpu-info memory`, which
//! summarizes a memory history a program wrote
//! (`AMDGPU_MEMORY_HISTORY=memory.jsonl`).
//!
//! ```text
//! amdgpu-info                                       # a readable report
//! amdgpu-info --json                                # the same as JSON, for scripts
//! amdgpu-info compile --target gfx90a --target gfx942:sramecc+:xnack- k.hip [-- OPTIONS]
//! amdgpu-info memory memory.jsonl                   # peaks, waits, failures per device
//! ```
//!
//! The report exits 1 with a one-line cause and a hint when there is no
//! usable device. `compile` prints each code object's size and kind, or
//! the compiler's log, and exits 1 if any compilation failed. `memory`
//! exits 1 if the file cannot be read or is not a history. All exit 2 on
//! a bad argument.

use amdgpu::sys::shared::json::string as json_string;
use amdgpu::{Device, Error, Program, Target};
use std::fmt::Write as _;
use std::process::ExitCode;

struct DeviceInfo {
    ordinal: usize,
    name: String,
    architecture: (u32, u32),
    target: String,
    compute_units: u32,
    wavefront: u32,
    clock_mhz: u32,
    memory: amdgpu::MemoryInfo,
    pool: hip_pool::PoolStats,
}

fn device_info(device: Device) -> Result<DeviceInfo, Error> {
    Ok(DeviceInfo {
        ordinal: device.ordinal(),
        name: device.name()?,
        architecture: device.architecture()?,
        target: device.target()?,
        compute_units: device.compute_units()?,
        wavefront: device.wavefront_size()?,
        clock_mhz: device.clock_khz()? / 1000,
        memory: device.memory()?,
        pool: amdgpu::pool::stats(device),
    })
}

fn libraries() -> Vec<(String, bool)> {
    amdgpu::sys::Library::ALL.iter().map(|l| (l.to_string(), amdgpu::sys::available(*l))).collect()
}

/// The runtime's version and the compiler: one line each.
fn versions() -> (String, String) {
    let runtime = match amdgpu::runtime_version() {
        Ok((major, minor, patch)) => format!("{major}.{minor}.{patch}"),
        Err(e) => format!("unknown ({e})"),
    };
    let compiler = match amdgpu::sys::compiler() {
        Ok(c) => format!("{} {}.{} ({})", c.kind, c.version.0, c.version.1, c.library),
        Err(e) => format!("unavailable ({e})"),
    };
    (runtime, compiler)
}

const USAGE: &str = "usage: amdgpu-info [--json]\n       amdgpu-info compile --target TARGET [--target TARGET ...] FILE.hip [FILE.hip ...] [-- OPTION ...]\n       amdgpu-info memory FILE.jsonl";

/// `amdgpu-info memory`: the summary of a memory history file; the exit
/// code.
fn memory(args: &[String]) -> ExitCode {
    let [file] = args else {
        eprintln!("amdgpu-info memory: name one history file (written with AMDGPU_MEMORY_HISTORY=FILE.jsonl)\n{USAGE}");
        return ExitCode::from(2);
    };
    let text = match std::fs::read_to_string(file) {
        Ok(text) => text,
        Err(e) => {
            eprintln!("{file}: cannot read it: {e}");
            return ExitCode::FAILURE;
        }
    };
    match amdgpu::pool::history::read_json_lines(&text) {
        Ok(events) => {
            print!("{}", amdgpu::pool::history::Summary::of(&events));
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("{file}: {e} (write the history with AMDGPU_MEMORY_HISTORY=FILE.jsonl or history_json_lines)");
            ExitCode::FAILURE
        }
    }
}

/// `amdgpu-info compile`: every file for every target; the exit code.
fn compile(args: &[String]) -> ExitCode {
    let (mut targets, mut files, mut options) = (Vec::new(), Vec::new(), Vec::new());
    let mut args = args.iter();
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--target" => match args.next().map(|t| t.parse::<Target>()) {
                Some(Ok(target)) => targets.push(target),
                Some(Err(e)) => {
                    eprintln!("amdgpu-info compile: {e}");
                    return ExitCode::from(2);
                }
                None => {
                    eprintln!("amdgpu-info compile: --target needs a target\n{USAGE}");
                    return ExitCode::from(2);
                }
            },
            "--" => options.extend(args.by_ref().cloned()),
            other if other.starts_with('-') => {
                eprintln!("amdgpu-info compile: unknown argument {other:?}\n{USAGE}");
                return ExitCode::from(2);
            }
            file => files.push(file.to_owned()),
        }
    }
    if targets.is_empty() || files.is_empty() {
        eprintln!("amdgpu-info compile: name at least one --target and one file\n{USAGE}");
        return ExitCode::from(2);
    }
    let mut failed = 0;
    for file in &files {
        let source = match std::fs::read_to_string(file) {
            Ok(source) => source,
            Err(e) => {
                eprintln!("{file}: cannot read it: {e}");
                failed += 1;
                continue;
            }
        };
        let program = Program::new(source).name(file.as_str()).options(options.iter().cloned());
        for target in &targets {
            match program.compile_for(target) {
                Ok(code) => println!("{file} {target}: {} bytes, {}", code.bytes().len(), code.kind()),
                Err(e) => {
                    println!("{file} {target}: failed\n{e}");
                    failed += 1;
                }
            }
        }
    }
    if failed > 0 {
        eprintln!("amdgpu-info compile: {failed} of {} compilations failed", files.len() * targets.len());
        return ExitCode::FAILURE;
    }
    ExitCode::SUCCESS
}

fn gib(bytes: usize) -> f64 {
    bytes as f64 / (1u64 << 30) as f64
}

fn report(json: bool) -> Result<String, (String, String)> {
    let backend = amdgpu::backend();
    if let Err(e) = amdgpu::sys::hip() {
        return Err((e.to_string(), "set AMDGPU_BACKEND=sim to use the built-in simulator".into()));
    }
    let devices = Device::all().map_err(|e| (e.to_string(), "check the GPU driver".into()))?;
    if devices.is_empty() {
        return Err((
            format!("no GPU device: the {backend} backend reports 0 devices"),
            "check that the GPU is visible (driver loaded, device permissions), or use AMDGPU_BACKEND=sim".into(),
        ));
    }
    let infos: Vec<DeviceInfo> = devices
        .iter()
        .map(|d| device_info(*d))
        .collect::<Result<_, _>>()
        .map_err(|e| (e.to_string(), "the runtime failed while answering; see the cause".into()))?;
    let libs = libraries();
    let (runtime, compiler) = versions();
    let mut out = String::new();
    if json {
        let _ = write!(
            out,
            "{{\"backend\":{},\"runtime\":{},\"compiler\":{},\"libraries\":{{",
            json_string(&backend.to_string()),
            json_string(&runtime),
            json_string(&compiler)
        );
        let entries: Vec<String> = libs.iter().map(|(n, a)| format!("{}:{a}", json_string(n))).collect();
        let _ = write!(out, "{}}},\"devices\":[", entries.join(","));
        let devices: Vec<String> = infos
            .iter()
            .map(|i| {
                format!(
                    "{{\"ordinal\":{},\"name\":{},\"architecture\":\"{}.{}\",\"target\":{},\"compute_units\":{},\"wavefront_size\":{},\
                     \"clock_mhz\":{},\"total_memory\":{},\"free_memory\":{},\"integrated\":{},\"usable_memory\":{},\"pool\":{{\"allocated\":{},\"reserved\":{},\
                     \"hits\":{},\"misses\":{}}}}}",
                    i.ordinal,
                    json_string(&i.name),
                    i.architecture.0,
                    i.architecture.1,
                    json_string(&i.target),
                    i.compute_units,
                    i.wavefront,
                    i.clock_mhz,
                    i.memory.total,
                    i.memory.free,
                    i.memory.integrated,
                    i.memory.usable(),
                    i.pool.allocated,
                    i.pool.reserved,
                    i.pool.hits,
                    i.pool.misses
                )
            })
            .collect();
        let _ = writeln!(out, "{}]}}", devices.join(","));
    } else {
        let _ = writeln!(out, "backend    {backend}");
        let _ = writeln!(out, "runtime    {runtime}");
        let _ = writeln!(out, "compiler   {compiler}");
        let libs: Vec<String> =
            libs.iter().map(|(n, a)| format!("{n} ({})", if *a { "available" } else { "unavailable" })).collect();
        let _ = writeln!(out, "libraries  {}", libs.join(", "));
        for i in &infos {
            let _ = writeln!(out, "\ndevice {}: {}", i.ordinal, i.name);
            let _ = writeln!(out, "  architecture   {}.{}", i.architecture.0, i.architecture.1);
            let _ = writeln!(out, "  target         {}", i.target);
            let _ = writeln!(out, "  compute units  {} (wavefront {})", i.compute_units, i.wavefront);
            let _ = writeln!(out, "  clock          {} MHz", i.clock_mhz);
            let memory = &i.memory;
            let _ = writeln!(out, "  memory         {:.1} GiB free of {:.1} GiB", gib(memory.free), gib(memory.total));
            if memory.integrated {
                let shared = match memory.host_shared {
                    Some(gtt) => format!("{:.1} GiB of host memory mapped of {:.1} GiB", gib(gtt.used), gib(gtt.total)),
                    None => "the host memory it maps unknown".to_owned(),
                };
                let _ = writeln!(
                    out,
                    "  APU            shares the host's memory: {shared}; {:.1} GiB usable",
                    gib(memory.usable())
                );
            }
            let _ = writeln!(out, "  pool           {} allocated, {} reserved", i.pool.allocated, i.pool.reserved);
        }
    }
    Ok(out)
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args.first().map(String::as_str) {
        Some("compile") => return compile(&args[1..]),
        Some("memory") => return memory(&args[1..]),
        _ => {}
    }
    let mut json = false;
    for arg in &args {
        match arg.as_str() {
            "--json" => json = true,
            "-h" | "--help" => {
                println!(
                    "{USAGE}\n\nThe backend, its runtime and compiler, its libraries, each device and its memory \
                     pool; or, with compile, each FILE compiled for each TARGET (gfx90a, gfx942:sramecc+:xnack-, \
                     sm_90) with no GPU: the code object's size, or the compiler's log."
                );
                return ExitCode::SUCCESS;
            }
            other => {
                eprintln!("amdgpu-info: unknown argument {other:?}\n{USAGE}");
                return ExitCode::from(2);
            }
        }
    }
    match report(json) {
        Ok(text) => {
            print!("{text}");
            ExitCode::SUCCESS
        }
        Err((cause, hint)) => {
            eprintln!("amdgpu-info: {cause} (hint: {hint})");
            ExitCode::FAILURE
        }
    }
}
