//! [`Error`]: the one error type of tools, hooks, commands and `on_load`.

use std::fmt::Display;

/// What went wrong in a tool, hook, command or `on_load`. pi reports it to
/// the model (a tool's error result, `isError: true`) or to the user (a
/// failed command or hook, an extension that could not load), with
/// [`Error::message`] as the text.
///
/// Anything that implements [`Display`] converts into it with `?` or
/// `.into()`: `anyhow::Error`, `Box<dyn Error>`, `std::io::Error`, `String`,
/// `&str`, pi-ext's own [`ApiError`](crate::host::api::ApiError) and
/// [`UiError`](crate::host::ui::UiError), your own error types.
///
/// `Error` itself deliberately does not implement `Display`/`std::error::Error`
/// (as `anyhow::Error` does not), which is what makes that blanket
/// conversion possible.
#[derive(Debug, Clone, PartialEq)]
pub struct Error {
    message: String,
}

impl Error {
    /// An error with this message.
    pub fn new(message: impl Into<String>) -> Self {
        Self {
            message: message.into(),
        }
    }

    /// The text pi shows.
    pub fn message(&self) -> &str {
        &self.message
    }
}

impl<E: Display> From<E> for Error {
    fn from(e: E) -> Self {
        // `{:#}` prints anyhow's context chain ("outer: inner") and is the
        // same as `{}` for every other type.
        Error::new(format!("{e:#}"))
    }
}
