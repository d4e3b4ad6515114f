//! The extension binary itself, driven over its stdin/stdout with raw
//! protocol lines (no bridge, no pi): what a broken or hostile peer sends is
//! answered or refused, and serving goes on.

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;

use pi_ext::protocol::PROTOCOL_VERSION as PROTOCOL;
use pi_ext_e2e::example_binary;
use serde_json::{json, Value};

struct Raw {
    child: Child,
    stdin: ChildStdin,
    lines: mpsc::Receiver<Value>,
}

impl Raw {
    fn start(envs: &[(&str, &str)]) -> Raw {
        let mut child = Command::new(example_binary("hello"))
            .envs(envs.iter().copied())
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("spawn hello");
        let stdin = child.stdin.take().unwrap();
        let stdout: ChildStdout = child.stdout.take().unwrap();
        let (tx, lines) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                let value = serde_json::from_str(&line).expect("the extension writes JSON");
                if tx.send(value).is_err() {
                    break;
                }
            }
        });
        Raw {
            child,
            stdin,
            lines,
        }
    }

    fn send(&mut self, line: &[u8]) {
        self.stdin.write_all(line).unwrap();
        self.stdin.write_all(b"\n").unwrap();
        self.stdin.flush().unwrap();
    }

    fn answer(&self, id: u64) -> Value {
        loop {
            let msg = self
                .lines
                .recv_timeout(Duration::from_secs(30))
                .unwrap_or_else(|_| panic!("no answer to request {id}"));
            if msg["id"] == id {
                return msg;
            }
        }
    }

    fn initialize(&mut self, id: u64) -> Value {
        self.send(
            json!({"id": id, "method": "initialize", "params": {"protocol": PROTOCOL, "mode": "rpc"}})
                .to_string()
                .as_bytes(),
        );
        self.answer(id)
    }
}

impl Drop for Raw {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

#[test]
fn the_issues_reproduction_is_answered() {
    // printf '%s\n' '{"id":1,"method":"initialize",...}' '{"id":2,...,"args":{"name":"Ada \ud83d"}}}' | hello
    let mut raw = Raw::start(&[]);
    assert_eq!(raw.initialize(1)["result"]["protocol"], PROTOCOL);
    raw.send(
        br#"{"id":2,"method":"tool/call","params":{"tool":"greet","args":{"name":"Ada \ud83d"}}}"#,
    );
    let msg = raw.answer(2);
    let text = msg["result"]["content"][0]["text"]
        .as_str()
        .unwrap_or_default();
    assert!(text.starts_with("Hello, Ada \u{fffd}!"), "{msg}");
}

#[test]
fn a_call_before_initialize_is_refused_and_does_not_poison_the_session() {
    let mut raw = Raw::start(&[]);
    raw.send(br#"{"id":1,"method":"tool/call","params":{"tool":"greet","args":{"name":"Ada"}}}"#);
    let msg = raw.answer(1);
    assert_eq!(msg["error"]["code"], -32006, "{msg}");
    assert!(msg["error"]["message"]
        .as_str()
        .unwrap()
        .contains("before `initialize`"));
    // `ping` is fine before initialize (the bridge's liveness check).
    raw.send(br#"{"id":2,"method":"ping","params":{}}"#);
    assert_eq!(raw.answer(2)["result"], json!({}));
    let init = raw.initialize(3);
    assert_eq!(init["result"]["protocol"], PROTOCOL, "{init}");
    raw.send(br#"{"id":4,"method":"tool/call","params":{"tool":"greet","args":{"name":"Ada"}}}"#);
    let msg = raw.answer(4);
    assert!(
        msg["result"]["content"][0]["text"]
            .as_str()
            .unwrap()
            .starts_with("Hello, Ada!"),
        "{msg}"
    );
}

#[test]
fn an_over_long_line_is_answered_and_skipped() {
    let mut raw = Raw::start(&[("PI_EXT_MAX_LINE_BYTES", "4096")]);
    raw.initialize(1);
    let long = format!(
        r#"{{"id":2,"method":"tool/call","params":{{"tool":"greet","args":{{"name":"{}"}}}}}}"#,
        "x".repeat(100_000)
    );
    raw.send(long.as_bytes());
    let msg = raw.answer(2);
    let text = msg["error"]["message"].as_str().unwrap_or_default();
    assert!(text.contains("over the limit of 4096 bytes"), "{msg}");
    // The line after it is whole and served.
    raw.send(br#"{"id":3,"method":"tool/call","params":{"tool":"greet","args":{"name":"Bo"}}}"#);
    assert!(raw.answer(3)["result"]["content"][0]["text"]
        .as_str()
        .unwrap()
        .starts_with("Hello, Bo!"));
}

#[test]
fn garbage_is_answered_when_it_has_an_id_and_never_stops_serving() {
    let mut raw = Raw::start(&[]);
    raw.initialize(1);
    for line in [
        &b"\xff\xfe not even utf-8"[..],
        b"{\"id\":2,\"method\":\"tool/call\",\"params\":{\"tool\":\"greet\",\"args\":{\"name\":\xff}}}",
        b"[1,2,3]",
        b"{\"id\":3,\"method\":\"tool/call\"",
        b"{}",
        b"null",
    ] {
        raw.send(line);
    }
    assert_eq!(raw.answer(2)["error"]["code"], -32700);
    assert_eq!(raw.answer(3)["error"]["code"], -32700);
    raw.send(br#"{"id":4,"method":"tool/call","params":{"tool":"greet","args":{"name":"Cy"}}}"#);
    assert!(raw.answer(4)["result"]["content"][0]["text"]
        .as_str()
        .unwrap()
        .starts_with("Hello, Cy!"));
}
