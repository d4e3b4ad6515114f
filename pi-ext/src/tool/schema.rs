//! Portable JSON schemas for tool parameters (and settings).
//!
//! schemars produces correct JSON Schema, but several of its shapes are
//! rejected or misread by pi's validator or by strict LLM providers
//! (OpenAI strict mode, Gemini's OpenAPI subset, Claude sub-agents):
//! `$schema` keys, `$ref`/`definitions`, `Option<T>` as `["T","null"]` or
//! `nullable`, doc-commented unit enums as `oneOf` of `const`s, and integer
//! `format`s such as `uint32` that validators do not know.
//!
//! [`portable_schema_for`] generates a draft-07 schema and rewrites it into a
//! conservative subset that every one of them accepts:
//!
//! - no `$schema`, no root `title`/`description` (the tool has its own);
//! - every `$ref` inlined; a **recursive** type is an error ([`SchemaError::Recursive`]);
//! - `Option<T>` is just `T`, left out of `required` (never a `null` type);
//! - unit enums are `{"type":"string","enum":[…]}`, with variant docs folded
//!   into the description (``How fast. One of: `slow` (take your time),
//!   `fast` (hurry).``);
//! - `const` becomes a one-value `enum`;
//! - `format` only where it is a well-known string format (`date-time`,
//!   `date`, `time`, `email`, `uri`, `uuid`, `ipv4`, `ipv6`, `hostname`);
//!   numeric formats are dropped, `minimum`/`maximum` kept;
//! - the root is an object schema (`{"type":"object","properties":{}}` for
//!   a tool without parameters).
//!
//! [`lint`] checks a schema against the same rules; the runtime's unit tests
//! and [`crate::testing`] use it.

use schemars::generate::SchemaSettings;
use schemars::JsonSchema;
use serde_json::{Map, Value};

/// Why a parameter type cannot become a portable schema.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum SchemaError {
    /// The type refers to itself; providers cannot take `$ref` cycles.
    #[error("parameter type `{0}` is recursive; tool parameters must be a finite tree (replace the recursive field with e.g. a `serde_json::Value` or a flat list)")]
    Recursive(String),
    /// The top level is not an object (a struct with named fields).
    #[error("tool parameters must be a JSON object (a struct with named fields), but the schema's type is {0}")]
    NotAnObject(String),
    /// A `$ref` points nowhere.
    #[error("schema refers to `{0}`, which it does not define")]
    DanglingRef(String),
}

/// String formats every validator and provider we target understands.
const PORTABLE_FORMATS: &[&str] = &[
    "date-time",
    "date",
    "time",
    "email",
    "uri",
    "uuid",
    "ipv4",
    "ipv6",
    "hostname",
];

/// Generate the portable schema of `T` (see the module docs).
///
/// # Errors
///
/// [`SchemaError`] when `T`'s schema cannot be made portable (recursion, a non-object root, ...).
pub fn portable_schema_for<T: JsonSchema + ?Sized>() -> Result<Value, SchemaError> {
    make_portable(raw_schema_for::<T>())
}

/// schemars' draft-07 schema of `T`, subschemas inlined, no `$schema`: the
/// input of [`make_portable`].
pub(crate) fn raw_schema_for<T: JsonSchema + ?Sized>() -> Value {
    SchemaSettings::draft07()
        .with(|s| {
            s.meta_schema = None;
            s.inline_subschemas = true;
        })
        .into_generator()
        .into_root_schema_for::<T>()
        .to_value()
}

/// Rewrite an arbitrary (schemars-style, draft-07 or 2020-12) schema into the
/// portable subset.
///
/// # Errors
///
/// [`SchemaError`] when the schema cannot be made portable (recursion, a non-object root, ...).
pub(crate) fn make_portable(mut schema: Value) -> Result<Value, SchemaError> {
    let defs = take_definitions(&mut schema);
    // The root's name, for a `"$ref": "#"` (a type containing itself).
    let root_name = schema
        .get("title")
        .and_then(Value::as_str)
        .unwrap_or("the parameter type")
        .to_string();
    let mut stack = vec![root_name];
    let mut root = normalize(schema, &defs, &mut stack)?;
    if let Value::Object(map) = &mut root {
        map.remove("title");
        map.remove("description");
        // `{}` or `true` (e.g. a unit struct) means "no parameters".
        if map.is_empty() {
            map.insert("type".into(), "object".into());
        }
        match map.get("type") {
            Some(Value::String(t)) if t == "object" => {}
            Some(other) => return Err(SchemaError::NotAnObject(other.to_string())),
            None => return Err(SchemaError::NotAnObject("not given".into())),
        }
        map.entry("properties")
            .or_insert_with(|| Value::Object(Map::new()));
    } else {
        root = serde_json::json!({ "type": "object", "properties": {} });
    }
    Ok(root)
}

