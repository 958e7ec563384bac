//! What the workspace's benchmarks share: reading criterion's estimates to
//! print ratios measured in the same run. Included by path from each
//! crate's benches.

use std::path::PathBuf;

/// Where criterion keeps its results: `CRITERION_HOME`, else the target folder.
pub fn criterion_dir() -> PathBuf {
    std::env::var_os("CRITERION_HOME")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(concat!(env!("CARGO_TARGET_TMPDIR"), "/../criterion")))
}

/// criterion's mean estimate for benchmark `id` of `group`, in ns.
pub fn mean_ns(group: &str, id: &str) -> Option<f64> {
    let text = std::fs::read_to_string(criterion_dir().join(group).join(id).join("new/estimates.json")).ok()?;
    let mean = &text[text.find("\"mean\"")?..];
    let point = &mean[mean.find("\"point_estimate\":")? + "\"point_estimate\":".len()..];
    point[..point.find([',', '}'])?].trim().parse().ok()
}
