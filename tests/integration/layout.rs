//! The floor plan holds: no two modules of a crate import each other, directly or around a
//! circle, in any crate of the workspace (issue 17 ended the last three circles, inside
//! `rules/`). A module is a file (`mod.rs` and `lib.rs`/`main.rs` stand for their folder);
//! an import is any `crate::...` or `super::...` path outside the file's tests. A module's own
//! descendants do not count: a parent declaring its children is not an import circle.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// The source folders of the workspace's crates.
const CRATES: &[&str] = &[
    "crates/anqi-core/src",
    "crates/anqi-server/src",
    "src",
    "crates/anqi-client/src",
    "crates/anqi-tournament/src",
    "clients/python/rust/src",
];

type Module = Vec<String>;

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// The module a file is, as path segments from the crate root.
fn module_of(root: &Path, file: &Path) -> Module {
    let rel = file.strip_prefix(root).unwrap().with_extension("");
    let mut parts: Module = rel
        .components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect();
    if matches!(
        parts.last().map(String::as_str),
        Some("mod" | "lib" | "main")
    ) {
        parts.pop();
    }
    parts
}

/// The file's text without its test module and without comments.
fn code_of(text: &str) -> String {
    let code = text
        .split("#[cfg(test)]\nmod tests")
        .next()
        .unwrap_or_default();
    code.lines()
        .map(|line| line.split("//").next().unwrap_or_default())
        .collect::<Vec<_>>()
        .join("\n")
}

/// Every `crate::a::b` and `super::a` path in `code`, as the segments after the keyword, with
/// the keyword.
fn paths(code: &str) -> Vec<(bool, Vec<String>)> {
    let mut out = Vec::new();
    for (keyword, is_crate) in [("crate::", true), ("super::", false)] {
        let mut rest = code;
        while let Some(at) = rest.find(keyword) {
            let before = rest[..at].chars().last();
            rest = &rest[at + keyword.len()..];
            if before.is_some_and(|c| c.is_alphanumeric() || c == '_') {
                continue; // part of a longer name (`my_crate::`)
            }
            let mut segments = vec![];
            let mut tail = rest;
            // `super::super::x` walks up twice.
            while let Some(next) = tail.strip_prefix("super::") {
                segments.push("super".to_string());
                tail = next;
            }
            let name: String = tail
                .chars()
                .take_while(|c| c.is_alphanumeric() || *c == '_')
                .collect();
            if !name.is_empty() {
                segments.push(name.clone());
                let after = &tail[name.len()..];
                if let Some(more) = after.strip_prefix("::") {
                    let second: String = more
                        .chars()
                        .take_while(|c| c.is_alphanumeric() || *c == '_')
                        .collect();
                    if !second.is_empty() {
                        segments.push(second);
                    }
                }
            }
            out.push((is_crate, segments));
        }
    }
    out
}

/// The module graph of one crate: each module and the modules it imports.
fn graph(root: &Path) -> BTreeMap<Module, BTreeSet<Module>> {
    let mut files = Vec::new();
    rust_files(root, &mut files);
    let modules: BTreeMap<Module, PathBuf> = files
        .iter()
        .map(|f| (module_of(root, f), f.clone()))
        .collect();
    let mut edges = BTreeMap::new();
    for (module, file) in &modules {
        let code = code_of(&std::fs::read_to_string(file).unwrap());
        let mut to = BTreeSet::new();
        for (is_crate, segments) in paths(&code) {
            let mut base: Module = if is_crate {
                Vec::new()
            } else {
                module[..module.len().saturating_sub(1)].to_vec()
            };
            let mut rest = segments.as_slice();
            while rest.first().is_some_and(|s| s == "super") {
                base.pop();
                rest = &rest[1..];
            }
            base.extend(rest.iter().cloned());
            // The longest prefix that is a module.
            let target = (1..=base.len())
                .rev()
                .map(|n| base[..n].to_vec())
                .find(|m| modules.contains_key(m));
            if let Some(target) = target {
                let own_ancestor = target.len() < module.len() && module.starts_with(&target);
                let own_descendant = target.starts_with(module);
                if !own_ancestor && !own_descendant {
                    to.insert(target);
                }
            }
        }
        edges.insert(module.clone(), to);
    }
    edges
}

/// A circle of imports, if the graph has one.
fn circle(edges: &BTreeMap<Module, BTreeSet<Module>>) -> Option<Vec<Module>> {
    // Depth-first search with the path kept: a module met again on the path closes a circle.
    fn visit(
        m: &Module,
        edges: &BTreeMap<Module, BTreeSet<Module>>,
        path: &mut Vec<Module>,
        done: &mut BTreeSet<Module>,
    ) -> Option<Vec<Module>> {
        if let Some(at) = path.iter().position(|p| p == m) {
            return Some(path[at..].to_vec());
        }
        if !done.insert(m.clone()) {
            return None;
        }
        path.push(m.clone());
        for next in edges.get(m).into_iter().flatten() {
            if let Some(found) = visit(next, edges, path, done) {
                return Some(found);
            }
        }
        path.pop();
        None
    }
    let mut done = BTreeSet::new();
    edges
        .keys()
        .find_map(|m| visit(m, edges, &mut Vec::new(), &mut done))
}

#[test]
fn no_crate_has_an_import_circle() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    for dir in CRATES {
        let edges = graph(&root.join(dir));
        assert!(edges.len() > 3, "{dir}: modules found: {}", edges.len());
        if let Some(c) = circle(&edges) {
            let names: Vec<String> = c.iter().map(|m| m.join("::")).collect();
            panic!("{dir}: an import circle: {}", names.join(" -> "));
        }
    }
}

/// The checker finds a circle where there is one (the three that issue 17 removed had this
/// shape: `board` and `capture` importing each other).
#[test]
fn a_circle_is_found() {
    let m = |s: &str| -> Module { s.split("::").map(String::from).collect() };
    let mut edges = BTreeMap::new();
    edges.insert(m("rules::board"), BTreeSet::from([m("rules::capture")]));
    edges.insert(m("rules::capture"), BTreeSet::from([m("rules::square")]));
    edges.insert(m("rules::square"), BTreeSet::new());
    assert!(circle(&edges).is_none());
    edges
        .get_mut(&m("rules::capture"))
        .unwrap()
        .insert(m("rules::board"));
    assert_eq!(
        circle(&edges).unwrap(),
        vec![m("rules::board"), m("rules::capture")]
    );
    let found = paths("use super::board::{Square};\nlet x = crate::rules::Game::new();");
    assert!(found.contains(&(false, vec!["board".into()])));
    assert!(found.contains(&(true, vec!["rules".into(), "Game".into()])));
}
