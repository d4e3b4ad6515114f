//! `hook/call`, `hook/notify` and `hook/updates`: hook calls, and the
//! streamed ones polled in place.

use super::*;

#[derive(Deserialize)]
pub(super) struct HookCallParams {
    hook: String,
    #[serde(default)]
    session: Option<u64>,
    /// The event as JSON.
    #[serde(default)]
    payload: Option<Box<RawValue>>,
    /// A `context` event's messages, as edits of the previous call's.
    #[serde(default)]
    context: Option<ListUpdate>,
    /// A `before_provider_request` event's body, as edits of the previous call's.
    #[serde(default)]
    provider: Option<PayloadUpdate>,
}

/// `hook/updates`: the streamed `message_update`s of one batch (up to 2 ms).
#[derive(Deserialize)]
pub(super) struct UpdatesParams {
    /// The `message_update` hooks to run, in order.
    hooks: Vec<String>,
    #[serde(default)]
    session: Option<u64>,
    /// The message's metadata, when it changed since the last line.
    #[serde(default)]
    meta: Option<AssistantMessage>,
    /// The events, in order.
    ev: Vec<AssistantMessageEvent>,
}

/// Run a streamed hook up to its first `.await`, in place: a streaming hook
/// runs once per token and nearly always finishes without waiting on
/// anything, so it is polled here, in the reading task, in order, and
/// spawned only if it has to wait. A task per token cost a spawn and often a
/// wake-up of another worker (~30 µs of CPU per token, taken from pi while
/// it streams).
fn poll_in_place(hook: &'static HookEntry, ctx: Ctx, input: HookInput) {
    let fut = (hook.call)(ctx, input);
    let id = hook.id;
    // No cancellation to supervise: nobody waits for the answer.
    let mut task = Box::pin(async move {
        match CatchUnwind(fut).await {
            Ok(Ok(_)) => {}
            Ok(Err(msg)) => log(&format!("hook `{id}` failed: {msg}")),
            Err(panic) => log(&format!("hook `{id}` panicked: {}", panic_message(&*panic))),
        }
    });
    // A waker that does nothing: the runtime re-polls the task with its
    // own waker if it is spawned after all.
    let mut cx = std::task::Context::from_waker(std::task::Waker::noop());
    if std::future::Future::poll(task.as_mut(), &mut cx).is_pending() {
        // Polled again at once by the runtime, with a real waker.
        tokio::spawn(task);
    }
}

impl Dispatcher {
    pub(super) fn find_hook(&self, id: &str) -> Option<&'static HookEntry> {
        self.registry.hooks.iter().find(|h| h.id == id).copied()
    }

    /// What the hook is called with: the event as JSON, or, for a mirrored
    /// list, the list after the bridge's edits (applied here, in line order,
    /// so that the next line finds it).
    pub(super) fn hook_input(&self, p: HookCallParams) -> Result<HookInput, RpcError> {
        let mismatch =
            |m: crate::host::mirror::Mismatch| RpcError::new(codes::MIRROR_MISMATCH, m.0);
        if let Some(update) = p.context {
            let held = update.prior;
            let mut mirrors = self.mirrors.lock().unwrap();
            let memory = mirrors.answers.entry(p.hook.clone()).or_default().clone();
            let items = mirrors
                .context
                .entry(p.hook)
                .or_default()
                .apply(update)
                .map_err(mismatch)?;
            return Ok(HookInput::Context {
                messages: Messages::from_arc(items),
                mirrored: true,
                prior: Some(PriorAnswer::new(memory, held)),
            });
        }
        if let Some(update) = p.provider {
            let mut mirrors = self.mirrors.lock().unwrap();
            let request = mirrors
                .provider
                .entry(p.hook)
                .or_default()
                .apply(update)
                .map_err(mismatch)?;
            return Ok(HookInput::Provider {
                request,
                mirrored: true,
            });
        }
        Ok(HookInput::Json(
            p.payload.unwrap_or_else(crate::wire::raw_null),
        ))
    }

    pub(super) fn start_hook_call(self: &Arc<Self>, id: u64, p: HookCallParams) {
        let Some(hook) = self.find_hook(&p.hook) else {
            self.respond::<Value>(
                id,
                Err(RpcError::new(
                    codes::METHOD_NOT_FOUND,
                    format!(
                        "extension `{}` has no hook `{}`",
                        self.registry.name, p.hook
                    ),
                )),
            );
            return;
        };
        let session = p.session;
        let input = match self.hook_input(p) {
            Ok(input) => input,
            Err(e) => return self.respond::<Value>(id, Err(e)),
        };
        let token = CancellationToken::new();
        let ctx = self.new_ctx(id, CallKind::Hook, session, &token);
        let fut = (hook.call)(ctx, input);
        let name = format!("hook `{}`", hook.id);
        self.run_call(id, name.clone(), token, fut, move |outcome| {
            handler_answer(&name, outcome)
        });
    }

    /// A hook on a streaming event: run it, answer nothing (pi does not wait).
    pub(super) fn start_hook_notification(&self, p: HookCallParams) {
        if self.trace {
            crate::util::logging::traffic(&format!("received hook/notify {}", p.hook));
        }
        let Some(hook) = self.find_hook(&p.hook) else {
            log(&format!("hook/notify for unknown hook `{}`", p.hook));
            return;
        };
        let ctx = self.notification_ctx(p.session);
        let input = HookInput::Json(p.payload.unwrap_or_else(crate::wire::raw_null));
        poll_in_place(hook, ctx, input);
    }

    /// The streamed updates of one turn: every per-event hook for each
    /// event, in order, then every batch hook once.
    pub(super) fn start_updates(&self, p: UpdatesParams) {
        let message = {
            let mut mirrors = self.mirrors.lock().unwrap();
            if let Some(meta) = p.meta {
                mirrors.streamed = Some(Arc::new(meta));
            }
            mirrors.streamed.clone().unwrap_or_default()
        };
        let hooks: Vec<&'static HookEntry> = p
            .hooks
            .iter()
            .filter_map(|id| {
                let hook = self.find_hook(id);
                if hook.is_none() {
                    log(&format!("hook/updates for unknown hook `{id}`"));
                }
                hook
            })
            .collect();
        let ctx = self.notification_ctx(p.session);
        let events: Arc<[AssistantMessageEvent]> = p.ev.into();
        for event in events.iter() {
            for hook in hooks.iter().filter(|h| !h.batch) {
                if self.trace {
                    crate::util::logging::traffic(&format!("received hook/update {}", hook.id));
                }
                let input = HookInput::Update {
                    message: message.clone(),
                    event: event.clone(),
                };
                poll_in_place(hook, ctx.clone(), input);
            }
        }
        for hook in hooks.iter().filter(|h| h.batch) {
            if self.trace {
                crate::util::logging::traffic(&format!(
                    "received hook/update {} ({} events)",
                    hook.id,
                    events.len()
                ));
            }
            let input = HookInput::Batch {
                message: message.clone(),
                events: events.clone(),
            };
            poll_in_place(hook, ctx.clone(), input);
        }
    }
}
