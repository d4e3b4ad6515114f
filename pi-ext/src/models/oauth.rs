//! A provider's OAuth login and token refresh, and its model list fetched
//! at run time: the parts of pi's `registerProvider` configuration that pi
//! calls back (`oauth.login`, `oauth.refreshToken`, `refreshModels`).
//!
//! ```no_run
//! use pi_ext::oauth::{OAuthCredentials, OAuthDef, OAuthLogin};
//! use pi_ext::provider::{ModelDef, ProviderDef};
//!
//! fn corp() -> ProviderDef {
//!     ProviderDef::new("corp")
//!         .api("openai-completions")
//!         .base_url("http://127.0.0.1:8080/v1")
//!         .model(ModelDef::new("corp-1", "Corp 1"))
//!         .oauth(OAuthDef::new("Corp (SSO)", login, refresh))
//! }
//!
//! async fn login(ui: OAuthLogin) -> Result<OAuthCredentials, String> {
//!     ui.auth("https://sso.example.com/device", Some("Open the link, then paste the code")).await?;
//!     let code = ui.prompt("Code:", None).await?;
//!     Ok(OAuthCredentials::new(format!("refresh-{code}"), format!("access-{code}"), 0))
//! }
//!
//! async fn refresh(old: OAuthCredentials, _cancel: pi_ext::CancellationToken) -> Result<OAuthCredentials, String> {
//!     Ok(OAuthCredentials::new(old.refresh.clone(), "fresh".to_string(), u64::MAX / 2))
//! }
//! pi_ext::provider!(corp);
//! # fn main() {}
//! ```
//!
//! **Login** (`/login corp`, `pi auth login corp`): pi calls the login with
//! its UI; [`OAuthLogin`]'s prompts, links, device codes, progress and
//! choices go through pi's (the terminal, or an RPC client's dialogs). pi
//! stores the credentials returned in `auth.json`.
//!
//! **Refresh**: when the stored credentials' `expires` (milliseconds since
//! the epoch) has passed, pi calls the refresh before a request and stores
//! what it returns.
//!
//! **The key**: pi's `getApiKey(credentials)` is synchronous, so it cannot
//! wait on the extension process: the key is a field of the credentials
//! ([`OAuthDef::api_key_field`], `access` unless set), read in pi's process.

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;

use serde::{Deserialize, Serialize};
use serde_json::{json, Map, Value};
use tokio_util::sync::CancellationToken;

use crate::context::Ctx;
use crate::models::provider::{ModelDef, ProviderDef};
use crate::util::sanitize::{sanitize, Keep};

/// OAuth credentials as pi stores them (pi-ai's `OAuthCredentials`).
#[derive(Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct OAuthCredentials {
    /// The refresh token.
    pub refresh: String,
    /// The access token.
    pub access: String,
    /// When `access` expires, in milliseconds since the epoch: pi refreshes
    /// after that.
    pub expires: u64,
    /// Other fields the provider stores (an account id, a second token);
    /// pi keeps them.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

impl std::fmt::Debug for OAuthCredentials {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("OAuthCredentials")
            .field("expires", &self.expires)
            .field("extra", &self.extra.keys().collect::<Vec<_>>())
            .finish_non_exhaustive()
    }
}

impl OAuthCredentials {
    /// Credentials with these tokens, `access` expiring at `expires` (ms).
    pub fn new(refresh: impl Into<String>, access: impl Into<String>, expires: u64) -> Self {
        Self {
            refresh: refresh.into(),
            access: access.into(),
            expires,
            extra: Map::new(),
        }
    }
}

type LoginFn = Arc<
    dyn Fn(OAuthLogin) -> Pin<Box<dyn Future<Output = Result<OAuthCredentials, String>> + Send>>
        + Send
        + Sync,
>;
type RefreshFn = Arc<
    dyn Fn(
            OAuthCredentials,
            CancellationToken,
        ) -> Pin<Box<dyn Future<Output = Result<OAuthCredentials, String>> + Send>>
        + Send
        + Sync,
>;
pub(crate) type RefreshModelsFn = Arc<
    dyn Fn(RefreshModels) -> Pin<Box<dyn Future<Output = Result<Vec<ModelDef>, String>> + Send>>
        + Send
        + Sync,
>;

