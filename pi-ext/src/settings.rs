//! Extension settings: a typed settings struct, its JSON schema, and the
//! files it is read from.
//!
//! An extension declares one settings type, say `MySettings`, deriving
//! `Serialize`, `Deserialize`, `JsonSchema` and implementing `Default`.
//! This module
//!
//! - generates a JSON Schema for it that editors understand
//!   ([`settings_schema`]), with descriptions, defaults, enums, bounds and
//!   the grouping of fields into **tabs** (`x-tabs`);
//! - finds its two files ([`SettingsPaths`]), a global one and a
//!   per-project one;
//! - loads them **leniently** ([`load`]): a bad value never stops the
//!   extension, it is replaced and reported as a [`SettingsProblem`];
//! - edits one key of a file without touching the rest ([`write_value`],
//!   [`remove_value`]);
//! - describes every field for an interactive settings command
//!   ([`describe_fields`]) and validates what the user types
//!   ([`parse_input`]).
//!
//! ```
//! use pi_ext::settings;
//! use serde::{Deserialize, Serialize};
//!
//! /// Settings of the `notes` extension.
//! #[derive(Serialize, Deserialize, pi_ext::schemars::JsonSchema)]
//! #[schemars(crate = "pi_ext::schemars")]
//! struct Notes {
//!     /// Colour theme.
//!     #[schemars(extend("x-tab" = "Appearance"))]
//!     theme: Theme,
//!     /// Font size in points.
//!     #[schemars(range(min = 6, max = 72), extend("x-tab" = "Appearance"))]
//!     font_size: u32,
//!     /// Save notes automatically.
//!     autosave: bool,
//! }
//!
//! #[derive(Serialize, Deserialize, pi_ext::schemars::JsonSchema)]
//! #[schemars(crate = "pi_ext::schemars")]
//! #[serde(rename_all = "lowercase")]
//! enum Theme { Dark, Light }
//!
//! impl Default for Notes {
//!     fn default() -> Self {
//!         Notes { theme: Theme::Dark, font_size: 14, autosave: true }
//!     }
//! }
//!
//! let schema = settings::settings_schema::<Notes>().unwrap();
//! assert_eq!(schema["properties"]["font_size"]["default"], 14);
//! assert_eq!(schema["properties"]["font_size"]["maximum"], 72);
//! assert_eq!(schema["properties"]["theme"]["enum"], serde_json::json!(["dark", "light"]));
//! assert_eq!(schema["x-tabs"][0]["name"], "Appearance");
//! assert_eq!(schema["x-tabs"][1]["fields"], serde_json::json!(["autosave"]));
//! ```
//!
//! ## Files
//!
//! | scope   | file                                                  |
//! |---------|-------------------------------------------------------|
//! | global  | `<agent dir>/pi-ext/settings/<extension>.json`        |
//! | project | `<cwd>/.pi/pi-ext/settings/<extension>.json`          |
//!
//! The agent dir is `$PI_CODING_AGENT_DIR` or `~/.pi/agent`
//! ([`crate::install::agent_dir`]). These files belong to pi-ext, not to pi
//! (pi's own `settings.json` is never read or written), and each holds one
//! JSON object with the settings that differ from the defaults. Both are
//! optional.
//!
//! ## Loading
//!
//! [`load`] starts from `T::default()` serialized to a JSON object and
//! deep-merges the global file, then the project file over it: objects are
//! merged key by key, any other value (numbers, strings, lists…) replaces
//! the one below. So a file only needs the keys it changes, and `T` does not
//! need `#[serde(default)]`.
//!
//! Every value is checked before it is merged, against the settings schema
//! (type, `enum`, `minimum`/`maximum`/`exclusiveMinimum`/`exclusiveMaximum`,
//! `minLength`/`maxLength`, `minItems`/`maxItems`, list items, unknown keys)
//! and then by deserializing the settings with it (which catches everything
//! the schema cannot say, such as a custom `Deserialize` or
//! `#[serde(try_from = …)]` check; a file is first tried as a whole, so
//! keys that only make sense together, like a flattened enum's tag and
//! fields, are fine, and only when that fails key by key, in alphabetical
//! order, each key over what was accepted so far). A value that fails is
//! **left out**, with
//! one [`SettingsProblem`] naming the file, the key, the bad value, why, and
//! what is used instead:
//!
//! - a rejected **project** value falls back to the **global** value when
//!   the global file set a valid one, else to the default (it is as if the
//!   project file did not have the key);
//! - in a nested object only the bad nested key is left out (the key is
//!   reported as a dotted path, `editor.tab_size`); when deserialization
//!   rejects an otherwise well-formed value, its whole top-level key is
//!   left out;
//! - an unknown key (not in the schema) is left out, with a "did you mean"
//!   suggestion when a field is spelled alike;
//! - a file that is not valid JSON, or whose top level is not an object, is
//!   ignored as a whole (the problem gives the parser's line and column);
//!   an empty file counts as `{}`; a missing file is not a problem.
//!
//! `null` is not checked against the schema (portable schemas do not say
//! whether a field is an `Option`): deserialization alone decides whether
//! it is accepted. `pattern` and `format` are not checked (that would need a
//! regular-expression and format validator; this module adds no JSON Schema
//! validator dependency).
//!
//! The result always deserializes into `T`; should the defaults themselves
//! not survive a round trip through JSON (a bug in the settings type), the
//! files are ignored and `T::default()` is returned with a problem.
//!
//! ## The schema
//!
//! [`settings_schema`] is [`crate::schema::make_portable`]'s draft-07 schema
//! (no `$ref`, `Option<T>` as plain `T`, unit enums as string `enum`s,
//! integer formats as `minimum`/`maximum`), adapted for a settings file
//! edited by hand:
//!
//! - it **keeps** `"$schema": "http://json-schema.org/draft-07/schema#"` at
//!   the top, so editors know the dialect (settings schemas are for editors
//!   and this module, never sent to a model, so [`crate::schema::lint`]'s
//!   rule against `$schema` does not apply);
//! - the type's doc comment stays as the top-level `description`; `title`
//!   (the Rust type name) is dropped;
//! - every property (also in nested objects) gets the `default` from
//!   `T::default()` (except `null` defaults);
//! - nothing is `required` (a file holds only the keys it changes), and
//!   objects with declared properties get `"additionalProperties": false`
//!   (unknown keys are reported), unless the type itself allows more keys;
//! - fields are grouped into tabs (next section).
//!
//! ## Tabs
//!
//! Put a field into a tab with schemars' `extend` attribute:
//! `#[schemars(extend("x-tab" = "Appearance"))]`. The property keeps its
//! `"x-tab"`, and the top level gets
//! `"x-tabs": [{"name": "Appearance", "fields": ["theme", "font_size"]}, …]`.
//! Fields without a tab are in the tab [`GENERAL_TAB`] (`"General"`). Tabs
//! appear in the order of their first field, and fields in declaration
//! order. (The schema's `properties` object is alphabetical, so the
//! declaration order is taken from how `T::default()` serializes; fields
//! that do not serialize, e.g. skipped `None`s, come last, alphabetically.)

