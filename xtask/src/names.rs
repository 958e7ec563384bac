//! Status names generated with the bindings.
//!
//! Error messages name a library's status as its header does
//! (`rocblas_status_invalid_size`). Those names come from the same
//! generated constants the code compares against, so a library version
//! that adds or renumbers a status changes both at once: for each status
//! type listed, `impl T { pub const NAME: T = T(n); ... }` in bindgen's
//! output gains a `name()` that maps each value back to its first name.

/// Append a `name()` to each status type's `impl` block in `bindings`.
pub fn add_status_names(bindings: &str, types: &[&str]) -> Result<String, String> {
    let mut out = bindings.to_string();
    for ty in types {
        let constants = constants_of(bindings, ty)?;
        let (mut arms, mut c_arms) = (String::new(), String::new());
        let mut seen = Vec::new();
        for (name, value) in &constants {
            if seen.contains(value) {
                continue; // an alias: the first name of a value is its name
            }
            seen.push(value.clone());
            arms.push_str(&format!("            {value} => Some(\"{name}\"),\n"));
            c_arms.push_str(&format!("            {value} => Some(c\"{name}\"),\n"));
        }
        out.push_str(&format!(
            "impl {ty} {{\n    \
             /// The header's name for this value (the first, where several\n    \
             /// share it); `None` for a value this header does not declare.\n    \
             pub const fn name(self) -> Option<&'static str> {{\n        \
             match self.0 {{\n{arms}            _ => None,\n        }}\n    }}\n\n    \
             /// [`Self::name`] as a C string, for the `*GetErrorName`-style\n    \
             /// functions a backend implements.\n    \
             pub const fn c_name(self) -> Option<&'static ::core::ffi::CStr> {{\n        \
             match self.0 {{\n{c_arms}            _ => None,\n        }}\n    }}\n}}\n"
        ));
    }
    Ok(out)
}

/// The `(name, value)` constants of `ty`'s `impl` block, in order.
fn constants_of(bindings: &str, ty: &str) -> Result<Vec<(String, String)>, String> {
    let opening = format!("impl {ty} {{");
    let start = bindings.find(&opening).ok_or_else(|| format!("no `{opening}` block in the bindings for {ty}"))?;
    let block = &bindings[start + opening.len()..];
    let block = &block[..block.find("\n}").ok_or_else(|| format!("the `impl {ty}` block does not end"))?];
    // Long constants are wrapped over several lines: read statements, not lines.
    let flat: String = block.split_whitespace().collect::<Vec<_>>().join(" ");
    let suffix = format!(": {ty} = {ty}(");
    let constants: Vec<_> = flat
        .split(';')
        .map(str::trim)
        .filter_map(|statement| {
            let rest = statement.strip_prefix("pub const ")?;
            let (name, value) = rest.split_once(suffix.as_str())?;
            Some((name.trim().to_string(), value.strip_suffix(')')?.trim().trim_end_matches(',').trim().to_string()))
        })
        .collect();
    if constants.is_empty() {
        return Err(format!("the `impl {ty}` block declares no constants of {ty}"));
    }
    Ok(constants)
}

#[cfg(test)]
mod tests {
    use super::*;

    const SAMPLE: &str = "\
#[repr(transparent)]
pub struct status_(pub ::core::ffi::c_uint);
impl status_ {
    pub const status_success: status_ = status_(0);
    pub const status_bad: status_ = status_(3);
    pub const status_also_bad: status_ = status_(3);
    pub const status_with_a_name_too_long_for_one_line: status_ = status_(
        12,
    );
}
impl other {
    pub const other_x: other = other(1);
}
";

    #[test]
    fn each_value_gets_its_first_name() {
        let out = add_status_names(SAMPLE, &["status_"]).unwrap();
        assert!(out.starts_with(SAMPLE), "the bindings are kept as they are");
        let added = &out[SAMPLE.len()..];
        assert!(added.contains("0 => Some(\"status_success\"),"), "{added}");
        assert!(added.contains("0 => Some(c\"status_success\"),"), "{added}");
        assert!(added.contains("3 => Some(\"status_bad\"),"), "{added}");
        assert!(!added.contains("status_also_bad"), "an alias is not a second arm: {added}");
        assert!(added.contains("12 => Some(\"status_with_a_name_too_long_for_one_line\"),"), "{added}");
        assert!(!added.contains("other_x"), "only the listed types: {added}");
    }

    #[test]
    fn a_type_without_constants_is_an_error_naming_it() {
        let error = add_status_names(SAMPLE, &["missing_t"]).unwrap_err();
        assert!(error.contains("missing_t"), "{error}");
    }
}
