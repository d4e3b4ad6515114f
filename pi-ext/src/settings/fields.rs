//! The settings editor's view of the fields: how each top-level field is
//! edited ([`FieldKind`]), and turning what the user typed into its value,
//! checked as loading would check it.

use serde_json::{Map, Number, Value};

use super::check::{check_value, list_values};
use super::tabs::{tab_of, TABS_KEY};

/// How a field is edited.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum FieldKind {
    /// `true`/`false`: a confirm.
    Bool,
    /// One of these strings: a select.
    Enum(Vec<String>),
    /// A whole number within the bounds (inclusive) if any.
    Integer {
        /// Smallest allowed value.
        min: Option<i64>,
        /// Largest allowed value.
        max: Option<i64>,
    },
    /// A number within the bounds (inclusive) if any.
    Number {
        /// Smallest allowed value.
        min: Option<f64>,
        /// Largest allowed value.
        max: Option<f64>,
    },
    /// Free text.
    String,
    /// Anything else (objects, lists, unions): typed as JSON.
    Other,
}

/// One top-level settings field, as [`describe_fields`] sees it.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct FieldInfo {
    /// The key in the settings file.
    pub(crate) name: String,
    /// Its tab ([`GENERAL_TAB`](super::GENERAL_TAB) unless it names one).
    pub(crate) tab: String,
    /// The schema's `title`, if any.
    pub(crate) title: Option<String>,
    /// The field's doc comment.
    pub(crate) description: Option<String>,
    /// How it is edited.
    pub(crate) kind: FieldKind,
    /// Its default value, if the schema has one.
    pub(crate) default: Option<Value>,
    /// The field's own schema, which [`parse_input`] checks against.
    pub(crate) schema: Value,
}

/// The top-level fields of a [`settings_schema`](super::settings_schema), grouped by tab and in
/// declaration order (the `x-tabs` order; a schema without `x-tabs` gives
/// alphabetical order).
pub(crate) fn describe_fields(schema: &Value) -> Vec<FieldInfo> {
    let empty = Map::new();
    let props = schema
        .get("properties")
        .and_then(Value::as_object)
        .unwrap_or(&empty);
    let mut names: Vec<&str> = Vec::new();
    if let Some(Value::Array(tabs)) = schema.get(TABS_KEY) {
        for tab in tabs {
            for field in tab
                .get("fields")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
                .filter_map(Value::as_str)
            {
                if props.contains_key(field) && !names.contains(&field) {
                    names.push(field);
                }
            }
        }
    }
    for k in props.keys() {
        if !names.contains(&k.as_str()) {
            names.push(k);
        }
    }
    names
        .into_iter()
        .map(|name| {
            let prop = &props[name];
            let text = |k: &str| prop.get(k).and_then(Value::as_str).map(str::to_owned);
            FieldInfo {
                name: name.to_string(),
                tab: tab_of(prop),
                title: text("title"),
                description: text("description"),
                kind: kind_of(prop),
                default: prop.get("default").cloned(),
                schema: prop.clone(),
            }
        })
        .collect()
}

fn kind_of(prop: &Value) -> FieldKind {
    if let Some(Value::Array(options)) = prop.get("enum") {
        if !options.is_empty() && options.iter().all(Value::is_string) {
            return FieldKind::Enum(
                options
                    .iter()
                    .filter_map(|o| o.as_str().map(str::to_owned))
                    .collect(),
            );
        }
        return FieldKind::Other;
    }
    let number = |k: &str| prop.get(k).and_then(Value::as_f64);
    match prop.get("type").and_then(Value::as_str) {
        Some("boolean") => FieldKind::Bool,
        Some("integer") => {
            let int = |k: &str, round: fn(f64) -> f64| {
                prop.get(k).and_then(|v| {
                    v.as_i64().or_else(|| {
                        v.as_u64()
                            .map(|_| i64::MAX)
                            .or_else(|| v.as_f64().map(|f| round(f) as i64))
                    })
                })
            };
            FieldKind::Integer {
                min: int("minimum", f64::ceil),
                max: int("maximum", f64::floor),
            }
        }
        Some("number") => FieldKind::Number {
            min: number("minimum"),
            max: number("maximum"),
        },
        Some("string") => FieldKind::String,
        _ => FieldKind::Other,
    }
}

