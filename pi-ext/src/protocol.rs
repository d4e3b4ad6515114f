//! Wire types of the bridge ⇄ extension protocol and its line framing.
//!
#![doc = include_str!("../PROTOCOL.md")]

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// The protocol version this runtime speaks. The bridge sends its own in
/// `initialize`; a mismatch is refused with [`codes::VERSION_MISMATCH`].
pub const PROTOCOL_VERSION: u32 = 1;

/// Version of the pi-ext runtime (and of the bridge it ships).
pub const SDK_VERSION: &str = env!("CARGO_PKG_VERSION");

/// JSON-RPC error codes used on the wire.
pub mod codes {
    /// The line was not a JSON object.
    pub const PARSE_ERROR: i64 = -32700;
    /// The object was not a request, response or notification.
    pub const INVALID_REQUEST: i64 = -32600;
    /// No such method.
    pub const METHOD_NOT_FOUND: i64 = -32601;
    /// The params did not have the expected shape.
    pub const INVALID_PARAMS: i64 = -32602;
    /// The request failed for a reason of the answering side (pi threw, the
    /// pi session of the call has ended, an answer could not be encoded).
    pub const INTERNAL_ERROR: i64 = -32603;
    /// Bridge and extension speak different protocol versions.
    pub const VERSION_MISMATCH: i64 = -32000;
    /// `tool/call` named a tool this extension does not have.
    pub const UNKNOWN_TOOL: i64 = -32001;
    /// The request was cancelled before it finished.
    pub const CANCELLED: i64 = -32002;
    /// A UI request was made in a mode without UI (print / json).
    pub const NO_UI: i64 = -32003;
    /// A hook or command handler returned an error or panicked.
    pub const HANDLER_FAILED: i64 = -32004;
    /// The extension has too many calls in flight.
    pub const BUSY: i64 = -32005;
    /// A request other than `initialize` or `ping` came before `initialize`.
    pub const NOT_INITIALIZED: i64 = -32006;
}

/// A JSON-RPC error object.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, thiserror::Error)]
#[error("{message} (code {code})")]
pub struct RpcError {
    /// One of [`codes`].
    pub code: i64,
    /// Human-readable message; shown to users as is.
    pub message: String,
}

impl RpcError {
    /// Build an error from a code and a message.
    pub fn new(code: i64, message: impl Into<String>) -> Self {
        Self {
            code,
            message: message.into(),
        }
    }
}

/// Any message read from the wire, before it is classified.
///
/// Kept deliberately loose (every field optional) so that one malformed
/// field produces a precise error instead of an opaque parse failure.
#[derive(Debug, Default, Deserialize)]
pub struct Incoming {
    /// Request or response id.
    #[serde(default)]
    pub id: Option<Value>,
    /// Method name of a request or notification.
    #[serde(default)]
    pub method: Option<String>,
    /// Parameters of a request or notification.
    #[serde(default)]
    pub params: Option<Value>,
    /// Result of a successful response.
    #[serde(default)]
    pub result: Option<Value>,
    /// Error of a failed response.
    #[serde(default)]
    pub error: Option<RpcError>,
}

/// What an [`Incoming`] message turned out to be.
#[derive(Debug)]
pub enum Classified {
    /// A request that expects an answer.
    Request {
        /// Its id.
        id: u64,
        /// Method name.
        method: String,
        /// Parameters (`null` when absent).
        params: Value,
    },
    /// A notification (no answer).
    Notification {
        /// Method name.
        method: String,
        /// Parameters (`null` when absent).
        params: Value,
    },
    /// A response to one of our requests.
    Response {
        /// The id of our request.
        id: u64,
        /// Its outcome.
        outcome: Result<Value, RpcError>,
    },
}

impl Incoming {
    /// Parse one line (without its `\n`).
    pub fn parse(line: &[u8]) -> Result<Self, RpcError> {
        serde_json::from_slice(line)
            .map_err(|e| RpcError::new(codes::PARSE_ERROR, format!("malformed protocol line: {e}")))
    }

    /// Classify the message. The error carries the id (when one could be
    /// read) so the caller can answer a broken request.
    pub fn classify(self) -> Result<Classified, (Option<u64>, RpcError)> {
        let id = match &self.id {
            None | Some(Value::Null) => None,
            Some(v) => match v.as_u64() {
                Some(id) => Some(id),
                None => {
                    return Err((
                        None,
                        RpcError::new(
                            codes::INVALID_REQUEST,
                            format!("id must be a non-negative integer, got {v}"),
                        ),
                    ))
                }
            },
        };
        let params = self.params.unwrap_or(Value::Null);
        match (id, self.method) {
            (Some(id), Some(method)) => Ok(Classified::Request { id, method, params }),
            (None, Some(method)) => Ok(Classified::Notification { method, params }),
            (Some(id), None) => {
                let outcome = match (self.result, self.error) {
                    (_, Some(err)) => Err(err),
                    (Some(result), None) => Ok(result),
                    (None, None) => Ok(Value::Null),
                };
                Ok(Classified::Response { id, outcome })
            }
            (None, None) => Err((
                None,
                RpcError::new(
                    codes::INVALID_REQUEST,
                    "message has neither a method nor an id",
                ),
            )),
        }
    }
}

/// Encode a request as one protocol line (including the trailing `\n`).
pub fn request_line(id: u64, method: &str, params: &Value) -> Vec<u8> {
    #[derive(Serialize)]
    struct Req<'a> {
        id: u64,
        method: &'a str,
        params: &'a Value,
    }
    encode_line(&Req { id, method, params })
}

