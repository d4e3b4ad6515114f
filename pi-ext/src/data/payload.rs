//! The provider request body a `before_provider_request` hook sees
//! ([`ProviderRequest`]): provider-specific JSON (`{model, messages, tools,
//! stream, …}` for OpenAI, `{system, messages, tools, …}` for Anthropic),
//! held as its top-level fields and, for the top-level arrays, lists of
//! [`PayloadItem`]s that are parsed on first use and shared.
//!
//! The bridge sends only what changed since the previous request, and a
//! hook's answer goes back as the fields and list items it changed: items
//! passed on unchanged (clones of the input's) cost nothing.

use std::collections::BTreeMap;
use std::sync::Arc;

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::value::RawValue;
use serde_json::{Map, Value};

use crate::wire::raw::Lazy;

/// One element of a top-level array of the request body (a provider
/// message, a tool): its JSON as pi built it, parsed into a [`Value`] on
/// first use. Cheap to clone.
#[derive(Clone)]
pub struct PayloadItem(Arc<Lazy<Value>>);

impl PayloadItem {
    /// An element built in Rust.
    pub fn new(value: Value) -> Self {
        PayloadItem(Arc::new(Lazy::from_typed(value)))
    }

    pub(crate) fn from_raw(raw: Box<RawValue>) -> Self {
        PayloadItem(Arc::new(Lazy::from_raw(raw)))
    }

    /// The element (parsed on first use, then kept).
    pub fn get(&self) -> &Value {
        self.0.typed()
    }

    /// Its JSON text.
    pub fn raw_json(&self) -> &str {
        self.0.raw().get()
    }

    pub(crate) fn raw_value(&self) -> &RawValue {
        self.0.raw()
    }

    /// Whether both are the same element (not a copy).
    pub fn ptr_eq(a: &PayloadItem, b: &PayloadItem) -> bool {
        Arc::ptr_eq(&a.0, &b.0)
    }

    pub(crate) fn addr(&self) -> usize {
        Arc::as_ptr(&self.0) as *const () as usize
    }

    /// Whether this handle is the element's only one (then no list holds it).
    pub(crate) fn is_unique(&self) -> bool {
        Arc::strong_count(&self.0) == 1
    }
}

impl std::ops::Deref for PayloadItem {
    type Target = Value;
    fn deref(&self) -> &Value {
        self.get()
    }
}

impl std::fmt::Debug for PayloadItem {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_tuple("PayloadItem")
            .field(&self.raw_json())
            .finish()
    }
}

impl PartialEq for PayloadItem {
    fn eq(&self, other: &Self) -> bool {
        PayloadItem::ptr_eq(self, other) || self.raw_json() == other.raw_json()
    }
}

impl Serialize for PayloadItem {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        self.raw_value().serialize(s)
    }
}

/// A top-level array of the request body.
pub type PayloadList = Arc<[PayloadItem]>;

/// The provider request body: its top-level fields, with its top-level
/// arrays as lists of [`PayloadItem`]s. Cheap to clone.
///
/// ```
/// use pi_ext::payload::ProviderRequest;
/// use serde_json::json;
///
/// let mut request = ProviderRequest::from_value(json!({
///     "model": "m", "messages": [{"role": "user", "content": "hi"}], "stream": true
/// })).unwrap();
/// request.set_field("user", json!("me"));
/// assert_eq!(request.list("messages").unwrap().len(), 1);
/// assert_eq!(request.to_value()["user"], "me");
/// ```
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ProviderRequest {
    fields: Map<String, Value>,
    lists: BTreeMap<String, PayloadList>,
}

impl ProviderRequest {
    /// From the whole body.
    ///
    /// # Errors
    ///
    /// When `value` is not a JSON object.
    pub fn from_value(value: Value) -> Result<Self, String> {
        let Value::Object(map) = value else {
            return Err("a provider request body is a JSON object".into());
        };
        let mut request = ProviderRequest::default();
        for (key, v) in map {
            match v {
                Value::Array(items) => {
                    let list: Vec<PayloadItem> = items.into_iter().map(PayloadItem::new).collect();
                    request.lists.insert(key, list.into());
                }
                other => {
                    request.fields.insert(key, other);
                }
            }
        }
        Ok(request)
    }

