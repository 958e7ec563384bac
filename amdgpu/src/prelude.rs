//! The everyday API in one import: `use amdgpu::prelude::*;`.

pub use crate::{
    default_device, device, set_default_device, set_device, stream, with_device, with_stream, Device, DeviceArray,
    DeviceCopy, DeviceSlice, DeviceSliceMut, Event, HostBuffer, Stream,
};
