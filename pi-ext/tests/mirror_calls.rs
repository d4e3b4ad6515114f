//! Mirrored `context` calls through the dispatcher: the list is rebuilt from
//! the bridge's edits before the hook runs, the hook's answer goes back as
//! edits of its input, and an update that does not apply is refused with
//! `-32010` without running the hook (the bridge then sends the whole list).

use std::sync::atomic::{AtomicUsize, Ordering};

use pi_ext::events::{ContextEvent, ContextMessages};
use pi_ext::internals::codes;
use pi_ext::messages::{AgentMessage, Message};
use pi_ext::prelude::*;
use pi_ext::testing::TestHost;
use serde_json::{json, Value};

/// How often `drop_first` ran.
static RUNS: AtomicUsize = AtomicUsize::new(0);

/// Drop the first message; replace the text of every user message that starts with "shout"
/// with its upper case (the same message at every call: its timestamp is kept).
#[hook]
async fn drop_first(event: ContextEvent) -> ContextMessages {
    RUNS.fetch_add(1, Ordering::SeqCst);
    ContextMessages::replace(event.messages.iter().skip(1).map(|m| match m.get() {
        AgentMessage::User(u) if u.content.text().starts_with("shout") => {
            let mut loud = pi_ext::messages::UserMessage::new(u.content.text().to_uppercase());
            loud.timestamp = u.timestamp;
            Message::new(AgentMessage::User(loud))
        }
        _ => m.clone(),
    }))
}

fn user(text: &str, t: u64) -> Value {
    json!({"role": "user", "content": text, "timestamp": t})
}

fn hook_id(host: &TestHost) -> String {
    host.manifest()
        .hooks
        .iter()
        .find(|h| h.id.ends_with("::drop_first"))
        .unwrap()
        .id
        .clone()
}

#[test]
fn edits_rebuild_the_list_answers_are_edits_and_a_wrong_base_is_refused_unrun() {
    let host = TestHost::new();
    let hook = hook_id(&host);
    // The first call: every message a literal.
    let first = host
        .request(
            "hook/call",
            json!({"hook": hook, "context": {"base": null, "gen": 1, "len": 3,
                "ops": [[1, user("a", 1)], [1, user("b", 2)], [1, user("c", 3)]]}}),
        )
        .unwrap();
    // Dropping the first message keeps the other two: one keep run.
    assert_eq!(first["ops"], json!([[0, 1, 2]]), "{first}");
    // The next call keeps the three and adds one; the new one is rewritten.
    let second = host
        .request(
            "hook/call",
            json!({"hook": hook, "context": {"base": 1, "gen": 2, "len": 4,
                "ops": [[0, 0, 3], [1, user("shout d", 4)]]}}),
        )
        .unwrap();
    let ops = second["ops"].as_array().unwrap();
    assert_eq!(ops[0], json!([0, 1, 2]), "{second}");
    assert_eq!(ops[1][0], 1, "{second}");
    assert_eq!(ops[1][1]["content"], "SHOUT D", "{second}");
    assert_eq!(ops.len(), 2, "{second}");
    assert_eq!(RUNS.load(Ordering::SeqCst), 2);
    // The same list again, the bridge holding the second answer's new message: the answer
    // names it instead of sending it again.
    let gen = second["gen"].as_u64().unwrap();
    let third = host
        .request(
            "hook/call",
            json!({"hook": hook, "context": {"base": 2, "gen": 3, "len": 4,
                "ops": [[0, 0, 4]], "prior": gen}}),
        )
        .unwrap();
    assert_eq!(third["ops"], json!([[0, 1, 2], [2, 0, 1]]), "{third}");
    assert_eq!(third["prior"], gen, "{third}");
    assert_eq!(RUNS.load(Ordering::SeqCst), 3);
    // An update against another generation: refused, the hook not run…
    let err = host
        .request(
            "hook/call",
            json!({"hook": hook, "context": {"base": 7, "gen": 8, "len": 1, "ops": [[0, 0, 1]]}}),
        )
        .unwrap_err();
    assert_eq!(err.code, codes::MIRROR_MISMATCH, "{}", err.message);
    assert_eq!(RUNS.load(Ordering::SeqCst), 3);
    // …and the copy is gone: even the right base no longer applies.
    let err = host
        .request(
            "hook/call",
            json!({"hook": hook, "context": {"base": 3, "gen": 4, "len": 4, "ops": [[0, 0, 4]]}}),
        )
        .unwrap_err();
    assert_eq!(err.code, codes::MIRROR_MISMATCH, "{}", err.message);
    // Keeps outside the previous list are refused the same way.
    let err = host
        .request(
            "hook/call",
            json!({"hook": hook, "context": {"base": null, "gen": 4, "len": 2, "ops": [[0, 0, 2]]}}),
        )
        .unwrap_err();
    assert_eq!(err.code, codes::MIRROR_MISMATCH, "{}", err.message);
    assert_eq!(RUNS.load(Ordering::SeqCst), 3);
    // The whole list again works.
    let again = host
        .request(
            "hook/call",
            json!({"hook": hook, "context": {"base": null, "gen": 5, "len": 1,
                "ops": [[1, user("only", 5)]]}}),
        )
        .unwrap();
    assert_eq!(again["ops"], json!([]), "{again}");
    assert_eq!(RUNS.load(Ordering::SeqCst), 4);
}
