//! Rows 9–11 of the benchmark: costs that could grow with the session or with the number of
//! extensions.
//!
//! - 8: `context` hooks (pass-through, pruning) and a `before_provider_request` hook on sessions
//!   of 10 to 5,000 messages, Rust vs TypeScript vs none, each in its own pi: the time added
//!   per model request, the bytes over the pipe and the extension's CPU per request;
//! - 9: `session_branch()` on the same sessions;
//! - 10: 1, 5 and 20 extensions: as separate Rust binaries, as one Rust host binary, as
//!   TypeScript files: pi's startup work, the total RSS, a tool call in the last-loaded one.
//!
//! Sessions are written in pi's own format (`.jsonl`, version 3) by [`write_session`], with
//! realistic tool output (0.3–3 KB, every 100th tool result 50 KB with truncation `details`,
//! edit results with a diff in `details`), and opened with `--session <file>`. After each
//! measured prompt the session's leaf goes back to the last entry of the file
//! (`tests/fixtures/bench-reset.ts`, pi's tree navigation), so every prompt sees a conversation
//! of the same size: the file's messages and the new prompt.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use pi_ext_e2e::{example_binary, fixture, PiEnv, PiRpc, Reply, ScriptedModel};
use serde_json::{json, Value};

use super::{
    clock_ticks_per_second, cpu_ticks, find_child, fmt_count, fmt_ms, fmt_summary, ms,
    pi_timing_total, process_comm, progress, rss_kib, summarize, Bench, Row, Summary, Verdict,
    PROMPT_TIMEOUT,
};

/// Session sizes (messages) of rows 9 and 10.
const SIZES: [usize; 4] = [10, 100, 1_000, 5_000];

/// Row ids per session size: pass-through `context`, pruning `context`,
/// `before_provider_request`, `session_branch()`.
const PASS_IDS: [&str; 4] = ["9a", "9b", "9c", "9d"];
const PRUNE_IDS: [&str; 4] = ["9e", "9f", "9g", "9h"];
const PROVIDER_IDS: [&str; 4] = ["9i", "9j", "9k", "9l"];
const BRANCH_IDS: [&str; 4] = ["10a", "10b", "10c", "10d"];

/// Extension counts of row 11, and the row ids per count (startup, RSS, tool call).
const MANY: [usize; 3] = [1, 5, 20];
const MANY_STARTUP_IDS: [&str; 3] = ["11a", "11b", "11c"];
const MANY_RSS_IDS: [&str; 3] = ["11d", "11e", "11f"];
const MANY_CALL_IDS: [&str; 3] = ["11g", "11h", "11i"];

/// `session_branch()` reads per `/bench-branch` command.
const BRANCH_READS: usize = 20;

/// One pi of row 9: which extension it loads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum CtxSide {
    None,
    RustPass,
    TsPass,
    RustPrune,
    TsPrune,
    RustProvider,
    TsProvider,
}

const CTX_SIDES: [CtxSide; 7] = [
    CtxSide::None,
    CtxSide::RustPass,
    CtxSide::TsPass,
    CtxSide::RustPrune,
    CtxSide::TsPrune,
    CtxSide::RustProvider,
    CtxSide::TsProvider,
];

impl CtxSide {
    /// The Rust example package (its binary's name), if this side is Rust.
    fn package(self) -> Option<&'static str> {
        match self {
            CtxSide::RustPass => Some("bench-context"),
            CtxSide::RustPrune => Some("bench-prune"),
            CtxSide::RustProvider => Some("bench-provider"),
            _ => None,
        }
    }

    /// The TypeScript fixture, if this side is TypeScript.
    fn fixture(self) -> Option<&'static str> {
        match self {
            CtxSide::TsPass => Some("bench-context.ts"),
            CtxSide::TsPrune => Some("bench-prune.ts"),
            CtxSide::TsProvider => Some("bench-provider.ts"),
            _ => None,
        }
    }
}

/// What one side of row 9 measured over its counted prompts.
#[derive(Default)]
struct CtxSamples {
    /// `prompt` sent → the model request arrived.
    to_request: Vec<Duration>,
    /// Bytes the extension process read / wrote (`/proc/<pid>/io` rchar, wchar).
    read: u64,
    written: u64,
    /// The extension process's CPU, in clock ticks.
    ticks: u64,
    /// Prompts counted for `read`, `written`, `ticks`.
    prompts: u64,
    /// pi's own CPU (its Node process, in clock ticks) over the counted prompts: what the
    /// hook costs pi's thread, without the wall clock's noise.
    pi_ticks: u64,
}

