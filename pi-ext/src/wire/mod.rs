//! Wire types of the bridge ⇄ extension protocol: messages, errors and how
//! lines are encoded and read. The protocol itself is documented in
//! [`crate::protocol`].

pub(crate) mod framing;
pub(crate) mod raw;
pub(crate) mod transport;

use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;
use serde_json::Value;

/// The protocol version this runtime speaks. The bridge sends its own in
/// `initialize`; a mismatch is refused (`VERSION_MISMATCH`, `-32000`).
pub const PROTOCOL_VERSION: u32 = 2;

/// Version of the pi-ext runtime (and of the bridge it ships).
pub const SDK_VERSION: &str = env!("CARGO_PKG_VERSION");

/// JSON-RPC error codes used on the wire.
// The whole table, whichever optional parts of this build send each code.
#[allow(dead_code)]
pub mod codes {
    /// The line was not a JSON object.
    pub const PARSE_ERROR: i64 = -32700;
    /// The object was not a request, response or notification.
    pub const INVALID_REQUEST: i64 = -32600;
    /// No such method.
    pub const METHOD_NOT_FOUND: i64 = -32601;
    /// The params did not have the expected shape.
    pub const INVALID_PARAMS: i64 = -32602;
    /// The other side failed while handling the request.
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
    /// Too many calls are in flight (`PI_EXT_MAX_CALLS`).
    pub const BUSY: i64 = -32005;
    /// A request other than `initialize` or `ping` came before `initialize`.
    pub const NOT_INITIALIZED: i64 = -32006;
    /// A model call named a model pi does not have.
    pub const UNKNOWN_MODEL: i64 = -32020;
    /// pi has no usable credentials for the model.
    pub const MODEL_AUTH: i64 = -32021;
    /// The pi session a request acts in has ended (a call of a replaced
    /// session, after `session_shutdown`) or none has started yet.
    pub const SESSION_ENDED: i64 = -32022;
    /// A model call asked for the current model, and none is selected.
    pub const NO_MODEL: i64 = -32023;
    /// Mirrored edits apply to a list this process does not have (another
    /// generation, out of range): the bridge sends the whole list again.
    pub const MIRROR_MISMATCH: i64 = -32010;
}

/// A JSON-RPC error object.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, thiserror::Error)]
#[error("{message} (code {code})")]
pub struct RpcError {
    /// The wire's error code (the table in [`crate::protocol`]).
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

/// How deep arrays and objects may nest in one protocol line. pi's own
/// argument validator accepts about 3,200 levels (deeper, it and the
/// bridge's `JSON.stringify` run out of stack); serde_json alone stops at 128.
pub const MAX_DEPTH: usize = 4096;

/// serde_json's own nesting limit.
const SERDE_DEPTH: usize = 128;

/// A line that could not be read as a message.
#[derive(Debug, Clone, PartialEq)]
pub struct Unreadable {
    /// The request id, when the line starts like a request (`{"id":N,…`)
    /// and so can be answered.
    pub id: Option<u64>,
    /// What was wrong.
    pub error: RpcError,
}

/// Any message read from the wire, before it is classified.
///
/// Kept deliberately loose (every field optional) so that one malformed
/// field produces a precise error instead of an opaque parse failure.
/// `params` and `result` stay JSON text: each method reads its own shape
/// from them, with no intermediate [`Value`].
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
    pub params: Option<Box<RawValue>>,
    /// Result of a successful response.
    #[serde(default)]
    pub result: Option<Box<RawValue>>,
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
        /// Parameters (`null` when absent), as JSON text.
        params: Box<RawValue>,
    },
    /// A notification (no answer).
    Notification {
        /// Method name.
        method: String,
        /// Parameters (`null` when absent), as JSON text.
        params: Box<RawValue>,
    },
    /// A response to one of our requests.
    Response {
        /// The id of our request.
        id: u64,
        /// Its outcome (the result as JSON text).
        outcome: Result<Box<RawValue>, RpcError>,
    },
}

