//! The [`Device`] type itself: a GPU as its ordinal, a plain value.
//!
//! It sits below every module that makes HIP calls, so that errors can
//! name devices without depending on them. What asks HIP about a device
//! (its count, name and attributes, synchronizing it) is in `device`.

/// A GPU, by its 0-based ordinal. Cheap to copy; valid for the process.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Device(usize);

impl Device {
    /// The device with this ordinal, unchecked: for ordinals HIP or this
    /// crate produced (the checked constructor is `Device::new`).
    pub(crate) fn from_ordinal_unchecked(ordinal: usize) -> Device {
        Device(ordinal)
    }

    /// The 0-based ordinal.
    pub fn ordinal(self) -> usize {
        self.0
    }
}

impl std::fmt::Display for Device {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "device {}", self.0)
    }
}