/// A provider's OAuth (pi's `ProviderConfig.oauth`): it appears in `/login`.
#[derive(Clone)]
pub struct OAuthDef {
    pub(crate) manifest: OAuthManifest,
    pub(crate) login: LoginFn,
    pub(crate) refresh: RefreshFn,
}

impl std::fmt::Debug for OAuthDef {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("OAuthDef")
            .field("manifest", &self.manifest)
            .finish_non_exhaustive()
    }
}

use crate::data::manifest::OAuthManifest;

impl OAuthDef {
    /// OAuth shown in `/login` as `name`: `login` runs the login with pi's
    /// UI and returns the credentials pi stores; `refresh` renews expired
    /// ones (its token fires when pi aborts the refresh).
    pub fn new<L, LF, R, RF>(name: impl Into<String>, login: L, refresh: R) -> Self
    where
        L: Fn(OAuthLogin) -> LF + Send + Sync + 'static,
        LF: Future<Output = Result<OAuthCredentials, String>> + Send + 'static,
        R: Fn(OAuthCredentials, CancellationToken) -> RF + Send + Sync + 'static,
        RF: Future<Output = Result<OAuthCredentials, String>> + Send + 'static,
    {
        Self {
            manifest: OAuthManifest {
                name: name.into(),
                is_subscription: false,
                uses_callback_server: false,
                api_key_field: "access".into(),
            },
            login: Arc::new(move |ui| Box::pin(login(ui))),
            refresh: Arc::new(move |c, t| Box::pin(refresh(c, t))),
        }
    }

    /// The credentials' field pi sends as the key (default `access`; a
    /// field of [`OAuthCredentials::extra`] works too). pi's `getApiKey`
    /// is synchronous and runs in pi's process, which cannot wait for Rust.
    pub fn api_key_field(mut self, field: impl Into<String>) -> Self {
        self.manifest.api_key_field = field.into();
        self
    }

    /// Access through this login is backed by a subscription (pi ≥ 0.99's
    /// `isSubscription`, shown with the login).
    pub fn subscription(mut self) -> Self {
        self.manifest.is_subscription = true;
        self
    }

    /// pi's deprecated `usesCallbackServer` flag, passed on as is.
    pub fn uses_callback_server(mut self) -> Self {
        self.manifest.uses_callback_server = true;
        self
    }
}

/// pi's login UI for one login (pi-ai's `OAuthLoginCallbacks`): each call
/// goes to pi, which shows it in the terminal or to an RPC client. Text is
/// sent without control characters (pi's login dialog paints it as given,
/// so an escape sequence would reach the terminal); a select's ids are
/// sent as given.
#[derive(Debug, Clone)]
pub struct OAuthLogin {
    ctx: Ctx,
    cancel: CancellationToken,
}

impl OAuthLogin {
    async fn ui(&self, kind: &str, args: Value) -> Result<Value, String> {
        let call = self.ctx.call_id();
        self.ctx
            .peer()
            .request(
                "oauth/ui",
                json!({ "call": call, "kind": kind, "args": args }),
            )
            .await
            .map_err(|e| e.message)
    }

    /// Show the authorization link (`onAuth`).
    ///
    /// # Errors
    ///
    /// The login is over (cancelled, pi gone).
    pub async fn auth(&self, url: &str, instructions: Option<&str>) -> Result<(), String> {
        let instructions = instructions.map(|i| sanitize(i, Keep::Lines));
        let url = sanitize(url, Keep::Line);
        self.ui("auth", json!({ "url": url, "instructions": instructions }))
            .await
            .map(drop)
    }

    /// Show a device code and where to enter it (`onDeviceCode`).
    ///
    /// # Errors
    ///
    /// As [`OAuthLogin::auth`].
    pub async fn device_code(&self, user_code: &str, verification_uri: &str) -> Result<(), String> {
        self.ui(
            "deviceCode",
            json!({
                "userCode": sanitize(user_code, Keep::Line),
                "verificationUri": sanitize(verification_uri, Keep::Line),
            }),
        )
        .await
        .map(drop)
    }

