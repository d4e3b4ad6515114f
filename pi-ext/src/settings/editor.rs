//! The generated `/<extension>-settings` command: view and edit an
//! extension's settings through `ctx.ui` dialogs.
//!
//! It lists every field (grouped by tab, with its current value), and edits
//! the one picked with the fitting dialog: a select for enums (starting on
//! the current value), a confirm for booleans, an input validated against
//! the schema for numbers, text and JSON (asking again on invalid input).
//! The input's title shows the current value, and Enter keeps it: in pi's
//! terminal the input starts with it (the bridge's prefill), elsewhere it
//! starts empty (pi shows no placeholder), so an empty answer keeps it too.
//! After a refused answer the input starts with that answer, to correct,
//! and Enter on it unchanged keeps the current value, as the title says.
//! Values are written to the **global** settings file
//! ([`SettingsPaths::global`]), keeping every other key; a project file
//! still overrides them. The list comes back with the cursor on the field
//! just edited, until "Done" or a dismissed list.

use serde_json::Value;

use super::check::show;
use super::fields::{describe_fields, parse_input, FieldInfo, FieldKind};
use super::registered::SettingsType;
use super::write::write_value;
use super::{settings_schema, SettingsPaths};
use crate::context::CommandCtx;
use crate::host::ui::{Level, Ui, UiError};

/// The entry that ends the command.
const DONE: &str = "Done";

/// What typing this sets a text field to the empty string (an empty answer
/// keeps the current value).
const EMPTY_TEXT: &str = "\"\"";

/// A value as the list shows it: text without quotes.
fn label_of(v: Option<&Value>) -> String {
    match v {
        Some(Value::String(s)) => s.clone(),
        Some(other) => other.to_string(),
        None => "(unset)".into(),
    }
}

/// A value as the user would type it into the input.
fn as_typed(v: Option<&Value>) -> String {
    match v {
        None | Some(Value::Null) => String::new(),
        Some(Value::String(s)) => s.clone(),
        Some(other) => other.to_string(),
    }
}

/// Run the settings editor for extension `name` with settings type `T`.
pub(crate) async fn edit<T: SettingsType + 'static>(
    ctx: &CommandCtx,
    name: &str,
) -> Result<(), String> {
    let schema = settings_schema::<T>().map_err(|e| e.to_string())?;
    let fields = describe_fields(&schema);
    let paths = SettingsPaths::for_extension(name, ctx.cwd()).map_err(|e| e.to_string())?;
    let ui = ctx.ui();
    let mut cursor = 0;
    loop {
        let current = serde_json::to_value(ctx.settings::<T>()).unwrap_or(Value::Null);
        let labels: Vec<String> = fields
            .iter()
            .map(|f| {
                let value = label_of(current.get(&f.name));
                format!("{} › {} = {value}", f.tab, f.name)
            })
            .chain(std::iter::once(DONE.to_string()))
            .collect();
        let list = ui
            .select(format!("{name} settings"), labels.clone())
            .initial(cursor);
        let picked = match list.await {
            Ok(p) => p,
            Err(UiError::Cancelled) | Err(UiError::TimedOut) => return Ok(()),
            Err(e) => return Err(e.to_string()),
        };
        let Some(index) = labels.iter().position(|l| *l == picked) else {
            return Err(format!("unknown choice {picked:?}"));
        };
        let Some(field) = fields.get(index) else {
            return Ok(()); // Done
        };
        cursor = index;
        let now = current.get(&field.name).filter(|v| !v.is_null());
        let value = match ask(&ui, field, now).await {
            Asked::Value(v) => v,
            Asked::Keep => continue,
            Asked::Stop => return Ok(()),
        };
        if Some(&value) == now {
            continue;
        }
        write_value(&paths.global, &field.name, value.clone()).map_err(|e| e.to_string())?;
        ui.notify(
            format!(
                "{name}: {} = {} (saved to {})",
                field.name,
                label_of(Some(&value)),
                paths.global.display()
            ),
            Level::Info,
        );
    }
}

/// What the user said about one field.
#[derive(Debug, PartialEq)]
enum Asked {
    /// Set it to this.
    Value(Value),
    /// Leave it as it is (nothing typed, or the dialog dismissed).
    Keep,
    /// End the command.
    Stop,
}

