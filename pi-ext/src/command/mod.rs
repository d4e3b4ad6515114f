//! Slash commands: argument parsing and results for `#[command]` functions.
//!
//! ```no_run
//! use pi_ext::prelude::*;
//! use pi_ext::command::Parsed;
//!
//! /// Roll a die with N sides (default 6).
//! #[command(completions = ["6", "20"])]
//! async fn roll(ctx: &CommandCtx, sides: Option<Parsed<u32>>) -> Result<(), Error> {
//!     let sides = sides.map(|p| p.0).unwrap_or(6);
//!     ctx.ui().notify(format!("rolled a d{sides}"), Level::Info);
//!     Ok(())
//! }
//! # fn main() {}
//! ```
//!
//! A command's argument (everything after `/name `) can be taken as
//! `String` (raw), `Option<String>` (`None` when empty), `Vec<String>`
//! (split on whitespace), `Parsed<T>` / `Option<Parsed<T>>` for any
//! `T: FromStr` — or left out. A parse failure is reported to the user
//! (pi shows it as an extension error) and the handler does not run.

#[doc(hidden)]
pub mod session_change;

mod suggestion;

pub use suggestion::Suggestion;

use std::fmt::Display;
use std::str::FromStr;

/// The future a hook or command handler returns: the hook's JSON result for
/// pi, or an error message.
pub type HandlerFuture = std::pin::Pin<
    Box<dyn std::future::Future<Output = Result<serde_json::Value, String>> + Send + 'static>,
>;

/// The future of a `completions = f` function: the [`Suggestion`]s pi's
/// terminal UI lists for the typed argument.
pub type CompletionFuture =
    std::pin::Pin<Box<dyn std::future::Future<Output = Vec<Suggestion>> + Send + 'static>>;

/// An argument parsed with [`FromStr`]: `Parsed<u32>`, `Parsed<MyEnum>`…
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Parsed<T>(pub T);

/// Types a command's argument string converts into.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot hold a command's arguments",
    label = "unsupported argument type",
    note = "use `String`, `Option<String>`, `Vec<String>`, `Parsed<T>` or `Option<Parsed<T>>` with `T: FromStr`"
)]
pub trait FromArgs: Sized + Send + 'static {
    /// Convert the raw text after `/name `.
    ///
    /// # Errors
    ///
    /// A message saying what is wrong with the arguments; pi shows it to the user.
    fn from_args(raw: &str) -> Result<Self, String>;
}

impl FromArgs for String {
    fn from_args(raw: &str) -> Result<Self, String> {
        Ok(raw.to_string())
    }
}

impl FromArgs for Vec<String> {
    fn from_args(raw: &str) -> Result<Self, String> {
        Ok(raw.split_whitespace().map(str::to_string).collect())
    }
}

impl FromArgs for Option<String> {
    fn from_args(raw: &str) -> Result<Self, String> {
        let t = raw.trim();
        Ok((!t.is_empty()).then(|| t.to_string()))
    }
}

impl<T> FromArgs for Parsed<T>
where
    T: FromStr + Send + 'static,
    T::Err: Display,
{
    fn from_args(raw: &str) -> Result<Self, String> {
        raw.trim()
            .parse()
            .map(Parsed)
            .map_err(|e| format!("invalid argument {:?}: {e}", raw.trim()))
    }
}

impl<T> FromArgs for Option<Parsed<T>>
where
    T: FromStr + Send + 'static,
    T::Err: Display,
{
    fn from_args(raw: &str) -> Result<Self, String> {
        if raw.trim().is_empty() {
            Ok(None)
        } else {
            Parsed::from_args(raw).map(Some)
        }
    }
}

/// What a command function may return: `()` or `Result<(), E>` where
/// `E: Into<Error>` (anything `Display`, or `Error`).
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a valid return type for a pi command",
    label = "unsupported command return type",
    note = "return `()` or `Result<(), E>` with `E: Display` (e.g. `Error`, `anyhow::Error`); show output with `ctx.ui()`"
)]
pub trait CommandReturn {
    /// The outcome: an error message makes pi report an extension error.
    ///
    /// # Errors
    ///
    /// The command's error message; pi shows it to the user.
    fn into_result(self) -> Result<(), String>;
}

impl CommandReturn for () {
    fn into_result(self) -> Result<(), String> {
        Ok(())
    }
}

impl<E: Into<crate::Error>> CommandReturn for Result<(), E> {
    fn into_result(self) -> Result<(), String> {
        self.map_err(|e| e.into().message().to_string())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn argument_kinds() {
        assert_eq!(String::from_args(" a b ").unwrap(), " a b ");
        assert_eq!(Vec::<String>::from_args(" a  b ").unwrap(), ["a", "b"]);
        assert_eq!(Option::<String>::from_args("  ").unwrap(), None);
        assert_eq!(Parsed::<u8>::from_args(" 7 ").unwrap(), Parsed(7));
        let err = Parsed::<u8>::from_args("300").unwrap_err();
        assert!(err.contains("\"300\""), "{err}");
        assert_eq!(Option::<Parsed<u8>>::from_args("").unwrap(), None);
    }
}
