//! MCP servers an extension registers with pi (pi ≥ 0.99:
//! `pi.registerMcpServer`, `unregisterMcpServer`, `getMcpServers`), in the
//! shape of an `mcp.json` `mcpServers` entry.
//!
//! pi only checks and stores a registration; its MCP extension (built in,
//! or an extension that hooks `mcp_servers_change`) connects the server
//! beside those of `mcp.json`. See [`crate::host::api::Api::register_mcp_server`].

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::host::api::ApiError;

/// How a server's tools reach the model (pi's `McpExposure`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
#[non_exhaustive]
pub enum McpExposure {
    /// Callable from codemode scripts only, found with `searchTools()`
    /// (pi's default; `codemode-deferred` is pi's alias of it).
    #[serde(alias = "codemode-deferred")]
    Codemode,
    /// Declared to the model once the `tool_search` tool loads them.
    Deferred,
    /// Declared to the model like any other tool.
    Direct,
    /// Registered but unreachable.
    Hidden,
}

/// One MCP server: a local program over stdio (`command`) or a Streamable
/// HTTP server (`url`). Fields pi adds to the shared `mcpServers` shape are
/// here too; fields this version of pi-ext does not know are kept in
/// `extra` and sent as they are.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct McpServerConfig {
    /// stdio: the program to start.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub command: Option<String>,
    /// stdio: its arguments.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub args: Vec<String>,
    /// stdio: added to its environment; values may name variables
    /// (`${NAME}`) or commands (`!cmd`).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub env: BTreeMap<String, String>,
    /// stdio: its working directory (relative: to the session's).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cwd: Option<String>,
    /// HTTP: the server's URL.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub url: Option<String>,
    /// HTTP: sent with every request; values may name variables or commands.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub headers: BTreeMap<String, String>,
    /// HTTP: OAuth client settings (pi's `McpOAuthConfig`), as JSON.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub oauth: Option<Value>,
    /// HTTP: send the token of this pi provider (`/login <provider>`)
    /// instead of OAuth (`{"provider": …}`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub auth: Option<McpAuth>,
    /// What the server offers, in a sentence (pi's system prompt and tool
    /// search use it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// `false` keeps the entry without connecting.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub enabled: Option<bool>,
    /// Per-request timeout in seconds (pi's default: 60).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timeout: Option<f64>,
    /// How the server's tools reach the model (pi's default: codemode).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub exposure: Option<McpExposure>,
    /// Exposure of single tools, by name or `*` pattern, over `exposure`.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub tool_exposure: BTreeMap<String, McpExposure>,
    /// Fields this version of pi-ext does not know.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

impl McpServerConfig {
    /// A server pi starts as `command args…`, speaking MCP on stdin/stdout.
    pub fn stdio<I, S>(command: impl Into<String>, args: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        McpServerConfig {
            command: Some(command.into()),
            args: args.into_iter().map(Into::into).collect(),
            ..Default::default()
        }
    }

    /// A Streamable HTTP server at `url`.
    pub fn http(url: impl Into<String>) -> Self {
        McpServerConfig {
            url: Some(url.into()),
            ..Default::default()
        }
    }

    /// With a description.
    pub fn description(mut self, description: impl Into<String>) -> Self {
        self.description = Some(description.into());
        self
    }

    /// With an exposure for all its tools.
    pub fn exposure(mut self, exposure: McpExposure) -> Self {
        self.exposure = Some(exposure);
        self
    }
}

/// [`McpServerConfig::auth`]: which pi provider's token to send.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct McpAuth {
    /// The provider's id.
    pub provider: String,
}

impl McpAuth {
    /// Send `provider`'s token.
    pub fn provider(provider: impl Into<String>) -> Self {
        McpAuth {
            provider: provider.into(),
        }
    }
}

/// A server an extension registered (pi's `RegisteredMcpServer`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct RegisteredMcpServer {
    /// Its name (its tools are `mcp__<name>__<tool>`).
    pub name: String,
    /// Its configuration, as pi validated it.
    pub config: McpServerConfig,
    /// The path of the extension that registered it (for a Rust extension:
    /// its bridge's `index.js`).
    #[serde(default)]
    pub extension_path: String,
    /// Fields this version of pi-ext does not know.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

// The calls, beside their types (pi's `ExtensionAPI`).
impl crate::host::api::Api {
    /// Register (or replace) an MCP server (`pi.registerMcpServer`, pi ≥
    /// 0.99). pi checks the configuration and stores it; its MCP extension
    /// connects it, and extensions hooking `mcp_servers_change` see it.
    ///
    /// # Errors
    ///
    /// [`ApiError`] with pi's message when pi rejects the configuration or
    /// the name (another extension's server), when pi is older than 0.99
    /// (pi has no MCP servers), or when the connection to pi is gone.
    pub async fn register_mcp_server(
        &self,
        name: &str,
        config: &McpServerConfig,
    ) -> Result<(), ApiError> {
        let config = serde_json::to_value(config).map_err(|e| ApiError {
            method: "registerMcpServer".into(),
            message: e.to_string(),
        })?;
        self.call("registerMcpServer", serde_json::json!([name, config]))
            .await
            .map(drop)
    }

    /// Remove a server this extension registered and close its connection
    /// (`pi.unregisterMcpServer`, pi ≥ 0.99); other extensions' servers are
    /// left alone.
    ///
    /// # Errors
    ///
    /// As [`Self::register_mcp_server`].
    pub async fn unregister_mcp_server(&self, name: &str) -> Result<(), ApiError> {
        self.call("unregisterMcpServer", serde_json::json!([name]))
            .await
            .map(drop)
    }

    /// Every MCP server extensions registered, in registration order
    /// (`pi.getMcpServers`, pi ≥ 0.99).
    ///
    /// # Errors
    ///
    /// As [`Self::register_mcp_server`].
    pub async fn mcp_servers(&self) -> Result<Vec<RegisteredMcpServer>, ApiError> {
        let v = self.call("getMcpServers", serde_json::json!([])).await?;
        serde_json::from_value(v).map_err(|e| ApiError {
            method: "getMcpServers".into(),
            message: format!("unexpected answer: {e}"),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn configs_round_trip_pi_shape_and_keep_unknown_fields() {
        let c = McpServerConfig::stdio("npx", ["-y", "srv"])
            .description("Files")
            .exposure(McpExposure::Direct);
        assert_eq!(
            serde_json::to_value(&c).unwrap(),
            json!({"command": "npx", "args": ["-y", "srv"], "description": "Files", "exposure": "direct"})
        );
        let raw = json!({"url": "http://127.0.0.1:1/mcp", "toolExposure": {"a*": "hidden"}, "exposure": "codemode-deferred", "later": 1});
        let back: McpServerConfig = serde_json::from_value(raw).unwrap();
        assert_eq!(back.exposure, Some(McpExposure::Codemode));
        assert_eq!(back.tool_exposure["a*"], McpExposure::Hidden);
        assert_eq!(back.extra["later"], 1);
        assert_eq!(serde_json::to_value(&back).unwrap()["later"], 1);
    }
}
