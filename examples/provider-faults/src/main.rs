//! Test extension: a provider whose models misbehave, one way each. The
//! bridge must end pi's stream with a clear error every time, and pass
//! nothing malformed on to pi.
use std::pin::Pin;
use std::task::{Context, Poll};

use pi_ext::messages::StopReason;
use pi_ext::provider::{
    channel, ModelDef, ProviderDef, ProviderError, ProviderEvent, ProviderRequest, ProviderStream,
    Stream,
};

fn faults() -> ProviderDef {
    let mut def = ProviderDef::new("faults").display_name("Misbehaving provider");
    for id in ["bad-index", "after-done", "no-done", "panics"] {
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

fn answer(req: ProviderRequest) -> ProviderStream {
    let model = req.model.id.clone();
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
