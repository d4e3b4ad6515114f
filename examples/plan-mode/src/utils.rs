//! The original's `utils.ts`: which bash commands plan mode allows, the
//! plan's numbered steps, and the markers that complete them.
//!
//! JavaScript's regular expressions differ from the `regex` crate's in a
//! few places, each handled where it matters: `\b` is ASCII in JavaScript
//! (here `(?-u:\b)`), `\d` is ASCII (here `[0-9]`), `$` and `.` treat `\r`
//! as a line end (here CRLF mode, `R`), lengths are UTF-16 units
//! ([`js_len`]), and the regex crate has no look-ahead (see
//! [`DESTRUCTIVE_PATTERNS`]).
use std::collections::HashSet;
use std::sync::LazyLock;

use regex::Regex;
use serde::{Deserialize, Serialize};

/// Compile one of the original's patterns, `\b` made ASCII as in JavaScript.
fn js(pattern: &str) -> Regex {
    Regex::new(&pattern.replace(r"\b", r"(?-u:\b)")).expect("a valid pattern")
}

/// Destructive commands blocked in plan mode, the original's list. Its
/// `(^|[^<])>(?!>)` has no look-ahead here: a `>` followed by `>` is caught
/// by the `>>` pattern next to it, so the union is the same.
const DESTRUCTIVE_PATTERNS: &[&str] = &[
    r"(?i)\brm\b",
    r"(?i)\brmdir\b",
    r"(?i)\bmv\b",
    r"(?i)\bcp\b",
    r"(?i)\bmkdir\b",
    r"(?i)\btouch\b",
    r"(?i)\bchmod\b",
    r"(?i)\bchown\b",
    r"(?i)\bchgrp\b",
    r"(?i)\bln\b",
    r"(?i)\btee\b",
    r"(?i)\btruncate\b",
    r"(?i)\bdd\b",
    r"(?i)\bshred\b",
    r"(^|[^<])>",
    r">>",
    r"(?i)\bnpm\s+(install|uninstall|update|ci|link|publish)",
    r"(?i)\byarn\s+(add|remove|install|publish)",
    r"(?i)\bpnpm\s+(add|remove|install|publish)",
    r"(?i)\bpip\s+(install|uninstall)",
    r"(?i)\bapt(-get)?\s+(install|remove|purge|update|upgrade)",
    r"(?i)\bbrew\s+(install|uninstall|upgrade)",
    r"(?i)\bgit\s+(add|commit|push|pull|merge|rebase|reset|checkout|branch\s+-[dD]|stash|cherry-pick|revert|tag|init|clone)",
    r"(?i)\bsudo\b",
    r"(?i)\bsu\b",
    r"(?i)\bkill\b",
    r"(?i)\bpkill\b",
    r"(?i)\bkillall\b",
    r"(?i)\breboot\b",
    r"(?i)\bshutdown\b",
    r"(?i)\bsystemctl\s+(start|stop|restart|enable|disable)",
    r"(?i)\bservice\s+\S+\s+(start|stop|restart)",
    r"(?i)\b(vim?|nano|emacs|code|subl)\b",
];

/// Read-only commands allowed in plan mode, the original's list.
const SAFE_PATTERNS: &[&str] = &[
    r"^\s*cat\b",
    r"^\s*head\b",
    r"^\s*tail\b",
    r"^\s*less\b",
    r"^\s*more\b",
    r"^\s*grep\b",
    r"^\s*find\b",
    r"^\s*ls\b",
    r"^\s*pwd\b",
    r"^\s*echo\b",
    r"^\s*printf\b",
    r"^\s*wc\b",
    r"^\s*sort\b",
    r"^\s*uniq\b",
    r"^\s*diff\b",
    r"^\s*file\b",
    r"^\s*stat\b",
    r"^\s*du\b",
    r"^\s*df\b",
    r"^\s*tree\b",
    r"^\s*which\b",
    r"^\s*whereis\b",
    r"^\s*type\b",
    r"^\s*env\b",
    r"^\s*printenv\b",
    r"^\s*uname\b",
    r"^\s*whoami\b",
    r"^\s*id\b",
    r"^\s*date\b",
    r"^\s*cal\b",
    r"^\s*uptime\b",
    r"^\s*ps\b",
    r"^\s*top\b",
    r"^\s*htop\b",
    r"^\s*free\b",
    r"(?i)^\s*git\s+(status|log|diff|show|branch|remote|config\s+--get)",
    r"(?i)^\s*git\s+ls-",
    r"(?i)^\s*npm\s+(list|ls|view|info|search|outdated|audit)",
    r"(?i)^\s*yarn\s+(list|info|why|audit)",
    r"(?i)^\s*node\s+--version",
    r"(?i)^\s*python\s+--version",
    r"(?i)^\s*curl\s",
    r"(?i)^\s*wget\s+-O\s*-",
    r"^\s*jq\b",
    r"(?i)^\s*sed\s+-n",
    r"^\s*awk\b",
    r"^\s*rg\b",
    r"^\s*fd\b",
    r"^\s*bat\b",
    r"^\s*eza\b",
];