/// JSON `null` as raw text.
pub(crate) fn raw_null() -> Box<RawValue> {
    RawValue::from_string("null".to_owned()).expect("null is JSON")
}

/// Read `T` from JSON text that came in a protocol line (a request's
/// `params`, an answer's `result`), as JavaScript writes it: lone UTF-16
/// surrogate escapes become U+FFFD and arrays and objects may nest up to
/// [`MAX_DEPTH`] levels. Nearly all text parses in one pass; only text that
/// fails is looked at again (for depth and surrogates) and parsed once more
/// without serde_json's limit of 128 levels (the runtime's threads have the
/// stack for it; the depth was checked first).
///
/// # Errors
///
/// When the text does not have `T`'s shape, or nests deeper than [`MAX_DEPTH`].
pub fn from_raw<T: DeserializeOwned>(raw: &RawValue) -> serde_json::Result<T> {
    let text = raw.get().as_bytes();
    let first = match serde_json::from_slice(text) {
        Ok(v) => return Ok(v),
        Err(e) => e,
    };
    let shape = LineShape::of(text);
    if shape.depth > MAX_DEPTH {
        return Err(serde::de::Error::custom(format!(
            "it nests arrays and objects {} levels deep; pi-ext reads at most {MAX_DEPTH}",
            shape.depth
        )));
    }
    if shape.depth <= SERDE_DEPTH && shape.well_formed.is_none() {
        return Err(first);
    }
    let text = shape.well_formed.as_deref().unwrap_or(text);
    let mut de = serde_json::Deserializer::from_slice(text);
    // Sound: the depth was checked above.
    de.disable_recursion_limit();
    let value = T::deserialize(&mut de)?;
    de.end()?;
    Ok(value)
}

/// Read `T` from JSON text pi wrote, with lone UTF-16 surrogate escapes
/// made U+FFFD (as [`from_raw`]) but serde_json's own nesting limit kept:
/// for values parsed later, on any thread (a message's typed form).
pub(crate) fn from_js_text<T: DeserializeOwned>(text: &str) -> serde_json::Result<T> {
    let first = match serde_json::from_str(text) {
        Ok(v) => return Ok(v),
        Err(e) => e,
    };
    match LineShape::of(text.as_bytes()).well_formed {
        Some(fixed) => serde_json::from_slice(&fixed),
        None => Err(first),
    }
}

impl Incoming {
    /// Parse one line (without its `\n`).
    ///
    /// Reads what JavaScript's `JSON.stringify` writes, which serde_json alone
    /// refuses: lone UTF-16 surrogate escapes (a string cut in the middle of
    /// an emoji) become U+FFFD, and arrays and objects may nest up to
    /// [`MAX_DEPTH`] levels (serde_json stops at 128). A line that still does
    /// not parse comes back with the request id when one could be read, so
    /// that the request can be answered instead of waited on forever.
    pub fn parse(line: &[u8]) -> Result<Self, Unreadable> {
        if let Some(request) = Self::bridge_request(line) {
            return Ok(request);
        }
        // Nearly every other line: one pass, no copy.
        let first = match serde_json::from_slice(line) {
            Ok(msg) => return Ok(msg),
            Err(e) => e,
        };
        let unreadable = |message: String| Unreadable {
            id: leading_id(line),
            error: RpcError::new(codes::PARSE_ERROR, message),
        };
        let shape = LineShape::of(line);
        if shape.depth > MAX_DEPTH {
            return Err(unreadable(format!(
                "malformed protocol line: it nests arrays and objects {} levels deep; pi-ext reads at most {MAX_DEPTH}",
                shape.depth
            )));
        }
        if shape.depth <= SERDE_DEPTH && shape.well_formed.is_none() {
            // Neither depth nor surrogates were the problem.
            return Err(unreadable(format!("malformed protocol line: {first}")));
        }
        let text = shape.well_formed.as_deref().unwrap_or(line);
        let mut de = serde_json::Deserializer::from_slice(text);
        // Sound: the depth was checked above, and the runtime's threads have
        // the stack for MAX_DEPTH levels.
        de.disable_recursion_limit();
        Incoming::deserialize(&mut de)
            .and_then(|msg| de.end().map(|()| msg))
            .map_err(|e| unreadable(format!("malformed protocol line: {e}")))
    }

