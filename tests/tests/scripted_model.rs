//! The scripted model's HTTP/SSE behaviour, checked with a raw TCP client (no pi needed).

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::time::Duration;

use pi_ext_e2e::{Reply, ScriptedModel, ToolCall, NO_SCRIPTED_REPLY};
use serde_json::{json, Value};

struct Response {
    status: u16,
    headers: Vec<(String, String)>,
    body: String,
}

impl Response {
    fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }

    /// The JSON payloads of the SSE `data:` lines, and whether `[DONE]` ended the stream.
    fn sse(&self) -> (Vec<Value>, bool) {
        let mut chunks = Vec::new();
        let mut done = false;
        for line in self.body.lines() {
            let Some(data) = line.strip_prefix("data: ") else {
                continue;
            };
            assert!(!done, "data after [DONE]");
            if data == "[DONE]" {
                done = true;
            } else {
                chunks.push(serde_json::from_str(data).expect("SSE data is JSON"));
            }
        }
        (chunks, done)
    }
}

fn connect(model: &ScriptedModel) -> BufReader<TcpStream> {
    let stream = TcpStream::connect(model.addr()).expect("connect");
    stream
        .set_read_timeout(Some(Duration::from_secs(10)))
        .unwrap();
    BufReader::new(stream)
}

fn post(conn: &mut BufReader<TcpStream>, path: &str, body: &Value) -> Response {
    let body = body.to_string();
    let head = format!(
        "POST {path} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n\
         Authorization: Bearer t\r\nContent-Length: {}\r\n\r\n",
        body.len()
    );
    let stream = conn.get_mut();
    stream.write_all(head.as_bytes()).unwrap();
    stream.write_all(body.as_bytes()).unwrap();
    read_response(conn)
}

fn read_response(conn: &mut BufReader<TcpStream>) -> Response {
    let mut status_line = String::new();
    conn.read_line(&mut status_line).unwrap();
    let status = status_line
        .split_whitespace()
        .nth(1)
        .unwrap()
        .parse()
        .unwrap();
    let mut headers = Vec::new();
    loop {
        let mut line = String::new();
        conn.read_line(&mut line).unwrap();
        let line = line.trim_end();
        if line.is_empty() {
            break;
        }
        let (n, v) = line.split_once(':').unwrap();
        headers.push((n.trim().to_owned(), v.trim().to_owned()));
    }
    let mut response = Response {
        status,
        headers,
        body: String::new(),
    };
    let len: usize = response
        .header("content-length")
        .expect("content-length")
        .parse()
        .unwrap();
    let mut body = vec![0; len];
    conn.read_exact(&mut body).unwrap();
    response.body = String::from_utf8(body).unwrap();
    response
}

#[test]
fn replies_in_order_on_one_keep_alive_connection() {
    let model = ScriptedModel::start();
    assert!(model.base_url().starts_with("http://127.0.0.1:"));
    assert!(model.base_url().ends_with("/v1"));
    model.push(Reply::text("hello"));
    model.push(Reply::tools([
        ToolCall::new("call_a", "echo", json!({"text": "a"})),
        ToolCall {
            id: "call_b".into(),
            name: "raw".into(),
            arguments: "{\"x\": 1".into(),
        },
    ]));
    model.push(Reply::deltas(["a", "b", "c"]));
    assert_eq!(model.pending(), 3);

    let mut conn = connect(&model);
    let r1 = post(
        &mut conn,
        "/v1/chat/completions",
        &json!({"model": "m1", "n": 1}),
    );
    assert_eq!(r1.status, 200);
    assert!(r1
        .header("content-type")
        .unwrap()
        .starts_with("text/event-stream"));
    let (chunks, done) = r1.sse();
    assert!(done);
    let text: String = chunks
        .iter()
        .filter_map(|c| c["choices"][0]["delta"]["content"].as_str())
        .collect();
    assert_eq!(text, "hello");
    let last = chunks.last().unwrap();
    assert_eq!(last["choices"][0]["finish_reason"], "stop");
    assert!(last["usage"]["completion_tokens"].as_u64().unwrap() > 0);
    assert!(chunks.iter().all(|c| c["model"] == "m1"));

    // Same connection: tool calls.
    let r2 = post(&mut conn, "/v1/chat/completions", &json!({"n": 2}));
    let (chunks, done) = r2.sse();
    assert!(done);
    let mut calls: Vec<(String, String, String)> = Vec::new();
    for chunk in &chunks {
        for tc in chunk["choices"][0]["delta"]["tool_calls"]
            .as_array()
            .into_iter()
            .flatten()
        {
            let index = tc["index"].as_u64().unwrap() as usize;
            if calls.len() <= index {
                calls.resize(index + 1, Default::default());
            }
            if let Some(id) = tc["id"].as_str() {
                calls[index].0 = id.to_owned();
            }
            if let Some(name) = tc["function"]["name"].as_str() {
                calls[index].1 = name.to_owned();
            }
            if let Some(args) = tc["function"]["arguments"].as_str() {
                calls[index].2.push_str(args);
            }
        }
    }
    assert_eq!(
        calls,
        vec![
            ("call_a".into(), "echo".into(), "{\"text\":\"a\"}".into()),
            ("call_b".into(), "raw".into(), "{\"x\": 1".into()),
        ]
    );
    assert_eq!(
        chunks.last().unwrap()["choices"][0]["finish_reason"],
        "tool_calls"
    );

    // Same connection: many deltas, in order.
    let r3 = post(&mut conn, "/v1/chat/completions", &json!({"n": 3}));
    let deltas: Vec<String> = r3
        .sse()
        .0
        .iter()
        .filter_map(|c| c["choices"][0]["delta"]["content"].as_str())
        .filter(|s| !s.is_empty())
        .map(str::to_owned)
        .collect();
    assert_eq!(deltas, ["a", "b", "c"]);

    // Queue exhausted: the fallback text, never a hang.
    let r4 = post(&mut conn, "/v1/chat/completions", &json!({"n": 4}));
    let text: String = r4
        .sse()
        .0
        .iter()
        .filter_map(|c| c["choices"][0]["delta"]["content"].as_str())
        .collect();
    assert_eq!(text, NO_SCRIPTED_REPLY);

    assert_eq!(model.connection_count(), 1);
    let bodies = model.wait_requests(4, Duration::from_secs(5));
    let ns: Vec<i64> = bodies.iter().map(|b| b["n"].as_i64().unwrap()).collect();
    assert_eq!(ns, [1, 2, 3, 4]);
    let recorded = model.recorded();
    assert_eq!(recorded[0].header("Authorization"), Some("Bearer t"));
    assert!(recorded.iter().all(|r| r.connection == 0));
    assert_eq!(recorded[3].reply, Reply::text(NO_SCRIPTED_REPLY));
}

