//! JSON kept as pi wrote it: [`RawJson`] (a value this version of pi-ext
//! does not interpret, carried byte for byte), the shared cell behind
//! [`Message`](crate::data::messages::Message) and [`Entry`](crate::data::session::Entry)
//! (the text pi sent, parsed into a typed value on first use), and the
//! helpers that read tagged unions (`role`, `type`) without an intermediate
//! [`Value`].

use std::sync::OnceLock;

use serde::de::{DeserializeOwned, IgnoredAny, MapAccess, Visitor};
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::value::RawValue;
use serde_json::Value;

/// A JSON value exactly as pi wrote it (`JSON.stringify`), kept as text:
/// tool-call arguments, `details`, and the messages, blocks and entries of
/// kinds this version of pi-ext does not know. Sent back unchanged, byte for
/// byte; read it with [`RawJson::parse`] or [`RawJson::to_value`].
#[derive(Clone)]
pub struct RawJson(Box<RawValue>);

impl RawJson {
    /// The JSON text.
    pub fn get(&self) -> &str {
        self.0.get()
    }

    /// Parse it as `T`.
    ///
    /// # Errors
    ///
    /// When the JSON does not have `T`'s shape.
    pub fn parse<T: DeserializeOwned>(&self) -> serde_json::Result<T> {
        serde_json::from_str(self.0.get())
    }

    /// Parse it as a [`Value`].
    pub fn to_value(&self) -> Value {
        // Valid JSON by construction; a value nested beyond serde_json's
        // limit is the only way this fails.
        self.parse().unwrap_or(Value::Null)
    }

    /// The JSON of `value`.
    ///
    /// # Errors
    ///
    /// When `value` cannot be serialized (a map with non-string keys, a
    /// failing `Serialize` impl).
    pub fn from_serialize<T: Serialize + ?Sized>(value: &T) -> serde_json::Result<Self> {
        serde_json::value::to_raw_value(value).map(RawJson)
    }

    /// Wrap JSON text that is known to be valid.
    pub(crate) fn from_raw(raw: Box<RawValue>) -> Self {
        RawJson(raw)
    }

    /// The text as a raw value.
    pub(crate) fn as_raw(&self) -> &RawValue {
        &self.0
    }
}

impl From<Value> for RawJson {
    fn from(value: Value) -> Self {
        // A Value always serializes.
        RawJson::from_serialize(&value).unwrap_or_else(|_| RawJson::null())
    }
}

impl RawJson {
    /// JSON `null`.
    pub fn null() -> Self {
        RawJson(RawValue::from_string("null".to_owned()).expect("null is JSON"))
    }
}

impl std::fmt::Debug for RawJson {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.0.get())
    }
}

impl std::fmt::Display for RawJson {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.0.get())
    }
}

/// Equal when the JSON texts are equal.
impl PartialEq for RawJson {
    fn eq(&self, other: &Self) -> bool {
        self.0.get() == other.0.get()
    }
}

impl Serialize for RawJson {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.0.serialize(serializer)
    }
}

impl<'de> Deserialize<'de> for RawJson {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        Box::<RawValue>::deserialize(deserializer).map(RawJson)
    }
}

/// For optional fields whose `null` must survive (`details: null` stays
/// `null`, an absent field stays absent): any present value, `null`
/// included, is `Some`.
pub(crate) fn some_raw<'de, D: Deserializer<'de>>(d: D) -> Result<Option<RawJson>, D::Error> {
    RawJson::deserialize(d).map(Some)
}

/// Write a number as JavaScript's `JSON.stringify` does: a whole number
/// without a fraction (`0`, not `0.0`), so that a value pi sent comes back
/// as the same text.
pub(crate) fn js_number<S: Serializer>(v: &f64, s: S) -> Result<S::Ok, S::Error> {
    const EXACT: f64 = 9_007_199_254_740_992.0; // 2^53
    if v.fract() == 0.0 && v.abs() < EXACT {
        s.serialize_i64(*v as i64)
    } else {
        s.serialize_f64(*v)
    }
}

/// [`js_number`] for an optional number.
pub(crate) fn js_number_opt<S: Serializer>(v: &Option<f64>, s: S) -> Result<S::Ok, S::Error> {
    match v {
        Some(v) => js_number(v, s),
        None => s.serialize_none(),
    }
}

/// The string value of the key `tag` of the JSON object `json`, read
/// without building the rest of it (`None`: not an object, no such key, or
/// not a string).
pub(crate) fn tag_of(json: &str, tag: &str) -> Option<String> {
    struct Probe<'t> {
        tag: &'t str,
    }
    impl<'de> Visitor<'de> for Probe<'_> {
        type Value = Option<String>;
        fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
            f.write_str("a JSON object")
        }
        fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
            let mut found = None;
            while let Some(key) = map.next_key::<std::borrow::Cow<'de, str>>()? {
                if key == self.tag && found.is_none() {
                    found = map.next_value::<Option<String>>().ok().flatten();
                } else {
                    map.next_value::<IgnoredAny>()?;
                }
            }
            Ok(found)
        }
    }
    let mut de = serde_json::Deserializer::from_str(json);
    serde::Deserializer::deserialize_map(&mut de, Probe { tag })
        .ok()
        .flatten()
}

