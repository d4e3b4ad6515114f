//! `command/call`, `command/complete` and `session/with`: slash commands,
//! their completions, and the session a command opened.

use super::*;

#[derive(Deserialize)]
pub(super) struct CommandCallParams {
    command: String,
    #[serde(default)]
    session: Option<u64>,
    #[serde(default)]
    args: String,
}

#[derive(Deserialize)]
pub(super) struct CompleteParams {
    command: String,
    #[serde(default)]
    prefix: String,
}

#[derive(Deserialize)]
pub(super) struct WithSessionParams {
    handle: u64,
    #[serde(default)]
    session: Option<u64>,
}

impl Dispatcher {
    /// `command/complete`: a command's argument completions for a prefix.
    pub(super) fn start_completion(self: &Arc<Self>, id: u64, p: CompleteParams) {
        let Some(complete) = self
            .registry
            .commands
            .get(&p.command)
            .and_then(|c| c.complete)
        else {
            return self.respond::<Value>(
                id,
                Err(RpcError::new(
                    codes::METHOD_NOT_FOUND,
                    format!("command `/{}` computes no completions", p.command),
                )),
            );
        };
        let name = format!("the completions of `/{}`", p.command);
        self.run_call(
            id,
            name.clone(),
            CancellationToken::new(),
            complete(p.prefix),
            move |outcome| match outcome {
                // Shown in pi's list: sanitized, as the editor's suggestions.
                Ok(items) => Ok(Value::Array(
                    items.iter().map(crate::command::Suggestion::wire).collect(),
                )),
                Err(CallFailure::Panicked(msg)) => Err(RpcError::new(
                    codes::HANDLER_FAILED,
                    format!("{name} panicked: {msg}"),
                )),
                Err(CallFailure::Cancelled) => Err(cancelled(&name)),
            },
        );
    }

    /// `session/with`: a `withSession` closure, run as a command call in the
    /// new session.
    pub(super) fn start_with_session(self: &Arc<Self>, id: u64, p: WithSessionParams) {
        let closure = self.shared.handle(p.handle).and_then(|state| {
            state
                .downcast_ref::<crate::command::session_change::WithSessionSlot>()
                .and_then(|slot| slot.take())
        });
        let Some(closure) = closure else {
            return self.respond::<Value>(
                id,
                Err(RpcError::new(
                    codes::METHOD_NOT_FOUND,
                    "no withSession closure under this handle (it ran already)",
                )),
            );
        };
        let token = CancellationToken::new();
        let ctx = CommandCtx::new(self.new_ctx(id, CallKind::Command, p.session, &token));
        let name = "withSession".to_string();
        self.run_call(id, name.clone(), token, closure(ctx), move |outcome| {
            handler_answer(&name, outcome)
        });
    }

    pub(super) fn start_command_call(self: &Arc<Self>, id: u64, p: CommandCallParams) {
        let Some(command) = self.registry.commands.get(&p.command).copied() else {
            self.respond::<Value>(
                id,
                Err(RpcError::new(
                    codes::METHOD_NOT_FOUND,
                    format!(
                        "extension `{}` has no command `/{}`",
                        self.registry.name, p.command
                    ),
                )),
            );
            return;
        };
        let token = CancellationToken::new();
        let ctx = CommandCtx::new(self.new_ctx(id, CallKind::Command, p.session, &token));
        let fut = (command.call)(ctx, p.args);
        let name = format!("command `/{}`", command.name);
        self.run_call(id, name.clone(), token, fut, move |outcome| {
            handler_answer(&name, outcome)
        });
    }
}
