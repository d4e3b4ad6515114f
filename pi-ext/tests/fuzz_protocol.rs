//! Property tests of the whole dispatcher against hostile input, bounded
//! in count so the suite stays fast: random bytes, mutated requests, deep
//! and odd JSON, and answers nobody asked for. Properties: no panic (the
//! host's `send_line` fails on one), no hang (a `ping` is always answered
//! afterwards), and every line that starts like a request (`{"id":N,`) is
//! answered with its id.
//!
//! The same harness runs under a coverage-guided fuzzer in `pi-ext/fuzz/`.

use std::time::Duration;

use pi_ext::internals::{Classified, Incoming};
use pi_ext::prelude::*;
use pi_ext::testing::TestHost;
use proptest::prelude::*;
use serde_json::Value;

/// Greet someone.
#[tool]
async fn greet(name: String) -> String {
    format!("Hello, {name}!")
}

/// Wait for the answer to request `id`; `None` if nothing comes in 10 s.
fn answer(host: &TestHost, id: u64) -> Option<Value> {
    let deadline = std::time::Instant::now() + Duration::from_secs(10);
    while std::time::Instant::now() < deadline {
        let msg = host.next_message(Duration::from_secs(10))?;
        if msg["id"] == id {
            return Some(msg);
        }
    }
    None
}

fn still_serving(host: &TestHost) -> bool {
    host.request("ping", serde_json::json!({})).is_ok()
}

/// Valid request lines to mutate.
const SEEDS: &[&str] = &[
    r#"{"id":7,"method":"tool/call","params":{"tool":"greet","toolCallId":"c1","args":{"name":"Ada"}}}"#,
    r#"{"id":7,"method":"hook/call","params":{"hook":"nope","payload":{"type":"tool_call","input":{}}}}"#,
    r#"{"id":7,"method":"command/call","params":{"command":"nope","args":"x y"}}"#,
    r#"{"id":7,"method":"tool/call","params":{"tool":"greet","args":{"name":"\ud83d\ude00 \udc00"}}}"#,
];

/// A mutation of a seed line after its `{"id":7,` prefix: flip, insert or
/// delete bytes, or cut it short.
fn mutated() -> impl Strategy<Value = Vec<u8>> {
    (
        0..SEEDS.len(),
        proptest::collection::vec((0usize..200, 0u8..=255, 0u8..3), 1..6),
        proptest::option::of(8usize..200),
    )
        .prop_map(|(seed, edits, cut)| {
            let mut line = SEEDS[seed].as_bytes().to_vec();
            for (at, byte, kind) in edits {
                let at = 8 + at % (line.len() - 8).max(1);
                match kind {
                    0 if at < line.len() => line[at] = byte,
                    1 => line.insert(at.min(line.len()), byte),
                    _ if at < line.len() => {
                        line.remove(at);
                    }
                    _ => {}
                }
            }
            if let Some(cut) = cut {
                line.truncate(cut.max(8));
            }
            line.retain(|&b| b != b'\n');
            line
        })
}

/// Odd but well-formed JSON values: deep, wide, unicode.
fn odd_json() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(|n| n.into()),
        any::<f64>()
            .prop_map(|f| serde_json::Number::from_f64(f).map_or(Value::Null, Value::Number)),
        ".{0,20}".prop_map(Value::String),
    ];
    leaf.prop_recursive(8, 64, 8, |inner| {
        prop_oneof![
            proptest::collection::vec(inner.clone(), 0..8).prop_map(Value::Array),
            proptest::collection::btree_map(".{0,8}", inner, 0..8)
                .prop_map(|m| Value::Object(m.into_iter().collect())),
        ]
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn random_bytes_never_break_serving(line in proptest::collection::vec(any::<u8>(), 0..512)) {
        let host = TestHost::new();
        let line: Vec<u8> = line.into_iter().filter(|&b| b != b'\n').collect();
        host.send_line(&line);
        prop_assert!(still_serving(&host));
    }

    #[test]
    fn a_mutated_request_is_answered_with_its_id(line in mutated()) {
        // A mutation that still reads as an object without a `method` is a
        // response (JSON-RPC): the protocol ignores one nobody waits for.
        let is_response = Incoming::parse(&line)
            .ok()
            .and_then(|m| m.classify().ok())
            .is_some_and(|c| matches!(c, Classified::Response { .. }));
        prop_assume!(!is_response);
        let host = TestHost::new();
        host.send_line(&line);
        // Every mutation keeps the `{"id":7,` prefix: 7 must be answered,
        // with a result or a clear error.
        let msg = answer(&host, 7);
        prop_assert!(msg.is_some(), "no answer to {}", String::from_utf8_lossy(&line));
        let msg = msg.unwrap();
        prop_assert!(msg.get("result").is_some() || msg["error"]["message"].as_str().is_some_and(|m| !m.is_empty()), "{msg}");
        prop_assert!(still_serving(&host));
    }

    #[test]
    fn odd_values_anywhere_are_answered(params in odd_json(), method in prop_oneof![
        Just("tool/call"), Just("hook/call"), Just("command/call"), Just("initialize"), Just("nope"),
    ]) {
        let host = TestHost::new();
        let line = serde_json::json!({"id": 9, "method": method, "params": params}).to_string();
        host.send_line(line.as_bytes());
        prop_assert!(answer(&host, 9).is_some(), "no answer to {line}");
        prop_assert!(still_serving(&host));
    }

    #[test]
    fn answers_nobody_asked_for_are_ignored(ids in proptest::collection::vec(any::<u64>(), 1..20), value in odd_json()) {
        let host = TestHost::new();
        for id in ids {
            let line = serde_json::json!({"id": id, "result": value}).to_string();
            host.send_line(line.as_bytes());
            let line = serde_json::json!({"id": id, "error": {"code": -1, "message": "x"}}).to_string();
            host.send_line(line.as_bytes());
        }
        prop_assert!(still_serving(&host));
    }
}
