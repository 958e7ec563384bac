//! Where simulated device memory lies: each device has its own range of
//! addresses, so a pointer names its device.

use std::collections::BTreeMap;

/// Where device 0's addresses start: in the upper half of the 64-bit
/// address space, which the kernel keeps for itself on Linux, macOS and
/// Windows, so no host pointer can ever look like a device pointer. Device
/// pointers are never dereferenced by the host, only named.
pub(crate) const BASE: usize = 0xffff_a000_0000_0000;

#[cfg(not(target_pointer_width = "64"))]
compile_error!("the HIP simulator needs a 64-bit address space");
/// The address range of one device: 1 TiB.
pub(crate) const DEVICE_SPAN: usize = 1 << 40;

/// The most devices the simulator offers (each has its own address range).
pub const MAX_DEVICES: usize = 64;

/// The entry of `map` (keyed by where each starts) whose extent, `len` of
/// it, holds `address`, with its start: how every table of allocations
/// here is looked up by an address inside one.
pub(crate) fn holding<T>(map: &BTreeMap<usize, T>, address: usize, len: impl Fn(&T) -> usize) -> Option<(usize, &T)> {
    let (&start, entry) = map.range(..=address).next_back()?;
    (address - start < len(entry)).then_some((start, entry))
}

/// The device whose address range holds `address`, if it is a device address.
pub(crate) fn device_of(address: usize) -> Option<usize> {
    if address < BASE {
        return None;
    }
    let device = (address - BASE) / DEVICE_SPAN;
    (device < MAX_DEVICES).then_some(device)
}
