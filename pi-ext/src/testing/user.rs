//! The scripted user of a [`TestHost`]: answers to the dialogs the
//! extension opens, given in order before the call that opens them.

use std::collections::VecDeque;
use std::time::Duration;

use serde_json::{json, Value};

use super::host::TestHost;

/// A dialog the extension opened (`ui/dialog`), as pi would show it.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum DialogRequest {
    /// [`Ui::select`](crate::ui::Ui::select).
    Select {
        /// Its title.
        title: String,
        /// The options, as shown.
        options: Vec<String>,
        /// The option the cursor starts on.
        initial: Option<usize>,
        /// The dialog's timeout, if it has one.
        timeout: Option<Duration>,
    },
    /// [`Ui::confirm`](crate::ui::Ui::confirm).
    Confirm {
        /// Its title.
        title: String,
        /// The question.
        message: String,
        /// The dialog's timeout, if it has one.
        timeout: Option<Duration>,
    },
    /// [`Ui::input`](crate::ui::Ui::input).
    Input {
        /// Its title.
        title: String,
        /// The placeholder.
        placeholder: Option<String>,
        /// The text it starts with.
        prefill: Option<String>,
        /// The dialog's timeout, if it has one.
        timeout: Option<Duration>,
    },
    /// [`Ui::editor`](crate::ui::Ui::editor).
    Editor {
        /// Its title.
        title: String,
        /// The text it starts with.
        prefill: Option<String>,
        /// The dialog's timeout, if it has one.
        timeout: Option<Duration>,
    },
    /// [`Ui::loader`](crate::ui::Ui::loader): not a question, so the script
    /// never answers it; it stays until the extension ends it.
    Loader {
        /// Its title.
        title: String,
    },
    /// A dialog this version of the kit does not know.
    Other {
        /// Its `method`.
        method: String,
        /// Its params.
        params: Value,
    },
}

impl DialogRequest {
    /// The dialog from a `ui/dialog` request's params.
    pub(crate) fn from_params(p: &Value) -> Self {
        let text = |k: &str| p[k].as_str().unwrap_or_default().to_string();
        let opt = |k: &str| p[k].as_str().map(String::from);
        let timeout = p["timeout"].as_u64().map(Duration::from_millis);
        match p["method"].as_str().unwrap_or_default() {
            "select" => DialogRequest::Select {
                title: text("title"),
                options: serde_json::from_value(p["options"].clone()).unwrap_or_default(),
                initial: p["initial"].as_u64().map(|i| i as usize),
                timeout,
            },
            "confirm" => DialogRequest::Confirm {
                title: text("title"),
                message: text("message"),
                timeout,
            },
            "input" => DialogRequest::Input {
                title: text("title"),
                placeholder: opt("placeholder"),
                prefill: opt("prefill"),
                timeout,
            },
            "editor" => DialogRequest::Editor {
                title: text("title"),
                prefill: opt("prefill"),
                timeout,
            },
            "loader" => DialogRequest::Loader {
                title: text("title"),
            },
            other => DialogRequest::Other {
                method: other.to_string(),
                params: p.clone(),
            },
        }
    }

    /// Its title (empty for [`DialogRequest::Other`]).
    pub fn title(&self) -> &str {
        match self {
            DialogRequest::Select { title, .. }
            | DialogRequest::Confirm { title, .. }
            | DialogRequest::Input { title, .. }
            | DialogRequest::Editor { title, .. }
            | DialogRequest::Loader { title } => title,
            DialogRequest::Other { .. } => "",
        }
    }

    fn timeout(&self) -> Option<Duration> {
        match self {
            DialogRequest::Select { timeout, .. }
            | DialogRequest::Confirm { timeout, .. }
            | DialogRequest::Input { timeout, .. }
            | DialogRequest::Editor { timeout, .. } => *timeout,
            _ => None,
        }
    }

    /// How a failure message names it: `select "Deploy?" [a, b]`.
    pub(crate) fn describe(&self) -> String {
        match self {
            DialogRequest::Select { title, options, .. } => {
                format!("select {title:?} (options {options:?})")
            }
            DialogRequest::Confirm { title, message, .. } => {
                format!("confirm {title:?} ({message:?})")
            }
            DialogRequest::Input { title, .. } => format!("input {title:?}"),
            DialogRequest::Editor { title, .. } => format!("editor {title:?}"),
            DialogRequest::Loader { title } => format!("loader {title:?}"),
            DialogRequest::Other { method, params } => format!("{method} {params}"),
        }
    }
}

/// What the scripted user does with a dialog.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum DialogAnswer {
    /// Pick this option of a select.
    Select(String),
    /// Answer a confirm.
    Confirm(bool),
    /// Type this into an input or an editor.
    Text(String),
    /// Dismiss it (Escape): the dialog resolves to
    /// [`UiError::Cancelled`](crate::ui::UiError::Cancelled); a confirm to `false`, as in pi.
    Cancel,
    /// Let its timeout pass at once (a virtual clock: nothing waits); only a
    /// dialog with a timeout can time out.
    Timeout,
}

/// An entry of the script: a fixed answer or a closure over the dialog.
pub(crate) enum Step {
    Fixed(DialogAnswer),
    With(Box<dyn FnOnce(&DialogRequest) -> DialogAnswer + Send>),
}

