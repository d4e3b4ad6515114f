//! The settings of an `#[extension]`: the one way the runtime loads them,
//! and which of their problems the user has been shown.
//!
//! Everything goes through [`load`](super::load); this part finds the
//! extension that declares a settings type and its files. The problems found
//! when the extension starts are shown then (the dispatcher puts them in the
//! manifest, through [`load_json`]); [`read_in_call`] shows those that
//! appear later, once each. What was shown is kept per settings source for
//! the life of the process (a hot reload starts a new one).

use std::any::TypeId;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use schemars::JsonSchema;
use serde::de::DeserializeOwned;
use serde::Serialize;

use super::{load, Loaded, SettingsPaths, SettingsProblem};
use crate::context::Ctx;
use crate::registry::ExtensionEntry;
use crate::ui::Level;

/// What the settings types of extensions are bound by.
pub(crate) trait SettingsType: DeserializeOwned + Default + Serialize + JsonSchema {}
impl<T: DeserializeOwned + Default + Serialize + JsonSchema> SettingsType for T {}

/// Where settings were read from, as the user's problems are kept.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Source {
    /// An extension's two files.
    Files(SettingsPaths),
    /// An extension whose files could not be located (no home directory).
    Unlocated { extension: String, cwd: PathBuf },
    /// A settings type no `#[extension]` declares (a mistake in the code).
    Undeclared(&'static str),
}

/// Per source, the problems the user was last shown.
static SHOWN: Mutex<Vec<(Source, Vec<String>)>> = Mutex::new(Vec::new());

/// Note that the user now knows `problems` of `source`; returns those that
/// were not shown last time.
fn newly_shown(source: Source, problems: &[String]) -> Vec<String> {
    let mut shown = SHOWN.lock().unwrap_or_else(|e| e.into_inner());
    let fresh: Vec<String> = match shown.iter_mut().find(|(s, _)| *s == source) {
        Some((_, last)) => {
            let fresh = problems
                .iter()
                .filter(|p| !last.contains(p))
                .cloned()
                .collect();
            *last = problems.to_vec();
            fresh
        }
        None => {
            shown.push((source, problems.to_vec()));
            problems.to_vec()
        }
    };
    fresh
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
/// `cwd`: its name, where they were read from, and what was read.
fn find_and_load<T: SettingsType + 'static>(cwd: &Path) -> (&'static str, Source, Loaded<T>) {
    let Some(entry) = declaring::<T>() else {
        let ty = std::any::type_name::<T>();
        let why = format!("no #[extension] declares `settings = {ty}`; using the defaults");
        return ("pi-ext", Source::Undeclared(ty), defaults_because(why));
    };
    match SettingsPaths::for_extension(entry.name, cwd) {
        Ok(paths) => {
            let loaded = load(&paths);
            (entry.name, Source::Files(paths), loaded)
        }
        Err(e) => {
            let source = Source::Unlocated {
                extension: entry.name.to_string(),
                cwd: cwd.to_path_buf(),
            };
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
        let fresh = newly_shown(source, &problems);
        if !fresh.is_empty() {
            let ui = self.ui();
            for p in fresh {
                let message = format!("{extension} settings: {p}");
                crate::logging::warn(&message);
                ui.notify(message, Level::Warning);
            }
        }
        loaded.value
    }
}

/// `SettingsDecl::problems`, which the dispatcher calls when the extension
/// `name` starts: what is wrong with its settings files (it runs with the
/// defaults for those values). The dispatcher reports these to the user, so
/// they count as shown.
pub(crate) fn startup_problems<T: SettingsType>(name: &str, cwd: &Path) -> Vec<String> {
    match SettingsPaths::for_extension(name, cwd) {
        Ok(paths) => {
            let loaded = load::<T>(&paths);
            let problems: Vec<String> = loaded.problems.iter().map(ToString::to_string).collect();
            newly_shown(Source::Files(paths), &problems);
            problems
        }
        Err(e) => vec![format!(
            "cannot locate the settings files ({e}); using the defaults"
        )],
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn source(n: &str) -> Source {
        Source::Files(
            SettingsPaths::with_agent_dir(Path::new("/a"), n, Path::new("/registered-test"))
                .unwrap(),
        )
    }

    #[test]
    fn a_problem_is_shown_until_it_goes_and_again_when_it_comes_back() {
        let list = |ps: &[&str]| -> Vec<String> { ps.iter().map(|p| p.to_string()).collect() };
        assert_eq!(newly_shown(source("x"), &list(&["a"])), ["a"]);
        assert!(newly_shown(source("x"), &list(&["a"])).is_empty());
        // Per source.
        assert_eq!(newly_shown(source("y"), &list(&["a"])), ["a"]);
        assert_eq!(newly_shown(source("x"), &list(&["a", "b"])), ["b"]);
        assert!(newly_shown(source("x"), &[]).is_empty());
        assert_eq!(newly_shown(source("x"), &list(&["b"])), ["b"]);
    }
}