    /// A top-level field that is not an array.
    pub fn field(&self, key: &str) -> Option<&Value> {
        self.fields.get(key)
    }

    /// The top-level fields that are not arrays.
    pub fn fields(&self) -> &Map<String, Value> {
        &self.fields
    }

    /// Set a top-level field (an array value becomes a list).
    pub fn set_field(&mut self, key: impl Into<String>, value: Value) {
        let key = key.into();
        match value {
            Value::Array(items) => {
                self.fields.remove(&key);
                self.lists
                    .insert(key, items.into_iter().map(PayloadItem::new).collect());
            }
            other => {
                self.lists.remove(&key);
                self.fields.insert(key, other);
            }
        }
    }

    /// Remove a top-level field or list.
    pub fn remove(&mut self, key: &str) {
        self.fields.remove(key);
        self.lists.remove(key);
    }

    /// A top-level array, as a list.
    pub fn list(&self, key: &str) -> Option<&[PayloadItem]> {
        self.lists.get(key).map(|l| &**l)
    }

    /// The names of the top-level arrays.
    pub fn list_names(&self) -> impl Iterator<Item = &str> {
        self.lists.keys().map(String::as_str)
    }

    /// Replace a top-level array (keep the input's items by cloning them:
    /// they are sent back as "keep", not as text).
    pub fn set_list(&mut self, key: impl Into<String>, items: Vec<PayloadItem>) {
        let key = key.into();
        self.fields.remove(&key);
        self.lists.insert(key, items.into());
    }

    pub(crate) fn lists(&self) -> &BTreeMap<String, PayloadList> {
        &self.lists
    }

    pub(crate) fn from_parts(
        fields: Map<String, Value>,
        lists: BTreeMap<String, PayloadList>,
    ) -> Self {
        Self { fields, lists }
    }

    /// The whole body as one [`Value`] (copies every list item).
    pub fn to_value(&self) -> Value {
        let mut map = self.fields.clone();
        for (key, list) in &self.lists {
            map.insert(
                key.clone(),
                Value::Array(list.iter().map(|i| i.get().clone()).collect()),
            );
        }
        Value::Object(map)
    }
}

impl Serialize for ProviderRequest {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let mut map = s.serialize_map(Some(self.fields.len() + self.lists.len()))?;
        for (k, v) in &self.fields {
            map.serialize_entry(k, v)?;
        }
        for (k, list) in &self.lists {
            map.serialize_entry(k, &**list)?;
        }
        map.end()
    }
}

impl<'de> Deserialize<'de> for ProviderRequest {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let map = BTreeMap::<String, Box<RawValue>>::deserialize(d)?;
        let mut request = ProviderRequest::default();
        for (key, raw) in map {
            if raw.get().starts_with('[') {
                let items: Vec<Box<RawValue>> =
                    serde_json::from_str(raw.get()).map_err(serde::de::Error::custom)?;
                request
                    .lists
                    .insert(key, items.into_iter().map(PayloadItem::from_raw).collect());
            } else {
                let value = serde_json::from_str(raw.get()).map_err(serde::de::Error::custom)?;
                request.fields.insert(key, value);
            }
        }
        Ok(request)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_body_splits_into_fields_and_lists_and_back() {
        let body = json!({"model": "m", "messages": [{"role": "user", "content": "hi"}, {"role": "assistant", "content": "yo"}],
                          "tools": [], "stream": true, "stream_options": {"include_usage": true}});
        let parsed: ProviderRequest = serde_json::from_value(body.clone()).unwrap();
        assert_eq!(parsed.list("messages").unwrap().len(), 2);
        assert_eq!(parsed.field("stream"), Some(&json!(true)));
        assert_eq!(parsed.to_value(), body);
        assert_eq!(serde_json::to_value(&parsed).unwrap(), body);
        assert_eq!(
            ProviderRequest::from_value(body.clone())
                .unwrap()
                .to_value(),
            body
        );
        assert!(ProviderRequest::from_value(json!([1])).is_err());
    }
}
