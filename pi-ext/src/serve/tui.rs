//! The dispatcher's share of the terminal UI: renderer requests answered
//! from the registry, and messages for live components, footers and
//! autocomplete providers routed to them by id.

use std::sync::Arc;

use serde_json::value::RawValue;
use serde_json::{json, Value};
use tokio_util::sync::CancellationToken;

use super::{log, Dispatcher};
use crate::host::connection::{Mode, UiMessage};
use crate::wire::{codes, RpcError};

impl Dispatcher {
    /// Requests of the terminal UI this side answers.
    pub(super) fn is_tui_request(method: &str) -> bool {
        matches!(
            method,
            "render/tool"
                | "render/message"
                | "render/entry"
                | "render/markdown"
                | "autocomplete/suggest"
        )
    }

    /// Notifications for a live object, routed by `params.component`.
    pub(super) fn is_tui_notification(method: &str) -> bool {
        matches!(
            method,
            "ui/key" | "ui/control" | "ui/resize" | "ui/focus" | "ui/closed" | "footer/data"
        )
    }

    /// Answer a terminal-UI request.
    pub(super) fn on_tui_request(self: &Arc<Self>, id: u64, method: &str, params: Value) {
        match method {
            "render/tool" => {
                let answer = self.render_tool(params);
                self.respond(id, answer);
            }
            "render/message" => {
                let answer = self.render_message(&params);
                self.respond(id, answer);
            }
            "render/entry" => {
                let answer = self.render_entry(&params);
                self.respond(id, answer);
            }
            "render/markdown" => {
                let answer = self.render_markdown(params);
                self.respond(id, answer);
            }
            _ => self.suggest(id, params),
        }
    }

    /// Route a notification to the component (footer, …) it is for.
    pub(super) fn on_tui_notification(&self, method: &str, params: Value) {
        let Some(target) = params["component"].as_u64() else {
            return log(&format!("{method} without a component id"));
        };
        let msg = UiMessage {
            method: method.to_string(),
            params,
            reply: None,
        };
        // A closed component's late messages are dropped: nothing waits.
        let _ = self.shared.ui_routes.deliver(target, msg);
    }

    fn render_tool(&self, params: Value) -> Result<Value, RpcError> {
        let input = crate::tui::RowInput::from_wire(params).map_err(|e| {
            RpcError::new(
                codes::INVALID_PARAMS,
                format!("bad render/tool params: {e}"),
            )
        })?;
        let dynamic =
            crate::tool::DynamicTools::get(&self.shared, &input.tool).and_then(|t| t.render);
        let own = dynamic.or_else(|| {
            self.registry
                .tools
                .get(&input.tool)
                .and_then(|t| t.render.clone())
        });
        // A re-registered built-in tool's own rows.
        #[cfg(feature = "builtin-tools")]
        let own = own.or_else(|| {
            self.registry
                .builtins
                .builtin_tools
                .get(&input.tool)
                .and_then(|t| t.render.clone())
        });
        // Another tool's rows (`tool_renderer!`).
        let render = own.or_else(|| {
            self.registry
                .renderers
                .tool_renderers
                .get(&input.tool)
                .map(|(r, _)| r.clone())
        });
        let Some(render) = render else {
            return Err(RpcError::new(
                codes::UNKNOWN_TOOL,
                format!("tool `{}` has no renderer here", input.tool),
            ));
        };
        // A panicking renderer: pi's own rendering.
        Ok(render
            .render(&input)
            .map(|v| v.wire())
            .unwrap_or_else(|| json!({"blocks": [{"builtin": true}]})))
    }

    fn render_message(&self, params: &Value) -> Result<Value, RpcError> {
        let ty = params["customType"].as_str().unwrap_or_default();
        let Some(entry) = self.registry.renderers.message_renderers.get(ty) else {
            return Ok(Value::Null);
        };
        Ok(crate::tui::message_views(entry.render, &params["message"]).unwrap_or(Value::Null))
    }

