//! Test extension: a provider whose models misbehave, one way each. The
//! bridge must end pi's stream with a clear error every time, and pass
//! nothing malformed on to pi. The `flood` and `big-call` models stream
//! many small deltas, in lines of 1,000 events: pi must stay responsive;
//! `too-big` streams 1 MB, past the limit the test sets.
use std::pin::Pin;
use std::task::{Context, Poll};

use pi_ext::llm::LlmMessage;
use pi_ext::messages::StopReason;
use pi_ext::provider::{
    channel, ModelDef, ProviderDef, ProviderError, ProviderEvent, ProviderRequest, ProviderStream,
    Stream,
};

fn faults() -> ProviderDef {
    let mut def = ProviderDef::new("faults").display_name("Misbehaving provider");
    for id in [
        "bad-index",
        "after-done",
        "no-done",
        "panics",
        "flood",
        "big-call",
        "too-big",
    ] {
        def = def.model(ModelDef::new(id, id));
    }
    def.stream(answer)
}

pi_ext::provider!(faults);

/// Events, then the end of the stream.
struct Events(std::vec::IntoIter<ProviderEvent>);

impl Stream for Events {
    type Item = Result<ProviderEvent, ProviderError>;
    fn poll_next(mut self: Pin<&mut Self>, _cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        Poll::Ready(self.0.next().map(Ok))
    }
}

/// Events in lines of `per_line`: the stream is pending (and wakes at once)
/// after each `per_line` events, so the runtime sends a line each time.
struct Lines {
    events: std::vec::IntoIter<ProviderEvent>,
    per_line: usize,
    sent: usize,
    paused: bool,
}

impl Lines {
    fn new(events: Vec<ProviderEvent>, per_line: usize) -> Self {
        Lines {
            events: events.into_iter(),
            per_line,
            sent: 0,
            paused: false,
        }
    }
}

impl Stream for Lines {
    type Item = Result<ProviderEvent, ProviderError>;
    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        if self.sent > 0 && self.sent.is_multiple_of(self.per_line) && !self.paused {
            self.paused = true;
            cx.waker().wake_by_ref();
            return Poll::Pending;
        }
        self.paused = false;
        let next = self.events.next();
        self.sent += usize::from(next.is_some());
        Poll::Ready(next.map(Ok))
    }
}

/// A text answer of `count` deltas of `size` characters: the digits, over
/// and over.
fn flood(count: usize, size: usize) -> Vec<ProviderEvent> {
    let mut events = vec![ProviderEvent::TextStart { index: 0 }];
    events.extend((0..count).map(|i| {
        ProviderEvent::TextDelta {
            index: 0,
            text: (0..size)
                .map(|j| char::from(b'0' + ((i * size + j) % 10) as u8))
                .collect(),
        }
    }));
    events.push(ProviderEvent::TextEnd {
        index: 0,
        signature: None,
    });
    events.push(ProviderEvent::Done(StopReason::Stop));
    events
}

/// `big-call`: a `write` of `big.txt` (201 kB of JSON arguments) in 100-byte
/// deltas; the turn after its result, a short answer.
fn big_call(req: &ProviderRequest) -> Vec<ProviderEvent> {
    if matches!(req.context.messages.last(), Some(LlmMessage::ToolResult(_))) {
        return vec![
            ProviderEvent::TextStart { index: 0 },
            ProviderEvent::TextDelta {
                index: 0,
                text: "written".into(),
            },
            ProviderEvent::TextEnd {
                index: 0,
                signature: None,
            },
            ProviderEvent::Done(StopReason::Stop),
        ];
    }
    let content: String = (0..10_600)
        .map(|i| format!("line {i:05} \"q\"\n"))
        .collect();
    let json = pi_ext::serde_json::json!({"path": "big.txt", "content": content}).to_string();
    let mut events = vec![ProviderEvent::ToolCallStart {
        index: 0,
        id: "call_big".into(),
        name: "write".into(),
    }];
    // The JSON is ASCII: any 100 bytes are characters.
    events.extend(
        json.as_bytes()
            .chunks(100)
            .map(|piece| ProviderEvent::ToolCallDelta {
                index: 0,
                json: String::from_utf8(piece.to_vec()).unwrap(),
            }),
    );
    events.push(ProviderEvent::ToolCallEnd {
        index: 0,
        arguments: None,
    });
    events.push(ProviderEvent::Done(StopReason::ToolUse));
    events
}

fn answer(req: ProviderRequest) -> ProviderStream {
    let model = req.model.id.clone();
    match model.as_str() {
        "flood" => return ProviderStream::from_stream(Lines::new(flood(100_000, 1), 1_000)),
        "too-big" => return ProviderStream::from_stream(Lines::new(flood(1_000, 1_000), 1_000)),
        "big-call" => return ProviderStream::from_stream(Lines::new(big_call(&req), 1_000)),
        _ => {}
    }
    if model == "no-done" {
        // A text block, and the stream ends without saying how.
        return ProviderStream::from_stream(Events(
            vec![
                ProviderEvent::TextStart { index: 0 },
                ProviderEvent::TextDelta {
                    index: 0,
                    text: "and then nothing".into(),
                },
                ProviderEvent::TextEnd {
                    index: 0,
                    signature: None,
                },
            ]
            .into_iter(),
        ));
    }
    channel(req, move |_req, out| async move {
        match model.as_str() {
            // A text block, then a delta for a block that was never started.
            "bad-index" => {
                let t = out.text_start();
                out.text_delta(t, "fine so far");
                out.send(ProviderEvent::TextDelta {
                    index: 3,
                    text: "nowhere".into(),
                });
                out.text_end(t);
                Ok(StopReason::Stop)
            }
            // A complete answer, then more: pi keeps the answer.
            "after-done" => {
                let t = out.text_start();
                out.text_delta(t, "complete answer");
                out.text_end(t);
                out.send(ProviderEvent::Done(StopReason::Stop));
                out.send(ProviderEvent::TextStart { index: 1 });
                Ok(StopReason::Stop)
            }
            _ => panic!("the provider broke"),
        }
    })
}

pi_ext::main!();
