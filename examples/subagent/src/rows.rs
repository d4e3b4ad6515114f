//! How `subagent` calls look in pi's terminal (the original's
//! `renderCall` and `renderResult`): the call's mode and tasks; each
//! child's status, tool calls and output, collapsed to the last items or
//! expanded with the final output as Markdown, and the usage.

use pi_ext::serde_json::Value;
use pi_ext::tui::{span, CallRow, Fg, Line, ResultRow, Span, ToolRender, View};
use serde::Deserialize;

use crate::child::{final_output, SingleResult, Status, Usage};

/// Display items shown in a collapsed single result.
const COLLAPSED_ITEM_COUNT: usize = 10;

/// The tool's rows.
pub struct SubagentRows;

/// One task or chain step as the call row shows it.
#[derive(Deserialize)]
pub struct Step {
    #[serde(default)]
    agent: String,
    #[serde(default)]
    task: String,
}

/// The arguments the call row shows (any may be missing while streamed).
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Shown {
    agent: Option<String>,
    task: Option<String>,
    tasks: Option<Vec<Step>>,
    chain: Option<Vec<Step>>,
    agent_scope: Option<String>,
}

/// The result's `details`.
#[derive(Deserialize)]
pub struct Details {
    mode: String,
    results: Vec<SingleResult>,
}

/// Text with embedded line breaks as lines: each line one span of `fg`,
/// the first joined to `first`.
struct Lines(Vec<Line>);

impl Lines {
    fn new() -> Self {
        Lines(Vec::new())
    }

    /// Start a new line with `line`.
    fn line(&mut self, line: impl Into<Line>) {
        self.0.push(line.into());
    }

    /// Append `text` in `fg` to the last line, its further lines as lines.
    fn text(&mut self, text: &str, fg: Fg) {
        for (i, part) in text.split('\n').enumerate() {
            let s = span(part).fg(fg);
            match (i, self.0.last_mut()) {
                (0, Some(last)) => *last += s,
                _ => self.0.push(s.into()),
            }
        }
    }

    /// `text` in `fg` starting on a new line.
    fn text_line(&mut self, text: &str, fg: Fg) {
        self.0.push(Line::new());
        self.text(text, fg);
    }

    fn view(self) -> View {
        View::lines(self.0)
    }
}

/// The first `n` characters, then `...` if there were more.
fn preview(text: &str, n: usize) -> String {
    if text.chars().count() > n {
        format!("{}...", text.chars().take(n).collect::<String>())
    } else {
        text.to_string()
    }
}

/// JavaScript's `toFixed(1)`.
fn fixed1(n: f64) -> String {
    format!("{n:.1}")
}

/// Token counts as the original shows them (`950`, `1.2k`, `45k`, `1.5M`).
fn format_tokens(count: f64) -> String {
    if count < 1000.0 {
        format!("{count}")
    } else if count < 10000.0 {
        format!("{}k", fixed1(count / 1000.0))
    } else if count < 1_000_000.0 {
        format!("{}k", (count / 1000.0).round())
    } else {
        format!("{}M", fixed1(count / 1_000_000.0))
    }
}

/// `3 turns ↑1.2k ↓300 R0 W0 $0.0123 ctx:4k model`, the parts there are.
fn format_usage(usage: &Usage, model: Option<&str>) -> String {
    let mut parts = Vec::new();
    if usage.turns != 0.0 {
        let s = if usage.turns > 1.0 { "s" } else { "" };
        parts.push(format!("{} turn{s}", usage.turns));
    }
    for (value, mark) in [
        (usage.input, "↑"),
        (usage.output, "↓"),
        (usage.cache_read, "R"),
        (usage.cache_write, "W"),
    ] {
        if value != 0.0 {
            parts.push(format!("{mark}{}", format_tokens(value)));
        }
    }
    if usage.cost != 0.0 {
        parts.push(format!("${:.4}", usage.cost));
    }
    if usage.context_tokens > 0.0 {
        parts.push(format!("ctx:{}", format_tokens(usage.context_tokens)));
    }
    if let Some(model) = model.filter(|m| !m.is_empty()) {
        parts.push(model.to_string());
    }
    parts.join(" ")
}

