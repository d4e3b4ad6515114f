//! Calls that only pi itself can show working, gathered for the end-to-end
//! tests (`tests/tests/api_calls.rs`): a user message with an image
//! (`send_user_content`), the extension's own directory, a sequential and a
//! parallel tool whose calls record when they enter and leave, and pi's
//! clipboard.
use std::sync::Mutex;
use std::time::Duration;

use pi_ext::prelude::*;

#[extension(name = "small-gaps")]
struct SmallGaps;

/// A 1×1 transparent PNG, base64-encoded.
pub const PIXEL_PNG: &str =
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==";

/// Send `args` as a user message with a one-pixel PNG attached.
#[command(name = "ask-image")]
async fn ask_image(ctx: &CommandCtx, args: String) -> Result<(), Error> {
    ctx.api()
        .send_user_content(
            vec![
                Content::text(args.trim()),
                Content::image(PIXEL_PNG, "image/png"),
            ],
            None,
        )
        .await?;
    Ok(())
}

/// Copy `args` with pi's clipboard; say whether it worked.
#[command(name = "copy-text")]
async fn copy_text(ctx: &CommandCtx, args: String) -> Result<(), Error> {
    match ctx.api().copy_to_clipboard(args.trim()).await {
        Ok(()) => ctx.ui().notify("copied", Level::Info),
        Err(e) => ctx.ui().notify(format!("not copied: {e}"), Level::Error),
    }
    Ok(())
}

/// Tell where this extension is installed, where pi is, pi's agent
/// directory and what the pi command line (`--version`) prints, one a line.
#[tool]
fn where_am_i(ctx: &Ctx) -> String {
    let shown = |d: Option<&std::path::Path>| {
        d.map(|d| d.display().to_string())
            .unwrap_or_else(|| "(unknown)".into())
    };
    let agent = ctx.agent_dir().ok();
    let version = match ctx.pi_command() {
        Some(pi) => match pi.command(["--version"]).output() {
            Ok(out) => String::from_utf8_lossy(&out.stdout).trim().to_string(),
            Err(e) => format!("{} failed: {e}", pi.command.display()),
        },
        None => "(no pi command)".into(),
    };
    format!(
        "{}\n{}\n{}\n{version}",
        shown(ctx.extension_dir()),
        shown(ctx.pi_dir()),
        shown(agent.as_deref())
    )
}

/// What the tools below did, in order: `enter <id>`, `exit <id>`.
static LOG: Mutex<Vec<String>> = Mutex::new(Vec::new());
/// How many calls are inside a tool below right now.
static INSIDE: Mutex<usize> = Mutex::new(0);

/// Record the entry, wait until another call is inside too (at most
/// `patience`), record the exit.
async fn visit(id: &str, patience: Duration) {
    LOG.lock().unwrap().push(format!("enter {id}"));
    *INSIDE.lock().unwrap() += 1;
    let deadline = tokio::time::Instant::now() + patience;
    while *INSIDE.lock().unwrap() < 2 && tokio::time::Instant::now() < deadline {
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    // Leave after the other call saw this one inside.
    tokio::time::sleep(Duration::from_millis(50)).await;
    *INSIDE.lock().unwrap() -= 1;
    LOG.lock().unwrap().push(format!("exit {id}"));
}

/// Visit, one call at a time (a batch with this tool runs in order).
#[tool(sequential)]
async fn one_at_a_time(id: String) -> String {
    // Long enough for a second call to show up if pi started it.
    visit(&id, Duration::from_millis(500)).await;
    format!("visited {id}")
}

/// Visit, alongside the other calls of the batch.
#[tool]
async fn side_by_side(id: String) -> String {
    // Bounded: a pi that ran the calls one by one would only be slow.
    visit(&id, Duration::from_secs(10)).await;
    format!("visited {id}")
}

/// The visits so far, one per line (and forget them).
#[tool]
fn visits() -> String {
    std::mem::take(&mut *LOG.lock().unwrap()).join("\n")
}

pi_ext::main!();