use crate::schema::{make_portable, SchemaError};
use schemars::JsonSchema;
use serde::de::{DeserializeOwned, MapAccess, Visitor};
use serde::ser::SerializeMap;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::{Map, Number, Value};
use std::cmp::Ordering;
use std::collections::HashMap;
use std::fmt;
use std::io;
use std::path::{Path, PathBuf};

/// The tab of fields that do not name one.
pub const GENERAL_TAB: &str = "General";

/// The schema extension key naming a field's tab (`#[schemars(extend("x-tab" = "…"))]`).
pub const TAB_KEY: &str = "x-tab";

/// The top-level schema key listing the tabs and their fields.
pub const TABS_KEY: &str = "x-tabs";

/// The `$schema` of a settings schema.
pub const DRAFT_07: &str = "http://json-schema.org/draft-07/schema#";

/// Accepts anything: the schema of a key in a free-form object.
static ANY: Value = Value::Bool(true);

// ---------------------------------------------------------------------------
// Schema
// ---------------------------------------------------------------------------

/// The JSON Schema of the settings type `T`, for editors and for [`load`]'s
/// checks. See the [module docs](self#the-schema) for its shape.
///
/// Fails like [`crate::schema::portable_schema_for`]: for a recursive type
/// or one that is not a struct with named fields. If `T::default()` does not
/// serialize, the schema simply has no `default`s.
pub fn settings_schema<T: JsonSchema + Default + Serialize>() -> Result<Value, SchemaError> {
    let raw = crate::schema::raw_schema_for::<T>();
    let description = raw.get("description").cloned();
    let mut schema = make_portable(raw)?;

    let defaults = serde_json::to_value(T::default()).ok();
    prepare_for_files(&mut schema, defaults.as_ref());

    let order = serde_json::to_string(&T::default())
        .ok()
        .and_then(|s| serde_json::from_str::<OrderedObject>(&s).ok())
        .map(|o| o.0.into_iter().map(|(k, _)| k).collect::<Vec<_>>())
        .unwrap_or_default();
    let tabs = tabs_of(&schema, &order);

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

/// `[{"name": tab, "fields": […]}, …]` in declaration order.
fn tabs_of(schema: &Value, order: &[String]) -> Value {
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

fn tab_of(prop: &Value) -> String {
    prop.get(TAB_KEY)
        .and_then(Value::as_str)
        .filter(|t| !t.trim().is_empty())
        .unwrap_or(GENERAL_TAB)
        .to_string()
}

// ---------------------------------------------------------------------------
// Paths
// ---------------------------------------------------------------------------

/// Where an extension's settings files are. See the
/// [module docs](self#files).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SettingsPaths {
    /// `<agent dir>/pi-ext/settings/<extension>.json`.
    pub global: PathBuf,
    /// `<cwd>/.pi/pi-ext/settings/<extension>.json`.
    pub project: PathBuf,
}

impl SettingsPaths {
    /// The files of extension `name` for a session in `cwd`, with the agent
    /// dir from [`crate::install::agent_dir`].
    ///
    /// Fails when the home directory is unknown, or when `name` cannot be a
    /// file name (empty, `.`, `..`, or containing a path separator).
    pub fn for_extension(name: &str, cwd: &Path) -> io::Result<Self> {
        Self::with_agent_dir(&crate::install::agent_dir()?, name, cwd)
    }

    /// Like [`for_extension`](Self::for_extension) with an explicit agent
    /// dir.
    pub fn with_agent_dir(agent_dir: &Path, name: &str, cwd: &Path) -> io::Result<Self> {
        if name.is_empty()
            || name == "."
            || name == ".."
            || name.contains(['/', '\\'])
            || name.contains('\0')
        {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                format!("`{name}` is not a valid extension name for a settings file"),
            ));
        }
        let file = format!("{name}.json");
        Ok(SettingsPaths {
            global: agent_dir.join("pi-ext").join("settings").join(&file),
            project: cwd.join(".pi").join("pi-ext").join("settings").join(&file),
        })
    }
}