/// The sum of the results' usage (without context tokens).
fn aggregate_usage(results: &[SingleResult]) -> Usage {
    let mut total = Usage::default();
    for r in results {
        total.input += r.usage.input;
        total.output += r.usage.output;
        total.cache_read += r.usage.cache_read;
        total.cache_write += r.usage.cache_write;
        total.cost += r.usage.cost;
        total.turns += r.usage.turns;
    }
    total
}

/// A path with the home directory as `~`.
fn shorten_path(path: &str) -> String {
    match std::env::var("HOME") {
        Ok(home) if !home.is_empty() && path.starts_with(&home) => {
            format!("~{}", &path[home.len()..])
        }
        _ => path.to_string(),
    }
}

/// A string argument, or `fallback` when it is missing or empty.
fn arg<'a>(args: &'a Value, keys: &[&str], fallback: &'a str) -> &'a str {
    keys.iter()
        .find_map(|k| args[*k].as_str().filter(|s| !s.is_empty()))
        .unwrap_or(fallback)
}

/// A line number argument (a number, or a string holding one).
fn line_number(value: &Value) -> Option<f64> {
    match value {
        Value::Number(n) => n.as_f64(),
        Value::String(s) if !s.trim().is_empty() => s.trim().parse().ok(),
        _ => None,
    }
    .filter(|n: &f64| n.is_finite())
}

/// pi's `formatReadLineRange`: `:10-19` for offset 10 and limit 10.
fn read_line_range(offset: &Value, limit: &Value) -> String {
    if offset.is_null() && limit.is_null() {
        return String::new();
    }
    let start = if offset.is_null() {
        Some(1.0)
    } else {
        line_number(offset)
    };
    let Some(start) = start else {
        return String::new();
    };
    if limit.is_null() {
        return format!(":{start}");
    }
    let Some(count) = line_number(limit) else {
        return String::new();
    };
    let end = start + count - 1.0;
    if end != 0.0 {
        format!(":{start}-{end}")
    } else {
        format!(":{start}")
    }
}

/// A child's tool call as built-in tools show theirs (`$ ls`, `read ~/a:1-10`).
fn format_tool_call(name: &str, args: &Value) -> Line {
    let muted = |s: &str| span(s).fg(Fg::Muted);
    match name {
        "bash" => {
            let command = arg(args, &["command"], "...");
            muted("$ ") + span(preview(command, 60)).fg(Fg::ToolOutput)
        }
        "read" => {
            let path = shorten_path(arg(args, &["file_path", "path"], "..."));
            let mut line = muted("read ") + span(path).fg(Fg::Accent);
            let range = read_line_range(&args["offset"], &args["limit"]);
            if !range.is_empty() {
                line += span(range).fg(Fg::Warning);
            }
            line
        }
        "write" => {
            let path = shorten_path(arg(args, &["file_path", "path"], "..."));
            let lines = args["content"].as_str().unwrap_or("").split('\n').count();
            let mut line = muted("write ") + span(path).fg(Fg::Accent);
            if lines > 1 {
                line += span(format!(" ({lines} lines)")).fg(Fg::Dim);
            }
            line
        }
        "edit" => {
            let path = shorten_path(arg(args, &["file_path", "path"], "..."));
            muted("edit ") + span(path).fg(Fg::Accent)
        }
        "ls" => muted("ls ") + span(shorten_path(arg(args, &["path"], "."))).fg(Fg::Accent),
        "find" => {
            let pattern = arg(args, &["pattern"], "*");
            let path = shorten_path(arg(args, &["path"], "."));
            muted("find ") + span(pattern).fg(Fg::Accent) + span(format!(" in {path}")).fg(Fg::Dim)
        }
        "grep" => {
            let pattern = arg(args, &["pattern"], "");
            let path = shorten_path(arg(args, &["path"], "."));
            muted("grep ")
                + span(format!("/{pattern}/")).fg(Fg::Accent)
                + span(format!(" in {path}")).fg(Fg::Dim)
        }
        _ => {
            let text = pi_ext::serde_json::to_string(args).unwrap_or_default();
            span(name).fg(Fg::Accent) + span(format!(" {}", preview(&text, 50))).fg(Fg::Dim)
        }
    }
}