/// The answers still to give, and what was shown.
#[derive(Default)]
pub(crate) struct Script {
    steps: VecDeque<Step>,
    pub(crate) shown: Vec<DialogRequest>,
}

impl Script {
    /// The `ui/dialog` result for `dialog`, or why the script cannot answer
    /// it. `None`: leave it open (a loader).
    pub(crate) fn answer(&mut self, dialog: DialogRequest) -> Option<Result<Value, String>> {
        self.shown.push(dialog.clone());
        if matches!(dialog, DialogRequest::Loader { .. }) {
            return None;
        }
        let Some(step) = self.steps.pop_front() else {
            return Some(Err(format!(
                "the extension opened the dialog {} and the test's scripted user has no answer left for it: \
                 script one before the call, e.g. `host.user().answers_select(..)`, `.answers_confirm(..)`, \
                 `.answers_input(..)`, `.cancels()` or `.answers_with(|dialog| ..)`",
                dialog.describe()
            )));
        };
        let answer = match step {
            Step::Fixed(a) => a,
            Step::With(f) => f(&dialog),
        };
        Some(outcome(&dialog, answer))
    }
}

/// The `ui/dialog` result of `answer`, if it fits `dialog`.
fn outcome(dialog: &DialogRequest, answer: DialogAnswer) -> Result<Value, String> {
    let value = |v: Value| Ok(json!({"outcome": "value", "value": v}));
    match (dialog, answer) {
        (_, DialogAnswer::Cancel) => match dialog {
            // pi does not tell a declined confirm from a dismissed one.
            DialogRequest::Confirm { .. } => value(json!(false)),
            _ => Ok(json!({"outcome": "cancelled"})),
        },
        (_, DialogAnswer::Timeout) if dialog.timeout().is_some() => {
            Ok(json!({"outcome": "timeout"}))
        }
        (DialogRequest::Select { options, .. }, DialogAnswer::Select(pick)) => {
            if options.contains(&pick) {
                value(json!(pick))
            } else {
                Err(format!(
                    "the scripted user picks {pick:?}, which is not an option of the dialog {}",
                    dialog.describe()
                ))
            }
        }
        (DialogRequest::Confirm { .. }, DialogAnswer::Confirm(yes)) => value(json!(yes)),
        (DialogRequest::Input { .. } | DialogRequest::Editor { .. }, DialogAnswer::Text(t)) => {
            value(json!(t))
        }
        (_, answer) => Err(format!(
            "the scripted user's next answer is {answer:?}, which does not fit the dialog {}",
            dialog.describe()
        )),
    }
}

/// The scripted user of a [`TestHost`] ([`TestHost::user`]): each answer
/// is for the next dialog the extension opens, in order. A dialog with no
/// answer left fails the call that opened it, naming the dialog.
///
/// ```
/// use pi_ext::prelude::*;
///
/// /// Deploy, after asking.
/// #[command(name = "deploy")]
/// async fn deploy(ctx: &CommandCtx) -> Result<(), Error> {
///     let env = ctx.ui().select("Where to?", ["staging", "production"]).await?;
///     if ctx.ui().confirm("Sure?", format!("deploy to {env}")).await? {
///         ctx.ui().notify(format!("deployed to {env}"), Level::Info);
///     }
///     Ok(())
/// }
///
/// # fn main() {
/// let host = pi_ext::testing::TestHost::new();
/// host.user().answers_select("staging").answers_confirm(true);
/// host.command("deploy", "").unwrap();
/// assert_eq!(host.notifications(), ["deployed to staging"]);
/// # }
/// ```
pub struct User<'a> {
    pub(crate) host: &'a TestHost,
}

impl User<'_> {
    fn push(self, step: Step) -> Self {
        self.host
            .played
            .lock()
            .unwrap()
            .script
            .steps
            .push_back(step);
        self
    }

    /// Pick `option` in the next dialog, a select (the test fails if it is
    /// not one of the options).
    pub fn answers_select(self, option: impl Into<String>) -> Self {
        self.push(Step::Fixed(DialogAnswer::Select(option.into())))
    }

    /// Answer the next dialog, a confirm.
    pub fn answers_confirm(self, yes: bool) -> Self {
        self.push(Step::Fixed(DialogAnswer::Confirm(yes)))
    }

    /// Type `text` into the next dialog, an input or an editor.
    pub fn answers_input(self, text: impl Into<String>) -> Self {
        self.push(Step::Fixed(DialogAnswer::Text(text.into())))
    }

    /// Dismiss the next dialog (Escape).
    pub fn cancels(self) -> Self {
        self.push(Step::Fixed(DialogAnswer::Cancel))
    }

    /// Let the next dialog's timeout pass (the dialog must have one).
    pub fn lets_time_out(self) -> Self {
        self.push(Step::Fixed(DialogAnswer::Timeout))
    }

    /// Answer the next dialog with what `answer` decides, seeing it.
    pub fn answers_with(
        self,
        answer: impl FnOnce(&DialogRequest) -> DialogAnswer + Send + 'static,
    ) -> Self {
        self.push(Step::With(Box::new(answer)))
    }
}