// ---------------------------------------------------------------------------
// Problems
// ---------------------------------------------------------------------------

/// Something wrong in the settings files, and what was done about it.
///
/// Displays as `<file>: key "<key>": <message>` (parts left out when
/// absent), with the home directory shown as `~`:
///
/// ```text
/// ~/.pi/agent/pi-ext/settings/x.json: key "font_size": 300 is above the maximum 72; using the default 14
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SettingsProblem {
    /// The file, when the problem is in one.
    pub file: Option<PathBuf>,
    /// The key, a dotted path for nested keys (`editor.tab_size`).
    pub key: Option<String>,
    /// What is wrong and what is used instead.
    pub message: String,
}

impl SettingsProblem {
    fn new(file: Option<&Path>, key: Option<String>, message: String) -> Self {
        SettingsProblem {
            file: file.map(Path::to_path_buf),
            key,
            message,
        }
    }
}

impl fmt::Display for SettingsProblem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(file) = &self.file {
            let home = std::env::var_os("HOME")
                .filter(|h| !h.is_empty())
                .map(PathBuf::from);
            write!(f, "{}: ", abbreviate_home(file, home.as_deref()))?;
        }
        if let Some(key) = &self.key {
            write!(f, "key \"{key}\": ")?;
        }
        f.write_str(&self.message)
    }
}

impl std::error::Error for SettingsProblem {}

