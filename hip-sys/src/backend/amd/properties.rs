//! A device's full target id (`gfx90a:sramecc+:xnack-`), which
//! `hipDeviceGetAttribute` does not answer: it is the `gcnArchName` field
//! of the device properties, whose struct changed in ROCm 6.0.
//!
//! - **ROCm 5.x:** `hipGetDeviceProperties` fills `hipDeviceProp_t`, 792
//!   bytes, `gcnArchName` at byte 396 (the struct is the same in the 5.3
//!   to 5.7 headers).
//! - **ROCm 6.0 and later:** `hipGetDevicePropertiesR0600` fills
//!   `hipDeviceProp_tR0600`, 1472 bytes, `gcnArchName` at byte 1160 (6.0
//!   to 6.2 headers; the suffix names the layout, so a later change gets a
//!   new function and leaves this one as it is).
//!
//! The offsets were computed by a C compiler from those headers. The call
//! writes into a zeroed buffer larger than either struct, and the name is
//! read only up to its 256 bytes, so a wrong offset could give a wrong
//! name, never a read out of bounds. Not yet run on AMD hardware.

use std::ffi::{c_int, c_void, CStr};
use std::sync::OnceLock;

use super::installation;
use crate::bindings::hip::hipError_t;

/// `hipError_t hipGetDeviceProperties[R0600](hipDeviceProp_t* prop, int device)`.
type GetProperties = unsafe extern "C" fn(*mut c_void, c_int) -> hipError_t;

/// Which function fills the properties, and where the name lies in them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Layout {
    pub symbol: &'static str,
    pub size: usize,
    pub name_offset: usize,
}

/// `gcnArchName`'s length in both structs.
const NAME_LEN: usize = 256;

/// The layout of the properties of a runtime of `major` version.
pub(crate) fn layout(major: u32) -> Layout {
    if major >= 6 {
        Layout { symbol: "hipGetDevicePropertiesR0600", size: 1472, name_offset: 1160 }
    } else {
        Layout { symbol: "hipGetDeviceProperties", size: 792, name_offset: 396 }
    }
}

/// The buffer the properties are written into: larger than either struct,
/// aligned for its 8-byte fields.
#[repr(C, align(8))]
struct Properties([u8; 4096]);

/// The NUL-terminated name at `layout.name_offset` of `bytes`, if it is
/// not empty.
pub(crate) fn name_in(bytes: &[u8], layout: Layout) -> Option<String> {
    let field = bytes.get(layout.name_offset..layout.name_offset + NAME_LEN)?;
    let name = CStr::from_bytes_until_nul(field).ok()?.to_str().ok()?;
    (!name.is_empty()).then(|| name.to_owned())
}

/// The function of the loaded runtime that fills the properties, and its
/// layout; `None` before an amd runtime is loaded or where it lacks it.
fn getter() -> Option<(GetProperties, Layout)> {
    static GETTER: OnceLock<Option<(GetProperties, Layout)>> = OnceLock::new();
    *GETTER.get_or_init(|| {
        let runtime = installation::runtime()?;
        let layout = layout(runtime.version.major);
        // The runtime is loaded and kept: this only takes another reference.
        let opened =
            crate::backend::loader::open_first("libamdhip64", std::slice::from_ref(&runtime.path), "", "").ok()?;
        let symbol = opened.optional(layout.symbol)?;
        opened.keep();
        // SAFETY: the runtime's function of this name has this signature
        // (hip_runtime_api.h of its version, see the module docs).
        let function = unsafe { std::mem::transmute::<*const c_void, GetProperties>(symbol) };
        Some((function, layout))
    })
}

/// The full target id of device `ordinal` of the amd runtime (its
/// `gcnArchName`), read from the runtime on each call (hip-core's
/// `Device::target` keeps it per device); `None` where it cannot be read.
pub(crate) fn target_id(ordinal: usize) -> Option<String> {
    let (get, layout) = getter()?;
    let mut properties = Properties([0; 4096]);
    // SAFETY: a writable buffer larger than the struct of this layout, and
    // aligned for it; the device is an ordinal (HIP checks it).
    let status = unsafe { get(properties.0.as_mut_ptr().cast(), c_int::try_from(ordinal).ok()?) };
    if status != hipError_t::hipSuccess {
        return None;
    }
    name_in(&properties.0[..layout.size], layout)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_runtime_major_reads_its_own_struct() {
        assert_eq!(layout(5), Layout { symbol: "hipGetDeviceProperties", size: 792, name_offset: 396 });
        for major in [6, 7] {
            assert_eq!(layout(major), Layout { symbol: "hipGetDevicePropertiesR0600", size: 1472, name_offset: 1160 });
        }
    }

    #[test]
    fn the_name_is_read_inside_its_field_only() {
        let layout = layout(6);
        let mut bytes = vec![0u8; layout.size];
        let id = b"gfx90a:sramecc+:xnack-";
        bytes[layout.name_offset..layout.name_offset + id.len()].copy_from_slice(id);
        assert_eq!(name_in(&bytes, layout).as_deref(), Some("gfx90a:sramecc+:xnack-"));
        bytes[layout.name_offset..layout.name_offset + NAME_LEN].fill(b'x');
        assert_eq!(name_in(&bytes, layout), None, "no NUL inside the field: nothing read past it");
        assert_eq!(name_in(&vec![0u8; layout.size], layout), None, "an empty name");
        assert_eq!(name_in(&bytes[..layout.name_offset + 10], layout), None, "a short struct");
    }
}
