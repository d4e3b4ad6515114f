//! The layered, lenient merge: the defaults, then the global file, then
//! the project file, each value checked before it is taken, whatever fails
//! left out with a [`SettingsProblem`] saying what is used instead. See the
//! [module docs](super#loading).

use std::collections::HashMap;
use std::path::Path;

use schemars::JsonSchema;
use serde::de::DeserializeOwned;
use serde::Serialize;
use serde_json::{Map, Value};

use super::check::{check_value, kind_name, property_names, show, sub_schema, suggestion};
use super::paths::SettingsPaths;
use super::problem::SettingsProblem;
use super::read::read_file;
use super::schema::settings_schema;

/// The settings loaded by [`load`].
#[derive(Debug, Clone)]
pub struct Loaded<T> {
    /// The settings: defaults, then the global file, then the project file.
    pub value: T,
    /// What was wrong in the files (and left out). Empty when all is well.
    pub problems: Vec<SettingsProblem>,
}

/// Load the settings `T` from `paths` (see the [module docs](super#loading)).
/// Never fails: whatever is wrong is left out and reported in
/// [`Loaded::problems`].
pub fn load<T>(paths: &SettingsPaths) -> Loaded<T>
where
    T: DeserializeOwned + Default + Serialize + JsonSchema,
{
    load_layers(&[("global", &paths.global), ("project", &paths.project)])
}