/// `/home/ada/x` → `~/x` when `home` is `/home/ada`.
fn abbreviate_home(path: &Path, home: Option<&Path>) -> String {
    if let Some(home) = home.filter(|h| h.parent().is_some()) {
        if let Ok(rest) = path.strip_prefix(home) {
            return format!("~{}{}", std::path::MAIN_SEPARATOR, rest.display());
        }
    }
    path.display().to_string()
}

// ---------------------------------------------------------------------------
// Reading and loading
// ---------------------------------------------------------------------------

/// The settings loaded by [`load`].
#[derive(Debug, Clone)]
pub struct Loaded<T> {
    /// The settings: defaults, then the global file, then the project file.
    pub value: T,
    /// What was wrong in the files (and left out). Empty when all is well.
    pub problems: Vec<SettingsProblem>,
}

/// Read one settings file: `Ok(None)` when it does not exist, the object
/// it holds otherwise (`{}` for an empty file; a UTF-8 byte-order mark is
/// skipped). A file that cannot be read, is not valid JSON, or does not
/// hold an object is an `Err` whose message says so.
pub fn read_file(file: &Path) -> Result<Option<Map<String, Value>>, SettingsProblem> {
    let problem = |message: String| SettingsProblem::new(Some(file), None, message);
    let text = match std::fs::read_to_string(file) {
        Ok(text) => text,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(problem(format!("cannot read it ({e}); ignoring the file"))),
    };
    let text = text.strip_prefix('\u{feff}').unwrap_or(&text);
    if text.trim().is_empty() {
        return Ok(Some(Map::new()));
    }
    match serde_json::from_str::<Value>(text) {
        Ok(Value::Object(map)) => Ok(Some(map)),
        Ok(other) => Err(problem(format!(
            "must hold a JSON object ({{ \"key\": value, … }}), not {}; ignoring the file",
            kind_name(&other)
        ))),
        Err(e) => Err(problem(format!("not valid JSON: {e}; ignoring the file"))),
    }
}

/// Load the settings `T` from `paths` (see the [module docs](self#loading)).
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

/// The schema of `key` inside an object schema; `None` if the key is unknown.
fn sub_schema<'a>(schema: &'a Value, key: &str) -> Option<&'a Value> {
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

fn property_names(schema: &Value) -> impl Iterator<Item = &str> {
    schema
        .get("properties")
        .and_then(Value::as_object)
        .into_iter()
        .flat_map(|p| p.keys().map(String::as_str))
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

/// The closest of `candidates` to a mistyped `key`, if any is close.
fn suggestion<'a>(key: &str, candidates: impl Iterator<Item = &'a str>) -> Option<&'a str> {
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
        if d * 3 <= longest && best.map_or(true, |(bd, _)| d < bd) {
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

// ---------------------------------------------------------------------------
// Checking values against a schema
// ---------------------------------------------------------------------------

/// Check `value` against the parts of `schema` this module understands;
/// the error says why it does not fit (`300 is above the maximum 72`).
fn check_value(schema: &Value, value: &Value) -> Result<(), String> {
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

fn kind_name(value: &Value) -> &'static str {
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
fn list_values(options: &[Value]) -> String {
    let shown: Vec<String> = options.iter().map(show).collect();
    match shown.split_last() {
        None => "nothing".into(),
        Some((last, [])) => last.clone(),
        Some((last, rest)) => format!("{} or {last}", rest.join(", ")),
    }
}

/// Compact JSON, cut to a readable length.
fn show(value: &Value) -> String {
    const MAX: usize = 60;
    let text = value.to_string();
    if text.chars().count() <= MAX {
        text
    } else {
        let cut: String = text.chars().take(MAX - 1).collect();
        format!("{cut}…")
    }
}

// ---------------------------------------------------------------------------
// Writing
// ---------------------------------------------------------------------------

/// A JSON object with its keys in file order (`serde_json::Map` sorts them).
struct OrderedObject(Vec<(String, Value)>);

impl<'de> Deserialize<'de> for OrderedObject {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = OrderedObject;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a JSON object")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<OrderedObject, A::Error> {
                let mut entries: Vec<(String, Value)> = Vec::new();
                while let Some((k, v)) = map.next_entry::<String, Value>()? {
                    match entries.iter_mut().find(|(key, _)| *key == k) {
                        Some(slot) => slot.1 = v,
                        None => entries.push((k, v)),
                    }
                }
                Ok(OrderedObject(entries))
            }
        }
        deserializer.deserialize_map(V)
    }
}

