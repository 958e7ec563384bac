//! `layers`: the modules of each crate never import each other in a
//! loop, at any depth, so each crate and each folder reads bottom up.
//!
//! Below the top level, the children of every module are held the same
//! way: a child uses another when a file of its subtree names a path into
//! the other's (`super::x`, `crate::a::b::x`, `self::x`, braces expanded).
//! Any knot (modules that reach each other) fails, at any depth.
//!
//! An arrow runs from module `a` to module `b` of a crate when `a`'s files
//! name `crate::b`, or an item the crate root re-exports from `b`
//! (`crate::Device`, re-exported by `pub use ordinal::Device`); a
//! top-level file's `super::` is the root too. Names a root re-exports
//! through a glob are not followed. Tests (`#[cfg(test)]` modules) are
//! left out: they may use anything. Run as `cargo xtask layers`; also a
//! test of this crate.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use crate::sources::{rust_files, without_unit_tests};

/// The crates held to their layers.
const CRATES: [&str; 7] = ["hip-abi", "hip-sim", "hip-sys", "hip-core", "hip-pool", "hip-libs", "amdgpu"];

/// A crate's module graph: each top-level module and the modules it uses.
pub type Graph = BTreeMap<String, BTreeSet<String>>;

fn identifier_at(text: &str) -> &str {
    let end = text.find(|c: char| !(c.is_alphanumeric() || c == '_')).unwrap_or(text.len());
    &text[..end]
}

/// The names `source`, the file of module `here`, reaches through the
/// crate root (the first segment of each path [`named_paths`] finds, but
/// the file's own top-level module), each with whether a path goes on
/// after it (`crate::x::y`: `x` is a module).
pub fn root_names(source: &str, here: &[String]) -> BTreeSet<(String, bool)> {
    let mut names: BTreeMap<String, bool> = BTreeMap::new();
    for path in named_paths(source, here) {
        if let Some((head, rest)) = path.split_first().filter(|(head, _)| here.first() != Some(*head)) {
            *names.entry(head.clone()).or_default() |= !rest.is_empty();
        }
    }
    names.into_iter().collect()
}

/// What the crate root re-exports under one name: the module it comes
/// from and the path inside it (`hip::hipError_t`). One name may be two
/// items, a module and a function (`rocblas`).
pub type Exports = BTreeMap<String, Vec<(String, String)>>;

/// The crate root's modules and what it re-exports from each.
pub fn root_map(lib: &str) -> (BTreeSet<String>, Exports) {
    let mut modules = BTreeSet::new();
    let mut exported = Exports::new();
    let code = lib.split("#[cfg(test)]").next().unwrap_or_default();
    let mut statement = String::new();
    for line in code.lines() {
        let line = line.split("//").next().unwrap_or_default().trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        statement.push_str(line);
        statement.push(' ');
        if !line.ends_with(';') {
            if !(statement.starts_with("pub use") || statement.starts_with("use") || statement.contains("mod ")) {
                statement.clear();
            }
            continue;
        }
        let s = std::mem::take(&mut statement);
        let s = s.trim().trim_end_matches(';').trim();
        let words: Vec<&str> = s.split_whitespace().collect();
        if let Some(position) = words.iter().position(|w| *w == "mod") {
            if let Some(name) = words.get(position + 1) {
                modules.insert(identifier_at(name).to_owned());
            }
        } else if let Some(path) = s.strip_prefix("pub use ").or_else(|| s.strip_prefix("pub(crate) use ")) {
            let path = path.trim_start_matches("self::");
            let module = identifier_at(path).to_owned();
            let rest = &path[module.len()..];
            let (prefix, items): (&str, Vec<&str>) = match rest.rfind("::{") {
                Some(open) => (&rest[..open], rest[open + 3..].trim_end_matches('}').split(',').collect()),
                None => match rest.rfind("::") {
                    Some(last) => (&rest[..last], vec![&rest[last + 2..]]),
                    None => ("", vec![]),
                },
            };
            for item in items {
                let original = item.split(" as ").next().unwrap_or(item).trim();
                let name = item.split(" as ").last().unwrap_or(item).trim();
                let name = name.rsplit("::").next().unwrap_or(name).trim();
                if !name.is_empty() && name != "*" && name != "self" {
                    let inner = format!("{}::{original}", prefix.trim_start_matches("::"));
                    exported.entry(name.to_owned()).or_default().push((module.clone(), inner));
                }
            }
        }
    }
    (modules, exported)
}

