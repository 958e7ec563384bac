//! What the simulator reads of a HIP source before compiling it for the
//! CPU: the names of its kernels, and its `extern __shared__` arrays.
//!
//! The source is read as tokens, with comments and string literals
//! blanked, line breaks kept (so the compiler's line numbers stay the
//! user's).

/// `source` with comments and string and character literals replaced by
/// spaces (one per byte), line breaks kept.
pub fn blank_comments_and_strings(source: &str) -> String {
    let bytes = source.as_bytes();
    let mut out = String::with_capacity(source.len());
    let mut i = 0;
    // Byte for byte, so offsets in the result are offsets in the source.
    let blank = |s: &str, out: &mut String| out.extend(s.bytes().map(|b| if b == b'\n' { '\n' } else { ' ' }));
    while i < bytes.len() {
        let rest = &source[i..];
        let end = if rest.starts_with("//") {
            rest.find('\n').unwrap_or(rest.len())
        } else if let Some(body) = rest.strip_prefix("/*") {
            body.find("*/").map_or(rest.len(), |e| e + 4)
        } else if rest.starts_with('"') || rest.starts_with('\'') {
            let quote = bytes[i];
            let mut j = 1;
            while j < rest.len() && rest.as_bytes()[j] != quote && rest.as_bytes()[j] != b'\n' {
                j += if rest.as_bytes()[j] == b'\\' { 2 } else { 1 };
            }
            (j + 1).min(rest.len())
        } else {
            let c = rest.chars().next().map_or(1, char::len_utf8);
            out.push_str(&rest[..c]);
            i += c;
            continue;
        };
        blank(&rest[..end], &mut out);
        i += end;
    }
    out
}

fn is_ident(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_'
}

/// The word-boundary positions of `word` in `text`.
fn words<'a>(text: &'a str, word: &'a str) -> impl Iterator<Item = usize> + 'a {
    text.match_indices(word).map(|(at, _)| at).filter(move |&at| {
        let before = text[..at].chars().next_back().is_none_or(|c| !is_ident(c));
        let after = text[at + word.len()..].chars().next().is_none_or(|c| !is_ident(c));
        before && after
    })
}

/// The names of `source`'s kernels that are not templates (a template
/// kernel is named by a name expression): for each `__global__`, the
/// identifier before the first parenthesis that is not an attribute's.
pub fn kernels(source: &str) -> Vec<String> {
    let text = blank_comments_and_strings(source);
    let mut names = Vec::new();
    for at in words(&text, "__global__") {
        // The declaration's start: after the previous `;`, `{` or `}`.
        let start = text[..at].rfind([';', '{', '}']).map_or(0, |s| s + 1);
        if words(&text[start..at], "template").next().is_some() {
            continue;
        }
        if let Some(name) = name_after(&text[at + "__global__".len()..]) {
            if !names.contains(&name) {
                names.push(name);
            }
        }
    }
    names
}

/// The function name in a declaration's text after `__global__`.
fn name_after(text: &str) -> Option<String> {
    let mut last = String::new();
    let mut chars = text.char_indices().peekable();
    while let Some((i, c)) = chars.next() {
        if is_ident(c) {
            let end = text[i..].find(|c: char| !is_ident(c)).map_or(text.len(), |e| i + e);
            last = text[i..end].to_owned();
            while chars.peek().is_some_and(|&(j, _)| j < end) {
                chars.next();
            }
        } else if c == '(' {
            if matches!(last.as_str(), "__launch_bounds__" | "__attribute__" | "alignas" | "__align__" | "__declspec") {
                // Skip the attribute's balanced parentheses.
                let mut depth = 1;
                for (_, c) in chars.by_ref() {
                    depth += i32::from(c == '(') - i32::from(c == ')');
                    if depth == 0 {
                        break;
                    }
                }
                last.clear();
                continue;
            }
            return (!last.is_empty() && !last.starts_with(|c: char| c.is_ascii_digit())).then_some(last);
        } else if c == ';' || c == '{' {
            return None;
        }
    }
    None
}

/// The lines of a preprocessed translation unit (`c++ -E`, with line
/// markers) that come from the program's own files: those named by a
/// relative path other than the prelude's (`../include/...`); the system's
/// headers are named by absolute paths, the compiler's by `<...>`.
pub fn own_lines(preprocessed: &str) -> String {
    let mut own = false;
    let mut out = String::new();
    for line in preprocessed.lines() {
        if let Some(marker) = line.strip_prefix("# ") {
            let path = marker.split('"').nth(1).unwrap_or("");
            own = !path.is_empty()
                && !path.starts_with('/')
                && !path.starts_with('<')
                && !path.starts_with("../include/")
                && path != "amdgpu_sim_scan.cpp";
            continue;
        }
        if own {
            out.push_str(line);
            out.push('\n');
        }
    }
    out
}

