//! The JSON Schema subset settings values are checked against: types,
//! `enum`, numeric bounds, string length, list length and items, and
//! unknown keys (with a "did you mean"). Messages say why a value does not
//! fit, in words (`300 is above the maximum 72`). See the
//! [module docs](super#loading) for what is not checked.

use std::cmp::Ordering;

use serde_json::{Map, Number, Value};

/// Accepts anything: the schema of a key in a free-form object.
static ANY: Value = Value::Bool(true);

/// Check `value` against the parts of `schema` this module understands;
/// the error says why it does not fit (`300 is above the maximum 72`).
pub(super) fn check_value(schema: &Value, value: &Value) -> Result<(), String> {
    let Some(s) = schema.as_object() else {
        return match schema {
            Value::Bool(false) => Err(format!("{} is not allowed here", show(value))),
            _ => Ok(()),
        };
    };
    if value.is_null() {
        return Ok(());
    }
    let types: Vec<&str> = match s.get("type") {
        Some(Value::String(t)) => vec![t.as_str()],
        Some(Value::Array(ts)) => ts.iter().filter_map(Value::as_str).collect(),
        _ => vec![],
    };
    if !types.is_empty() && !types.iter().any(|t| has_type(value, t)) {
        let wanted: Vec<&str> = types.iter().map(|t| type_phrase(t)).collect();
        return Err(format!("{} is not {}", show(value), wanted.join(" or ")));
    }
    if let Some(Value::Array(options)) = s.get("enum") {
        if !options.contains(value) {
            return Err(format!(
                "{} is not one of {}",
                show(value),
                list_values(options)
            ));
        }
    }
    match value {
        Value::Number(n) => check_number(s, n)?,
        Value::String(text) => {
            let len = text.chars().count() as u64;
            if let Some(min) = s.get("minLength").and_then(Value::as_u64) {
                if len < min {
                    return Err(format!("{} is shorter than {min} characters", show(value)));
                }
            }
            if let Some(max) = s.get("maxLength").and_then(Value::as_u64) {
                if len > max {
                    return Err(format!("{} is longer than {max} characters", show(value)));
                }
            }
        }
        Value::Array(items) => {
            let len = items.len() as u64;
            if let Some(min) = s.get("minItems").and_then(Value::as_u64) {
                if len < min {
                    return Err(format!("{} has fewer than {min} items", show(value)));
                }
            }
            if let Some(max) = s.get("maxItems").and_then(Value::as_u64) {
                if len > max {
                    return Err(format!("{} has more than {max} items", show(value)));
                }
            }
            for (i, item) in items.iter().enumerate() {
                let item_schema = match s.get("items") {
                    Some(Value::Array(tuple)) => tuple.get(i),
                    other => other,
                };
                if let Some(item_schema) = item_schema {
                    check_value(item_schema, item)
                        .map_err(|why| format!("item {}: {why}", i + 1))?;
                }
            }
        }
        Value::Object(map) => {
            for (k, v) in map {
                match sub_schema(schema, k) {
                    Some(sub) => {
                        check_value(sub, v).map_err(|why| format!("key \"{k}\": {why}"))?
                    }
                    None => {
                        let hint = suggestion(k, property_names(schema))
                            .map(|s| format!(" (did you mean \"{s}\"?)"))
                            .unwrap_or_default();
                        return Err(format!("unknown key \"{k}\"{hint}"));
                    }
                }
            }
        }
        _ => {}
    }
    Ok(())
}

fn check_number(s: &Map<String, Value>, n: &Number) -> Result<(), String> {
    let bound = |key: &str| match s.get(key) {
        Some(Value::Number(b)) => Some(b),
        _ => None,
    };
    let cmp = |b: &Number| compare_numbers(n, b);
    if let Some(b) = bound("minimum") {
        if cmp(b) == Some(Ordering::Less) {
            return Err(format!("{n} is below the minimum {b}"));
        }
    }
    if let Some(b) = bound("maximum") {
        if cmp(b) == Some(Ordering::Greater) {
            return Err(format!("{n} is above the maximum {b}"));
        }
    }
    if let Some(b) = bound("exclusiveMinimum") {
        if cmp(b) != Some(Ordering::Greater) {
            return Err(format!("{n} is not greater than {b}"));
        }
    }
    if let Some(b) = bound("exclusiveMaximum") {
        if cmp(b) != Some(Ordering::Less) {
            return Err(format!("{n} is not less than {b}"));
        }
    }
    Ok(())
}

