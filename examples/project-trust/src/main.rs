//! A port of pi's `examples/extensions/project-trust.ts`: a `project_trust`
//! hook that asks the user how to trust the project (pi ≥ 0.79), or leaves
//! the decision to pi's own flow when there is nobody to ask.
//!
//! Try it in a project with `.pi/settings.json` or `.pi/extensions/`, or
//! `.agents/skills`: `cargo pi-ext install`, then start pi there.
use std::sync::atomic::{AtomicUsize, Ordering};

use pi_ext::events::{ProjectTrust, ProjectTrustEvent, SessionStartEvent};
use pi_ext::lifecycle::LoadCtx;
use pi_ext::prelude::*;

/// The choices, as the original offers them.
const TRUST_AND_REMEMBER: &str = "Trust and remember";
const TRUST_WITH_NOTE: &str = "Trust with note and remember";
const TRUST_SESSION: &str = "Trust this session";
const DISTRUST_SESSION: &str = "Do not trust this session";
const BUILT_IN: &str = "Let built-in prompt decide";

/// Times the extension was loaded in this process (the original counts its
/// factory's runs: once per pi process).
static LOADS: AtomicUsize = AtomicUsize::new(0);

/// The extension's state: which load this is.
#[extension(
    name = "project-trust",
    description = "Decides or defers pi's project trust",
    on_load = load
)]
struct ProjectTrustExample {
    load: usize,
}

async fn load(_ctx: LoadCtx) -> ProjectTrustExample {
    ProjectTrustExample {
        load: LOADS.fetch_add(1, Ordering::Relaxed) + 1,
    }
}

/// project_trust: ask, when the trust context can. The first hook that
/// answers yes or no decides and pi shows no trust prompt of its own.
#[hook]
async fn trust(ctx: &Ctx, state: &ProjectTrustExample, event: ProjectTrustEvent) -> ProjectTrust {
    ctx.ui().notify(
        format!(
            "project_trust fired for {} (mode: {}, load: {})",
            event.cwd, event.mode, state.load
        ),
        Level::Info,
    );
    if !event.has_ui {
        return ProjectTrust::Undecided;
    }
    let choice = ctx
        .ui()
        .select(
            format!("Project trust for:\n{}", event.cwd),
            [
                TRUST_AND_REMEMBER,
                TRUST_WITH_NOTE,
                TRUST_SESSION,
                DISTRUST_SESSION,
                BUILT_IN,
            ],
        )
        .await;
    // A dismissed select (an error) leaves it to pi, like the original's `undefined`.
    match choice.as_deref() {
        Ok(TRUST_WITH_NOTE) => {
            let note = ctx
                .ui()
                .input("Project trust note", "Optional note for this demo")
                .await
                .unwrap_or_default();
            let told = if note.is_empty() {
                "No demo note entered".to_owned()
            } else {
                format!("Recorded demo note: {note}")
            };
            ctx.ui().notify(told, Level::Info);
            ProjectTrust::Yes { remember: true }
        }
        Ok(TRUST_AND_REMEMBER) => ProjectTrust::Yes { remember: true },
        Ok(TRUST_SESSION) => ProjectTrust::Yes { remember: false },
        Ok(DISTRUST_SESSION) => ProjectTrust::No { remember: false },
        _ => ProjectTrust::Undecided,
    }
}

/// session_start: runs once trust is resolved (and the project's own
/// extensions, if trusted, are loaded).
#[hook]
async fn started(ctx: &Ctx, _event: SessionStartEvent) {
    ctx.ui().notify(
        format!(
            "project-trust example loaded after trust resolution in {}",
            ctx.cwd().display()
        ),
        Level::Info,
    );
}

pi_ext::main!();
