//! Measures a trivial Rust tool call inside the real pi: the time from
//! `tool_execution_start` to `tool_execution_end` (as read from pi's RPC
//! stdout) and from writing `prompt` to `agent_end`.
//!
//! `cargo run --release -p pi-ext-e2e --bin latency -- [iterations]` (default 50).
//! Prints median, p90 and p99. Timings are printed, never asserted.

use std::time::{Duration, Instant};

use pi_ext_e2e::{example_binary, PiEnv, Reply, ScriptedModel};
use serde_json::json;

fn percentile(sorted: &[Duration], p: f64) -> Duration {
    let idx = ((sorted.len() as f64 - 1.0) * p).round() as usize;
    sorted[idx]
}

fn report(name: &str, mut v: Vec<Duration>) {
    v.sort();
    println!(
        "{name:<40} n={:<4} median {:>8.3} ms   p90 {:>8.3} ms   p99 {:>8.3} ms",
        v.len(),
        percentile(&v, 0.5).as_secs_f64() * 1e3,
        percentile(&v, 0.9).as_secs_f64() * 1e3,
        percentile(&v, 0.99).as_secs_f64() * 1e3,
    );
}

fn main() {
    let iterations: usize = std::env::args()
        .nth(1)
        .and_then(|a| a.parse().ok())
        .unwrap_or(50);
    let warmup = 5;
    let hello = example_binary("hello");
    let model = ScriptedModel::start();
    let env = PiEnv::new(&model);
    let status = std::process::Command::new(&hello)
        .arg("install")
        .env("HOME", env.home())
        .env("PI_CODING_AGENT_DIR", env.agent_dir())
        .stdout(std::process::Stdio::null())
        .status()
        .expect("install");
    assert!(status.success());
    let pi = env
        .pi()
        .no_extensions()
        .extension(env.extensions_dir().join("hello/index.js"))
        .skip_message_updates()
        .start();

    let mut tool = Vec::new();
    let mut whole = Vec::new();
    for i in 0..warmup + iterations {
        let id = format!("call_{i}");
        model.push(Reply::tool(&id, "greet", json!({"name": "Ada"})));
        model.push(Reply::text("ok"));
        let mark = pi.mark();
        let sent = Instant::now();
        pi.prompt("greet");
        let events = pi.timed_events_since(mark);
        let at = |ty: &str| {
            events
                .iter()
                .find(|(_, e)| e["type"] == ty)
                .map(|(t, _)| *t)
                .unwrap_or_else(|| panic!("no {ty}"))
        };
        if i >= warmup {
            tool.push(at("tool_execution_end") - at("tool_execution_start"));
            whole.push(at("agent_end") - sent);
        }
    }
    println!("trivial Rust tool `greet` through the bridge, pi {} ({iterations} runs after {warmup} warm-up)", pi_ext_e2e::PI_VERSION);
    report("tool_execution_start -> tool_execution_end", tool);
    report("prompt -> agent_end (2 model requests)", whole);
}
