//! The mirrored lists and the session copy equal pi's own view, in the real pi.
//!
//! `tests/fixtures/mirror-twin.ts` (loaded first) writes pi's view of every `context` and
//! `before_provider_request` call and, on `/twin-session`, the session's entries, branch and
//! leaf; the `mirror-probe` Rust extension writes what its hooks received (the messages as the
//! runtime rebuilt them from the bridge's edits) and what `session_entries()`,
//! `session_branch()` and `session_leaf_id()` returned. After every operation that changes
//! the conversation or the session (appends, tool calls, in-place edits by an earlier handler,
//! tree navigation, compaction, fork, new session, switching back, `/reload`, a killed
//! extension process) the two files must agree, call by call. The Rust hook also prunes (its
//! answer goes back as edits), and `tests/fixtures/mirror-after.ts`, loaded after it, writes
//! what pi made of each answer.

use std::path::{Path, PathBuf};

use pi_ext_e2e::{
    install_example, wait_until, PiEnv, PiRpc, Reply, ScriptedModel, ToolCall, DEFAULT_TIMEOUT,
};
use serde_json::{json, Value};

fn lines(path: &Path, kind: &str) -> Vec<Value> {
    std::fs::read_to_string(path)
        .unwrap_or_default()
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap_or_else(|e| panic!("{e}: {l}")))
        .filter(|v| v["kind"] == kind)
        .collect()
}

struct Probe {
    dir: PathBuf,
}

impl Probe {
    fn twin(&self, kind: &str) -> Vec<Value> {
        lines(&self.dir.join("twin.jsonl"), kind)
    }

    fn rust(&self, kind: &str) -> Vec<Value> {
        lines(&self.dir.join("rust.jsonl"), kind)
    }

    /// Every `context` and `before_provider_request` call so far: the Rust hook saw exactly
    /// what pi handed the bridge. Returns how many context calls there were.
    #[track_caller]
    fn assert_calls_equal(&self, step: &str) -> usize {
        let twin = self.twin("context");
        let rust = self.rust("context");
        assert_eq!(twin.len(), rust.len(), "{step}: context calls");
        for (i, (t, r)) in twin.iter().zip(&rust).enumerate() {
            assert_eq!(
                t["messages"], r["messages"],
                "{step}: context call {i} differs"
            );
        }
        // What the hook answered (edits of its input) is what pi passed on.
        let twin_out = self.twin("context-out");
        let rust_out = self.rust("context-out");
        assert_eq!(twin_out.len(), rust_out.len(), "{step}: context answers");
        assert_eq!(twin_out.len(), twin.len(), "{step}: every call answered");
        for (i, (t, r)) in twin_out.iter().zip(&rust_out).enumerate() {
            assert_eq!(
                t["messages"], r["messages"],
                "{step}: what pi made of context answer {i} differs"
            );
        }
        let twin = self.twin("provider");
        let rust = self.rust("provider");
        assert_eq!(twin.len(), rust.len(), "{step}: provider calls");
        for (i, (t, r)) in twin.iter().zip(&rust).enumerate() {
            assert_eq!(
                t["payload"], r["payload"],
                "{step}: provider call {i} differs"
            );
        }
        rust.len()
    }

    /// The session as `session_entries()`/`session_branch()`/`session_leaf_id()` read it
    /// equals pi's `getEntries()`/`getBranch()`/`getLeafId()`.
    #[track_caller]
    fn assert_session_equal(&self, pi: &PiRpc, step: &str) -> Value {
        let before = self.twin("session").len();
        pi.call(json!({"type": "prompt", "message": "/twin-session"}));
        pi.call(json!({"type": "prompt", "message": "/probe-session"}));
        wait_until("both session views", || {
            self.twin("session").len() > before && self.rust("session").len() > before
        });
        let twin = self.twin("session").pop().unwrap();
        let rust = self.rust("session").pop().unwrap();
        for field in ["entries", "branch", "leaf"] {
            assert_eq!(twin[field], rust[field], "{step}: session {field} differs");
        }
        assert!(
            !twin["entries"].as_array().unwrap().is_empty(),
            "{step}: an empty session proves nothing"
        );
        twin
    }

    /// The extension process that answered the last context call.
    fn last_pid(&self) -> u64 {
        self.rust("context").last().unwrap()["pid"]
            .as_u64()
            .unwrap()
    }

    /// Bytes of each `hook/call` line of the context hook, from the extension's traffic log.
    fn context_call_bytes(&self, env: &PiEnv) -> Vec<usize> {
        traffic_sizes(env, "received hook/call mirror_probe::view (")
    }