/// The module graph of the crate at `dir`.
pub fn graph(dir: &Path) -> Result<Graph, String> {
    let src = dir.join("src");
    let lib = ["lib.rs", "main.rs"].iter().map(|f| src.join(f)).find(|p| p.exists());
    let lib = lib.ok_or_else(|| format!("{} has no lib.rs or main.rs", src.display()))?;
    let text = std::fs::read_to_string(&lib).map_err(|e| format!("reading {}: {e}", lib.display()))?;
    let (modules, exported) = root_map(&text);
    let mut graph = Graph::new();
    for module in &modules {
        let mut files = Vec::new();
        let file = src.join(format!("{module}.rs"));
        if file.exists() {
            files.push(file);
        }
        let folder = src.join(module);
        if folder.is_dir() {
            files.extend(rust_files(&folder)?);
        }
        let mut uses = BTreeSet::new();
        for file in files {
            let source = std::fs::read_to_string(&file).map_err(|e| format!("reading {}: {e}", file.display()))?;
            for (name, is_path) in root_names(&source, &module_path(&src, &file)) {
                let target = if modules.contains(&name) {
                    Some(name)
                } else {
                    // A path through a name two items share goes into the
                    // one that is a module (a file or folder of that name).
                    let sources = exported.get(&name).map(Vec::as_slice).unwrap_or_default();
                    let is_module = |(m, inner): &&(String, String)| {
                        let rel = inner.trim_start_matches("::").replace("::", "/");
                        let base = if rel.is_empty() { src.join(m) } else { src.join(m).join(rel) };
                        base.with_extension("rs").exists() || base.is_dir()
                    };
                    let chosen = if is_path { sources.iter().find(is_module) } else { None };
                    chosen.or_else(|| sources.iter().find(|s| !is_path || !is_module(s))).map(|(m, _)| m.clone())
                };
                if let Some(target) = target.filter(|t| t != module && modules.contains(t)) {
                    uses.insert(target);
                }
            }
        }
        graph.insert(module.clone(), uses);
    }
    Ok(graph)
}

/// A module's path from its crate root (`["backend", "sim", "graph"]`).
type ModulePath = Vec<String>;

/// The module path of the file `file` under a crate's `src`: `lib.rs`
/// and `main.rs` are the root, `x/mod.rs` and `x.rs` are `x`.
fn module_path(src: &Path, file: &Path) -> ModulePath {
    let relative = file.strip_prefix(src).unwrap_or(file).with_extension("");
    let mut path: ModulePath = relative.iter().map(|s| s.to_string_lossy().into_owned()).collect();
    if path.len() == 1 && (path[0] == "lib" || path[0] == "main") {
        path.clear();
    } else if path.last().is_some_and(|l| l == "mod") {
        path.pop();
    }
    path
}

