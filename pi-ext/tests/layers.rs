//! The runtime's folders are its layers: no import circle among the
//! top-level modules of `src/` is wider than two modules. Reads the sources
//! (`crate::…` paths outside comments and unit tests) so a new upward
//! import fails here, naming the files that close the circle.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// Widest circle allowed.
const MAX_CIRCLE: usize = 2;

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap().flatten() {
        let path = entry.path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// The code of a file without comments and without its `mod tests`.
fn code(text: &str) -> String {
    let text = text.split("#[cfg(test)]\nmod tests").next().unwrap_or("");
    text.lines()
        .map(|line| match line.find("//") {
            Some(i) => &line[..i],
            None => line,
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// The first segments of every `crate::` path in `code` (`crate::a::b` and
/// each item of `crate::{a, b::c}`), with their line numbers.
fn crate_paths(code: &str) -> Vec<(String, usize)> {
    let bytes = code.as_bytes();
    let mut found = Vec::new();
    let mut at = 0;
    while let Some(i) = code[at..].find("crate::").map(|i| i + at) {
        at = i + "crate::".len();
        let before = if i == 0 { b' ' } else { bytes[i - 1] };
        if before == b'$' || before == b'_' || before.is_ascii_alphanumeric() {
            continue;
        }
        let line = code[..i].matches('\n').count() + 1;
        if bytes.get(at) == Some(&b'{') {
            // Top-level items of the group.
            let (mut depth, mut item, mut j) = (0usize, String::new(), at + 1);
            while j < bytes.len() {
                let c = bytes[j] as char;
                match c {
                    '{' => depth += 1,
                    '}' if depth == 0 => break,
                    '}' => depth -= 1,
                    ',' if depth == 0 => {
                        found.push((first_ident(&item), line));
                        item.clear();
                        j += 1;
                        continue;
                    }
                    _ => {}
                }
                item.push(c);
                j += 1;
            }
            found.push((first_ident(&item), line));
        } else {
            found.push((first_ident(&code[at..]), line));
        }
    }
    found.retain(|(name, _)| !name.is_empty());
    found
}

fn first_ident(s: &str) -> String {
    s.trim_start()
        .chars()
        .take_while(|c| c.is_alphanumeric() || *c == '_')
        .collect()
}

#[test]
fn no_import_circle_is_wider_than_two_modules() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    let top = |path: &Path| -> String {
        let rel = path.strip_prefix(&src).unwrap();
        let first = rel
            .components()
            .next()
            .unwrap()
            .as_os_str()
            .to_string_lossy();
        first.trim_end_matches(".rs").to_string()
    };
    let modules: BTreeSet<String> = files
        .iter()
        .map(|f| top(f))
        .filter(|m| m != "lib")
        .collect();
    assert!(modules.len() > 10, "{modules:?}");
    // module → module it imports → where.
    let mut edges: BTreeMap<String, BTreeMap<String, String>> = BTreeMap::new();
    for file in &files {
        let from = top(file);
        if from == "lib" {
            continue;
        }
        let text = code(&std::fs::read_to_string(file).unwrap());
        for (to, line) in crate_paths(&text) {
            if to != from && modules.contains(&to) {
                let rel = file.strip_prefix(&src).unwrap().display().to_string();
                edges
                    .entry(from.clone())
                    .or_default()
                    .entry(to)
                    .or_insert(format!("src/{rel}:{line}"));
            }
        }
    }
    for circle in circles(&modules, &edges) {
        if circle.len() > MAX_CIRCLE {
            let why: Vec<String> = circle
                .iter()
                .flat_map(|m| {
                    edges
                        .get(m)
                        .into_iter()
                        .flatten()
                        .filter(|(to, _)| circle.contains(*to))
                        .map(move |(to, at)| format!("{m} → {to} ({at})"))
                })
                .collect();
            panic!(
                "an import circle of {} modules (at most {MAX_CIRCLE}): {circle:?}\n{}",
                circle.len(),
                why.join("\n")
            );
        }
    }
}

/// Strongly connected sets of the graph (Tarjan).
fn circles(
    modules: &BTreeSet<String>,
    edges: &BTreeMap<String, BTreeMap<String, String>>,
) -> Vec<BTreeSet<String>> {
    struct State<'a> {
        edges: &'a BTreeMap<String, BTreeMap<String, String>>,
        index: BTreeMap<&'a str, usize>,
        low: BTreeMap<&'a str, usize>,
        stack: Vec<&'a str>,
        out: Vec<BTreeSet<String>>,
    }
    fn visit<'a>(s: &mut State<'a>, v: &'a str) {
        let n = s.index.len();
        s.index.insert(v, n);
        s.low.insert(v, n);
        s.stack.push(v);
        for w in s.edges.get(v).into_iter().flat_map(|m| m.keys()) {
            let w = w.as_str();
            if !s.index.contains_key(w) {
                visit(s, w);
                let lw = s.low[w];
                s.low.insert(v, s.low[v].min(lw));
            } else if s.stack.contains(&w) {
                let iw = s.index[w];
                s.low.insert(v, s.low[v].min(iw));
            }
        }
        if s.low[v] == s.index[v] {
            let mut set = BTreeSet::new();
            while let Some(w) = s.stack.pop() {
                set.insert(w.to_string());
                if w == v {
                    break;
                }
            }
            s.out.push(set);
        }
    }
    let mut s = State {
        edges,
        index: BTreeMap::new(),
        low: BTreeMap::new(),
        stack: Vec::new(),
        out: Vec::new(),
    };
    for m in modules {
        if !s.index.contains_key(m.as_str()) {
            visit(&mut s, m);
        }
    }
    s.out
}

#[test]
fn the_scanner_sees_plain_and_grouped_paths() {
    let code = code("use crate::a::B;\n// crate::ignored\nuse crate::{b, c::{D, E}};\nlet x = $crate::macro_glue;\n");
    let names: Vec<String> = crate_paths(&code).into_iter().map(|(n, _)| n).collect();
    assert_eq!(names, ["a", "b", "c"]);
}
