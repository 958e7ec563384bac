//! JSON text the crates write by hand (the simulator's Chrome trace,
//! `amdgpu-info --json`): one way to quote a string.

use std::fmt::Write as _;

/// `text` as a JSON string: quoted, with `"`, `\`, and the control
/// characters escaped.
pub fn string(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 2);
    out.push('"');
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            c if (c as u32) < 0x20 => {
                let _ = write!(out, "\\u{:04x}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

#[cfg(test)]
mod tests {
    #[test]
    fn strings_are_escaped_for_json() {
        assert_eq!(super::string("a\"b\\c\nd\u{1}"), r#""a\"b\\c\nd\u0001""#);
    }
}
