//! The settings type the tests of every part use: every kind of field
//! (enum, bool, bounded integer and number, nested object, bounded string,
//! option, a type only deserialization checks, list), in three tabs.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use std::fs;
use std::path::Path;

use super::{load, Loaded, SettingsPaths};

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub(crate) enum Theme {
    /// Follow the terminal.
    System,
    /// Light text on dark.
    Dark,
    /// Dark text on light.
    Light,
}

/// How the editor behaves.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub(crate) struct Editor {
    /// Spaces per tab.
    #[schemars(range(min = 1, max = 16))]
    pub(crate) tab_size: u8,
    /// Wrap long lines.
    pub(crate) wrap: bool,
}

/// A name that must start with a capital letter (checked only when
/// deserializing).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(try_from = "String", into = "String")]
pub(crate) struct Capitalized(pub(crate) String);

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
pub(crate) struct Demo {
    /// Colour theme.
    #[schemars(extend("x-tab" = "Appearance"))]
    pub(crate) theme: Theme,
    /// Show the welcome banner.
    pub(crate) banner: bool,
    /// Font size in points.
    #[schemars(range(min = 6, max = 72), extend("x-tab" = "Appearance"))]
    pub(crate) font_size: u32,
    /// Editor behaviour.
    #[schemars(extend("x-tab" = "Editor"))]
    pub(crate) editor: Editor,
    /// Greeting shown at start.
    #[schemars(length(max = 20))]
    pub(crate) greeting: String,
    /// Zoom factor.
    #[schemars(range(min = 0.5, max = 4.0), extend("x-tab" = "Appearance"))]
    pub(crate) scale: f64,
    /// What to call you.
    pub(crate) nickname: Option<String>,
    /// Who signs the notes.
    pub(crate) author: Capitalized,
    /// Extra words to highlight.
    pub(crate) words: Vec<String>,
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

pub(crate) struct Fixture {
    _dir: tempfile::TempDir,
    pub(crate) paths: SettingsPaths,
}

impl Fixture {
    pub(crate) fn new() -> Self {
        let dir = tempfile::tempdir().unwrap();
        let paths = SettingsPaths::with_agent_dir(
            &dir.path().join("agent"),
            "demo",
            &dir.path().join("project"),
        )
        .unwrap();
        Fixture { _dir: dir, paths }
    }
    pub(crate) fn global(self, text: &str) -> Self {
        put(&self.paths.global, text);
        self
    }
    pub(crate) fn project(self, text: &str) -> Self {
        put(&self.paths.project, text);
        self
    }
    pub(crate) fn load(&self) -> Loaded<Demo> {
        load::<Demo>(&self.paths)
    }
}

pub(crate) fn put(file: &Path, text: &str) {
    fs::create_dir_all(file.parent().unwrap()).unwrap();
    fs::write(file, text).unwrap();
}

/// The one problem, checked to be about `key` in `file`.
pub(crate) fn only_problem<'a>(loaded: &'a Loaded<Demo>, file: &Path, key: &str) -> &'a str {
    assert_eq!(loaded.problems.len(), 1, "{:#?}", loaded.problems);
    let p = &loaded.problems[0];
    assert_eq!(p.file.as_deref(), Some(file));
    assert_eq!(p.key.as_deref(), Some(key));
    &p.message
}