static DESTRUCTIVE: LazyLock<Vec<Regex>> =
    LazyLock::new(|| DESTRUCTIVE_PATTERNS.iter().map(|p| js(p)).collect());
static SAFE: LazyLock<Vec<Regex>> = LazyLock::new(|| SAFE_PATTERNS.iter().map(|p| js(p)).collect());

/// Whether plan mode lets `command` run: allowlisted and not destructive.
pub fn is_safe_command(command: &str) -> bool {
    let destructive = DESTRUCTIVE.iter().any(|p| p.is_match(command));
    let safe = SAFE.iter().any(|p| p.is_match(command));
    !destructive && safe
}

/// One step of the plan (persisted as the original's `{step, text, completed}`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TodoItem {
    /// Its number, from 1.
    pub step: u64,
    /// What it says, without Markdown.
    pub text: String,
    /// Whether a `[DONE:n]` marker completed it.
    pub completed: bool,
}

/// A string's length as JavaScript counts it (UTF-16 code units).
pub fn js_len(text: &str) -> usize {
    text.encode_utf16().count()
}

/// The first `units` UTF-16 code units of `text` (JavaScript's `slice(0,
/// units)`; a character that would be cut in half is left out).
pub fn js_slice(text: &str, units: usize) -> &str {
    let mut used = 0;
    for (at, c) in text.char_indices() {
        used += c.len_utf16();
        if used > units {
            return &text[..at];
        }
    }
    text
}

static BOLD: LazyLock<Regex> = LazyLock::new(|| js(r"\*{1,2}([^*]+)\*{1,2}"));
static CODE: LazyLock<Regex> = LazyLock::new(|| js(r"`([^`]+)`"));
static VERB: LazyLock<Regex> = LazyLock::new(|| {
    js(
        r"(?i)^(Use|Run|Execute|Create|Write|Read|Check|Verify|Update|Modify|Add|Remove|Delete|Install)\s+(the\s+)?",
    )
});
static SPACES: LazyLock<Regex> = LazyLock::new(|| js(r"\s+"));

/// A step's text without Markdown, a leading verb or runs of spaces, its
/// first letter upper-cased.
pub fn clean_step_text(text: &str) -> String {
    let cleaned = BOLD.replace_all(text, "$1");
    let cleaned = CODE.replace_all(&cleaned, "$1");
    let cleaned = VERB.replace(&cleaned, "");
    let cleaned = SPACES.replace_all(&cleaned, " ");
    let cleaned = cleaned.trim();
    let mut chars = cleaned.chars();
    match chars.next() {
        Some(first) => first.to_uppercase().chain(chars).collect(),
        None => String::new(),
    }
}

static PLAN_HEADER: LazyLock<Regex> = LazyLock::new(|| js(r"(?i)\*{0,2}Plan:\*{0,2}\s*\n"));
static NUMBERED: LazyLock<Regex> = LazyLock::new(|| js(r"(?mR)^\s*([0-9]+)[.)]\s+(.+)$"));
static TRAILING_STARS: LazyLock<Regex> = LazyLock::new(|| js(r"\*{1,2}$"));

/// The numbered steps under the last `Plan:` header of `message` (the last
/// one: a draft in the thinking can come before the plan in the text).
pub fn extract_todo_items(message: &str) -> Vec<TodoItem> {
    let mut items = Vec::new();
    let Some(header) = PLAN_HEADER.find_iter(message).last() else {
        return items;
    };
    let plan_section = &message[header.end()..];
    for found in NUMBERED.captures_iter(plan_section) {
        let text = TRAILING_STARS.replace(found[2].trim(), "");
        let text = text.trim();
        if js_len(text) > 5 && !text.starts_with('/') && !text.starts_with('-') {
            let cleaned = clean_step_text(text);
            if js_len(&cleaned) > 3 {
                items.push(TodoItem {
                    step: items.len() as u64 + 1,
                    text: cleaned,
                    completed: false,
                });
            }
        }
    }
    items
}

static DONE_TAG: LazyLock<Regex> = LazyLock::new(|| js(r"(?i)\[DONE\s*:?\s*([0-9]+)\]"));
static DONE_PLAIN: LazyLock<Regex> = LazyLock::new(|| js(r"(?i)\bDone\s*:\s*([0-9]+)\b"));
static STEP_DONE: LazyLock<Regex> = LazyLock::new(|| {
    js(r"(?i)\bStep\s*([0-9]+)\s+(?:is\s+)?(?:done|complete|completed|finished)\b")
});

