//! [`Suggestion`]: one item of pi-tui's autocomplete list, for a command's
//! argument completions and for the editor's autocomplete providers alike.

use serde_json::{json, Value};

use crate::util::sanitize::{sanitize, Keep};

/// One item of the list pi's terminal UI shows under the editor (pi-tui's
/// `AutocompleteItem`): a command's argument completion (`#[command(completions
/// = f)]`) or an editor autocomplete suggestion ([`crate::tui::Suggestions`]).
/// From a `String` or `&str`, the value is its label.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Suggestion {
    /// What is inserted when it is picked (it replaces the typed prefix).
    pub value: String,
    /// What the list shows.
    pub label: String,
    /// A note beside the label, dimmed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
}

impl Suggestion {
    /// A suggestion showing its value.
    pub fn new(value: impl Into<String>) -> Self {
        let value = value.into();
        Self {
            label: value.clone(),
            value,
            description: None,
        }
    }

    /// With a note beside it.
    pub fn description(mut self, description: impl Into<String>) -> Self {
        self.description = Some(description.into());
        self
    }

    /// Its JSON for pi's list, each text sanitized: pi shows them in its
    /// terminal (and types the value into its editor).
    pub(crate) fn wire(&self) -> Value {
        let mut item = json!({
            "value": sanitize(&self.value, Keep::Line),
            "label": sanitize(&self.label, Keep::Line),
        });
        if let Some(d) = &self.description {
            item["description"] = json!(sanitize(d, Keep::Line));
        }
        item
    }
}

impl From<String> for Suggestion {
    fn from(value: String) -> Self {
        Suggestion::new(value)
    }
}

impl From<&str> for Suggestion {
    fn from(value: &str) -> Self {
        Suggestion::new(value)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn serializes_value_label_and_only_a_present_description() {
        let plain = serde_json::to_value(Suggestion::from("prod")).unwrap();
        assert_eq!(plain, json!({"value": "prod", "label": "prod"}));
        let noted = Suggestion::new("prod").description("deploy");
        let back: Suggestion =
            serde_json::from_value(serde_json::to_value(&noted).unwrap()).unwrap();
        assert_eq!(back, noted);
        assert_eq!(noted.wire()["description"], "deploy");
    }
}