/// `rchar` and `wchar` of `/proc/<pid>/io`: bytes a process read and wrote (pipes included).
fn io_bytes(pid: u32) -> Option<(u64, u64)> {
    let io = std::fs::read_to_string(format!("/proc/{pid}/io")).ok()?;
    let field = |name: &str| {
        io.lines()
            .find_map(|l| l.strip_prefix(name))
            .and_then(|v| v.trim().parse::<u64>().ok())
    };
    Some((field("rchar:")?, field("wchar:")?))
}

/// Bytes with a unit.
fn fmt_bytes(b: f64) -> String {
    if b >= 1e6 {
        format!("{:.2} MB", b / 1e6)
    } else if b >= 1e3 {
        format!("{:.1} KB", b / 1e3)
    } else {
        format!("{b:.0} B")
    }
}

// ---------------------------------------------------------------------------------------------
// Sessions in pi's format
// ---------------------------------------------------------------------------------------------

/// xorshift32: deterministic content, different in every message.
struct Rng(u32);

impl Rng {
    fn next(&mut self) -> u32 {
        let mut x = self.0;
        x ^= x << 13;
        x ^= x >> 17;
        x ^= x << 5;
        self.0 = x;
        x
    }

    /// A number in `lo..hi`.
    fn range(&mut self, lo: usize, hi: usize) -> usize {
        lo + self.next() as usize % (hi - lo).max(1)
    }

    /// Between `lo` and `hi` bytes of lowercase words in lines of up to 80 characters.
    fn text(&mut self, lo: usize, hi: usize) -> String {
        let len = self.range(lo, hi);
        const WORDS: &[&str] = &[
            "fn", "let", "self", "match", "return", "value", "error", "result", "the", "config",
            "session", "message", "index", "buffer", "parse", "write", "read", "token", "stream",
            "handler", "request", "context", "tool", "output", "line", "file", "path", "await",
        ];
        let mut out = String::with_capacity(len + 16);
        let mut line = 0;
        while out.len() < len {
            let w = WORDS[self.next() as usize % WORDS.len()];
            out.push_str(w);
            line += w.len() + 1;
            if line > 72 {
                out.push('\n');
                line = 0;
            } else {
                out.push(' ');
            }
        }
        out
    }
}

/// An ISO timestamp `seconds` after 2026-01-01T00:00:00Z (within that day).
fn iso(seconds: usize) -> String {
    let s = seconds % 86_400;
    format!(
        "2026-01-01T{:02}:{:02}:{:02}.000Z",
        s / 3600,
        s / 60 % 60,
        s % 60
    )
}