/// Exact for integers, `f64` otherwise.
fn compare_numbers(a: &Number, b: &Number) -> Option<Ordering> {
    let int = |n: &Number| {
        n.as_i64()
            .map(i128::from)
            .or_else(|| n.as_u64().map(i128::from))
    };
    match (int(a), int(b)) {
        (Some(x), Some(y)) => Some(x.cmp(&y)),
        _ => a.as_f64()?.partial_cmp(&b.as_f64()?),
    }
}

fn has_type(value: &Value, ty: &str) -> bool {
    match ty {
        "integer" => value.as_i64().is_some() || value.as_u64().is_some(),
        "number" => value.is_number(),
        "string" => value.is_string(),
        "boolean" => value.is_boolean(),
        "object" => value.is_object(),
        "array" => value.is_array(),
        "null" => value.is_null(),
        _ => true,
    }
}

fn type_phrase(ty: &str) -> &str {
    match ty {
        "integer" => "an integer",
        "number" => "a number",
        "string" => "a string",
        "boolean" => "true or false",
        "object" => "an object",
        "array" => "a list",
        other => other,
    }
}

pub(super) fn kind_name(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "a list",
        Value::Object(_) => "an object",
    }
}

/// `"a", "b" or "c"`.
pub(super) fn list_values(options: &[Value]) -> String {
    let shown: Vec<String> = options.iter().map(show).collect();
    match shown.split_last() {
        None => "nothing".into(),
        Some((last, [])) => last.clone(),
        Some((last, rest)) => format!("{} or {last}", rest.join(", ")),
    }
}

/// Compact JSON, cut to a readable length.
pub(super) fn show(value: &Value) -> String {
    const MAX: usize = 60;
    let text = value.to_string();
    if text.chars().count() <= MAX {
        text
    } else {
        let cut: String = text.chars().take(MAX - 1).collect();
        format!("{cut}…")
    }
}

/// The schema of `key` inside an object schema; `None` if the key is unknown.
pub(super) fn sub_schema<'a>(schema: &'a Value, key: &str) -> Option<&'a Value> {
    let Some(map) = schema.as_object() else {
        return if schema == &Value::Bool(false) {
            None
        } else {
            Some(&ANY)
        };
    };
    let props = map.get("properties").and_then(Value::as_object);
    if let Some(sub) = props.and_then(|p| p.get(key)) {
        return Some(sub);
    }
    // Keys may come from the subschemas: let deserialization decide.
    if ["anyOf", "oneOf", "allOf"]
        .iter()
        .any(|k| map.contains_key(*k))
    {
        return Some(&ANY);
    }
    match map.get("additionalProperties") {
        Some(Value::Bool(false)) => None,
        Some(Value::Bool(true)) => Some(&ANY),
        Some(other) => Some(other),
        None if props.is_some() => None,
        None => Some(&ANY),
    }
}

pub(super) fn property_names(schema: &Value) -> impl Iterator<Item = &str> {
    schema
        .get("properties")
        .and_then(Value::as_object)
        .into_iter()
        .flat_map(|p| p.keys().map(String::as_str))
}

/// The closest of `candidates` to a mistyped `key`, if any is close.
pub(super) fn suggestion<'a>(
    key: &str,
    candidates: impl Iterator<Item = &'a str>,
) -> Option<&'a str> {
    let norm = |s: &str| -> String {
        s.chars()
            .filter(|c| *c != '_' && *c != '-')
            .flat_map(char::to_lowercase)
            .collect()
    };
    let key_norm = norm(key);
    let mut best: Option<(usize, &str)> = None;
    for c in candidates {
        let d = if norm(c) == key_norm {
            0
        } else {
            edit_distance(key, c)
        };
        let longest = key.chars().count().max(c.chars().count());
        if d * 3 <= longest && best.is_none_or(|(bd, _)| d < bd) {
            best = Some((d, c));
        }
    }
    best.map(|(_, c)| c)
}

fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut prev = row[0];
        row[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let cur = row[j + 1];
            row[j + 1] = if ca == *cb {
                prev
            } else {
                1 + prev.min(cur).min(row[j])
            };
            prev = cur;
        }
    }
    row[b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn suggestions() {
        let names = ["font_size", "theme", "banner"];
        assert_eq!(
            suggestion("fontSize", names.iter().copied()),
            Some("font_size")
        );
        assert_eq!(suggestion("them", names.iter().copied()), Some("theme"));
        assert_eq!(suggestion("zzz", names.iter().copied()), None);
        assert_eq!(edit_distance("kitten", "sitting"), 3);
    }
}
