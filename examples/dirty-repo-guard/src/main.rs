//! A port of pi's `examples/extensions/dirty-repo-guard.ts`: before `/new`,
//! a resume or a fork, it runs `git status --porcelain`; with uncommitted
//! changes it asks whether to go on (without a UI it refuses). Outside a
//! git repository it lets everything through. The same texts as the
//! original.
use pi_ext::api::ExecOptions;
use pi_ext::events::{SessionBeforeForkEvent, SessionBeforeSwitchEvent, SessionCancel};
use pi_ext::prelude::*;

/// The original's `checkDirtyRepo`.
async fn check_dirty_repo(ctx: &Ctx, action: &str) -> Result<SessionCancel, Error> {
    let out = ctx
        .api()
        .exec("git", ["status", "--porcelain"], ExecOptions::default())
        .await?;
    if out.code != 0 {
        // Not a git repository: allow the action.
        return Ok(SessionCancel::Continue);
    }
    let changes = out.stdout.trim();
    if changes.is_empty() {
        return Ok(SessionCancel::Continue);
    }
    if !ctx.has_ui() {
        // Without a UI, refuse by default.
        return Ok(SessionCancel::Cancel);
    }
    let changed_files = changes.split('\n').filter(|l| !l.is_empty()).count();
    let choice = ctx
        .ui()
        .select(
            format!("You have {changed_files} uncommitted file(s). {action} anyway?"),
            ["Yes, proceed anyway", "No, let me commit first"],
        )
        .await
        .ok();
    if choice.as_deref() != Some("Yes, proceed anyway") {
        ctx.ui().notify("Commit your changes first", Level::Warning);
        return Ok(SessionCancel::Cancel);
    }
    Ok(SessionCancel::Continue)
}

/// Guard `/new` and resumes.
#[hook]
async fn guard_switch(ctx: &Ctx, event: SessionBeforeSwitchEvent) -> Result<SessionCancel, Error> {
    let action = if event.reason == "new" {
        "new session"
    } else {
        "switch session"
    };
    check_dirty_repo(ctx, action).await
}

/// Guard forks.
#[hook]
async fn guard_fork(ctx: &Ctx, _event: SessionBeforeForkEvent) -> Result<SessionCancel, Error> {
    check_dirty_repo(ctx, "fork").await
}

#[extension(name = "dirty-repo-guard")]
struct DirtyRepoGuard;

pi_ext::main!();
