//! OpenAI's streamed deltas as pi's content blocks.

use std::collections::BTreeMap;

use pi_ext::provider::EventSink;
use serde_json::Value;

/// The blocks of one answer: the text block, and a block per tool call
/// (OpenAI numbers tool calls itself).
#[derive(Default)]
pub struct Blocks {
    text: Option<usize>,
    tools: BTreeMap<u64, usize>,
}

impl Blocks {
    /// Apply one chunk's `delta`.
    pub fn delta(&mut self, out: &EventSink, delta: &Value) {
        if let Some(text) = delta["content"].as_str().filter(|t| !t.is_empty()) {
            let index = *self.text.get_or_insert_with(|| out.text_start());
            out.text_delta(index, text);
        }
        for call in delta["tool_calls"].as_array().into_iter().flatten() {
            let n = call["index"].as_u64().unwrap_or(0);
            let index = match self.tools.get(&n) {
                Some(&i) => i,
                None => {
                    let id = call["id"].as_str().unwrap_or_default();
                    let name = call["function"]["name"].as_str().unwrap_or_default();
                    let i = out.tool_call_start(id, name);
                    self.tools.insert(n, i);
                    i
                }
            };
            if let Some(args) = call["function"]["arguments"]
                .as_str()
                .filter(|a| !a.is_empty())
            {
                out.tool_call_delta(index, args);
            }
        }
    }

    /// End the open blocks, in order.
    pub fn end(&mut self, out: &EventSink) {
        if let Some(i) = self.text.take() {
            out.text_end(i);
        }
        for (_, i) in std::mem::take(&mut self.tools) {
            out.tool_call_end(i);
        }
    }
}
