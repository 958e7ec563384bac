//! [`MemoryInfo`]: what a device's memory holds, and on an APU, how much of
//! the host's memory the GPU can use as well.

use std::path::Path;

/// A device's memory ([`Device::memory`](crate::Device::memory)).
///
/// On an APU (MI300A, Ryzen and Strix Halo APUs) HIP's figures are what
/// the kernel driver calls the GPU's local memory: the carve-out the BIOS
/// sets aside, or, from Linux 6.10 with a carve-out smaller than the GTT,
/// the GTT's limit. With a small carve-out on an older kernel,
/// `hipMemGetInfo` says 512 MiB on a machine whose GPU reaches tens of GiB
/// of host memory through host-pinned and managed allocations (the GTT),
/// as fast as its own. [`MemoryInfo::usable`] counts that.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct MemoryInfo {
    /// Bytes free for device allocations (`hipMemGetInfo`).
    pub free: usize,
    /// The device's memory (`hipMemGetInfo`); on an APU, the local memory
    /// the kernel driver reports (see above).
    pub total: usize,
    /// Whether the device is an APU, sharing the host's memory
    /// (`hipDeviceAttributeIntegrated`). HIP sets it from 6.2 (0 on an APU
    /// before); CUDA for integrated GPUs.
    pub integrated: bool,
    /// On an AMD APU, the host memory the GPU maps (the driver's GTT,
    /// which host-pinned and managed memory take), from the amdgpu
    /// driver's `mem_info_gtt_total` and `mem_info_gtt_used`; `None`
    /// elsewhere, and where the driver's files cannot be read.
    pub host_shared: Option<HostShared>,
}

/// The host memory an APU's GPU maps: the amdgpu driver's GTT.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct HostShared {
    /// Bytes mapped now.
    pub used: usize,
    /// The most that can be.
    pub total: usize,
}

impl MemoryInfo {
    /// What the GPU can use now: [`free`](Self::free), or on an APU the
    /// GTT's free bytes where more. Not their sum: from Linux 6.10 the
    /// GTT's limit is what [`total`](Self::total) reports, one memory
    /// counted twice.
    pub fn usable(&self) -> usize {
        let shared = self.host_shared.map_or(0, |gtt| gtt.total.saturating_sub(gtt.used));
        self.free.max(shared)
    }

    pub(crate) fn new(free: usize, total: usize, integrated: bool, host_shared: Option<HostShared>) -> MemoryInfo {
        MemoryInfo { free, total, integrated, host_shared }
    }
}

/// The GTT of the amdgpu device whose sysfs folder is `device`, or `None`
/// where its files are missing or unreadable.
pub(crate) fn gtt_at(device: &Path) -> Option<HostShared> {
    let read = |name: &str| std::fs::read_to_string(device.join(name)).ok()?.trim().parse::<usize>().ok();
    Some(HostShared { used: read("mem_info_gtt_used")?, total: read("mem_info_gtt_total")? })
}

/// The sysfs folder of the PCI device at `bus_id` (as
/// `hipDeviceGetPCIBusId` writes it; sysfs spells it in lower case).
pub(crate) fn sysfs_folder(bus_id: &str) -> std::path::PathBuf {
    Path::new("/sys/bus/pci/devices").join(bus_id.trim().to_ascii_lowercase())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_gtt_is_read_from_the_drivers_files_and_counted_where_larger() {
        let folder = std::env::temp_dir().join(format!("hip-core-gtt-{}", std::process::id()));
        std::fs::create_dir_all(&folder).unwrap();
        assert_eq!(gtt_at(&folder), None, "no driver files");
        std::fs::write(folder.join("mem_info_gtt_total"), "68719476736\n").unwrap();
        std::fs::write(folder.join("mem_info_gtt_used"), "1073741824\n").unwrap();
        let gtt = gtt_at(&folder).unwrap();
        assert_eq!(gtt, HostShared { used: 1 << 30, total: 64 << 30 });
        // A 512 MiB carve-out on an older kernel: the GTT is what counts.
        let small = MemoryInfo::new(500 << 20, 512 << 20, true, Some(gtt));
        assert_eq!(small.usable(), 63 << 30);
        // A large carve-out: its own free bytes, never the sum.
        let large = MemoryInfo::new(90 << 30, 96 << 30, true, Some(gtt));
        assert_eq!(large.usable(), 90 << 30);
        assert_eq!(MemoryInfo::new(7, 8, false, None).usable(), 7);
        std::fs::write(folder.join("mem_info_gtt_used"), "lots").unwrap();
        assert_eq!(gtt_at(&folder), None, "unreadable");
        std::fs::remove_dir_all(&folder).unwrap();
        assert_eq!(sysfs_folder("0000:C3:00.0\n"), Path::new("/sys/bus/pci/devices/0000:c3:00.0"));
    }
}
