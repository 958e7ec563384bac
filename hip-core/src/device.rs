//! Devices: ordinals, attributes, and device-wide operations that take
//! their device explicitly.

use crate::{raw, Device, HipError, MemoryInfo, Result};
use hip_sys::hipDeviceAttribute_t;
use hip_sys::sync::MutexExt;
use std::sync::{Mutex, OnceLock};

static COUNT: OnceLock<Result<usize>> = OnceLock::new();

impl Device {
    /// How many devices the backend offers (`hipGetDeviceCount`; 0 when it
    /// has none).
    ///
    /// # Errors
    /// [`HipError::Backend`] when no backend loads; HIP's status of
    /// `hipGetDeviceCount` ([`HipError::Call`]). The first answer is kept,
    /// so a failure is returned again on every later call.
    ///
    /// # Examples
    /// ```
    /// use hip_core::Device;
    ///
    /// let count = Device::count()?;
    /// println!("{count} devices");
    /// if count >= 2 {
    ///     assert_eq!(Device::new(1)?.ordinal(), 1);
    /// }
    /// # Ok::<(), hip_core::HipError>(())
    /// ```
    #[doc(alias = "hipGetDeviceCount")]
    pub fn count() -> Result<usize> {
        COUNT.get_or_init(raw::device::count).clone()
    }

    /// The device with this ordinal; `InvalidDevice` (naming the ordinal
    /// and the count) if there is none.
    ///
    /// # Errors
    /// [`HipError::InvalidDevice`] when `ordinal` is not below the count;
    /// else as [`Device::count`].
    ///
    /// # Examples
    /// ```
    /// use hip_core::{Device, HipError};
    ///
    /// let first = Device::new(0)?;
    /// assert_eq!(first.ordinal(), 0);
    /// let past_the_end = Device::new(Device::count()?);
    /// assert!(matches!(past_the_end, Err(HipError::InvalidDevice { .. })));
    /// # Ok::<(), hip_core::HipError>(())
    /// ```
    pub fn new(ordinal: usize) -> Result<Device> {
        let count = Device::count()?;
        if ordinal < count {
            Ok(Device::from_ordinal_unchecked(ordinal))
        } else {
            Err(HipError::InvalidDevice { ordinal, count })
        }
    }

    /// Every device, in ordinal order.
    ///
    /// # Errors
    /// As [`Device::count`].
    ///
    /// # Examples
    /// ```
    /// use hip_core::Device;
    ///
    /// let devices = Device::all()?;
    /// assert_eq!(devices.len(), Device::count()?);
    /// for device in &devices {
    ///     println!("{device}: {}", device.name()?);
    /// }
    /// # Ok::<(), hip_core::HipError>(())
    /// ```
    pub fn all() -> Result<Vec<Device>> {
        Ok((0..Device::count()?).map(Device::from_ordinal_unchecked).collect())
    }

    /// The device's name as the runtime reports it (`hipDeviceGetName`).
    ///
    /// # Errors
    /// HIP's status of `hipDeviceGetName` ([`HipError::Call`]);
    /// [`HipError::Backend`] when no backend loads.
    #[doc(alias = "hipDeviceGetName")]
    pub fn name(self) -> Result<String> {
        raw::device::name(self)
    }

    /// A raw attribute through `hipDeviceGetAttribute`.
    ///
    /// # Errors
    /// HIP's status of `hipDeviceGetAttribute` ([`HipError::Call`]), e.g.
    /// for an attribute the runtime does not know; [`HipError::Backend`]
    /// when no backend loads.
    #[doc(alias = "hipDeviceGetAttribute")]
    pub fn attribute(self, attribute: hipDeviceAttribute_t) -> Result<i32> {
        raw::device::attribute(self, attribute)
    }

    /// Compute units (multiprocessors).
    ///
    /// # Errors
    /// As [`Device::attribute`].
    pub fn compute_units(self) -> Result<u32> {
        Ok(self.attribute(hipDeviceAttribute_t::hipDeviceAttributeMultiprocessorCount)? as u32)
    }

    /// Threads per wavefront (64 on CDNA, 32 on RDNA and NVIDIA).
    ///
    /// # Errors
    /// As [`Device::attribute`].
    pub fn wavefront_size(self) -> Result<u32> {
        Ok(self.attribute(hipDeviceAttribute_t::hipDeviceAttributeWarpSize)? as u32)
    }

    /// Peak clock in kHz.
    ///
    /// # Errors
    /// As [`Device::attribute`].
    pub fn clock_khz(self) -> Result<u32> {
        Ok(self.attribute(hipDeviceAttribute_t::hipDeviceAttributeClockRate)? as u32)
    }

    /// The target this device compiles for, as a compiler names it: the
    /// full target id on amd (`gfx90a:sramecc+:xnack-`, its
    /// `gcnArchName`: the features decide which code objects load, so
    /// they are part of every cache key; the name and version where the id
    /// cannot be read), `sm_XY` on nvidia, `sim` on the simulator. Read
    /// once per device.
    ///
    /// # Errors
    /// HIP's status, where the device's attributes cannot be read.
    pub fn target(self) -> Result<String> {
        static TARGETS: Mutex<Vec<Option<String>>> = Mutex::new(Vec::new());
        if let Some(Some(known)) = TARGETS.lock_unpoisoned().get(self.ordinal()) {
            return Ok(known.clone());
        }
        let (major, minor) = self.architecture()?;
        let target = match hip_sys::backend() {
            hip_sys::Backend::Nvidia => format!("sm_{major}{minor}"),
            hip_sys::Backend::Sim => "sim".to_owned(),
            hip_sys::Backend::Amd => match hip_sys::device_target_id(self.ordinal()) {
                Some(id) => id,
                None => format!("{} ({major}.{minor})", self.name()?),
            },
        };
        let mut targets = TARGETS.lock_unpoisoned();
        if targets.len() <= self.ordinal() {
            targets.resize(self.ordinal() + 1, None);
        }
        targets[self.ordinal()] = Some(target.clone());
        Ok(target)
    }