/// Every path `source` names through `crate::`, `super::` or `self::`,
/// made absolute from `here` (the file's module), braces expanded:
/// `use super::{a::B, c};` in `x::y` is `x::a::B` and `x::c`.
pub fn named_paths(source: &str, here: &[String]) -> Vec<ModulePath> {
    fn segments(text: &str, prefix: &ModulePath, out: &mut Vec<ModulePath>) {
        let mut path = prefix.clone();
        let mut rest = text.trim_start();
        loop {
            if let Some(inner) = rest.strip_prefix('{') {
                // Split the braces' top level by commas, each a path of its own.
                let (mut depth, mut start) = (0usize, 0usize);
                for (i, c) in inner.char_indices() {
                    match c {
                        '{' => depth += 1,
                        '}' if depth == 0 => {
                            segments(&inner[start..i], &path, out);
                            return;
                        }
                        '}' => depth -= 1,
                        ',' if depth == 0 => {
                            segments(&inner[start..i], &path, out);
                            start = i + 1;
                        }
                        _ => {}
                    }
                }
                return;
            }
            let name = identifier_at(rest);
            if name.is_empty() {
                break;
            }
            if name != "self" {
                path.push(name.to_owned());
            }
            rest = &rest[name.len()..];
            match rest.strip_prefix("::") {
                Some(after) => rest = after.trim_start(),
                None => break,
            }
        }
        out.push(path);
    }
    let code = without_unit_tests(source);
    let mut paths = Vec::new();
    for line in code.lines() {
        let line = line.split("//").next().unwrap_or_default();
        let mut rest = line;
        while let Some(at) = ["crate::", "super::", "self::"].iter().filter_map(|p| rest.find(p)).min() {
            let before = rest[..at].chars().last();
            let mut tail = &rest[at..];
            if before.is_some_and(|c| c.is_alphanumeric() || c == '_' || c == ':') {
                rest = &tail[1..];
                continue;
            }
            let mut base: ModulePath = here.to_vec();
            if let Some(after) = tail.strip_prefix("crate::") {
                base.clear();
                tail = after;
            } else if let Some(after) = tail.strip_prefix("self::") {
                tail = after;
            } else {
                while let Some(after) = tail.strip_prefix("super::") {
                    base.pop();
                    tail = after;
                }
            }
            segments(tail, &base, &mut paths);
            rest = tail;
        }
    }
    paths
}

/// The module trees of the crate at `dir`: for every module with children,
/// the arrows between its children (a child uses another when a file in
/// its subtree names a path into the other's), by the parent's path.
pub fn trees(dir: &Path) -> Result<BTreeMap<ModulePath, Graph>, String> {
    let src = dir.join("src");
    let files = rust_files(&src)?;
    let mut modules = BTreeSet::new();
    let mut sources = Vec::new();
    for file in &files {
        let path = module_path(&src, file);
        for depth in 0..=path.len() {
            modules.insert(path[..depth].to_vec());
        }
        let text = std::fs::read_to_string(file).map_err(|e| format!("reading {}: {e}", file.display()))?;
        sources.push((path, text));
    }
    let mut trees: BTreeMap<ModulePath, Graph> = BTreeMap::new();
    for module in &modules {
        if let Some((child, parent)) = module.split_last() {
            trees.entry(parent.to_vec()).or_default().entry(child.clone()).or_default();
        }
    }
    for (from, text) in &sources {
        for named in named_paths(text, from) {
            // The longest prefix that is a module: what the path reaches.
            let Some(to) = (0..=named.len()).rev().map(|n| &named[..n]).find(|p| modules.contains(*p)) else {
                continue;
            };
            let common = from.iter().zip(to).take_while(|(a, b)| a == b).count();
            if common < from.len() && common < to.len() {
                let parent = from[..common].to_vec();
                let edges = trees.entry(parent).or_default();
                edges.entry(from[common].clone()).or_default().insert(to[common].clone());
            }
        }
    }
    Ok(trees)
}

/// The modules of `graph` that reach each other (its strongly connected
/// components of more than one module), each sorted.
pub fn knots(graph: &Graph) -> Vec<Vec<String>> {
    let reach = |from: &String| {
        let mut seen = BTreeSet::new();
        let mut stack = vec![from.clone()];
        while let Some(m) = stack.pop() {
            for next in graph.get(&m).into_iter().flatten() {
                if seen.insert(next.clone()) {
                    stack.push(next.clone());
                }
            }
        }
        seen
    };
    let reached: BTreeMap<&String, BTreeSet<String>> = graph.keys().map(|m| (m, reach(m))).collect();
    let mut knots: Vec<Vec<String>> = Vec::new();
    for (m, seen) in &reached {
        if !seen.contains(*m) || knots.iter().any(|k| k.contains(m)) {
            continue;
        }
        let knot: Vec<String> = seen.iter().filter(|o| reached[o].contains(*m)).cloned().collect();
        knots.push(knot);
    }
    knots
}

