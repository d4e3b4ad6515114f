//! The generated `/<extension>-settings` command: view and edit an
//! extension's settings through `ctx.ui` dialogs.
//!
//! It lists every field (grouped by tab, with its current value), and edits
//! the one picked with the fitting dialog: a select for enums (starting on
//! the current value), a confirm for booleans, an input validated against
//! the schema for numbers, text and JSON (asking again on invalid input).
//! The input's title shows the current value, and an empty answer keeps it:
//! pi's terminal shows neither an input's placeholder nor (in 0.73) a
//! prefill, so Enter on an untouched input must not save an empty string.
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
use crate::ui::{Level, Ui, UiError};

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
            let hint = match now {
                Some(v) => format!("now {}; Enter keeps it", show(v)),
                None => "unset; Enter keeps it unset".to_string(),
            };
            let mut prompt = format!("{title} ({hint})");
            let mut prefill = as_typed(now);
            loop {
                let input = ui
                    .input(prompt.clone(), as_typed(now))
                    .prefill(prefill.clone());
                let text = match input.await {
                    Ok(t) => t,
                    Err(_) => return Asked::Keep,
                };
                let text = match (&field.kind, text.trim()) {
                    (_, "") => return Asked::Keep,
                    (FieldKind::String, EMPTY_TEXT) => String::new(),
                    _ => text,
                };
                match parse_input(field, &text) {
                    Ok(v) => return Asked::Value(v),
                    Err(why) => {
                        ui.notify(format!("{}: {why}", field.name), Level::Error);
                        prompt = format!("{title} ({why}; {hint})");
                        prefill = text;
                    }
                }
            }
        }
    }
}