impl Serialize for OrderedObject {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(Some(self.0.len()))?;
        for (k, v) in &self.0 {
            map.serialize_entry(k, v)?;
        }
        map.end()
    }
}

/// Set the top-level `key` of the settings file `file` to `value`.
///
/// Every other key stays, unknown ones included, and top-level keys keep
/// their order (a new key goes last; nested objects come out with sorted
/// keys). The file and its directories are created when missing. The
/// file is replaced atomically (a temporary file in the same directory,
/// then a rename) and written as pretty JSON with a trailing newline.
///
/// The value is not checked: use [`parse_input`] (or [`describe_fields`]'
/// schema) first. A file that exists but does not hold a JSON object is
/// left alone and the call fails with [`io::ErrorKind::InvalidData`], so a
/// hand-edited file with a typo is never overwritten.
pub fn write_value(file: &Path, key: &str, value: Value) -> io::Result<()> {
    let mut entries = read_ordered(file)?.unwrap_or_default();
    match entries.iter_mut().find(|(k, _)| k == key) {
        Some(slot) => slot.1 = value,
        None => entries.push((key.to_string(), value)),
    }
    write_atomically(file, &entries)
}

/// Remove the top-level `key` from the settings file `file` (so the value
/// below applies again: the global one or the default). Returns whether
/// the key was there; the file is only rewritten (like [`write_value`])
/// when it was. A missing file is not an error.
pub fn remove_value(file: &Path, key: &str) -> io::Result<bool> {
    let Some(mut entries) = read_ordered(file)? else {
        return Ok(false);
    };
    let before = entries.len();
    entries.retain(|(k, _)| k != key);
    if entries.len() == before {
        return Ok(false);
    }
    write_atomically(file, &entries)?;
    Ok(true)
}

fn read_ordered(file: &Path) -> io::Result<Option<Vec<(String, Value)>>> {
    let text = match std::fs::read_to_string(file) {
        Ok(text) => text,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(e),
    };
    let text = text.strip_prefix('\u{feff}').unwrap_or(&text);
    if text.trim().is_empty() {
        return Ok(Some(Vec::new()));
    }
    serde_json::from_str::<OrderedObject>(text)
        .map(|o| Some(o.0))
        .map_err(|e| {
            io::Error::new(
                io::ErrorKind::InvalidData,
                format!(
                    "{} does not hold a JSON object ({e}); fix or remove it first",
                    file.display()
                ),
            )
        })
}

fn write_atomically(file: &Path, entries: &[(String, Value)]) -> io::Result<()> {
    let mut text = serde_json::to_string_pretty(&OrderedObject(entries.to_vec()))
        .map_err(|e| io::Error::new(io::ErrorKind::InvalidData, e))?;
    text.push('\n');
    crate::atomic_file::write_atomic(file, text.as_bytes(), crate::atomic_file::FileMode::Private)
}

// ---------------------------------------------------------------------------
// Fields, for an interactive settings command
// ---------------------------------------------------------------------------