/// The knots below the top level of the crate at `dir` (the top level is
/// [`graph`]'s, root re-exports included): each with its parent module.
pub fn deep_knots(dir: &Path) -> Result<Vec<(String, Vec<String>)>, String> {
    let trees = trees(dir)?;
    let deep = trees.iter().filter(|(parent, _)| !parent.is_empty());
    Ok(deep.flat_map(|(parent, graph)| knots(graph).into_iter().map(|k| (parent.join("::"), k))).collect())
}

/// The files under the crate at `dir`'s `src` that no module declares:
/// rustc never reads them, so they drift unseen. A file is declared by a
/// `mod name;` (any visibility and attributes) in its parent module's
/// file; the crate roots and `src/bin/` (binary targets) need none.
pub fn undeclared_files(dir: &Path) -> Result<Vec<std::path::PathBuf>, String> {
    let src = dir.join("src");
    let mut undeclared = Vec::new();
    for file in rust_files(&src)? {
        let path = module_path(&src, &file);
        let Some((name, parent)) = path.split_last() else { continue };
        if file.strip_prefix(&src).is_ok_and(|r| r.starts_with("bin")) {
            continue;
        }
        let parent_files: Vec<std::path::PathBuf> = if parent.is_empty() {
            vec![src.join("lib.rs"), src.join("main.rs")]
        } else {
            let dir = parent.iter().fold(src.clone(), |d, p| d.join(p));
            vec![dir.with_extension("rs"), dir.join("mod.rs")]
        };
        // Line comments are not declarations.
        let declares = |line: &str| {
            let code = line.split("//").next().unwrap_or("");
            code.match_indices("mod ").any(|(at, _)| {
                let before = code[..at].chars().next_back();
                let rest = code[at + 4..].trim_start();
                before.is_none_or(|c| !(c.is_alphanumeric() || c == '_'))
                    && identifier_at(rest) == name
                    && rest[name.len()..].trim_start().starts_with([';', '{'])
            })
        };
        let declared =
            parent_files.iter().filter_map(|p| std::fs::read_to_string(p).ok()).any(|text| text.lines().any(declares));
        if !declared {
            undeclared.push(file);
        }
    }
    Ok(undeclared)
}

