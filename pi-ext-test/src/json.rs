//! Helpers for picking apart recorded LLM requests and pi's RPC events.
//!
//! Requests are the JSON bodies pi sends to `/v1/chat/completions` (see
//! [`crate::ScriptedModel::requests`]); events are pi's stdout messages (see
//! [`crate::PiRpc::events`]).

use serde_json::Value;

/// The text of a chat message's `content`: a string as is, or the `text` parts of a content
/// array joined with `\n`. Empty if there is no content.
pub fn content_text(message: &Value) -> String {
    match &message["content"] {
        Value::String(s) => s.clone(),
        Value::Array(parts) => parts
            .iter()
            .filter_map(|p| p["text"].as_str())
            .collect::<Vec<_>>()
            .join("\n"),
        _ => String::new(),
    }
}

/// The `messages` array of a chat-completions request (empty if missing).
pub fn messages(request: &Value) -> Vec<Value> {
    request["messages"].as_array().cloned().unwrap_or_default()
}

/// `(tool_call_id, text)` of every `role:"tool"` message in a request, in order.
///
/// This is all the LLM sees of a tool result (`isError` is not transmitted).
pub fn tool_results(request: &Value) -> Vec<(String, String)> {
    messages(request)
        .iter()
        .filter(|m| m["role"] == "tool")
        .map(|m| {
            (
                m["tool_call_id"].as_str().unwrap_or_default().to_owned(),
                content_text(m),
            )
        })
        .collect()
}

/// The text of the tool result for `tool_call_id` in a request, if present.
pub fn tool_result(request: &Value, tool_call_id: &str) -> Option<String> {
    tool_results(request)
        .into_iter()
        .find(|(id, _)| id == tool_call_id)
        .map(|(_, text)| text)
}

/// The names of the tools offered to the LLM in a request (`tools[].function.name`).
pub fn tool_names(request: &Value) -> Vec<String> {
    request["tools"]
        .as_array()
        .map(|tools| {
            tools
                .iter()
                .filter_map(|t| t["function"]["name"].as_str().map(str::to_owned))
                .collect()
        })
        .unwrap_or_default()
}

/// The `tools[]` entry (`{type:"function", function:{name, description, parameters}}`) for
/// `name` in a request.
pub fn tool_definition(request: &Value, name: &str) -> Option<Value> {
    request["tools"]
        .as_array()?
        .iter()
        .find(|t| t["function"]["name"] == name)
        .cloned()
}

/// The system prompt of a request (the first `role:"system"` message), if any.
pub fn system_prompt(request: &Value) -> Option<String> {
    messages(request)
        .iter()
        .find(|m| m["role"] == "system")
        .map(content_text)
}

/// The text of the last `role:"user"` message in a request, if any.
pub fn last_user_text(request: &Value) -> Option<String> {
    messages(request)
        .iter()
        .rev()
        .find(|m| m["role"] == "user")
        .map(content_text)
}

/// The events of a given `type` (e.g. `"tool_execution_end"`).
pub fn of_type<'a>(events: &'a [Value], event_type: &str) -> Vec<&'a Value> {
    events.iter().filter(|e| e["type"] == event_type).collect()
}

/// The `extension_ui_request`s with a given `method` (e.g. `"notify"`, `"confirm"`).
pub fn ui_requests<'a>(events: &'a [Value], method: &str) -> Vec<&'a Value> {
    events
        .iter()
        .filter(|e| e["type"] == "extension_ui_request" && e["method"] == method)
        .collect()
}

/// The final assistant messages (`message_end` with `message.role:"assistant"`).
pub fn assistant_messages(events: &[Value]) -> Vec<&Value> {
    events
        .iter()
        .filter(|e| e["type"] == "message_end" && e["message"]["role"] == "assistant")
        .map(|e| &e["message"])
        .collect()
}

/// The text of an assistant message from an event (its `text` content blocks, joined).
pub fn assistant_text(message: &Value) -> String {
    message["content"]
        .as_array()
        .map(|blocks| {
            blocks
                .iter()
                .filter(|b| b["type"] == "text")
                .filter_map(|b| b["text"].as_str())
                .collect::<Vec<_>>()
                .join("")
        })
        .unwrap_or_default()
}

/// The text of the last assistant message among `events` (empty if none).
pub fn final_assistant_text(events: &[Value]) -> String {
    assistant_messages(events)
        .last()
        .map(|m| assistant_text(m))
        .unwrap_or_default()
}

/// The `tool_execution_end` event of call `tool_call_id`. Panics (listing the
/// events) when there is none.
#[track_caller]
pub fn tool_end<'a>(events: &'a [Value], tool_call_id: &str) -> &'a Value {
    of_type(events, "tool_execution_end")
        .into_iter()
        .find(|e| e["toolCallId"] == tool_call_id)
        .unwrap_or_else(|| panic!("no tool_execution_end for {tool_call_id} in {events:#?}"))
}

/// The first text block of call `tool_call_id`'s result.
#[track_caller]
pub fn tool_end_text(events: &[Value], tool_call_id: &str) -> String {
    tool_end(events, tool_call_id)["result"]["content"][0]["text"]
        .as_str()
        .unwrap_or_default()
        .to_string()
}

/// The messages of every `notify` UI request.
pub fn notifications(events: &[Value]) -> Vec<String> {
    ui_requests(events, "notify")
        .into_iter()
        .filter_map(|r| r["message"].as_str().map(str::to_string))
        .collect()
}

/// The texts of every `setStatus` UI request that sets one.
pub fn statuses(events: &[Value]) -> Vec<String> {
    ui_requests(events, "setStatus")
        .into_iter()
        .filter_map(|r| r["statusText"].as_str().map(str::to_string))
        .collect()
}

