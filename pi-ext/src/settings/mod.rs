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
//! - gives the extension a generated `/<name>-settings` command that edits
//!   them with dialogs ([editing](self#editing-name-settings)).
//!
//! Tools, hooks and commands read the settings with [`crate::Ctx::settings`]
//! (fresh from the files on every call), `on_load` with
//! [`crate::registry::lifecycle::LoadCtx::settings`].
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
//! The agent dir is `$PI_CODING_AGENT_DIR` or `~/.pi/agent`, as pi finds
//! it. These files belong to pi-ext, not to pi
//! (pi's own `settings.json` is never read or written), and each holds one
//! JSON object with the settings that differ from the defaults. Both are
//! optional.
//!
//! ### Limits
//!
//! A project's settings file comes with the project, so it is not trusted
//! further than its contents: only a **regular file** is read (a symlink is
//! followed only when it points to one), of at most [`MAX_FILE_SIZE`]
//! (**1 MiB**), opened without blocking. A FIFO, a device (such as a
//! symlink to `/dev/zero`), a directory or a larger file is a
//! [`SettingsProblem`] ("not a regular file (a FIFO)", "larger than 1 MiB")
//! like any other: that file is ignored and the defaults (or the global
//! values) are used. Both files are held to these limits, and the text
//! must be UTF-8.
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
//! [`settings_schema`] is the portable draft-07 schema ([`crate::tool::schema`])
//! (no `$ref`, `Option<T>` as plain `T`, unit enums as string `enum`s,
//! integer formats as `minimum`/`maximum`), adapted for a settings file
//! edited by hand:
//!
//! - it **keeps** `"$schema": "http://json-schema.org/draft-07/schema#"` at
//!   the top, so editors know the dialect (settings schemas are for editors
//!   and this module, never sent to a model, so [`crate::tool::schema::lint`]'s
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

//!
//! ## Problems while pi runs
//!
//! The problems found when the extension starts are shown to the user then.
//! [`crate::Ctx::settings`] reads the files again on every call; problems it
//! finds that were not shown before (a file edited into something invalid
//! while pi runs) are shown once, as a warning notification, and written to
//! the extension's log. The last shown set is kept per extension, so a
//! problem that is fixed and comes back is shown again.
//!
//! ## Editing: `/<name>-settings`
//!
//! An extension that declares settings gets the command `/<name>-settings`.
//! It lists every field with its current value, grouped by tab, and edits
//! the one picked with the fitting dialog: a select for enums (starting on
//! the current value), a confirm for booleans, an input checked against the
//! schema for numbers, text and JSON values (asking again, with the reason,
//! on invalid input). The input's title shows the current value (`greeting:
//! The greeting word. (now "Hello"; Enter keeps it)`), and **Enter on an
//! empty input keeps it**: nothing is written. (To set a text field to the
//! empty string, type `""`.) After a refused answer the input starts with
//! it, to correct; Enter on it unchanged keeps the current value too. A
//! value equal to the current one is not written either. Values go to the **global** file, keeping every other key
//! (unknown ones included) and the order of the keys; a project file still
//! overrides them. The list comes back with the cursor on the field just
//! edited, until "Done" or a dismissed list.
//!
//! ## Parts
//!
//! One job per file: `paths` (where the files are), `read` (reading one file
//! within the limits), `schema` and `tabs` (the settings schema), `check`
//! (the JSON Schema subset the values are checked against), `load` (the
//! layered, lenient merge), `ordered` and `write` (changing one key of a
//! file, keeping the others in order, written atomically), `problem`
//! (what is reported), `fields` and `editor` (the `/<name>-settings`
//! command), and `registered` (the settings of an `#[extension]`: the one
//! way the runtime loads them, and what the user was shown).

mod check;
pub(crate) mod editor;
mod fields;
mod load;
mod ordered;
mod paths;
mod problem;
mod read;
pub(crate) mod registered;
mod schema;
mod tabs;
mod write;

#[cfg(test)]
mod fixtures;

pub use load::{load, Loaded};
pub use paths::SettingsPaths;
pub use problem::SettingsProblem;
pub use read::MAX_FILE_SIZE;
pub use schema::settings_schema;
pub use tabs::{GENERAL_TAB, TABS_KEY, TAB_KEY};
