//! `cargo xtask audit`: run the workspace's integration tests with the
//! `tls-audit` feature and print, per resource drop, how often it ran and
//! how often it touched per-thread state (the goal is 0 everywhere). Fails
//! if any count is above 0.

use std::collections::BTreeMap;
use std::path::Path;
use std::process::Command;

/// Run the audit from the workspace `root`.
pub fn run(root: &Path) -> Result<(), String> {
    let log = root.join("target").join("tls-audit.log");
    let _ = std::fs::remove_file(&log);
    std::fs::create_dir_all(root.join("target")).map_err(|e| e.to_string())?;
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_string());
    let status = Command::new(cargo)
        .current_dir(root)
        .args(["test", "-p", "amdgpu-tests", "--features", "amdgpu-tests/tls-audit"])
        .env("AMDGPU_TLS_AUDIT_FILE", &log)
        .status()
        .map_err(|e| format!("cannot run cargo test: {e}"))?;
    if !status.success() {
        return Err(format!("the audited test run failed ({status})"));
    }
    let text = std::fs::read_to_string(&log).unwrap_or_default();
    let (drops, accesses) = tally(&text);
    println!("{}", table(&drops, &accesses));
    let total: u64 = accesses.values().sum();
    if total > 0 {
        return Err(format!("{total} per-thread-state access(es) from drops; the goal is 0"));
    }
    if drops.is_empty() {
        return Err("no resource drop was recorded: the audit did not run".to_string());
    }
    Ok(())
}

/// Drops run per drop site, and accesses per (drop site, access site).
fn tally(text: &str) -> (BTreeMap<String, u64>, BTreeMap<(String, String), u64>) {
    let mut drops = BTreeMap::new();
    let mut accesses = BTreeMap::new();
    for line in text.lines() {
        let fields: Vec<&str> = line.split('\t').collect();
        match fields.as_slice() {
            ["drop", site] => *drops.entry(site.to_string()).or_insert(0) += 1,
            ["access", drop_site, site] => {
                *accesses.entry((drop_site.to_string(), site.to_string())).or_insert(0) += 1;
            }
            _ => {}
        }
    }
    (drops, accesses)
}

fn table(drops: &BTreeMap<String, u64>, accesses: &BTreeMap<(String, String), u64>) -> String {
    let mut out = String::from("Thread-state access from a drop            drops run   accesses\n");
    for (site, runs) in drops {
        let hits: u64 = accesses.iter().filter(|((d, _), _)| d == site).map(|(_, n)| n).sum();
        out.push_str(&format!("{site:<44}{runs:>9}{hits:>11}\n"));
        for ((d, access), n) in accesses {
            if d == site {
                out.push_str(&format!("    via {access:<36}{:>9}{n:>11}\n", ""));
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_table_counts_drops_and_accesses_per_site() {
        let log = "drop\thip-core/src/stream.rs:20:22\n\
                   drop\thip-core/src/stream.rs:20:22\n\
                   drop\thip-core/src/event.rs:9:1\n\
                   access\thip-core/src/event.rs:9:1\thip-core/src/state.rs:1:1\n";
        let (drops, accesses) = tally(log);
        assert_eq!(drops["hip-core/src/stream.rs:20:22"], 2);
        assert_eq!(accesses.values().sum::<u64>(), 1);
        let text = table(&drops, &accesses);
        assert!(text.contains("hip-core/src/event.rs:9:1"), "{text}");
        assert!(text.contains("via hip-core/src/state.rs:1:1"), "{text}");
    }
}