/// `value` with every occurrence of `from` in its JSON text replaced by `to`
/// (e.g. a run's temporary directory by `<cwd>`, so two runs compare).
/// `from` must not need JSON escaping.
pub fn replaced(value: &Value, from: &str, to: &str) -> Value {
    serde_json::from_str(&value.to_string().replace(from, to)).expect("still JSON")
}

/// Where `left` and `right` differ, one line per JSON pointer
/// (`/messages/3/content: "a" != "b"`, `/store: missing != false`); empty
/// when they are equal. Objects are compared key by key, arrays element by
/// element, so a whole request or message can be compared at once and any
/// new field shows up by name.
pub fn differences(left: &Value, right: &Value) -> Vec<String> {
    let mut out = Vec::new();
    differ(left, right, &mut String::new(), &mut out);
    out
}

fn differ(left: &Value, right: &Value, at: &mut String, out: &mut Vec<String>) {
    let show =
        |v: Option<&Value>| v.map_or("missing".to_string(), |v| crate::diag::clip(&v.to_string()));
    let mut child = |key: &str, l: Option<&Value>, r: Option<&Value>, out: &mut Vec<String>| {
        let len = at.len();
        at.push('/');
        at.push_str(&key.replace('~', "~0").replace('/', "~1"));
        match (l, r) {
            (Some(l), Some(r)) => differ(l, r, at, out),
            _ => out.push(format!("{at}: {} != {}", show(l), show(r))),
        }
        at.truncate(len);
    };
    match (left, right) {
        (Value::Object(l), Value::Object(r)) => {
            let mut keys: Vec<&String> = l.keys().chain(r.keys()).collect();
            keys.sort();
            keys.dedup();
            for key in keys {
                child(key, l.get(key), r.get(key), out);
            }
        }
        (Value::Array(l), Value::Array(r)) => {
            for i in 0..l.len().max(r.len()) {
                child(&i.to_string(), l.get(i), r.get(i), out);
            }
        }
        _ if left != right => {
            let at = if at.is_empty() { "/" } else { at.as_str() };
            out.push(format!(
                "{at}: {} != {}",
                show(Some(left)),
                show(Some(right))
            ));
        }
        _ => {}
    }
}

/// Panics, listing [`differences`], unless `left` and `right` are equal.
#[track_caller]
pub fn assert_same(what: &str, left: &Value, right: &Value) {
    let found = differences(left, right);
    assert!(
        found.is_empty(),
        "{what} differs (left != right):\n  {}",
        found.join("\n  ")
    );
}

/// Two runs' named steps (a TypeScript original's and its port's) are the same: step by step
/// with [`assert_same`] (named by the original's step), then in number.
#[track_caller]
pub fn assert_steps_same<S: AsRef<str>>(original: &[(S, Value)], port: &[(S, Value)]) {
    for ((name, ts), (_, rust)) in original.iter().zip(port) {
        assert_same(name.as_ref(), ts, rust);
    }
    assert_eq!(original.len(), port.len(), "the number of steps");
}

/// Makes two runs' recorded JSON comparable: entry ids (an object's `id`
/// where it has a `parentId`, and every `parentId`, `targetId`, `entryId`)
/// become `<entry n>` in the order they first appear across `values`, in
/// strings too (and their 8-character prefixes, as pi shows them); the
/// values of `timestamp`, `durationMs` and `responseId` (the scripted
/// model's reply counter, when one model serves both runs) become
/// `<varies>`.
pub fn mask_ids_and_times<'a>(values: impl IntoIterator<Item = &'a mut Value>) {
    fn collect(v: &Value, ids: &mut Vec<String>) {
        match v {
            Value::Object(map) => {
                let entry = map.contains_key("parentId");
                for (k, v) in map {
                    if matches!(k.as_str(), "parentId" | "targetId" | "entryId")
                        || (k == "id" && entry)
                    {
                        if let Some(s) = v.as_str() {
                            if !ids.iter().any(|i| i == s) {
                                ids.push(s.to_string());
                            }
                        }
                    }
                    collect(v, ids);
                }
            }
            Value::Array(items) => items.iter().for_each(|v| collect(v, ids)),
            _ => {}
        }
    }
    fn rewrite(v: &mut Value, ids: &[String]) {
        match v {
            Value::Object(map) => {
                for (k, v) in map.iter_mut() {
                    if matches!(k.as_str(), "timestamp" | "durationMs" | "responseId") {
                        *v = Value::String("<varies>".into());
                    } else {
                        rewrite(v, ids);
                    }
                }
            }
            Value::Array(items) => items.iter_mut().for_each(|v| rewrite(v, ids)),
            Value::String(s) => {
                for (n, id) in ids.iter().enumerate() {
                    *s = s.replace(id.as_str(), &format!("<entry {n}>"));
                    if id.len() > 8 {
                        *s = s.replace(&id[..8], &format!("<entry {n}>"));
                    }
                }
            }
            _ => {}
        }
    }
    let values: Vec<&mut Value> = values.into_iter().collect();
    let mut ids = Vec::new();
    for v in &values {
        collect(v, &mut ids);
    }
    for v in values {
        rewrite(v, &ids);
    }
}

/// `v` with every ASCII digit as `#` (times of day, time stamps).
pub fn mask_digits(v: &mut Value) {
    let masked: String = v
        .to_string()
        .chars()
        .map(|c| if c.is_ascii_digit() { '#' } else { c })
        .collect();
    *v = serde_json::from_str(&masked).expect("masking digits keeps JSON valid");
}