fn take_definitions(schema: &mut Value) -> Map<String, Value> {
    let mut defs = Map::new();
    if let Value::Object(map) = schema {
        for key in ["definitions", "$defs"] {
            if let Some(Value::Object(d)) = map.remove(key) {
                defs.extend(d);
            }
        }
        map.remove("$schema");
    }
    defs
}

fn ref_name(reference: &str) -> &str {
    reference.rsplit('/').next().unwrap_or(reference)
}

fn normalize(
    schema: Value,
    defs: &Map<String, Value>,
    stack: &mut Vec<String>,
) -> Result<Value, SchemaError> {
    let mut map = match schema {
        Value::Object(map) => map,
        // `true` accepts anything; `false` nothing. Both are odd in tool
        // parameters, but `{}` is the portable spelling of `true`.
        Value::Bool(true) => return Ok(Value::Object(Map::new())),
        other => return Ok(other),
    };
    map.remove("$schema");
    map.remove("nullable");

    // Inline `$ref`, keeping sibling keywords such as `description`.
    if let Some(Value::String(reference)) = map.remove("$ref") {
        if reference == "#" {
            return Err(SchemaError::Recursive(stack[0].clone()));
        }
        let name = ref_name(&reference).to_string();
        if stack.contains(&name) {
            return Err(SchemaError::Recursive(name));
        }
        let target = defs
            .get(&name)
            .cloned()
            .ok_or_else(|| SchemaError::DanglingRef(reference.clone()))?;
        stack.push(name);
        let inlined = normalize(target, defs, stack)?;
        stack.pop();
        let mut merged = match inlined {
            Value::Object(m) => m,
            _ => Map::new(),
        };
        for (k, v) in map {
            merged.insert(k, v);
        }
        return normalize(Value::Object(merged), defs, stack);
    }

    // Recurse into every subschema position.
    for key in ["properties", "patternProperties"] {
        if let Some(Value::Object(props)) = map.remove(key) {
            let mut out = Map::new();
            for (name, sub) in props {
                out.insert(name, normalize(sub, defs, stack)?);
            }
            map.insert(key.into(), Value::Object(out));
        }
    }
    for key in ["items", "additionalProperties", "not", "contains"] {
        if let Some(sub) = map.remove(key) {
            let sub = match sub {
                Value::Array(items) => Value::Array(
                    items
                        .into_iter()
                        .map(|s| normalize(s, defs, stack))
                        .collect::<Result<_, _>>()?,
                ),
                Value::Bool(b) => Value::Bool(b),
                other => normalize(other, defs, stack)?,
            };
            map.insert(key.into(), sub);
        }
    }
    for key in ["anyOf", "oneOf", "allOf"] {
        if let Some(Value::Array(items)) = map.remove(key) {
            let items = items
                .into_iter()
                .map(|s| normalize(s, defs, stack))
                .collect::<Result<Vec<_>, _>>()?;
            map.insert(key.into(), Value::Array(items));
        }
    }

    drop_null_type(&mut map);
    for key in ["anyOf", "oneOf"] {
        unwrap_nullable_union(&mut map, key);
        collapse_string_consts(&mut map, key);
    }
    if let Some(c) = map.remove("const") {
        if !map.contains_key("type") {
            if let Some(t) = json_type_of(&c) {
                map.insert("type".into(), t.into());
            }
        }
        map.insert("enum".into(), Value::Array(vec![c]));
    }
    if let Some(Value::String(format)) = map.get("format") {
        if !PORTABLE_FORMATS.contains(&format.as_str()) {
            // Keep what an integer format said as bounds the validator checks.
            if let Some((min, max)) = integer_format_bounds(format) {
                map.entry("minimum").or_insert(min.into());
                map.entry("maximum").or_insert(max.into());
            }
            map.remove("format");
        }
    }
    // `default: null` comes from `Option` fields with `#[serde(default)]`:
    // it says nothing and strict providers reject null defaults.
    if map.get("default") == Some(&Value::Null) {
        map.remove("default");
    }
    Ok(Value::Object(map))
}

