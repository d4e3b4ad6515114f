//! Keeps the working branch up to date with its upstream: a Rust port of
//! pi's `examples/extensions/git-merge-and-resolve.ts`. After each agent
//! run it fetches and merges (`--no-ff`); a clean merge is silent. On
//! conflicts the working tree is left as git leaves it and the agent gets a
//! follow-up message listing each conflict block (file, line range, ours
//! and theirs), also for the unresolved conflicts of an unfinished merge.
use std::path::Path;

use pi_ext::api::{Delivery, ExecOptions, ExecOutput};
use pi_ext::events::AgentEndEvent;
use pi_ext::prelude::*;

/// One `<<<<<<<` … `=======` … `>>>>>>>` block.
#[derive(Debug, PartialEq)]
struct ConflictBlock {
    file: String,
    start_line: usize,
    separator_line: usize,
    end_line: usize,
}

async fn git(ctx: &Ctx, args: &[&str]) -> ExecOutput {
    // pi never fails an exec; a lost connection reads as a failed command.
    ctx.api()
        .exec("git", args.iter().copied(), ExecOptions::default())
        .await
        .unwrap_or(ExecOutput {
            stdout: String::new(),
            stderr: String::new(),
            code: 1,
            killed: false,
        })
}

/// The conflict blocks of one file's text.
fn blocks_in(file: &str, text: &str) -> Vec<ConflictBlock> {
    let mut blocks = Vec::new();
    let (mut start, mut separator) = (None, None);
    for (i, line) in text.lines().enumerate() {
        let line_no = i + 1;
        if line.starts_with("<<<<<<<") {
            start = Some(line_no);
            separator = None;
        } else if line.starts_with("=======") && start.is_some() {
            separator = Some(line_no);
        } else if line.starts_with(">>>>>>>") {
            if let (Some(start_line), Some(separator_line)) = (start, separator) {
                blocks.push(ConflictBlock {
                    file: file.to_string(),
                    start_line,
                    separator_line,
                    end_line: line_no,
                });
                start = None;
                separator = None;
            }
        }
    }
    blocks
}

/// The conflict markers in the working tree's unmerged files.
async fn find_conflicts(ctx: &Ctx, cwd: &Path) -> Vec<ConflictBlock> {
    let out = git(ctx, &["diff", "--name-only", "--diff-filter=U"]).await;
    if out.code != 0 || out.stdout.trim().is_empty() {
        return Vec::new();
    }
    let mut blocks = Vec::new();
    for file in out.stdout.trim().split('\n') {
        // A file that cannot be read has no blocks (as the original's catch).
        if let Ok(text) = std::fs::read_to_string(cwd.join(file)) {
            blocks.extend(blocks_in(file, &text));
        }
    }
    blocks
}

fn format_range(start: usize, end: usize) -> String {
    match start.cmp(&end) {
        std::cmp::Ordering::Greater => "empty".into(),
        std::cmp::Ordering::Equal => start.to_string(),
        std::cmp::Ordering::Less => format!("{start}-{end}"),
    }
}

fn format_conflicts(reference: &str, blocks: &[ConflictBlock]) -> String {
    let mut lines = vec![format!("Merged {reference} with conflicts:"), String::new()];
    for b in blocks {
        let ours = format_range(b.start_line + 1, b.separator_line - 1);
        let theirs = format_range(b.separator_line + 1, b.end_line - 1);
        lines.push(format!(
            "  {}:{}-{} (ours {ours}, theirs {theirs})",
            b.file, b.start_line, b.end_line
        ));
    }
    lines.push(String::new());
    lines.push("Resolve these conflicts.".into());
    lines.join("\n")
}

/// After each run: merge the upstream, or report an unfinished merge's conflicts.
#[hook]
async fn merge_upstream(ctx: &Ctx, _event: AgentEndEvent) -> Result<(), Error> {
    if git(ctx, &["rev-parse", "--git-dir"]).await.code != 0 {
        return Ok(());
    }
    let mut reference = "MERGE_HEAD".to_string();
    // Not in a merge already: attempt one, on a clean working tree only.
    if git(ctx, &["rev-parse", "MERGE_HEAD"]).await.code != 0 {
        if !git(ctx, &["status", "--porcelain"])
            .await
            .stdout
            .trim()
            .is_empty()
        {
            return Ok(());
        }
        let upstream = git(
            ctx,
            &["rev-parse", "--abbrev-ref", "--symbolic-full-name", "@{u}"],
        )
        .await;
        if upstream.code != 0 {
            return Ok(());
        }
        reference = upstream.stdout.trim().to_string();
        let remote = reference.split('/').next().unwrap_or_default().to_string();
        ctx.ui().notify(
            format!("git-merge-and-resolve: fetching {remote}, merging {reference}"),
            Level::Info,
        );
        let fetch = git(ctx, &["fetch", &remote]).await;
        if fetch.code != 0 {
            ctx.ui().notify(
                format!(
                    "git-merge-and-resolve: fetch failed: {}",
                    fetch.stderr.trim()
                ),
                Level::Warning,
            );
            return Ok(());
        }
        if git(ctx, &["merge", "--no-ff", &reference]).await.code == 0 {
            return Ok(());
        }
    }
    // Just merged with conflicts, or in an unfinished merge already.
    let conflicts = find_conflicts(ctx, ctx.cwd()).await;
    if conflicts.is_empty() {
        return Ok(());
    }
    ctx.api()
        .send_user_message(
            format_conflicts(&reference, &conflicts),
            Some(Delivery::FollowUp),
        )
        .await?;
    Ok(())
}

#[extension(name = "git-merge-and-resolve")]
struct GitMergeAndResolve;

pi_ext::main!();

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn blocks_and_ranges_as_the_original_counts_them() {
        let text = "a\n<<<<<<< HEAD\nours\n=======\n>>>>>>> up\n=======\n<<<<<<< x\n=======\nt1\nt2\n>>>>>>> y\n";
        let blocks = blocks_in("f", text);
        assert_eq!(blocks.len(), 2);
        assert_eq!(
            format_conflicts("origin/main", &blocks),
            "Merged origin/main with conflicts:\n\n  f:2-5 (ours 3, theirs empty)\n  f:7-11 (ours empty, theirs 9-10)\n\nResolve these conflicts."
        );
    }
}
