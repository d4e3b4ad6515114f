//! Slash commands, run as pi runs them (`command/call`), and their
//! argument completions as pi's terminal lists them.

use serde_json::json;

use super::host::TestHost;
use crate::command::Suggestion;
use crate::data::manifest::CommandManifest;

impl TestHost {
    /// Run `/name args` as pi would, with the dialogs it opens answered by
    /// the [scripted user](TestHost::user); its UI calls are recorded
    /// ([`TestHost::ui_calls`]).
    ///
    /// Panics when the binary has no such command, and when a dialog is
    /// left unanswered.
    ///
    /// ```
    /// use pi_ext::prelude::*;
    ///
    /// /// Count the words of the arguments.
    /// #[command(name = "words")]
    /// async fn words(ctx: &CommandCtx, args: String) -> Result<(), Error> {
    ///     if args.trim().is_empty() {
    ///         return Err(Error::new("give some words"));
    ///     }
    ///     ctx.ui().notify(format!("{} words", args.split_whitespace().count()), Level::Info);
    ///     Ok(())
    /// }
    ///
    /// # fn main() {
    /// let host = pi_ext::testing::TestHost::new();
    /// host.command("words", "one two three").unwrap();
    /// assert_eq!(host.notifications(), ["3 words"]);
    /// assert_eq!(host.command("words", " ").unwrap_err(), "give some words");
    /// # }
    /// ```
    ///
    /// # Errors
    ///
    /// The command's error message (pi shows it as an error).
    pub fn command(&self, name: &str, args: &str) -> Result<(), String> {
        self.command_named(name);
        self.played_request(
            "command/call",
            json!({"command": name, "args": args, "session": 1}),
            &format!("the command `/{name}`"),
        )
        .map(drop)
        .map_err(|e| e.message)
    }

    /// Press `key` in pi's terminal: run the [`#[shortcut]`](macro@crate::shortcut)
    /// (or the `#[command(shortcut = ..)]`, without arguments) it belongs to.
    ///
    /// ```
    /// use pi_ext::prelude::*;
    ///
    /// /// Say hello.
    /// #[shortcut("ctrl+shift+h")]
    /// async fn hello(ctx: &CommandCtx) {
    ///     ctx.ui().notify("hello", Level::Info);
    /// }
    ///
    /// # fn main() {
    /// let host = pi_ext::testing::TestHost::new();
    /// host.shortcut("ctrl+shift+h").unwrap();
    /// assert_eq!(host.notifications(), ["hello"]);
    /// # }
    /// ```
    ///
    /// Panics when no shortcut has that key.
    ///
    /// # Errors
    ///
    /// The handler's error message (pi shows it as an error).
    pub fn shortcut(&self, key: &str) -> Result<(), String> {
        let Some(command) = self
            .manifest
            .commands
            .iter()
            .find(|c| c.shortcut.as_deref() == Some(key))
        else {
            let keys: Vec<&str> = self
                .manifest
                .commands
                .iter()
                .filter_map(|c| c.shortcut.as_deref())
                .collect();
            panic!("this binary has no shortcut `{key}` (it has {keys:?})")
        };
        self.played_request(
            "command/call",
            json!({"command": command.name, "args": "", "session": 1}),
            &format!("the shortcut `{key}`"),
        )
        .map(drop)
        .map_err(|e| e.message)
    }

    /// The argument completions pi's terminal lists for `/name prefix`:
    /// the command's fixed `completions` that start with `prefix`, or what
    /// its `completions = f` computes. Empty when it has none.
    ///
    /// ```
    /// use pi_ext::prelude::*;
    ///
    /// /// Switch the environment.
    /// #[command(name = "env", completions = ["staging", "production"])]
    /// async fn env(_ctx: &CommandCtx, _args: String) {}
    ///
    /// # fn main() {
    /// let host = pi_ext::testing::TestHost::new();
    /// let values: Vec<String> = host.completions("env", "st").into_iter().map(|s| s.value).collect();
    /// assert_eq!(values, ["staging"]);
    /// # }
    /// ```
    pub fn completions(&self, name: &str, prefix: &str) -> Vec<Suggestion> {
        let command = self.command_named(name);
        if !command.dynamic_completions {
            return command
                .completions
                .iter()
                .filter(|c| c.starts_with(prefix))
                .map(|c| Suggestion::new(c.as_str()))
                .collect();
        }
        match self.played_request(
            "command/complete",
            json!({"command": name, "prefix": prefix}),
            &format!("the completions of `/{name}`"),
        ) {
            Ok(items) => serde_json::from_value(items)
                .unwrap_or_else(|e| panic!("the completions of `/{name}` do not decode: {e}")),
            // pi shows no list for a command that computes none.
            Err(e) if e.code == crate::wire::codes::METHOD_NOT_FOUND => Vec::new(),
            Err(e) => panic!("the completions of `/{name}` failed: {}", e.message),
        }
    }

    pub(super) fn command_named(&self, name: &str) -> &CommandManifest {
        self.manifest
            .commands
            .iter()
            .find(|c| c.name == name)
            .unwrap_or_else(|| {
                let names: Vec<&str> = self.manifest.commands.iter().map(|c| &*c.name).collect();
                panic!("this binary has no command `/{name}` (it has {names:?})")
            })
    }
}
