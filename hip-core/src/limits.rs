//! A device's launch limits, and launch configurations that respect them.

use crate::{Device, HipError, LaunchConfig, Result};
use hip_sys::hipDeviceAttribute_t as A;
use std::sync::OnceLock;

/// What a device accepts in one launch, read once per device with
/// `hipDeviceGetAttribute`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LaunchLimits {
    /// Threads in one block, all dimensions together.
    pub max_threads_per_block: u32,
    /// Threads per block in x, y, z.
    pub max_block: [u32; 3],
    /// Blocks in x, y, z.
    pub max_grid: [u32; 3],
    /// Dynamic and static shared memory of one block, in bytes.
    pub max_shared_memory_per_block: u32,
    /// Threads per warp (wavefront): 32 on NVIDIA and RDNA, 64 on CDNA.
    pub warp_size: u32,
}

/// Devices whose limits are kept (more are read at every launch).
const CACHED_DEVICES: usize = 64;

impl LaunchLimits {
    /// The limits of `device` (read once, then kept for the process).
    ///
    /// # Errors
    /// As [`Device::attribute`], for the first attribute that cannot be
    /// read; a failure is not kept, so the next call reads again.
    pub fn of(device: Device) -> Result<LaunchLimits> {
        // Read once per device, then without a lock: launches on many
        // threads would otherwise meet on one mutex.
        static CACHE: [OnceLock<LaunchLimits>; CACHED_DEVICES] = [const { OnceLock::new() }; CACHED_DEVICES];
        if let Some(limits) = CACHE.get(device.ordinal()).and_then(OnceLock::get) {
            return Ok(*limits);
        }
        let read = |a| device.attribute(a).map(|v| v.max(0) as u32);
        let limits = LaunchLimits {
            max_threads_per_block: read(A::hipDeviceAttributeMaxThreadsPerBlock)?,
            max_block: [
                read(A::hipDeviceAttributeMaxBlockDimX)?,
                read(A::hipDeviceAttributeMaxBlockDimY)?,
                read(A::hipDeviceAttributeMaxBlockDimZ)?,
            ],
            max_grid: [
                read(A::hipDeviceAttributeMaxGridDimX)?,
                read(A::hipDeviceAttributeMaxGridDimY)?,
                read(A::hipDeviceAttributeMaxGridDimZ)?,
            ],
            max_shared_memory_per_block: read(A::hipDeviceAttributeMaxSharedMemoryPerBlock)?,
            warp_size: read(A::hipDeviceAttributeWarpSize)?.max(1),
        };
        if let Some(slot) = CACHE.get(device.ordinal()) {
            let _ = slot.set(limits);
        }
        Ok(limits)
    }