/// Bounds of schemars' fixed-width integer formats (64-bit ones exceed
/// JavaScript's exact integers, so they get none).
fn integer_format_bounds(format: &str) -> Option<(i64, i64)> {
    Some(match format {
        "uint8" => (0, u8::MAX.into()),
        "uint16" => (0, u16::MAX.into()),
        "uint32" => (0, u32::MAX.into()),
        "int8" => (i8::MIN.into(), i8::MAX.into()),
        "int16" => (i16::MIN.into(), i16::MAX.into()),
        "int32" => (i32::MIN.into(), i32::MAX.into()),
        _ => return None,
    })
}

fn json_type_of(v: &Value) -> Option<&'static str> {
    Some(match v {
        Value::String(_) => "string",
        Value::Bool(_) => "boolean",
        Value::Number(n) if n.is_i64() || n.is_u64() => "integer",
        Value::Number(_) => "number",
        _ => return None,
    })
}

/// `"type": ["string", "null"]` → `"type": "string"`.
fn drop_null_type(map: &mut Map<String, Value>) {
    if let Some(Value::Array(types)) = map.get_mut("type") {
        types.retain(|t| t != "null");
        if types.len() == 1 {
            let only = types.remove(0);
            map.insert("type".into(), only);
        }
    }
    if let Some(Value::Array(values)) = map.get_mut("enum") {
        values.retain(|v| !v.is_null());
    }
}

fn is_null_schema(v: &Value) -> bool {
    v.get("type").and_then(Value::as_str) == Some("null")
        || v.get("enum") == Some(&Value::Array(vec![]))
}

/// `anyOf: [T, {"type":"null"}]` → `T` merged into the parent.
fn unwrap_nullable_union(map: &mut Map<String, Value>, key: &str) {
    let Some(Value::Array(items)) = map.get_mut(key) else {
        return;
    };
    let before = items.len();
    items.retain(|v| !is_null_schema(v));
    if items.len() == 1 && before > 1 {
        if let Some(Value::Object(only)) = map.remove(key).and_then(|v| match v {
            Value::Array(mut a) => a.pop(),
            _ => None,
        }) {
            for (k, v) in only {
                // The parent's own keywords (its description) win.
                map.entry(k).or_insert(v);
            }
        }
    }
}

/// `oneOf: [{"const":"a","description":"…"}, …]` → `{"type":"string","enum":["a",…]}`.
fn collapse_string_consts(map: &mut Map<String, Value>, key: &str) {
    let Some(Value::Array(items)) = map.get(key) else {
        return;
    };
    let mut values = Vec::new();
    // Each value, with its variant's doc if any.
    let mut described: Vec<String> = Vec::new();
    let mut any_doc = false;
    for item in items {
        let Some(obj) = item.as_object() else { return };
        let value = match (obj.get("const"), obj.get("enum")) {
            (Some(Value::String(s)), _) => vec![s.clone()],
            (None, Some(Value::Array(vs))) if vs.iter().all(Value::is_string) => vs
                .iter()
                .filter_map(|v| v.as_str().map(str::to_owned))
                .collect(),
            _ => return,
        };
        if obj.keys().any(|k| {
            !matches!(
                k.as_str(),
                "const" | "enum" | "type" | "description" | "title"
            )
        }) {
            return;
        }
        let doc = match obj.get("description") {
            Some(Value::String(d)) if !d.trim().is_empty() => Some(variant_doc(d)),
            _ => None,
        };
        any_doc |= doc.is_some();
        for v in &value {
            described.push(match &doc {
                Some(d) => format!("`{v}` ({d})"),
                None => format!("`{v}`"),
            });
        }
        values.extend(value);
    }
    map.remove(key);
    map.insert("type".into(), "string".into());
    map.insert(
        "enum".into(),
        Value::Array(values.into_iter().map(Value::String).collect()),
    );
    if any_doc {
        let one_of = format!("One of: {}.", described.join(", "));
        let description = match map.get("description").and_then(Value::as_str) {
            Some(d) if d.trim_end().ends_with(['.', '!', '?', ':']) => {
                format!("{} {one_of}", d.trim_end())
            }
            Some(d) if !d.trim().is_empty() => format!("{}. {one_of}", d.trim_end()),
            _ => one_of,
        };
        map.insert("description".into(), description.into());
    }
}