/// The messages of a realistic conversation of `n` messages: turns of a user prompt, three
/// tool calls (`read`, `bash`, `edit`) with their results, and a final answer.
fn conversation(n: usize) -> Vec<Value> {
    const EPOCH_MS: u64 = 1_767_225_600_000; // 2026-01-01T00:00:00Z
    let mut rng = Rng(0x9e37_79b9);
    let mut out = Vec::with_capacity(n);
    let mut tool_results = 0usize;
    let usage = |input: usize, output: usize| {
        json!({"input": input, "output": output, "cacheRead": 0, "cacheWrite": 0,
               "totalTokens": input + output,
               "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "total": 0}})
    };
    while out.len() < n {
        let ts = |out: &Vec<Value>| EPOCH_MS + out.len() as u64 * 1000;
        out.push(
            json!({"role": "user", "content": [{"type": "text", "text": rng.text(60, 400)}],
                        "timestamp": ts(&out)}),
        );
        for tool in ["read", "bash", "edit"] {
            if out.len() >= n {
                break;
            }
            let id = format!("call_{}", out.len());
            let path = format!("src/module_{}.rs", rng.range(0, 200));
            let arguments = match tool {
                "read" => json!({"path": path}),
                "bash" => {
                    json!({"command": format!("cargo test -p crate_{} 2>&1 | tail -n 80", rng.range(0, 9))})
                }
                _ => {
                    json!({"path": path, "edits": [{"oldText": rng.text(60, 61), "newText": rng.text(70, 71)}]})
                }
            };
            out.push(json!({"role": "assistant",
                "content": [{"type": "text", "text": rng.text(40, 200)},
                            {"type": "toolCall", "id": id, "name": tool, "arguments": arguments}],
                "api": "openai-completions", "provider": "fake", "model": "fake-model",
                "usage": usage(out.len() * 300, 60), "stopReason": "toolUse", "timestamp": ts(&out)}));
            if out.len() >= n {
                break;
            }
            tool_results += 1;
            let big = tool_results.is_multiple_of(100);
            let (text, details) = match tool {
                "edit" => (
                    format!("Successfully replaced text in {path}."),
                    json!({"diff": rng.text(600, 2500), "firstChangedLine": rng.range(1, 400)}),
                ),
                _ if big => (
                    rng.text(50_000, 50_001),
                    json!({"truncation": {"truncated": true, "truncatedBy": "lines", "totalLines": 4000,
                                          "totalBytes": 200_000, "outputLines": 1000, "outputBytes": 50_000,
                                          "lastLinePartial": false, "firstLineExceedsLimit": false,
                                          "maxLines": 1000, "maxBytes": 51_200},
                           "fullOutputPath": format!("/tmp/pi-bash-{tool_results}.log")}),
                ),
                _ => (rng.text(300, 3000), Value::Null),
            };
            let mut result = json!({"role": "toolResult", "toolCallId": id, "toolName": tool,
                "content": [{"type": "text", "text": text}], "isError": false, "timestamp": ts(&out)});
            if !details.is_null() {
                result["details"] = details;
            }
            out.push(result);
        }
        if out.len() < n {
            out.push(json!({"role": "assistant", "content": [{"type": "text", "text": rng.text(150, 900)}],
                "api": "openai-completions", "provider": "fake", "model": "fake-model",
                "usage": usage(out.len() * 300, 200), "stopReason": "stop", "timestamp": ts(&out)}));
        }
    }
    // A conversation ends with an answer: pi's tree navigation to a user message would move
    // the leaf to its parent (see `Bench::reset_leaf`).
    if out.last().is_some_and(|m| m["role"] == "user") {
        let ts = out.last().map_or(Value::Null, |m| m["timestamp"].clone());
        *out.last_mut().unwrap() = json!({"role": "assistant", "content": [{"type": "text", "text": rng.text(150, 900)}],
            "api": "openai-completions", "provider": "fake", "model": "fake-model",
            "usage": usage(n * 300, 200), "stopReason": "stop", "timestamp": ts});
    }
    out
}

/// Writes a session of `n` messages in pi's format to `path` (header, a model change, one
/// `message` entry per message, each the child of the one before); returns its size in bytes
/// and the id of its last entry.
pub(super) fn write_session(path: &Path, n: usize, cwd: &Path) -> (u64, String) {
    let mut text = String::new();
    let header = json!({"type": "session", "version": 3, "id": "bench-session-0000-0000-000000000000",
                        "timestamp": iso(0), "cwd": cwd});
    text.push_str(&header.to_string());
    text.push('\n');
    let mut parent = "00000001".to_owned();
    let model = json!({"type": "model_change", "id": parent, "parentId": null, "timestamp": iso(0),
                       "provider": "fake", "modelId": "fake-model"});
    text.push_str(&model.to_string());
    text.push('\n');
    for (i, message) in conversation(n).into_iter().enumerate() {
        let id = format!("{:08x}", 0x1000_0000 + i);
        let entry = json!({"type": "message", "id": id, "parentId": parent,
                           "timestamp": iso(i + 1), "message": message});
        text.push_str(&entry.to_string());
        text.push('\n');
        parent = id;
    }
    std::fs::write(path, &text).unwrap_or_else(|e| panic!("write {}: {e}", path.display()));
    (text.len() as u64, parent)
}

// ---------------------------------------------------------------------------------------------
// Rows 9 and 10
// ---------------------------------------------------------------------------------------------

impl Bench {
    /// Rows 9 and 10: hooks on the conversation and session reads, at each session size.
    pub(super) fn rows9_10_session_sizes(&mut self, rows: &std::collections::HashSet<u32>) {
        progress("rows 9/10: building and installing bench-context, bench-prune, bench-provider");
        let bridges: Vec<(CtxSide, PathBuf)> = CTX_SIDES
            .iter()
            .filter_map(|&s| s.package().map(|p| (s, self.install_bridge(p))))
            .collect();
        let sizes: &[usize] = if self.opts.smoke { &SIZES[..1] } else { &SIZES };
        // Each side runs in several pi processes, one after the other, and the samples are
        // pooled: at 5,000 messages one pi process can be a few ms faster or slower than
        // another for the whole of its run (the baseline's pi as much as a hook's), which is
        // more than the targets.
        let (warmup, samples, groups) = match (rows.contains(&9), self.opts.smoke) {
            (false, _) => (0, 0, 1),
            (true, true) => (1, 2, 1),
            (true, false) => (3, 15, 3),
        };
        // What the pass-through Rust hook adds at the smallest size (the target's baseline).
        let mut first_pass = None;
        for (k, &size) in sizes.iter().enumerate() {
            progress(&format!(
                "rows 9/10: a session of {size} messages, seven pis (Rust, TS, none × pass-through context, pruning context, before_provider_request), {groups} time(s)"
            ));
            let model = ScriptedModel::start();
            let env = PiEnv::new(&model);
            // pi is not asked to fit the context window: no model would take 5,000 messages.
            env.edit_models(|m| {
                m["providers"]["fake"]["models"][0]["contextWindow"] = json!(100_000_000)
            });
            let sessions = env.root().join("sessions");
            std::fs::create_dir_all(&sessions).expect("mkdir sessions");
            let template = sessions.join("template.jsonl");
            let (file_bytes, leaf) = write_session(&template, size, &env.cwd());
            let mut measured: Vec<CtxSamples> =
                CTX_SIDES.iter().map(|_| Default::default()).collect();
            for group in 0..groups {
                let pis: Vec<(CtxSide, PiRpc)> = CTX_SIDES
                    .iter()
                    .map(|&side| {
                        let file = sessions.join(format!("{side:?}-{group}.jsonl"));
                        std::fs::copy(&template, &file).expect("copy the session");
                        let mut builder = env
                            .pi()
                            .no_extensions()
                            .session_dir(&sessions)
                            .arg("--session")
                            .arg(&file)
                            .env("PI_EXT_LOG_DIR", self.scratch.path())
                            .skip_message_updates()
                            .extension(fixture("bench-reset.ts"));
                        if let Some((_, bridge)) = bridges.iter().find(|(s, _)| *s == side) {
                            builder = builder.extension(bridge);
                        }
                        if let Some(ts) = side.fixture() {
                            builder = builder.extension(fixture(ts));
                        }
                        (side, builder.spawn())
                    })
                    .collect();
                for (_, pi) in &pis {
                    pi.wait_ready(pi_ext_e2e::STARTUP_TIMEOUT);
                }
                for round in 0..warmup + samples {
                    let counted = round >= warmup;
                    for j in 0..pis.len() {
                        let k = (j + round) % pis.len();
                        let (side, pi) = &pis[k];
                        let child = side
                            .package()
                            .and_then(|p| find_child(pi.pid(), &process_comm(p)));
                        let before = child.map(|c| (io_bytes(c), cpu_ticks(c)));
                        let pi_before = cpu_ticks(pi.pid());
                        model.push(Reply::text("ok"));
                        let sent = Instant::now();
                        pi.prompt_timeout("one more question", PROMPT_TIMEOUT);
                        let arrived = model
                            .take_recorded()
                            .last()
                            .map(|r| r.received)
                            .expect("the model request");
                        let pi_after = cpu_ticks(pi.pid());
                        reset_leaf(pi, &leaf);
                        if !counted {
                            continue;
                        }
                        let m = &mut measured[k];
                        m.to_request.push(arrived - sent);
                        if let (Some(t0), Some(t1)) = (pi_before, pi_after) {
                            m.pi_ticks += t1 - t0;
                        }
                        if let (Some(c), Some((Some((r0, w0)), Some(t0)))) = (child, before) {
                            if let (Some((r1, w1)), Some(t1)) = (io_bytes(c), cpu_ticks(c)) {
                                m.read += r1 - r0;
                                m.written += w1 - w0;
                                m.ticks += t1 - t0;
                                m.prompts += 1;
                            }
                        }
                    }
                }
                if group == 0 && rows.contains(&10) {
                    self.row9_branch(k, size, &pis);
                }
                drop(pis);
            }
            if samples > 0 {
                self.report_sizes(k, size, file_bytes, &measured, &mut first_pass);
            }
        }
    }

    /// The rows of one session size.
    fn report_sizes(
        &mut self,
        k: usize,
        size: usize,
        file_bytes: u64,
        measured: &[CtxSamples],
        first_pass: &mut Option<f64>,
    ) {
        let of = |side: CtxSide| &measured[CTX_SIDES.iter().position(|s| *s == side).unwrap()];
        let none = summarize(&of(CtxSide::None).to_request);
        let added = |s: &Summary| ms(s.median) - ms(none.median);
        // pi's CPU per counted prompt, in ms (`/proc/<pid>/stat`, 10 ms ticks summed over the
        // prompts).
        let pi_cpu = |m: &CtxSamples| {
            m.pi_ticks as f64 * 1000.0 / clock_ticks_per_second() / m.to_request.len().max(1) as f64
        };
        let none_cpu = pi_cpu(of(CtxSide::None));
        let rust_cell = |m: &CtxSamples| {
            let s = summarize(&m.to_request);
            let per = m.prompts.max(1) as f64;
            format!(
                "{} ({:+.3} ms vs none); per request: {} in, {} out, extension CPU {:.1} ms, pi's CPU {:+.1} ms vs none",
                fmt_summary(&s),
                added(&s),
                fmt_bytes(m.read as f64 / per),
                fmt_bytes(m.written as f64 / per),
                m.ticks as f64 * 1000.0 / clock_ticks_per_second() / per,
                pi_cpu(m) - none_cpu
            )
        };
        let ts_cell = |m: &CtxSamples| {
            let s = summarize(&m.to_request);
            format!(
                "{} ({:+.3} ms vs none); pi's CPU {:+.1} ms vs none",
                fmt_summary(&s),
                added(&s),
                pi_cpu(m) - none_cpu
            )
        };
        let what = |hook: &str| {
            format!(
                "{hook}, session of {} messages ({} file): `prompt` → model request (no hook: {}; pi's CPU per prompt {none_cpu:.1} ms)",
                fmt_count(size as f64),
                fmt_bytes(file_bytes as f64),
                fmt_summary(&none)
            )
        };
        let last = size == SIZES[SIZES.len() - 1];
        let rust_pass = summarize(&of(CtxSide::RustPass).to_request);
        let first_pass = *first_pass.get_or_insert(added(&rust_pass));
        let pass_verdict = if !last {
            Verdict::Info
        } else {
            let a = added(&rust_pass);
            let mut missed = Vec::new();
            if a > 1.0 {
                missed.push(format!("adds {a:+.3} ms (> 1 ms)"));
            }
            if a > 2.0 * first_pass.max(0.0) {
                missed.push(format!(
                    "{a:+.3} ms > 2 × the 10-message figure ({first_pass:+.3} ms)"
                ));
            }
            if missed.is_empty() {
                Verdict::Met
            } else {
                Verdict::Missed(missed.join("; "))
            }
        };
        let ratio = |r: CtxSide, t: CtxSide| {
            let (r, t) = (summarize(&of(r).to_request), summarize(&of(t).to_request));
            super::ratio(r.median, t.median)
        };
        self.report.row(Row {
            id: PASS_IDS[k],
            what: what("pass-through `context` hook"),
            rust: rust_cell(of(CtxSide::RustPass)),
            ts: ts_cell(of(CtxSide::TsPass)),
            ratio: ratio(CtxSide::RustPass, CtxSide::TsPass),
            target: if last {
                "at 5,000 messages: adds ≤ 1 ms and ≤ 2× the 10-message figure (median); bytes ∝ new messages".into()
            } else {
                "—".into()
            },
            verdict: pass_verdict,
        });
        let prune = summarize(&of(CtxSide::RustPrune).to_request);
        self.report.row(Row {
            id: PRUNE_IDS[k],
            what: what("pruning `context` hook (tool output older than the last 40 messages → placeholder)"),
            rust: rust_cell(of(CtxSide::RustPrune)),
            ts: ts_cell(of(CtxSide::TsPrune)),
            ratio: ratio(CtxSide::RustPrune, CtxSide::TsPrune),
            target: if last { "at 5,000 messages: ≤ 3 ms (median)".into() } else { "—".into() },
            verdict: if !last {
                Verdict::Info
            } else if added(&prune) <= 3.0 {
                Verdict::Met
            } else {
                Verdict::Missed(format!("adds {:+.3} ms (> 3 ms)", added(&prune)))
            },
        });
        self.report.row(Row {
            id: PROVIDER_IDS[k],
            what: what("pass-through `before_provider_request` hook"),
            rust: rust_cell(of(CtxSide::RustProvider)),
            ts: ts_cell(of(CtxSide::TsProvider)),
            ratio: ratio(CtxSide::RustProvider, CtxSide::TsProvider),
            target: "—".into(),
            verdict: Verdict::Info,
        });
    }

    /// Row 10 at one size: `/bench-branch` in the Rust pass-through pi and in the TS one.
    fn row9_branch(&mut self, k: usize, size: usize, pis: &[(CtxSide, PiRpc)]) {
        let run = |side: CtxSide| -> (usize, Vec<f64>) {
            let (_, pi) = pis.iter().find(|(s, _)| *s == side).expect("the pi");
            let mark = pi.mark();
            let id = pi.send(
                json!({"type": "prompt", "message": format!("/bench-branch {BRANCH_READS}")}),
            );
            pi.response(&id, PROMPT_TIMEOUT);
            let note = pi.wait_event_since(
                mark,
                |e| {
                    e["type"] == "extension_ui_request"
                        && e["method"] == "notify"
                        && e["message"]
                            .as_str()
                            .is_some_and(|m| m.starts_with("bench-branch "))
                },
                PROMPT_TIMEOUT,
            );
            let report: Value = serde_json::from_str(
                note["message"]
                    .as_str()
                    .unwrap_or_default()
                    .trim_start_matches("bench-branch "),
            )
            .expect("the bench-branch report");
            let us = report["us"]
                .as_array()
                .map(|a| a.iter().filter_map(Value::as_f64).collect())
                .unwrap_or_default();
            (report["entries"].as_u64().unwrap_or(0) as usize, us)
        };
        let (entries, rust) = run(CtxSide::RustPass);
        let (ts_entries, ts) = run(CtxSide::TsPass);
        assert_eq!(entries, ts_entries, "Rust and TS branches differ in length");
        let after_first = |v: &[f64]| {
            summarize(
                &v.iter()
                    .skip(1)
                    .map(|us| Duration::from_secs_f64(us / 1e6))
                    .collect::<Vec<_>>(),
            )
        };
        let (r, t) = (after_first(&rust), after_first(&ts));
        let last = size == SIZES[SIZES.len() - 1];
        self.report.row(Row {
            id: BRANCH_IDS[k],
            what: format!(
                "`session_branch()` on a branch of {} entries (session of {} messages), {} reads in a row: first / each after the first",
                fmt_count(entries as f64),
                fmt_count(size as f64),
                rust.len()
            ),
            rust: format!(
                "{} ms / {}",
                fmt_ms(Duration::from_secs_f64(rust.first().copied().unwrap_or(0.0) / 1e6)),
                fmt_summary(&r)
            ),
            ts: format!(
                "{} ms / {} (`ctx.sessionManager.getBranch()`)",
                fmt_ms(Duration::from_secs_f64(ts.first().copied().unwrap_or(0.0) / 1e6)),
                fmt_summary(&t)
            ),
            ratio: super::ratio(r.median, t.median),
            target: if last { "after the first read: ≤ 1 ms at 5,000 entries".into() } else { "—".into() },
            verdict: if !last {
                Verdict::Info
            } else if r.median <= Duration::from_millis(1) {
                Verdict::Met
            } else {
                Verdict::Missed(format!("{} ms > 1 ms", fmt_ms(r.median)))
            },
        });
    }

    // -----------------------------------------------------------------------------------------
    // Row 11
    // -----------------------------------------------------------------------------------------

    /// Row 11: many extensions in one pi.
    pub(super) fn row11_many_extensions(&mut self) {
        progress("row 11: building bench-many and installing its copies");
        let binary = example_binary("bench-many");
        let counts: &[usize] = if self.opts.smoke { &[1, 2] } else { &MANY };
        let max = *counts.iter().max().unwrap();
        let dir = self.scratch.path().join("many");
        let bin_dir = dir.join("bin");
        let ext_dir = dir.join("ext");
        let ts_dir = dir.join("ts");
        for d in [&bin_dir, &ext_dir, &ts_dir] {
            std::fs::create_dir_all(d).expect("mkdir");
        }
        let install = |name: &str| -> PathBuf {
            let copy = bin_dir.join(name);
            std::fs::copy(&binary, &copy).expect("copy bench-many");
            let status = Command::new(&copy)
                .arg("install")
                .arg("--dir")
                .arg(&ext_dir)
                .stdout(Stdio::null())
                .status()
                .expect("install a bench-many copy");
            assert!(status.success(), "{name} install failed");
            ext_dir.join(name).join("index.js")
        };
        let separate: Vec<PathBuf> = (1..=max)
            .map(|i| install(&format!("bench-many-{i:02}")))
            .collect();
        let hosts: Vec<PathBuf> = counts
            .iter()
            .map(|n| install(&format!("bench-many-host-{n}")))
            .collect();
        let ts: Vec<PathBuf> = (1..=max)
            .map(|i| {
                let file = ts_dir.join(format!("m{i:02}.ts"));
                std::fs::write(&file, ts_many_source(i)).expect("write a TS extension");
                file
            })
            .collect();
        // As many as row 4: at 1 ms resolution and with a spread of several ms between pis,
        // 8 rounds gave medians that moved by 10 ms between runs of the same code.
        let rounds = if self.opts.smoke { 1 } else { 20 };
        let model = ScriptedModel::start();
        let env = PiEnv::new(&model);
        for (k, &n) in counts.iter().enumerate() {
            progress(&format!(
                "row 11: {n} extension(s): separate Rust binaries, one Rust host, TypeScript"
            ));
            // [separate, host, ts]
            let mut work: [Vec<Duration>; 3] = Default::default();
            let mut rss: [Vec<u64>; 3] = Default::default();
            let mut host_rss: Vec<u64> = Vec::new();
            let mut call: [Vec<Duration>; 3] = Default::default();
            // One warm-up round (jiti's transform cache, the disk cache), not counted.
            for round in 0..rounds + 1 {
                for j in 0..3 {
                    let side = (j + round) % 3;
                    let extensions: Vec<&PathBuf> = match side {
                        0 => separate[..n].iter().collect(),
                        1 => vec![&hosts[k]],
                        _ => ts[..n].iter().collect(),
                    };
                    let mut builder = env
                        .pi()
                        .no_extensions()
                        .env("PI_EXT_LOG_DIR", self.scratch.path())
                        .env("PI_TIMING", "1");
                    for e in extensions {
                        builder = builder.extension(e);
                    }
                    let pi = builder.start();
                    let startup = pi_timing_total(&pi);
                    let tool = if side == 2 {
                        format!("t{n:02}_trivial")
                    } else {
                        format!("m{n:02}_trivial")
                    };
                    // The first call may wait for the processes' handshakes: not counted.
                    let mut calls = Vec::new();
                    for c in 0..4 {
                        calls.push(self.many_call(&pi, &model, &tool, c));
                    }
                    let total = tree_rss_kib(pi.pid());
                    let host = (side == 1)
                        .then(|| {
                            find_child(pi.pid(), &process_comm(&format!("bench-many-host-{n}")))
                        })
                        .flatten()
                        .and_then(rss_kib);
                    // A clean exit (stdin closed), so that `node --cpu-prof` can write its
                    // profile (scripts/profile-pi.sh); killed after 2 s.
                    drop(pi);
                    if round == 0 {
                        continue;
                    }
                    work[side].push(startup);
                    rss[side].push(total);
                    if let Some(h) = host {
                        host_rss.push(h);
                    }
                    call[side].extend_from_slice(&calls[1..]);
                }
            }
            let median = |v: &mut Vec<u64>| {
                v.sort();
                v.get(v.len() / 2).copied().unwrap_or(0)
            };
            let [ws, wh, wt] = work.map(|v| summarize(&v));
            let mut missed = Vec::new();
            if n == 20 {
                for (label, s) in [("separate binaries", &ws), ("host binary", &wh)] {
                    if ms(s.median) > ms(wt.median) + 20.0 {
                        missed.push(format!(
                            "{label}: {} ms > TS {} ms + 20 ms",
                            fmt_ms(s.median),
                            fmt_ms(wt.median)
                        ));
                    }
                }
            }
            self.report.row(Row {
                id: MANY_STARTUP_IDS[k],
                what: format!("{n} extension(s): pi's own startup work, `PI_TIMING=1` TOTAL (1 ms resolution)"),
                rust: format!("separate binaries: {} / one host binary: {}", fmt_summary(&ws), fmt_summary(&wh)),
                ts: fmt_summary(&wt),
                ratio: super::ratio(ws.median, wt.median),
                target: if n == 20 { "20 Rust extensions: ≤ TS + 20 ms".into() } else { "—".into() },
                verdict: if n != 20 {
                    Verdict::Info
                } else if missed.is_empty() {
                    Verdict::Met
                } else {
                    Verdict::Missed(missed.join("; "))
                },
            });
            let [mut rs, mut rh, mut rt] = rss;
            let host_idle = median(&mut host_rss);
            let (rs, rh, rt) = (median(&mut rs), median(&mut rh), median(&mut rt));
            let mib = |k: u64| k as f64 / 1024.0;
            self.report.row(Row {
                id: MANY_RSS_IDS[k],
                what: format!("{n} extension(s): total RSS of pi and its extension processes after the tool calls (median)"),
                rust: format!(
                    "separate binaries: {:.1} MiB / one host binary: {:.1} MiB (the host process alone: {:.2} MB)",
                    mib(rs),
                    mib(rh),
                    host_idle as f64 * 1024.0 / 1e6
                ),
                ts: format!("{:.1} MiB", mib(rt)),
                ratio: "—".into(),
                target: if n == 20 { "a host binary serving 20 idles at ≤ 8 MB".into() } else { "—".into() },
                verdict: if n != 20 {
                    Verdict::Info
                } else if host_idle as f64 * 1024.0 <= 8e6 {
                    Verdict::Met
                } else {
                    Verdict::Missed(format!("{:.2} MB > 8 MB", host_idle as f64 * 1024.0 / 1e6))
                },
            });
            let [cs, ch, ct] = call.map(|v| summarize(&v));
            self.report.row(Row {
                id: MANY_CALL_IDS[k],
                what: format!("{n} extension(s): a trivial tool of the last-loaded one, `tool_execution_start` → `tool_execution_end`"),
                rust: format!("separate binaries: {} / one host binary: {}", fmt_summary(&cs), fmt_summary(&ch)),
                ts: fmt_summary(&ct),
                ratio: super::ratio(cs.median, ct.median),
                target: "—".into(),
                verdict: Verdict::Info,
            });
        }
    }

    /// One prompt that calls `tool`; returns `tool_execution_start` → `tool_execution_end`.
    fn many_call(&self, pi: &PiRpc, model: &ScriptedModel, tool: &str, c: usize) -> Duration {
        let id = format!("call_{tool}_{c}");
        let t = self.tool_prompt(pi, model, &id, tool, json!({"n": c}));
        assert_eq!(t.result_text, format!("ok {c}"), "{tool}");
        t.tool_end - t.tool_start
    }
}

/// Moves `pi`'s session leaf back to `leaf` (`/bench-reset`, `tests/fixtures/bench-reset.ts`):
/// each measured prompt then sees the same conversation.
fn reset_leaf(pi: &PiRpc, leaf: &str) {
    let id = pi.send(json!({"type": "prompt", "message": format!("/bench-reset {leaf}")}));
    let response = pi.response(&id, PROMPT_TIMEOUT);
    assert!(
        response["success"] == true,
        "/bench-reset failed: {response}"
    );
}

/// A TypeScript extension with one tool, `t<i>_trivial`.
fn ts_many_source(i: usize) -> String {
    format!(
        r#"import {{ Type }} from "typebox";
import type {{ ExtensionAPI }} from "@mariozechner/pi-coding-agent";

export default function many(pi: ExtensionAPI) {{
	pi.registerTool({{
		name: "t{i:02}_trivial",
		label: "t{i:02}_trivial",
		description: "Return `ok <n>` at once: the cheapest possible tool call.",
		parameters: Type.Object({{ n: Type.Integer() }}),
		async execute(_id, params) {{
			return {{ content: [{{ type: "text", text: `ok ${{params.n}}` }}], details: {{}} }};
		}},
	}});
}}
"#
    )
}

/// VmRSS of `pid` and all its descendants, in KiB.
fn tree_rss_kib(pid: u32) -> u64 {
    let mut total = rss_kib(pid).unwrap_or(0);
    for child in children(pid) {
        total += tree_rss_kib(child);
    }
    total
}

/// The direct children of `pid` (from `/proc/<pid>/task/*/children`).
fn children(pid: u32) -> Vec<u32> {
    let mut out = Vec::new();
    let Ok(tasks) = std::fs::read_dir(format!("/proc/{pid}/task")) else {
        return out;
    };
    for task in tasks.flatten() {
        if let Ok(list) = std::fs::read_to_string(task.path().join("children")) {
            out.extend(
                list.split_whitespace()
                    .filter_map(|p| p.parse::<u32>().ok()),
            );
        }
    }
    out
}
