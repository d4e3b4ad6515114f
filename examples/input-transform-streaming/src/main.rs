//! A streaming-aware input gate: a Rust port of pi's
//! `examples/extensions/input-transform-streaming.ts`. A prompt that
//! mentions changes gets `git diff --stat` appended, so the model sees the
//! uncommitted changes at once; a steer while the agent streams
//! (`streamingBehavior: "steer"`, pi ≥ 0.77) is passed on untouched, without
//! running git, so that it reaches the model without delay.
use pi_ext::api::ExecOptions;
use pi_ext::events::{InputAction, InputEvent};
use pi_ext::prelude::*;

/// The original's `/\b(changes?|diff|modified)\b/i`: one of these as a whole
/// word (a run of `[A-Za-z0-9_]`).
fn mentions_changes(text: &str) -> bool {
    text.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .any(|word| {
            matches!(
                word.to_ascii_lowercase().as_str(),
                "change" | "changes" | "diff" | "modified"
            )
        })
}

/// Append the uncommitted changes to a prompt that mentions them.
#[hook]
async fn add_diff_stat(ctx: &Ctx, event: InputEvent) -> InputAction {
    // During steering, skip the exec call: corrections should be fast.
    if event.is_steer() || !mentions_changes(&event.text) {
        return InputAction::Continue;
    }
    let Ok(out) = ctx
        .api()
        .exec("git", ["diff", "--stat"], ExecOptions::default())
        .await
    else {
        return InputAction::Continue;
    };
    if out.code != 0 || out.stdout.trim().is_empty() {
        return InputAction::Continue;
    }
    InputAction::Transform {
        text: format!(
            "{}\n\nCurrent uncommitted changes:\n```\n{}\n```",
            event.text,
            out.stdout.trim()
        ),
        images: None,
    }
}

#[extension(name = "input-transform-streaming")]
struct InputTransformStreaming;

pi_ext::main!();

#[cfg(test)]
mod tests {
    use super::mentions_changes;

    #[test]
    fn whole_words_as_the_original_regex() {
        for text in ["my changes", "Diff?", "a change", "x.modified!"] {
            assert!(mentions_changes(text), "{text}");
        }
        for text in ["changed things", "diffs", "modified_files", ""] {
            assert!(!mentions_changes(text), "{text}");
        }
    }
}
