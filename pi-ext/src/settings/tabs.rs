//! Tabs: the grouping of settings fields that editors and the
//! `/<name>-settings` command show (`x-tab` on a field, `x-tabs` at the top
//! of the schema). See the [module docs](super#tabs).

use serde::Serialize;
use serde_json::{Map, Value};

use super::ordered::OrderedObject;

/// The tab of fields that do not name one.
pub const GENERAL_TAB: &str = "General";

/// The schema extension key naming a field's tab (`#[schemars(extend("x-tab" = "…"))]`).
pub const TAB_KEY: &str = "x-tab";

/// The top-level schema key listing the tabs and their fields.
pub const TABS_KEY: &str = "x-tabs";

/// `[{"name": tab, "fields": […]}, …]` for `schema`'s properties, in the
/// order in which `defaults` serializes its fields (its declaration order);
/// fields it does not serialize come last, alphabetically.
pub(super) fn tabs_of<T: Serialize>(schema: &Value, defaults: &T) -> Value {
    let order: Vec<String> = serde_json::to_string(defaults)
        .ok()
        .and_then(|s| serde_json::from_str::<OrderedObject>(&s).ok())
        .map(|o| o.0.into_iter().map(|(k, _)| k).collect())
        .unwrap_or_default();
    let empty = Map::new();
    let props = schema
        .get("properties")
        .and_then(Value::as_object)
        .unwrap_or(&empty);
    let mut fields: Vec<&str> = order
        .iter()
        .map(String::as_str)
        .filter(|k| props.contains_key(*k))
        .collect();
    for k in props.keys() {
        if !fields.contains(&k.as_str()) {
            fields.push(k);
        }
    }
    let mut tabs: Vec<(String, Vec<Value>)> = Vec::new();
    for field in fields {
        let tab = tab_of(&props[field]);
        match tabs.iter_mut().find(|(name, _)| *name == tab) {
            Some((_, list)) => list.push(field.into()),
            None => tabs.push((tab, vec![field.into()])),
        }
    }
    Value::Array(
        tabs.into_iter()
            .map(|(name, fields)| serde_json::json!({ "name": name, "fields": fields }))
            .collect(),
    )
}

/// The tab of a property's schema ([`GENERAL_TAB`] unless it names one).
pub(super) fn tab_of(prop: &Value) -> String {
    prop.get(TAB_KEY)
        .and_then(Value::as_str)
        .filter(|t| !t.trim().is_empty())
        .unwrap_or(GENERAL_TAB)
        .to_string()
}
