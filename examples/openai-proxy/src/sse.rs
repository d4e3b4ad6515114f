//! OpenAI's streamed deltas as pi's content blocks, as pi-ai's own OpenAI
//! provider reads them: one text block, one thinking block (from
//! `reasoning_content`, `reasoning` or `reasoning_text`, whichever comes
//! first, its name kept as the block's signature), a block per tool call.

use std::collections::{BTreeMap, HashMap};

use pi_ext::provider::{EventSink, ProviderEvent};
use serde_json::Value;

/// Where OpenAI may stream reasoning, in pi-ai's order.
const REASONING_FIELDS: [&str; 3] = ["reasoning_content", "reasoning", "reasoning_text"];

/// The blocks of one answer, in the order they started.
#[derive(Default)]
pub struct Blocks {
    text: Option<usize>,
    /// The thinking block and the field its deltas come in.
    thinking: Option<(usize, &'static str)>,
    /// Tool calls by OpenAI's index, and by id (for deltas without an index).
    by_index: BTreeMap<u64, usize>,
    by_id: HashMap<String, usize>,
    tools: Vec<usize>,
}

impl Blocks {
    /// Apply one chunk's `delta`.
    pub fn delta(&mut self, out: &EventSink, delta: &Value) {
        if let Some(text) = delta["content"].as_str().filter(|t| !t.is_empty()) {
            let index = *self.text.get_or_insert_with(|| out.text_start());
            out.text_delta(index, text);
        }
        let reasoning = REASONING_FIELDS
            .iter()
            .find_map(|&f| Some(f).zip(delta[f].as_str().filter(|t| !t.is_empty())));
        if let Some((field, text)) = reasoning {
            let (index, _) = *self
                .thinking
                .get_or_insert_with(|| (out.thinking_start(), field));
            out.thinking_delta(index, text);
        }
        for call in delta["tool_calls"].as_array().into_iter().flatten() {
            let index = self.tool_block(out, call);
            if let Some(args) = call["function"]["arguments"]
                .as_str()
                .filter(|a| !a.is_empty())
            {
                out.tool_call_delta(index, args);
            }
        }
    }

    /// The block of a streamed tool call, started at its first delta.
    fn tool_block(&mut self, out: &EventSink, call: &Value) -> usize {
        let n = call["index"].as_u64();
        let id = call["id"].as_str().filter(|i| !i.is_empty());
        let found = n
            .and_then(|n| self.by_index.get(&n))
            .or_else(|| id.and_then(|i| self.by_id.get(i)))
            .copied();
        let index = found.unwrap_or_else(|| {
            let name = call["function"]["name"].as_str().unwrap_or_default();
            let i = out.tool_call_start(id.unwrap_or_default(), name);
            self.tools.push(i);
            i
        });
        if let Some(n) = n {
            self.by_index.entry(n).or_insert(index);
        }
        if let Some(id) = id {
            self.by_id.insert(id.to_string(), index);
        }
        index
    }

    /// End every block, in the order they started.
    pub fn end(&mut self, out: &EventSink) {
        let mut ends: Vec<(usize, ProviderEvent)> = Vec::new();
        if let Some(i) = self.text.take() {
            ends.push((
                i,
                ProviderEvent::TextEnd {
                    index: i,
                    signature: None,
                },
            ));
        }
        if let Some((i, field)) = self.thinking.take() {
            ends.push((
                i,
                ProviderEvent::ThinkingEnd {
                    index: i,
                    signature: Some(field.to_string()),
                    redacted: false,
                },
            ));
        }
        for i in std::mem::take(&mut self.tools) {
            ends.push((
                i,
                ProviderEvent::ToolCallEnd {
                    index: i,
                    arguments: None,
                },
            ));
        }
        ends.sort_by_key(|(i, _)| *i);
        for (_, event) in ends {
            out.send(event);
        }
    }
}
