//! Audit: an extension that depends on `greeter` (it loads after it, and
//! reads its state).
use greeter::{trace, Greeter};
use pi_ext::events::SessionStartEvent;
use pi_ext::lifecycle::LoadCtx;
use pi_ext::prelude::*;

/// Audit state.
#[extension(name = "audit", dependencies = ["greeter"], on_load = load)]
pub struct Audit;

async fn load(_ctx: LoadCtx) -> Audit {
    trace("load audit");
    Audit
}

/// How many greetings the greeter has made.
#[tool]
async fn audit_greetings(greeter: &Greeter, _audit: &Audit) -> String {
    format!("greeter has greeted {} time(s)", greeter.greeted())
}

/// Note the session start (hook order across extensions).
#[hook]
async fn audit_started(_event: SessionStartEvent) {
    trace("hook audit");
}
