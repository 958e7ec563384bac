//! `amdgpu-info`: the backend, its libraries, each device and its pool.
//!
//! ```text
//! amdgpu-info          # a readable report
//! amdgpu-info --json   # the same as JSON, for scripts
//! ```
//!
//! Exits 1 with a one-line cause and a hint when there is no usable device,
//! 2 on a bad argument.

use amdgpu::{Device, Error};
use std::fmt::Write as _;
use std::process::ExitCode;

struct DeviceInfo {
    ordinal: usize,
    name: String,
    architecture: (u32, u32),
    compute_units: u32,
    wavefront: u32,
    clock_mhz: u32,
    total: usize,
    free: usize,
    pool: hip_pool::PoolStats,
}

fn device_info(device: Device) -> Result<DeviceInfo, Error> {
    let (free, total) = device.mem_info()?;
    Ok(DeviceInfo {
        ordinal: device.ordinal(),
        name: device.name()?,
        architecture: device.architecture()?,
        compute_units: device.compute_units()?,
        wavefront: device.wavefront_size()?,
        clock_mhz: device.clock_khz()? / 1000,
        total,
        free,
        pool: amdgpu::pool::stats(device),
    })
}

fn libraries() -> Vec<(String, bool)> {
    amdgpu::sys::Library::ALL.iter().map(|l| (l.to_string(), amdgpu::sys::available(*l))).collect()
}

fn json_string(s: &str) -> String {
    let mut out = String::from("\"");
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            c if (c as u32) < 0x20 => {
                let _ = write!(out, "\\u{:04x}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
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
    let mut out = String::new();
    if json {
        let _ = write!(out, "{{\"backend\":{},\"libraries\":{{", json_string(&backend.to_string()));
        let entries: Vec<String> = libs.iter().map(|(n, a)| format!("{}:{a}", json_string(n))).collect();
        let _ = write!(out, "{}}},\"devices\":[", entries.join(","));
        let devices: Vec<String> = infos
            .iter()
            .map(|i| {
                format!(
                    "{{\"ordinal\":{},\"name\":{},\"architecture\":\"{}.{}\",\"compute_units\":{},\"wavefront_size\":{},\
                     \"clock_mhz\":{},\"total_memory\":{},\"free_memory\":{},\"pool\":{{\"allocated\":{},\"reserved\":{},\
                     \"hits\":{},\"misses\":{}}}}}",
                    i.ordinal,
                    json_string(&i.name),
                    i.architecture.0,
                    i.architecture.1,
                    i.compute_units,
                    i.wavefront,
                    i.clock_mhz,
                    i.total,
                    i.free,
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
        let libs: Vec<String> =
            libs.iter().map(|(n, a)| format!("{n} ({})", if *a { "available" } else { "unavailable" })).collect();
        let _ = writeln!(out, "libraries  {}", libs.join(", "));
        for i in &infos {
            let _ = writeln!(out, "\ndevice {}: {}", i.ordinal, i.name);
            let _ = writeln!(out, "  architecture   {}.{}", i.architecture.0, i.architecture.1);
            let _ = writeln!(out, "  compute units  {} (wavefront {})", i.compute_units, i.wavefront);
            let _ = writeln!(out, "  clock          {} MHz", i.clock_mhz);
            let _ = writeln!(out, "  memory         {:.1} GiB free of {:.1} GiB", gib(i.free), gib(i.total));
            let _ = writeln!(out, "  pool           {} allocated, {} reserved", i.pool.allocated, i.pool.reserved);
        }
    }
    Ok(out)
}

fn main() -> ExitCode {
    let mut json = false;
    for arg in std::env::args().skip(1) {
        match arg.as_str() {
            "--json" => json = true,
            "-h" | "--help" => {
                println!("usage: amdgpu-info [--json]\n\nThe backend, its libraries, each device and its memory pool.");
                return ExitCode::SUCCESS;
            }
            other => {
                eprintln!("amdgpu-info: unknown argument {other:?}; usage: amdgpu-info [--json]");
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
