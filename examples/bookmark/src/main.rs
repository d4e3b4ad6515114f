//! A port of pi's `examples/extensions/bookmark.ts`: `/bookmark [label]`
//! labels the last assistant message (pi's `/tree` shows labels), and
//! `/unbookmark` removes the label of the last labelled entry. The same
//! commands and texts as the original.
use pi_ext::messages::AgentMessage;
use pi_ext::prelude::*;

/// Labels the last assistant message (`/bookmark [label]`).
#[command(description = "Bookmark last message (usage: /bookmark [label])")]
async fn bookmark(ctx: &CommandCtx, args: String) -> Result<(), Error> {
    let label = match args.trim() {
        "" => {
            let now = std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(0, |d| d.as_millis());
            format!("bookmark-{now}")
        }
        given => given.to_string(),
    };
    let entries = ctx.session_entries().await?;
    let last_reply = entries
        .iter()
        .rev()
        .find(|e| matches!(e.get().message(), Some(AgentMessage::Assistant(_))));
    match last_reply {
        Some(entry) => {
            ctx.api().set_label(entry.id(), Some(&label)).await?;
            ctx.ui()
                .notify(format!("Bookmarked as: {label}"), Level::Info);
        }
        None => ctx
            .ui()
            .notify("No assistant message to bookmark", Level::Warning),
    }
    Ok(())
}

/// Remove bookmark from last labeled entry
#[command]
async fn unbookmark(ctx: &CommandCtx) -> Result<(), Error> {
    let entries = ctx.session_entries().await?;
    for entry in entries.iter().rev() {
        if let Some(label) = ctx.session_label(entry.id()).await? {
            ctx.api().set_label(entry.id(), None).await?;
            ctx.ui()
                .notify(format!("Removed bookmark: {label}"), Level::Info);
            return Ok(());
        }
    }
    ctx.ui().notify("No bookmarked entry found", Level::Warning);
    Ok(())
}

#[extension(name = "bookmark")]
struct Bookmark;

pi_ext::main!();
