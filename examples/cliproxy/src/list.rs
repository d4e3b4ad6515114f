//! The endpoint's model list: `GET <base>/models` (OpenAI's format,
//! `{"data":[{"id":…},…]}`), with hyper.

use http_body_util::{BodyExt, Empty};
use hyper::body::Bytes;
use hyper_util::rt::TokioIo;
use serde_json::Value;

/// The most a model list may be (a list of ids is a few kB).
const MAX_LIST: usize = 4 * 1024 * 1024;

/// The ids of the models `base` lists, in its order; why not, as text.
pub async fn model_ids(base: &str, key: Option<&str>) -> Result<Vec<String>, String> {
    let url = format!("{base}/models");
    let uri: hyper::Uri = url.parse().map_err(|e| format!("{e}"))?;
    if uri.scheme_str() != Some("http") {
        return Err("only http:// endpoints are supported".into());
    }
    let host = uri.host().ok_or("no host")?.to_string();
    let port = uri.port_u16().unwrap_or(80);
    let stream = tokio::net::TcpStream::connect((host.as_str(), port))
        .await
        .map_err(|e| e.to_string())?;
    let (mut sender, connection) = hyper::client::conn::http1::handshake(TokioIo::new(stream))
        .await
        .map_err(|e| e.to_string())?;
    let connection = tokio::spawn(async move {
        let _ = connection.await;
    });
    let mut request = hyper::Request::get(uri.path())
        .header("host", format!("{host}:{port}"))
        .header("accept", "application/json");
    if let Some(key) = key {
        request = request.header("authorization", format!("Bearer {key}"));
    }
    let request = request
        .body(Empty::<Bytes>::new())
        .map_err(|e| e.to_string())?;
    let response = sender
        .send_request(request)
        .await
        .map_err(|e| e.to_string())?;
    let status = response.status();
    let body = http_body_util::Limited::new(response.into_body(), MAX_LIST)
        .collect()
        .await
        .map_err(|e| e.to_string())?
        .to_bytes();
    connection.abort();
    if !status.is_success() {
        return Err(format!("{status}: {}", String::from_utf8_lossy(&body)));
    }
    let list: Value = serde_json::from_slice(&body).map_err(|e| format!("not JSON: {e}"))?;
    let data = list["data"]
        .as_array()
        .ok_or("the answer has no `data` list")?;
    Ok(data
        .iter()
        .filter_map(|m| m["id"].as_str())
        .filter(|id| !id.is_empty())
        .map(str::to_string)
        .collect())
}
