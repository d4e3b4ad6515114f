//! The orders the registry keeps: extensions in dependency order, and
//! link-time items (tools, commands, flags) in declaration order, since
//! the order `inventory` yields them in is link order, which is neither
//! source order nor stable between builds.

use std::collections::BTreeMap;

use super::{crate_of, ExtensionEntry};

/// Where a link-time item was declared: `module_path!()`, `file!()` and
/// `line!()` at its attribute or macro.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Declared {
    pub(crate) module: &'static str,
    pub(crate) file: &'static str,
    pub(crate) line: u32,
}

/// Sort `items` into declaration order: the crates in the load order of
/// their extensions (`extensions`; crates without one after them, by
/// name), then, in one crate, by source file path, then by line. A stable
/// sort, so items of one line keep link order.
pub(crate) fn declaration_order<T>(
    items: &mut [T],
    extensions: &[&'static ExtensionEntry],
    declared: impl Fn(&T) -> Declared,
) {
    let rank = |module: &str| {
        let krate = crate_of(module);
        let position = extensions.iter().position(|e| e.krate() == krate);
        (position.unwrap_or(usize::MAX), krate.to_string())
    };
    items.sort_by_cached_key(|item| {
        let d = declared(item);
        (rank(d.module), d.file, d.line)
    });
}

/// Dependency order of `extensions` (Kahn's algorithm, ties by name), and
/// the extensions that cannot load with the reason.
pub(crate) fn load_order(
    extensions: &[&'static ExtensionEntry],
) -> (Vec<&'static ExtensionEntry>, BTreeMap<String, String>) {
    let by_name: BTreeMap<&str, &'static ExtensionEntry> =
        extensions.iter().map(|e| (e.name, *e)).collect();
    let mut blocked: BTreeMap<String, String> = BTreeMap::new();
    // Missing dependencies, transitively.
    loop {
        let mut changed = false;
        for e in by_name.values() {
            if blocked.contains_key(e.name) {
                continue;
            }
            for d in e.dependencies {
                let reason = if !by_name.contains_key(d) {
                    Some(format!(
                        "extension `{}` depends on `{d}`, which is not in this binary",
                        e.name
                    ))
                } else if blocked.contains_key(*d) {
                    Some(format!(
                        "extension `{}` depends on `{d}`, which cannot load",
                        e.name
                    ))
                } else {
                    None
                };
                if let Some(r) = reason {
                    blocked.insert(e.name.to_string(), r);
                    changed = true;
                    break;
                }
            }
        }
        if !changed {
            break;
        }
    }
    let mut order = Vec::new();
    let mut done: Vec<&str> = Vec::new();
    loop {
        let ready: Vec<&'static ExtensionEntry> = by_name
            .values()
            .filter(|e| !blocked.contains_key(e.name) && !done.contains(&e.name))
            .filter(|e| e.dependencies.iter().all(|d| done.contains(d)))
            .copied()
            .collect();
        if ready.is_empty() {
            break;
        }
        for e in ready {
            done.push(e.name);
            order.push(e);
        }
    }
    // Whatever is left waits on itself: a cycle.
    let stuck: Vec<&str> = by_name
        .values()
        .filter(|e| !blocked.contains_key(e.name) && !done.contains(&e.name))
        .map(|e| e.name)
        .collect();
    for name in &stuck {
        blocked.insert(
            name.to_string(),
            format!(
                "extension `{name}` is part of a dependency cycle among {}",
                stuck
                    .iter()
                    .map(|n| format!("`{n}`"))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        );
    }
    (order, blocked)
}

#[cfg(test)]
mod tests {
    use std::any::TypeId;

    use super::*;
    use crate::host::connection::AnyState;

    fn entry(name: &'static str, deps: &'static [&'static str]) -> &'static ExtensionEntry {
        Box::leak(Box::new(ExtensionEntry {
            name,
            version: "0",
            description: "",
            dependencies: deps,
            module: name,
            state_type: TypeId::of::<()>,
            load: |_| Box::pin(async { Ok(std::sync::Arc::new(()) as AnyState) }),
            unload: None,
            settings: None,
            on_load: false,
        }))
    }

    #[test]
    fn dependencies_load_first_and_ties_go_by_name() {
        let exts = [
            entry("app", &["db", "log"]),
            entry("log", &[]),
            entry("db", &["log"]),
        ];
        let (order, blocked) = load_order(&exts);
        let names: Vec<_> = order.iter().map(|e| e.name).collect();
        assert_eq!(names, ["log", "db", "app"]);
        assert!(blocked.is_empty());
    }

    #[test]
    fn missing_dependencies_and_cycles_are_named_and_the_rest_loads() {
        let exts = [
            entry("ok", &[]),
            entry("needs-ghost", &["ghost"]),
            entry("on-top", &["needs-ghost"]),
            entry("a", &["b"]),
            entry("b", &["a"]),
        ];
        let (order, blocked) = load_order(&exts);
        let names: Vec<_> = order.iter().map(|e| e.name).collect();
        assert_eq!(names, ["ok"]);
        assert!(blocked["needs-ghost"].contains("`ghost`"));
        assert!(blocked["on-top"].contains("`needs-ghost`, which cannot load"));
        assert!(blocked["a"].contains("cycle among `a`, `b`"));
        assert!(blocked["b"].contains("cycle"));
    }

    #[test]
    fn items_go_by_extension_then_file_then_line_whatever_their_link_order() {
        let exts = [entry("app", &["lib"]), entry("lib", &[])];
        let (order, _) = load_order(&exts);
        let at = |module, file, line| Declared { module, file, line };
        let mut items = [
            ("z-late", at("app", "src/main.rs", 40)),
            ("loose", at("helpers::x", "src/lib.rs", 1)),
            ("b-in-b", at("app::b", "src/b.rs", 3)),
            ("y-early", at("app", "src/main.rs", 7)),
            ("lib", at("lib::tools", "src/tools.rs", 9)),
            ("a-in-a", at("app::a", "src/a.rs", 90)),
        ];
        declaration_order(&mut items, &order, |i| i.1);
        let names: Vec<&str> = items.iter().map(|i| i.0).collect();
        assert_eq!(
            names,
            ["lib", "a-in-a", "b-in-b", "y-early", "z-late", "loose"]
        );
    }
}
