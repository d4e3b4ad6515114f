//! [`BuiltinTool`]: one of pi's built-in tools re-registered from Rust, and
//! [`BashToolBuilder`].

use std::sync::Arc;

use super::erased::{ErasedBash, ErasedEdit, ErasedFind, ErasedLs, ErasedRead, ErasedWrite};
use super::operations::{
    BashOperations, EditOperations, FindOperations, LsOperations, ReadOperations, SpawnHook,
    WriteOperations,
};

/// Which built-in tool.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Bash,
    Read,
    Write,
    Edit,
    Grep,
    Find,
    Ls,
}

impl Kind {
    const ALL: [Kind; 7] = [
        Kind::Bash,
        Kind::Read,
        Kind::Write,
        Kind::Edit,
        Kind::Grep,
        Kind::Find,
        Kind::Ls,
    ];

    fn name(self) -> &'static str {
        match self {
            Kind::Bash => "bash",
            Kind::Read => "read",
            Kind::Write => "write",
            Kind::Edit => "edit",
            Kind::Grep => "grep",
            Kind::Find => "find",
            Kind::Ls => "ls",
        }
    }
}

/// The shell pi draws around a tool's rows in its terminal (pi's
/// `renderShell`), chosen with [`BuiltinTool::shell`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Shell {
    /// pi's coloured box: padding and a background that shows the call's
    /// state (pi's `"default"`).
    Pi,
    /// None: the rows frame themselves (pi's `"self"`).
    Own,
}

impl Shell {
    /// pi's name for it.
    #[cfg_attr(not(feature = "tui"), allow(dead_code))]
    fn name(self) -> &'static str {
        match self {
            Shell::Pi => "default",
            Shell::Own => "self",
        }
    }
}

/// One of pi's built-in tools with Rust operations or Rust rows, ready to
/// register with [`crate::builtin_tool!`] or
/// [`crate::registry::Registry::builtin_tool`].
#[derive(Clone)]
#[must_use = "register it with `pi_ext::builtin_tool!` or `Registry::builtin_tool`"]
pub struct BuiltinTool {
    kind: Kind,
    label: Option<String>,
    command_prefix: Option<String>,
    #[cfg(feature = "tui")]
    pub(crate) render: Option<crate::tui::ToolRenderer>,
    /// The shell around the rows, if not the definition's.
    #[cfg(feature = "tui")]
    shell: Option<Shell>,
    pub(crate) bash: Option<Arc<dyn ErasedBash>>,
    pub(crate) read: Option<Arc<dyn ErasedRead>>,
    pub(crate) write: Option<Arc<dyn ErasedWrite>>,
    pub(crate) edit: Option<Arc<dyn ErasedEdit>>,
    pub(crate) ls: Option<Arc<dyn ErasedLs>>,
    pub(crate) find: Option<Arc<dyn ErasedFind>>,
    pub(crate) spawn_hook: Option<Arc<dyn SpawnHook>>,
}

impl std::fmt::Debug for BuiltinTool {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("BuiltinTool")
            .field("tool", &self.name())
            .field("label", &self.label)
            .finish_non_exhaustive()
    }
}

impl BuiltinTool {
    /// pi's `bash` tool; give it [`BashToolBuilder::operations`] or a
    /// [`BashToolBuilder::spawn_hook`].
    pub fn bash() -> BashToolBuilder {
        BashToolBuilder(Self::new(Kind::Bash))
    }

    /// pi's `read` tool with these operations.
    pub fn read(operations: impl ReadOperations) -> Self {
        let mut tool = Self::new(Kind::Read);
        tool.read = Some(Arc::new(operations));
        tool
    }

    /// pi's `write` tool with these operations.
    pub fn write(operations: impl WriteOperations) -> Self {
        let mut tool = Self::new(Kind::Write);
        tool.write = Some(Arc::new(operations));
        tool
    }

    /// pi's `edit` tool with these operations.
    pub fn edit(operations: impl EditOperations) -> Self {
        let mut tool = Self::new(Kind::Edit);
        tool.edit = Some(Arc::new(operations));
        tool
    }

    /// pi's `ls` tool, with pi's operations (give it a [`BuiltinTool::render`]
    /// or a [`BuiltinTool::label`]).
    pub fn ls() -> Self {
        Self::new(Kind::Ls)
    }

    /// pi's `ls` tool with these operations (a listing somewhere else than
    /// pi's file system: over ssh, in a VM).
    pub fn ls_with(operations: impl LsOperations) -> Self {
        let mut tool = Self::new(Kind::Ls);
        tool.ls = Some(Arc::new(operations));
        tool
    }

    /// pi's `find` tool, with pi's operations (give it a
    /// [`BuiltinTool::render`] or a [`BuiltinTool::label`]).
    pub fn find() -> Self {
        Self::new(Kind::Find)
    }

    /// pi's `find` tool with these operations (the glob search runs where
    /// they say, instead of pi's local `fd`).
    pub fn find_with(operations: impl FindOperations) -> Self {
        let mut tool = Self::new(Kind::Find);
        tool.find = Some(Arc::new(operations));
        tool
    }

    /// pi's `grep` tool, with pi's operations (give it a
    /// [`BuiltinTool::render`] or a [`BuiltinTool::label`]).
    pub fn grep() -> Self {
        Self::new(Kind::Grep)
    }