/// Merge `layers` (lowest first) over the defaults of `T`.
fn load_layers<T>(layers: &[(&'static str, &Path)]) -> Loaded<T>
where
    T: DeserializeOwned + Default + Serialize + JsonSchema,
{
    let mut problems = Vec::new();
    let give_up = |mut problems: Vec<SettingsProblem>, why: String| {
        problems.push(SettingsProblem::new(None, None, why));
        Loaded {
            value: T::default(),
            problems,
        }
    };

    let defaults = match serde_json::to_value(T::default()) {
        Ok(Value::Object(map)) => map,
        Ok(other) => {
            return give_up(
                problems,
                format!(
                    "the default settings are {}, not a JSON object; ignoring the settings files",
                    kind_name(&other)
                ),
            )
        }
        Err(e) => {
            return give_up(
                problems,
                format!("the default settings do not serialize ({e}); ignoring the settings files"),
            )
        }
    };
    if let Err(e) = serde_path_to_error::deserialize::<_, T>(&Value::Object(defaults.clone())) {
        return give_up(
            problems,
            format!("the default settings do not load back ({e}); ignoring the settings files"),
        );
    }

    let schema = settings_schema::<T>().unwrap_or_else(|e| {
        problems.push(SettingsProblem::new(
            None,
            None,
            format!("no settings schema ({e}); only the keys of the defaults are checked"),
        ));
        let props: Map<String, Value> = defaults
            .keys()
            .map(|k| (k.clone(), Value::Object(Map::new())))
            .collect();
        serde_json::json!({ "type": "object", "properties": props })
    });

    let mut merged = defaults;
    let mut origin = HashMap::new();
    for (label, file) in layers {
        let map = match read_file(file) {
            Ok(Some(map)) => map,
            Ok(None) => continue,
            Err(problem) => {
                problems.push(problem);
                continue;
            }
        };
        let mut merger = Merger {
            label,
            file,
            origin: &mut origin,
            problems: &mut problems,
        };
        merger.apply_layer::<T>(&mut merged, map, &schema);
    }

    match serde_path_to_error::deserialize::<_, T>(&Value::Object(merged)) {
        Ok(value) => Loaded { value, problems },
        // Every key was checked by deserializing; this is a cross-key
        // constraint or a bug, so be safe.
        Err(e) => give_up(
            problems,
            format!("the merged settings do not load ({e}); using the defaults"),
        ),
    }
}

/// Merges one file's object into the settings so far.
struct Merger<'a> {
    label: &'static str,
    file: &'a Path,
    /// Dotted path → the layer that set it.
    origin: &'a mut HashMap<String, &'static str>,
    problems: &'a mut Vec<SettingsProblem>,
}

impl Merger<'_> {
    fn problem(&mut self, key: String, message: String) {
        self.problems
            .push(SettingsProblem::new(Some(self.file), Some(key), message));
    }

    /// Merge key by key, keeping `merged` deserializable into `T`.
    fn apply_layer<T: DeserializeOwned>(
        &mut self,
        merged: &mut Map<String, Value>,
        file: Map<String, Value>,
        schema: &Value,
    ) {
        // Usually the whole file is fine: check it in one go, so values that
        // only make sense together (a flattened enum's tag and fields) are
        // accepted together.
        let (merged_before, origin_before, problems_before) =
            (merged.clone(), self.origin.clone(), self.problems.len());
        self.merge_object(merged, file.clone(), schema, "");
        if serde_path_to_error::deserialize::<_, T>(&Value::Object(merged.clone())).is_ok() {
            return;
        }
        // Otherwise find the culprits key by key.
        *merged = merged_before;
        *self.origin = origin_before;
        self.problems.truncate(problems_before);
        for (key, value) in file {
            let before = merged.get(&key).cloned();
            let origin_before = self.origin.clone();
            let mut one = Map::new();
            one.insert(key.clone(), value.clone());
            self.merge_object(merged, one, schema, "");
            if merged.get(&key) == before.as_ref() {
                continue;
            }
            let whole = Value::Object(std::mem::take(merged));
            let result = serde_path_to_error::deserialize::<_, T>(&whole);
            if let Value::Object(map) = whole {
                *merged = map;
            }
            if let Err(e) = result {
                match before {
                    Some(b) => merged.insert(key.clone(), b),
                    None => merged.remove(&key),
                };
                *self.origin = origin_before;
                let instead = self.fallback(&key, merged.get(&key));
                self.problem(
                    key,
                    format!("{} is not accepted ({e}); {instead}", show(&value)),
                );
            }
        }
    }

    fn merge_object(
        &mut self,
        base: &mut Map<String, Value>,
        incoming: Map<String, Value>,
        schema: &Value,
        prefix: &str,
    ) {
        for (key, value) in incoming {
            let path = if prefix.is_empty() {
                key.clone()
            } else {
                format!("{prefix}.{key}")
            };
            let Some(sub) = sub_schema(schema, &key) else {
                let hint = suggestion(&key, property_names(schema))
                    .map(|s| format!(" (did you mean \"{s}\"?)"))
                    .unwrap_or_default();
                self.problem(path, format!("unknown key{hint}; ignoring it"));
                continue;
            };
            match (value, base.get_mut(&key)) {
                (Value::Object(inc), Some(Value::Object(cur))) if is_object_schema(sub) => {
                    self.merge_object(cur, inc, sub, &path);
                }
                (value, _) => match check_value(sub, &value) {
                    Ok(()) => {
                        self.origin.retain(|p, _| !is_within(p, &path));
                        self.origin.insert(path, self.label);
                        base.insert(key, value);
                    }
                    Err(why) => {
                        let instead = self.fallback(&path, base.get(&key));
                        self.problem(path, format!("{why}; {instead}"));
                    }
                },
            }
        }
    }

    /// What stays at `path` when this layer's value is rejected.
    fn fallback(&self, path: &str, current: Option<&Value>) -> String {
        let current = match current {
            None | Some(Value::Null) => return "leaving it unset".into(),
            Some(v) => v,
        };
        let earlier = self
            .origin
            .iter()
            .find(|(p, layer)| **layer != self.label && (is_within(p, path) || is_within(path, p)));
        match earlier {
            Some((_, layer)) => format!("using the {layer} value {}", show(current)),
            None => format!("using the default {}", show(current)),
        }
    }
}

/// `path` is `ancestor` or below it.
fn is_within(path: &str, ancestor: &str) -> bool {
    path == ancestor
        || (path.len() > ancestor.len()
            && path.starts_with(ancestor)
            && path.as_bytes()[ancestor.len()] == b'.')
}

/// Whether objects of this schema are merged key by key (rather than
/// replaced): plain objects and free-form values do; unions and enums not.
fn is_object_schema(schema: &Value) -> bool {
    let Some(map) = schema.as_object() else {
        return true;
    };
    match map.get("type") {
        Some(t) => t == "object",
        None => !["anyOf", "oneOf", "allOf", "enum"]
            .iter()
            .any(|k| map.contains_key(*k)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::settings::fixtures::{only_problem, Capitalized, Demo, Editor, Fixture, Theme};
    use serde::Deserialize;

    #[test]
    fn defaults_only() {
        let f = Fixture::new();
        let loaded = f.load();
        assert_eq!(loaded.value, Demo::default());
        assert!(loaded.problems.is_empty(), "{:#?}", loaded.problems);
    }

    #[test]
    fn empty_files_are_empty_objects() {
        let f = Fixture::new().global("").project(" \n");
        let loaded = f.load();
        assert_eq!(loaded.value, Demo::default());
        assert!(loaded.problems.is_empty(), "{:#?}", loaded.problems);
    }

    #[test]
    fn global_then_project_with_nested_merge() {
        let f = Fixture::new()
            .global(r#"{"theme": "light", "font_size": 20, "editor": {"wrap": true}, "words": ["a", "b"]}"#)
            .project(r#"{"font_size": 16, "editor": {"tab_size": 2}, "words": ["c"], "nickname": "ada"}"#);
        let loaded = f.load();
        assert!(loaded.problems.is_empty(), "{:#?}", loaded.problems);
        assert_eq!(
            loaded.value,
            Demo {
                theme: Theme::Light,
                font_size: 16,
                editor: Editor {
                    tab_size: 2,
                    wrap: true
                },
                words: vec!["c".into()],
                nickname: Some("ada".into()),
                ..Demo::default()
            }
        );
    }

    #[test]
    fn wrong_type_falls_back_to_the_default() {
        let f = Fixture::new().global(r#"{"font_size": "big", "theme": "dark"}"#);
        let loaded = f.load();
        let msg = only_problem(&loaded, &f.paths.global, "font_size");
        assert_eq!(msg, r#""big" is not an integer; using the default 14"#);
        assert_eq!(loaded.value.font_size, 14);
        assert_eq!(loaded.value.theme, Theme::Dark);
    }

    #[test]
    fn float_for_an_integer_is_a_wrong_type() {
        let f = Fixture::new().global(r#"{"font_size": 15.5, "banner": "yes"}"#);
        let loaded = f.load();
        assert_eq!(loaded.problems.len(), 2, "{:#?}", loaded.problems);
        assert_eq!(loaded.problems[0].key.as_deref(), Some("banner"));
        assert_eq!(
            loaded.problems[0].message,
            r#""yes" is not true or false; using the default true"#
        );
        assert_eq!(
            loaded.problems[1].message,
            "15.5 is not an integer; using the default 14"
        );
        assert_eq!(loaded.value, Demo::default());
    }

    #[test]
    fn out_of_bounds() {
        let f = Fixture::new().global(r#"{"font_size": 300, "scale": 2}"#);
        let loaded = f.load();
        let msg = only_problem(&loaded, &f.paths.global, "font_size");
        assert_eq!(msg, "300 is above the maximum 72; using the default 14");
        assert_eq!(loaded.value.font_size, 14);
        assert_eq!(loaded.value.scale, 2.0);

        let f = Fixture::new().global(r#"{"scale": 0.25}"#);
        let loaded = f.load();
        let msg = only_problem(&loaded, &f.paths.global, "scale");
        assert_eq!(msg, "0.25 is below the minimum 0.5; using the default 1.0");

        let f = Fixture::new().global(r#"{"greeting": "This greeting is far too long"}"#);
        let loaded = f.load();
        let msg = only_problem(&loaded, &f.paths.global, "greeting");
        assert!(msg.contains("is longer than 20 characters"), "{msg}");
        assert_eq!(loaded.value.greeting, "Hello");
    }

    #[test]
    fn unknown_enum_value() {
        let f = Fixture::new().global(r#"{"theme": "neon", "banner": false}"#);
        let loaded = f.load();
        let msg = only_problem(&loaded, &f.paths.global, "theme");
        assert_eq!(
            msg,
            r#""neon" is not one of "system", "dark" or "light"; using the default "system""#
        );
        assert_eq!(loaded.value.theme, Theme::System);
        assert!(!loaded.value.banner);
    }

    #[test]
    fn unknown_keys_are_left_out_with_a_suggestion() {
        let f = Fixture::new().global(r#"{"fnt_size": 20, "colour": 1, "banner": false}"#);
        let loaded = f.load();
        assert_eq!(loaded.problems.len(), 2, "{:#?}", loaded.problems);
        assert_eq!(loaded.problems[0].key.as_deref(), Some("colour"));
        assert_eq!(loaded.problems[0].message, "unknown key; ignoring it");
        assert_eq!(loaded.problems[1].key.as_deref(), Some("fnt_size"));
        assert_eq!(
            loaded.problems[1].message,
            r#"unknown key (did you mean "font_size"?); ignoring it"#
        );
        assert_eq!(loaded.value.font_size, 14);
        assert!(!loaded.value.banner);

        let f = Fixture::new().global(r#"{"editor": {"tabSize": 8, "wrap": true}}"#);
        let loaded = f.load();
        let msg = only_problem(&loaded, &f.paths.global, "editor.tabSize");
        assert_eq!(
            msg,
            r#"unknown key (did you mean "tab_size"?); ignoring it"#
        );
        assert!(loaded.value.editor.wrap);
    }

    #[test]
    fn malformed_json_ignores_only_that_file() {
        let f = Fixture::new()
            .global("{\n  \"font_size\": 20,\n  \"banner\": false,,\n}")
            .project(r#"{"theme": "dark"}"#);
        let loaded = f.load();
        assert_eq!(loaded.problems.len(), 1, "{:#?}", loaded.problems);
        let p = &loaded.problems[0];
        assert_eq!(p.file.as_deref(), Some(f.paths.global.as_path()));
        assert_eq!(p.key, None);
        assert!(p.message.starts_with("not valid JSON: "), "{}", p.message);
        assert!(p.message.contains("line 3 column"), "{}", p.message);
        assert!(p.message.ends_with("; ignoring the file"), "{}", p.message);
        assert_eq!(loaded.value.font_size, 14);
        assert_eq!(loaded.value.theme, Theme::Dark);
    }

    #[test]
    fn non_object_file_is_ignored() {
        let f = Fixture::new()
            .global(r#"{"font_size": 20}"#)
            .project("[1, 2]");
        let loaded = f.load();
        assert_eq!(loaded.problems.len(), 1, "{:#?}", loaded.problems);
        let p = &loaded.problems[0];
        assert_eq!(p.file.as_deref(), Some(f.paths.project.as_path()));
        assert!(
            p.message.contains("must hold a JSON object"),
            "{}",
            p.message
        );
        assert!(p.message.contains("not a list"), "{}", p.message);
        assert_eq!(loaded.value.font_size, 20);
    }

    #[test]
    fn bad_project_value_falls_back_to_the_global_value() {
        let f = Fixture::new()
            .global(r#"{"font_size": 20, "editor": {"tab_size": 8}}"#)
            .project(
                r#"{"font_size": 0, "theme": "neon", "editor": {"tab_size": 99, "wrap": true}}"#,
            );
        let loaded = f.load();
        assert_eq!(loaded.problems.len(), 3, "{:#?}", loaded.problems);
        let by_key = |k: &str| {
            loaded
                .problems
                .iter()
                .find(|p| p.key.as_deref() == Some(k))
                .unwrap_or_else(|| panic!("no problem for {k}: {:#?}", loaded.problems))
        };
        assert_eq!(
            by_key("font_size").message,
            "0 is below the minimum 6; using the global value 20"
        );
        assert_eq!(
            by_key("editor.tab_size").message,
            "99 is above the maximum 16; using the global value 8"
        );
        assert!(by_key("theme")
            .message
            .ends_with(r#"; using the default "system""#));
        assert!(loaded
            .problems
            .iter()
            .all(|p| p.file.as_deref() == Some(f.paths.project.as_path())));
        assert_eq!(loaded.value.font_size, 20);
        assert_eq!(
            loaded.value.editor,
            Editor {
                tab_size: 8,
                wrap: true
            }
        );
    }

    #[test]
    fn nested_wrong_type_keeps_the_other_nested_keys() {
        let f = Fixture::new().global(r#"{"editor": {"tab_size": "x", "wrap": true}}"#);
        let loaded = f.load();
        let msg = only_problem(&loaded, &f.paths.global, "editor.tab_size");
        assert_eq!(msg, r#""x" is not an integer; using the default 4"#);
        assert_eq!(
            loaded.value.editor,
            Editor {
                tab_size: 4,
                wrap: true
            }
        );
        // A whole object of the wrong type.
        let f = Fixture::new().global(r#"{"editor": 3}"#);
        let loaded = f.load();
        let msg = only_problem(&loaded, &f.paths.global, "editor");
        assert!(
            msg.starts_with("3 is not an object; using the default {"),
            "{msg}"
        );
    }

    #[test]
    fn list_items_are_checked() {
        let f = Fixture::new().global(r#"{"words": ["a", 2]}"#);
        let loaded = f.load();
        let msg = only_problem(&loaded, &f.paths.global, "words");
        assert_eq!(
            msg,
            r#"item 2: 2 is not a string; using the default ["todo"]"#
        );
        assert_eq!(loaded.value.words, vec!["todo".to_string()]);
    }

    #[test]
    fn deserialization_catches_what_the_schema_cannot() {
        let f = Fixture::new().global(r#"{"author": "bob", "font_size": 30}"#);
        let loaded = f.load();
        let msg = only_problem(&loaded, &f.paths.global, "author");
        assert_eq!(
            msg,
            r#""bob" is not accepted (author: `bob` must start with a capital letter); using the default "Ada""#
        );
        assert_eq!(loaded.value.author, Capitalized("Ada".into()));
        assert_eq!(loaded.value.font_size, 30);
    }

    #[test]
    fn null_is_for_options_only() {
        let f = Fixture::new()
            .global(r#"{"nickname": "ada"}"#)
            .project(r#"{"nickname": null, "font_size": null}"#);
        let loaded = f.load();
        let msg = only_problem(&loaded, &f.paths.project, "font_size");
        assert!(
            msg.starts_with("null is not accepted (font_size: invalid type: null"),
            "{msg}"
        );
        assert!(msg.ends_with("; using the default 14"), "{msg}");
        assert_eq!(loaded.value.nickname, None);
    }

    #[test]
    fn defaults_that_do_not_load_back_give_the_defaults_and_a_problem() {
        #[derive(Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
        struct Broken {
            name: Capitalized,
        }
        impl Default for Broken {
            fn default() -> Self {
                Broken {
                    name: Capitalized("lower".into()),
                }
            }
        }
        let f = Fixture::new().global(r#"{"name": "Fine"}"#);
        let loaded = load::<Broken>(&f.paths);
        assert_eq!(loaded.value, Broken::default());
        assert_eq!(loaded.problems.len(), 1, "{:#?}", loaded.problems);
        assert!(loaded.problems[0]
            .message
            .contains("the default settings do not load back"));
    }
}
