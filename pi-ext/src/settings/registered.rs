//! The settings of an `#[extension]`: the one way the runtime loads them.
//! Everything goes through [`load`](super::load); this part finds the
//! extension that declares a settings type, and its files.

use std::any::TypeId;
use std::path::Path;

use schemars::JsonSchema;
use serde::de::DeserializeOwned;
use serde::Serialize;
use serde_json::Value;

use super::{load, Loaded, SettingsPaths, SettingsProblem};
use crate::context::Ctx;
use crate::lifecycle::ExtensionEntry;

/// What the settings types of extensions are bound by.
pub(crate) trait SettingsType: DeserializeOwned + Default + Serialize + JsonSchema {}
impl<T: DeserializeOwned + Default + Serialize + JsonSchema> SettingsType for T {}

/// The extension whose `#[extension(settings = T)]` names `T`.
fn declaring<T: 'static>() -> Option<&'static ExtensionEntry> {
    inventory::iter::<ExtensionEntry>().find(|e| {
        e.settings
            .as_ref()
            .is_some_and(|s| (s.type_id)() == TypeId::of::<T>())
    })
}

/// The settings `T` of the extension `name` in a session in `cwd`.
fn load_for<T: SettingsType>(name: &str, cwd: &Path) -> Loaded<T> {
    match SettingsPaths::for_extension(name, cwd) {
        Ok(paths) => load(&paths),
        Err(e) => Loaded {
            value: T::default(),
            problems: vec![SettingsProblem::new(
                None,
                None,
                format!("cannot locate the settings files ({e}); using the defaults"),
            )],
        },
    }
}

/// The settings `T` of the extension that declares them, in a session in
/// `cwd`; the defaults, with a problem, when none does.
pub(crate) fn load_declared<T: SettingsType + 'static>(cwd: &Path) -> Loaded<T> {
    match declaring::<T>() {
        Some(entry) => load_for(entry.name, cwd),
        None => Loaded {
            value: T::default(),
            problems: vec![SettingsProblem::new(
                None,
                None,
                format!(
                    "no #[extension] declares `settings = {}`; using the defaults",
                    std::any::type_name::<T>()
                ),
            )],
        },
    }
}

/// [`crate::Ctx::settings`]: the settings, read now, with their problems
/// logged.
pub(crate) fn read_in_call<T: SettingsType + 'static>(ctx: &Ctx) -> T {
    let loaded = load_declared::<T>(ctx.cwd());
    for p in &loaded.problems {
        crate::dispatch::log(&p.to_string());
    }
    loaded.value
}

/// `SettingsDecl::load`: the settings `T` from `paths` as JSON, and the
/// problems as text (the runtime reports them when the extension starts).
pub(crate) fn load_json<T: SettingsType>(paths: &SettingsPaths) -> (Value, Vec<String>) {
    let loaded = load::<T>(paths);
    (
        serde_json::to_value(loaded.value).unwrap_or(Value::Null),
        loaded.problems.iter().map(ToString::to_string).collect(),
    )
}
