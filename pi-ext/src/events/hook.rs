//! What makes a type a hook's event or result: the [`Event`],
//! [`HookOutput`] and [`HookReturn`] traits, and the `event!` macro that
//! declares an event struct.

use serde_json::Value;

use crate::events::io::{Answer, AnswerShape, HookInput};

/// A pi event a `#[hook]` can subscribe to.
///
/// Implemented by every event struct in this module; `NAME` is pi's event
/// name and `Output` what a hook may return for it.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a pi event",
    label = "a hook's non-context argument must be one of pi's events",
    note = "use an event type from `pi_ext::events`, e.g. `ToolCallEvent`, `SessionStartEvent`, `TurnEndEvent`"
)]
pub trait Event: serde::de::DeserializeOwned + Send + 'static {
    /// pi's name for the event (`pi.on(NAME, …)`).
    const NAME: &'static str;
    /// What a hook may return.
    type Output: HookOutput;
    /// Hooks on it get the streamed updates of one batch (up to 2 ms)
    /// at once. Not a public API.
    #[doc(hidden)]
    const BATCH: bool = false;

    /// The event from what the dispatcher received, and how the answer is
    /// to be written. Not a public API.
    ///
    /// # Errors
    ///
    /// When the input does not decode as this event.
    #[doc(hidden)]
    fn from_input(input: HookInput) -> Result<(Self, AnswerShape), String> {
        match input {
            HookInput::Json(raw) => crate::wire::from_raw::<Self>(&raw)
                .map(|event| (event, AnswerShape::Json))
                .map_err(|e| format!("could not decode the `{}` event: {e}", Self::NAME)),
            other => Err(format!(
                "the `{}` event cannot come as {}",
                Self::NAME,
                other.kind()
            )),
        }
    }
}

/// A value a hook may return for its event. Serialized into what pi's
/// handler returns (`null` = no change).
pub trait HookOutput: Send + 'static {
    /// The JSON handed back to pi.
    fn into_json(self) -> Value;

    /// The answer as sent, in the shape the call asked for. Not a public API.
    #[doc(hidden)]
    fn into_answer(self, shape: AnswerShape) -> Answer
    where
        Self: Sized,
    {
        let _ = shape;
        Answer::Json(self.into_json())
    }
}

/// What a hook function may return for an event whose result type is `O`:
/// `O` itself, or `Result<O, E>` with `E: Into<Error>` (an `Err` blocks a
/// `tool_call` and is reported as an extension error elsewhere).
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a valid result for this hook",
    label = "this hook must return `{O}` (or `Result<{O}, E>`)",
    note = "each event has one result type: see `pi_ext::events` (e.g. `ToolCallEvent` → `ToolCallAction`, notifications → `()`)"
)]
pub trait HookReturn<O> {
    /// The result, or the error message.
    ///
    /// # Errors
    ///
    /// The hook's error message (a failing `tool_call` hook blocks the call).
    fn into_hook(self) -> Result<O, String>;
}

impl<O: HookOutput> HookReturn<O> for O {
    fn into_hook(self) -> Result<O, String> {
        Ok(self)
    }
}

impl<O: HookOutput, E: Into<crate::Error>> HookReturn<O> for Result<O, E> {
    fn into_hook(self) -> Result<O, String> {
        self.map_err(|e| e.into().message().to_string())
    }
}

impl HookOutput for () {
    fn into_json(self) -> Value {
        Value::Null
    }
}

macro_rules! event {
    (
        $(#[$meta:meta])*
        $name:ident = $pi:literal -> $out:ty { $( $(#[$fmeta:meta])* $field:ident : $ty:ty ),* $(,)? }
    ) => {
        $(#[$meta])*
        ///
        /// `Default` is the event with every field empty, to build one in a
        /// test (see [`crate::testing`]).
        #[derive(Debug, Clone, Default, Serialize, Deserialize)]
        #[serde(rename_all = "camelCase")]
        #[non_exhaustive]
        pub struct $name {
            $( $(#[$fmeta])* #[serde(default)] pub $field: $ty, )*
            /// Fields this version of pi-ext does not know.
            #[serde(flatten)]
            pub extra: Map<String, Value>,
        }

        impl Event for $name {
            const NAME: &'static str = $pi;
            type Output = $out;
        }
    };
}

/// Declares the event struct and its `Event` impl (in `session`, `agent`, `tools`).
pub(crate) use event;