#[test]
fn status_replies_and_other_paths() {
    let model = ScriptedModel::start();
    model.push(Reply::status(429, "slow down"));
    let mut conn = connect(&model);

    let r = post(&mut conn, "/v1/chat/completions", &json!({}));
    assert_eq!(r.status, 429);
    let body: Value = serde_json::from_str(&r.body).unwrap();
    assert_eq!(body["error"]["message"], "slow down");

    let r = post(&mut conn, "/v1/embeddings", &json!({}));
    assert_eq!(r.status, 404);
    assert_eq!(
        model.request_count(),
        1,
        "only chat completions are recorded"
    );
    assert_eq!(model.other_requests(), ["POST /v1/embeddings"]);
}

#[test]
fn chunked_request_bodies_are_decoded() {
    let model = ScriptedModel::start();
    let mut conn = connect(&model);
    let stream = conn.get_mut();
    stream
        .write_all(
            b"POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n\
              5\r\n{\"a\":\r\n4\r\n 42}\r\n0\r\n\r\n",
        )
        .unwrap();
    let r = read_response(&mut conn);
    assert_eq!(r.status, 200);
    assert_eq!(model.requests(), [json!({"a": 42})]);

    // A malformed request closes the connection instead of leaving the client hanging.
    let mut bad = connect(&model);
    bad.get_mut()
        .write_all(
            b"POST /v1/chat/completions HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n",
        )
        .unwrap();
    let mut rest = String::new();
    assert_eq!(bad.read_to_string(&mut rest).unwrap(), 0, "{rest}");
    assert_eq!(model.request_count(), 1);
}

#[test]
#[should_panic(expected = "waiting for 1 request")]
fn wait_requests_times_out_with_a_message() {
    let model = ScriptedModel::start();
    model.wait_requests(1, Duration::from_millis(50));
}

#[test]
fn thinking_and_stream_errors_in_openai_chunks() {
    let model = ScriptedModel::start();
    model.push(Reply::thinking("hmm", "sig", "answer"));
    model.push(Reply::stream_error(["Half"], "overloaded"));
    let mut conn = connect(&model);

    let (chunks, done) = post(&mut conn, "/v1/chat/completions", &json!({})).sse();
    assert!(done);
    assert_eq!(chunks[1]["choices"][0]["delta"]["reasoning_content"], "hmm");
    assert_eq!(chunks[2]["choices"][0]["delta"]["content"], "answer");

    let (chunks, done) = post(&mut conn, "/v1/chat/completions", &json!({})).sse();
    assert!(!done, "the stream ends with its error");
    assert_eq!(chunks[1]["choices"][0]["delta"]["content"], "Half");
    assert_eq!(chunks.last().unwrap()["error"]["message"], "overloaded");
}

/// An Anthropic response's events: `(event name, data)`.
fn anthropic_events(r: &Response) -> Vec<(String, Value)> {
    r.body
        .split("\n\n")
        .filter(|e| !e.trim().is_empty())
        .map(|e| {
            let name = e.lines().find_map(|l| l.strip_prefix("event: ")).unwrap();
            let data = e.lines().find_map(|l| l.strip_prefix("data: ")).unwrap();
            (name.to_owned(), serde_json::from_str(data).unwrap())
        })
        .collect()
}

