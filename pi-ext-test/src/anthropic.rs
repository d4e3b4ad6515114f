//! The Anthropic Messages rendering of a [`ScriptedModel`](crate::ScriptedModel)'s replies
//! ([`ScriptedModel::start_anthropic`](crate::ScriptedModel::start_anthropic)): `POST /v1/messages` answered with
//! Anthropic's server-sent events.
//!
//! Every answer reports the same usage: [`INPUT_TOKENS`] input tokens,
//! [`CACHE_READ_TOKENS`] read from and [`CACHE_WRITE_TOKENS`] written to the
//! cache, and as many output tokens as the reply has deltas (words for a
//! plain text, pieces for tool calls).

use serde_json::{json, Value};

use crate::model::Reply;

/// Input tokens every scripted Anthropic answer reports.
pub const INPUT_TOKENS: u64 = 10;
/// Cache-read tokens every scripted Anthropic answer reports.
pub const CACHE_READ_TOKENS: u64 = 4;
/// Cache-write (creation) tokens every scripted Anthropic answer reports.
pub const CACHE_WRITE_TOKENS: u64 = 2;

/// One SSE event, `event:` and `data:` lines.
fn event(data: Value) -> String {
    format!(
        "event: {}\ndata: {data}\n\n",
        data["type"].as_str().unwrap()
    )
}

fn usage(output: u64) -> Value {
    json!({
        "input_tokens": INPUT_TOKENS,
        "output_tokens": output,
        "cache_read_input_tokens": CACHE_READ_TOKENS,
        "cache_creation_input_tokens": CACHE_WRITE_TOKENS,
    })
}

fn message_start(model: &str, id: u64) -> String {
    event(json!({"type": "message_start", "message": {
        "id": format!("msg_scripted_{id}"),
        "type": "message",
        "role": "assistant",
        "content": [],
        "model": model,
        "stop_reason": null,
        "stop_sequence": null,
        "usage": usage(1),
    }}))
}

fn text_block(index: usize, deltas: &[String]) -> Vec<String> {
    let mut events = vec![event(json!({
        "type": "content_block_start", "index": index,
        "content_block": {"type": "text", "text": ""},
    }))];
    for d in deltas {
        events.push(event(json!({
            "type": "content_block_delta", "index": index,
            "delta": {"type": "text_delta", "text": d},
        })));
    }
    events
}

fn block_stop(index: usize) -> String {
    event(json!({"type": "content_block_stop", "index": index}))
}

/// The events of a held reply: the message's start and its text deltas, no end.
pub(crate) fn held_events(deltas: &[String], model: &str, id: u64) -> Vec<String> {
    let mut events = vec![message_start(model, id)];
    events.extend(text_block(0, deltas));
    events
}

/// The status, extra headers and body of the whole HTTP response for `reply`
/// (not [`Reply::Hold`]).
pub(crate) fn render(
    reply: &Reply,
    model: &str,
    id: u64,
) -> (u16, Vec<(&'static str, String)>, String) {
    let mut events = vec![message_start(model, id)];
    let (stop, output) = match reply {
        Reply::Hold(_) => unreachable!("a held reply is streamed by `hold`"),
        Reply::Status(status, message) => {
            let body = json!({"type": "error", "error": {"type": "api_error", "message": message}});
            // The SDK would retry a 5xx twice; the header says not to.
            return (
                *status,
                vec![
                    ("content-type", "application/json".into()),
                    ("x-should-retry", "false".into()),
                ],
                body.to_string(),
            );
        }
        Reply::StreamError { deltas, message } => {
            events.extend(text_block(0, deltas));
            events.push(event(json!({
                "type": "error",
                "error": {"type": "overloaded_error", "message": message},
            })));
            return (
                200,
                vec![("content-type", "text/event-stream; charset=utf-8".into())],
                events.concat(),
            );
        }
        Reply::Text(text) => {
            let deltas: Vec<String> = if text.is_empty() {
                vec![]
            } else {
                vec![text.clone()]
            };
            events.extend(text_block(0, &deltas));
            events.push(block_stop(0));
            ("end_turn", text.split_whitespace().count().max(1) as u64)
        }
        Reply::TextDeltas(deltas) => {
            events.extend(text_block(0, deltas));
            events.push(block_stop(0));
            ("end_turn", deltas.len().max(1) as u64)
        }
        Reply::Thinking {
            thinking,
            signature,
            text,
        } => {
            events.push(event(json!({
                "type": "content_block_start", "index": 0,
                "content_block": {"type": "thinking", "thinking": "", "signature": ""},
            })));
            events.push(event(json!({
                "type": "content_block_delta", "index": 0,
                "delta": {"type": "thinking_delta", "thinking": thinking},
            })));
            events.push(event(json!({
                "type": "content_block_delta", "index": 0,
                "delta": {"type": "signature_delta", "signature": signature},
            })));
            events.push(block_stop(0));
            events.extend(text_block(1, std::slice::from_ref(text)));
            events.push(block_stop(1));
            ("end_turn", 2)
        }
        Reply::ToolCalls(calls) => {
            let mut output = 0;
            for (index, call) in calls.iter().enumerate() {
                events.push(event(json!({
                    "type": "content_block_start", "index": index,
                    "content_block": {"type": "tool_use", "id": call.id, "name": call.name, "input": {}},
                })));
                // The arguments in two pieces, as Anthropic streams partial JSON.
                let cut = (0..=call.arguments.len() / 2)
                    .rev()
                    .find(|&i| call.arguments.is_char_boundary(i))
                    .unwrap_or(0);
                for piece in [&call.arguments[..cut], &call.arguments[cut..]] {
                    if piece.is_empty() {
                        continue;
                    }
                    output += 1;
                    events.push(event(json!({
                        "type": "content_block_delta", "index": index,
                        "delta": {"type": "input_json_delta", "partial_json": piece},
                    })));
                }
                events.push(block_stop(index));
            }
            ("tool_use", output.max(1))
        }
    };
    events.push(event(json!({
        "type": "message_delta",
        "delta": {"stop_reason": stop, "stop_sequence": null},
        "usage": usage(output),
    })));
    events.push(event(json!({"type": "message_stop"})));
    (
        200,
        vec![("content-type", "text/event-stream; charset=utf-8".into())],
        events.concat(),
    )
}