    /// Ask for text (`onPrompt`): a code, a redirect URL.
    ///
    /// # Errors
    ///
    /// The user cancelled, or as [`OAuthLogin::auth`].
    pub async fn prompt(&self, message: &str, placeholder: Option<&str>) -> Result<String, String> {
        let v = self
            .ui(
                "prompt",
                json!({
                    "message": sanitize(message, Keep::Lines),
                    "placeholder": placeholder.map(|p| sanitize(p, Keep::Line)),
                }),
            )
            .await?;
        v.as_str()
            .map(str::to_owned)
            .ok_or_else(|| "the login prompt gave no text".to_string())
    }

    /// Report progress (`onProgress`).
    ///
    /// # Errors
    ///
    /// As [`OAuthLogin::auth`].
    pub async fn progress(&self, message: &str) -> Result<(), String> {
        self.ui(
            "progress",
            json!({ "message": sanitize(message, Keep::Lines) }),
        )
        .await
        .map(drop)
    }

    /// Ask the user to choose (`onSelect`): the chosen option's id, `None`
    /// when dismissed. `options` are `(id, label)`. pi 1.x's terminal ends
    /// the login instead when the choice is dismissed (an error here, and
    /// pi goes back to its provider list when the login returns it).
    ///
    /// # Errors
    ///
    /// As [`OAuthLogin::auth`].
    pub async fn select(
        &self,
        message: &str,
        options: &[(&str, &str)],
    ) -> Result<Option<String>, String> {
        let options: Vec<Value> = options
            .iter()
            .map(|(id, label)| json!({ "id": id, "label": sanitize(label, Keep::Line) }))
            .collect();
        let v = self
            .ui(
                "select",
                json!({ "message": sanitize(message, Keep::Lines), "options": options }),
            )
            .await?;
        Ok(v.as_str().map(str::to_owned))
    }

    /// Fires when pi cancels the login.
    pub fn cancelled(&self) -> &CancellationToken {
        &self.cancel
    }
}

/// pi's `refreshModels(context)` for one refresh.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct RefreshModels {
    /// pi allows network access (false while it starts offline or from its cache).
    pub allow_network: bool,
    /// Fetch now, whatever the provider's freshness checks say.
    pub force: bool,
    /// The provider's stored credential (`auth.json`), as pi holds it
    /// (`{"type": "api_key", "key": …}` or `{"type": "oauth", …}`).
    pub credential: Option<Map<String, Value>>,
    /// Fires when pi aborts the refresh.
    pub cancel: CancellationToken,
    /// pi's context of the refresh.
    pub ctx: Ctx,
}

impl ProviderDef {
    /// A `/login` for the provider (see [`mod@crate::models::oauth`]). Without an
    /// API key setting, requests carry the key of the stored login.
    pub fn oauth(mut self, oauth: OAuthDef) -> Self {
        self.oauth = Some(oauth);
        self
    }

    /// Fetch the provider's models at run time (pi's `refreshModels`, pi ≥
    /// 0.99): pi calls `f` when it refreshes its catalog (at start in
    /// interactive mode, when `/model` opens, after `/login`, `pi update
    /// --models`) and replaces the provider's models with those returned.
    pub fn refresh_models<F, Fut>(mut self, f: F) -> Self
    where
        F: Fn(RefreshModels) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<Vec<ModelDef>, String>> + Send + 'static,
    {
        self.refresh_models = Some(Arc::new(move |r| Box::pin(f(r))));
        self
    }
}