    /// The size of each answer of the `context` hook (`PI_EXT_LOG_TRAFFIC` lines of its process).
    fn context_answer_bytes(&self, env: &PiEnv) -> Vec<usize> {
        traffic_sizes(env, "answered hook `mirror_probe::view` (")
    }
}

/// The byte counts of the `PI_EXT_LOG_TRAFFIC` lines of `mirror-probe`'s log that contain
/// `marker` (which ends with the `(` before the count).
fn traffic_sizes(env: &PiEnv, marker: &str) -> Vec<usize> {
    let log = env.extensions_dir().join("mirror-probe/mirror-probe.log");
    std::fs::read_to_string(log)
        .unwrap_or_default()
        .lines()
        .filter(|l| l.contains(marker))
        .map(|l| {
            let tail = l.rsplit('(').next().unwrap();
            tail.split(' ').next().unwrap().parse().unwrap()
        })
        .collect()
}

fn entry_ids_of_user_messages(session: &Value) -> Vec<String> {
    session["branch"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["type"] == "message" && e["message"]["role"] == "user")
        .map(|e| e["id"].as_str().unwrap().to_owned())
        .collect()
}

#[test]
fn the_mirror_and_the_session_copy_equal_pis_view_through_every_change() {
    let model = ScriptedModel::start();
    let env = PiEnv::new(&model);
    // Compaction keeps almost nothing, so that a short session can be compacted.
    env.edit_settings(|s| {
        s["compaction"] = json!({"enabled": false, "keepRecentTokens": 1});
    });
    let dir = install_example(&env, "mirror-probe");
    let probe = Probe {
        dir: env.root().join("probe"),
    };
    std::fs::create_dir_all(&probe.dir).unwrap();
    // A tool output large enough that resending it would show in the line sizes.
    let big: String = (0..600)
        .map(|i| format!("line {i} of the file\n"))
        .collect();
    std::fs::write(env.cwd().join("notes.txt"), &big).unwrap();
    let sessions = env.root().join("sessions");
    let pi = env
        .pi()
        .session_dir(&sessions)
        .extension(pi_ext_e2e::fixture("mirror-twin.ts"))
        .installed(&dir)
        .extension(pi_ext_e2e::fixture("mirror-after.ts"))
        .env("MIRROR_PROBE_DIR", &probe.dir)
        .env("MIRROR_PROBE_PRUNE", "1")
        .env("MIRROR_TWIN_MUTATE", "1")
        .env("PI_EXT_LOG_TRAFFIC", "1")
        .start();

    // Appends: a text answer, then a tool call and its result, then more text.
    model.push(Reply::text("First answer."));
    pi.prompt("Hello there");
    model.push(Reply::tools([ToolCall::new(
        "r1",
        "read",
        json!({"path": "notes.txt"}),
    )]));
    model.push(Reply::text("Read it."));
    pi.prompt("read the notes");
    model.push(Reply::text("Third."));
    pi.prompt("and again");
    // Twice from the bridge's copy of the pruned result, which mirror-after.ts changes in
    // place each time it gets one.
    model.push(Reply::text("Fourth."));
    pi.prompt("once more");
    let calls = probe.assert_calls_equal("appends and in-place edits");
    assert!(calls >= 4, "{calls} context calls");
    // The pruned tool output reached the model, and the first message was dropped.
    let last = model.requests().pop().unwrap().to_string().to_lowercase();
    assert!(
        last.contains("[pruned]")
            && !last.contains("line 599 of the file")
            && !last.contains("hello there"),
        "{last}"
    );
    // After the first call of a process, a call sends what changed: the calls after the one
    // that first carried the tool output (~15 KB) are far smaller than it.
    let bytes = probe.context_call_bytes(&env);
    assert_eq!(bytes.len(), calls, "{bytes:?}");
    let largest = *bytes.iter().max().unwrap();
    assert!(largest > big.len(), "{bytes:?}");
    assert!(bytes[calls - 1] < big.len() / 4, "{bytes:?}");
    // The answers go back the same way: the last one names the pruned tool result its
    // previous answer made (the bridge keeps a copy), instead of sending it again. Its line
    // is ~80 bytes; the placeholder message alone is ~140.
    let answers = probe.context_answer_bytes(&env);
    assert_eq!(answers.len(), calls, "{answers:?}");
    assert!(answers[calls - 1] < 120, "{answers:?}");
    let session = probe.assert_session_equal(&pi, "appends");
    let pid = probe.last_pid();

    // Tree navigation back to the first user message's parent: the conversation shrinks.
    let users = entry_ids_of_user_messages(&session);
    assert!(users.len() >= 3, "{users:?}");
    let second_user = session["branch"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["id"] == users[1].as_str())
        .unwrap()["parentId"]
        .as_str()
        .unwrap()
        .to_owned();
    pi.call(json!({"type": "prompt", "message": format!("/twin-tree {second_user}")}));
    probe.assert_session_equal(&pi, "tree navigation");
    pi.prompt("after navigating");
    probe.assert_calls_equal("tree navigation");
    probe.assert_session_equal(&pi, "a prompt after tree navigation");

    // Compaction: the conversation is rebuilt from a summary.
    model.push(Reply::text("Summary of the conversation so far."));
    model.push(Reply::text("Summary of the split turn."));
    let compacted = pi.call(json!({"type": "compact"}));
    assert!(compacted.get("summary").is_some(), "{compacted}");
    pi.prompt("after compaction");
    probe.assert_calls_equal("compaction");
    let session = probe.assert_session_equal(&pi, "compaction");
    assert!(
        session["entries"]
            .as_array()
            .unwrap()
            .iter()
            .any(|e| e["type"] == "compaction"),
        "compacted"
    );
    let first_file = pi.call(json!({"type": "get_state"}))["sessionFile"]
        .as_str()
        .unwrap()
        .to_owned();

    // Fork from an earlier user message: a new session with a new id.
    let forks = pi.call(json!({"type": "get_fork_messages"}));
    let entry = forks["messages"][0]["entryId"].as_str().unwrap().to_owned();
    let forked = pi.call(json!({"type": "fork", "entryId": entry}));
    assert_eq!(forked["cancelled"], false, "{forked}");
    pi.prompt("in the fork");
    probe.assert_calls_equal("fork");
    probe.assert_session_equal(&pi, "fork");

    // A new session, then back to the first file.
    pi.call(json!({"type": "new_session"}));
    pi.prompt("in a new session");
    probe.assert_calls_equal("new session");
    probe.assert_session_equal(&pi, "new session");
    let switched = pi.call(json!({"type": "switch_session", "sessionPath": first_file}));
    assert_eq!(switched["cancelled"], false, "{switched}");
    pi.prompt("back in the first session");
    probe.assert_calls_equal("switch back");
    probe.assert_session_equal(&pi, "switch back");

    // /reload: new extension instances; the bridge and the process start over.
    let before_reload = probe.last_pid();
    pi.call(json!({"type": "prompt", "message": "/twin-reload"}));
    pi.prompt("after reload");
    probe.assert_calls_equal("reload");
    probe.assert_session_equal(&pi, "reload");
    assert_ne!(
        probe.last_pid(),
        before_reload,
        "/reload started a new process"
    );

    // A killed extension process: the next call starts a new one, which gets the whole list.
    let pid_now = probe.last_pid();
    // Sound: kill(2) takes plain integers and touches no memory of this process; the pid is
    // the extension's own (it wrote it), a child of the pi this test started.
    let killed = unsafe { libc::kill(pid_now as i32, libc::SIGKILL) };
    assert_eq!(killed, 0, "kill {pid_now}");
    // pi reaps its child and the bridge learns of the exit in the same callback; a call made
    // before that would go to the dead process and fail (not what this step tests).
    wait_until("pi to reap the killed extension process", || {
        !Path::new(&format!("/proc/{pid_now}")).exists()
    });
    pi.prompt("after the extension process died");
    probe.assert_calls_equal("restart");
    probe.assert_session_equal(&pi, "restart");
    assert_ne!(probe.last_pid(), pid_now, "a new process answered");
    assert_ne!(pid, pid_now);
}

