//! Renderers for custom session entries ([`crate::entry_renderer!`], pi's
//! `registerEntryRenderer`) and the keybinding hints they show.

use serde::de::DeserializeOwned;
use serde_json::{Map, Value};

use super::render::IntoMessageView;
use super::style::Fg;
use super::text::{span, Line};
use super::view::View;

/// A custom session entry (`appendEntry`) as its renderer sees it (see
/// [`crate::entry_renderer!`]).
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct RenderedEntry<D> {
    /// Its `customType`.
    pub custom_type: String,
    /// Its `data`, typed; `None` when absent or of another shape.
    pub data: Option<D>,
    /// pi's id of the entry.
    pub id: String,
    /// When pi recorded it (ISO 8601), if known.
    pub timestamp: Option<String>,
    /// The entry as pi has it.
    pub raw: Value,
}

/// How an entry is shown, and the user's keys for pi's keybindings.
#[derive(Debug, Clone, Copy)]
#[non_exhaustive]
pub struct EntryOpts<'a> {
    /// Whether tool output (and custom entries) are expanded (Ctrl+O).
    pub expanded: bool,
    keys: &'a Map<String, Value>,
}

impl<'a> EntryOpts<'a> {
    /// Options with these key texts (keybinding id → keys), as the bridge
    /// sends them; for testing a renderer.
    pub fn new(expanded: bool, keys: &'a Map<String, Value>) -> Self {
        EntryOpts { expanded, keys }
    }

    /// The keys the user has for a keybinding of pi's (`"app.tools.expand"`
    /// → `"ctrl+o"`), as pi's `keyText` writes them; `""` when it has none.
    pub fn key_text(&self, keybinding: &str) -> &'a str {
        self.keys
            .get(keybinding)
            .and_then(Value::as_str)
            .unwrap_or_default()
    }

    /// pi's `keyHint`: the keys (dim) and a description (muted), e.g.
    /// `ctrl+o to expand`.
    pub fn key_hint(&self, keybinding: &str, description: &str) -> Line {
        span(self.key_text(keybinding)).fg(Fg::Dim) + span(format!(" {description}")).fg(Fg::Muted)
    }
}

/// Decode an entry and call a renderer function on it (what
/// [`crate::entry_renderer!`] generates calls this).
pub(crate) fn render_entry<D, R>(
    f: impl Fn(&RenderedEntry<D>, EntryOpts<'_>) -> R,
    entry: &Value,
    opts: EntryOpts<'_>,
) -> Option<View>
where
    D: DeserializeOwned,
    R: IntoMessageView,
{
    let e = RenderedEntry {
        custom_type: entry["customType"].as_str().unwrap_or_default().to_string(),
        data: serde_json::from_value(entry["data"].clone()).ok(),
        id: entry["id"].as_str().unwrap_or_default().to_string(),
        timestamp: entry["timestamp"].as_str().map(str::to_string),
        raw: entry.clone(),
    };
    f(&e, opts).into_message_view()
}

/// Both views of an entry (collapsed, expanded) on the wire, or `None`: the
/// renderer draws nothing for it (or panicked).
pub(crate) fn entry_views(
    render: fn(&Value, EntryOpts<'_>) -> Option<View>,
    entry: &Value,
    keys: &Map<String, Value>,
) -> Option<Value> {
    super::render::both_views("entry", entry, |expanded| {
        render(entry, EntryOpts::new(expanded, keys))
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[derive(serde::Deserialize)]
    struct Card {
        message: String,
    }

    fn card(e: &RenderedEntry<Card>, o: EntryOpts<'_>) -> Option<View> {
        let d = e.data.as_ref()?;
        let mut v = View::text(span(d.message.clone()));
        if !o.expanded {
            v = v.line(o.key_hint("app.tools.expand", "to expand"));
        }
        Some(v)
    }

    #[test]
    fn entries_decode_their_data_and_show_the_users_keys() {
        let keys: Map<String, Value> =
            serde_json::from_value(json!({"app.tools.expand": "ctrl+o"})).unwrap();
        let render = |e: &Value, o: EntryOpts<'_>| render_entry(card, e, o);
        let entry =
            json!({"type": "custom", "customType": "c", "id": "e1", "data": {"message": "hi"}});
        let collapsed = render(&entry, EntryOpts::new(false, &keys)).unwrap();
        assert_eq!(collapsed.plain_lines(), ["hi", "ctrl+o to expand"]);
        let expanded = render(&entry, EntryOpts::new(true, &keys)).unwrap();
        assert_eq!(expanded.plain_lines(), ["hi"]);
        assert!(render(&json!({"data": 3}), EntryOpts::new(false, &keys)).is_none());
        assert_eq!(EntryOpts::new(false, &keys).key_text("app.nothing"), "");
    }
}
