//! A port of pi's `commands.ts`: `/commands [extension|prompt|skill]`
//! lists pi's slash commands grouped by source in a selector, and offers to
//! show where the chosen one comes from (its `sourceInfo` path). The
//! argument's completions are computed when the user types
//! (`completions = source_completions`).
use pi_ext::api::CommandInfo;
use pi_ext::prelude::*;
use pi_ext::tui::Suggestion;

#[extension(name = "command-list")]
struct CommandList;

const SOURCES: [(&str, &str); 3] = [
    ("extension", "Extensions"),
    ("prompt", "Prompts"),
    ("skill", "Skills"),
];

/// The sources starting with what the user typed.
async fn source_completions(prefix: String) -> Vec<Suggestion> {
    SOURCES
        .iter()
        .filter(|(key, _)| key.starts_with(prefix.as_str()))
        .map(|(key, _)| Suggestion::new(*key))
        .collect()
}

fn format_command(cmd: &CommandInfo) -> String {
    match cmd.description.as_deref() {
        Some(desc) if !desc.is_empty() => format!("/{} - {desc}", cmd.name),
        _ => format!("/{}", cmd.name),
    }
}

/// List available slash commands
#[command(completions = source_completions)]
async fn commands(ctx: &CommandCtx, args: String) -> Result<(), Error> {
    let all = ctx.api().commands().await?;
    let source_filter = args.trim();
    let filtered: Vec<&CommandInfo> = all
        .iter()
        .filter(|c| source_filter.is_empty() || c.source == source_filter)
        .collect();
    if filtered.is_empty() {
        let message = if source_filter.is_empty() {
            "No commands found".to_string()
        } else {
            format!("No {source_filter} commands found")
        };
        ctx.ui().notify(message, Level::Info);
        return Ok(());
    }

    let mut items = Vec::new();
    for (key, label) in SOURCES {
        let cmds: Vec<String> = filtered
            .iter()
            .filter(|c| c.source == key)
            .map(|c| format_command(c))
            .collect();
        if !cmds.is_empty() {
            items.push(format!("--- {label} ---"));
            items.extend(cmds);
        }
    }

    // A dismissed selector is no choice, as in pi.
    let Ok(selected) = ctx.ui().select("Available Commands", items).await else {
        return Ok(());
    };
    if selected.starts_with("---") {
        return Ok(());
    }
    let name = selected
        .split(" - ")
        .next()
        .unwrap_or_default()
        .trim_start_matches('/');
    let path = filtered
        .iter()
        .find(|c| c.name == name)
        .and_then(|c| c.source_info.as_ref())
        .map(|s| s.path.clone())
        .filter(|p| !p.is_empty());
    if let Some(path) = path {
        let show = ctx
            .ui()
            .confirm(name, format!("View source path?\n{path}"))
            .await
            .unwrap_or(false);
        if show {
            ctx.ui().notify(path, Level::Info);
        }
    }
    Ok(())
}

pi_ext::main!();
