//! Byte sizes as people write them, for the environment variables of every
//! crate (`AMDGPU_SIM_MEMORY`, `AMDGPU_HARD_MEMORY_LIMIT`, ...).

/// Why a size does not parse.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SizeError {
    /// No whole number before the unit.
    NotANumber,
    /// A unit other than B, KB, KiB, MB, MiB, GB, GiB, TB, TiB.
    UnknownUnit,
    /// More bytes than a `usize` holds.
    TooLarge,
}

impl std::fmt::Display for SizeError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            SizeError::NotANumber => {
                "expected a whole number of bytes with an optional unit, such as `1GiB`, `512MB` or `4096`"
            }
            SizeError::UnknownUnit => "unknown unit (use B, KB, KiB, MB, MiB, GB, GiB, TB or TiB)",
            SizeError::TooLarge => "too large",
        })
    }
}

/// Parse a byte size: a whole number and an optional unit (`B`, `KB`/`KiB`,
/// `MB`/`MiB`, `GB`/`GiB`, `TB`/`TiB`, also `K`, `M`, `G`, `T` for the binary
/// ones; any case; decimal units are powers of 1000). Surrounding spaces
/// are ignored; 0 is a valid answer.
pub fn parse_bytes(text: &str) -> Result<usize, SizeError> {
    let text = text.trim();
    let split = text.find(|c: char| !c.is_ascii_digit()).unwrap_or(text.len());
    let (digits, unit) = text.split_at(split);
    let number: u128 = digits.parse().map_err(|_| SizeError::NotANumber)?;
    let scale: u128 = match unit.trim().to_ascii_lowercase().as_str() {
        "" | "b" => 1,
        "kb" => 1_000,
        "k" | "kib" => 1 << 10,
        "mb" => 1_000_000,
        "m" | "mib" => 1 << 20,
        "gb" => 1_000_000_000,
        "g" | "gib" => 1 << 30,
        "tb" => 1_000_000_000_000,
        "t" | "tib" => 1 << 40,
        _ => return Err(SizeError::UnknownUnit),
    };
    let bytes = number.checked_mul(scale).ok_or(SizeError::TooLarge)?;
    usize::try_from(bytes).map_err(|_| SizeError::TooLarge)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_parse() {
        assert_eq!(parse_bytes("4096"), Ok(4096));
        assert_eq!(parse_bytes(" 1 GiB "), Ok(1 << 30));
        assert_eq!(parse_bytes("512MB"), Ok(512_000_000));
        assert_eq!(parse_bytes("2t"), Ok(2 << 40));
        assert_eq!(parse_bytes("0"), Ok(0));
        assert_eq!(parse_bytes("GiB"), Err(SizeError::NotANumber));
        assert_eq!(parse_bytes("-1"), Err(SizeError::NotANumber));
        assert_eq!(parse_bytes("12XB"), Err(SizeError::UnknownUnit));
        assert_eq!(parse_bytes("99999999999999999999999TiB"), Err(SizeError::TooLarge));
    }
}
