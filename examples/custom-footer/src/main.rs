//! `/footer` toggles a footer drawn by Rust: a port of pi's
//! `examples/extensions/custom-footer.ts`.
//!
//! Left: the session's token usage and cost; right: the model and the git
//! branch (from pi's footer data, which extensions cannot read elsewhere).
//! Unlike the original, a second row shows other extensions' statuses (as
//! pi's own footer does), with the colours they were set in
//! ([`FooterData::status_lines`](pi_ext::tui::FooterData::status_lines)).
//!
//! The original sums the usage on every repaint; here a `turn_end` hook
//! sums it and refreshes the footer, because the footer's view is drawn
//! ahead of time (pi paints without waiting for the extension).

use std::sync::Mutex;

use pi_ext::events::TurnEndEvent;
use pi_ext::messages::AgentMessage;
use pi_ext::prelude::*;
use pi_ext::serde_json::Value;
use pi_ext::tui::{span, Chrome, Fg, View};

/// What the footer shows besides pi's footer data.
#[derive(Default, Clone)]
struct Shown {
    input: u64,
    output: u64,
    cost: f64,
    model: String,
}

/// The footer while it is on, and what it shows.
#[extension(name = "custom-footer")]
#[derive(Default)]
struct Footer {
    footer: Mutex<Option<Chrome>>,
    shown: std::sync::Arc<Mutex<Shown>>,
}

fn tokens(n: u64) -> String {
    if n < 1000 {
        n.to_string()
    } else {
        format!("{:.1}k", n as f64 / 1000.0)
    }
}

/// Token usage and model, read from the session.
async fn read(ctx: &Ctx) -> Result<Shown, Error> {
    let mut shown = Shown::default();
    for e in ctx.session_branch(None).await? {
        if let Some(AgentMessage::Assistant(m)) = e.message() {
            shown.input += m.usage.input;
            shown.output += m.usage.output;
            shown.cost += m.usage.cost.total;
        }
    }
    shown.model = ctx
        .model()
        .await?
        .and_then(|m: Value| m["id"].as_str().map(str::to_string))
        .unwrap_or_else(|| "no-model".into());
    Ok(shown)
}

/// Toggle custom footer
#[command]
async fn footer(ctx: &CommandCtx, state: &Footer) -> Result<(), Error> {
    let current = state.footer.lock().unwrap().take();
    if let Some(footer) = current {
        footer.restore().await?;
        ctx.ui().notify("Default footer restored", Level::Info);
        return Ok(());
    }
    *state.shown.lock().unwrap() = read(ctx).await?;
    let shown = state.shown.clone();
    let footer = ctx
        .ui()
        .set_footer(move |data| {
            let s = shown.lock().unwrap().clone();
            let left = format!("↑{} ↓{} ${:.3}", tokens(s.input), tokens(s.output), s.cost);
            let branch = data
                .git_branch
                .as_ref()
                .map_or(String::new(), |b| format!(" ({b})"));
            let row = View::spread(
                span(left).fg(Fg::Dim),
                span(format!("{}{branch}", s.model)).fg(Fg::Dim),
            );
            let statuses = data.status_lines();
            if statuses.is_empty() {
                row
            } else {
                row.line(statuses)
            }
        })
        .await?;
    *state.footer.lock().unwrap() = Some(footer);
    ctx.ui().notify("Custom footer enabled", Level::Info);
    Ok(())
}

/// Keep the usage current while the footer is on.
#[hook]
async fn usage(ctx: &Ctx, state: &Footer, _event: TurnEndEvent) -> Result<(), Error> {
    let footer = state.footer.lock().unwrap().clone();
    if let Some(footer) = footer {
        *state.shown.lock().unwrap() = read(ctx).await?;
        footer.refresh();
    }
    Ok(())
}

pi_ext::main!();
