//! `ops/*`: the operations of pi's built-in tools that run in Rust (feature
//! `builtin-tools`).

use super::*;

/// What every `ops/*` request says about the pi call it serves.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
pub(super) struct OpsCallParams {
    #[serde(default)]
    tool_call_id: Option<String>,
    #[serde(default)]
    tool: Option<String>,
    #[serde(default)]
    session: Option<u64>,
}

impl Dispatcher {
    /// `ops/bash`, `ops/read`, `ops/write`, `ops/edit`, `ops/ls`, `ops/find`, `ops/spawn-hook`: the operations of pi's
    /// built-in tools (and of `user_bash` answers), run in Rust.
    pub(super) fn start_ops_call(self: &Arc<Self>, id: u64, method: &str, params: Value) {
        use crate::builtin_tools as ops;
        let call: OpsCallParams = match serde_json::from_value(params.clone()) {
            Ok(c) => c,
            Err(e) => return self.respond::<Value>(id, Err(bad_params(method, e))),
        };
        let token = CancellationToken::new();
        let kind = match (call.tool_call_id, call.tool) {
            (Some(tool_call_id), Some(tool_name)) => CallKind::Tool {
                tool_call_id,
                tool_name,
            },
            _ => CallKind::Hook,
        };
        let ctx = self.new_ctx(id, kind, call.session, &token);
        let missing = |what: &str| {
            Err(RpcError::new(
                codes::METHOD_NOT_FOUND,
                format!("extension `{}` has no {what}", self.registry.name),
            ))
        };
        let builtin = |name: &str| self.registry.builtins.builtin_tools.get(name);
        let fut: std::pin::Pin<Box<dyn std::future::Future<Output = Value> + Send>> = match method {
            "ops/bash" => {
                let p: ops::BashParams = match serde_json::from_value(params) {
                    Ok(p) => p,
                    Err(e) => return self.respond::<Value>(id, Err(bad_params(method, e))),
                };
                let bash = match p.handle {
                    Some(h) => self
                        .shared
                        .handle(h)
                        .and_then(|state| ops::user_bash_ops(&*state)),
                    None => builtin("bash").and_then(|t| t.bash.clone()),
                };
                let Some(bash) = bash else {
                    return self.respond::<Value>(id, missing("bash operations"));
                };
                Box::pin(ops::serve_bash(bash, ctx, id, p))
            }
            "ops/read" => {
                let p: ops::ReadParams = match serde_json::from_value(params) {
                    Ok(p) => p,
                    Err(e) => return self.respond::<Value>(id, Err(bad_params(method, e))),
                };
                let Some(read) = builtin("read").and_then(|t| t.read.clone()) else {
                    return self.respond::<Value>(id, missing("read operations"));
                };
                Box::pin(ops::serve_read(read, ctx, p))
            }
            "ops/write" => {
                let p: ops::FileParams = match serde_json::from_value(params) {
                    Ok(p) => p,
                    Err(e) => return self.respond::<Value>(id, Err(bad_params(method, e))),
                };
                let Some(write) = builtin("write").and_then(|t| t.write.clone()) else {
                    return self.respond::<Value>(id, missing("write operations"));
                };
                Box::pin(ops::serve_write(write, ctx, p))
            }
            "ops/edit" => {
                let p: ops::FileParams = match serde_json::from_value(params) {
                    Ok(p) => p,
                    Err(e) => return self.respond::<Value>(id, Err(bad_params(method, e))),
                };
                let Some(edit) = builtin("edit").and_then(|t| t.edit.clone()) else {
                    return self.respond::<Value>(id, missing("edit operations"));
                };
                Box::pin(ops::serve_edit(edit, ctx, p))
            }
            "ops/ls" | "ops/find" => {
                let p: ops::ListParams = match serde_json::from_value(params) {
                    Ok(p) => p,
                    Err(e) => return self.respond::<Value>(id, Err(bad_params(method, e))),
                };
                if method == "ops/ls" {
                    let Some(ls) = builtin("ls").and_then(|t| t.ls.clone()) else {
                        return self.respond::<Value>(id, missing("ls operations"));
                    };
                    Box::pin(ops::serve_ls(ls, ctx, p))
                } else {
                    let Some(find) = builtin("find").and_then(|t| t.find.clone()) else {
                        return self.respond::<Value>(id, missing("find operations"));
                    };
                    Box::pin(ops::serve_find(find, ctx, p))
                }
            }
            _ => {
                let p: ops::SpawnParams = match serde_json::from_value(params) {
                    Ok(p) => p,
                    Err(e) => return self.respond::<Value>(id, Err(bad_params(method, e))),
                };
                let Some(hook) = builtin("bash").and_then(|t| t.spawn_hook.clone()) else {
                    return self.respond::<Value>(id, missing("spawn hook"));
                };
                Box::pin(async move { ops::serve_spawn_hook(&*hook, p) })
            }
        };
        let name = format!("{method} operation");
        self.run_call(id, name.clone(), token, fut, move |outcome| match outcome {
            Ok(answer) => Ok(answer),
            Err(CallFailure::Panicked(msg)) => {
                Ok(json!({ "error": format!("{name} panicked: {msg}") }))
            }
            Err(CallFailure::Cancelled) => Ok(json!({ "aborted": true })),
        });
    }
}