/// `source` with each `extern __shared__ T name[];` made a pointer to the
/// block's dynamic shared memory, `T* name = …;`, on the same line.
pub fn dynamic_shared(source: &str) -> String {
    let text = blank_comments_and_strings(source);
    let mut out = String::with_capacity(source.len());
    let mut copied = 0;
    for at in words(&text, "extern") {
        if at < copied {
            continue;
        }
        let Some(semi) = text[at..].find(';').map(|s| at + s) else { continue };
        let statement = &text[at..semi];
        let plain = without_alignment(statement);
        let declaration = !plain.contains(['{', '}', '(', ')']);
        if !declaration || words(statement, "__shared__").next().is_none() || !statement.trim_end().ends_with(']') {
            continue;
        }
        // The declarator `name[]`, and the type before it.
        let body = statement.trim_end();
        let open = body.rfind('[').unwrap_or(body.len());
        let head = body[..open].trim_end();
        let name_start = head.rfind(|c: char| !is_ident(c)).map_or(0, |p| p + 1);
        let name = &head[name_start..];
        let ty = without_alignment(&head[..name_start]).replacen("extern", "", 1).replacen("__shared__", "", 1);
        let ty = ty.split_whitespace().collect::<Vec<_>>().join(" ");
        if name.is_empty() || ty.is_empty() {
            continue;
        }
        let newlines = source[at..semi].matches('\n').count();
        out.push_str(&source[copied..at]);
        out.push_str(&format!("{ty}* {name} = reinterpret_cast<{ty}*>(::amdgpu_sim::dynamic_shared())"));
        out.push_str(&"\n".repeat(newlines));
        copied = semi;
    }
    out.push_str(&source[copied..]);
    out
}

/// `text` without its alignment attributes (`__align__(n)`, `alignas(n)`).
fn without_alignment(text: &str) -> String {
    let mut out = text.to_owned();
    for attribute in ["__align__", "alignas"] {
        while let Some(a) = out.find(attribute) {
            let close = out[a..].find(')').map_or(out.len(), |c| a + c + 1);
            out.replace_range(a..close, "");
        }
    }
    out
}

/// The file the simulator compiles: the program's source (by `file`),
/// the launcher, and the table of `kernels` (the name each is looked up
/// by, and the C++ expression naming it).
pub fn wrapper(file: &str, kernels: &[(String, String)]) -> String {
    // hipRTC gives every program its runtime header first.
    let mut text = format!("#include <hip/hip_runtime.h>\n#include \"{file}\"\n#include \"amdgpu_sim_launch.h\"\n");
    // The object is built with hidden visibility (build.rs): these two are
    // all the simulator looks up in it.
    text.push_str("extern \"C\" AMDGPU_SIM_EXPORT const ::amdgpu_sim::Kernel amdgpu_sim_kernels[] = {\n");
    for (name, expression) in kernels {
        let expression = expression.trim();
        let address = if expression.starts_with('&') { expression.to_owned() } else { format!("&{expression}") };
        text.push_str(&format!("    AMDGPU_SIM_KERNEL({:?}, {address}),\n", name));
    }
    text.push_str("    {nullptr, nullptr, 0, nullptr, nullptr}};\n");
    text.push_str(&format!(
        "extern \"C\" AMDGPU_SIM_EXPORT const unsigned amdgpu_sim_kernel_count = {};\n",
        kernels.len()
    ));
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kernels_are_found_and_templates_left_to_name_expressions() {
        let source = "#include <hip/hip_runtime.h>\n// __global__ void commented(int*)\n\
            extern \"C\" __global__ void __launch_bounds__(256) add(const float* a, float* b) {}\n\
            template <typename T>\n__global__ void axpy(T a) {}\n\
            __device__ int helper(int x) { return x; }\n\
            extern \"C\" __global__ void\nsecond (int n) {}\n";
        assert_eq!(kernels(source), ["add", "second"]);
    }

    #[test]
    fn an_extern_shared_array_becomes_dynamic_shared_memory_on_its_line() {
        let source = "// 16 × 16\nvoid k() {\n  extern __shared__ __align__(16) float cache[];\n  cache[0] = 1;\n}\n";
        let out = dynamic_shared(source);
        assert!(out.contains("float* cache = reinterpret_cast<float*>(::amdgpu_sim::dynamic_shared());"), "{out}");
        assert_eq!(out.lines().count(), source.lines().count());
        assert_eq!(dynamic_shared("extern \"C\" int x;\n"), "extern \"C\" int x;\n");
        let kernel = "extern \"C\" __global__ void k() {\n  __shared__ float t[16][16];\n}\n";
        assert_eq!(dynamic_shared(kernel), kernel, "a kernel's static shared memory is left alone");
    }

    #[test]
    fn the_wrapper_lists_each_kernel_by_its_name() {
        let text = wrapper("k.hip", &[("add".into(), "add".into()), ("axpy<float>".into(), "axpy<float>".into())]);
        assert!(text.contains("AMDGPU_SIM_KERNEL(\"add\", &add)"), "{text}");
        assert!(text.contains("AMDGPU_SIM_KERNEL(\"axpy<float>\", &axpy<float>)"), "{text}");
        assert!(text.contains("amdgpu_sim_kernel_count = 2;"), "{text}");
    }

    #[test]
    fn only_the_programs_own_lines_are_read_after_the_preprocessor() {
        let preprocessed = "# 1 \"amdgpu_sim_scan.cpp\"\n# 1 \"../include/hip/hip_runtime.h\" 1\nint prelude;\n\
                            # 1 \"/usr/include/c++/12/cmath\" 1 3\nint system;\n# 2 \"amdgpu_sim_scan.cpp\" 2\n\
                            # 1 \"k.hip\" 1\nextern \"C\" __global__ void kept(int*);\n# 1 \"mine.h\" 1\nint mine;\n";
        assert_eq!(own_lines(preprocessed), "extern \"C\" __global__ void kept(int*);\nint mine;\n");
    }
}