/// Encode a notification as one protocol line.
pub fn notification_line(method: &str, params: &Value) -> Vec<u8> {
    #[derive(Serialize)]
    struct Note<'a> {
        method: &'a str,
        params: &'a Value,
    }
    encode_line(&Note { method, params })
}

/// Encode a response as one protocol line.
pub fn response_line(id: Option<u64>, outcome: &Result<Value, RpcError>) -> Vec<u8> {
    #[derive(Serialize)]
    struct Ok<'a> {
        id: Option<u64>,
        result: &'a Value,
    }
    #[derive(Serialize)]
    struct Err<'a> {
        id: Option<u64>,
        error: &'a RpcError,
    }
    match outcome {
        Result::Ok(result) => encode_line(&Ok { id, result }),
        Result::Err(error) => encode_line(&Err { id, error }),
    }
}

/// Serialize `msg` as JSON, escape U+2028/U+2029, and append `\n`.
///
/// serde_json writes those two code points raw; JavaScript line readers that
/// follow ECMAScript line terminators would split on them, so they never
/// appear raw on the wire.
pub fn encode_line<T: Serialize + ?Sized>(msg: &T) -> Vec<u8> {
    let mut out = serde_json::to_vec(msg).expect("protocol messages always serialize");
    escape_line_separators(&mut out);
    out.push(b'\n');
    out
}

/// Replace raw U+2028 / U+2029 (UTF-8 `E2 80 A8` / `E2 80 A9`) by their JSON
/// escapes. Only valid inside JSON strings, which is the only place
/// serde_json can emit them.
fn escape_line_separators(buf: &mut Vec<u8>) {
    // Fast path: most lines contain no 0xE2 byte at all.
    if !buf.contains(&0xE2) {
        return;
    }
    let mut out = Vec::with_capacity(buf.len() + 8);
    let mut i = 0;
    while i < buf.len() {
        if buf[i] == 0xE2 && i + 2 < buf.len() && buf[i + 1] == 0x80 {
            match buf[i + 2] {
                0xA8 => {
                    out.extend_from_slice(br"\u2028");
                    i += 3;
                    continue;
                }
                0xA9 => {
                    out.extend_from_slice(br"\u2029");
                    i += 3;
                    continue;
                }
                _ => {}
            }
        }
        out.push(buf[i]);
        i += 1;
    }
    *buf = out;
}

/// Split a byte stream into protocol lines: on `\n` only, dropping a trailing
/// `\r`. Returns the complete lines and leaves the unfinished tail in `buf`.
pub fn split_lines(buf: &mut Vec<u8>) -> Vec<Vec<u8>> {
    let mut lines = Vec::new();
    let mut start = 0;
    while let Some(pos) = buf[start..].iter().position(|&b| b == b'\n') {
        let mut line = &buf[start..start + pos];
        if line.last() == Some(&b'\r') {
            line = &line[..line.len() - 1];
        }
        lines.push(line.to_vec());
        start += pos + 1;
    }
    buf.drain(..start);
    lines
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn line_separators_are_escaped_and_round_trip() {
        let text = "a\u{2028}b\u{2029}c é";
        let line = notification_line("log", &json!({ "message": text }));
        let s = std::str::from_utf8(&line).unwrap();
        assert!(!s.contains('\u{2028}') && !s.contains('\u{2029}'));
        assert!(s.contains(r"a\u2028b\u2029c é"));
        assert!(s.ends_with('\n'));
        let back: Value = serde_json::from_str(s.trim_end()).unwrap();
        assert_eq!(back["params"]["message"], text);
    }

    #[test]
    fn split_only_on_newline_and_keep_tail() {
        let mut buf = b"{\"a\":\"x\xe2\x80\xa8y\"}\r\n{\"b\":1}\n{\"c\"".to_vec();
        let lines = split_lines(&mut buf);
        assert_eq!(lines.len(), 2);
        assert_eq!(lines[0], b"{\"a\":\"x\xe2\x80\xa8y\"}".to_vec());
        assert_eq!(lines[1], b"{\"b\":1}".to_vec());
        assert_eq!(buf, b"{\"c\"".to_vec());
    }

    #[test]
    fn classify_messages() {
        let req = Incoming::parse(br#"{"id":3,"method":"tool/call","params":{"x":1}}"#)
            .unwrap()
            .classify()
            .unwrap();
        assert!(
            matches!(req, Classified::Request { id: 3, ref method, .. } if method == "tool/call")
        );
        let resp = Incoming::parse(br#"{"id":4,"error":{"code":-32002,"message":"no"}}"#)
            .unwrap()
            .classify()
            .unwrap();
        match resp {
            Classified::Response {
                id: 4,
                outcome: Err(e),
            } => assert_eq!(e.code, codes::CANCELLED),
            other => panic!("unexpected {other:?}"),
        }
        let bad = Incoming::parse(br#"{"id":"x","method":"m"}"#)
            .unwrap()
            .classify();
        assert!(matches!(bad, Err((None, e)) if e.code == codes::INVALID_REQUEST));
        assert_eq!(
            Incoming::parse(b"not json").unwrap_err().code,
            codes::PARSE_ERROR
        );
        let neither = Incoming::parse(b"{}").unwrap().classify();
        assert!(neither.is_err());
    }
}