/// The future answering a `provider/call` of `op`, or `None` when the
/// provider has no such callback.
pub(crate) fn provider_call(
    provider: &ProviderDef,
    op: &str,
    args: Value,
    ctx: Ctx,
    cancel: CancellationToken,
) -> Option<crate::command::HandlerFuture> {
    let json = |c: OAuthCredentials| serde_json::to_value(c).map_err(|e| e.to_string());
    match op {
        "login" => {
            let login = provider.oauth.as_ref()?.login.clone();
            let ui = OAuthLogin { ctx, cancel };
            Some(Box::pin(async move { login(ui).await.and_then(json) }))
        }
        "refreshToken" => {
            let refresh = provider.oauth.as_ref()?.refresh.clone();
            Some(Box::pin(async move {
                let old: OAuthCredentials = serde_json::from_value(args).map_err(|e| {
                    format!("pi's stored credentials do not read as OAuth credentials: {e}")
                })?;
                refresh(old, cancel).await.and_then(json)
            }))
        }
        "refreshModels" => {
            let f = provider.refresh_models.clone()?;
            let request = RefreshModels {
                allow_network: args["allowNetwork"].as_bool().unwrap_or(true),
                force: args["force"].as_bool().unwrap_or(false),
                credential: args["credential"].as_object().cloned(),
                cancel,
                ctx,
            };
            Some(Box::pin(async move {
                let models = f(request).await?;
                serde_json::to_value(models).map_err(|e| e.to_string())
            }))
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use serde_json::{json, Value};

    use super::{OAuthCredentials, OAuthDef, OAuthLogin};
    use crate::provider::{ModelDef, ProviderDef};
    use crate::registry::Registry;
    use crate::testing::TestHost;

    /// OSC 0 (a window title), CSI 2J (clear screen), C1 CSI (0x9b).
    const HOSTILE: &str = "a\x1b]0;pwned\x07b\x1b[2Jc\u{9b}31md";
    const SHOWN: &str = "a]0;pwnedb[2Jc31md";

    async fn login(ui: OAuthLogin) -> Result<OAuthCredentials, String> {
        ui.auth(&format!("https://x.invalid/{HOSTILE}"), Some(HOSTILE))
            .await?;
        ui.device_code(HOSTILE, HOSTILE).await?;
        ui.progress(&format!("{HOSTILE}\nline two")).await?;
        let id = ui.select(HOSTILE, &[("id\x1b", HOSTILE)]).await?;
        let code = ui.prompt(HOSTILE, Some(HOSTILE)).await?;
        Ok(OAuthCredentials::new(format!("{id:?}"), code, 0))
    }

    async fn refresh(
        old: OAuthCredentials,
        _: crate::CancellationToken,
    ) -> Result<OAuthCredentials, String> {
        Ok(old)
    }

    /// Every string in `v`.
    fn strings(v: &Value, out: &mut Vec<String>) {
        match v {
            Value::String(s) => out.push(s.clone()),
            Value::Array(a) => a.iter().for_each(|v| strings(v, out)),
            Value::Object(o) => o.values().for_each(|v| strings(v, out)),
            _ => {}
        }
    }

    #[test]
    fn a_login_shows_text_without_control_characters_and_answers_as_given() {
        let provider = ProviderDef::new("corp")
            .api("openai-completions")
            .base_url("http://127.0.0.1:9/v1")
            .model(ModelDef::new("m", "M"))
            .oauth(OAuthDef::new("Corp", login, refresh));
        let host = TestHost::with_registry(Registry::new("t", "0").provider(provider));
        host.send_line(&crate::wire::request_line(
            7,
            "provider/call",
            &json!({"provider": "corp", "op": "login", "args": null}),
        ));
        let mut shown = Vec::new();
        let answer = loop {
            let msg = host
                .next_message(Duration::from_secs(10))
                .expect("the login's messages");
            if msg["method"] == "oauth/ui" {
                let p = &msg["params"];
                let kind = p["kind"].as_str().unwrap().to_owned();
                let mut texts = Vec::new();
                strings(&p["args"], &mut texts);
                shown.push((kind.clone(), texts));
                let reply = match kind.as_str() {
                    "select" => json!("id\x1b"),
                    "prompt" => json!("the code"),
                    _ => Value::Null,
                };
                let id = msg["id"].as_u64().unwrap();
                host.send_line(format!(r#"{{"id":{id},"result":{reply}}}"#).as_bytes());
            } else if msg["id"] == 7 {
                break msg;
            }
        };
        let id = "id\x1b".to_string();
        assert_eq!(
            shown,
            [
                // (an object's fields in name order)
                (
                    "auth",
                    vec![SHOWN.into(), format!("https://x.invalid/{SHOWN}")]
                ),
                ("deviceCode", vec![SHOWN.into(), SHOWN.into()]),
                ("progress", vec![format!("{SHOWN}\nline two")]),
                ("select", vec![SHOWN.into(), id.clone(), SHOWN.into()]),
                ("prompt", vec![SHOWN.into(), SHOWN.into()]),
            ]
            .map(|(k, t)| (k.to_string(), t))
            .to_vec(),
            "{answer}"
        );
        // The ids and the answers are the login's own, unchanged.
        assert_eq!(answer["result"]["refresh"], format!("{:?}", Some(id)));
        assert_eq!(answer["result"]["access"], "the code");
    }
}
