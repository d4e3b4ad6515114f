//! [`Message`] and [`Messages`]: messages as pi sent them, parsed on first
//! use and shared.
use std::sync::Arc;

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::value::RawValue;
use serde_json::Value;

use super::AgentMessage;
use crate::wire::raw::Lazy;

/// One message of the conversation as pi sent it: its JSON text, parsed
/// into an [`AgentMessage`] on first use and kept. Cheap to clone (one
/// `Arc`); a hook keeps a message by passing a clone on, which the bridge
/// then sends back as "keep" rather than as text.
///
/// It dereferences to the [`AgentMessage`].
#[derive(Clone)]
pub struct Message(Arc<Lazy<AgentMessage>>);

impl Message {
    /// A message built in Rust (written as JSON when it is sent).
    pub fn new(message: impl Into<AgentMessage>) -> Self {
        Message(Arc::new(Lazy::from_typed(message.into())))
    }

    /// A message from pi's JSON shape.
    ///
    /// # Errors
    ///
    /// When `value` cannot be written as JSON text (it always can).
    pub fn from_json(value: Value) -> serde_json::Result<Self> {
        serde_json::value::to_raw_value(&value).map(Self::from_raw)
    }

    /// A message from the text pi sent.
    pub(crate) fn from_raw(raw: Box<RawValue>) -> Self {
        Message(Arc::new(Lazy::from_raw(raw)))
    }

    /// The typed message (parsed on first use, then kept).
    pub fn get(&self) -> &AgentMessage {
        self.0.typed()
    }

    /// The JSON text (pi's own text for a message pi sent).
    pub fn raw_json(&self) -> &str {
        self.0.raw().get()
    }

    pub(crate) fn raw_value(&self) -> &RawValue {
        self.0.raw()
    }

    /// The message as a [`Value`].
    pub fn to_value(&self) -> Value {
        serde_json::from_str(self.raw_json()).unwrap_or(Value::Null)
    }

    /// Whether both are the same message (not a copy): a hook's answer keeps
    /// the input's messages by identity.
    pub fn ptr_eq(a: &Message, b: &Message) -> bool {
        Arc::ptr_eq(&a.0, &b.0)
    }

    /// A changed copy: `edit` gets the typed message to change.
    pub fn map(&self, edit: impl FnOnce(&mut AgentMessage)) -> Message {
        let mut m = self.get().clone();
        edit(&mut m);
        Message::new(m)
    }

    pub(crate) fn addr(&self) -> usize {
        Arc::as_ptr(&self.0) as *const () as usize
    }

    /// Whether this handle is the message's only one (then no list holds it).
    pub(crate) fn is_unique(&self) -> bool {
        Arc::strong_count(&self.0) == 1
    }
}

impl std::ops::Deref for Message {
    type Target = AgentMessage;
    fn deref(&self) -> &AgentMessage {
        self.get()
    }
}

impl std::fmt::Debug for Message {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.0.has_raw() {
            f.debug_tuple("Message").field(&self.raw_json()).finish()
        } else {
            f.debug_tuple("Message").field(self.get()).finish()
        }
    }
}

/// Equal when the JSON texts are equal.
impl PartialEq for Message {
    fn eq(&self, other: &Self) -> bool {
        Message::ptr_eq(self, other) || self.raw_json() == other.raw_json()
    }
}

impl From<AgentMessage> for Message {
    fn from(m: AgentMessage) -> Self {
        Message::new(m)
    }
}

impl Serialize for Message {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        self.raw_value().serialize(s)
    }
}

impl<'de> Deserialize<'de> for Message {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        Box::<RawValue>::deserialize(d).map(Message::from_raw)
    }
}

/// The whole conversation as a `context` hook sees it: cheap to clone (one
/// `Arc`), a slice of [`Message`]s.
#[derive(Clone, Default)]
pub struct Messages(Arc<[Message]>);

impl Messages {
    /// The messages as a vector (clones of the handles, not of the messages).
    pub fn to_vec(&self) -> Vec<Message> {
        self.0.to_vec()
    }

    pub(crate) fn from_arc(items: Arc<[Message]>) -> Self {
        Messages(items)
    }
}

impl std::ops::Deref for Messages {
    type Target = [Message];
    fn deref(&self) -> &[Message] {
        &self.0
    }
}

impl std::fmt::Debug for Messages {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list().entries(self.0.iter()).finish()
    }
}

impl From<Vec<Message>> for Messages {
    fn from(v: Vec<Message>) -> Self {
        Messages(v.into())
    }
}

impl<'a> IntoIterator for &'a Messages {
    type Item = &'a Message;
    type IntoIter = std::slice::Iter<'a, Message>;
    fn into_iter(self) -> Self::IntoIter {
        self.0.iter()
    }
}

impl Serialize for Messages {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        self.0.serialize(s)
    }
}

impl<'de> Deserialize<'de> for Messages {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        Vec::<Message>::deserialize(d).map(Messages::from)
    }
}
