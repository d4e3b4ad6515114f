//! Ports of pi 1.6's input-transform-streaming.ts (the input event's
//! `streamingBehavior`, `pi.exec`) and git-merge-and-resolve.ts (a merge
//! after each run, conflicts as a follow-up), each run side by side with
//! its TypeScript original on the same inputs: what the model is asked and
//! what pi records must match.

use pi_ext_e2e::json::{messages, notifications};
use pi_ext_e2e::{
    git, install_example, wait_until, PiEnv, PiRpc, Reply, ScriptedModel, DEFAULT_TIMEOUT,
};
use serde_json::json;

/// pi with the Rust port (`Some(example)`) or pi's TypeScript original.
fn start(env: &PiEnv, port: Option<&str>, ts: &str) -> PiRpc {
    match port {
        Some(example) => {
            let dir = install_example(env, example);
            env.pi().installed(&dir).start()
        }
        None => env
            .pi()
            .no_extensions()
            .extension(pi_ext_e2e::pi_example(ts))
            .start(),
    }
}

/// The user messages' texts of each request the model got.
fn user_texts(model: &ScriptedModel) -> Vec<Vec<String>> {
    model
        .requests()
        .iter()
        .map(|r| {
            messages(r)
                .iter()
                .filter(|m| m["role"] == "user")
                .map(pi_ext_e2e::json::content_text)
                .collect()
        })
        .collect()
}

/// A steer while a tool runs, then a prompt, both mentioning changes, in a
/// git repository with an uncommitted change: what the model was asked.
fn streaming_run(port: Option<&str>) -> Vec<Vec<String>> {
    let model = ScriptedModel::start();
    let env = PiEnv::new(&model);
    let cwd = env.cwd();
    git(&cwd, &["init", "-q"]);
    std::fs::write(cwd.join("notes.txt"), "one\n").unwrap();
    git(&cwd, &["add", "notes.txt"]);
    git(&cwd, &["commit", "-qm", "first"]);
    std::fs::write(cwd.join("notes.txt"), "one\ntwo\n").unwrap();
    let pi = start(&env, port, "input-transform-streaming.ts");
    // The tool runs until the test has steered.
    model.push(Reply::tool(
        "w1",
        "bash",
        json!({"command": "while [ ! -f ../go ]; do sleep 0.05; done; echo waited"}),
    ));
    model.push(Reply::text("steered"));
    model.push(Reply::text("diffed"));
    let mark = pi.mark();
    pi.send(json!({"type": "prompt", "message": "wait for me"}));
    pi.wait_event_since(
        mark,
        |e| e["type"] == "tool_execution_start" && e["toolCallId"] == "w1",
        DEFAULT_TIMEOUT,
    );
    pi.call(json!({"type": "steer", "message": "also list my changes"}));
    std::fs::write(env.root().join("go"), "").unwrap();
    pi.wait_event_since(mark, |e| e["type"] == "agent_end", DEFAULT_TIMEOUT);
    pi.prompt("show the diff of my changes");
    user_texts(&model)
}

#[test]
fn input_transform_streaming_skips_git_for_a_steer_as_the_original() {
    let original = streaming_run(None);
    let port = streaming_run(Some("input-transform-streaming"));
    assert_eq!(port, original);
    // The steer reached the model as typed; the prompt with git's report.
    let last = |request: &Vec<String>| request.last().cloned().unwrap_or_default();
    assert_eq!(last(&original[1]), "also list my changes");
    let prompt = last(&original[2]);
    assert!(
        prompt.starts_with("show the diff of my changes\n\nCurrent uncommitted changes:\n```\n")
            && prompt.contains("notes.txt"),
        "{prompt}"
    );
}

/// A repository whose upstream has a change that conflicts with a local
/// commit; the follow-up the extension sends after the first run, and what
/// pi recorded.
fn merge_run(port: Option<&str>) -> (Vec<Vec<String>>, Vec<String>, String) {
    let model = ScriptedModel::start();
    let env = PiEnv::new(&model);
    let root = env.root();
    let cwd = env.cwd();
    git(root, &["init", "-q", "--bare", "up.git"]);
    git(root, &["clone", "-q", "up.git", "seed"]);
    let seed = root.join("seed");
    std::fs::write(seed.join("file.txt"), "base\n").unwrap();
    git(&seed, &["add", "file.txt"]);
    git(&seed, &["commit", "-qm", "base"]);
    git(&seed, &["push", "-q", "origin", "HEAD:main"]);
    git(&cwd, &["clone", "-q", "../up.git", "."]);
    git(&cwd, &["config", "user.name", "t"]);
    git(&cwd, &["config", "user.email", "t@t"]);
    std::fs::write(seed.join("file.txt"), "theirs\n").unwrap();
    git(&seed, &["commit", "-qam", "theirs"]);
    git(&seed, &["push", "-q", "origin", "HEAD:main"]);
    std::fs::write(cwd.join("file.txt"), "ours\n").unwrap();
    git(&cwd, &["commit", "-qam", "ours"]);

    let pi = start(&env, port, "git-merge-and-resolve.ts");
    model.push(Reply::text("ok"));
    // The follow-up's run resolves the conflict, so no other follows.
    model.push(Reply::tool(
        "r1",
        "bash",
        json!({"command": "printf 'resolved\\n' > file.txt && git add file.txt && echo fixed"}),
    ));
    model.push(Reply::text("resolved"));
    let mark = pi.mark();
    pi.prompt("hi");
    wait_until("the follow-up's run to end", || {
        pi.events_since(mark)
            .iter()
            .filter(|e| e["type"] == "agent_end")
            .count()
            >= 2
    });
    let told = notifications(&pi.events_since(mark));
    let status = git(&cwd, &["status", "--porcelain"]);
    (user_texts(&model), told, status)
}

#[test]
fn git_merge_and_resolve_reports_conflicts_as_the_original() {
    let original = merge_run(None);
    let port = merge_run(Some("git-merge-and-resolve"));
    assert_eq!(port, original);
    let (asked, told, status) = original;
    assert_eq!(asked.len(), 3, "{asked:?}");
    let follow_up = asked[1].last().unwrap();
    assert!(
        follow_up.starts_with("Merged origin/main with conflicts:")
            && follow_up.contains("file.txt:1-5"),
        "{follow_up}"
    );
    assert!(
        told.iter().any(|n| n.contains("fetching origin")),
        "{told:?}"
    );
    assert_eq!(status, "M  file.txt\n");
}
