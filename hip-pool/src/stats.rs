//! Per-device pool statistics.

use std::fmt;

/// What one device's pool has done (exact: kept under the pool's lock).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct PoolStats {
    /// Bytes in live buffers (block sizes, after rounding).
    pub allocated: usize,
    /// The most `allocated` has been.
    pub allocated_peak: usize,
    /// Bytes held from the driver: allocated plus cached.
    pub reserved: usize,
    /// The most `reserved` has been.
    pub reserved_peak: usize,
    /// Allocations served from the cache.
    pub hits: u64,
    /// Allocations that needed memory from the driver.
    pub misses: u64,
    /// Driver allocations (`hipMalloc` and friends).
    pub driver_allocations: u64,
    /// Driver frees.
    pub driver_frees: u64,
    /// Chunks of the expandable strategy moved from free blocks to where a
    /// segment grows, in place of new memory (chunks whose work was known
    /// finished: the stream idle or waited for, or a fence done).
    pub moved_chunks: u64,
    /// Retries after an out-of-memory answer.
    pub oom_retries: u64,
    /// Allocations that failed out of memory after every retry.
    pub ooms: u64,
    /// Reclaims run (explicit, cleanup, soft limit, out-of-memory).
    pub reclaims: u64,
    /// Live buffers.
    pub live_buffers: usize,
    /// Times the pool's lock was taken (counted under it): what threads
    /// sharing the device can contend for. A block from the thread's own
    /// cache takes it 0 times, one from the pool once.
    pub lock_acquisitions: u64,
}

impl PoolStats {
    /// Cached bytes: reserved but not allocated.
    pub fn cached(&self) -> usize {
        // The fields are public: a value made by hand may say less.
        self.reserved.saturating_sub(self.allocated)
    }
}

fn human(bytes: usize) -> String {
    const UNITS: [&str; 5] = ["B", "KiB", "MiB", "GiB", "TiB"];
    let mut value = bytes as f64;
    let mut unit = 0;
    while value >= 1024.0 && unit + 1 < UNITS.len() {
        value /= 1024.0;
        unit += 1;
    }
    if unit == 0 {
        format!("{bytes} B")
    } else {
        format!("{value:.1} {}", UNITS[unit])
    }
}

impl fmt::Display for PoolStats {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "             current        peak")?;
        writeln!(f, "allocated  {:>10}  {:>10}", human(self.allocated), human(self.allocated_peak))?;
        writeln!(f, "reserved   {:>10}  {:>10}", human(self.reserved), human(self.reserved_peak))?;
        writeln!(f, "cached     {:>10}", human(self.cached()))?;
        writeln!(f, "buffers    {:>10}", self.live_buffers)?;
        let total = self.hits.saturating_add(self.misses);
        let rate = if total == 0 { 0.0 } else { 100.0 * self.hits as f64 / total as f64 };
        writeln!(f, "cache      {} hits, {} misses ({rate:.1}% hits)", self.hits, self.misses)?;
        writeln!(f, "driver     {} allocations, {} frees", self.driver_allocations, self.driver_frees)?;
        if self.moved_chunks > 0 {
            writeln!(f, "moved      {} chunks to where a segment grew", self.moved_chunks)?;
        }
        writeln!(f, "pressure   {} reclaims, {} OOM retries, {} OOMs", self.reclaims, self.oom_retries, self.ooms)?;
        write!(f, "lock       {} acquisitions", self.lock_acquisitions)
    }
}
