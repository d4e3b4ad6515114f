//! The benchmark: a Rust extension side by side with the same extension in TypeScript, inside
//! the real pinned pi driven by the scripted local model.
//!
//! ```text
//! cargo run --release -p pi-ext-e2e --bin bench                 # everything (about 11 minutes)
//! cargo run --release -p pi-ext-e2e --bin bench -- --rows 1,2,6 # some rows only
//! cargo run -p pi-ext-e2e --bin bench -- --smoke                # a few iterations (the test suite runs this)
//! ```
//!
//! The Rust extension is `tests/extensions/bench-ext` (built in this binary's profile and installed
//! with its bridge into a temporary directory), the TypeScript one `tests/fixtures/bench-ext.ts`
//! (the same tools, prefixed `ts_`). Both are loaded into one pi and measured alternately,
//! together with an ideal minimal extension behind the same bridge (this binary in
//! [`FAKE_EXTENSION_ENV`] mode: the floor any extension binary can reach) and, for row 1, a
//! TS tool that makes one round trip through a `cat` child process. BENCHMARKS.md has the
//! figures of a full run and what they show. Rows:
//!
//! 1. a trivial tool call: `tool_execution_start` → `tool_execution_end`, and `prompt` → `agent_end`;
//! 2. a tool awaiting one `confirm` dialog that the driver answers at once;
//! 3. a blocking `tool_call` hook on a built-in tool (`read`): Rust hook, TS hook, none, each
//!    in its own pi (`tests/extensions/bench-hook-gate`, `tests/fixtures/bench-hook-gate.ts`);
//! 4. extension load: pi spawn → `get_state` answered, with the Rust extension, the TS one, none;
//! 5. a `message_update` hook while thousands of deltas stream (`tests/extensions/bench-hook-stream`,
//!    `tests/fixtures/bench-hook-stream.ts`, none, and the batch form
//!    `tests/extensions/bench-hook-batch`), and the proof that without such a hook the bridge forwards
//!    no `message_update` to the binary;
//! 6. raw throughput without pi's agent loop: the binary driven directly over its protocol, the
//!    real JS bridge in Node with a fake `pi`, the same bridge with an ideal minimal extension
//!    (the floor), and a CPU-heavy tool in Rust vs TS;
//! 7. resources: idle RSS, the `hello` release binary's size, clean and incremental build times;
//! 8. pi's terminal UI: key press → repainted frame of a Rust component (`tests/extensions/tui-lab`'s
//!    counter) and of its TypeScript twin (`tests/fixtures/bench-tui.ts`) in a pseudo-terminal,
//!    and what the bridge's cached frame costs pi per repaint (`tests/src/bench_tui.rs`);
//! 9. `context` hooks (pass-through, pruning) and a `before_provider_request` hook on sessions of
//!    10 to 5,000 messages (`tests/extensions/bench-context`, `bench-prune`, `bench-provider` and their
//!    TS twins, none), with the bytes over the pipe and the extension's CPU per request;
//! 10. `session_branch()` on the same sessions;
//! 11. 1, 5 and 20 extensions: separate Rust binaries, one Rust host binary, TypeScript files
//!     (`tests/extensions/bench-many`): pi's startup work, total RSS, a tool call in the last-loaded one.
//!
//! Rows 9–11 live in `tests/src/bench/scaling.rs`.
//!
//! Results are printed as one Markdown table on stdout (progress goes to stderr): each figure
//! is `median / p90 / p99` unless said otherwise, next to its target and whether it is met.
//! Targets are reported, never enforced: the exit code is 0 whenever everything ran.
//! With `--smoke`, few iterations run, build times are skipped and targets are not judged.
//!
//! For experiments, `PI_EXT_BENCH_TS=<file.ts>` loads another TypeScript extension in place of
//! `tests/fixtures/bench-ext.ts` (it must have the same `ts_*` tools).