    /// Whether `config` fits these limits; the error names the value, the
    /// limit and `device`.
    ///
    /// # Errors
    /// [`HipError::InvalidLaunch`] for a zero grid or block dimension, a
    /// dimension above its limit, more than `u32::MAX` threads along an
    /// axis, too many threads per block or too much shared memory.
    pub fn check(&self, config: &LaunchConfig, device: Device) -> Result<()> {
        let axes = ["x", "y", "z"];
        let fail = |problem: String| Err(HipError::InvalidLaunch(format!("launch on {device}: {problem}").into()));
        for (i, axis) in axes.iter().enumerate() {
            if config.grid[i] == 0 || config.block[i] == 0 {
                return fail(format!(
                    "grid {:?} and block {:?} must have no zero dimension (make empty launches no launch)",
                    config.grid, config.block
                ));
            }
            if config.block[i] > self.max_block[i] {
                return fail(format!(
                    "block.{} = {} is above the device's {}",
                    axis, config.block[i], self.max_block[i]
                ));
            }
            if config.grid[i] > self.max_grid[i] {
                return fail(format!("grid.{} = {} is above the device's {}", axis, config.grid[i], self.max_grid[i]));
            }
            // clr's rule: HIP 5.x and 6.x refuse a global size that does not
            // fit 32 bits with a bare hipErrorInvalidConfiguration; 7.x
            // wraps it and launches the wrong number of threads.
            let global = u64::from(config.grid[i]) * u64::from(config.block[i]);
            if global > u64::from(u32::MAX) {
                return fail(format!(
                    "grid.{axis} × block.{axis} = {} × {} = {global} threads along {axis}, above the 4294967295 \
                     (u32::MAX) that HIP counts a launch's threads in: have each thread handle several \
                     elements (a grid-stride loop) or split the launch",
                    config.grid[i], config.block[i]
                ));
            }
        }
        let threads = config.block.iter().map(|&b| u64::from(b)).product::<u64>();
        if threads > u64::from(self.max_threads_per_block) {
            return fail(format!(
                "a block of {:?} = {threads} threads is above the device's {} per block",
                config.block, self.max_threads_per_block
            ));
        }
        if config.shared_memory > self.max_shared_memory_per_block {
            return fail(format!(
                "{} bytes of dynamic shared memory per block is above the device's {}",
                config.shared_memory, self.max_shared_memory_per_block
            ));
        }
        Ok(())
    }

    /// The block size for 1-D work: `wanted` threads (256 if 0), at most
    /// the device's maximum, rounded down to whole warps.
    pub fn block_size(&self, wanted: u32) -> u32 {
        let wanted = if wanted == 0 { 256 } else { wanted };
        let most = wanted.min(self.max_threads_per_block).min(self.max_block[0]).max(1);
        // The fields are public: a warp of 0 counts as 1.
        let warp = self.warp_size.max(1);
        if most >= warp {
            most - most % warp
        } else {
            most
        }
    }
}

impl LaunchConfig {
    /// A 1-D launch of one thread per element for `n` elements on
    /// `device`, in blocks of 256 threads (fewer where the device allows
    /// fewer), checked against the device's limits: an error if `n`
    /// needs more blocks than the device's grid allows.
    ///
    /// # Errors
    /// As [`LaunchConfig::linear_with_block`].
    ///
    /// # Examples
    /// ```
    /// use hip_core::{Device, LaunchConfig};
    ///
    /// let config = LaunchConfig::linear(Device::new(0)?, 1000)?;
    /// assert!(config.threads() >= 1000);
    /// assert_eq!((config.grid[1], config.block[1], config.shared_memory), (1, 1, 0));
    /// # Ok::<(), hip_core::HipError>(())
    /// ```
    pub fn linear(device: Device, n: usize) -> Result<LaunchConfig> {
        Self::linear_with_block(device, n, 256)
    }

    /// [`LaunchConfig::linear`] in blocks of about `block` threads (see
    /// [`LaunchLimits::block_size`]).
    ///
    /// # Errors
    /// As [`LaunchLimits::of`]; [`HipError::InvalidLaunch`] when `n` needs
    /// more blocks than the device's `grid.x` limit.
    pub fn linear_with_block(device: Device, n: usize, block: u32) -> Result<LaunchConfig> {
        let limits = LaunchLimits::of(device)?;
        let block = limits.block_size(block);
        let blocks = n.max(1).div_ceil(block as usize);
        if blocks > limits.max_grid[0] as usize {
            return Err(HipError::InvalidLaunch(
                format!(
                    "launch on {device}: {n} elements need {blocks} blocks of {block} threads, above the device's \
                     grid.x limit of {}; use a grid-stride kernel or split the work",
                    limits.max_grid[0]
                )
                .into(),
            ));
        }
        Ok(LaunchConfig { grid: [blocks as u32, 1, 1], block: [block, 1, 1], shared_memory: 0 })
    }