/// Turn what the user typed for `field` into its JSON value, or say why it
/// is not acceptable.
///
/// - `Bool`: `true`/`false`, `yes`/`no`, `y`/`n`, `on`/`off`, `1`/`0`
///   (any case);
/// - `Enum`: one of the options (a case-insensitive match is accepted when
///   it is unambiguous);
/// - `Integer` / `Number`: a (whole) number within the bounds;
/// - `String`: the text as typed (not trimmed), within any length bounds;
/// - `Other`: JSON text.
///
/// Surrounding whitespace is ignored except for `String`. The result is
/// also checked against the field's schema, exactly as [`load`](super::load) would.
pub(crate) fn parse_input(field: &FieldInfo, text: &str) -> Result<Value, String> {
    let trimmed = text.trim();
    let value = match &field.kind {
        FieldKind::Bool => match trimmed.to_ascii_lowercase().as_str() {
            "true" | "yes" | "y" | "on" | "1" => Value::Bool(true),
            "false" | "no" | "n" | "off" | "0" => Value::Bool(false),
            _ => return Err(format!("\"{trimmed}\" is not yes or no (true or false)")),
        },
        FieldKind::Enum(options) => {
            if let Some(exact) = options.iter().find(|o| o.as_str() == trimmed) {
                Value::String(exact.clone())
            } else {
                let folded: Vec<&String> = options
                    .iter()
                    .filter(|o| o.eq_ignore_ascii_case(trimmed))
                    .collect();
                match folded.as_slice() {
                    [one] => Value::String((*one).clone()),
                    _ => {
                        let all: Vec<Value> = options.iter().cloned().map(Value::String).collect();
                        return Err(format!("\"{trimmed}\" is not one of {}", list_values(&all)));
                    }
                }
            }
        }
        FieldKind::Integer { .. } => {
            if trimmed.is_empty() {
                return Err("enter a whole number".into());
            }
            if let Ok(i) = trimmed.parse::<i64>() {
                Value::from(i)
            } else if let Ok(u) = trimmed.parse::<u64>() {
                Value::from(u)
            } else if trimmed.parse::<f64>().is_ok_and(f64::is_finite) {
                return Err(format!("{trimmed} is not a whole number"));
            } else {
                return Err(format!("\"{trimmed}\" is not a number"));
            }
        }
        FieldKind::Number { .. } => {
            if trimmed.is_empty() {
                return Err("enter a number".into());
            }
            if let Ok(i) = trimmed.parse::<i64>() {
                Value::from(i)
            } else {
                match trimmed
                    .parse::<f64>()
                    .ok()
                    .filter(|f| f.is_finite())
                    .and_then(Number::from_f64)
                {
                    Some(n) => Value::Number(n),
                    None => return Err(format!("\"{trimmed}\" is not a number")),
                }
            }
        }
        FieldKind::String => Value::String(text.to_string()),
        FieldKind::Other => serde_json::from_str(trimmed)
            .map_err(|e| format!("enter a JSON value for `{}` ({e})", field.name))?,
    };
    check_value(&field.schema, &value)?;
    Ok(value)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::settings::fixtures::Demo;
    use crate::settings::settings_schema;
    use serde_json::json;

    fn fields() -> Vec<FieldInfo> {
        describe_fields(&settings_schema::<Demo>().unwrap())
    }

    fn field(name: &str) -> FieldInfo {
        fields().into_iter().find(|f| f.name == name).unwrap()
    }

    #[test]
    fn describe_fields_in_tab_order_with_kinds() {
        let fs = fields();
        let names: Vec<(&str, &str)> = fs
            .iter()
            .map(|f| (f.tab.as_str(), f.name.as_str()))
            .collect();
        assert_eq!(
            names,
            [
                ("Appearance", "theme"),
                ("Appearance", "font_size"),
                ("Appearance", "scale"),
                ("General", "banner"),
                ("General", "greeting"),
                ("General", "nickname"),
                ("General", "author"),
                ("General", "words"),
                ("Editor", "editor"),
            ]
        );
        let kind = |n: &str| fs.iter().find(|f| f.name == n).unwrap().kind.clone();
        assert_eq!(
            kind("theme"),
            FieldKind::Enum(vec!["system".into(), "dark".into(), "light".into()])
        );
        assert_eq!(
            kind("font_size"),
            FieldKind::Integer {
                min: Some(6),
                max: Some(72)
            }
        );
        assert_eq!(
            kind("scale"),
            FieldKind::Number {
                min: Some(0.5),
                max: Some(4.0)
            }
        );
        assert_eq!(kind("banner"), FieldKind::Bool);
        assert_eq!(kind("greeting"), FieldKind::String);
        assert_eq!(kind("words"), FieldKind::Other);
        assert_eq!(kind("editor"), FieldKind::Other);
        let font = fs.iter().find(|f| f.name == "font_size").unwrap();
        assert_eq!(font.description.as_deref(), Some("Font size in points."));
        assert_eq!(font.default, Some(json!(14)));
    }

    #[test]
    fn parse_input_per_kind() {
        let font = field("font_size");
        assert_eq!(parse_input(&font, " 20 "), Ok(json!(20)));
        assert_eq!(
            parse_input(&font, "300"),
            Err("300 is above the maximum 72".into())
        );
        assert_eq!(
            parse_input(&font, "2.5"),
            Err("2.5 is not a whole number".into())
        );
        assert_eq!(
            parse_input(&font, "big"),
            Err("\"big\" is not a number".into())
        );
        assert_eq!(parse_input(&font, ""), Err("enter a whole number".into()));

        let scale = field("scale");
        assert_eq!(parse_input(&scale, "1.5"), Ok(json!(1.5)));
        assert_eq!(parse_input(&scale, "2"), Ok(json!(2)));
        assert_eq!(
            parse_input(&scale, "0.1"),
            Err("0.1 is below the minimum 0.5".into())
        );
        assert!(parse_input(&scale, "NaN").is_err());

        let banner = field("banner");
        assert_eq!(parse_input(&banner, "Yes"), Ok(json!(true)));
        assert_eq!(parse_input(&banner, "off"), Ok(json!(false)));
        assert!(parse_input(&banner, "maybe").is_err());

        let theme = field("theme");
        assert_eq!(parse_input(&theme, "dark"), Ok(json!("dark")));
        assert_eq!(parse_input(&theme, "Light"), Ok(json!("light")));
        assert_eq!(
            parse_input(&theme, "neon"),
            Err(r#""neon" is not one of "system", "dark" or "light""#.into())
        );

        let greeting = field("greeting");
        assert_eq!(parse_input(&greeting, " hi "), Ok(json!(" hi ")));
        assert!(parse_input(&greeting, &"x".repeat(21)).is_err());

        let editor = field("editor");
        assert_eq!(
            parse_input(&editor, r#"{"wrap": true}"#),
            Ok(json!({"wrap": true}))
        );
        assert_eq!(
            parse_input(&editor, r#"{"tab_size": 40}"#),
            Err("key \"tab_size\": 40 is above the maximum 16".into())
        );
        assert_eq!(
            parse_input(&editor, r#"{"tabsize": 4}"#),
            Err("unknown key \"tabsize\" (did you mean \"tab_size\"?)".into())
        );
        assert!(parse_input(&editor, "{")
            .unwrap_err()
            .starts_with("enter a JSON value"));
    }
}
