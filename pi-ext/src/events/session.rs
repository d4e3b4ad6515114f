//! The session's events: start, switch, fork, compaction, tree, trust,
//! shutdown.
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::data::session::SessionEntry;
use crate::events::hook::{event, Event};
use crate::events::results::{CompactDecision, ProjectTrust, ResourcesDiscovered, SessionCancel};

event! {
    /// The session started (startup, reload, new, resume, fork). pi has no
    /// result for it.
    SessionStartEvent = "session_start" -> () {
        /// `"startup"`, `"reload"`, `"new"`, `"resume"` or `"fork"`.
        reason: String,
        /// The previous session file, when switching.
        previous_session_file: Option<String>,
    }
}

event! {
    /// Right after `session_start`: contribute skill, prompt and theme paths.
    ResourcesDiscoverEvent = "resources_discover" -> ResourcesDiscovered {
        /// pi's working directory.
        cwd: String,
        /// `"startup"` or `"reload"`.
        reason: String,
    }
}

event! {
    /// Before `/new`, `/resume` or a session switch; a hook may cancel it.
    SessionBeforeSwitchEvent = "session_before_switch" -> SessionCancel {
        /// `"new"` or `"resume"`.
        reason: String,
        /// The session file being switched to, if any.
        target_session_file: Option<String>,
    }
}

event! {
    /// Before `/fork` or `/clone`; a hook may cancel it.
    SessionBeforeForkEvent = "session_before_fork" -> SessionCancel {
        /// The entry forked from.
        entry_id: String,
        /// `"before"` or `"at"`.
        position: String,
    }
}

event! {
    /// Before a compaction; a hook may cancel it or supply the summary.
    SessionBeforeCompactEvent = "session_before_compact" -> CompactDecision {
        /// pi's `CompactionPreparation`.
        preparation: Value,
        /// The entries of the branch being compacted.
        branch_entries: Vec<SessionEntry>,
        /// Instructions given to `/compact`.
        custom_instructions: Option<String>,
        /// pi ≥ 0.79.10: what triggered it: `"manual"` (`/compact`),
        /// `"threshold"` or `"overflow"` (`None` on older pi).
        reason: Option<String>,
        /// pi ≥ 0.79.10: whether the aborted turn is retried after it
        /// (overflow recovery; `false` on older pi).
        will_retry: bool,
    }
}

event! {
    /// A compaction entry was saved.
    SessionCompactEvent = "session_compact" -> () {
        /// The saved entry ([`SessionEntry::Compaction`]).
        compaction_entry: SessionEntry,
        /// Whether an extension supplied the summary.
        from_extension: bool,
        /// pi ≥ 0.79.10: `"manual"`, `"threshold"` or `"overflow"` (`None`
        /// on older pi).
        reason: Option<String>,
        /// pi ≥ 0.79.10: whether the aborted turn is retried after it.
        will_retry: bool,
    }
}

event! {
    /// pi ≥ 0.84.3: a compaction failed or was cancelled (`/compact`,
    /// threshold or overflow). Older pi never fires it (the bridge says so
    /// once).
    SessionCompactFailedEvent = "session_compact_failed" -> () {
        /// `"manual"`, `"threshold"` or `"overflow"`.
        reason: String,
        /// The error, when it failed for another reason than an abort.
        error_message: Option<String>,
        /// Whether it was cancelled or aborted.
        aborted: bool,
        /// Whether the aborted turn would have been retried after it.
        will_retry: bool,
        /// Whether the failing summary came from a `session_before_compact` hook.
        from_extension: bool,
    }
}

event! {
    /// pi ≥ 0.80.3: the session's name changed (`/name`, RPC
    /// `set_session_name`, `api.set_session_name`). Older pi never fires it
    /// (the bridge says so once).
    SessionInfoChangedEvent = "session_info_changed" -> () {
        /// The new name (normalized); `None` when it was cleared.
        name: Option<String>,
    }
}

event! {
    /// Before tree navigation (`/tree`); a hook may cancel it.
    SessionBeforeTreeEvent = "session_before_tree" -> SessionCancel {
        /// pi's tree-navigation preparation.
        preparation: Value,
    }
}

event! {
    /// After tree navigation.
    SessionTreeEvent = "session_tree" -> () {
        /// The new leaf.
        new_leaf_id: Option<String>,
        /// The old leaf.
        old_leaf_id: Option<String>,
        /// The summary entry ([`SessionEntry::BranchSummary`]), if one was made.
        summary_entry: Option<SessionEntry>,
        /// Whether an extension made the summary.
        from_extension: Option<bool>,
    }
}

event! {
    /// pi is about to tear the session down (quit, reload, new, resume,
    /// fork): the place for cleanup.
    SessionShutdownEvent = "session_shutdown" -> () {
        /// `"quit"`, `"reload"`, `"new"`, `"resume"` or `"fork"`.
        reason: String,
        /// Where pi goes next, if switching.
        target_session_file: Option<String>,
    }
}

event! {
    /// pi ≥ 0.99: an extension registered or removed an MCP server after
    /// startup. pi counts an extension with a hook on it as the one that
    /// connects MCP servers. Older pi never fires it (the bridge says so once).
    McpServersChangeEvent = "mcp_servers_change" -> () {
        /// Every registered server after the change (pi's `RegisteredMcpServer`s).
        servers: Vec<Value>,
    }
}

event! {
    /// pi ≥ 0.79: pi is about to decide whether to trust the project (its
    /// `.pi` settings and resources, `.agents/skills`), before
    /// `session_start`: a hook may decide. The first hook (of any
    /// extension) that answers yes or no decides, and pi shows no trust
    /// prompt; [`ProjectTrust::Undecided`] lets the next one or pi's own
    /// flow decide. Only global and `-e` extensions take part. Older pi
    /// never fires it (the bridge says so once).
    ///
    /// pi gives this hook a limited context: of [`Ctx`](crate::Ctx), only
    /// `cwd()` and `ui()`'s `select`, `confirm`, `input` and `notify` work
    /// (pi's trust prompt UI: in the terminal before its TUI starts, where
    /// pi shows no `notify`; no UI in RPC or print mode, where `notify` goes
    /// to stderr). Every other call
    /// fails with an error that says so. Use `has_ui` and `mode` below, which
    /// are this context's (the session's [`Ctx::has_ui`](crate::Ctx::has_ui)
    /// says whether the session has one).
    ProjectTrustEvent = "project_trust" -> ProjectTrust {
        /// The project's directory.
        cwd: String,
        /// pi's `ctx.mode` here: `"tui"`, `"rpc"`, `"json"` or `"print"`.
        mode: String,
        /// pi's `ctx.hasUI` here: whether `select`/`confirm`/`input` can
        /// ask anyone (only on pi's first start in the terminal).
        #[serde(rename = "hasUI")]
        has_ui: bool,
    }
}