    /// The architecture's (major, minor) version.
    ///
    /// # Errors
    /// As [`Device::attribute`].
    pub fn architecture(self) -> Result<(u32, u32)> {
        Ok((
            self.attribute(hipDeviceAttribute_t::hipDeviceAttributeComputeCapabilityMajor)? as u32,
            self.attribute(hipDeviceAttribute_t::hipDeviceAttributeComputeCapabilityMinor)? as u32,
        ))
    }

    /// Total device memory in bytes (`hipDeviceTotalMem`).
    ///
    /// # Errors
    /// HIP's status of `hipDeviceTotalMem` ([`HipError::Call`]);
    /// [`HipError::Backend`] when no backend loads.
    #[doc(alias = "hipDeviceTotalMem")]
    pub fn total_memory(self) -> Result<usize> {
        raw::device::total_memory(self)
    }

    /// Wait for all work on this device, whatever the thread's device is
    /// (`hipDeviceSynchronize`).
    ///
    /// # Errors
    /// HIP's status of `hipDeviceSynchronize`, or of binding the device
    /// (`hipGetDevice`, `hipSetDevice`), as [`HipError::Call`]: an earlier
    /// kernel's fault is reported here; [`HipError::Backend`] when no
    /// backend loads.
    ///
    /// # Examples
    /// ```
    /// use hip_core::{Device, Stream};
    ///
    /// let device = Device::new(0)?;
    /// let stream = Stream::new_on(device)?;
    /// let _marker = stream.record_event()?;
    /// device.synchronize()?; // every stream of the device, not only the thread's
    /// assert!(stream.query()?);
    /// # Ok::<(), hip_core::HipError>(())
    /// ```
    #[doc(alias = "hipDeviceSynchronize")]
    pub fn synchronize(self) -> Result<()> {
        crate::underway::check_blocking("Device::synchronize")?;
        raw::device::synchronize(self)
    }

    /// (free, total) bytes of this device, whatever the thread's device is
    /// (`hipMemGetInfo`).
    ///
    /// # Errors
    /// HIP's status of `hipMemGetInfo`, or of binding the device, as
    /// [`HipError::Call`]; [`HipError::Backend`] when no backend loads.
    ///
    /// # Examples
    /// ```
    /// use hip_core::Device;
    ///
    /// for device in Device::all()? {
    ///     let (free, total) = device.mem_info()?;
    ///     assert!(free <= total);
    /// }
    /// # Ok::<(), hip_core::HipError>(())
    /// ```
    #[doc(alias = "hipMemGetInfo")]
    pub fn mem_info(self) -> Result<(usize, usize)> {
        raw::device::mem_info(self)
    }

    /// Whether this device is an APU, sharing the host's memory
    /// (`hipDeviceAttributeIntegrated`). HIP answers it from 6.2: on an
    /// APU under an earlier HIP it says `false`.
    ///
    /// # Errors
    /// HIP's status of `hipDeviceGetAttribute`, as [`HipError::Call`].
    ///
    /// # Examples
    /// ```
    /// let apu = hip_core::Device::new(0)?.is_integrated()?;
    /// println!("an APU: {apu}");
    /// # Ok::<(), hip_core::HipError>(())
    /// ```
    #[doc(alias = "hipDeviceAttributeIntegrated")]
    pub fn is_integrated(self) -> Result<bool> {
        Ok(self.attribute(hipDeviceAttribute_t::hipDeviceAttributeIntegrated)? != 0)
    }

    /// This device's memory: [`mem_info`](Self::mem_info), whether it is
    /// an APU, and on an AMD APU the host memory its GPU maps (the GTT),
    /// with [`MemoryInfo::usable`] counting what the GPU can use.
    ///
    /// # Errors
    /// HIP's status of `hipMemGetInfo` or `hipDeviceGetAttribute`, as
    /// [`HipError::Call`]. The GTT's files not being readable is no error:
    /// [`MemoryInfo::host_shared`] is `None`.
    ///
    /// # Examples
    /// ```
    /// let memory = hip_core::Device::new(0)?.memory()?;
    /// assert!(memory.usable() >= memory.free);
    /// # Ok::<(), hip_core::HipError>(())
    /// ```
    pub fn memory(self) -> Result<MemoryInfo> {
        let (free, total) = self.mem_info()?;
        let integrated = self.is_integrated()?;
        let host_shared = match hip_sys::backend() {
            hip_sys::Backend::Amd if integrated => raw::device::pci_bus_id(self)
                .ok()
                .and_then(|bus| crate::memory_info::gtt_at(&crate::memory_info::sysfs_folder(&bus))),
            _ => None,
        };
        Ok(MemoryInfo::new(free, total, integrated, host_shared))
    }
}

impl std::fmt::Debug for Device {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.name() {
            Ok(name) => write!(f, "Device({}, {name:?})", self.ordinal()),
            Err(_) => write!(f, "Device({})", self.ordinal()),
        }
    }
}
