//! The thread-locals of a compiled object, by name: where its static
//! `__shared__` variables lie (the prelude makes each a thread-local), so
//! that a shared-memory race names its variable.
//!
//! Read from the object's symbol table: an ELF symbol of type `STT_TLS`
//! in a shared object holds its offset in the object's thread-local
//! segment, which is what the race check reports.

/// One thread-local of the object.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Static {
    /// Its offset in the thread-local segment.
    pub offset: u64,
    pub size: u64,
    /// Its name in the source (the last part of the mangled one).
    pub name: String,
}

/// `STT_TLS`, `SHT_SYMTAB`.
const TLS: u8 = 6;
const SYMTAB: u32 = 2;

/// The thread-locals of the ELF shared object `so` (none if it has no
/// symbol table or is not 64-bit little-endian ELF).
pub fn of(so: &[u8]) -> Vec<Static> {
    read(so).unwrap_or_default()
}

/// The variable a byte at `offset` of the segment lies in, as
/// `` `name` ``, and the offset in it.
pub fn name(statics: &[Static], offset: u64) -> Option<(String, u64)> {
    statics
        .iter()
        .find(|s| offset >= s.offset && offset < s.offset + s.size.max(1))
        .map(|s| (format!("`{}`", s.name), offset - s.offset))
}

fn read(so: &[u8]) -> Option<Vec<Static>> {
    let u16_at = |at: usize| Some(u16::from_le_bytes(so.get(at..at + 2)?.try_into().ok()?));
    let u32_at = |at: usize| Some(u32::from_le_bytes(so.get(at..at + 4)?.try_into().ok()?));
    let u64_at = |at: usize| Some(u64::from_le_bytes(so.get(at..at + 8)?.try_into().ok()?));
    if so.get(..6)? != b"\x7fELF\x02\x01" {
        return None;
    }
    let sections = usize::try_from(u64_at(0x28)?).ok()?;
    let (entry, count) = (usize::from(u16_at(0x3a)?), usize::from(u16_at(0x3c)?));
    let section = |i: usize| sections.checked_add(i.checked_mul(entry)?);
    let mut out = Vec::new();
    for i in 0..count {
        let header = section(i)?;
        if u32_at(header + 4)? != SYMTAB {
            continue;
        }
        let (start, size) = (usize::try_from(u64_at(header + 24)?).ok()?, usize::try_from(u64_at(header + 32)?).ok()?);
        let strings = usize::try_from(u64_at(section(usize::try_from(u32_at(header + 40)?).ok()?)? + 24)?).ok()?;
        for symbol in (start..start.checked_add(size)?).step_by(24) {
            if so.get(symbol + 4).map(|info| info & 0xf) != Some(TLS) {
                continue;
            }
            let name_at = strings.checked_add(usize::try_from(u32_at(symbol)?).ok()?)?;
            let raw = so.get(name_at..)?.split(|&b| b == 0).next()?;
            let mangled = String::from_utf8_lossy(raw);
            out.push(Static { offset: u64_at(symbol + 8)?, size: u64_at(symbol + 16)?, name: demangled(&mangled) });
        }
    }
    Some(out)
}

/// A variable's name from its mangled one: the last `<length><name>` of
/// `_ZZ4tileKernelPfE4tile` (a function's static), `_ZN2ns4tileE` or
/// `_ZL4tile`; a name not mangled stays as it is.
fn demangled(mangled: &str) -> String {
    let Some(body) = mangled.strip_prefix("_Z") else { return mangled.to_owned() };
    // A second static of the same name in a function ends `_0`, `_1`, …
    let body = match body.rfind('_') {
        Some(at) if body[at + 1..].bytes().all(|b| b.is_ascii_digit()) => &body[..at],
        _ => body,
    };
    let body = body.strip_suffix('E').unwrap_or(body);
    for start in (1..body.len()).rev() {
        let (head, name) = body.split_at(start);
        let digits = head.len() - head.trim_end_matches(|c: char| c.is_ascii_digit()).len();
        let fits = name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_');
        if fits && digits > 0 && head[head.len() - digits..].parse::<usize>() == Ok(name.len()) {
            return name.to_owned();
        }
    }
    mangled.to_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_variables_name_is_the_last_part_of_the_mangled_one() {
        assert_eq!(demangled("_ZZ10tileKernelPfE4tile"), "tile");
        assert_eq!(demangled("_ZZ4axpyIfEvT_E5cache_0"), "cache");
        assert_eq!(demangled("_ZN2ns6bufferE"), "buffer");
        assert_eq!(demangled("_ZL4tile"), "tile");
        assert_eq!(demangled("plain"), "plain");
    }

    #[test]
    fn a_byte_is_named_by_the_variable_it_lies_in() {
        let statics = [Static { offset: 16, size: 64, name: "tile".into() }];
        assert_eq!(name(&statics, 20), Some(("`tile`".into(), 4)));
        assert_eq!(name(&statics, 80), None);
    }

    #[test]
    fn what_is_not_elf_has_no_thread_locals() {
        assert!(of(b"not an object").is_empty());
        assert!(of(b"\x7fELF\x02\x01").is_empty());
    }
}