#[test]
fn the_anthropic_mode_answers_messages_with_anthropic_events() {
    let model = ScriptedModel::start_anthropic();
    assert_eq!(model.base_url(), format!("http://{}", model.addr()));
    model.push_all([
        Reply::deltas(["a", "b"]),
        Reply::tool("toolu_1", "read", json!({"path": "x"})),
        Reply::thinking("hmm", "sig", "answer"),
        Reply::status(500, "boom"),
        Reply::stream_error(["Half"], "overloaded"),
    ]);
    let mut conn = connect(&model);
    let request = json!({"model": "claude-x", "stream": true});

    let r = post(&mut conn, "/v1/chat/completions", &request);
    assert_eq!(r.status, 404, "only /v1/messages is served");

    let r = post(&mut conn, "/v1/messages", &request);
    assert_eq!(r.status, 200);
    let events = anthropic_events(&r);
    let names: Vec<&str> = events.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(
        names,
        [
            "message_start",
            "content_block_start",
            "content_block_delta",
            "content_block_delta",
            "content_block_stop",
            "message_delta",
            "message_stop"
        ]
    );
    assert!(events.iter().all(|(n, d)| d["type"] == n.as_str()));
    assert_eq!(events[0].1["message"]["model"], "claude-x");
    assert_eq!(
        events[3].1["delta"],
        json!({"type": "text_delta", "text": "b"})
    );
    assert_eq!(events[5].1["delta"]["stop_reason"], "end_turn");
    assert_eq!(events[5].1["usage"]["output_tokens"], 2);
    assert_eq!(events[5].1["usage"]["cache_read_input_tokens"], 4);

    let events = anthropic_events(&post(&mut conn, "/v1/messages", &request));
    assert_eq!(events[1].1["content_block"]["type"], "tool_use");
    assert_eq!(events[1].1["content_block"]["id"], "toolu_1");
    let json: String = events
        .iter()
        .filter(|(_, d)| d["delta"]["type"] == "input_json_delta")
        .map(|(_, d)| d["delta"]["partial_json"].as_str().unwrap())
        .collect();
    assert_eq!(json, r#"{"path":"x"}"#);
    assert_eq!(
        events[events.len() - 2].1["delta"]["stop_reason"],
        "tool_use"
    );

    let events = anthropic_events(&post(&mut conn, "/v1/messages", &request));
    let deltas: Vec<&Value> = events.iter().map(|(_, d)| &d["delta"]).collect();
    assert!(deltas.contains(&&json!({"type": "thinking_delta", "thinking": "hmm"})));
    assert!(deltas.contains(&&json!({"type": "signature_delta", "signature": "sig"})));
    assert!(deltas.contains(&&json!({"type": "text_delta", "text": "answer"})));

    let r = post(&mut conn, "/v1/messages", &request);
    assert_eq!(r.status, 500);
    assert_eq!(r.header("x-should-retry"), Some("false"));
    let body: Value = serde_json::from_str(&r.body).unwrap();
    assert_eq!(
        body,
        json!({"type": "error", "error": {"type": "api_error", "message": "boom"}})
    );

    let events = anthropic_events(&post(&mut conn, "/v1/messages", &request));
    let (name, data) = events.last().unwrap();
    assert_eq!(name, "error");
    assert_eq!(data["error"]["message"], "overloaded");

    assert_eq!(model.request_count(), 5);
    assert_eq!(model.recorded()[0].path, "/v1/messages");
}

#[test]
fn routed_replies_go_to_the_matching_request_before_the_queue() {
    let model = ScriptedModel::start();
    model.push(Reply::text("queued"));
    model.push_for(|body| body["n"] == 2, Reply::text("for two"));
    model.push_for(|body| body["n"] == 1, Reply::text("for one"));
    assert_eq!(model.pending(), 3);
    let text = |r: &Response| {
        r.sse()
            .0
            .iter()
            .filter_map(|c| {
                c["choices"][0]["delta"]["content"]
                    .as_str()
                    .map(str::to_owned)
            })
            .collect::<String>()
    };
    let mut conn = connect(&model);
    let path = "/v1/chat/completions";
    // Each matching request takes its own reply, whatever the order; a
    // request that matches none takes the queue's next one.
    assert_eq!(text(&post(&mut conn, path, &json!({"n": 1}))), "for one");
    assert_eq!(text(&post(&mut conn, path, &json!({"n": 3}))), "queued");
    assert_eq!(text(&post(&mut conn, path, &json!({"n": 2}))), "for two");
    // A routed reply is used once.
    assert_eq!(
        text(&post(&mut conn, path, &json!({"n": 1}))),
        NO_SCRIPTED_REPLY
    );
    assert_eq!(model.pending(), 0);
    assert_eq!(model.recorded()[0].reply, Reply::text("for one"));
}
