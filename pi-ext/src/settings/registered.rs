//! The settings of an `#[extension]`: the one way the runtime loads them,
//! and which of their problems the user has been shown.
//!
//! Everything goes through [`load`](super::load); this part finds the
//! extension that declares a settings type and its files. The problems found
//! when the extension starts are shown then (the dispatcher puts them in the
//! manifest, through [`load_json`]); [`read_in_call`] shows those that
//! appear later, once each. What was shown is kept per settings source in
//! the connection's state (a hot reload starts a new one).

use std::any::TypeId;
use std::collections::HashMap;
use std::path::Path;
use std::sync::Mutex;

use schemars::JsonSchema;
use serde::de::DeserializeOwned;
use serde::Serialize;

use super::{load, Loaded, SettingsPaths, SettingsProblem};
use crate::context::Ctx;
use crate::host::connection::Shared;
use crate::host::ui::Level;
use crate::registry::ExtensionEntry;

/// What the settings types of extensions are bound by.
pub(crate) trait SettingsType: DeserializeOwned + Default + Serialize + JsonSchema {}
impl<T: DeserializeOwned + Default + Serialize + JsonSchema> SettingsType for T {}

/// Which problems the user now knows: `shown` holds, per settings source
/// (the connection's `settings_shown`), those last shown; returns those of
/// `problems` that were not, and keeps `problems` as the last shown.
fn newly_shown(
    shown: &Mutex<HashMap<String, Vec<String>>>,
    source: String,
    problems: &[String],
) -> Vec<String> {
    let mut shown = shown.lock().unwrap_or_else(|e| e.into_inner());
    let last = shown.insert(source, problems.to_vec()).unwrap_or_default();
    problems
        .iter()
        .filter(|p| !last.contains(p))
        .cloned()
        .collect()
}

/// The key of an extension's settings files in a session in `cwd` (they
/// follow from the two).
fn files_of(extension: &str, cwd: &Path) -> String {
    format!("{extension}\0{}", cwd.display())
}

/// The extension whose `#[extension(settings = T)]` names `T`.
fn declaring<T: 'static>() -> Option<&'static ExtensionEntry> {
    inventory::iter::<ExtensionEntry>().find(|e| {
        e.settings
            .as_ref()
            .is_some_and(|s| (s.type_id)() == TypeId::of::<T>())
    })
}

fn defaults_because<T: Default>(why: String) -> Loaded<T> {
    Loaded {
        value: T::default(),
        problems: vec![SettingsProblem::new(None, None, why)],
    }
}

/// The settings `T` of the extension that declares them, in a session in
/// `cwd`: its name, the key of where they were read from, and what was read.
fn find_and_load<T: SettingsType + 'static>(cwd: &Path) -> (&'static str, String, Loaded<T>) {
    let Some(entry) = declaring::<T>() else {
        let ty = std::any::type_name::<T>();
        let why = format!("no #[extension] declares `settings = {ty}`; using the defaults");
        return ("pi-ext", ty.to_string(), defaults_because(why));
    };
    let source = files_of(entry.name, cwd);
    match SettingsPaths::for_extension(entry.name, cwd) {
        Ok(paths) => (entry.name, source, load(&paths)),
        Err(e) => {
            let why = format!("cannot locate the settings files ({e}); using the defaults");
            (entry.name, source, defaults_because(why))
        }
    }
}

// The settings readers of the contexts live here, with the settings, so
// that the contexts (below) do not import the settings (above).
impl crate::context::LoadCtx {
    /// The extension's settings, as [`Ctx::settings`] reads them (the
    /// problems are shown when loading is done).
    pub fn settings<T>(&self) -> T
    where
        T: DeserializeOwned + Default + Serialize + JsonSchema + 'static,
    {
        find_and_load(self.cwd()).2.value
    }
}

impl Ctx {
    /// The settings of the extension that declared `settings = T`, read
    /// fresh from its files on every call (so edits made while pi runs,
    /// including with the generated `/<name>-settings` command, are seen at
    /// once). Invalid values fall back to defaults; problems not shown
    /// before are shown once, as a warning. See [`crate::settings`].
    pub fn settings<T>(&self) -> T
    where
        T: DeserializeOwned + Default + Serialize + JsonSchema + 'static,
    {
        let (extension, source, loaded) = find_and_load::<T>(self.cwd());
        let problems: Vec<String> = loaded.problems.iter().map(ToString::to_string).collect();
        let fresh = newly_shown(&self.shared().settings_shown, source, &problems);
        if !fresh.is_empty() {
            let ui = self.ui();
            for p in fresh {
                let message = format!("{extension} settings: {p}");
                crate::util::logging::warn(&message);
                ui.notify(message, Level::Warning);
            }
        }
        loaded.value
    }
}

/// `SettingsDecl::problems`, which the dispatcher calls when the extension
/// `name` starts: what is wrong with its settings files (it runs with the
/// defaults for those values). The dispatcher reports these to the user and
/// marks them shown ([`shown_at_start`]).
pub(crate) fn startup_problems<T: SettingsType>(name: &str, cwd: &Path) -> Vec<String> {
    match SettingsPaths::for_extension(name, cwd) {
        Ok(paths) => load::<T>(&paths)
            .problems
            .iter()
            .map(ToString::to_string)
            .collect(),
        Err(e) => vec![format!(
            "cannot locate the settings files ({e}); using the defaults"
        )],
    }
}

/// The user was told `problems` of extension `name`'s settings when it
/// started, on the connection whose state is `shared`.
pub(crate) fn shown_at_start(shared: &Shared, name: &str, cwd: &Path, problems: &[String]) {
    newly_shown(&shared.settings_shown, files_of(name, cwd), problems);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_problem_is_shown_until_it_goes_and_again_when_it_comes_back() {
        let shown = Mutex::default();
        let list = |ps: &[&str]| -> Vec<String> { ps.iter().map(|p| p.to_string()).collect() };
        let x = || files_of("x", Path::new("/registered-test"));
        assert_eq!(newly_shown(&shown, x(), &list(&["a"])), ["a"]);
        assert!(newly_shown(&shown, x(), &list(&["a"])).is_empty());
        // Per source.
        let y = files_of("y", Path::new("/registered-test"));
        assert_eq!(newly_shown(&shown, y, &list(&["a"])), ["a"]);
        assert_eq!(newly_shown(&shown, x(), &list(&["a", "b"])), ["b"]);
        assert!(newly_shown(&shown, x(), &[]).is_empty());
        assert_eq!(newly_shown(&shown, x(), &list(&["b"])), ["b"]);
        // Per connection: another's record is its own.
        assert_eq!(newly_shown(&Mutex::default(), x(), &list(&["b"])), ["b"]);
    }
}