/// Ask for a new value of `field`, whose current value is `now`.
async fn ask(ui: &Ui, field: &FieldInfo, now: Option<&Value>) -> Asked {
    let title = match &field.description {
        Some(d) => format!("{}: {d}", field.name),
        None => field.name.clone(),
    };
    match &field.kind {
        FieldKind::Bool => {
            let on = now.and_then(Value::as_bool).unwrap_or(false);
            let question = format!("Turn {} {}?", field.name, if on { "off" } else { "on" });
            match ui.confirm(title, question).await {
                Ok(true) => Asked::Value(Value::Bool(!on)),
                Ok(false) => Asked::Keep,
                Err(_) => Asked::Stop,
            }
        }
        FieldKind::Enum(options) => {
            let mut select = ui.select(title, options.clone());
            if let Some(i) = options
                .iter()
                .position(|o| Some(o.as_str()) == now.and_then(Value::as_str))
            {
                select = select.initial(i);
            }
            match select.await {
                Ok(choice) => Asked::Value(Value::String(choice)),
                Err(_) => Asked::Keep,
            }
        }
        _ => {
            let prefilled = ui.mode == crate::host::connection::Mode::Interactive;
            let mut typed = Typed::new(field, title, now, prefilled);
            loop {
                let input = ui
                    .input(typed.prompt(), as_typed(now))
                    .prefill(typed.prefill());
                let text = match input.await {
                    Ok(t) => t,
                    Err(_) => return Asked::Keep,
                };
                match typed.answer(text) {
                    Ok(asked) => return asked,
                    Err(why) => ui.notify(format!("{}: {why}", field.name), Level::Error),
                }
            }
        }
    }
}

/// One field's text input, apart from the dialogs: what it asks, what it
/// starts with, and what an answer means.
struct Typed<'a> {
    field: &'a FieldInfo,
    title: String,
    now: Option<&'a Value>,
    /// Whether the input shows its prefill (pi's terminal; elsewhere it
    /// starts empty).
    prefilled: bool,
    /// The answer last refused, and why.
    refused: Option<(String, String)>,
}

impl<'a> Typed<'a> {
    fn new(field: &'a FieldInfo, title: String, now: Option<&'a Value>, prefilled: bool) -> Self {
        Self {
            field,
            title,
            now,
            prefilled,
            refused: None,
        }
    }

    /// The input's title: the current value, and why the last answer was refused.
    fn prompt(&self) -> String {
        let hint = match self.now {
            Some(v) => format!("now {}; Enter keeps it", show(v)),
            None => "unset; Enter keeps it unset".to_string(),
        };
        match &self.refused {
            Some((_, why)) => format!("{} ({why}; {hint})", self.title),
            None => format!("{} ({hint})", self.title),
        }
    }

    /// What the input starts with: the refused answer, to correct it, or
    /// the current value.
    fn prefill(&self) -> String {
        match &self.refused {
            Some((text, _)) => text.clone(),
            None => as_typed(self.now),
        }
    }

    /// What `text` means, or why it is refused (ask again).
    fn answer(&mut self, text: String) -> Result<Asked, String> {
        let text = match (&self.field.kind, text.trim()) {
            (_, "") => return Ok(Asked::Keep),
            (FieldKind::String, EMPTY_TEXT) => String::new(),
            _ => text,
        };
        // Enter on the refused answer as it was prefilled: keep the value,
        // as the title says, instead of refusing it again.
        if self.prefilled && self.refused.as_ref().is_some_and(|(t, _)| *t == text) {
            return Ok(Asked::Keep);
        }
        parse_input(self.field, &text)
            .map(Asked::Value)
            .inspect_err(|why| {
                self.refused = Some((text, why.clone()));
            })
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::settings::fixtures::Demo;
    use crate::settings::settings_schema;

    fn font_size() -> FieldInfo {
        let fields = describe_fields(&settings_schema::<Demo>().unwrap());
        fields.into_iter().find(|f| f.name == "font_size").unwrap()
    }

    #[test]
    fn enter_after_a_refused_number_keeps_the_value_as_the_title_says() {
        let field = font_size();
        let now = json!(14);
        let mut typed = Typed::new(&field, "font_size".into(), Some(&now), true);
        assert_eq!(typed.prompt(), "font_size (now 14; Enter keeps it)");
        assert_eq!(typed.prefill(), "14");
        assert_eq!(
            typed.answer("300".into()),
            Err("300 is above the maximum 72".into())
        );
        assert_eq!(
            typed.prompt(),
            "font_size (300 is above the maximum 72; now 14; Enter keeps it)"
        );
        assert_eq!(typed.prefill(), "300", "the refused answer, to correct");
        // Enter on it untouched: what the title promises.
        assert_eq!(typed.answer("300".into()), Ok(Asked::Keep));
        // Corrected, it is taken; another wrong one is refused.
        assert_eq!(typed.answer("30".into()), Ok(Asked::Value(json!(30))));
        assert!(typed.answer("3000".into()).is_err());
        assert_eq!(typed.answer(" ".into()), Ok(Asked::Keep));
    }

    #[test]
    fn without_a_prefill_the_refused_answer_typed_again_is_refused_again() {
        // RPC mode: the input starts empty, so Enter is an empty answer
        // (kept); typing the same wrong value again is a new answer.
        let field = font_size();
        let mut typed = Typed::new(&field, "font_size".into(), None, false);
        assert_eq!(typed.prompt(), "font_size (unset; Enter keeps it unset)");
        assert!(typed.answer("300".into()).is_err());
        assert!(typed.answer("300".into()).is_err());
        assert_eq!(typed.answer(String::new()), Ok(Asked::Keep));
    }
}
