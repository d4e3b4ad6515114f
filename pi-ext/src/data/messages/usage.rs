//! What an answer cost and why it stopped: [`Usage`], [`Cost`],
//! [`StopReason`].

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::{Map, Value};

use crate::wire::raw::js_number;

/// Token counts and cost of one answer.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct Usage {
    /// Input tokens.
    #[serde(default)]
    pub input: u64,
    /// Output tokens.
    #[serde(default)]
    pub output: u64,
    /// Tokens read from the prompt cache.
    #[serde(default)]
    pub cache_read: u64,
    /// Tokens written to the prompt cache.
    #[serde(default)]
    pub cache_write: u64,
    /// All tokens.
    #[serde(default)]
    pub total_tokens: u64,
    /// What it cost, by part.
    #[serde(default)]
    pub cost: Cost,
    /// Fields this version of pi-ext does not know.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// The cost of one answer, by part (in the provider's currency unit).
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct Cost {
    /// Input.
    #[serde(default, serialize_with = "js_number")]
    pub input: f64,
    /// Output.
    #[serde(default, serialize_with = "js_number")]
    pub output: f64,
    /// Cache reads.
    #[serde(default, serialize_with = "js_number")]
    pub cache_read: f64,
    /// Cache writes.
    #[serde(default, serialize_with = "js_number")]
    pub cache_write: f64,
    /// Total.
    #[serde(default, serialize_with = "js_number")]
    pub total: f64,
    /// Fields this version of pi-ext does not know.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// Why the model stopped.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
#[non_exhaustive]
pub enum StopReason {
    /// `"stop"`: it finished.
    #[default]
    Stop,
    /// `"length"`: it hit the token limit.
    Length,
    /// `"toolUse"`: it called tools.
    ToolUse,
    /// `"error"`.
    Error,
    /// `"aborted"`.
    Aborted,
    /// A reason this version of pi-ext does not know.
    Other(String),
}

impl StopReason {
    /// pi's name for it.
    pub fn as_str(&self) -> &str {
        match self {
            StopReason::Stop => "stop",
            StopReason::Length => "length",
            StopReason::ToolUse => "toolUse",
            StopReason::Error => "error",
            StopReason::Aborted => "aborted",
            StopReason::Other(s) => s,
        }
    }
}

impl Serialize for StopReason {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.as_str())
    }
}

impl<'de> Deserialize<'de> for StopReason {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = String::deserialize(d)?;
        Ok(match s.as_str() {
            "stop" => StopReason::Stop,
            "length" => StopReason::Length,
            "toolUse" => StopReason::ToolUse,
            "error" => StopReason::Error,
            "aborted" => StopReason::Aborted,
            _ => StopReason::Other(s),
        })
    }
}
