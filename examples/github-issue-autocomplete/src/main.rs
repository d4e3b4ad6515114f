//! A port of pi's `examples/extensions/github-issue-autocomplete.ts`: in a
//! checkout of a GitHub repository, typing `#` in pi's editor suggests the
//! repository's open issues (`#12  [open] Fix the footer`), filtered as
//! the user types: by number prefix for digits, fuzzily by number and title
//! otherwise (pi-tui's `fuzzyFilter`, rewritten in [`fuzzy`]). The issues
//! are loaded once per session with the GitHub CLI (`gh issue list`, the
//! latest 100 open ones); where nothing matches, pi's own suggestions stay.
//!
//! Without a GitHub remote, or when `gh` fails, it says so (an error
//! notification), as the original.
mod fuzzy;

use std::sync::{Arc, LazyLock};
use std::time::Duration;

use pi_ext::api::{Api, ExecOptions};
use pi_ext::events::SessionStartEvent;
use pi_ext::prelude::*;
use pi_ext::sync::watch;
use pi_ext::tui::{Query, Suggestion, Suggestions};
use pi_ext::ui::Ui;
use regex::Regex;

#[extension(name = "github-issue-autocomplete")]
struct GithubIssueAutocomplete;

const MAX_ISSUES: usize = 100;
const MAX_SUGGESTIONS: usize = 20;
/// How long `git` and `gh` may take.
const TIMEOUT: Duration = Duration::from_secs(5);
/// A `#` token before the cursor (the original's `extractIssueToken`).
const ISSUE_TOKEN: &str = r"(?:^|[ \t])#([^\s#]*)$";

/// One issue as `gh issue list --json number,title,state` gives it.
#[derive(Debug, Clone, serde::Deserialize)]
struct Issue {
    number: u64,
    title: String,
    state: String,
}

/// `owner/name` of a GitHub remote URL (ssh or https), if it is one.
fn github_repo(remote_url: &str) -> Option<String> {
    static URLS: LazyLock<[Regex; 2]> = LazyLock::new(|| {
        [
            Regex::new(r"^git@github\.com:([^/]+/[^/]+?)(?:\.git)?$").expect("a valid pattern"),
            Regex::new(r"^https?://github\.com/([^/]+/[^/]+?)(?:\.git)?$")
                .expect("a valid pattern"),
        ]
    });
    URLS.iter()
        .find_map(|url| url.captures(remote_url))
        .map(|c| c[1].to_string())
}

/// The first GitHub repository among the working directory's remotes.
async fn resolve_repo(api: &Api, cwd: &str) -> Result<String, &'static str> {
    let options = ExecOptions {
        timeout: Some(TIMEOUT),
        cwd: Some(cwd.to_string()),
        ..Default::default()
    };
    let out = api.exec("git", ["remote", "-v"], options).await;
    let out = match out {
        Ok(out) if out.code == 0 => out,
        _ => return Err("github-issue-autocomplete: cwd is not a git repository"),
    };
    out.stdout
        .lines()
        .filter_map(|line| line.split_whitespace().nth(1))
        .find_map(github_repo)
        .ok_or("github-issue-autocomplete: cwd is not a GitHub repository")
}

/// The repository's open issues, or `None` (and a notification) when `gh`
/// fails or prints something else.
async fn load_issues(api: &Api, ui: &Ui, repo: &str, cwd: &str) -> Option<Vec<Issue>> {
    let limit = MAX_ISSUES.to_string();
    let args = [
        "issue",
        "list",
        "--repo",
        repo,
        "--state",
        "open",
        "--limit",
        &limit,
        "--json",
        "number,title,state",
    ];
    let options = ExecOptions {
        timeout: Some(TIMEOUT),
        cwd: Some(cwd.to_string()),
        ..Default::default()
    };
    let out = match api.exec("gh", args, options).await {
        Ok(out) if out.code == 0 => out,
        failed => {
            let details = match &failed {
                Ok(out) if !out.stderr.trim().is_empty() => out.stderr.trim().to_string(),
                Ok(out) => format!("exit code {}", out.code),
                Err(e) => e.to_string(),
            };
            ui.notify(
                format!("github-issue-autocomplete: failed to load issues: {details}"),
                Level::Error,
            );
            return None;
        }
    };
    match pi_ext::serde_json::from_str(&out.stdout) {
        Ok(issues) => Some(issues),
        Err(_) => {
            ui.notify(
                "github-issue-autocomplete: failed to parse gh issue list output",
                Level::Error,
            );
            None
        }
    }
}

/// The original's `formatIssueItem`.
fn item(issue: &Issue) -> Suggestion {
    Suggestion::new(format!("#{}", issue.number)).description(format!(
        "[{}] {}",
        issue.state.to_lowercase(),
        issue.title
    ))
}

/// The original's `filterIssues`: the first issues for an empty query,
/// those whose number starts with a numeric query, else a fuzzy match on
/// `<number> <title>`.
fn filter_issues(issues: &[Issue], query: &str) -> Vec<Suggestion> {
    if query.trim().is_empty() {
        return issues.iter().take(MAX_SUGGESTIONS).map(item).collect();
    }
    if query.chars().all(|c| c.is_ascii_digit()) {
        let numeric: Vec<Suggestion> = issues
            .iter()
            .filter(|issue| issue.number.to_string().starts_with(query))
            .take(MAX_SUGGESTIONS)
            .map(item)
            .collect();
        if !numeric.is_empty() {
            return numeric;
        }
    }
    fuzzy::fuzzy_filter(issues.iter().collect(), query, |issue| {
        format!("{} {}", issue.number, issue.title)
    })
    .into_iter()
    .take(MAX_SUGGESTIONS)
    .map(item)
    .collect()
}

#[hook]
async fn session_start(_event: SessionStartEvent, ctx: &Ctx) -> Result<(), Error> {
    let (api, ui) = (ctx.api(), ctx.ui());
    let cwd = ctx.cwd().to_string_lossy().into_owned();
    let repo = match resolve_repo(&api, &cwd).await {
        Ok(repo) => repo,
        Err(error) => {
            ui.notify(error, Level::Error);
            return Ok(());
        }
    };
    // Loaded once, from now on (the original's promise): `None` until then.
    let (loaded, issues) = watch::channel::<Option<Option<Arc<Vec<Issue>>>>>(None);
    let loader = ui.clone();
    pi_ext::task::spawn(async move {
        let issues = load_issues(&api, &loader, &repo, &cwd).await;
        let _ = loaded.send(Some(issues.map(Arc::new)));
    });
    let added = ui
        .add_autocomplete(ISSUE_TOKEN, move |query: Query| {
            let mut issues = issues.clone();
            async move {
                let token = query.capture(1)?.to_string();
                let loaded = issues.wait_for(Option::is_some).await.ok()?.clone();
                let issues = loaded.flatten().filter(|issues| !issues.is_empty())?;
                let items = filter_issues(&issues, &token);
                // Nothing of ours: pi's own suggestions.
                (!items.is_empty()).then(|| Suggestions::new(format!("#{token}"), items))
            }
        })
        .await;
    match added {
        // pi's RPC and print modes have no editor to complete in.
        Ok(()) | Err(UiError::NoUi | UiError::NoTerminal) => Ok(()),
        Err(e) => Err(e.into()),
    }
}

pi_ext::main!();