    /// A request exactly as the bridge writes one,
    /// `{"id":N,"method":"M","params":P}` with a plain ASCII method name, read
    /// without serde's general paths: only the params are parsed (checked to
    /// be one JSON value). In pi, between two calls, this process's code is
    /// out of the CPU's caches, so a call pays for each distinct piece of code
    /// it runs (BENCHMARKS.md, row 1a). `None` for anything else, which the
    /// general path then reads (with its precise errors).
    fn bridge_request(line: &[u8]) -> Option<Self> {
        let rest = line.strip_prefix(br#"{"id":"#)?;
        let digits = rest.iter().take_while(|b| b.is_ascii_digit()).count();
        // JSON has no leading zeros; an id over u64 fails to parse.
        if digits == 0 || (digits > 1 && rest[0] == b'0') {
            return None;
        }
        let id: u64 = std::str::from_utf8(&rest[..digits]).ok()?.parse().ok()?;
        let rest = rest[digits..].strip_prefix(br#","method":""#)?;
        let end = rest.iter().position(|&b| b == b'"')?;
        let method = std::str::from_utf8(&rest[..end]).ok()?;
        if !method.bytes().all(|b| b.is_ascii_graphic() && b != b'\\') {
            return None;
        }
        let params = rest[end + 1..]
            .strip_prefix(br#","params":"#)?
            .strip_suffix(b"}")?;
        let params: Box<RawValue> = serde_json::from_slice(params).ok()?;
        Some(Self {
            id: Some(Value::from(id)),
            method: Some(method.to_owned()),
            params: Some(params),
            ..Self::default()
        })
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
        let params = self.params.unwrap_or_else(raw_null);
        match (id, self.method) {
            (Some(id), Some(method)) => Ok(Classified::Request { id, method, params }),
            (None, Some(method)) => Ok(Classified::Notification { method, params }),
            (Some(id), None) => {
                let outcome = match (self.result, self.error) {
                    (_, Some(err)) => Err(err),
                    (Some(result), None) => Ok(result),
                    (None, None) => Ok(raw_null()),
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

/// The id of a line that does not parse as a whole, read from its start:
/// the bridge writes `"id"` first, so it can be read before whatever is
/// broken later in the line.
pub(crate) fn leading_id(line: &[u8]) -> Option<u64> {
    #[derive(Default)]
    struct Probe(Option<u64>);
    impl<'de> serde::de::Visitor<'de> for &mut Probe {
        type Value = ();
        fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
            f.write_str("a protocol message")
        }
        fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
            while let Some(key) = map.next_key::<std::borrow::Cow<'de, str>>()? {
                if key == "id" {
                    self.0 = map.next_value::<Option<u64>>()?;
                    return Ok(());
                }
                map.next_value::<serde::de::IgnoredAny>()?;
            }
            Ok(())
        }
    }
    let mut probe = Probe::default();
    let mut de = serde_json::Deserializer::from_slice(line);
    // Whatever fails after the id (the rest of the line) is not our concern.
    let _ = serde::Deserializer::deserialize_map(&mut de, &mut probe);
    probe.0
}

/// What one pass over a line that serde_json refused finds: how deep it
/// nests, and a copy with lone surrogate escapes made U+FFFD (`None` when it
/// has none).
struct LineShape {
    depth: usize,
    well_formed: Option<Vec<u8>>,
}

impl LineShape {
    fn of(line: &[u8]) -> Self {
        let (mut depth, mut max) = (0usize, 0usize);
        let mut in_string = false;
        let mut fixed: Option<Vec<u8>> = None;
        // Bytes before `i` not yet copied into `fixed`.
        let mut copied = 0;
        let mut i = 0;
        while i < line.len() {
            let b = line[i];
            if !in_string {
                match b {
                    b'"' => in_string = true,
                    b'[' | b'{' => {
                        depth += 1;
                        max = max.max(depth);
                    }
                    b']' | b'}' => depth = depth.saturating_sub(1),
                    _ => {}
                }
                i += 1;
                continue;
            }
            match b {
                b'"' => in_string = false,
                b'\\' if line.get(i + 1) == Some(&b'u') => {
                    let unit = hex4(line, i + 2);
                    match unit {
                        Some(0xD800..=0xDBFF)
                            if line.get(i + 6) == Some(&b'\\')
                                && line.get(i + 7) == Some(&b'u')
                                && matches!(hex4(line, i + 8), Some(0xDC00..=0xDFFF)) =>
                        {
                            i += 12; // a proper pair
                            continue;
                        }
                        Some(0xD800..=0xDFFF) => {
                            let out = fixed.get_or_insert_with(|| Vec::with_capacity(line.len()));
                            out.extend_from_slice(&line[copied..i]);
                            out.extend_from_slice(br"\ufffd");
                            i += 6;
                            copied = i;
                            continue;
                        }
                        _ => {
                            i += 2;
                            continue;
                        }
                    }
                }
                b'\\' => {
                    i += 2; // any other escape, including \"
                    continue;
                }
                _ => {}
            }
            i += 1;
        }
        if let Some(out) = &mut fixed {
            out.extend_from_slice(&line[copied.min(line.len())..]);
        }
        Self {
            depth: max,
            well_formed: fixed,
        }
    }
}

/// The four hex digits at `at`, as a UTF-16 code unit.
fn hex4(line: &[u8], at: usize) -> Option<u32> {
    let digits = line.get(at..at + 4)?;
    digits.iter().try_fold(0, |unit, &d| {
        let nibble = (d as char).to_digit(16)?;
        Some(unit * 16 + nibble)
    })
}

/// Which of pi's contexts a request to the bridge acts in: the call it was
/// made from (the bridge's request id, which keys pi's `ctx` there) and the
/// session generation that call belonged to. The bridge never falls back to
/// another session's context: a finished call's requests act in the current
/// session only if it is still the call's own.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub(crate) struct CallRef {
    /// The bridge's request id of the call, if any.
    pub(crate) call: Option<u64>,
    /// The bridge's session generation when the call was made.
    pub(crate) session: Option<u64>,
}

impl CallRef {
    /// Params of an `api/call`, `ui/call` or `ui/dialog` request.
    pub(crate) fn params(self, method: &str, args: Value) -> Value {
        serde_json::json!({
            "call": self.call,
            "session": self.session,
            "method": method,
            "args": args,
        })
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
pub fn response_line<T: Serialize>(id: Option<u64>, outcome: &Result<T, RpcError>) -> Vec<u8> {
    #[derive(Serialize)]
    struct Ok<'a, T> {
        id: Option<u64>,
        result: &'a T,
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
    fn requests_as_the_bridge_writes_them_read_as_the_general_path_reads_them() {
        let raw = |p: Option<Box<RawValue>>| p.map(|p| p.get().to_owned());
        for line in [
            br#"{"id":7,"method":"tool/call","params":{"tool":"t","args":{"s":"\"}\u00e9"}}}"#
                .as_slice(),
            br#"{"id":0,"method":"ping","params":{}}"#,
            br#"{"id":18446744073709551615,"method":"hook/call","params":[1,"x",null]}"#,
        ] {
            let fast = Incoming::bridge_request(line).expect("read without serde's general paths");
            let general: Incoming = serde_json::from_slice(line).unwrap();
            assert_eq!(fast.id, general.id);
            assert_eq!(fast.method, general.method);
            assert_eq!(raw(fast.params), raw(general.params));
        }
        // Everything else is left to the general path.
        for line in [
            br#"{"id":01,"method":"m","params":{}}"#.as_slice(),
            br#"{"id":18446744073709551616,"method":"m","params":{}}"#,
            br#"{"id":1,"method":"m","params":{},"x":2}"#,
            br#"{"id":1,"method":"m\u0041","params":{}}"#,
            br#"{"id":1,"method":"m","params":{"a":}"#,
            br#"{"id":1,"method":"m","params":{}} "#,
            br#"{"method":"m","params":{}}"#,
            br#"{"id":1,"result":{}}"#,
        ] {
            assert!(
                Incoming::bridge_request(line).is_none(),
                "{}",
                String::from_utf8_lossy(line)
            );
        }
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
            Incoming::parse(b"not json").unwrap_err().error.code,
            codes::PARSE_ERROR
        );
        let neither = Incoming::parse(b"{}").unwrap().classify();
        assert!(neither.is_err());
    }

    fn args_name(line: &[u8]) -> Value {
        match Incoming::parse(line).unwrap().classify().unwrap() {
            Classified::Request { params, .. } => {
                from_raw::<Value>(&params).unwrap()["args"]["name"].clone()
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn lone_surrogates_from_javascript_become_replacement_characters() {
        // JSON.stringify("Ada \ud83d"): half an emoji.
        let line = br#"{"id":2,"method":"tool/call","params":{"tool":"greet","args":{"name":"Ada \ud83d"}}}"#;
        assert_eq!(args_name(line), "Ada \u{fffd}");
        // A lone trailing surrogate, one at the very end, and a proper pair kept.
        let line =
            br#"{"id":3,"method":"m","params":{"args":{"name":"\udc00x\ud83d\ude00\ud83d"}}}"#;
        assert_eq!(args_name(line), "\u{fffd}x\u{1f600}\u{fffd}");
        // An escaped backslash before `u` is not an escape.
        let line = br#"{"id":4,"method":"m","params":{"args":{"name":"\\ud83d \ud800"}}}"#;
        assert_eq!(args_name(line), "\\ud83d \u{fffd}");
    }

    #[test]
    fn deep_nesting_is_read_up_to_the_limit_and_answered_beyond_it() {
        let nested = |depth: usize| {
            format!(
                r#"{{"id":5,"method":"tool/call","params":{{"tool":"t","args":{{"name":{}1{}}}}}}}"#,
                "[".repeat(depth),
                "]".repeat(depth)
            )
        };
        // 3 levels of envelope around the arguments.
        let ok = nested(MAX_DEPTH - 4);
        let run = move || {
            let mut v = args_name(ok.as_bytes());
            let mut depth = 0;
            while let Value::Array(mut inner) = v {
                v = inner.pop().unwrap();
                depth += 1;
            }
            depth
        };
        // The runtime's threads have the stack for it; give this test's too.
        let depth = std::thread::Builder::new()
            .stack_size(crate::wire::framing::PARSE_STACK_BYTES)
            .spawn(run)
            .unwrap()
            .join()
            .unwrap();
        assert_eq!(depth, MAX_DEPTH - 4);
        // Beyond the limit the line is still read (its params stay text),
        // and its params are refused with the limit named: the request is
        // answered.
        let too_deep = nested(MAX_DEPTH + 10);
        let Classified::Request { id, params, .. } = Incoming::parse(too_deep.as_bytes())
            .unwrap()
            .classify()
            .unwrap()
        else {
            panic!("a request")
        };
        assert_eq!(id, 5);
        let err = from_raw::<Value>(&params).unwrap_err();
        assert!(err.to_string().contains("4096"), "{err}");
    }

    #[test]
    fn a_broken_request_keeps_its_id() {
        for (line, id) in [
            (
                &br#"{"id":9,"method":"tool/call","params":{"args":nope}}"#[..],
                Some(9),
            ),
            (
                b"{\"id\":10,\"method\":\"m\",\"params\":\"\xff\xfe\"}",
                Some(10),
            ),
            (br#"{"id":11,"method":"m"} trailing"#, Some(11)),
            (br#"{"method":"m","params":[,],"id":12}"#, None),
            (b"\xff", None),
            (b"[1,2", None),
        ] {
            let err = Incoming::parse(line).unwrap_err();
            assert_eq!(err.id, id, "{}", String::from_utf8_lossy(line));
            assert_eq!(err.error.code, codes::PARSE_ERROR);
        }
    }
}