    /// `render/entry`: both views of a custom entry, or null (nothing drawn).
    fn render_entry(&self, params: &Value) -> Result<Value, RpcError> {
        let ty = params["customType"].as_str().unwrap_or_default();
        let Some(entry) = self.registry.renderers.entry_renderers.get(ty) else {
            return Ok(Value::Null);
        };
        let keys = params["keys"].as_object().cloned().unwrap_or_default();
        Ok(crate::tui::entry_views(entry.render, &params["entry"], &keys).unwrap_or(Value::Null))
    }

    /// `render/markdown`: the transformed text.
    fn render_markdown(&self, params: Value) -> Result<Value, RpcError> {
        let Some(t) = self.registry.renderers.markdown_transformer else {
            return Err(RpcError::new(
                codes::INVALID_PARAMS,
                "this extension has no Markdown transformer",
            ));
        };
        let (Some(markdown), Ok(context)) = (
            params["markdown"].as_str(),
            serde_json::from_value::<crate::tui::MarkdownContext>(params["context"].clone()),
        ) else {
            return Err(RpcError::new(
                codes::INVALID_PARAMS,
                "render/markdown needs `markdown` (a string) and pi's `context`",
            ));
        };
        Ok(Value::String(crate::tui::transform_markdown(
            t.transform,
            markdown,
            &context,
        )))
    }

    /// `autocomplete/suggest`: to the provider, cancellable by `cancel`.
    fn suggest(self: &Arc<Self>, id: u64, params: Value) {
        let Some(provider) = params["provider"].as_u64() else {
            return self.respond::<Value>(
                id,
                Err(RpcError::new(
                    codes::INVALID_PARAMS,
                    "autocomplete/suggest without a provider",
                )),
            );
        };
        let token = CancellationToken::new();
        let (tx, rx) = tokio::sync::oneshot::channel();
        let msg = UiMessage {
            method: "autocomplete/suggest".into(),
            params,
            reply: Some((tx, token.clone())),
        };
        if self.shared.ui_routes.deliver(provider, msg).is_err() {
            // A provider of a previous process: pi's own suggestions.
            return self.respond(id, Ok(Value::Null));
        }
        self.calls.lock().unwrap().insert(id, token);
        let this = self.clone();
        tokio::spawn(async move {
            let answer = rx.await.unwrap_or(Ok(Value::Null));
            this.calls.lock().unwrap().remove(&id);
            this.respond(id, answer);
        });
    }

    /// In pi's terminal: what `send_message` sends along for a message this
    /// extension renders.
    pub(super) fn install_message_views(&self, mode: Mode) {
        if mode != Mode::Interactive || self.registry.renderers.message_renderers.is_empty() {
            return;
        }
        let registry = self.registry.clone();
        let _ = self
            .shared
            .message_views
            .set(Arc::new(move |message: &Value| {
                let ty = message["customType"].as_str()?;
                let entry = registry.renderers.message_renderers.get(ty)?;
                crate::tui::message_views(entry.render, message)
            }));
    }

    /// What adds a tool result's rows to its answer, in pi's terminal, for
    /// a tool with a renderer.
    pub(super) fn result_views(
        &self,
        tool: &crate::tool::ToolDef,
        name: &str,
        tool_call_id: &str,
        args: &RawValue,
    ) -> Option<ResultViews> {
        let render = tool.render.clone()?;
        (self.session().mode == Mode::Interactive).then(|| ResultViews {
            render,
            tool: name.to_string(),
            tool_call_id: tool_call_id.to_string(),
            // Read as a `Value` only here, for the tools with a renderer.
            args: crate::wire::from_raw(args).unwrap_or(Value::Null),
        })
    }
}

/// A tool call's renderer and what it renders the result with.
pub(super) struct ResultViews {
    render: crate::tui::ToolRenderer,
    tool: String,
    tool_call_id: String,
    args: Value,
}

impl ResultViews {
    /// Add the result's rows to the answer (`views`).
    pub(super) fn add_to(&self, outcome: &mut Value) {
        if let Some(views) =
            self.render
                .final_views(&self.tool, &self.tool_call_id, &self.args, outcome)
        {
            outcome["views"] = views;
        }
    }
}
