//! `tool/call`: a tool call, in its own task.

use super::*;

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
pub(super) struct ToolCallParams {
    tool: String,
    #[serde(default)]
    session: Option<u64>,
    #[serde(default)]
    tool_call_id: String,
    /// As JSON text: the tool's handler decodes it into its own type.
    #[serde(default = "crate::wire::raw_null")]
    args: Box<RawValue>,
}

impl Dispatcher {
    pub(super) fn start_tool_call(self: &Arc<Self>, id: u64, p: ToolCallParams) {
        let dynamic = crate::tool::DynamicTools::get(&self.shared, &p.tool);
        let Some(tool) = dynamic
            .as_ref()
            .or_else(|| self.registry.tools.get(&p.tool))
        else {
            self.respond::<Value>(
                id,
                Err(RpcError::new(
                    codes::UNKNOWN_TOOL,
                    format!(
                        "extension `{}` has no tool `{}`",
                        self.registry.name, p.tool
                    ),
                )),
            );
            return;
        };
        let token = CancellationToken::new();
        let ctx = self.new_ctx(
            id,
            CallKind::Tool {
                tool_call_id: p.tool_call_id.clone(),
                tool_name: p.tool.clone(),
            },
            p.session,
            &token,
        );
        // In pi's terminal, the result's rows go with the answer.
        #[cfg(feature = "tui")]
        let views = self.result_views(tool, &p.tool, &p.tool_call_id, &p.args);
        let fut = (tool.handler)(ctx.clone(), p.args);
        let name = format!("tool `{}`", p.tool);
        self.run_call(id, name.clone(), token, fut, move |outcome| {
            ctx.finish();
            let answer = match outcome {
                Ok(o) => o,
                Err(CallFailure::Panicked(msg)) => {
                    ToolOutcome::error(format!("{name} panicked: {msg}"))
                }
                Err(CallFailure::Cancelled) => return Err(cancelled(&name)),
            };
            #[cfg(feature = "tui")]
            if let Some(views) = views {
                let mut answer = serde_json::to_value(answer).unwrap_or(Value::Null);
                views.add_to(&mut answer);
                return Ok(Answer::Viewed(answer));
            }
            Ok(Answer::Plain(answer))
        });
    }
}

/// A tool call's answer: the outcome as it is, written straight into the
/// line (a `serde_json::Value` in between cost a cold call about 10 µs),
/// or with the rows pi's terminal shows added.
#[derive(Serialize)]
#[serde(untagged)]
enum Answer {
    Plain(ToolOutcome),
    #[cfg(feature = "tui")]
    Viewed(Value),
}
