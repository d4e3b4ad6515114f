//! [`Delegation`]: a Rust provider hands one request to one of pi's own API
//! implementations (pi-ai's `anthropic-messages`, `openai-responses`, …)
//! with its own endpoint, headers and key, as pi's custom-provider-gitlab-duo
//! does with `anthropicMessagesApi().streamSimple(..)`.

use std::collections::BTreeMap;
use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};

use futures_core::Stream;

use serde::Serialize;
use serde_json::{Map, Value};

use super::event::{ProviderError, ProviderEvent};
use super::request::ProviderRequest;
use super::stream::ProviderStream;

/// Where and how pi's own implementation of an API answers a request of a
/// Rust provider: the answer streams from pi-ai to pi directly, without
/// passing through the extension's process.
///
/// The model pi asked for is kept (its id, limits, prices and `api` in the
/// recorded message); what is set here replaces its endpoint, adds to pi's
/// request headers and replaces the key pi resolved for the provider.
///
/// ```
/// use pi_ext::provider::Delegation;
///
/// let to = Delegation::to("anthropic-messages")
///     .base_url("https://cloud.gitlab.com/ai/v1/proxy/anthropic/")
///     .header("Authorization", "Bearer short-lived-token")
///     .api_key("gitlab-duo")
///     .compat("forceAdaptiveThinking", true);
/// assert_eq!(to.api(), "anthropic-messages");
/// ```
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Delegation {
    api: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    base_url: Option<String>,
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    headers: BTreeMap<String, String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    api_key: Option<String>,
    #[serde(skip_serializing_if = "Map::is_empty")]
    compat: Map<String, Value>,
}

impl Delegation {
    /// Answer with pi's implementation of `api`, one of the API names pi's
    /// providers use (`"anthropic-messages"`, `"openai-responses"`,
    /// `"openai-completions"`, …). An API pi does not have ends the answer
    /// with an error naming it.
    pub fn to(api: impl Into<String>) -> Self {
        Self {
            api: api.into(),
            base_url: None,
            headers: BTreeMap::new(),
            api_key: None,
            compat: Map::new(),
        }
    }

    /// The API it names.
    pub fn api(&self) -> &str {
        &self.api
    }

    /// The endpoint (an `http` or `https` URL), instead of the model's
    /// `baseUrl`.
    pub fn base_url(mut self, url: impl Into<String>) -> Self {
        self.base_url = Some(url.into());
        self
    }

    /// A request header, added to (or replacing one of) pi's.
    pub fn header(mut self, name: impl Into<String>, value: impl Into<String>) -> Self {
        self.headers.insert(name.into(), value.into());
        self
    }

    /// Several request headers (see [`Delegation::header`]).
    pub fn headers<K: Into<String>, V: Into<String>>(
        mut self,
        headers: impl IntoIterator<Item = (K, V)>,
    ) -> Self {
        self.headers
            .extend(headers.into_iter().map(|(k, v)| (k.into(), v.into())));
        self
    }

    /// The key pi's implementation sends, instead of the one pi resolved
    /// for the provider ([`ProviderOptions::api_key`](super::ProviderOptions::api_key)).
    pub fn api_key(mut self, key: impl Into<String>) -> Self {
        self.api_key = Some(key.into());
        self
    }

    /// One field of the model's `compat` settings for this request (pi-ai's
    /// per-API switches, e.g. `forceAdaptiveThinking` of `anthropic-messages`).
    pub fn compat(mut self, field: impl Into<String>, value: impl Into<Value>) -> Self {
        self.compat.insert(field.into(), value.into());
        self
    }
}

/// A provider's answer that is a [`Delegation`]: `decide` runs first (for
/// example to fetch a short-lived token), then pi's implementation answers.
/// An error from `decide` is the answer's error, shown by pi.
///
/// ```no_run
/// use pi_ext::provider::{delegate, Delegation, ProviderError, ProviderRequest, ProviderStream};
///
/// fn answer(req: ProviderRequest) -> ProviderStream {
///     delegate(req, |req| async move {
///         let key = req.options.api_key.clone().ok_or_else(|| ProviderError::new("no key"))?;
///         Ok(Delegation::to("openai-completions")
///             .base_url("http://127.0.0.1:8080/v1")
///             .api_key(key))
///     })
/// }
/// ```
pub fn delegate<F, Fut>(request: ProviderRequest, decide: F) -> ProviderStream
where
    F: FnOnce(ProviderRequest) -> Fut,
    Fut: Future<Output = Result<Delegation, ProviderError>> + Send + 'static,
{
    ProviderStream::from_stream(Decide(Some(Box::pin(decide(request)))))
}

/// The stream of [`delegate`]: the decision as one event, then the end.
struct Decide<Fut>(Option<Pin<Box<Fut>>>);

impl<Fut> Stream for Decide<Fut>
where
    Fut: Future<Output = Result<Delegation, ProviderError>>,
{
    type Item = Result<ProviderEvent, ProviderError>;

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        let Some(decided) = self.0.as_mut() else {
            return Poll::Ready(None);
        };
        let outcome = std::task::ready!(decided.as_mut().poll(cx));
        self.0 = None;
        Poll::Ready(Some(outcome.map(ProviderEvent::Delegate)))
    }
}