/// The steps `message` says are done (`[DONE:1]`, `Done: 2`, `Step 3 is
/// complete`), each once, in the order found.
pub fn extract_done_steps(message: &str) -> Vec<u64> {
    let mut seen = HashSet::new();
    [&*DONE_TAG, &*DONE_PLAIN, &*STEP_DONE]
        .into_iter()
        .flat_map(|pattern| pattern.captures_iter(message))
        // A number too long for u64 names no step (JavaScript's is a float
        // that equals none either).
        .filter_map(|c| c[1].parse::<u64>().ok())
        .filter(|step| seen.insert(*step))
        .collect()
}

/// Mark the steps `text` says are done; how many were newly marked.
pub fn mark_completed_steps(text: &str, items: &mut [TodoItem]) -> usize {
    let mut marked = 0;
    for step in extract_done_steps(text) {
        if let Some(item) = items.iter_mut().find(|t| t.step == step && !t.completed) {
            item.completed = true;
            marked += 1;
        }
    }
    marked
}

static ALL_STEPS: LazyLock<Regex> = LazyLock::new(|| {
    js(r"(?i)(?:all|every)\s+steps?\s+(?:are|is\s+)?(?:done|complete|completed|finished)")
});
static PLAN_DONE: LazyLock<Regex> =
    LazyLock::new(|| js(r"(?i)\b(?:the\s+)?plan\s+(?:is\s+)?(?:complete|completed|done)\b"));

/// Whether `message` says the whole plan is done (the fallback for a model
/// that sums up without `[DONE:n]` markers; only for a run's last message).
pub fn all_steps_complete(message: &str) -> bool {
    ALL_STEPS.is_match(message) || PLAN_DONE.is_match(message)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn read_only_commands_pass_and_writes_are_blocked() {
        for safe in [
            "ls -la",
            "cat README.md",
            "git status",
            "git log --oneline",
            "grep -rn foo src",
            "echo 1 < input",
            "sed -n 1,5p f",
        ] {
            assert!(is_safe_command(safe), "{safe}");
        }
        for unsafe_ in [
            "rm -rf build",
            "echo hi > out.txt",
            "echo hi >> out.txt",
            ">out",
            "cat a | tee b",
            "git commit -m x",
            "npm install left-pad",
            "sudo ls",
            "make",
            "ls; vim x",
            "cat a && RM b",
        ] {
            assert!(!is_safe_command(unsafe_), "{unsafe_}");
        }
        // `\b` is ASCII, as in JavaScript: a letter outside ASCII is no
        // word character, so `érm` still holds the word `rm`.
        assert!(!is_safe_command("echo érm"));
        assert!(is_safe_command("echo firm"));
    }

    #[test]
    fn the_last_plan_gives_the_steps_cleaned() {
        let message = "Plan:\n1. draft one\n\nThinking done.\n**Plan:**\n\
                       1. **Read** the `config` file\n\
                       2) Run the tests now\n\
                       3. /skip this\n\
                       4. - skip too\n\
                       5. tiny\n\
                       6. Update   the   docs**\n";
        let items = extract_todo_items(message);
        let texts: Vec<&str> = items.iter().map(|t| t.text.as_str()).collect();
        assert_eq!(texts, ["Config file", "Tests now", "Docs"]);
        assert_eq!(items.iter().map(|t| t.step).collect::<Vec<_>>(), [1, 2, 3]);
        assert!(extract_todo_items("1. no header here").is_empty());
        // A Windows line end is no part of the step.
        assert_eq!(
            extract_todo_items("Plan:\r\n1. Inspect the code\r\n")[0].text,
            "Inspect the code"
        );
    }

    #[test]
    fn done_markers_complete_steps_once() {
        assert_eq!(
            extract_done_steps(
                "[DONE:1] [done 2] Done: 3 step 4 is complete [DONE:1] Step 5 is not done"
            ),
            [1, 2, 3, 4]
        );
        let mut items = extract_todo_items("Plan:\n1. Inspect the code\n2. Write the new fix\n");
        assert_eq!(mark_completed_steps("[DONE:2] [DONE:9]", &mut items), 1);
        assert_eq!(mark_completed_steps("[DONE:2]", &mut items), 0);
        assert!(!items[0].completed && items[1].completed);
        assert!(all_steps_complete("All steps done."));
        // As in the original, whose `(?:are|is\s+)?` wants no space after
        // "are".
        assert!(!all_steps_complete("All steps are done."));
        assert!(all_steps_complete("The plan is complete"));
        assert!(!all_steps_complete("Step 1 is done"));
    }

    #[test]
    fn lengths_and_slices_count_utf16_units() {
        assert_eq!(js_len("a😀"), 3);
        assert_eq!(js_slice("a😀b", 2), "a");
        assert_eq!(js_slice("abc", 5), "abc");
        assert_eq!(js_slice("abcdef", 3), "abc");
    }
}