/// How a field is edited.
#[derive(Debug, Clone, PartialEq)]
pub enum FieldKind {
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
pub struct FieldInfo {
    /// The key in the settings file.
    pub name: String,
    /// Its tab ([`GENERAL_TAB`] unless it names one).
    pub tab: String,
    /// The schema's `title`, if any.
    pub title: Option<String>,
    /// The field's doc comment.
    pub description: Option<String>,
    /// How it is edited.
    pub kind: FieldKind,
    /// Its default value, if the schema has one.
    pub default: Option<Value>,
    /// The field's own schema, which [`parse_input`] checks against.
    pub schema: Value,
}

/// The top-level fields of a [`settings_schema`], grouped by tab and in
/// declaration order (the `x-tabs` order; a schema without `x-tabs` gives
/// alphabetical order).
pub fn describe_fields(schema: &Value) -> Vec<FieldInfo> {
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
/// also checked against the field's schema, exactly as [`load`] would.
pub fn parse_input(field: &FieldInfo, text: &str) -> Result<Value, String> {
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
    use serde_json::json;
    use std::fs;

    #[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
    #[serde(rename_all = "lowercase")]
    enum Theme {
        /// Follow the terminal.
        System,
        /// Light text on dark.
        Dark,
        /// Dark text on light.
        Light,
    }

    /// How the editor behaves.
    #[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
    struct Editor {
        /// Spaces per tab.
        #[schemars(range(min = 1, max = 16))]
        tab_size: u8,
        /// Wrap long lines.
        wrap: bool,
    }

    /// A name that must start with a capital letter (checked only when
    /// deserializing).
    #[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
    #[serde(try_from = "String", into = "String")]
    struct Capitalized(String);

    impl TryFrom<String> for Capitalized {
        type Error = String;
        fn try_from(s: String) -> Result<Self, String> {
            if s.starts_with(|c: char| c.is_uppercase()) {
                Ok(Capitalized(s))
            } else {
                Err(format!("`{s}` must start with a capital letter"))
            }
        }
    }

    impl From<Capitalized> for String {
        fn from(c: Capitalized) -> String {
            c.0
        }
    }

    /// Settings of the demo extension.
    #[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
    struct Demo {
        /// Colour theme.
        #[schemars(extend("x-tab" = "Appearance"))]
        theme: Theme,
        /// Show the welcome banner.
        banner: bool,
        /// Font size in points.
        #[schemars(range(min = 6, max = 72), extend("x-tab" = "Appearance"))]
        font_size: u32,
        /// Editor behaviour.
        #[schemars(extend("x-tab" = "Editor"))]
        editor: Editor,
        /// Greeting shown at start.
        #[schemars(length(max = 20))]
        greeting: String,
        /// Zoom factor.
        #[schemars(range(min = 0.5, max = 4.0), extend("x-tab" = "Appearance"))]
        scale: f64,
        /// What to call you.
        nickname: Option<String>,
        /// Who signs the notes.
        author: Capitalized,
        /// Extra words to highlight.
        words: Vec<String>,
    }

    impl Default for Demo {
        fn default() -> Self {
            Demo {
                theme: Theme::System,
                banner: true,
                font_size: 14,
                editor: Editor {
                    tab_size: 4,
                    wrap: false,
                },
                greeting: "Hello".into(),
                scale: 1.0,
                nickname: None,
                author: Capitalized("Ada".into()),
                words: vec!["todo".into()],
            }
        }
    }

    struct Fixture {
        _dir: tempfile::TempDir,
        paths: SettingsPaths,
    }

    impl Fixture {
        fn new() -> Self {
            let dir = tempfile::tempdir().unwrap();
            let paths = SettingsPaths::with_agent_dir(
                &dir.path().join("agent"),
                "demo",
                &dir.path().join("project"),
            )
            .unwrap();
            Fixture { _dir: dir, paths }
        }
        fn global(self, text: &str) -> Self {
            put(&self.paths.global, text);
            self
        }
        fn project(self, text: &str) -> Self {
            put(&self.paths.project, text);
            self
        }
        fn load(&self) -> Loaded<Demo> {
            load::<Demo>(&self.paths)
        }
    }

    fn put(file: &Path, text: &str) {
        fs::create_dir_all(file.parent().unwrap()).unwrap();
        fs::write(file, text).unwrap();
    }

    /// The one problem, checked to be about `key` in `file`.
    fn only_problem<'a>(loaded: &'a Loaded<Demo>, file: &Path, key: &str) -> &'a str {
        assert_eq!(loaded.problems.len(), 1, "{:#?}", loaded.problems);
        let p = &loaded.problems[0];
        assert_eq!(p.file.as_deref(), Some(file));
        assert_eq!(p.key.as_deref(), Some(key));
        &p.message
    }

    // ---- schema ----------------------------------------------------------

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

    // ---- paths -----------------------------------------------------------

    #[test]
    fn paths() {
        let p = SettingsPaths::with_agent_dir(Path::new("/a"), "demo", Path::new("/w")).unwrap();
        assert_eq!(p.global, Path::new("/a/pi-ext/settings/demo.json"));
        assert_eq!(p.project, Path::new("/w/.pi/pi-ext/settings/demo.json"));
        for bad in ["", ".", "..", "a/b", "a\\b"] {
            let e = SettingsPaths::with_agent_dir(Path::new("/a"), bad, Path::new("/w"));
            assert_eq!(
                e.unwrap_err().kind(),
                io::ErrorKind::InvalidInput,
                "{bad:?}"
            );
        }
    }

