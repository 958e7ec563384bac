//! What a compiled [`Code`](crate::Code) is, read from its bytes: an AMD
//! code object (an amdgcn ELF, with its processor and features in the
//! header), an NVIDIA CUBIN (an ELF for `EM_CUDA`), PTX text, or
//! something else.

use std::fmt;

/// The kind of code a compiler returned, read from its header.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CodeKind {
    /// An AMD code object: a 64-bit little-endian ELF for `EM_AMDGPU`
    /// (224) with the HSA OS ABI (64).
    AmdCodeObject {
        /// The processor that `e_flags` names (`gfx90a`), or its number
        /// in hex (`mach 0x99`) where this table does not know it.
        processor: String,
        /// The code object's `xnack` setting: `None` for "any" or
        /// unsupported, `Some(on)` for a fixed one (code object v4 and
        /// later).
        xnack: Option<bool>,
        /// The code object's `sramecc` setting, as `xnack`.
        sramecc: Option<bool>,
        /// The ELF header's ABI version (2: code object v4, 3: v5, 4: v6).
        abi_version: u8,
    },
    /// An NVIDIA CUBIN: an ELF for `EM_CUDA` (190).
    Cubin,
    /// PTX text.
    Ptx,
    /// Anything else (the simulator's code objects among them).
    Other,
}

/// `EM_AMDGPU`.
const EM_AMDGPU: u16 = 224;
/// `EM_CUDA`.
const EM_CUDA: u16 = 190;
/// `ELFOSABI_AMDGPU_HSA`.
const OSABI_AMDGPU_HSA: u8 = 64;

/// `EF_AMDGPU_MACH_*` of LLVM's `ELF.h`: the low byte of `e_flags`.
const MACHS: &[(u8, &str)] = &[
    (0x2c, "gfx900"),
    (0x2d, "gfx902"),
    (0x2e, "gfx904"),
    (0x2f, "gfx906"),
    (0x30, "gfx908"),
    (0x31, "gfx909"),
    (0x33, "gfx1010"),
    (0x34, "gfx1011"),
    (0x35, "gfx1012"),
    (0x36, "gfx1030"),
    (0x37, "gfx1031"),
    (0x38, "gfx1032"),
    (0x39, "gfx1033"),
    (0x3d, "gfx1035"),
    (0x3e, "gfx1034"),
    (0x3f, "gfx90a"),
    (0x40, "gfx940"),
    (0x41, "gfx1100"),
    (0x42, "gfx1013"),
    (0x43, "gfx1150"),
    (0x44, "gfx1103"),
    (0x45, "gfx1036"),
    (0x46, "gfx1101"),
    (0x47, "gfx1102"),
    (0x48, "gfx1200"),
    (0x4a, "gfx1151"),
    (0x4b, "gfx941"),
    (0x4c, "gfx942"),
    (0x4e, "gfx1201"),
    (0x4f, "gfx950"),
];

/// A code object v4+ feature setting from its two bits of `e_flags`:
/// 0 unsupported, 1 any, 2 off, 3 on.
fn feature(bits: u32) -> Option<bool> {
    match bits {
        2 => Some(false),
        3 => Some(true),
        _ => None,
    }
}

/// What `bytes` are.
pub fn code_kind(bytes: &[u8]) -> CodeKind {
    if bytes.len() >= 52 && bytes.starts_with(b"\x7fELF") {
        let machine = u16::from_le_bytes([bytes[18], bytes[19]]);
        if bytes[4] == 2 && bytes[5] == 1 && machine == EM_AMDGPU && bytes[7] == OSABI_AMDGPU_HSA {
            let flags = u32::from_le_bytes([bytes[48], bytes[49], bytes[50], bytes[51]]);
            let mach = (flags & 0xff) as u8;
            let processor = MACHS
                .iter()
                .find(|(m, _)| *m == mach)
                .map_or_else(|| format!("mach {mach:#04x}"), |(_, name)| (*name).to_owned());
            let abi_version = bytes[8];
            // Code object v2 and v3 (ABI versions 0 and 1) carry xnack and
            // sramecc as single bits, meaning "on or not asked for".
            let (xnack, sramecc) =
                if abi_version >= 2 { (feature((flags >> 8) & 3), feature((flags >> 10) & 3)) } else { (None, None) };
            return CodeKind::AmdCodeObject { processor, xnack, sramecc, abi_version };
        }
        if machine == EM_CUDA {
            return CodeKind::Cubin;
        }
        return CodeKind::Other;
    }
    let start = bytes.iter().position(|b| !b.is_ascii_whitespace()).unwrap_or(bytes.len());
    let text = &bytes[start..];
    if (text.starts_with(b"//") || text.starts_with(b".version")) && bytes.windows(8).any(|w| w == b".version") {
        return CodeKind::Ptx;
    }
    CodeKind::Other
}