/// `cargo xtask layers`: print each crate's arrows; fail on a knot, at
/// any depth, or on a file no module declares.
pub fn run(root: &Path) -> Result<(), String> {
    let mut loops = Vec::new();
    let mut orphans = Vec::new();
    for krate in CRATES {
        let graph = graph(&root.join(krate))?;
        let arrows: usize = graph.values().map(BTreeSet::len).sum();
        let trees = trees(&root.join(krate))?;
        let deep: usize = trees.iter().filter(|(p, _)| !p.is_empty()).map(|(_, g)| g.len()).sum();
        println!("{krate}: {} top-level modules, {arrows} arrows; {deep} modules below them", graph.len());
        let top = knots(&graph).into_iter().map(|k| (String::new(), k));
        for (parent, knot) in top.chain(deep_knots(&root.join(krate))?) {
            let place = if parent.is_empty() { "at the top level".to_owned() } else { format!("inside {parent}") };
            loops.push(format!("  {krate}, {place}: {} reach each other", knot.join(", ")));
        }
        for file in undeclared_files(&root.join(krate))? {
            orphans.push(format!("  {} (declare it with `mod`, or remove it)", file.display()));
        }
    }
    if !orphans.is_empty() {
        return Err(format!("files that no module declares, which the compiler never reads:\n{}", orphans.join("\n")));
    }
    if loops.is_empty() {
        return Ok(());
    }
    Err(format!(
        "modules import each other in a loop:\n{}\nmove what both need into a module below them",
        loops.join("\n")
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn root_names_are_found_in_paths_and_braces() {
        let source = "use crate::raw::{self, on_device};\nuse crate::{check, Device, HipError};\n\
                      let x = crate::stream::Stream::null(d); // crate::comment\nuse super::ordinal;\n\
                      #[cfg(test)]\nmod tests { use crate::tested; }";
        let names: Vec<(String, bool)> = root_names(source, &["top".to_owned()]).into_iter().collect();
        let expect = [("Device", false), ("HipError", false), ("check", false), ("ordinal", false)];
        let expect = expect.into_iter().chain([("raw", true), ("stream", true)]);
        assert_eq!(names, expect.map(|(n, p)| (n.to_owned(), p)).collect::<Vec<_>>());
        let nested = ["top".to_owned(), "file".to_owned()];
        assert!(root_names("use super::x;", &nested).is_empty(), "a nested file's super is its parent");
    }

    #[test]
    fn the_root_maps_re_exports_to_their_modules() {
        let lib = "mod error;\npub mod raw;\nmod ordinal;\npub use error::{check, HipError as Error};\n\
                   pub use ordinal::Device;\npub use raw::*;";
        let (modules, exported) = root_map(lib);
        assert_eq!(modules.into_iter().collect::<Vec<_>>(), ["error", "ordinal", "raw"]);
        let from = |name: &str| exported.get(name).map(|list| list[0].0.as_str());
        assert_eq!(from("Error"), Some("error"));
        assert_eq!(from("check"), Some("error"));
        assert_eq!(from("Device"), Some("ordinal"));
        assert!(!exported.contains_key("*"));
    }

    #[test]
    fn paths_are_made_absolute_at_any_depth() {
        let here = ["x".to_owned(), "y".to_owned()];
        let source = "use super::{a::B, c};\nlet v = crate::m::n::f(); // crate::not\nuse self::d;\n\
                      use super::super::top;\n#[cfg(test)]\nmod tests { use crate::tested; }";
        let paths: Vec<String> = named_paths(source, &here).into_iter().map(|p| p.join("::")).collect();
        assert_eq!(paths, ["x::a::B", "x::c", "m::n::f", "x::y::d", "top"]);
    }

    #[test]
    fn knots_are_the_modules_that_reach_each_other() {
        let mut graph = Graph::new();
        for (a, b) in [("a", "b"), ("b", "a"), ("b", "c"), ("c", "d"), ("d", "c"), ("e", "a")] {
            graph.entry(a.to_owned()).or_default().insert(b.to_owned());
            graph.entry(b.to_owned()).or_default();
        }
        assert_eq!(knots(&graph), [vec!["a", "b"], vec!["c", "d"]]);
    }

    #[test]
    fn a_file_no_module_declares_is_found() {
        let dir = std::env::temp_dir().join(format!("xtask-undeclared-{}", std::process::id()));
        let src = dir.join("src");
        std::fs::create_dir_all(src.join("a")).unwrap();
        std::fs::write(src.join("lib.rs"), "pub mod a;\n#[cfg(test)]\nmod b;\n").unwrap();
        std::fs::write(src.join("a/mod.rs"), "mod inner;\n// mod lost;\n").unwrap();
        for file in ["b.rs", "a/inner.rs", "a/lost.rs", "stray.rs"] {
            std::fs::write(src.join(file), "").unwrap();
        }
        let found: Vec<String> = undeclared_files(&dir)
            .unwrap()
            .iter()
            .map(|f| f.strip_prefix(&src).unwrap().display().to_string())
            .collect();
        let _ = std::fs::remove_dir_all(&dir);
        // `// mod lost;` is a comment, not a declaration.
        assert_eq!(found, ["a/lost.rs", "stray.rs"]);
    }

    #[test]
    fn no_crate_of_the_workspace_has_a_loop() {
        let root = crate::workspace_root();
        let core = graph(&root.join("hip-core")).expect("hip-core reads");
        assert!(core["state"].contains("raw"), "the scan sees the arrows: {core:?}");
        run(&root).unwrap();
    }
}
