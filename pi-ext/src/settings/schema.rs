//! The settings schema: pi-ext's portable schema of the settings type,
//! adapted for a file edited by hand (defaults, nothing required, closed
//! objects, tabs). See the [module docs](super#the-schema).

use schemars::JsonSchema;
use serde::Serialize;
use serde_json::Value;

use super::tabs::{tabs_of, TABS_KEY};
use crate::tool::schema::{make_portable, SchemaError};

/// The `$schema` of a settings schema.
const DRAFT_07: &str = "http://json-schema.org/draft-07/schema#";

/// The JSON Schema of the settings type `T`, for editors and for
/// [`load`](super::load)'s checks. See the [module docs](super#the-schema)
/// for its shape.
///
/// If `T::default()` does not serialize, the schema simply has no
/// `default`s.
///
/// # Errors
///
/// Like [`crate::tool::schema::portable_schema_for`]: for a recursive type or one
/// that is not a struct with named fields.
pub fn settings_schema<T: JsonSchema + Default + Serialize>() -> Result<Value, SchemaError> {
    let raw = crate::tool::schema::raw_schema_for::<T>();
    let description = raw.get("description").cloned();
    let mut schema = make_portable(raw)?;

    let defaults = T::default();
    prepare_for_files(&mut schema, serde_json::to_value(&defaults).ok().as_ref());
    let tabs = tabs_of(&schema, &defaults);

    if let Value::Object(top) = &mut schema {
        top.insert("$schema".into(), DRAFT_07.into());
        if let Some(d) = description.filter(|d| d.as_str().is_some_and(|s| !s.is_empty())) {
            top.insert("description".into(), d);
        }
        top.insert(TABS_KEY.into(), tabs);
    }
    Ok(schema)
}

/// Fill in defaults, drop `required`, close objects; recursively through
/// `properties`.
fn prepare_for_files(schema: &mut Value, default: Option<&Value>) {
    let Some(map) = schema.as_object_mut() else {
        return;
    };
    map.remove("required");
    let Some(Value::Object(props)) = map.get_mut("properties") else {
        return;
    };
    for (name, prop) in props.iter_mut() {
        let d = default.and_then(|d| d.get(name));
        if let (Some(d), Some(p)) = (d, prop.as_object_mut()) {
            if !d.is_null() {
                p.insert("default".into(), d.clone());
            }
        }
        prepare_for_files(prop, d);
    }
    // With subschemas (e.g. a flattened enum) the valid keys are not all in
    // `properties`: leave such objects open.
    if !["anyOf", "oneOf", "allOf"]
        .iter()
        .any(|k| map.contains_key(*k))
    {
        map.entry("additionalProperties")
            .or_insert(Value::Bool(false));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::settings::fixtures::{Demo, Fixture};
    use crate::settings::load;
    use crate::settings::tabs::TAB_KEY;
    use serde::Deserialize;
    use serde_json::json;

    #[test]
    fn schema_snapshot() {
        let schema = settings_schema::<Demo>().unwrap();
        insta::assert_json_snapshot!(schema);
    }

    #[test]
    fn schema_has_descriptions_defaults_enums_bounds_and_tabs() {
        let s = settings_schema::<Demo>().unwrap();
        assert_eq!(s["$schema"], DRAFT_07);
        assert_eq!(s["type"], "object");
        assert_eq!(s["description"], "Settings of the demo extension.");
        assert!(s.get("title").is_none());
        assert!(s.get("required").is_none());
        assert_eq!(s["additionalProperties"], false);
        assert!(!s.to_string().contains("$ref"));
        let p = &s["properties"];
        assert_eq!(p["font_size"]["description"], "Font size in points.");
        assert_eq!(p["font_size"]["default"], 14);
        assert_eq!(p["font_size"]["minimum"], 6);
        assert_eq!(p["font_size"]["maximum"], 72);
        assert_eq!(p["scale"]["minimum"], 0.5);
        assert_eq!(p["greeting"]["maxLength"], 20);
        assert_eq!(p["theme"]["enum"], json!(["system", "dark", "light"]));
        assert_eq!(p["theme"]["default"], "system");
        assert_eq!(p["theme"][TAB_KEY], "Appearance");
        assert_eq!(
            p["editor"]["default"],
            json!({"tab_size": 4, "wrap": false})
        );
        assert_eq!(p["editor"]["properties"]["tab_size"]["default"], 4);
        assert!(p["editor"].get("required").is_none());
        assert_eq!(p["editor"]["additionalProperties"], false);
        // `None` defaults are left out.
        assert!(p["nickname"].get("default").is_none());
        assert_eq!(
            s[TABS_KEY],
            json!([
                {"name": "Appearance", "fields": ["theme", "font_size", "scale"]},
                {"name": "General", "fields": ["banner", "greeting", "nickname", "author", "words"]},
                {"name": "Editor", "fields": ["editor"]},
            ])
        );
    }

    #[test]
    fn schema_of_a_type_with_serde_default_and_no_tabs() {
        /// Plain.
        #[derive(Default, Serialize, Deserialize, JsonSchema)]
        #[serde(default)]
        struct Plain {
            b: bool,
            a: u8,
        }
        let s = settings_schema::<Plain>().unwrap();
        assert_eq!(
            s[TABS_KEY],
            json!([{"name": "General", "fields": ["b", "a"]}])
        );
        assert_eq!(s["properties"]["a"]["default"], 0);
        assert_eq!(s["properties"]["a"]["maximum"], 255);
    }

    #[test]
    fn flattened_enums_keep_their_keys() {
        #[derive(Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
        #[serde(tag = "kind", rename_all = "lowercase")]
        enum Mode {
            Fast { speed: u8 },
            Slow,
        }
        #[derive(Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
        struct WithMode {
            name: String,
            #[serde(flatten)]
            mode: Mode,
        }
        impl Default for WithMode {
            fn default() -> Self {
                WithMode {
                    name: "x".into(),
                    mode: Mode::Slow,
                }
            }
        }
        let s = settings_schema::<WithMode>().unwrap();
        assert!(s.get("additionalProperties").is_none(), "{s:#}");
        // "kind" alone (the keys are checked one by one) would not load.
        let f = Fixture::new().global(r#"{"kind": "fast", "speed": 3}"#);
        let loaded = load::<WithMode>(&f.paths);
        assert!(loaded.problems.is_empty(), "{:#?}", loaded.problems);
        assert_eq!(loaded.value.mode, Mode::Fast { speed: 3 });
    }

    #[test]
    fn recursive_settings_types_are_an_error() {
        #[derive(Default, Serialize, Deserialize, JsonSchema)]
        struct Node {
            children: Vec<Node>,
        }
        assert!(matches!(
            settings_schema::<Node>(),
            Err(SchemaError::Recursive(_))
        ));
    }
}