impl fmt::Display for CodeKind {
    /// `amdgcn code object for gfx942:sramecc+:xnack-`, `CUBIN`, `PTX`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CodeKind::AmdCodeObject { processor, xnack, sramecc, .. } => {
                f.write_str("amdgcn code object for ")?;
                crate::target::write_amd_id(f, processor, *sramecc, *xnack)
            }
            CodeKind::Cubin => f.write_str("CUBIN"),
            CodeKind::Ptx => f.write_str("PTX"),
            CodeKind::Other => f.write_str("unrecognised code"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An ELF header of `machine`, OS ABI `osabi`, ABI version `abi` and
    /// `flags`, padded to 64 bytes.
    fn elf(machine: u16, osabi: u8, abi: u8, flags: u32) -> Vec<u8> {
        let mut h = vec![0u8; 64];
        h[..4].copy_from_slice(b"\x7fELF");
        h[4] = 2;
        h[5] = 1;
        h[7] = osabi;
        h[8] = abi;
        h[18..20].copy_from_slice(&machine.to_le_bytes());
        h[48..52].copy_from_slice(&flags.to_le_bytes());
        h
    }

    #[test]
    fn amd_code_objects_name_their_processor_and_features() {
        // The flags AMD's hipRTC 5.2 writes for gfx90a, gfx1030 and
        // gfx90a:sramecc+:xnack-.
        let any = code_kind(&elf(EM_AMDGPU, 64, 2, 0x53f));
        assert_eq!(
            any,
            CodeKind::AmdCodeObject { processor: "gfx90a".into(), xnack: None, sramecc: None, abi_version: 2 }
        );
        assert_eq!(code_kind(&elf(EM_AMDGPU, 64, 2, 0x36)).to_string(), "amdgcn code object for gfx1030");
        assert_eq!(
            code_kind(&elf(EM_AMDGPU, 64, 2, 0xe3f)).to_string(),
            "amdgcn code object for gfx90a:sramecc+:xnack-"
        );
        assert_eq!(code_kind(&elf(EM_AMDGPU, 64, 3, 0x4c)).to_string(), "amdgcn code object for gfx942");
        assert_eq!(code_kind(&elf(EM_AMDGPU, 64, 2, 0x99)).to_string(), "amdgcn code object for mach 0x99");
    }

    #[test]
    fn other_code_is_told_apart() {
        assert_eq!(code_kind(&elf(EM_CUDA, 0x33, 7, 0x5a)), CodeKind::Cubin);
        assert_eq!(code_kind(&elf(EM_AMDGPU, 0, 2, 0x3f)), CodeKind::Other, "not the HSA ABI");
        assert_eq!(code_kind(&elf(62, 0, 0, 0)), CodeKind::Other, "an x86-64 ELF");
        assert_eq!(
            code_kind(b"//\n// Generated by NVIDIA NVVM Compiler\n.version 8.0\n.target sm_90\n"),
            CodeKind::Ptx
        );
        assert_eq!(code_kind(b"\x7fELF"), CodeKind::Other, "too short for a header");
        assert_eq!(code_kind(b""), CodeKind::Other);
        assert_eq!(code_kind(b"amdgpu-rs sim code object"), CodeKind::Other);
    }
}
