//! GitLab's direct-access token for its AI Gateway (the original's
//! `getDirectAccessToken`): POSTed with the user's GitLab token, kept for 25
//! minutes.

use std::collections::BTreeMap;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use http_body_util::{BodyExt, Full};
use hyper::body::Bytes;
use hyper_util::client::legacy::Client;
use hyper_util::rt::TokioExecutor;
use pi_ext::provider::ProviderError;
use serde_json::{json, Value};

/// How long a direct-access token is used (the original's `DIRECT_ACCESS_TTL`).
const TTL: Duration = Duration::from_secs(25 * 60);

/// A token for the AI Gateway and the headers GitLab wants with it.
#[derive(Clone, Debug)]
pub struct DirectAccess {
    pub token: String,
    pub headers: BTreeMap<String, String>,
    expires: Instant,
}

/// The token last fetched: one per process, as the original's module keeps one.
static CACHED: Mutex<Option<DirectAccess>> = Mutex::new(None);

/// The cached token if it is still fresh, else a new one from `gitlab`.
pub async fn get(gitlab: &str, access_token: &str) -> Result<DirectAccess, ProviderError> {
    if let Some(cached) = CACHED
        .lock()
        .unwrap()
        .clone()
        .filter(|c| c.expires > Instant::now())
    {
        return Ok(cached);
    }
    let url = format!("{gitlab}/api/v4/ai/third_party_agents/direct_access");
    let body = json!({"feature_flags": {"DuoAgentPlatformNext": true}});
    let (status, text) = post(&url, access_token, body.to_string()).await?;
    if !(200..300).contains(&status) {
        return Err(ProviderError::new(if status == 403 {
            format!(
                "GitLab Duo access denied. Ensure GitLab Duo is enabled for your account. Error: {text}"
            )
        } else {
            format!("Failed to get direct access token: {status} {text}")
        }));
    }
    let data: Value = serde_json::from_str(&text)
        .map_err(|e| ProviderError::new(format!("GitLab's direct-access answer: {e}")))?;
    let headers = data["headers"]
        .as_object()
        .map(|h| {
            h.iter()
                .filter_map(|(k, v)| Some((k.clone(), v.as_str()?.to_owned())))
                .collect()
        })
        .unwrap_or_default();
    let fresh = DirectAccess {
        token: data["token"].as_str().unwrap_or_default().to_owned(),
        headers,
        expires: Instant::now() + TTL,
    };
    *CACHED.lock().unwrap() = Some(fresh.clone());
    Ok(fresh)
}

/// POST `body` as JSON with a bearer token; the status and the body's text.
async fn post(url: &str, bearer: &str, body: String) -> Result<(u16, String), ProviderError> {
    let failed = |e: &dyn std::fmt::Display| ProviderError::new(format!("{url}: {e}"));
    let https = hyper_rustls::HttpsConnectorBuilder::new()
        .with_webpki_roots()
        .https_or_http()
        .enable_http1()
        .build();
    let client: Client<_, Full<Bytes>> = Client::builder(TokioExecutor::new()).build(https);
    let request = hyper::Request::post(url)
        .header("authorization", format!("Bearer {bearer}"))
        .header("content-type", "application/json")
        .body(Full::new(Bytes::from(body)))
        .map_err(|e| failed(&e))?;
    let response = client.request(request).await.map_err(|e| failed(&e))?;
    let status = response.status().as_u16();
    let bytes = response
        .into_body()
        .collect()
        .await
        .map_err(|e| failed(&e))?
        .to_bytes();
    Ok((status, String::from_utf8_lossy(&bytes).into_owned()))
}