/// A variant's doc comment as it reads inside the parentheses of "One of:
/// `fast` (hurry), …": without the closing full stop, and with a capital
/// that only starts the sentence made small (`A full stop.` → `a full
/// stop`; `JSON output` and `I/O` stay). A name cannot be told from an
/// ordinary first word, so `Ada's pick.` becomes `ada's pick`.
fn variant_doc(doc: &str) -> String {
    let doc = doc.trim();
    let doc = doc.strip_suffix('.').unwrap_or(doc).trim_end();
    let first_word = doc.split_whitespace().next().unwrap_or("");
    let mut chars = first_word.chars();
    let sentence_capital = match (chars.next(), chars.as_str()) {
        (Some(c), "") => c == 'A',
        (Some(c), rest) => {
            c.is_uppercase()
                && rest.chars().all(|r| !r.is_uppercase())
                && rest.chars().next().is_some_and(char::is_alphabetic)
        }
        (None, _) => false,
    };
    if !sentence_capital {
        return doc.to_string();
    }
    let mut chars = doc.chars();
    let first = chars
        .next()
        .map(|c| c.to_lowercase().collect::<String>())
        .unwrap_or_default();
    first + chars.as_str()
}

/// Check `schema` against the portability rules; returns one message per
/// violation with its JSON pointer. An empty list means portable.
pub fn lint(schema: &Value) -> Vec<String> {
    let mut problems = Vec::new();
    if schema.get("type").and_then(Value::as_str) != Some("object") {
        problems.push("/: the root must be {\"type\":\"object\"}".to_string());
    }
    lint_at(schema, String::new(), &mut problems);
    problems
}

