//! Lines that serde_json alone cannot read, but JavaScript writes, are read;
//! lines that cannot be read at all are answered, with their id, so that pi
//! never waits for an answer that will not come.

use std::time::Duration;

use pi_ext::internals::codes;
use pi_ext::prelude::*;
use pi_ext::protocol::MAX_DEPTH;
use pi_ext::testing::TestHost;
use serde_json::{json, Value};

/// Greet someone.
#[tool]
async fn greet(name: String) -> String {
    format!("Hello, {name}!")
}

/// Count how deep a value nests.
#[tool]
async fn depth(data: Value) -> String {
    let (mut v, mut n) = (data, 0);
    while let Value::Array(mut items) = v {
        v = items.pop().unwrap_or(Value::Null);
        n += 1;
    }
    n.to_string()
}

/// The answer to request `id`, skipping anything else the extension sends.
fn answer(host: &TestHost, id: u64) -> Value {
    loop {
        let msg = host
            .next_message(Duration::from_secs(30))
            .unwrap_or_else(|| panic!("no answer to request {id}"));
        if msg["id"] == id {
            return msg;
        }
    }
}

#[test]
fn half_an_emoji_from_javascript_is_read() {
    let host = TestHost::new();
    // The issue's reproduction: JSON.stringify("Ada \ud83d").
    host.send_line(
        br#"{"id":2,"method":"tool/call","params":{"tool":"greet","args":{"name":"Ada \ud83d"}}}"#,
    );
    let msg = answer(&host, 2);
    assert_eq!(
        msg["result"]["content"][0]["text"], "Hello, Ada \u{fffd}!",
        "{msg}"
    );
}

fn nested_call(id: u64, levels: usize) -> String {
    format!(
        r#"{{"id":{id},"method":"tool/call","params":{{"tool":"depth","args":{{"data":{}0{}}}}}}}"#,
        "[".repeat(levels),
        "]".repeat(levels)
    )
}

#[test]
fn arguments_nested_as_deep_as_pi_accepts_are_read() {
    let host = TestHost::new();
    // pi's own validator accepts about 3,200 levels.
    host.send_line(nested_call(3, 3300).as_bytes());
    let msg = answer(&host, 3);
    assert_eq!(msg["result"]["content"][0]["text"], "3300", "{msg}");
}

#[test]
fn arguments_nested_too_deep_are_answered_with_a_clear_error() {
    let host = TestHost::new();
    host.send_line(nested_call(4, MAX_DEPTH + 1).as_bytes());
    let msg = answer(&host, 4);
    // The line is JSON; the tool's arguments are refused as any arguments
    // that do not fit are: a failed tool result the model reads.
    assert_eq!(msg["result"]["isError"], true, "{msg}");
    let text = msg["result"]["content"][0]["text"].as_str().unwrap();
    assert!(
        text.contains("levels deep") && text.contains("4096"),
        "{text}"
    );
    // The extension goes on serving.
    assert_eq!(
        host.call("greet", json!({"name": "Bo"})).text(),
        "Hello, Bo!"
    );
}

#[test]
fn a_request_broken_after_its_id_is_answered_with_that_id() {
    let host = TestHost::new();
    host.send_line(
        br#"{"id":5,"method":"tool/call","params":{"tool":"greet","args":{"name":nope}}}"#,
    );
    let msg = answer(&host, 5);
    assert_eq!(msg["error"]["code"], codes::PARSE_ERROR, "{msg}");
    assert!(msg["error"]["message"]
        .as_str()
        .unwrap()
        .contains("malformed protocol line"));
}

#[test]
fn ping_is_answered() {
    let host = TestHost::new();
    assert_eq!(host.request("ping", json!({})).unwrap(), json!({}));
}