    // ---- loading ---------------------------------------------------------

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

    #[test]
    fn problem_display() {
        let p = SettingsProblem {
            file: Some(PathBuf::from("x.json")),
            key: Some("font_size".into()),
            message: "300 is above the maximum 72; using the default 14".into(),
        };
        assert_eq!(
            p.to_string(),
            r#"x.json: key "font_size": 300 is above the maximum 72; using the default 14"#
        );
        let p = SettingsProblem {
            file: None,
            key: None,
            message: "m".into(),
        };
        assert_eq!(p.to_string(), "m");
        assert_eq!(
            abbreviate_home(
                Path::new("/home/ada/.pi/agent/x.json"),
                Some(Path::new("/home/ada"))
            ),
            format!("~{}.pi/agent/x.json", std::path::MAIN_SEPARATOR)
        );
        assert_eq!(
            abbreviate_home(Path::new("/etc/x"), Some(Path::new("/"))),
            "/etc/x"
        );
        assert_eq!(
            abbreviate_home(Path::new("/etc/x"), Some(Path::new("/home/a"))),
            "/etc/x"
        );
    }

    // ---- writing ---------------------------------------------------------

    #[test]
    fn write_value_creates_the_file_and_dirs() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("a/b/demo.json");
        write_value(&file, "font_size", json!(20)).unwrap();
        assert_eq!(
            fs::read_to_string(&file).unwrap(),
            "{\n  \"font_size\": 20\n}\n"
        );
        assert_eq!(fs::read_dir(file.parent().unwrap()).unwrap().count(), 1);
    }

    #[test]
    fn write_value_keeps_other_and_unknown_keys_in_order() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("demo.json");
        put(
            &file,
            r#"{"zeta": 1, "font_size": 10, "mystery": {"b": 1, "a": 2}}"#,
        );
        write_value(&file, "font_size", json!(20)).unwrap();
        write_value(&file, "banner", json!(false)).unwrap();
        assert_eq!(
            fs::read_to_string(&file).unwrap(),
            "{\n  \"zeta\": 1,\n  \"font_size\": 20,\n  \"mystery\": {\n    \"a\": 2,\n    \"b\": 1\n  },\n  \"banner\": false\n}\n"
        );
        // And it loads.
        let got = read_file(&file).unwrap().unwrap();
        assert_eq!(got["font_size"], 20);
        assert_eq!(got["mystery"], json!({"a": 2, "b": 1}));
    }

    #[test]
    fn write_value_refuses_to_clobber_a_broken_file() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("demo.json");
        put(&file, "{\"font_size\": 1,");
        let err = write_value(&file, "banner", json!(true)).unwrap_err();
        assert_eq!(err.kind(), io::ErrorKind::InvalidData);
        assert_eq!(fs::read_to_string(&file).unwrap(), "{\"font_size\": 1,");
        put(&file, "[]");
        assert!(write_value(&file, "banner", json!(true)).is_err());
        assert_eq!(fs::read_to_string(&file).unwrap(), "[]");
    }

    #[test]
    fn remove_value_resets_a_key() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("demo.json");
        assert!(!remove_value(&file, "font_size").unwrap());
        assert!(!file.exists());
        put(&file, r#"{"font_size": 10, "banner": false}"#);
        assert!(remove_value(&file, "font_size").unwrap());
        assert!(!remove_value(&file, "font_size").unwrap());
        assert_eq!(
            fs::read_to_string(&file).unwrap(),
            "{\n  \"banner\": false\n}\n"
        );
    }

    #[test]
    fn written_values_load() {
        let f = Fixture::new();
        write_value(&f.paths.global, "theme", json!("light")).unwrap();
        write_value(&f.paths.project, "editor", json!({"wrap": true})).unwrap();
        let loaded = f.load();
        assert!(loaded.problems.is_empty(), "{:#?}", loaded.problems);
        assert_eq!(loaded.value.theme, Theme::Light);
        assert!(loaded.value.editor.wrap);
        assert_eq!(loaded.value.editor.tab_size, 4);
    }

    // ---- fields ----------------------------------------------------------

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