/// A unit type that is one fixed string in JSON: the tag field (`role`,
/// `type`) of a typed message, block or entry, so that each struct writes its
/// own tag and refuses a different one.
macro_rules! json_tag {
    ($(#[$meta:meta])* $name:ident = $value:literal) => {
        $(#[$meta])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Hash)]
        pub(crate) struct $name;

        impl $name {
            /// The tag's value.
            #[allow(dead_code)]
            pub(crate) const VALUE: &'static str = $value;
        }

        impl serde::Serialize for $name {
            fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                s.serialize_str($value)
            }
        }

        impl<'de> serde::Deserialize<'de> for $name {
            fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                let s = std::borrow::Cow::<'de, str>::deserialize(d)?;
                if s == $value {
                    Ok($name)
                } else {
                    Err(serde::de::Error::custom(format_args!(
                        "expected {:?}, got {:?}",
                        $value, s
                    )))
                }
            }
        }
    };
}
pub(crate) use json_tag;

/// What [`Lazy`] parses its text into.
pub(crate) trait FromRaw: Sized {
    /// The typed value of `raw` (never fails: unknown shapes are kept whole).
    fn from_raw(raw: &RawValue) -> Self;
}

impl FromRaw for Value {
    fn from_raw(raw: &RawValue) -> Self {
        serde_json::from_str(raw.get()).unwrap_or(Value::Null)
    }
}

/// JSON text and its typed value: either is made from the other on first
/// use and kept. Received values start as text (exactly what pi sent);
/// values built in Rust start typed and are written when sent.
pub(crate) struct Lazy<T> {
    raw: OnceLock<Box<RawValue>>,
    typed: OnceLock<T>,
}

impl<T: FromRaw + Serialize> Lazy<T> {
    /// From the text pi sent.
    pub(crate) fn from_raw(raw: Box<RawValue>) -> Self {
        Self {
            raw: OnceLock::from(raw),
            typed: OnceLock::new(),
        }
    }

    /// From a typed value.
    pub(crate) fn from_typed(typed: T) -> Self {
        Self {
            raw: OnceLock::new(),
            typed: OnceLock::from(typed),
        }
    }

    /// The typed value (parsed once).
    pub(crate) fn typed(&self) -> &T {
        self.typed.get_or_init(|| match self.raw.get() {
            Some(raw) => T::from_raw(raw),
            // One of the two is always set.
            None => unreachable!("a Lazy value has neither text nor type"),
        })
    }

    /// The JSON text (written once).
    pub(crate) fn raw(&self) -> &RawValue {
        self.raw.get_or_init(|| {
            let typed = self
                .typed
                .get()
                .expect("a Lazy value has neither text nor type");
            serde_json::value::to_raw_value(typed).unwrap_or_else(|e| {
                // A typed message always serializes; say what went wrong
                // rather than sending nothing.
                serde_json::value::to_raw_value(
                    &serde_json::json!({ "serializationError": e.to_string() }),
                )
                .expect("a JSON object serializes")
            })
        })
    }

    /// Whether the text is known without writing it.
    pub(crate) fn has_raw(&self) -> bool {
        self.raw.get().is_some()
    }
}

/// Parse `raw` as `T` (lone surrogate escapes become U+FFFD, as everywhere
/// in the protocol), falling back to `other(raw)` when it does not have
/// `T`'s shape (kept whole rather than lost).
pub(crate) fn parse_or<T: DeserializeOwned, U>(
    raw: &RawValue,
    wrap: impl FnOnce(T) -> U,
    other: impl FnOnce(RawJson) -> U,
) -> U {
    match crate::wire::from_js_text::<T>(raw.get()) {
        Ok(t) => wrap(t),
        Err(_) => other(RawJson(raw.to_owned())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tag_of_reads_one_key_of_an_object() {
        assert_eq!(
            tag_of(r#"{"a":[1,{"role":"x"}],"role":"user","z":1}"#, "role").as_deref(),
            Some("user")
        );
        assert_eq!(
            tag_of(r#"{"role":"us\u0065r"}"#, "role").as_deref(),
            Some("user")
        );
        assert_eq!(tag_of(r#"{"role":5}"#, "role"), None);
        assert_eq!(tag_of(r#"[1,2]"#, "role"), None);
        assert_eq!(tag_of(r#"{"type":"a"}"#, "role"), None);
    }

    #[test]
    fn raw_json_keeps_the_text_and_null() {
        #[derive(Deserialize, Serialize)]
        struct S {
            #[serde(
                default,
                deserialize_with = "some_raw",
                skip_serializing_if = "Option::is_none"
            )]
            details: Option<RawJson>,
        }
        for text in [
            r#"{"details":null}"#,
            r#"{}"#,
            r#"{"details":{"b":1,"a":[2, 3]}}"#,
        ] {
            let s: S = serde_json::from_str(text).unwrap();
            assert_eq!(serde_json::to_string(&s).unwrap(), text);
        }
    }
}