/// A child's texts and tool calls, in order.
enum Item<'a> {
    Text(&'a str),
    ToolCall(&'a str, &'a Value),
}

fn display_items(messages: &[Value]) -> Vec<Item<'_>> {
    let mut items = Vec::new();
    for m in messages.iter().filter(|m| m["role"] == "assistant") {
        for part in m["content"].as_array().into_iter().flatten() {
            match part["type"].as_str() {
                Some("text") => items.push(Item::Text(part["text"].as_str().unwrap_or(""))),
                Some("toolCall") => items.push(Item::ToolCall(
                    part["name"].as_str().unwrap_or(""),
                    &part["arguments"],
                )),
                _ => {}
            }
        }
    }
    items
}

/// `→ read ~/a` for each tool call.
fn tool_call_line(name: &str, args: &Value) -> Line {
    span("→ ").fg(Fg::Muted) + format_tool_call(name, args)
}

/// The last `limit` items (all with `None`), each text cut to 3 lines
/// unless expanded, after a count of the earlier ones.
fn render_items(out: &mut Lines, items: &[Item<'_>], limit: Option<usize>, expanded: bool) {
    let skipped = limit.map_or(0, |l| items.len().saturating_sub(l));
    if skipped > 0 {
        out.text_line(&format!("... {skipped} earlier items"), Fg::Muted);
    }
    for item in &items[skipped..] {
        match item {
            Item::Text(text) => {
                let shown = if expanded {
                    text.to_string()
                } else {
                    text.split('\n').take(3).collect::<Vec<_>>().join("\n")
                };
                out.text_line(&shown, Fg::ToolOutput);
            }
            Item::ToolCall(name, args) => out.line(tool_call_line(name, args)),
        }
    }
}

fn is_active(r: &SingleResult) -> bool {
    matches!(r.status, Status::Pending | Status::Running)
}

/// `⏳`, `✗` or `✓`.
fn result_icon(r: &SingleResult) -> Span {
    if is_active(r) {
        span("⏳").fg(Fg::Warning)
    } else if r.is_failed() {
        span("✗").fg(Fg::Error)
    } else {
        span("✓").fg(Fg::Success)
    }
}

/// A failed child's one-line reason.
fn failure_summary(r: &SingleResult) -> String {
    let candidates = [
        r.error_message
            .as_deref()
            .map(str::trim)
            .unwrap_or("")
            .to_string(),
        r.termination_signal
            .as_ref()
            .map(|s| format!("Terminated by signal {s}"))
            .unwrap_or_default(),
        r.stderr.trim().to_string(),
        final_output(&r.messages),
    ];
    candidates
        .into_iter()
        .find(|c| !c.is_empty())
        .unwrap_or_else(|| "(no output)".into())
}

/// The error, signal and stderr lines of a child (expanded views).
fn problems(out: &mut Lines, r: &SingleResult, error: bool) {
    if let Some(e) = r
        .error_message
        .as_deref()
        .filter(|e| error && !e.is_empty())
    {
        out.text_line(&format!("Error: {e}"), Fg::Error);
    }
    if let Some(signal) = &r.termination_signal {
        out.text_line(&format!("Signal: {signal}"), Fg::Error);
    }
    if !r.stderr.trim().is_empty() {
        out.text_line(&format!("stderr: {}", r.stderr.trim()), Fg::Error);
    }
}

/// One child of an expanded chain or parallel view: its heading, task,
/// problems, tool calls, final output and usage.
fn expanded_child(view: View, heading: Line, r: &SingleResult) -> View {
    let mut out = Lines::new();
    out.line(heading + span(" ") + result_icon(r));
    out.line(span("Task: ").fg(Fg::Muted));
    out.text(&r.task, Fg::Dim);
    problems(&mut out, r, r.is_failed());
    for item in display_items(&r.messages) {
        if let Item::ToolCall(name, args) = item {
            out.line(tool_call_line(name, args));
        }
    }
    let mut view = view.spacer(1).then(out.view());
    let output = final_output(&r.messages);
    if !output.is_empty() {
        view = view.spacer(1).then(View::markdown(output.trim()));
    }
    let usage = format_usage(&r.usage, r.model.as_deref());
    if !usage.is_empty() {
        view = view.then(View::text(span(usage).fg(Fg::Dim)));
    }
    view
}

/// The `Total: …` usage of several children, if any.
/// A chain's or parallel run's expanded rows: `header`, each child under its
/// `heading`, then the total usage.
fn expanded_children(
    header: Line,
    results: &[SingleResult],
    heading: impl Fn(&SingleResult) -> Line,
) -> View {
    let mut view = View::text(header);
    for r in results {
        view = expanded_child(view, heading(r), r);
    }
    if let Some(total) = total(results) {
        view = view.spacer(1).then(View::text(span(total).fg(Fg::Dim)));
    }
    view
}

fn total(results: &[SingleResult]) -> Option<String> {
    let usage = format_usage(&aggregate_usage(results), None);
    (!usage.is_empty()).then(|| format!("Total: {usage}"))
}

/// A single child's result.
fn single(r: &SingleResult, expanded: bool) -> View {
    let error = r.is_failed();
    let items = display_items(&r.messages);
    let output = final_output(&r.messages);
    let mut header = Line::from(result_icon(r))
        + span(" ")
        + span(&*r.agent).fg(Fg::ToolTitle).bold()
        + span(format!(" ({})", r.agent_source)).fg(Fg::Muted);
    if is_active(r) {
        header += span(" ") + span(format!("[{}]", r.status.name())).fg(Fg::Warning);
    } else if error {
        let how = r.stop_reason.as_deref().unwrap_or(r.status.name());
        header += span(" ") + span(format!("[{how}]")).fg(Fg::Error);
    }
    let usage = format_usage(&r.usage, r.model.as_deref());
    if expanded {
        let mut top = Lines::new();
        top.line(header);
        problems(&mut top, r, error);
        let mut view = top.view().spacer(1);
        let mut task = Lines::new();
        task.line(span("─── Task ───").fg(Fg::Muted));
        task.text_line(&r.task, Fg::Dim);
        view = view.then(task.view()).spacer(1);
        let mut body = Lines::new();
        body.line(span("─── Output ───").fg(Fg::Muted));
        if items.is_empty() && output.is_empty() {
            body.line(span("(no output)").fg(Fg::Muted));
        } else {
            for item in &items {
                if let Item::ToolCall(name, args) = item {
                    body.line(tool_call_line(name, args));
                }
            }
        }
        view = view.then(body.view());
        if !output.is_empty() {
            view = view.spacer(1).then(View::markdown(output.trim()));
        }
        if !usage.is_empty() {
            view = view.spacer(1).then(View::text(span(usage).fg(Fg::Dim)));
        }
        return view;
    }
    let mut out = Lines::new();
    out.line(header);
    match r.error_message.as_deref() {
        Some(e) if error && !e.is_empty() => out.text_line(&format!("Error: {e}"), Fg::Error),
        _ if items.is_empty() => out.line(span("(no output)").fg(Fg::Muted)),
        _ => {
            render_items(&mut out, &items, Some(COLLAPSED_ITEM_COUNT), false);
            if items.len() > COLLAPSED_ITEM_COUNT {
                out.line(span("(Ctrl+O to expand)").fg(Fg::Muted));
            }
        }
    }
    if !usage.is_empty() {
        out.line(span(usage).fg(Fg::Dim));
    }
    out.view()
}

/// A collapsed child of a chain or parallel view: heading, then its last
/// 5 items or a summary.
fn collapsed_child(out: &mut Lines, heading: Line, r: &SingleResult, summary: String) {
    out.line("");
    out.line(heading + span(" ") + result_icon(r));
    let items = display_items(&r.messages);
    if items.is_empty() {
        let fg = if r.is_failed() { Fg::Error } else { Fg::Muted };
        out.text_line(&summary, fg);
    } else {
        render_items(out, &items, Some(5), false);
    }
}

fn chain(results: &[SingleResult], expanded: bool) -> View {
    let succeeded = results
        .iter()
        .filter(|r| r.status == Status::Completed)
        .count();
    let icon = if results.iter().any(is_active) {
        span("⏳").fg(Fg::Warning)
    } else if succeeded == results.len() {
        span("✓").fg(Fg::Success)
    } else {
        span("✗").fg(Fg::Error)
    };
    let header = Line::from(icon)
        + span(" ")
        + span("chain ").fg(Fg::ToolTitle).bold()
        + span(format!("{succeeded}/{} steps", results.len())).fg(Fg::Accent);
    let step_heading = |r: &SingleResult| {
        let step = r.step.map_or("undefined".to_string(), |s| s.to_string());
        Line::from(span(format!("─── Step {step}: ")).fg(Fg::Muted))
            + span(&*r.agent).fg(Fg::Accent)
    };
    if expanded {
        return expanded_children(header, results, step_heading);
    }
    let mut out = Lines::new();
    out.line(header);
    for r in results {
        let summary = if r.is_failed() {
            failure_summary(r)
        } else {
            "(no output)".into()
        };
        collapsed_child(&mut out, step_heading(r), r, summary);
    }
    if let Some(total) = total(results) {
        out.line("");
        out.line(span(total).fg(Fg::Dim));
    }
    out.line(span("(Ctrl+O to expand)").fg(Fg::Muted));
    out.view()
}

fn parallel(results: &[SingleResult], expanded: bool) -> View {
    let count = |s: Status| results.iter().filter(|r| r.status == s).count();
    let (running, pending) = (count(Status::Running), count(Status::Pending));
    let succeeded = count(Status::Completed);
    let failed = results.iter().filter(|r| r.is_failed()).count();
    let active = running > 0 || pending > 0;
    let icon = if active {
        span("⏳").fg(Fg::Warning)
    } else if failed > 0 {
        span("◐").fg(Fg::Warning)
    } else {
        span("✓").fg(Fg::Success)
    };
    let status = if active {
        format!(
            "{}/{} done, {running} running, {pending} pending",
            succeeded + failed,
            results.len()
        )
    } else {
        format!("{succeeded}/{} tasks", results.len())
    };
    let header = Line::from(icon)
        + span(" ")
        + span("parallel ").fg(Fg::ToolTitle).bold()
        + span(status).fg(Fg::Accent);
    let heading =
        |r: &SingleResult| Line::from(span("─── ").fg(Fg::Muted)) + span(&*r.agent).fg(Fg::Accent);
    if expanded && !active {
        return expanded_children(header, results, heading);
    }
    let mut out = Lines::new();
    out.line(header);
    for r in results {
        let summary = match r.status {
            Status::Pending => "(pending...)".into(),
            Status::Running => "(running...)".into(),
            _ if r.is_failed() => failure_summary(r),
            _ => "(no output)".into(),
        };
        collapsed_child(&mut out, heading(r), r, summary);
    }
    if !active {
        if let Some(total) = total(results) {
            out.line("");
            out.line(span(total).fg(Fg::Dim));
        }
    }
    if !expanded {
        out.line(span("(Ctrl+O to expand)").fg(Fg::Muted));
    }
    out.view()
}

/// The result's first text block, or `(no output)`.
fn first_text(row: &ResultRow<Shown, Details>) -> View {
    let text = match row.content().first() {
        Some(pi_ext::Content::Text { text }) => text.clone(),
        _ => "(no output)".into(),
    };
    // Unstyled, as the original's `new Text(text)`.
    View::plain(&text, pi_ext::tui::Style::new())
}

impl ToolRender for SubagentRows {
    type Args = Shown;
    type Details = Details;

    fn call(&self, row: &CallRow<Shown>) -> View {
        let Some(args) = row.args() else {
            return View::builtin();
        };
        let scope = args.agent_scope.as_deref().unwrap_or("user");
        let title = |what: String| {
            Line::from(span("subagent ").fg(Fg::ToolTitle).bold())
                + span(what).fg(Fg::Accent)
                + span(format!(" [{scope}]")).fg(Fg::Muted)
        };
        let mut out = Lines::new();
        if let Some(chain) = args.chain.as_ref().filter(|c| !c.is_empty()) {
            out.line(title(format!("chain ({} steps)", chain.len())));
            for (i, step) in chain.iter().take(3).enumerate() {
                let clean = step.task.replace("{previous}", "");
                out.line(
                    span("  ")
                        + span(format!("{}.", i + 1)).fg(Fg::Muted)
                        + span(" ")
                        + span(&*step.agent).fg(Fg::Accent),
                );
                out.text(&format!(" {}", preview(clean.trim(), 40)), Fg::Dim);
            }
            if chain.len() > 3 {
                out.line(span("  ") + span(format!("... +{} more", chain.len() - 3)).fg(Fg::Muted));
            }
            return out.view();
        }
        if let Some(tasks) = args.tasks.as_ref().filter(|t| !t.is_empty()) {
            out.line(title(format!("parallel ({} tasks)", tasks.len())));
            for t in tasks.iter().take(3) {
                out.line(span("  ") + span(&*t.agent).fg(Fg::Accent));
                out.text(&format!(" {}", preview(&t.task, 40)), Fg::Dim);
            }
            if tasks.len() > 3 {
                out.line(span("  ") + span(format!("... +{} more", tasks.len() - 3)).fg(Fg::Muted));
            }
            return out.view();
        }
        let agent = args
            .agent
            .as_deref()
            .filter(|a| !a.is_empty())
            .unwrap_or("...");
        let task = match args.task.as_deref().filter(|t| !t.is_empty()) {
            Some(task) => preview(task, 60),
            None => "...".into(),
        };
        out.line(title(agent.to_string()));
        out.line(span("  "));
        out.text(&task, Fg::Dim);
        out.view()
    }

    fn result(&self, row: &ResultRow<Shown, Details>) -> View {
        let Some(details) = row.details().filter(|d| !d.results.is_empty()) else {
            return first_text(row);
        };
        let expanded = row.expanded();
        match details.mode.as_str() {
            "single" if details.results.len() == 1 => single(&details.results[0], expanded),
            "chain" => chain(&details.results, expanded),
            "parallel" => parallel(&details.results, expanded),
            _ => first_text(row),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pi_ext::serde_json::json;

    #[test]
    fn tokens_and_usage_read_as_in_the_original() {
        assert_eq!(format_tokens(950.0), "950");
        assert_eq!(format_tokens(1234.0), "1.2k");
        assert_eq!(format_tokens(45_600.0), "46k");
        assert_eq!(format_tokens(1_500_000.0), "1.5M");
        let usage = Usage {
            input: 1200.0,
            output: 30.0,
            cost: 0.01234,
            context_tokens: 1230.0,
            turns: 2.0,
            ..Default::default()
        };
        assert_eq!(
            format_usage(&usage, Some("fake/m")),
            "2 turns ↑1.2k ↓30 $0.0123 ctx:1.2k fake/m"
        );
    }

    #[test]
    fn tool_calls_read_like_built_in_tools() {
        let text = |name: &str, args: Value| format_tool_call(name, &args).text();
        assert_eq!(text("bash", json!({"command": "ls -la"})), "$ ls -la");
        assert_eq!(
            text(
                "read",
                json!({"path": "/x/a.rs", "offset": 10, "limit": 10})
            ),
            "read /x/a.rs:10-19"
        );
        assert_eq!(text("grep", json!({"pattern": "fn"})), "grep /fn/ in .");
        assert_eq!(text("other", json!({"a": 1})), "other {\"a\":1}");
    }
}