    /// A launch of blocks of `block` threads covering `extent` elements in
    /// x, y and z (one thread per element; zeros count as 1), checked
    /// against `device`'s limits.
    ///
    /// # Errors
    /// [`HipError::InvalidLaunch`] when an axis needs more than `u32::MAX`
    /// blocks; else as [`LaunchLimits::of`] and [`LaunchLimits::check`].
    pub fn covering(device: Device, extent: [usize; 3], block: [u32; 3]) -> Result<LaunchConfig> {
        let mut grid = [1u32; 3];
        for i in 0..3 {
            let blocks = extent[i].max(1).div_ceil(block[i].max(1) as usize);
            grid[i] = u32::try_from(blocks).map_err(|_| {
                HipError::InvalidLaunch(
                    format!(
                        "launch on {device}: {} elements in {} need {blocks} blocks",
                        extent[i],
                        ["x", "y", "z"][i]
                    )
                    .into(),
                )
            })?;
        }
        let config = LaunchConfig { grid, block, shared_memory: 0 };
        LaunchLimits::of(device)?.check(&config, device)?;
        Ok(config)
    }

    /// The same launch with `bytes` of dynamic shared memory per block.
    pub fn with_shared_memory(self, bytes: u32) -> LaunchConfig {
        LaunchConfig { shared_memory: bytes, ..self }
    }

    /// Threads of the whole launch: grid × block, over x, y and z, in a
    /// `u128`, saturating at `u128::MAX` (which no array is long enough
    /// for). Any configuration the device accepts has at most 2^96.
    pub fn threads(&self) -> u128 {
        self.block.iter().fold(self.blocks(), |n, &b| n.saturating_mul(u128::from(b)))
    }

    /// Blocks of the whole launch: grid over x, y and z (at most 2^96, so
    /// exact in a `u128`).
    pub fn blocks(&self) -> u128 {
        self.grid.iter().map(|&g| u128::from(g)).product()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const LIMITS: LaunchLimits = LaunchLimits {
        max_threads_per_block: 1024,
        max_block: [1024, 1024, 64],
        max_grid: [i32::MAX as u32, 65_535, 65_535],
        max_shared_memory_per_block: 48 * 1024,
        warp_size: 32,
    };

    #[test]
    fn block_sizes_stay_within_the_device_and_whole_warps() {
        assert_eq!(LIMITS.block_size(0), 256);
        assert_eq!(LIMITS.block_size(4096), 1024);
        assert_eq!(LIMITS.block_size(100), 96);
        assert_eq!(LIMITS.block_size(7), 7);
    }

    #[test]
    fn checks_name_the_value_and_the_limit() {
        let device = Device::from_ordinal_unchecked(0);
        let ok = LaunchConfig { grid: [10, 1, 1], block: [256, 1, 1], shared_memory: 1024 };
        LIMITS.check(&ok, device).expect("fits");
        let cases = [
            (LaunchConfig { block: [2048, 1, 1], ..ok }, "block.x = 2048 is above the device's 1024"),
            (LaunchConfig { block: [64, 32, 1], ..ok }, "2048 threads is above the device's 1024 per block"),
            (LaunchConfig { grid: [1, 70_000, 1], ..ok }, "grid.y = 70000 is above the device's 65535"),
            (LaunchConfig { grid: [0, 1, 1], ..ok }, "no zero dimension"),
            (
                LaunchConfig { grid: [1 << 23, 1, 1], block: [1024, 1, 1], shared_memory: 0 },
                "grid.x × block.x = 8388608 × 1024 = 8589934592 threads along x",
            ),
            (ok.with_shared_memory(64 * 1024), "65536 bytes of dynamic shared memory"),
        ];
        for (config, expected) in cases {
            let error = LIMITS.check(&config, device).expect_err("refused").to_string();
            assert!(error.contains(expected) && error.contains("device 0"), "{error}");
        }
        assert_eq!(LaunchConfig { grid: [2, 3, 1], block: [4, 1, 5], shared_memory: 0 }.threads(), 120);
    }
}