fn lint_at(v: &Value, path: String, out: &mut Vec<String>) {
    match v {
        Value::Object(map) => {
            for (k, sub) in map {
                let here = format!("{path}/{k}");
                match k.as_str() {
                    "$schema" | "$ref" | "$defs" | "definitions" | "nullable" | "const" => {
                        out.push(format!("{here}: `{k}` is not portable"))
                    }
                    "type" if sub.is_array() => {
                        out.push(format!("{here}: type arrays are not portable"))
                    }
                    "type" if sub == "null" => out.push(format!("{here}: null type")),
                    "format" if !sub.as_str().is_some_and(|f| PORTABLE_FORMATS.contains(&f)) => {
                        out.push(format!("{here}: format {sub} is not portable"))
                    }
                    "enum"
                        if !sub
                            .as_array()
                            .is_some_and(|a| a.iter().all(Value::is_string)) =>
                    {
                        out.push(format!("{here}: enums must list strings only"))
                    }
                    "oneOf" | "anyOf"
                        if sub.as_array().is_some_and(|a| {
                            a.iter()
                                .any(|s| s.get("const").is_some() || is_null_schema(s))
                        }) =>
                    {
                        out.push(format!("{here}: union of constants or null"))
                    }
                    _ => {}
                }
                // Property names are data, not keywords.
                if k == "properties" {
                    if let Value::Object(props) = sub {
                        for (name, p) in props {
                            lint_at(p, format!("{here}/{name}"), out);
                        }
                    }
                } else {
                    lint_at(sub, here, out);
                }
            }
        }
        Value::Array(items) => {
            for (i, item) in items.iter().enumerate() {
                lint_at(item, format!("{path}/{i}"), out);
            }
        }
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use schemars::JsonSchema;
    use serde::Deserialize;
    use serde_json::json;

    #[allow(dead_code)]
    #[derive(Deserialize, JsonSchema)]
    /// Where to go.
    struct Place {
        /// Street and number.
        street: String,
        zip: Option<u32>,
    }

    #[allow(dead_code)]
    #[derive(Deserialize, JsonSchema)]
    #[serde(rename_all = "lowercase")]
    enum Speed {
        /// Take your time.
        Slow,
        /// Hurry.
        Fast,
    }

    #[allow(dead_code)]
    #[derive(Deserialize, JsonSchema)]
    struct Trip {
        /// Destination.
        to: Place,
        stops: Vec<Place>,
        /// How fast.
        speed: Speed,
        pace: Option<Speed>,
        days: u32,
        note: Option<String>,
        when: Option<chrono_like::Date>,
    }

    mod chrono_like {
        #[derive(serde::Deserialize)]
        pub struct Date(#[allow(dead_code)] String);
        impl schemars::JsonSchema for Date {
            fn schema_name() -> std::borrow::Cow<'static, str> {
                "Date".into()
            }
            fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
                schemars::json_schema!({"type": "string", "format": "date"})
            }
        }
    }

    #[test]
    fn trip_schema_is_portable() {
        let s = portable_schema_for::<Trip>().unwrap();
        assert_eq!(lint(&s), Vec::<String>::new(), "{s:#}");
        insta::assert_json_snapshot!(s);
    }

    #[test]
    fn option_fields_are_not_required_and_not_nullable() {
        let s = portable_schema_for::<Trip>().unwrap();
        let required: Vec<&str> = s["required"]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_str().unwrap())
            .collect();
        assert!(required.contains(&"to") && required.contains(&"days"));
        assert!(!required.contains(&"note") && !required.contains(&"pace"));
        assert_eq!(s["properties"]["note"], json!({"type": "string"}));
        assert_eq!(s["properties"]["pace"]["enum"], json!(["slow", "fast"]));
        assert_eq!(s["properties"]["speed"]["type"], "string");
        assert_eq!(
            s["properties"]["speed"]["description"],
            "How fast. One of: `slow` (take your time), `fast` (hurry)."
        );
        assert_eq!(s["properties"]["days"]["minimum"], 0);
        assert_eq!(s["properties"]["days"]["maximum"], u32::MAX);
        assert!(s["properties"]["days"].get("format").is_none());
        assert_eq!(s["properties"]["when"]["format"], "date");
    }

    #[allow(dead_code)]
    #[derive(Deserialize, JsonSchema)]
    struct Tree {
        name: String,
        children: Vec<Tree>,
    }

    #[test]
    fn recursive_types_are_rejected_with_their_name() {
        let err = portable_schema_for::<Tree>().unwrap_err();
        assert_eq!(err, SchemaError::Recursive("Tree".into()));
        assert!(err.to_string().contains("recursive"));
    }

    #[test]
    fn unit_and_non_object_roots() {
        assert_eq!(
            portable_schema_for::<()>().unwrap_err(),
            SchemaError::NotAnObject("\"null\"".into())
        );
        assert!(portable_schema_for::<String>().is_err());
        let empty = make_portable(json!({})).unwrap();
        assert_eq!(empty, json!({"type":"object","properties":{}}));
    }

    #[test]
    fn variant_docs_read_as_one_sentence() {
        assert_eq!(variant_doc("A full stop."), "a full stop");
        assert_eq!(variant_doc("Take your time. "), "take your time");
        assert_eq!(variant_doc("JSON output."), "JSON output");
        assert_eq!(variant_doc("I/O only"), "I/O only");
        assert_eq!(variant_doc("already small"), "already small");
        let s = make_portable(json!({
            "type": "object",
            "properties": {"mode": {"oneOf": [
                {"const": "a", "description": "The first."},
                {"const": "b"},
            ]}}
        }))
        .unwrap();
        assert_eq!(
            s["properties"]["mode"]["description"],
            "One of: `a` (the first), `b`."
        );
    }

    #[test]
    fn lint_flags_each_rule() {
        let bad = json!({
            "$schema": "x", "type": "object",
            "properties": {
                "a": {"type": ["string", "null"]},
                "b": {"$ref": "#/definitions/B"},
                "c": {"type": "integer", "format": "uint32"},
                "d": {"oneOf": [{"const": "x"}]},
                "e": {"enum": [1, 2]},
                "f": {"nullable": true}
            }
        });
        let problems = lint(&bad);
        assert_eq!(problems.len(), 8, "{problems:#?}");
    }
}
