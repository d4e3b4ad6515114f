//! The registrations of pi's built-in tools with Rust operations (feature
//! `builtin-tools`).

use std::collections::BTreeMap;

use super::{crate_of, Manifest, Registry};
use crate::builtin_tools::BuiltinTool;

/// A [`crate::builtin_tool!`] registration. Not for direct use.
#[doc(hidden)]
pub struct BuiltinToolEntry {
    pub module: &'static str,
    pub make: fn() -> BuiltinTool,
}

inventory::collect!(BuiltinToolEntry);

/// The built-in tools registered.
#[derive(Default)]
pub(crate) struct Builtins {
    /// pi's built-in tools with Rust operations, by name.
    pub(crate) builtin_tools: BTreeMap<String, BuiltinTool>,
    /// The crate each was declared in ([`crate::builtin_tool!`] only).
    builtin_crates: BTreeMap<String, &'static str>,
}

impl Registry {
    /// Serve one of pi's built-in tools with Rust operations (see
    /// [`crate::builtin_tools`]). A second one of the same name, or one
    /// without operations, is left out and the problem recorded.
    pub fn builtin_tool(mut self, tool: BuiltinTool) -> Self {
        self.add_builtin(tool);
        self
    }
}

impl Registry {
    /// Collect the linked built-in tools.
    pub(super) fn collect_builtins(&mut self) {
        for entry in inventory::iter::<BuiltinToolEntry>() {
            let tool = (entry.make)();
            self.builtins
                .builtin_crates
                .insert(tool.name().to_string(), crate_of(entry.module));
            self.add_builtin(tool);
        }
    }

    fn add_builtin(&mut self, tool: BuiltinTool) {
        if let Some(problem) = tool.problem() {
            self.problems.push(problem);
            return;
        }
        let name = tool.name();
        if self.builtins.builtin_tools.contains_key(name) || self.tools.contains_key(name) {
            self.problems.push(format!(
                "pi's built-in tool `{name}` is overridden twice; keeping one"
            ));
            return;
        }
        self.builtins.builtin_tools.insert(name.to_string(), tool);
    }

    /// The manifest's built-in tools.
    pub(super) fn builtins_manifest(&self, out: &dyn Fn(&str) -> bool, m: &mut Manifest) {
        m.builtin_tools = self
            .builtins
            .builtin_tools
            .values()
            .filter(|t| {
                !self
                    .builtins
                    .builtin_crates
                    .get(t.name())
                    .is_some_and(|m| out(m))
            })
            .map(BuiltinTool::manifest)
            .collect();
    }
}
