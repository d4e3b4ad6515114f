//! The terminal UI's registrations: message, entry and tool renderers and
//! the Markdown transformer (feature `tui`).

use std::collections::BTreeMap;

use serde_json::Value;

use super::{Manifest, Registry};

/// A `#[message_renderer]` registration, collected at link time. Not for direct use.
#[doc(hidden)]
pub struct MessageRendererEntry {
    pub module: &'static str,
    /// The custom message type it renders.
    pub custom_type: &'static str,
    /// The message (as pi has it) and `expanded` → its view, or pi's default.
    pub render: fn(&Value, bool) -> Option<crate::tui::View>,
}

/// A `#[message_renderer]`, to register explicitly: `<fn>_message_renderer()`
/// returns one (see [`Registry::message_renderer`]).
#[derive(Clone, Copy)]
pub struct MessageRendererDef(pub(crate) &'static MessageRendererEntry);

impl std::fmt::Debug for MessageRendererDef {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("MessageRendererDef")
            .field("custom_type", &self.0.custom_type)
            .finish()
    }
}

/// A [`crate::entry_renderer!`] registration, collected at link time. Not for direct use.
#[doc(hidden)]
pub struct EntryRendererEntry {
    pub module: &'static str,
    /// The custom entry type it renders.
    pub custom_type: &'static str,
    /// The entry (as pi has it) and the options → its view, or nothing.
    pub render: fn(&Value, crate::tui::EntryOpts<'_>) -> Option<crate::tui::View>,
}

/// A [`crate::tool_renderer!`] registration, collected at link time. Not for direct use.
#[doc(hidden)]
pub struct ToolRendererEntry {
    pub module: &'static str,
    /// The tool whose rows it draws (any tool: pi's, another extension's, an MCP tool).
    pub tool: &'static str,
    pub make: fn() -> crate::tui::ToolRenderer,
}

/// A [`crate::markdown_transformer!`] registration, collected at link time. Not for direct use.
#[doc(hidden)]
pub struct MarkdownTransformerEntry {
    pub module: &'static str,
    /// The surfaces it runs on.
    pub surfaces: &'static [crate::tui::MarkdownSurface],
    pub transform: fn(&str, &crate::tui::MarkdownContext) -> String,
}

inventory::collect!(MessageRendererEntry);
inventory::collect!(EntryRendererEntry);
inventory::collect!(ToolRendererEntry);
inventory::collect!(MarkdownTransformerEntry);

/// What the terminal UI registers.
#[derive(Default)]
pub(crate) struct Renderers {
    /// Message renderers by custom type.
    pub(crate) message_renderers: BTreeMap<String, &'static MessageRendererEntry>,
    /// Custom entry renderers by custom type.
    pub(crate) entry_renderers: BTreeMap<String, &'static EntryRendererEntry>,
    /// Renderers of other tools' rows, by tool name, with the declaring module.
    pub(crate) tool_renderers: BTreeMap<String, (crate::tui::ToolRenderer, &'static str)>,
    /// The Markdown transformer (pi keeps one per extension).
    pub(crate) markdown_transformer: Option<&'static MarkdownTransformerEntry>,
}

impl Registry {
    /// Serve a message renderer.
    pub fn message_renderer(mut self, renderer: MessageRendererDef) -> Self {
        self.add_message_renderer(renderer.0);
        self
    }

    /// Draw the rows of another tool (pi's `registerToolRenderer`, pi ≥
    /// 1.0.1): a built-in tool, another extension's, an MCP tool. pi asks
    /// for the rows of any call to `tool`, in this session or a resumed
    /// one; the [`crate::tui::ToolRender`] methods that return
    /// [`crate::tui::View::builtin`] keep that tool's own look. A second
    /// renderer for one tool is left out and the problem recorded.
    pub fn tool_renderer(
        mut self,
        tool: impl Into<String>,
        render: crate::tui::ToolRenderer,
    ) -> Self {
        self.add_tool_renderer(tool.into(), render, "");
        self
    }
}

impl Registry {
    /// Collect the linked renderers.
    pub(super) fn collect_renderers(&mut self) {
        for renderer in inventory::iter::<MessageRendererEntry>() {
            self.add_message_renderer(renderer);
        }
        for renderer in inventory::iter::<EntryRendererEntry>() {
            self.add_entry_renderer(renderer);
        }
        for renderer in inventory::iter::<ToolRendererEntry>() {
            self.add_tool_renderer(
                renderer.tool.to_string(),
                (renderer.make)(),
                renderer.module,
            );
        }
        for transformer in inventory::iter::<MarkdownTransformerEntry>() {
            self.add_markdown_transformer(transformer);
        }
    }

    fn add_message_renderer(&mut self, renderer: &'static MessageRendererEntry) {
        let ty = renderer.custom_type.to_string();
        match self.renderers.message_renderers.get(&ty) {
            Some(first) if std::ptr::eq(*first, renderer) => {}
            Some(_) => self.problems.push(format!(
                "custom message type `{ty}` has two renderers; keeping one (pi would use the first registered)"
            )),
            None => {
                self.renderers.message_renderers.insert(ty, renderer);
            }
        }
    }

    fn add_entry_renderer(&mut self, renderer: &'static EntryRendererEntry) {
        let ty = renderer.custom_type.to_string();
        match self.renderers.entry_renderers.get(&ty) {
            Some(first) if std::ptr::eq(*first, renderer) => {}
            Some(_) => self.problems.push(format!(
                "custom entry type `{ty}` has two renderers; keeping one"
            )),
            None => {
                self.renderers.entry_renderers.insert(ty, renderer);
            }
        }
    }

    fn add_tool_renderer(
        &mut self,
        tool: String,
        render: crate::tui::ToolRenderer,
        module: &'static str,
    ) {
        if self.renderers.tool_renderers.contains_key(&tool) {
            self.problems
                .push(format!("tool `{tool}` has two row renderers; keeping one"));
            return;
        }
        self.renderers.tool_renderers.insert(tool, (render, module));
    }

    fn add_markdown_transformer(&mut self, transformer: &'static MarkdownTransformerEntry) {
        match self.renderers.markdown_transformer {
            Some(first) if std::ptr::eq(first, transformer) => {}
            Some(_) => self.problems.push(
                "two Markdown transformers are registered; keeping one (pi keeps one per extension)"
                    .to_string(),
            ),
            None => self.renderers.markdown_transformer = Some(transformer),
        }
    }

    /// The manifest's renderers.
    pub(super) fn renderers_manifest(&self, out: &dyn Fn(&str) -> bool, m: &mut Manifest) {
        m.message_renderers = self
            .renderers
            .message_renderers
            .values()
            .filter(|r| !out(r.module))
            .map(|r| r.custom_type.to_string())
            .collect();
        m.entry_renderers = self
            .renderers
            .entry_renderers
            .values()
            .filter(|r| !out(r.module))
            .map(|r| r.custom_type.to_string())
            .collect();
        m.tool_renderers = self
            .renderers
            .tool_renderers
            .iter()
            .filter(|(_, (_, module))| !out(module))
            .map(|(tool, _)| tool.clone())
            .collect();
        m.markdown_transformer = self
            .renderers
            .markdown_transformer
            .filter(|t| !out(t.module))
            .map(|t| t.surfaces.iter().map(|s| s.as_str().to_string()).collect());
    }
}
