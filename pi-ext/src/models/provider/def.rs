//! [`ProviderDef`]: a provider's configuration, its models and the Rust
//! stream that answers them.

use std::collections::BTreeMap;
use std::sync::Arc;

use futures_core::Stream;

use super::event::{ProviderError, ProviderEvent};
use super::request::ProviderRequest;
use super::stream::ProviderStream;
use crate::data::manifest::ModelDef;
use crate::data::manifest::ProviderManifest;

/// The function that answers a provider's requests.
pub type StreamFn = Arc<dyn Fn(ProviderRequest) -> ProviderStream + Send + Sync>;

/// A provider, ready to register with pi: its name, models and stream
/// function. Register it with [`crate::provider!`] or
/// [`crate::registry::Registry::provider`].
#[derive(Clone)]
pub struct ProviderDef {
    pub(crate) name: String,
    pub(crate) display_name: Option<String>,
    pub(crate) base_url: Option<String>,
    pub(crate) api_key: Option<String>,
    pub(crate) api: Option<String>,
    pub(crate) headers: BTreeMap<String, String>,
    pub(crate) auth_header: bool,
    pub(crate) models: Vec<ModelDef>,
    pub(crate) stream: Option<StreamFn>,
    pub(crate) oauth: Option<crate::models::oauth::OAuthDef>,
    pub(crate) refresh_models: Option<crate::models::oauth::RefreshModelsFn>,
    pub(crate) replaces_builtin: bool,
}

impl std::fmt::Debug for ProviderDef {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ProviderDef")
            .field("name", &self.name)
            .field("models", &self.models)
            .finish_non_exhaustive()
    }
}

impl ProviderDef {
    /// A provider named `name` (`--provider <name>`).
    pub fn new(name: impl Into<String>) -> Self {
        Self {
            name: name.into(),
            display_name: None,
            base_url: None,
            api_key: None,
            api: None,
            headers: BTreeMap::new(),
            auth_header: false,
            models: Vec::new(),
            stream: None,
            oauth: None,
            refresh_models: None,
            replaces_builtin: false,
        }
    }

    /// Allow the name of one of pi's built-in providers (`anthropic`,
    /// `openai`, …). Without it the bridge refuses such a provider with an
    /// error, at start and at run time: pi would hand a Rust stream the key
    /// it stores for the built-in provider (`auth.json`,
    /// `ANTHROPIC_API_KEY`, …), a Rust login would replace the built-in's,
    /// and for a provider that is only configuration pi's own code would
    /// send that key to the `base_url` the extension names.
    pub fn replaces_builtin(mut self) -> Self {
        self.replaces_builtin = true;
        self
    }

    /// The provider's name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The name pi shows.
    pub fn display_name(mut self, name: impl Into<String>) -> Self {
        self.display_name = Some(name.into());
        self
    }

    /// The endpoint, shown by pi and passed in each request's
    /// [`ModelInfo::base_url`](crate::models::ModelInfo::base_url) (default `pi-ext:<name>`).
    pub fn base_url(mut self, url: impl Into<String>) -> Self {
        self.base_url = Some(url.into());
        self
    }

    /// Read the API key from this environment variable (or, as pi does for
    /// any provider, `auth.json`). Works with every supported pi: the
    /// bridge writes it as the host pi reads a variable (`$NAME` since pi
    /// 0.77, the bare name before).
    pub fn api_key_env(mut self, var: impl Into<String>) -> Self {
        self.api_key = Some(format!("${}", var.into()));
        self
    }

    /// pi's `apiKey` setting as is, in pi ≥ 0.77's syntax: `$NAME` for an
    /// environment variable, a `!command` whose output is the key, or the
    /// key itself.
    pub fn api_key(mut self, config: impl Into<String>) -> Self {
        self.api_key = Some(config.into());
        self
    }

    /// pi's name for the provider's API (default `pi-ext:<name>`). pi keys
    /// stream functions by API: two providers with one API replace each other.
    /// Without a stream, the API pi's own implementation answers with
    /// (`"openai-completions"`, `"anthropic-messages"`, …).
    pub fn api(mut self, api: impl Into<String>) -> Self {
        self.api = Some(api.into());
        self
    }

    /// A header pi passes in [`ProviderOptions::headers`](super::ProviderOptions::headers).
    pub fn header(mut self, name: impl Into<String>, value: impl Into<String>) -> Self {
        self.headers.insert(name.into(), value.into());
        self
    }

    /// Have pi add `Authorization: Bearer <key>` to the headers.
    pub fn auth_header(mut self) -> Self {
        self.auth_header = true;
        self
    }

    /// Add a model.
    pub fn model(mut self, model: ModelDef) -> Self {
        self.models.push(model);
        self
    }

    /// The function that answers requests: takes the request, returns the
    /// stream of its answer (see [`channel`](super::channel)). Without one, pi's own
    /// implementation of [`ProviderDef::api`] answers.
    pub fn stream<F, S>(mut self, f: F) -> Self
    where
        F: Fn(ProviderRequest) -> S + Send + Sync + 'static,
        S: Stream<Item = Result<ProviderEvent, ProviderError>> + Send + 'static,
    {
        self.stream = Some(Arc::new(move |req| ProviderStream::from_stream(f(req))));
        self
    }

    /// What is wrong with it, if anything.
    pub(crate) fn problem(&self) -> Option<String> {
        let valid = !self.name.is_empty()
            && self
                .name
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.'));
        if !valid {
            return Some(format!(
                "provider `{}` skipped: names are letters, digits, `-`, `_` and `.`",
                self.name
            ));
        }
        if self.stream.is_none() {
            let Some(api) = self.api.as_deref().filter(|a| !a.starts_with("pi-ext:")) else {
                return Some(format!(
                    "provider `{}` skipped: it has no stream function (`.stream(..)`) and names \
                     none of pi's APIs (`.api(\"openai-completions\")`, …) to answer with",
                    self.name
                ));
            };
            if self.base_url.is_none() {
                return Some(format!(
                    "provider `{}` skipped: pi's `{api}` needs the endpoint (`.base_url(..)`)",
                    self.name
                ));
            }
        }
        if self.models.is_empty() {
            return Some(format!(
                "provider `{}` skipped: it has no models (`.model(..)`)",
                self.name
            ));
        }
        None
    }

    /// Its manifest entry: pi's `registerProvider` configuration without the
    /// stream function.
    pub(crate) fn manifest(&self) -> ProviderManifest {
        ProviderManifest {
            name: self.name.clone(),
            display_name: self.display_name.clone(),
            base_url: self
                .base_url
                .clone()
                .unwrap_or_else(|| format!("pi-ext:{}", self.name)),
            // pi requires a key setting for models unless there is a login;
            // without one, a literal that is no environment variable's name.
            api_key: self.api_key.clone().unwrap_or_else(|| {
                if self.oauth.is_some() {
                    String::new()
                } else {
                    "pi-ext-no-key".into()
                }
            }),
            api: self
                .api
                .clone()
                .unwrap_or_else(|| format!("pi-ext:{}", self.name)),
            headers: self.headers.clone(),
            auth_header: self.auth_header,
            models: self.models.clone(),
            config_only: self.stream.is_none(),
            oauth: self.oauth.as_ref().map(|o| o.manifest.clone()),
            refresh_models: self.refresh_models.is_some(),
            replaces_builtin: self.replaces_builtin,
        }
    }
}