use std::collections::HashSet;
use std::ffi::{OsStr, OsString};
use std::io::{BufRead, BufReader, Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::time::{Duration, Instant};

use pi_ext_e2e::{example_binary, fixture, repo_root, PiEnv, PiRpc, Reply, ScriptedModel};
use serde_json::{json, Value};

#[path = "../bench/scaling.rs"]
mod scaling;

/// The highest row number.
const LAST_ROW: u32 = 11;

/// The wire protocol version (`pi_ext::protocol::PROTOCOL_VERSION`) that row 6
/// and the ideal extension speak directly; the bench does not link pi-ext.
const PROTOCOL_VERSION: u32 = 2;
/// When this variable is set, the binary is not the benchmark but an ideal minimal extension
/// (one thread, no async runtime) that the bench runs behind the real bridge to find the floor.
const FAKE_EXTENSION_ENV: &str = "PI_EXT_BENCH_FAKE_EXTENSION";

/// Tool-name prefix of the ideal extension (default none: `trivial`, `confirm_once`).
const FAKE_PREFIX_ENV: &str = "PI_EXT_BENCH_FAKE_PREFIX";

/// Row 6i: the time between two requests to the same process.
const PACED_GAP: Duration = Duration::from_millis(20);

/// Row 6i: requests per process before the counted ones.
const PACED_WARMUP: usize = 20;

/// The prefix the ideal extension gets inside pi, next to the Rust one.
const FLOOR_PREFIX: &str = "floor_";

/// Rounds of prompts between two `new_session`s (see [`Bench::measure_in_pi`]).
const ROUNDS_PER_SESSION: usize = 20;

/// How long one prompt may take before the bench gives up.
const PROMPT_TIMEOUT: Duration = Duration::from_secs(60);

/// Rounds of streamed answers between two `new_session`s in row 5 (each answer is long).
const STREAM_ROUNDS_PER_SESSION: usize = 5;

/// The needle `cpu_hash` counts.
const NEEDLE: &str = "pie";

#[path = "../bench_tui.rs"]
mod tui;

fn main() {
    if std::env::var_os(FAKE_EXTENSION_ENV).is_some() {
        fake_extension();
        return;
    }
    let opts = Options::parse();
    let mut bench = Bench::prepare(opts);
    bench.run();
}

// ---------------------------------------------------------------------------------------------
// Options and sizes
// ---------------------------------------------------------------------------------------------

/// Command-line options.
struct Options {
    /// A few iterations of everything, no build times, no verdicts.
    smoke: bool,
    /// Which rows (1–[`LAST_ROW`]) to run.
    rows: HashSet<u32>,
}

impl Options {
    fn parse() -> Options {
        let mut smoke = false;
        let mut rows: HashSet<u32> = (1..=LAST_ROW).collect();
        let mut args = std::env::args().skip(1);
        while let Some(arg) = args.next() {
            match arg.as_str() {
                "--smoke" => smoke = true,
                "--rows" => {
                    let list = args.next().unwrap_or_else(|| usage("--rows needs a list"));
                    rows = list
                        .split(',')
                        .map(|r| {
                            r.trim()
                                .parse()
                                .ok()
                                .filter(|n| (1..=LAST_ROW).contains(n))
                                .unwrap_or_else(|| usage(&format!("bad row {r:?}")))
                        })
                        .collect();
                }
                "-h" | "--help" => {
                    println!("{}", USAGE);
                    std::process::exit(0);
                }
                other => usage(&format!("unknown argument {other:?}")),
            }
        }
        Options { smoke, rows }
    }
}

const USAGE: &str = "usage: bench [--smoke] [--rows 1,2,3,5]
  cargo run --release -p pi-ext-e2e --bin bench    the full benchmark (use --release)
  --smoke      a few iterations of every row, no build times, targets not judged
  --rows LIST  only these rows (1-11)";

fn usage(problem: &str) -> ! {
    eprintln!("bench: {problem}\n{USAGE}");
    std::process::exit(2);
}

/// Iteration counts: the full run, or the smoke run.
struct Sizes {
    warmup: usize,
    trivial: usize,
    dialog: usize,
    load_rounds: usize,
    direct_calls: usize,
    bridge_calls: usize,
    window: usize,
    cpu_mb: u32,
    cpu_iterations: usize,
    /// Row 3: counted `read` calls per side.
    hook_calls: usize,
    /// Row 5: text deltas in each streamed answer.
    deltas: usize,
    /// Row 5: streamed answers per side not counted at the start.
    stream_warmup: usize,
    /// Row 5: streamed answers counted per side, over all its pis.
    stream_rounds: usize,
    /// Row 5: pis started one after the other for each side, each counting its share of
    /// `stream_rounds`.
    stream_pis: usize,
    /// Row 6i: counted requests per series, one every [`PACED_GAP`].
    paced_calls: usize,
}

impl Sizes {
    fn new(smoke: bool) -> Sizes {
        if smoke {
            Sizes {
                warmup: 1,
                trivial: 3,
                dialog: 3,
                load_rounds: 1,
                direct_calls: 300,
                bridge_calls: 300,
                window: 8,
                cpu_mb: 1,
                cpu_iterations: 2,
                hook_calls: 3,
                deltas: 200,
                stream_warmup: 1,
                stream_rounds: 2,
                stream_pis: 1,
                paced_calls: 10,
            }
        } else {
            Sizes {
                warmup: 20,
                trivial: 300,
                dialog: 200,
                load_rounds: 20,
                direct_calls: 50_000,
                bridge_calls: 20_000,
                window: 32,
                cpu_mb: 4,
                cpu_iterations: 15,
                hook_calls: 200,
                deltas: 3000,
                stream_warmup: 3,
                // 30 answers per side gave medians a few percent apart between runs of
                // the same code, as large as the 5 % target.
                stream_rounds: 60,
                // One pi's speed moved the median of its answers by more than the target
                // between runs (5a +2.4 %, +9.2 %, +5.0 % in three runs of 30 answers).
                stream_pis: 3,
                paced_calls: 300,
            }
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Statistics and the report
// ---------------------------------------------------------------------------------------------

/// Median, p90 and p99 (nearest rank) of a sample.
#[derive(Debug, Clone, Copy)]
struct Summary {
    n: usize,
    median: Duration,
    p90: Duration,
    p99: Duration,
}

fn summarize(samples: &[Duration]) -> Summary {
    assert!(!samples.is_empty(), "no samples");
    let mut v = samples.to_vec();
    v.sort();
    let at = |p: f64| v[((v.len() as f64 - 1.0) * p).round() as usize];
    Summary {
        n: v.len(),
        median: at(0.5),
        p90: at(0.9),
        p99: at(0.99),
    }
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

/// A duration in milliseconds, with precision that suits its size.
fn fmt_ms(d: Duration) -> String {
    let v = ms(d);
    if v < 10.0 {
        format!("{v:.3}")
    } else if v < 100.0 {
        format!("{v:.2}")
    } else {
        format!("{v:.0}")
    }
}

fn fmt_summary(s: &Summary) -> String {
    format!(
        "{} / {} / {} ms (n={})",
        fmt_ms(s.median),
        fmt_ms(s.p90),
        fmt_ms(s.p99),
        s.n
    )
}

fn ratio(rust: Duration, ts: Duration) -> String {
    if ts.is_zero() {
        "—".into()
    } else {
        format!("{:.2}×", rust.as_secs_f64() / ts.as_secs_f64())
    }
}

/// Thousands separators for a count.
fn fmt_count(n: f64) -> String {
    let s = format!("{:.0}", n);
    let mut out = String::new();
    for (i, c) in s.chars().enumerate() {
        if i > 0 && (s.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// Whether a figure meets its target.
enum Verdict {
    /// Met.
    Met,
    /// Missed, with the numbers.
    Missed(String),
    /// No target: shown for information or diagnosis.
    Info,
}

/// One line of the result table.
struct Row {
    id: &'static str,
    what: String,
    rust: String,
    ts: String,
    ratio: String,
    target: String,
    verdict: Verdict,
}

impl Row {
    /// A row comparing two measured sides: both summaries and the ratio of their medians.
    fn compared(
        id: &'static str,
        what: impl Into<String>,
        rust: &Summary,
        ts: &Summary,
        target: &str,
        verdict: Verdict,
    ) -> Self {
        Self {
            id,
            what: what.into(),
            rust: fmt_summary(rust),
            ts: fmt_summary(ts),
            ratio: ratio(rust.median, ts.median),
            target: target.into(),
            verdict,
        }
    }
}

/// The report: each row goes to stderr as soon as it is measured; at the end, the whole table,
/// sorted by row, goes to stdout (Markdown).
struct Report {
    smoke: bool,
    /// Machine, toolchain and command (a Markdown list).
    preamble: String,
    /// `(id, table line)`.
    lines: Vec<(&'static str, String)>,
    notes: Vec<String>,
    missed: Vec<String>,
}

impl Report {
    fn row(&mut self, row: Row) {
        let verdict = match (&row.verdict, self.smoke) {
            (Verdict::Info, _) => "—".to_owned(),
            (_, true) => "not judged (smoke)".to_owned(),
            (Verdict::Met, false) => "met".to_owned(),
            (Verdict::Missed(why), false) => {
                self.missed.push(format!("{} {}: {why}", row.id, row.what));
                format!("**missed**: {why}")
            }
        };
        let line = format!(
            "| {} | {} | {} | {} | {} | {} | {} |",
            row.id, row.what, row.rust, row.ts, row.ratio, row.target, verdict
        );
        eprintln!("{line}");
        self.lines.push((row.id, line));
    }

    fn note(&mut self, note: String) {
        self.notes.push(note);
    }

    fn print(&mut self) {
        println!("# pi-ext benchmark: Rust extension vs the same extension in TypeScript\n");
        println!("{}", self.preamble);
        println!(
            "- figures are `median / p90 / p99 (n=samples)` unless said otherwise; Rust/TS is the ratio of the medians"
        );
        if self.smoke {
            println!("- **smoke run**: a few iterations only, targets not judged");
        }
        println!();
        println!("| # | measurement | Rust | TypeScript | Rust/TS | target | result |");
        println!("|---|---|---|---|---|---|---|");
        // By row number, then by the letter after it ("9a" before "10a").
        self.lines.sort_by_key(|(id, _)| {
            let digits = id.len() - id.trim_start_matches(|c: char| c.is_ascii_digit()).len();
            (
                id[..digits].parse::<u32>().unwrap_or(0),
                id[digits..].to_owned(),
            )
        });
        for (_, line) in &self.lines {
            println!("{line}");
        }
        if !self.notes.is_empty() {
            println!("\nNotes:\n");
            for n in &self.notes {
                println!("- {n}");
            }
        }
        if !self.smoke {
            println!();
            if self.missed.is_empty() {
                println!("All measured targets met.");
            } else {
                println!("Missed targets:\n");
                for m in &self.missed {
                    println!("- {m}");
                }
            }
        }
        println!("\nbench finished");
    }
}

/// `rust_median ≤ ts_median + 0.1 ms` and, when asked, `rust_p99 ≤ 1 ms`.
fn latency_verdict(rust: &Summary, ts: &Summary, check_p99: bool) -> Verdict {
    let mut missed = Vec::new();
    let slack = Duration::from_micros(100);
    if rust.median > ts.median + slack {
        missed.push(format!(
            "Rust median {} ms > TS median {} ms + 0.1 ms (+{} ms)",
            fmt_ms(rust.median),
            fmt_ms(ts.median),
            fmt_ms(rust.median - ts.median)
        ));
    }
    if check_p99 && rust.p99 > Duration::from_millis(1) {
        missed.push(format!("Rust p99 {} ms > 1 ms", fmt_ms(rust.p99)));
    }
    if missed.is_empty() {
        Verdict::Met
    } else {
        Verdict::Missed(missed.join("; "))
    }
}

// ---------------------------------------------------------------------------------------------
// The benchmark
// ---------------------------------------------------------------------------------------------

/// Everything the rows share.
struct Bench {
    opts: Options,
    sizes: Sizes,
    report: Report,
    /// The Rust benchmark extension binary (`tests/extensions/bench-ext`).
    bench_ext: PathBuf,
    /// Holds the installed bridge and logs.
    scratch: tempfile::TempDir,
    /// The bridge `bench-ext install` wrote.
    bridge_js: PathBuf,
    /// The TypeScript twin.
    ts_ext: PathBuf,
    /// A bridge that runs this binary as the ideal extension ([`fake_extension`]).
    fake_bridge: PathBuf,
}

/// Which extension a measurement used.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Side {
    /// `tests/extensions/bench-ext` behind its bridge.
    Rust,
    /// `tests/fixtures/bench-ext.ts`.
    Ts,
    /// The ideal minimal extension ([`fake_extension`]) behind the same bridge: the floor of
    /// what any extension binary can get through the bridge.
    Floor,
    /// `ts_piped_trivial`: the TS tool plus one round trip through a `cat` child process.
    TsPiped,
}

impl Side {
    /// The tool's name on this side.
    fn tool(self, name: &str) -> String {
        match self {
            Side::Rust => name.to_owned(),
            Side::Ts => format!("ts_{name}"),
            Side::Floor => format!("{FLOOR_PREFIX}{name}"),
            Side::TsPiped => format!("ts_piped_{name}"),
        }
    }
}

/// `sides` in an order that rotates with `i` (so none always goes first).
fn rotating(i: usize, sides: &[Side]) -> Vec<Side> {
    let mut sides = sides.to_vec();
    let len = sides.len();
    sides.rotate_left(i % len);
    sides
}

/// The Rust and the TS extension, and the floor.
const ALL_SIDES: &[Side] = &[Side::Rust, Side::Ts, Side::Floor];

/// Samples per side.
#[derive(Default)]
struct PerSide<T> {
    rust: Vec<T>,
    ts: Vec<T>,
    floor: Vec<T>,
    ts_piped: Vec<T>,
}

impl<T> PerSide<T> {
    fn push(&mut self, side: Side, value: T) {
        match side {
            Side::Rust => self.rust.push(value),
            Side::Ts => self.ts.push(value),
            Side::Floor => self.floor.push(value),
            Side::TsPiped => self.ts_piped.push(value),
        }
    }
}

impl PerSide<Duration> {
    fn summaries(&self) -> (Summary, Summary, Summary) {
        (
            summarize(&self.rust),
            summarize(&self.ts),
            summarize(&self.floor),
        )
    }
}

/// What [`Bench::measure_in_pi`] measures: which tool, on which sides, how often.
struct Plan<'a> {
    /// The tool's name on the Rust side (see [`Side::tool`]).
    tool: &'a str,
    sides: &'a [Side],
    /// Rounds not counted at the start.
    warmup: usize,
    /// Rounds counted.
    iterations: usize,
}

/// When the interesting events of one prompt arrived.
struct PromptTimes {
    sent: Instant,
    tool_start: Instant,
    tool_end: Instant,
    agent_end: Instant,
    dialog_request: Option<Instant>,
    dialog_answered: Option<Instant>,
    result_text: String,
}

impl Bench {
    fn prepare(opts: Options) -> Bench {
        let sizes = Sizes::new(opts.smoke);
        let report = Report {
            smoke: opts.smoke,
            preamble: String::new(),
            lines: Vec::new(),
            notes: Vec::new(),
            missed: Vec::new(),
        };
        progress("building tests/extensions/bench-ext");
        let bench_ext = example_binary("bench-ext");
        let scratch = tempfile::Builder::new()
            .prefix("pi-ext-bench-")
            .tempdir()
            .expect("temp dir");
        let status = Command::new(&bench_ext)
            .arg("install")
            .arg("--dir")
            .arg(scratch.path())
            .stdout(Stdio::null())
            .status()
            .expect("running bench-ext install");
        assert!(status.success(), "bench-ext install failed");
        // Inside pi the bridge's imports of pi's packages (pi-tui) resolve
        // through pi's loader; row 6 runs it in plain Node (`bridge_node`,
        // which maps pi 1.x's renamed packages), which looks for them in a
        // node_modules above the file.
        std::os::unix::fs::symlink(
            repo_root().join("node_modules"),
            scratch.path().join("node_modules"),
        )
        .expect("linking node_modules into the scratch directory");
        let bridge_js = scratch.path().join("bench-ext").join("index.js");
        let fake_bridge = write_fake_bridge(&bridge_js, scratch.path());
        Bench {
            opts,
            sizes,
            report,
            bench_ext,
            scratch,
            bridge_js,
            ts_ext: std::env::var_os("PI_EXT_BENCH_TS")
                .map(PathBuf::from)
                .unwrap_or_else(|| fixture("bench-ext.ts")),
            fake_bridge,
        }
    }

    fn run(&mut self) {
        let command = if self.opts.smoke {
            "cargo run -p pi-ext-e2e --bin bench -- --smoke".to_owned()
        } else {
            let args: Vec<String> = std::env::args().skip(1).collect();
            format!(
                "cargo run --release -p pi-ext-e2e --bin bench{}",
                if args.is_empty() {
                    String::new()
                } else {
                    format!(" -- {}", args.join(" "))
                }
            )
        };
        self.report.preamble = format!("- command: `{command}`\n{}", machine_description());
        let rows = self.opts.rows.clone();
        if rows.contains(&1) || rows.contains(&2) || rows.contains(&6) {
            self.in_pi_rows(&rows);
        }
        if rows.contains(&3) {
            self.row3_tool_call_hook();
        }
        if rows.contains(&4) {
            self.row4_load();
        }
        if rows.contains(&5) {
            self.row5_message_update_hook();
        }
        if rows.contains(&6) {
            self.row6_throughput();
        }
        if rows.contains(&7) {
            self.row7_resources();
        }
        if rows.contains(&8) {
            self.row8_tui();
        }
        if rows.contains(&9) || rows.contains(&10) {
            self.rows9_10_session_sizes(&rows);
        }
        if rows.contains(&11) {
            self.row11_many_extensions();
        }
        self.report.print();
    }

    // -- rows 1, 2 and 6f: one pi with both extensions ------------------------------------------

    fn in_pi_rows(&mut self, rows: &HashSet<u32>) {
        progress("starting pi with the Rust, the TypeScript and the ideal extension");
        let model = ScriptedModel::start();
        let env = PiEnv::new(&model);
        let pi = env
            .pi()
            .no_extensions()
            .extension(&self.bridge_js)
            .extension(&self.ts_ext)
            .extension(&self.fake_bridge)
            .env("PI_EXT_LOG_DIR", self.scratch.path())
            .env(FAKE_EXTENSION_ENV, "1")
            .env(FAKE_PREFIX_ENV, FLOOR_PREFIX)
            .skip_message_updates()
            .start();
        if rows.contains(&1) {
            self.row1_trivial(&pi, &model);
        }
        if rows.contains(&2) {
            self.row2_dialog(&pi, &model);
        }
        if rows.contains(&6) {
            self.row6_cpu(&pi, &model);
        }
        if rows.contains(&7) {
            match find_child(pi.pid(), "bench-ext") {
                Some(pid) => {
                    let rss = rss_kib(pid);
                    self.report.note(format!(
                        "7a: RSS of the Rust extension process inside pi after the rows above: {} KiB",
                        rss.map_or("?".into(), |k| k.to_string())
                    ));
                }
                None => self
                    .report
                    .note("could not find the bench-ext child process of pi".into()),
            }
        }
    }

    /// Runs `plan.iterations` rounds (after warm-up) of one prompt per side, each making the
    /// model call `plan.tool` (with `args(round)`) once, and hands every counted
    /// [`PromptTimes`] to `record`.
    ///
    /// pi sends the whole conversation to the model on every turn, so the session is replaced
    /// with a fresh one (`new_session`, which also reloads the extensions) every
    /// [`ROUNDS_PER_SESSION`] rounds; the first round after a reset is not counted either.
    fn measure_in_pi(
        &self,
        pi: &PiRpc,
        model: &ScriptedModel,
        plan: Plan<'_>,
        args: impl Fn(usize) -> Value,
        mut record: impl FnMut(Side, usize, PromptTimes),
    ) {
        let Plan {
            tool,
            sides,
            warmup,
            iterations,
        } = plan;
        pi.call(json!({"type": "new_session"}));
        let mut counted = 0;
        let mut since_reset = 0;
        let mut round = 0;
        while counted < iterations {
            if since_reset == ROUNDS_PER_SESSION {
                pi.call(json!({"type": "new_session"}));
                since_reset = 0;
            }
            let count = round >= warmup && since_reset > 0;
            for side in rotating(round, sides) {
                let id = format!("call_{tool}_{round}_{side:?}");
                let t = self.tool_prompt(pi, model, &id, &side.tool(tool), args(round));
                if count {
                    record(side, round, t);
                }
            }
            if count {
                counted += 1;
            }
            since_reset += 1;
            round += 1;
        }
    }

    /// One prompt that makes the model call `tool` with `args` once, answering any dialog at once.
    fn tool_prompt(
        &self,
        pi: &PiRpc,
        model: &ScriptedModel,
        call_id: &str,
        tool: &str,
        args: Value,
    ) -> PromptTimes {
        model.push(Reply::tool(call_id, tool, args));
        model.push(Reply::text("done"));
        let mark = pi.mark();
        let mut answered = None;
        let sent = Instant::now();
        pi.prompt_with_ui(&format!("call {tool}"), PROMPT_TIMEOUT, |_request| {
            answered = Some(Instant::now());
            Some(json!({"confirmed": true}))
        });
        let events = pi.timed_events_since(mark);
        let find = |pred: &dyn Fn(&Value) -> bool, what: &str| {
            events
                .iter()
                .find(|(_, e)| pred(e))
                .map(|(t, e)| (*t, e.clone()))
                .unwrap_or_else(|| panic!("no {what} for {tool} ({call_id})"))
        };
        let (tool_start, _) = find(
            &|e| e["type"] == "tool_execution_start" && e["toolCallId"] == call_id,
            "tool_execution_start",
        );
        let (tool_end, end) = find(
            &|e| e["type"] == "tool_execution_end" && e["toolCallId"] == call_id,
            "tool_execution_end",
        );
        let (agent_end, _) = find(&|e| e["type"] == "agent_end", "agent_end");
        let dialog_request = events
            .iter()
            .find(|(_, e)| e["type"] == "extension_ui_request" && e["method"] == "confirm")
            .map(|(t, _)| *t);
        let result_text = end["result"]["content"][0]["text"]
            .as_str()
            .unwrap_or_default()
            .to_owned();
        assert!(
            end["isError"] != true,
            "{tool} failed inside pi: {end}\n{}",
            pi.diagnostics()
        );
        PromptTimes {
            sent,
            tool_start,
            tool_end,
            agent_end,
            dialog_request,
            dialog_answered: answered,
            result_text,
        }
    }

    fn row1_trivial(&mut self, pi: &PiRpc, model: &ScriptedModel) {
        progress("row 1: trivial tool call");
        let mut tool = PerSide::default();
        let mut whole = PerSide::default();
        self.measure_in_pi(
            pi,
            model,
            Plan {
                tool: "trivial",
                sides: &[Side::Rust, Side::Ts, Side::Floor, Side::TsPiped],
                warmup: self.sizes.warmup,
                iterations: self.sizes.trivial,
            },
            |i| json!({"n": i}),
            |side, i, t| {
                assert_eq!(t.result_text, format!("ok {i}"), "{side:?} trivial");
                tool.push(side, t.tool_end - t.tool_start);
                whole.push(side, t.agent_end - t.sent);
            },
        );
        let (rt, tt, ft) = tool.summaries();
        self.report.row(Row::compared(
            "1a",
            "trivial tool: `tool_execution_start` → `tool_execution_end`",
            &rt,
            &tt,
            "Rust median ≤ TS median + 0.1 ms; Rust p99 ≤ 1 ms",
            latency_verdict(&rt, &tt, true),
        ));
        let (rw, tw, fw) = whole.summaries();
        let piped = summarize(&tool.ts_piped);
        self.report.row(Row::compared(
            "1b",
            "trivial tool: `prompt` → `agent_end` (2 model requests)",
            &rw,
            &tw,
            "Rust median ≤ TS median + 0.1 ms",
            latency_verdict(&rw, &tw, false),
        ));
        self.report.row(Row {
            id: "1c",
            what: "floor: the ideal extension (6c) behind the same bridge in the same pi: tool start → end / prompt → `agent_end`".into(),
            rust: format!("{} / {}", fmt_summary(&ft), fmt_summary(&fw)),
            ts: "—".into(),
            ratio: "—".into(),
            target: "—".into(),
            verdict: Verdict::Info,
        });
        self.report.row(Row {
            id: "1d",
            what: "reference: `ts_piped_trivial`, the TS tool after one round trip through a `cat` child process: tool start → end".into(),
            rust: "—".into(),
            ts: fmt_summary(&piped),
            ratio: "—".into(),
            target: "—".into(),
            verdict: Verdict::Info,
        });
    }

    fn row2_dialog(&mut self, pi: &PiRpc, model: &ScriptedModel) {
        progress("row 2: tool awaiting one confirm dialog");
        let mut tool = PerSide::default();
        let mut out = PerSide::default();
        let mut back = PerSide::default();
        self.measure_in_pi(
            pi,
            model,
            Plan {
                tool: "confirm_once",
                sides: ALL_SIDES,
                warmup: self.sizes.warmup,
                iterations: self.sizes.dialog,
            },
            |_| json!({}),
            |side, _, t| {
                assert_eq!(t.result_text, "yes", "{side:?} confirm_once");
                let request = t.dialog_request.expect("a confirm request");
                let answered = t.dialog_answered.expect("the confirm was answered");
                tool.push(side, t.tool_end - t.tool_start);
                out.push(side, request - t.tool_start);
                back.push(side, t.tool_end - answered);
            },
        );
        let (rt, tt, ft) = tool.summaries();
        let (ro, to, fo) = out.summaries();
        let (rb, tb, fb) = back.summaries();
        self.report.row(Row::compared(
            "2a",
            "`confirm_once`: `tool_execution_start` → `tool_execution_end`, dialog answered at once",
            &rt,
            &tt,
            "Rust median ≤ TS median + 0.1 ms; Rust p99 ≤ 1 ms",
            latency_verdict(&rt, &tt, true),
        ));
        self.report.row(Row::compared(
            "2b",
            "… of which `tool_execution_start` → `extension_ui_request` (way out)",
            &ro,
            &to,
            "—",
            Verdict::Info,
        ));
        self.report.row(Row::compared(
            "2c",
            "… and answer written → `tool_execution_end` (way back)",
            &rb,
            &tb,
            "—",
            Verdict::Info,
        ));
        self.report.row(Row {
            id: "2d",
            what: "floor: the ideal extension behind the same bridge: tool start → end / way out / way back".into(),
            rust: format!(
                "{} / {} / {}",
                fmt_summary(&ft),
                fmt_summary(&fo),
                fmt_summary(&fb)
            ),
            ts: "—".into(),
            ratio: "—".into(),
            target: "—".into(),
            verdict: Verdict::Info,
        });
    }

    fn row6_cpu(&mut self, pi: &PiRpc, model: &ScriptedModel) {
        progress("row 6: CPU-heavy tool in pi");
        let mb = self.sizes.cpu_mb;
        let mut times = PerSide::default();
        let mut answers = PerSide::default();
        self.measure_in_pi(
            pi,
            model,
            Plan {
                tool: "cpu_hash",
                sides: &[Side::Rust, Side::Ts],
                warmup: 1,
                iterations: self.sizes.cpu_iterations,
            },
            |i| json!({"mb": mb, "seed": 12345 + i, "needle": NEEDLE}),
            |side, i, t| {
                answers.push(side, (i, t.result_text.clone()));
                times.push(side, t.tool_end - t.tool_start);
            },
        );
        assert_eq!(
            answers.rust, answers.ts,
            "the Rust and TypeScript cpu_hash disagree: not the same algorithm"
        );
        let answers = [answers.rust[0].1.clone()];
        let (r, t) = (summarize(&times.rust), summarize(&times.ts));
        let verdict = if r.median < t.median {
            Verdict::Met
        } else {
            Verdict::Missed(format!(
                "Rust {} ms ≥ TS {} ms",
                fmt_ms(r.median),
                fmt_ms(t.median)
            ))
        };
        self.report.row(Row::compared(
            "6h",
            format!(
                "CPU-heavy tool in pi (generate {mb} MiB with xorshift32, FNV-1a, naive search for {NEEDLE:?}): tool start → end"
            ),
            &r,
            &t,
            "Rust faster",
            verdict,
        ));
        self.report.note(format!(
            "6h: both sides gave the same answers (checked), e.g. `{}`",
            answers[0]
        ));
    }

    // -- row 3: a blocking tool_call hook on a built-in tool ------------------------------------

    /// Row 3: a blocking `tool_call` hook on a built-in tool, added time per call.
    ///
    /// Hooks are global to a pi process, so each side has its own pi: one with
    /// `tests/extensions/bench-hook-gate` (a pass-through `#[hook]` on `ToolCallEvent`, installed with
    /// its bridge), one with its TypeScript twin `tests/fixtures/bench-hook-gate.ts`
    /// (`pi.on("tool_call", () => undefined)`) and one with no extension. The scripted model
    /// calls the built-in `read` on a small file in [`PiEnv::cwd`], in each pi in turn (the
    /// order rotates every round); the figure is `tool_execution_start` → `tool_execution_end`
    /// (the hook runs in between) and its median minus the no-hook median (target: ≤ 0.1 ms per
    /// call at the median).
    fn row3_tool_call_hook(&mut self) {
        progress("row 3: building and installing tests/extensions/bench-hook-gate");
        let rust_bridge = self.install_bridge("bench-hook-gate");
        progress("row 3: three pis (Rust tool_call hook, TS tool_call hook, no hook)");
        let model = ScriptedModel::start();
        let env = PiEnv::new(&model);
        let content = "a small file for the tool_call hook benchmark\n";
        env.write_cwd_file("small.txt", content);
        let pis = self.hook_pis(&env, &rust_bridge, &fixture("bench-hook-gate.ts"));
        let mut tool: [Vec<Duration>; 3] = Default::default();
        rounds_over_pis(
            &pis,
            self.sizes.warmup,
            self.sizes.hook_calls,
            ROUNDS_PER_SESSION,
            |side, round, counted| {
                let id = format!("call_read_{round}_{side}");
                let t = self.tool_prompt(
                    &pis[side],
                    &model,
                    &id,
                    "read",
                    json!({"path": "small.txt"}),
                );
                assert!(
                    t.result_text.contains(content.trim()),
                    "read returned {:?}",
                    t.result_text
                );
                if counted {
                    tool[side].push(t.tool_end - t.tool_start);
                }
            },
        );
        let [rust, ts, none] = tool.map(|v| summarize(&v));
        let added = |s: &Summary| ms(s.median) - ms(none.median);
        let slack = 0.1;
        self.report.row(Row {
            id: "3",
            what: format!(
                "blocking `tool_call` hook (pass-through) on the built-in `read`: `tool_execution_start` → `tool_execution_end` (no hook: {})",
                fmt_summary(&none)
            ),
            rust: format!("{} ({:+.3} ms vs none)", fmt_summary(&rust), added(&rust)),
            ts: format!("{} ({:+.3} ms vs none)", fmt_summary(&ts), added(&ts)),
            ratio: ratio(rust.median, ts.median),
            target: "hook adds ≤ 0.1 ms per call (median)".into(),
            verdict: if added(&rust) <= slack {
                Verdict::Met
            } else {
                Verdict::Missed(format!(
                    "the Rust hook adds {:+.3} ms per call (> 0.1 ms; TS hook {:+.3} ms)",
                    added(&rust),
                    added(&ts)
                ))
            },
        });
    }

    /// Builds workspace example `package` (in this binary's profile), installs it with its
    /// bridge into the scratch directory and returns the bridge's `index.js`.
    fn install_bridge(&self, package: &str) -> PathBuf {
        let binary = example_binary(package);
        let status = Command::new(&binary)
            .arg("install")
            .arg("--dir")
            .arg(self.scratch.path())
            .stdout(Stdio::null())
            .status()
            .unwrap_or_else(|e| panic!("running {package} install: {e}"));
        assert!(status.success(), "{package} install failed");
        let bridge = self.scratch.path().join(package).join("index.js");
        assert!(bridge.is_file(), "{} was not written", bridge.display());
        bridge
    }

    /// Three ready pis in `env` for a hook row, in [`HOOK_SIDES`] order: with the Rust
    /// extension's bridge, with the TypeScript extension, with no extension.
    fn hook_pis(&self, env: &PiEnv, rust_bridge: &Path, ts_ext: &Path) -> Vec<PiRpc> {
        let pis: Vec<PiRpc> = HOOK_SIDES
            .iter()
            .map(|side| {
                let builder = env
                    .pi()
                    .no_extensions()
                    .env("PI_EXT_LOG_DIR", self.scratch.path())
                    .skip_message_updates();
                match side {
                    HookSide::Rust => builder.extension(rust_bridge),
                    HookSide::Ts => builder.extension(ts_ext),
                    HookSide::None => builder,
                }
                .spawn()
            })
            .collect();
        // Spawned together, then awaited: three cold starts one after the other take long.
        for pi in &pis {
            pi.wait_ready(pi_ext_e2e::STARTUP_TIMEOUT);
        }
        pis
    }

    // -- row 4: extension load ------------------------------------------------------------------

    fn row4_load(&mut self) {
        progress("row 4: extension load (pi spawn → ready)");
        #[derive(Clone, Copy, PartialEq, Eq, Debug)]
        enum Load {
            None,
            Rust,
            Ts,
        }
        const ORDERS: [[Load; 3]; 3] = [
            [Load::None, Load::Rust, Load::Ts],
            [Load::Rust, Load::Ts, Load::None],
            [Load::Ts, Load::None, Load::Rust],
        ];
        let model = ScriptedModel::start();
        let env = PiEnv::new(&model);
        let mut ready: [Vec<Duration>; 3] = Default::default();
        let mut startup_work: [Vec<Duration>; 3] = Default::default();
        let mut pi_rss: [Vec<u64>; 3] = Default::default();
        // One warm-up round (disk cache, jiti's transform cache), not counted.
        let warmup = usize::from(!self.opts.smoke);
        for round in 0..warmup + self.sizes.load_rounds {
            for load in ORDERS[round % 3] {
                let mut builder = env
                    .pi()
                    .no_extensions()
                    .env("PI_EXT_LOG_DIR", self.scratch.path())
                    .env("PI_TIMING", "1");
                builder = match load {
                    Load::None => builder,
                    Load::Rust => builder.extension(&self.bridge_js),
                    Load::Ts => builder.extension(&self.ts_ext),
                };
                let spawned = Instant::now();
                let pi = builder.spawn();
                let id = pi.send(json!({"type": "get_state"}));
                pi.response(&id, pi_ext_e2e::STARTUP_TIMEOUT);
                let at = pi
                    .timed_events_since(0)
                    .into_iter()
                    .find(|(_, e)| e["type"] == "response" && e["id"] == id.as_str())
                    .map(|(t, _)| t)
                    .expect("the get_state response");
                let work = pi_timing_total(&pi);
                if round >= warmup {
                    ready[load as usize].push(at - spawned);
                    startup_work[load as usize].push(work);
                    if let Some(kib) = rss_kib(pi.pid()) {
                        pi_rss[load as usize].push(kib);
                    }
                }
                if load == Load::Rust {
                    // bench-ext is tools only (its manifest says `onDemand`): its process
                    // starts at its first call, which this row never makes.
                    assert!(
                        find_child(pi.pid(), "bench-ext").is_none(),
                        "pi started the on-demand bench-ext at session start"
                    );
                }
                // A clean exit (stdin closed), so that `node --cpu-prof` can write its
                // profile (scripts/profile-pi.sh); killed after 2 s.
                drop(pi);
            }
        }
        let [none, rust, ts] = ready.map(|v| summarize(&v));
        let delta = |s: &Summary, base: &Summary| ms(s.median) - ms(base.median);
        self.report.row(Row {
            id: "4a",
            what: format!(
                "pi spawn → `get_state` answered, wall clock (no extension: {})",
                fmt_summary(&none)
            ),
            rust: format!(
                "{} ({:+.0} ms vs none)",
                fmt_summary(&rust),
                delta(&rust, &none)
            ),
            ts: format!(
                "{} ({:+.0} ms vs none)",
                fmt_summary(&ts),
                delta(&ts, &none)
            ),
            ratio: ratio(rust.median, ts.median),
            target: "— (Node loading pi dominates; see 4b)".into(),
            verdict: Verdict::Info,
        });
        let [wn, wr, wt] = startup_work.map(|v| summarize(&v));
        let mut missed = Vec::new();
        if delta(&wr, &wn) > 20.0 {
            missed.push(format!(
                "Rust adds {:+.0} ms over no extension (> 20 ms)",
                delta(&wr, &wn)
            ));
        }
        if wr.median > wt.median {
            missed.push(format!(
                "Rust {} ms > TS {} ms",
                fmt_ms(wr.median),
                fmt_ms(wt.median)
            ));
        }
        self.report.row(Row {
            id: "4b",
            what: format!(
                "pi's own startup work, `PI_TIMING=1` TOTAL (includes loading extensions; 1 ms resolution; no extension: {})",
                fmt_summary(&wn)
            ),
            rust: format!("{} ({:+.0} ms vs none)", fmt_summary(&wr), delta(&wr, &wn)),
            ts: format!("{} ({:+.0} ms vs none)", fmt_summary(&wt), delta(&wt, &wn)),
            ratio: ratio(wr.median, wt.median),
            target: "Rust adds ≤ 20 ms over none; Rust ≤ TS".into(),
            verdict: if missed.is_empty() {
                Verdict::Met
            } else {
                Verdict::Missed(missed.join("; "))
            },
        });
        let median_kib = |v: &mut Vec<u64>| {
            v.sort();
            v.get(v.len() / 2).copied().unwrap_or(0)
        };
        let [mut n, mut r, mut t] = pi_rss;
        let (n, r, t) = (median_kib(&mut n), median_kib(&mut r), median_kib(&mut t));
        self.report.row(Row {
            id: "4c",
            what: format!(
                "RSS of pi's Node process when ready (median; no extension: {:.1} MiB)",
                n as f64 / 1024.0
            ),
            rust: format!(
                "{:.1} MiB ({:+.1} MiB; the extension process comes on top, see 7a)",
                r as f64 / 1024.0,
                (r as f64 - n as f64) / 1024.0
            ),
            ts: format!(
                "{:.1} MiB ({:+.1} MiB)",
                t as f64 / 1024.0,
                (t as f64 - n as f64) / 1024.0
            ),
            ratio: "—".into(),
            target: "—".into(),
            verdict: Verdict::Info,
        });
    }

    // -- row 5: a message_update hook while a long answer streams -------------------------------

    /// Row 5: a `message_update` hook while thousands of deltas stream.
    ///
    /// Three pis as in row 3: with `tests/extensions/bench-hook-stream` (a `#[hook]` on
    /// `MessageUpdateEvent` that only counts), with its TypeScript twin
    /// `tests/fixtures/bench-hook-stream.ts`, and with no extension. The scripted model streams
    /// one answer of [`Sizes::deltas`] text deltas ([`Reply::deltas`]) to each pi in turn; the
    /// figure is `prompt` → `agent_end` and the Rust hook's added median in % of the no-hook
    /// median (target: ≤ 5%). The driver drops `message_update` lines unparsed
    /// ([`pi_ext_e2e::PiBuilder::skip_message_updates`]) so that it is not the bottleneck.
    ///
    /// Then [`Bench::row5_traffic`] proves that without such a hook the bridge forwards no
    /// `message_update` at all.
    fn row5_message_update_hook(&mut self) {
        progress("row 5: building and installing tests/extensions/bench-hook-stream and bench-hook-batch");
        let rust_bridge = self.install_bridge("bench-hook-stream");
        let batch_bridge = self.install_bridge("bench-hook-batch");
        let gate_bridge = self.install_bridge("bench-hook-gate");
        let model = ScriptedModel::start();
        let env = PiEnv::new(&model);
        // The pi of the traffic check (5b) starts meanwhile; it stays idle until then.
        let logs = tempfile::Builder::new()
            .prefix("pi-ext-bench-traffic-")
            .tempdir()
            .expect("temp dir");
        let traffic_pi = env
            .pi()
            .no_extensions()
            .extension(&gate_bridge)
            .extension(&rust_bridge)
            .env("PI_EXT_LOG_DIR", logs.path())
            .env("PI_EXT_LOG_TRAFFIC", "1")
            .skip_message_updates()
            .spawn();
        let deltas = self.sizes.deltas;
        const BATCH: usize = 3;
        let mut whole: [Vec<Duration>; 4] = Default::default();
        let mut updates: [Vec<usize>; 4] = Default::default();
        // CPU time (clock ticks) of each pi, and of the Rust sides' extension processes, over
        // the counted answers: where the added time goes.
        let mut pi_ticks = [0u64; 4];
        let mut extension_ticks = [0u64; 4];
        let extension_comm = [
            process_comm("bench-hook-stream"),
            String::new(),
            String::new(),
            process_comm("bench-hook-batch"),
        ];
        let generations = self.sizes.stream_pis;
        for generation in 0..generations {
            progress(&format!(
                "row 5: four pis (Rust message_update hook, its batch form, TS hook, no hook), {} of {generations}",
                generation + 1
            ));
            let mut pis = self.hook_pis(&env, &rust_bridge, &fixture("bench-hook-stream.ts"));
            // A fourth pi: the Rust hook in its batch form (5d).
            pis.push(
                env.pi()
                    .no_extensions()
                    .env("PI_EXT_LOG_DIR", self.scratch.path())
                    .skip_message_updates()
                    .extension(&batch_bridge)
                    .spawn(),
            );
            pis[BATCH].wait_ready(pi_ext_e2e::STARTUP_TIMEOUT);
            rounds_over_pis(
                &pis,
                self.sizes.stream_warmup,
                self.sizes.stream_rounds.div_ceil(generations),
                STREAM_ROUNDS_PER_SESSION,
                |side, _round, counted| {
                    let pid = pis[side].pid();
                    // The extension process is replaced with each new session: look it up.
                    let child = if extension_comm[side].is_empty() {
                        None
                    } else {
                        find_child(pid, &extension_comm[side])
                    };
                    let before = (cpu_ticks(pid), child.and_then(cpu_ticks));
                    let (took, n) = stream_prompt(&pis[side], &model, deltas);
                    if counted {
                        whole[side].push(took);
                        updates[side].push(n);
                        pi_ticks[side] += cpu_ticks(pid).unwrap_or(0) - before.0.unwrap_or(0);
                        if let (Some(child), Some(start)) = (child, before.1) {
                            extension_ticks[side] += cpu_ticks(child).unwrap_or(start) - start;
                        }
                    }
                },
            );
        }
        let answers = whole[0].len().max(1) as f64;
        let counted = whole[0].len();
        let [rust, ts, none, batch] = whole.map(|v| summarize(&v));
        let added = |s: &Summary| (ms(s.median) / ms(none.median) - 1.0) * 100.0;
        let updates_per_answer = updates[2].iter().copied().max().unwrap_or(0);
        self.report.row(Row {
            id: "5a",
            what: format!(
                "`message_update` hook (counts only) while an answer of {} deltas streams ({} `message_update` events): `prompt` → `agent_end`, {} answers per side from {generations} pi process{} each (no hook: {})",
                fmt_count(deltas as f64),
                fmt_count(updates_per_answer as f64),
                counted,
                if generations == 1 { "" } else { "es" },
                fmt_summary(&none)
            ),
            rust: format!("{} ({:+.1}% vs none)", fmt_summary(&rust), added(&rust)),
            ts: format!("{} ({:+.1}% vs none)", fmt_summary(&ts), added(&ts)),
            ratio: ratio(rust.median, ts.median),
            target: "Rust hook ≤ 5% slower than none (median)".into(),
            verdict: if added(&rust) <= 5.0 {
                Verdict::Met
            } else {
                Verdict::Missed(format!(
                    "the Rust hook adds {:+.1}% (> 5%; TS hook {:+.1}%)",
                    added(&rust),
                    added(&ts)
                ))
            },
        });
        let per_answer = |ticks: u64| ticks as f64 * 1000.0 / clock_ticks_per_second() / answers;
        // µs per streamed event.
        let per_delta = |ticks: u64| per_answer(ticks) * 1000.0 / updates_per_answer.max(1) as f64;
        self.report.row(Row {
            id: "5c",
            what: "… CPU time per answer and per `message_update` event (`/proc/<pid>/stat` utime+stime, summed over the counted answers): pi's Node process / the extension process".into(),
            rust: format!(
                "{:.0} ms ({:.1} µs per event) / {:.0} ms ({:.1} µs per event)",
                per_answer(pi_ticks[0]),
                per_delta(pi_ticks[0]),
                per_answer(extension_ticks[0]),
                per_delta(extension_ticks[0])
            ),
            ts: format!(
                "{:.0} ms ({:.1} µs per event) / — (no hook: {:.0} ms, {:.1} µs per event)",
                per_answer(pi_ticks[1]),
                per_delta(pi_ticks[1]),
                per_answer(pi_ticks[2]),
                per_delta(pi_ticks[2])
            ),
            ratio: "—".into(),
            target: "—".into(),
            verdict: Verdict::Info,
        });
        self.report.row(Row {
            id: "5d",
            what: "… the Rust hook in its batch form (`MessageUpdateBatch`: one call per batch of the bridge's streamed lines, up to 2 ms, `tests/extensions/bench-hook-batch`): `prompt` → `agent_end`; CPU per answer and per event of pi's Node process / the extension process".into(),
            rust: format!(
                "{} ({:+.1}% vs none); {:.0} ms ({:.1} µs per event) / {:.0} ms ({:.1} µs per event)",
                fmt_summary(&batch),
                added(&batch),
                per_answer(pi_ticks[BATCH]),
                per_delta(pi_ticks[BATCH]),
                per_answer(extension_ticks[BATCH]),
                per_delta(extension_ticks[BATCH])
            ),
            ts: format!("{} ({:+.1}% vs none) (the per-event TS hook)", fmt_summary(&ts), added(&ts)),
            ratio: ratio(batch.median, ts.median),
            target: "Rust hook ≤ 5% slower than none (median)".into(),
            verdict: if added(&batch) <= 5.0 {
                Verdict::Met
            } else {
                Verdict::Missed(format!("the batch hook adds {:+.1}% (> 5%)", added(&batch)))
            },
        });
        traffic_pi.wait_ready(pi_ext_e2e::STARTUP_TIMEOUT);
        self.row5_traffic(&traffic_pi, &model, logs.path());
    }

    /// Row 5b: `pi` has `bench-hook-gate` (no `message_update` hook) and `bench-hook-stream`,
    /// both with `PI_EXT_LOG_TRAFFIC=1` (each runtime logs `received hook/call <id>` or, for
    /// streamed events, `received hook/update <id>` (`hook/notify` from an older bridge) per
    /// hook call to its log file in `logs`);
    /// it streams one long answer and the hook calls each binary received are counted.
    fn row5_traffic(&mut self, pi: &PiRpc, model: &ScriptedModel, logs: &Path) {
        progress("row 5: counting forwarded message_update calls (PI_EXT_LOG_TRAFFIC=1)");
        let hook_calls = |name: &str| {
            std::fs::read_to_string(logs.join(format!("{name}.log")))
                .unwrap_or_default()
                .lines()
                .filter(|l| {
                    l.contains("received hook/call")
                        || l.contains("received hook/notify")
                        || l.contains("received hook/update")
                })
                .count()
        };
        let before = (
            hook_calls("bench-hook-gate"),
            hook_calls("bench-hook-stream"),
        );
        let (_, events) = stream_prompt(pi, model, self.sizes.deltas);
        // The bridge appends the binaries' stderr to the logs asynchronously: wait (bounded)
        // until the hook's count reaches the number of events, or stops growing.
        let deadline = Instant::now() + Duration::from_secs(10);
        let mut last = (usize::MAX, Instant::now());
        let stream = loop {
            let n = hook_calls("bench-hook-stream") - before.1;
            if n != last.0 {
                last = (n, Instant::now());
            }
            if n >= events || Instant::now() > deadline || last.1.elapsed() > Duration::from_secs(2)
            {
                break n;
            }
            std::thread::sleep(Duration::from_millis(20));
        };
        let gate = hook_calls("bench-hook-gate") - before.0;
        pi.kill();
        if stream != events {
            self.report.note(format!(
                "5b: `bench-hook-stream` received {stream} hook calls for {events} `message_update` events"
            ));
        }
        self.report.row(Row {
            id: "5b",
            what: format!(
                "hook calls forwarded to the extension process during one answer of {} deltas ({} `message_update` events; `PI_EXT_LOG_TRAFFIC=1` log lines)",
                fmt_count(self.sizes.deltas as f64),
                fmt_count(events as f64)
            ),
            rust: format!(
                "without a `message_update` hook (`bench-hook-gate`): {gate}; with one (`bench-hook-stream`): {stream}"
            ),
            ts: "n/a (hooks run inside pi)".into(),
            ratio: "—".into(),
            target: "0 without the hook".into(),
            verdict: if gate == 0 {
                Verdict::Met
            } else {
                Verdict::Missed(format!("{gate} hook calls forwarded without a hook"))
            },
        });
    }

    // -- row 6: throughput without pi -----------------------------------------------------------

    /// Row 6i: requests one every [`PACED_GAP`] per process, as pi spaces a session's tool
    /// calls, so that each finds the process idle with its caches gone cold (row 6a's calls
    /// come back to back). Three processes take turns, so that the machine's drift is shared:
    /// the Rust binary with tool calls, the same binary with `ping` (answered by the runtime
    /// without a task or a handler), and the ideal extension with tool calls.
    fn row6_paced(&mut self, me: &Path) {
        progress(&format!(
            "row 6: paced requests, one every {} ms per process",
            PACED_GAP.as_millis()
        ));
        let mut exts = [
            DirectExt::spawn(&self.bench_ext, &[]),
            DirectExt::spawn(&self.bench_ext, &[]),
            DirectExt::spawn(me, &[(FAKE_EXTENSION_ENV, "1")]),
        ];
        let request = |ext: &mut DirectExt, series: usize| match series {
            1 => ext.ping(),
            _ => ext.call(),
        };
        let turn = PACED_GAP / exts.len() as u32;
        for _ in 0..PACED_WARMUP {
            for (series, ext) in exts.iter_mut().enumerate() {
                request(ext, series);
                std::thread::sleep(turn);
            }
        }
        let n = self.sizes.paced_calls;
        let cpu_before: Vec<Option<Duration>> = exts.iter().map(DirectExt::cpu).collect();
        let mut trips: [Vec<Duration>; 3] = Default::default();
        for _ in 0..n {
            for (series, ext) in exts.iter_mut().enumerate() {
                trips[series].push(request(ext, series));
                std::thread::sleep(turn);
            }
        }
        // "—" where the system has no per-thread CPU times (`/proc`).
        let per_request: Vec<String> = exts
            .iter()
            .zip(&cpu_before)
            .map(|(ext, before)| match (before, ext.cpu()) {
                (Some(before), Some(after)) => format!(
                    "{:.1} µs CPU",
                    after.saturating_sub(*before).as_secs_f64() * 1e6 / n as f64
                ),
                _ => "— CPU".into(),
            })
            .collect();
        let [call, ping, ideal] = trips.map(|t| summarize(&t));
        self.report.row(Row {
            id: "6i",
            what: format!(
                "paced: one request every {} ms per process (as pi spaces calls; 6a's come back to back), driven directly: round trip; CPU of the extension process per request (`/proc/<pid>/task/*/schedstat`). Rust `tool/call trivial` / Rust `ping` (the runtime alone: no task, no handler) / the ideal extension's `tool/call`",
                PACED_GAP.as_millis()
            ),
            rust: format!(
                "{}, {} / {}, {} / {}, {}",
                fmt_summary(&call),
                per_request[0],
                fmt_summary(&ping),
                per_request[1],
                fmt_summary(&ideal),
                per_request[2]
            ),
            ts: "n/a".into(),
            ratio: "—".into(),
            target: "—".into(),
            verdict: Verdict::Info,
        });
    }

    fn row6_throughput(&mut self) {
        let calls = self.sizes.direct_calls;
        let window = self.sizes.window;
        let me = std::env::current_exe().expect("current exe");
        let mut direct = Vec::new();
        for (binary, env) in [
            (&self.bench_ext, &[][..]),
            (&me, &[(FAKE_EXTENSION_ENV, "1")][..]),
        ] {
            progress(&format!(
                "row 6: {} driven directly over its protocol",
                binary.display()
            ));
            let mut ext = DirectExt::spawn(binary, env);
            for _ in 0..calls.min(1000) {
                ext.call();
            }
            let started = Instant::now();
            let latencies: Vec<Duration> = (0..calls).map(|_| ext.call()).collect();
            let seq_rate = calls as f64 / started.elapsed().as_secs_f64();
            let started = Instant::now();
            ext.pipelined(calls, window);
            let conc_rate = calls as f64 / started.elapsed().as_secs_f64();
            direct.push((seq_rate, summarize(&latencies), conc_rate));
        }
        let (seq_rate, lat, conc_rate) = direct[0];
        self.report.row(Row {
            id: "6a",
            what: "Rust binary driven directly from Rust (`initialize`, then `tool/call trivial`), sequential".into(),
            rust: format!("{} calls/s; round trip {}", fmt_count(seq_rate), fmt_summary(&lat)),
            ts: "n/a (no process boundary in TS)".into(),
            ratio: "—".into(),
            target: "—".into(),
            verdict: Verdict::Info,
        });
        self.report.row(Row {
            id: "6b",
            what: format!("… {window} calls in flight"),
            rust: format!("{} calls/s", fmt_count(conc_rate)),
            ts: "n/a".into(),
            ratio: "—".into(),
            target: "—".into(),
            verdict: Verdict::Info,
        });
        let (seq_rate, lat, conc_rate) = direct[1];
        self.report.row(Row {
            id: "6c",
            what: format!("floor of 6a/6b: an ideal extension (one thread, no tokio) driven directly, sequential / {window} in flight"),
            rust: format!(
                "{} / {} calls/s; round trip {}",
                fmt_count(seq_rate),
                fmt_count(conc_rate),
                fmt_summary(&lat)
            ),
            ts: "n/a".into(),
            ratio: "—".into(),
            target: "—".into(),
            verdict: Verdict::Info,
        });
        self.row6_paced(&me);

        progress("row 6: the real JS bridge in Node, without pi");
        let real = self.node_bridge(&[self.bridge_js.as_os_str()]);
        let seq = real.seq_rate();
        self.report.row(Row {
            id: "6d",
            what: "through the real JS bridge in Node (fake `pi`, `execute` awaited), sequential"
                .into(),
            rust: format!(
                "{} calls/s; `execute` {}",
                fmt_count(seq),
                fmt_summary(&real.latency())
            ),
            ts: "n/a (a TS tool is an in-process call)".into(),
            ratio: "—".into(),
            target: "≥ 20,000 calls/s".into(),
            verdict: if seq >= 20_000.0 {
                Verdict::Met
            } else {
                Verdict::Missed(format!("{} calls/s < 20,000", fmt_count(seq)))
            },
        });
        self.report.row(Row {
            id: "6e",
            what: format!("… {} calls in flight", real.window),
            rust: format!("{} calls/s", fmt_count(real.conc_rate())),
            ts: "n/a".into(),
            ratio: "—".into(),
            target: "—".into(),
            verdict: Verdict::Info,
        });

        progress("row 6: the same bridge with the ideal extension (the floor)");
        let floor = self.node_bridge(&[self.fake_bridge.as_os_str()]);
        self.report.row(Row {
            id: "6f",
            what: format!("floor of 6d/6e: the same bridge with the ideal extension, sequential / {window} in flight"),
            rust: format!(
                "{} / {} calls/s; `execute` {}",
                fmt_count(floor.seq_rate()),
                fmt_count(floor.conc_rate()),
                fmt_summary(&floor.latency())
            ),
            ts: "n/a".into(),
            ratio: "—".into(),
            target: "—".into(),
            verdict: Verdict::Info,
        });

        progress("row 6: Node without the bridge, raw pipe ping-pong with the ideal extension");
        let raw = self.node_bridge(&[OsStr::new("--raw"), me.as_os_str()]);
        self.report.row(Row {
            id: "6g",
            what: "floor of Node itself: minimal JS (no bridge) ping-pong with the ideal extension, sequential / in flight".into(),
            rust: format!(
                "{} / {} calls/s; round trip {}",
                fmt_count(raw.seq_rate()),
                fmt_count(raw.conc_rate()),
                fmt_summary(&raw.latency())
            ),
            ts: "n/a".into(),
            ratio: "—".into(),
            target: "—".into(),
            verdict: Verdict::Info,
        });
        self.report.note(format!(
            "4: the bridge's factory took {:.1} ms in Node without pi for bench-ext (6d run: registers from the manifest `install` recorded, spawns later) and {:.1} ms for the ideal extension (6f run: no record, so it spawns the binary and handshakes first)",
            real.factory_ms, floor.factory_ms
        ));
    }

    /// Runs `tests/fixtures/bench-bridge.mjs` against an installed bridge (`[index.js]`), or
    /// in raw mode against a binary (`["--raw", binary]`).
    fn node_bridge(&self, target: &[&OsStr]) -> NodeRun {
        let calls = self.sizes.bridge_calls;
        let out = pi_ext_e2e::bridge_node()
            .arg(fixture("bench-bridge.mjs"))
            .args(target)
            .arg(calls.to_string())
            .arg(calls.to_string())
            .arg(self.sizes.window.to_string())
            .env("PI_EXT_LOG_DIR", self.scratch.path())
            .env(FAKE_EXTENSION_ENV, "1")
            .stderr(Stdio::inherit())
            .output()
            .expect("running node bench-bridge.mjs");
        assert!(
            out.status.success(),
            "bench-bridge.mjs failed ({}):\n{}",
            out.status,
            String::from_utf8_lossy(&out.stdout)
        );
        let v: Value = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
            panic!(
                "bench-bridge.mjs printed no JSON ({e}): {}",
                String::from_utf8_lossy(&out.stdout)
            )
        });
        let latencies = v["sequential"]["latenciesUs"]
            .as_array()
            .expect("latenciesUs")
            .iter()
            .map(|x| Duration::from_secs_f64(x.as_f64().unwrap_or(0.0) / 1e6))
            .collect();
        NodeRun {
            factory_ms: v["factoryMs"].as_f64().unwrap_or(f64::NAN),
            seq_calls: v["sequential"]["calls"].as_f64().unwrap_or(0.0),
            seq_seconds: v["sequential"]["seconds"].as_f64().unwrap_or(f64::NAN),
            conc_calls: v["concurrent"]["calls"].as_f64().unwrap_or(0.0),
            conc_seconds: v["concurrent"]["seconds"].as_f64().unwrap_or(f64::NAN),
            window: v["concurrent"]["window"].as_u64().unwrap_or(0),
            latencies,
        }
    }

    // -- row 7: resources -----------------------------------------------------------------------

    fn row7_resources(&mut self) {
        progress("row 7: idle RSS");
        let (ext, ready_in) = {
            let started = Instant::now();
            let ext = DirectExt::spawn(&self.bench_ext, &[]);
            (ext, started.elapsed())
        };
        std::thread::sleep(Duration::from_millis(200));
        let rss = rss_kib(ext.child.id()).expect("VmRSS of the extension");
        drop(ext);
        let limit_kib = 5_000_000 / 1024;
        self.report.row(Row {
            id: "7a",
            what: "idle RSS of the Rust extension process after the handshake (`VmRSS`)".into(),
            rust: format!("{rss} KiB ({:.2} MB)", rss as f64 * 1024.0 / 1e6),
            ts: "n/a (runs inside pi's process, see 4c)".into(),
            ratio: "—".into(),
            target: "≤ 5 MB".into(),
            verdict: if rss <= limit_kib {
                Verdict::Met
            } else {
                Verdict::Missed(format!("{rss} KiB > 5 MB"))
            },
        });
        self.report.note(format!(
            "7a: spawn → `initialize` answered took {:.1} ms for the bench-ext binary run directly",
            ms(ready_in)
        ));

        progress("row 7: hello binary size");
        let hello = example_binary("hello");
        let size = std::fs::metadata(&hello).expect("hello binary").len();
        let release = !cfg!(debug_assertions);
        self.report.row(Row {
            id: "7b",
            what: format!(
                "`hello` example binary ({})",
                if release {
                    "release profile: stripped, thin LTO"
                } else {
                    "debug profile (smoke run): not comparable"
                }
            ),
            rust: format!(
                "{} bytes ({:.2} MB)",
                fmt_count(size as f64),
                size as f64 / 1e6
            ),
            ts: "n/a".into(),
            ratio: "—".into(),
            target: "≤ 3 MB stripped".into(),
            verdict: if !release {
                Verdict::Info
            } else if size <= 3_000_000 {
                Verdict::Met
            } else {
                Verdict::Missed(format!("{:.2} MB > 3 MB", size as f64 / 1e6))
            },
        });

        // A tool-only extension: pi-ext without its optional parts, in the
        // `small` profile of the workspace (the smallest binary) for the
        // full run, in the test profile for the smoke run.
        progress("row 7: the tool-only word-count (pi-ext without default features)");
        let (lean, profile) = if release {
            (
                pi_ext_e2e::lean_binary_small("word-count"),
                "`small` profile: opt-level s, fat LTO, 1 codegen unit, stripped",
            )
        } else {
            (
                pi_ext_e2e::lean_binary("word-count"),
                "debug profile (smoke run): not comparable",
            )
        };
        let lean_size = std::fs::metadata(&lean).expect("word-count binary").len();
        // The median of five starts: the C libraries' resident pages vary
        // with what the page cache holds.
        let mut rss = Vec::new();
        for _ in 0..5 {
            let ext = DirectExt::spawn(&lean, &[]);
            std::thread::sleep(Duration::from_millis(200));
            rss.push(rss_kib(ext.child.id()).expect("VmRSS of word-count"));
            drop(ext);
        }
        rss.sort_unstable();
        let lean_rss = rss[rss.len() / 2];
        self.report.row(Row {
            id: "7f",
            what: format!(
                "idle RSS of the tool-only `word-count` after the handshake (`VmRSS`, median of 5; {profile})"
            ),
            rust: format!("{lean_rss} KiB ({:.2} MB)", lean_rss as f64 * 1024.0 / 1e6),
            ts: "n/a".into(),
            ratio: "—".into(),
            target: "≤ 3.5 MB".into(),
            verdict: if !release {
                Verdict::Info
            } else if lean_rss * 1024 <= 3_500_000 {
                Verdict::Met
            } else {
                Verdict::Missed(format!("{lean_rss} KiB > 3.5 MB"))
            },
        });
        self.report.row(Row {
            id: "7g",
            what: format!("the tool-only `word-count` binary ({profile})"),
            rust: format!(
                "{} bytes ({:.2} MB)",
                fmt_count(lean_size as f64),
                lean_size as f64 / 1e6
            ),
            ts: "n/a".into(),
            ratio: "—".into(),
            target: "≤ 1.8 MB stripped".into(),
            verdict: if !release {
                Verdict::Info
            } else if lean_size <= 1_800_000 {
                Verdict::Met
            } else {
                Verdict::Missed(format!("{:.2} MB > 1.8 MB", lean_size as f64 / 1e6))
            },
        });

        let hello_src = repo_root().join("examples/hello/src/main.rs");
        let src = std::fs::read_to_string(&hello_src).expect("read examples/hello/src/main.rs");
        // Proves that the edit still applies, even when the builds are skipped.
        let _ = edit_tool_body(&src);
        if self.opts.smoke {
            for (id, what) in [
                ("7c", "clean build of `hello`"),
                (
                    "7d",
                    "incremental rebuild of `hello` after editing one tool body",
                ),
            ] {
                self.report.row(Row {
                    id,
                    what: what.into(),
                    rust: "skipped (--smoke)".into(),
                    ts: "n/a".into(),
                    ratio: "—".into(),
                    target: "—".into(),
                    verdict: Verdict::Info,
                });
            }
            return;
        }
        self.build_times();
    }

    /// Clean and incremental builds of `hello` in a private copy of the workspace (with its own
    /// target directory), in the dev and the release profile.
    fn build_times(&mut self) {
        let copy = tempfile::Builder::new()
            .prefix("pi-ext-bench-build-")
            .tempdir()
            .expect("temp dir");
        let ws = copy.path().join("ws");
        copy_tree(&repo_root(), &ws);
        let target = copy.path().join("target");
        let main_rs = ws.join("examples/hello/src/main.rs");
        for release in [false, true] {
            let profile = if release { "release" } else { "dev" };
            progress(&format!(
                "row 7: clean `{profile}` build of hello (a private copy of the workspace)"
            ));
            let clean = cargo_build(&ws, &target, release);
            let mut incremental = Vec::new();
            for _ in 0..3 {
                let src = std::fs::read_to_string(&main_rs).expect("read hello");
                std::fs::write(&main_rs, edit_tool_body(&src)).expect("write hello");
                progress(&format!("row 7: incremental `{profile}` rebuild of hello"));
                incremental.push(cargo_build(&ws, &target, release));
            }
            let inc = summarize(&incremental);
            let cores = std::thread::available_parallelism().map_or(0, |n| n.get());
            self.report.row(Row {
                id: if release { "7e" } else { "7c" },
                what: format!(
                    "clean `cargo build{}` of `hello` ({cores} cores)",
                    if release { " --release" } else { "" }
                ),
                rust: format!("{:.1} s", clean.as_secs_f64()),
                ts: "n/a (no build step)".into(),
                ratio: "—".into(),
                target: "—".into(),
                verdict: Verdict::Info,
            });
            let verdict = if release {
                Verdict::Info
            } else if inc.median <= Duration::from_secs(3) {
                Verdict::Met
            } else {
                Verdict::Missed(format!("{:.2} s > 3 s", inc.median.as_secs_f64()))
            };
            self.report.row(Row {
                id: if release { "7h" } else { "7d" },
                what: format!(
                    "incremental `cargo build{}` of `hello` after editing one tool body (median of 3)",
                    if release { " --release" } else { "" }
                ),
                rust: format!(
                    "{:.2} s (min {:.2}, max {:.2})",
                    inc.median.as_secs_f64(),
                    incremental.iter().min().unwrap().as_secs_f64(),
                    incremental.iter().max().unwrap().as_secs_f64()
                ),
                ts: "n/a (no build step)".into(),
                ratio: "—".into(),
                target: if release { "—".into() } else { "≤ 3 s".into() },
                verdict,
            });
        }
    }
}

/// Which pi a hook row (3, 5) measures: hooks are global to a pi, so each side has its own.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum HookSide {
    /// The Rust hook extension behind its bridge.
    Rust,
    /// Its TypeScript twin.
    Ts,
    /// No extension at all.
    None,
}

/// The sides of a hook row, in the order of [`Bench::hook_pis`] and of the sample arrays.
const HOOK_SIDES: [HookSide; 3] = [HookSide::Rust, HookSide::Ts, HookSide::None];

/// Runs rounds of `one(side, round, counted)` over `pis` (one call per pi per round, in an
/// order that rotates every round) until `iterations` rounds were counted: the first `warmup`
/// rounds are not, and neither is the first round after each session reset. Every
/// `per_session` rounds, each pi gets a fresh session (`new_session`), so that a growing
/// conversation does not skew later rounds.
fn rounds_over_pis(
    pis: &[PiRpc],
    warmup: usize,
    iterations: usize,
    per_session: usize,
    mut one: impl FnMut(usize, usize, bool),
) {
    let reset = || {
        for pi in pis {
            pi.call(json!({"type": "new_session"}));
        }
    };
    reset();
    let (mut counted, mut since_reset, mut round) = (0, 0, 0);
    while counted < iterations {
        if since_reset == per_session {
            reset();
            since_reset = 0;
        }
        let count = round >= warmup && since_reset > 0;
        for k in 0..pis.len() {
            one((k + round) % pis.len(), round, count);
        }
        if count {
            counted += 1;
        }
        since_reset += 1;
        round += 1;
    }
}

/// One prompt answered by a text streamed as `deltas` deltas; returns `prompt` sent →
/// `agent_end` arrived, and how many `message_update` events pi printed meanwhile.
fn stream_prompt(pi: &PiRpc, model: &ScriptedModel, deltas: usize) -> (Duration, usize) {
    model.push(Reply::deltas((0..deltas).map(|i| format!("w{} ", i % 97))));
    let mark = pi.mark();
    let updates = pi.skipped_message_updates();
    let sent = Instant::now();
    pi.prompt_timeout("stream a long answer", PROMPT_TIMEOUT);
    let agent_end = pi
        .timed_events_since(mark)
        .into_iter()
        .find(|(_, e)| e["type"] == "agent_end")
        .map(|(t, _)| t)
        .expect("agent_end");
    (agent_end - sent, pi.skipped_message_updates() - updates)
}

/// The parsed output of `bench-bridge.mjs`.
struct NodeRun {
    factory_ms: f64,
    seq_calls: f64,
    seq_seconds: f64,
    conc_calls: f64,
    conc_seconds: f64,
    window: u64,
    latencies: Vec<Duration>,
}

impl NodeRun {
    fn seq_rate(&self) -> f64 {
        self.seq_calls / self.seq_seconds
    }
    fn conc_rate(&self) -> f64 {
        self.conc_calls / self.conc_seconds
    }
    fn latency(&self) -> Summary {
        summarize(&self.latencies)
    }
}

/// Writes a copy of the installed bridge `bridge_js` whose binary is this benchmark in
/// ideal-extension mode, into `<scratch>/bench-fake/index.js`; returns its path.
fn write_fake_bridge(bridge_js: &Path, scratch: &Path) -> PathBuf {
    let source = std::fs::read_to_string(bridge_js).expect("read the bridge");
    let me = std::env::current_exe().expect("current exe");
    let mut replaced = false;
    let patched: Vec<String> = source
        .lines()
        .map(|line| {
            let Some(config) = line
                .strip_prefix("const CONFIG = ")
                .and_then(|rest| rest.strip_suffix(';'))
            else {
                return line.to_owned();
            };
            let mut config: Value = serde_json::from_str(config).expect("bridge CONFIG");
            config["binary"] = json!(me);
            config["name"] = json!("bench-fake");
            config["log"] = json!(scratch.join("bench-fake.log"));
            // The recorded manifest is bench-ext's, not the ideal extension's.
            if let Some(config) = config.as_object_mut() {
                config.remove("cache");
            }
            replaced = true;
            format!("const CONFIG = {config};")
        })
        .collect();
    assert!(
        replaced,
        "no `const CONFIG = …;` line in the installed bridge"
    );
    let dir = scratch.join("bench-fake");
    std::fs::create_dir_all(&dir).expect("mkdir bench-fake");
    let path = dir.join("index.js");
    std::fs::write(&path, patched.join("\n") + "\n").expect("write the fake bridge");
    // The entry's code and the shared bridge beside it (`bridge.js` in an
    // older pi-ext; neither before the shared one).
    for file in ["entry.cjs", "bridge.cjs", "bridge.js"] {
        let shared = bridge_js.with_file_name(file);
        if shared.is_file() {
            std::fs::copy(&shared, dir.join(file)).expect("copy the shared bridge");
        }
    }
    path
}

/// Prints what the benchmark is doing to stderr, with the time since it started.
fn progress(what: &str) {
    static START: std::sync::OnceLock<Instant> = std::sync::OnceLock::new();
    let start = START.get_or_init(Instant::now);
    eprintln!("[bench {:6.1} s] {what}", start.elapsed().as_secs_f64());
}

// ---------------------------------------------------------------------------------------------
// Driving an extension binary directly, as the bridge does
// ---------------------------------------------------------------------------------------------

/// An extension binary spoken to over its stdin/stdout protocol, without Node.
struct DirectExt {
    child: Child,
    stdin: Option<ChildStdin>,
    stdout: BufReader<ChildStdout>,
    next_id: u64,
    line: Vec<u8>,
}

impl DirectExt {
    /// Spawns `binary` and completes the `initialize` handshake.
    fn spawn(binary: &Path, env: &[(&str, &str)]) -> DirectExt {
        let mut cmd = Command::new(binary);
        cmd.stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null());
        for (k, v) in env {
            cmd.env(k, v);
        }
        let mut child = cmd
            .spawn()
            .unwrap_or_else(|e| panic!("spawn {}: {e}", binary.display()));
        let stdin = child.stdin.take();
        let stdout = BufReader::new(child.stdout.take().expect("stdout"));
        let mut ext = DirectExt {
            child,
            stdin,
            stdout,
            next_id: 1,
            line: Vec::with_capacity(4096),
        };
        let init = json!({"id": 0, "method": "initialize", "params": {
            "protocol": PROTOCOL_VERSION, "bridge": "bench", "pi": pi_ext_e2e::PI_VERSION,
            "mode": "print", "hasUI": false, "cwd": std::env::temp_dir()}});
        ext.write(format!("{init}\n").as_bytes());
        let answer = ext.read();
        assert_eq!(
            answer["result"]["protocol"], PROTOCOL_VERSION,
            "bad initialize answer {answer}"
        );
        ext
    }

    fn write(&mut self, bytes: &[u8]) {
        let stdin = self.stdin.as_mut().expect("stdin open");
        stdin.write_all(bytes).expect("write to the extension");
    }

    fn read(&mut self) -> Value {
        self.line.clear();
        let n = self
            .stdout
            .read_until(b'\n', &mut self.line)
            .expect("read from the extension");
        assert!(n > 0, "the extension closed its stdout");
        serde_json::from_slice(&self.line).expect("a JSON line")
    }

    fn send_call(&mut self) -> u64 {
        let id = self.next_id;
        self.next_id += 1;
        let line = format!(
            "{{\"id\":{id},\"method\":\"tool/call\",\"params\":{{\"tool\":\"trivial\",\"toolCallId\":\"call_{id}\",\"args\":{{\"n\":{id}}}}}}}\n"
        );
        self.write(line.as_bytes());
        id
    }

    /// One `ping`, waiting for its answer; returns the round-trip time.
    fn ping(&mut self) -> Duration {
        let started = Instant::now();
        let id = self.next_id;
        self.next_id += 1;
        self.write(format!("{{\"id\":{id},\"method\":\"ping\",\"params\":{{}}}}\n").as_bytes());
        let answer = self.read();
        assert_eq!(answer["id"].as_u64(), Some(id), "bad answer {answer}");
        started.elapsed()
    }

    /// The process's CPU time so far, its live threads' (`/proc/<pid>/task/*/schedstat`, in
    /// ns); `None` without `/proc`.
    fn cpu(&self) -> Option<Duration> {
        let tasks = std::fs::read_dir(format!("/proc/{}/task", self.child.id())).ok()?;
        let ns: u64 = tasks
            .flatten()
            .filter_map(|t| std::fs::read_to_string(t.path().join("schedstat")).ok())
            .filter_map(|s| s.split_whitespace().next()?.parse::<u64>().ok())
            .sum();
        Some(Duration::from_nanos(ns))
    }

    /// Checks one `tool/call` answer and returns its id.
    fn receive_call(&mut self) -> u64 {
        let answer = self.read();
        let id = answer["id"].as_u64().expect("an answer with an id");
        assert_eq!(
            answer["result"]["content"][0]["text"],
            format!("ok {id}"),
            "bad answer {answer}"
        );
        id
    }

    /// One `tool/call trivial`, waiting for its answer; returns the round-trip time.
    fn call(&mut self) -> Duration {
        let started = Instant::now();
        let id = self.send_call();
        assert_eq!(self.receive_call(), id);
        started.elapsed()
    }

    /// `calls` calls with up to `window` in flight.
    fn pipelined(&mut self, calls: usize, window: usize) {
        let mut sent = 0;
        let mut received = 0;
        while sent < calls.min(window) {
            self.send_call();
            sent += 1;
        }
        while received < calls {
            self.receive_call();
            received += 1;
            if sent < calls {
                self.send_call();
                sent += 1;
            }
        }
    }
}

impl Drop for DirectExt {
    fn drop(&mut self) {
        // EOF makes the extension exit.
        self.stdin.take();
        let deadline = Instant::now() + Duration::from_secs(3);
        while Instant::now() < deadline {
            if let Ok(Some(_)) = self.child.try_wait() {
                return;
            }
            std::thread::sleep(Duration::from_millis(5));
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The ideal minimal extension (run behind the real bridge for the "floor" rows): one thread,
/// blocking reads, one `serde_json::Value` parse per line, one write per answer; no async
/// runtime, no tasks. Serves `trivial` and `confirm_once` (prefixed with
/// `$PI_EXT_BENCH_FAKE_PREFIX`), one call at a time.
fn fake_extension() {
    let prefix = std::env::var(FAKE_PREFIX_ENV).unwrap_or_default();
    let mut fake = FakeExt {
        input: std::io::stdin().lock(),
        output: std::io::stdout().lock(),
        line: Vec::new(),
        next_id: 1,
    };
    while let Some(msg) = fake.read() {
        let Some(id) = msg.get("id").and_then(Value::as_u64) else {
            if msg["method"] == "shutdown" {
                return;
            }
            continue;
        };
        let tool = msg["params"]["tool"].as_str().unwrap_or_default();
        let answer = match msg["method"].as_str() {
            Some("initialize") => {
                let tool = |name: &str, parameters: Value| {
                    json!({"name": format!("{prefix}{name}"), "label": name,
                           "description": "ideal extension (benchmark floor)", "parameters": parameters})
                };
                json!({"protocol": PROTOCOL_VERSION, "sdk": "0.1.0", "manifest": {
                "name": "bench-fake", "version": "0.1.0", "description": "ideal extension",
                "protocol": PROTOCOL_VERSION, "sdk": "0.1.0",
                "tools": [
                    tool("trivial", json!({"type": "object", "properties": {"n": {"type": "integer"}}, "required": ["n"]})),
                    tool("confirm_once", json!({"type": "object", "properties": {}})),
                ]}})
            }
            Some("tool/call") if tool.strip_prefix(prefix.as_str()) == Some("trivial") => {
                let n = &msg["params"]["args"]["n"];
                json!({"content": [{"type": "text", "text": format!("ok {n}")}], "isError": false})
            }
            Some("tool/call") if tool.strip_prefix(prefix.as_str()) == Some("confirm_once") => {
                let Some(outcome) = fake.confirm(id) else {
                    return;
                };
                let yes = outcome["outcome"] == "value" && outcome["value"] == true;
                json!({"content": [{"type": "text", "text": if yes { "yes" } else { "no" }}], "isError": false})
            }
            _ => {
                fake.write(&json!({"id": id, "error": {"code": -32601, "message": "unknown"}}));
                continue;
            }
        };
        if !fake.write(&json!({"id": id, "result": answer})) {
            return;
        }
    }
}

/// The ideal extension's connection.
struct FakeExt<R, W> {
    input: R,
    output: W,
    line: Vec<u8>,
    next_id: u64,
}

impl<R: BufRead, W: Write> FakeExt<R, W> {
    /// The next JSON line, or `None` at EOF.
    fn read(&mut self) -> Option<Value> {
        loop {
            self.line.clear();
            match self.input.read_until(b'\n', &mut self.line) {
                Ok(0) | Err(_) => return None,
                Ok(_) => {}
            }
            if let Ok(msg) = serde_json::from_slice(&self.line) {
                return Some(msg);
            }
        }
    }

    fn write(&mut self, msg: &Value) -> bool {
        let mut bytes = serde_json::to_vec(msg).expect("serialise");
        bytes.push(b'\n');
        self.output
            .write_all(&bytes)
            .and_then(|()| self.output.flush())
            .is_ok()
    }

    /// Asks one `confirm` for bridge request `call` and waits for the answer.
    fn confirm(&mut self, call: u64) -> Option<Value> {
        let id = self.next_id;
        self.next_id += 1;
        let request = json!({"id": id, "method": "ui/dialog", "params": {
            "call": call, "method": "confirm", "title": "Bench", "message": "Confirm once?"}});
        if !self.write(&request) {
            return None;
        }
        loop {
            let msg = self.read()?;
            if msg["id"] == id && msg.get("method").is_none() {
                return Some(msg["result"].clone());
            }
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Processes and the machine
// ---------------------------------------------------------------------------------------------

/// The `TOTAL` of the startup timings pi prints to stderr with `PI_TIMING=1` (printed before
/// pi answers anything in RPC mode; waits up to 5 s for the stderr reader to catch up).
fn pi_timing_total(pi: &PiRpc) -> Duration {
    let deadline = Instant::now() + Duration::from_secs(5);
    loop {
        let stderr = pi.stderr();
        let total = stderr
            .lines()
            .find_map(|l| l.trim().strip_prefix("TOTAL:"))
            .and_then(|v| v.trim().strip_suffix("ms"))
            .and_then(|v| v.trim().parse::<u64>().ok());
        if let Some(ms) = total {
            return Duration::from_millis(ms);
        }
        assert!(
            Instant::now() < deadline,
            "pi printed no `TOTAL: <n>ms` with PI_TIMING=1:\n{stderr}"
        );
        std::thread::sleep(Duration::from_millis(10));
    }
}

/// User plus system CPU time of a process so far, in clock ticks.
fn cpu_ticks(pid: u32) -> Option<u64> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // After "pid (comm)": state is field 3; utime and stime are fields 14 and 15.
    let rest = &stat[stat.rfind(')')? + 1..];
    let fields: Vec<&str> = rest.split_whitespace().collect();
    let utime: u64 = fields.get(11)?.parse().ok()?;
    let stime: u64 = fields.get(12)?.parse().ok()?;
    Some(utime + stime)
}

/// Clock ticks per second of `/proc/<pid>/stat` times (`getconf CLK_TCK`; 100 on Linux),
/// asked once: every CPU figure of the report converts with it.
fn clock_ticks_per_second() -> f64 {
    static TICKS: std::sync::OnceLock<f64> = std::sync::OnceLock::new();
    *TICKS.get_or_init(|| {
        Command::new("getconf")
            .arg("CLK_TCK")
            .output()
            .ok()
            .and_then(|o| String::from_utf8(o.stdout).ok())
            .and_then(|s| s.trim().parse().ok())
            .unwrap_or(100.0)
    })
}

/// The kernel's name of a process running `binary` (`comm`: at most 15 bytes).
fn process_comm(binary: &str) -> String {
    binary.chars().take(15).collect()
}

/// `VmRSS` of a process, in KiB.
fn rss_kib(pid: u32) -> Option<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.split_whitespace().next())
        .and_then(|v| v.parse().ok())
}

/// The pid of a direct child of `parent` whose command name is `name`.
fn find_child(parent: u32, name: &str) -> Option<u32> {
    for entry in std::fs::read_dir("/proc").ok()?.flatten() {
        let Some(pid) = entry
            .file_name()
            .to_str()
            .and_then(|s| s.parse::<u32>().ok())
        else {
            continue;
        };
        let Ok(stat) = std::fs::read_to_string(format!("/proc/{pid}/stat")) else {
            continue;
        };
        // "pid (comm) state ppid …"; comm may contain spaces, so split at the last ')'.
        let (Some(open), Some(close)) = (stat.find('('), stat.rfind(')')) else {
            continue;
        };
        let comm = &stat[open + 1..close];
        let ppid = stat[close + 1..]
            .split_whitespace()
            .nth(1)
            .and_then(|p| p.parse::<u32>().ok());
        if comm == name && ppid == Some(parent) {
            return Some(pid);
        }
    }
    None
}

/// A Markdown list describing the machine and the toolchain.
fn machine_description() -> String {
    let cpuinfo = std::fs::read_to_string("/proc/cpuinfo").unwrap_or_default();
    let cpu = cpuinfo
        .lines()
        .find_map(|l| l.strip_prefix("model name"))
        .map(|l| l.trim_start_matches([' ', '\t', ':']).to_owned())
        .unwrap_or_else(|| "unknown CPU".into());
    let cores = std::thread::available_parallelism().map_or(0, |n| n.get());
    let mem = std::fs::read_to_string("/proc/meminfo")
        .ok()
        .and_then(|m| {
            m.lines()
                .find_map(|l| l.strip_prefix("MemTotal:"))
                .and_then(|v| v.split_whitespace().next()?.parse::<u64>().ok())
        })
        .map_or("?".into(), |kib| {
            format!("{:.0} GiB", kib as f64 / 1048576.0)
        });
    let kernel = std::fs::read_to_string("/proc/sys/kernel/osrelease")
        .map(|s| s.trim().to_owned())
        .unwrap_or_default();
    let output = |cmd: &dyn AsRef<std::ffi::OsStr>, arg: &str| {
        Command::new(cmd)
            .arg(arg)
            .output()
            .ok()
            .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_owned())
            .unwrap_or_else(|| "?".into())
    };
    let date = Command::new("date")
        .args(["-u", "+%Y-%m-%d %H:%M UTC"])
        .output()
        .ok()
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_owned())
        .unwrap_or_default();
    let profile = if cfg!(debug_assertions) {
        "debug (figures not representative)"
    } else {
        "release"
    };
    format!(
        "- date: {date}\n- machine: {cpu}, {cores} cores, {mem} RAM, Linux {kernel}\n\
         - toolchain: {}, node {}, pi {} (`{}`); benchmark and extensions built in the {profile} profile",
        output(&"rustc", "--version"),
        output(&pi_ext_e2e::pi_node(), "--version"),
        pi_ext_e2e::PI_VERSION,
        pi_ext_e2e::PI_PACKAGE,
    )
}

// ---------------------------------------------------------------------------------------------
// Build times
// ---------------------------------------------------------------------------------------------

/// Copies the workspace's sources (everything but `target`, `node_modules` and `.git`).
fn copy_tree(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap_or_else(|e| panic!("mkdir {}: {e}", to.display()));
    for entry in std::fs::read_dir(from).expect("read dir").flatten() {
        let name = entry.file_name();
        if from == repo_root()
            && ["target", "node_modules", ".git"]
                .map(OsString::from)
                .contains(&name)
        {
            continue;
        }
        let kind = entry.file_type().expect("file type");
        let (src, dst) = (entry.path(), to.join(&name));
        if kind.is_dir() {
            copy_tree(&src, &dst);
        } else if kind.is_file() {
            std::fs::copy(&src, &dst).unwrap_or_else(|e| panic!("copy {}: {e}", src.display()));
        }
    }
}

/// `cargo build -p hello` in `ws` with its own target directory; returns the wall time.
fn cargo_build(ws: &Path, target: &Path, release: bool) -> Duration {
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let mut cmd = Command::new(cargo);
    cmd.args(["build", "--quiet", "-p", "hello"]);
    if release {
        cmd.arg("--release");
    }
    cmd.current_dir(ws)
        .env("CARGO_TARGET_DIR", target)
        .stdout(Stdio::null())
        .stderr(Stdio::piped());
    let started = Instant::now();
    let mut child = cmd.spawn().expect("spawn cargo");
    let mut stderr = String::new();
    if let Some(mut e) = child.stderr.take() {
        let _ = e.read_to_string(&mut stderr);
    }
    let status = child.wait().expect("wait for cargo");
    let took = started.elapsed();
    assert!(status.success(), "cargo build -p hello failed:\n{stderr}");
    took
}

/// `src` (the `hello` example) with the body of its first tool changed: one more `x` at the
/// start of the first `format!` string after `#[tool`.
fn edit_tool_body(src: &str) -> String {
    let at = src
        .find("#[tool")
        .and_then(|tool| src[tool..].find("format!(").map(|i| tool + i))
        .and_then(|format| src[format..].find('"').map(|i| format + i + 1))
        .unwrap_or_else(|| {
            panic!(
                "examples/hello/src/main.rs has no `format!(\"…` after `#[tool`: update edit_tool_body in bench.rs"
            )
        });
    format!("{}x{}", &src[..at], &src[at..])
}