/// The session's entry of `kind` (with `field` equal to `value`) in a `/twin-session` record.
fn entry_where<'a>(session: &'a Value, kind: &str, field: &str, value: &str) -> Option<&'a Value> {
    session["entries"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["type"] == kind && e[field] == value)
}

#[test]
fn other_sessions_and_tree_moves_with_options_equal_pis_own() {
    let model = ScriptedModel::start();
    let env = PiEnv::new(&model);
    let dir = install_example(&env, "mirror-probe");
    let probe = Probe {
        dir: env.root().join("probe"),
    };
    std::fs::create_dir_all(&probe.dir).unwrap();
    let pi = env
        .pi()
        .session_dir(env.root().join("sessions"))
        .extension(pi_ext_e2e::fixture("mirror-twin.ts"))
        .installed(&dir)
        .env("MIRROR_PROBE_DIR", &probe.dir)
        .start();

    // Session A: two prompts and a name. Then session B, from which A is read.
    model.push(Reply::text("First answer."));
    pi.prompt("first question");
    model.push(Reply::text("Second answer."));
    pi.prompt("second question");
    pi.call(json!({"type": "set_session_name", "name": "review A"}));
    let first = pi.call(json!({"type": "get_state"}))["sessionFile"]
        .as_str()
        .unwrap()
        .to_owned();
    let written = std::fs::read(&first).unwrap();
    pi.call(json!({"type": "new_session"}));
    model.push(Reply::text("Answer in B."));
    pi.prompt("in session B");
    // A command's `prompt` is answered once its handler has finished.
    pi.command_line(&format!("/twin-other {first}"));
    pi.command_line(&format!("/probe-other {first}"));
    let mut twin = probe.twin("other").pop().unwrap();
    let rust = probe.rust("other").pop().unwrap();
    // `SessionHeader` is typed: its `type` is always "session" and not a field.
    for header in ["header", "otherHeader"] {
        assert_eq!(twin[header]["type"], "session");
        twin[header].as_object_mut().unwrap().remove("type");
    }
    for field in [
        "header",
        "list",
        "otherHeader",
        "otherName",
        "otherEntries",
        "otherBranch",
        "otherLeaf",
    ] {
        assert_eq!(twin[field], rust[field], "{field} differs");
    }
    assert_eq!(rust["otherName"], "review A");
    assert_eq!(rust["list"].as_array().unwrap().len(), 2, "{rust}");
    assert_ne!(rust["header"]["id"], rust["otherHeader"]["id"]);
    assert!(
        rust["otherEntries"].as_array().unwrap().len() >= 4,
        "{rust}"
    );
    assert_eq!(
        std::fs::read(&first).unwrap(),
        written,
        "reading wrote to it"
    );

    // A missing file is a clear error, and the command goes on failing cleanly.
    let missing = env.root().join("no-such.jsonl");
    let mark = pi.mark();
    pi.command_line(&format!("/probe-other {}", missing.display()));
    let error = pi.wait_event_since(mark, |e| e["type"] == "extension_error", DEFAULT_TIMEOUT);
    let message = error["error"].as_str().unwrap();
    assert!(message.contains("no session file at"), "{message}");

    // Back in A: move to the first answer with a label, then, summarizing, to the first
    // question's parent with the summarizer's instructions.
    let switched = pi.call(json!({"type": "switch_session", "sessionPath": first}));
    assert_eq!(switched["cancelled"], false, "{switched}");
    let session = probe.assert_session_equal(&pi, "switched back");
    let branch = session["branch"].as_array().unwrap().clone();
    let answer = branch
        .iter()
        .find(|e| e["message"]["role"] == "assistant")
        .unwrap()["id"]
        .as_str()
        .unwrap()
        .to_owned();
    pi.command_line(&format!("/probe-tree {answer} checkpoint one"));
    assert_eq!(probe.rust("tree").len(), 1);
    let session = probe.assert_session_equal(&pi, "labelled move");
    // The branch ends at the answer (pi appends the label entry after it).
    let now = session["branch"].as_array().unwrap();
    let at = now.iter().position(|e| e["id"] == answer.as_str()).unwrap();
    assert!(
        now[at + 1..].iter().all(|e| e["type"] == "label"),
        "{now:?}"
    );
    let label = entry_where(&session, "label", "targetId", &answer).expect("a label entry");
    assert_eq!(label["label"], "checkpoint one");

    let requests = model.requests().len();
    model.push(Reply::text("Summary: the tests were discussed."));
    let root = branch[0]["id"].as_str().unwrap().to_owned();
    pi.command_line(&format!("/probe-tree --summarize {root} review"));
    assert_eq!(probe.rust("tree").len(), 2);
    assert_eq!(probe.rust("tree")[1]["moved"], true);
    let session = probe.assert_session_equal(&pi, "summarizing move");
    let summary = entry_where(&session, "branch_summary", "fromId", &answer)
        .or_else(|| {
            session["entries"]
                .as_array()
                .unwrap()
                .iter()
                .find(|e| e["type"] == "branch_summary")
        })
        .expect("a branch summary entry");
    assert!(
        summary["summary"]
            .as_str()
            .unwrap()
            .contains("the tests were discussed"),
        "{summary}"
    );
    let id = summary["id"].as_str().unwrap();
    let label = entry_where(&session, "label", "targetId", id).expect("the summary's label");
    assert_eq!(label["label"], "review");
    let asked = model.requests()[requests].to_string();
    assert!(asked.contains("Focus on the tests"), "{asked}");
}
