//! The generated `/<extension>-settings` command: view and edit an
//! extension's settings through `ctx.ui` dialogs.
//!
//! It lists every field (grouped by tab, with its current value), and edits
//! the one picked with the fitting dialog: a select for enums, a confirm for
//! booleans, an input validated against the schema for numbers and strings
//! (asking again on invalid input). Values are written to the **global**
//! settings file ([`SettingsPaths::global`]), keeping every
//! other key; a project file still overrides them. It loops until "Done" or
//! a dismissed dialog.

use serde::de::DeserializeOwned;
use serde::Serialize;
use serde_json::Value;

use super::fields::{describe_fields, parse_input, FieldKind};
use super::write::write_value;
use super::{settings_schema, SettingsPaths};
use crate::context::CommandCtx;
use crate::ui::{Level, UiError};

/// The entry that ends the command.
const DONE: &str = "Done";

fn show(v: Option<&Value>) -> String {
    match v {
        Some(Value::String(s)) => s.clone(),
        Some(other) => other.to_string(),
        None => "(unset)".into(),
    }
}

/// Run the settings editor for extension `name` with settings type `T`.
pub(crate) async fn edit<T>(ctx: &CommandCtx, name: &str) -> Result<(), String>
where
    T: DeserializeOwned + Default + Serialize + schemars::JsonSchema + 'static,
{
    let schema = settings_schema::<T>().map_err(|e| e.to_string())?;
    let fields = describe_fields(&schema);
    let paths = SettingsPaths::for_extension(name, ctx.cwd()).map_err(|e| e.to_string())?;
    let ui = ctx.ui();
    loop {
        let current = serde_json::to_value(ctx.settings::<T>()).unwrap_or(Value::Null);
        let labels: Vec<String> = fields
            .iter()
            .map(|f| format!("{} › {} = {}", f.tab, f.name, show(current.get(&f.name))))
            .chain(std::iter::once(DONE.to_string()))
            .collect();
        let picked = match ui.select(format!("{name} settings"), labels.clone()).await {
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
        let title = match &field.description {
            Some(d) => format!("{}: {d}", field.name),
            None => field.name.clone(),
        };
        let value = match &field.kind {
            FieldKind::Bool => {
                let on = current
                    .get(&field.name)
                    .and_then(Value::as_bool)
                    .unwrap_or(false);
                match ui
                    .confirm(
                        title,
                        format!("Turn {} {}?", field.name, if on { "off" } else { "on" }),
                    )
                    .await
                {
                    Ok(true) => Value::Bool(!on),
                    Ok(false) => continue,
                    Err(_) => return Ok(()),
                }
            }
            FieldKind::Enum(options) => match ui.select(title, options.clone()).await {
                Ok(choice) => Value::String(choice),
                Err(_) => continue,
            },
            _ => {
                let mut value = None;
                let mut prompt = title.clone();
                while value.is_none() {
                    let text = match ui
                        .input(prompt.clone(), show(current.get(&field.name)))
                        .await
                    {
                        Ok(t) => t,
                        Err(_) => break,
                    };
                    match parse_input(field, &text) {
                        Ok(v) => value = Some(v),
                        Err(why) => {
                            ui.notify(format!("{}: {why}", field.name), Level::Error);
                            prompt = format!("{title} ({why})");
                        }
                    }
                }
                match value {
                    Some(v) => v,
                    None => continue,
                }
            }
        };
        write_value(&paths.global, &field.name, value.clone()).map_err(|e| e.to_string())?;
        ui.notify(
            format!(
                "{name}: {} = {} (saved to {})",
                field.name,
                show(Some(&value)),
                paths.global.display()
            ),
            Level::Info,
        );
    }
}
