//! [`Key`]: a key press as pi-tui decodes it.

use serde::Deserialize;

/// Whether a key went down, repeats or went up (releases reach only
/// components that ask for them, [`super::Component::wants_key_release`];
/// they need a terminal with the kitty keyboard protocol).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Default)]
#[serde(rename_all = "lowercase")]
#[non_exhaustive]
pub enum KeyKind {
    /// Pressed.
    #[default]
    Press,
    /// Held down (auto-repeat).
    Repeat,
    /// Released.
    Release,
}

/// A key press, named the way pi names keys: `enter`, `escape`, `ctrl+c`,
/// `shift+tab`, `up`, `pageUp`, `f5`, a printable character (`a`, `$`).
///
/// The bridge decodes the terminal's bytes with pi-tui's own `parseKey`
/// and adds the other names pi-tui's `matchesKey` accepts for the same
/// bytes (`\r` is also `ctrl+m`; `A` is also `shift+a`), so
/// [`Key::is`] agrees with `matchesKey(data, id)`.
///
/// ```
/// # use pi_ext::tui::Key;
/// let key = Key::named("ctrl+c");
/// assert!(key.is("ctrl+c") && key.is("Ctrl+C") && !key.is("c"));
/// assert!(Key::named("escape").is("esc"));
/// assert_eq!(Key::typed("é").text(), Some("é"));
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, Default)]
pub struct Key {
    /// pi-tui's name for it, if it has one.
    #[serde(default)]
    key: Option<String>,
    /// Other names `matchesKey` accepts for the same input.
    #[serde(default)]
    aliases: Vec<String>,
    /// The raw input.
    #[serde(default)]
    data: String,
    /// The text it types, if printable.
    #[serde(default)]
    text: Option<String>,
    #[serde(default)]
    kind: KeyKind,
    /// The bridge's sequence number (to answer the key).
    #[serde(default)]
    pub(crate) seq: u64,
}

/// A key by its name ([`Key::named`]), for tests: `component.key("enter")`.
impl From<&str> for Key {
    fn from(id: &str) -> Key {
        Key::named(id)
    }
}

impl Key {
    /// A key with this name (for tests of components).
    pub fn named(id: &str) -> Key {
        let text = (id.chars().count() == 1).then(|| id.to_string());
        Key {
            key: Some(id.to_string()),
            data: text.clone().unwrap_or_default(),
            text,
            ..Key::default()
        }
    }

    /// Typed text (for tests of components).
    pub fn typed(text: &str) -> Key {
        let single = text.chars().count() == 1;
        Key {
            key: single.then(|| text.to_string()),
            data: text.to_string(),
            text: Some(text.to_string()),
            ..Key::default()
        }
    }

    /// The bridge's `ui/key` params for this key as key number `seq` of
    /// `component` (the test host plays the bridge).
    pub(crate) fn wire(&self, component: u64, seq: u64) -> serde_json::Value {
        serde_json::json!({
            "component": component, "seq": seq, "key": self.key, "aliases": self.aliases,
            "data": self.data, "text": self.text,
        })
    }

    /// Whether this is the key `id` (`"up"`, `"ctrl+shift+p"`, `"q"`).
    /// Modifier order and case do not matter for named keys, `esc` is
    /// `escape` and `return` is `enter`; a single character is compared
    /// as is (`"Q"` is shift+q, `"q"` is q).
    pub fn is(&self, id: &str) -> bool {
        let want = normalize(id);
        self.key.as_deref().map(normalize).as_deref() == Some(want.as_str())
            || self.aliases.iter().any(|a| normalize(a) == want)
    }

    /// pi-tui's name for it (`None` for text it has no name for, like `é`
    /// or a paste).
    pub fn name(&self) -> Option<&str> {
        self.key.as_deref()
    }

    /// The text the key types, if it types any (printable characters,
    /// including non-ASCII ones and, for kitty's keyboard protocol, the
    /// decoded character). `None` for control keys.
    pub fn text(&self) -> Option<&str> {
        self.text.as_deref()
    }

    /// The raw bytes the terminal sent, as text (for a component's key).
    /// For a key of [`super::TerminalInput`], only the text it types or a
    /// paste: never a key's escape sequence. Data to read, not to write to
    /// a terminal.
    pub fn data(&self) -> &str {
        &self.data
    }

    /// Pasted text (bracketed paste: the terminal wraps it in markers).
    pub fn paste(&self) -> Option<&str> {
        self.data
            .strip_prefix("\x1b[200~")
            .map(|rest| rest.strip_suffix("\x1b[201~").unwrap_or(rest))
    }

    /// Press, repeat or release.
    pub fn kind(&self) -> KeyKind {
        self.kind
    }

    /// Whether it is a release (see [`KeyKind`]).
    pub fn is_release(&self) -> bool {
        self.kind == KeyKind::Release
    }
}

/// A key id in one spelling: modifiers in pi's order (`ctrl shift alt
/// super`), lower case except a single-character key.
pub(crate) fn normalize(id: &str) -> String {
    let parts: Vec<&str> = id.split('+').collect();
    // `+` itself is a key: "ctrl++" or "+".
    let (mods, base) = if id.ends_with("++") {
        (&parts[..parts.len() - 2], "+")
    } else if id == "+" {
        (&parts[..0], "+")
    } else {
        (&parts[..parts.len() - 1], parts[parts.len() - 1])
    };
    let mods: Vec<String> = mods.iter().map(|m| m.to_ascii_lowercase()).collect();
    let mut out = String::new();
    for m in ["ctrl", "shift", "alt", "super"] {
        if mods.iter().any(|x| x == m) {
            out.push_str(m);
            out.push('+');
        }
    }
    let base = if base.chars().count() == 1 && mods.is_empty() {
        base.to_string()
    } else {
        match base.to_ascii_lowercase().as_str() {
            "esc" => "escape".into(),
            "return" => "enter".into(),
            other => other.to_string(),
        }
    };
    out.push_str(&base);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(json: &str) -> Key {
        serde_json::from_str(json).unwrap()
    }

    #[test]
    fn names_and_aliases_match_in_any_spelling() {
        let enter = key(r#"{"key":"enter","aliases":["ctrl+m"],"data":"\r"}"#);
        assert!(enter.is("enter") && enter.is("return") && enter.is("ctrl+m"));
        assert!(!enter.is("escape"));
        let p = key(r#"{"key":"ctrl+shift+p","data":"x"}"#);
        assert!(p.is("shift+ctrl+p") && p.is("CTRL+SHIFT+P"));
        let upper = key(r#"{"key":"Q","aliases":["shift+q"],"data":"Q","text":"Q"}"#);
        assert!(upper.is("Q") && upper.is("shift+q") && !upper.is("q"));
        let page = key(r#"{"key":"pageUp","data":"\u001b[5~"}"#);
        assert!(page.is("pageup") && page.is("pageUp"));
        assert!(key(r#"{"key":"+","data":"+"}"#).is("+"));
        assert!(key(r#"{"key":"ctrl++","data":"x"}"#).is("ctrl++"));
    }

    #[test]
    fn pastes_and_kinds() {
        let k = key(r#"{"data":"\u001b[200~hi\nthere\u001b[201~"}"#);
        assert_eq!(k.paste(), Some("hi\nthere"));
        assert_eq!(k.name(), None);
        let r = key(r#"{"key":"left","data":"x","kind":"release"}"#);
        assert!(r.is_release());
    }
}