    /// pi's built-in tool `name` (`"bash"`, `"read"`, `"write"`, `"edit"`,
    /// `"grep"`, `"find"`, `"ls"`) with pi's own operations, to give it a
    /// [`BuiltinTool::render`] or a [`BuiltinTool::label`]; `None` for
    /// another name.
    pub fn named(name: &str) -> Option<Self> {
        Kind::ALL
            .into_iter()
            .find(|k| k.name() == name)
            .map(Self::new)
    }

    /// Draw the tool's call and result rows in pi's terminal with `render`
    /// (pi's `renderCall` and `renderResult`; in pi's terminal only). Its
    /// `Args` are the tool's input ([`crate::data::builtin::ReadInput`], …), its
    /// `Details` pi's details of the tool's result (`Value` takes any).
    #[cfg(feature = "tui")]
    pub fn render(mut self, render: impl crate::tui::ToolRender) -> Self {
        self.render = Some(crate::tui::ToolRenderer::new(render));
        self
    }

    /// Draw the rows in `shell` instead of the one pi's definition names
    /// (pi's `renderShell`; pi's `edit` draws its own, the others sit in
    /// pi's coloured box): [`Shell::Pi`] puts Rust rows of `edit` in the
    /// box. Only with a [`BuiltinTool::render`]: pi's own rows keep their
    /// shell.
    #[cfg(feature = "tui")]
    pub fn shell(mut self, shell: Shell) -> Self {
        self.shell = Some(shell);
        self
    }

    fn new(kind: Kind) -> Self {
        Self {
            kind,
            label: None,
            command_prefix: None,
            #[cfg(feature = "tui")]
            render: None,
            #[cfg(feature = "tui")]
            shell: None,
            bash: None,
            read: None,
            write: None,
            edit: None,
            ls: None,
            find: None,
            spawn_hook: None,
        }
    }

    /// The tool's name (`"bash"`, `"read"`, `"write"`, `"edit"`, `"grep"`,
    /// `"find"`, `"ls"`).
    pub fn name(&self) -> &'static str {
        self.kind.name()
    }

    /// The label pi shows (default: pi's).
    pub fn label(mut self, label: impl Into<String>) -> Self {
        self.label = Some(label.into());
        self
    }

    /// Whether its operations are Rust's.
    fn rust_operations(&self) -> bool {
        self.bash.is_some()
            || self.read.is_some()
            || self.write.is_some()
            || self.edit.is_some()
            || self.ls.is_some()
            || self.find.is_some()
    }

    /// What is wrong with it, if anything.
    pub(crate) fn problem(&self) -> Option<String> {
        #[cfg(feature = "tui")]
        let renders = self.render.is_some();
        #[cfg(not(feature = "tui"))]
        let renders = false;
        let changes = self.rust_operations()
            || self.spawn_hook.is_some()
            || renders
            || self.label.is_some()
            || self.command_prefix.is_some();
        (!changes).then(|| {
            format!(
                "built-in tool `{}` skipped: it changes nothing of pi's (give it operations, a renderer or a label)",
                self.name()
            )
        })
    }

    /// Its manifest entry.
    pub(crate) fn manifest(&self) -> crate::data::manifest::BuiltinToolManifest {
        crate::data::manifest::BuiltinToolManifest {
            tool: self.name().to_string(),
            label: self.label.clone(),
            command_prefix: self.command_prefix.clone(),
            operations: self.rust_operations(),
            spawn_hook: self.spawn_hook.is_some(),
            #[cfg(feature = "tui")]
            render: self
                .render
                .as_ref()
                .map(|_| crate::data::manifest::RenderManifest {
                    shell: self.shell.map(|s| s.name().to_string()),
                    ..crate::data::manifest::RenderManifest::rows()
                }),
            #[cfg(not(feature = "tui"))]
            render: None,
        }
    }
}

/// Builds pi's `bash` tool with Rust operations ([`BuiltinTool::bash`]).
#[derive(Clone)]
#[must_use = "finish it with `.operations(..)` or `.spawn_hook(..)`"]
pub struct BashToolBuilder(BuiltinTool);

impl std::fmt::Debug for BashToolBuilder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.0.fmt(f)
    }
}

impl BashToolBuilder {
    /// Run commands with these operations.
    pub fn operations(mut self, operations: impl BashOperations) -> BuiltinTool {
        self.0.bash = Some(Arc::new(operations));
        self.0
    }

    /// Adjust commands before pi's own shell runs them.
    pub fn spawn_hook(mut self, hook: impl SpawnHook) -> BuiltinTool {
        self.0.spawn_hook = Some(Arc::new(hook));
        self.0
    }

    /// A line pi puts before every command (pi's `commandPrefix`, e.g.
    /// `shopt -s expand_aliases`).
    pub fn command_prefix(mut self, prefix: impl Into<String>) -> Self {
        self.0.command_prefix = Some(prefix.into());
        self
    }
}

impl BuiltinTool {
    /// Also adjust commands with a spawn hook before the operations run them.
    pub fn spawn_hook(mut self, hook: impl SpawnHook) -> Self {
        self.spawn_hook = Some(Arc::new(hook));
        self
    }

    /// A line pi puts before every command (bash only).
    pub fn command_prefix(mut self, prefix: impl Into<String>) -> Self {
        self.command_prefix = Some(prefix.into());
        self
    }
}
