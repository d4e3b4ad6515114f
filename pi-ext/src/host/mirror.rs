//! Mirrored lists: the conversation a `context` hook sees and the arrays of
//! a provider request, kept in step with the bridge's copy so that each call
//! carries only what changed.
//!
//! The bridge keeps the list it sent last per hook; each call sends edits
//! against it: `[0, start, len]` keeps `len` elements of the previous list
//! from `start`, `[1, <json>]` is a new element. The runtime applies them to
//! its own copy (the messages are shared `Arc`s, parsed once) before the
//! hook runs. A hook's answer goes back the same way, against the call's
//! input: elements the hook passed on (clones of the input's `Arc`s) become
//! keep runs, the others literals. A `context` hook's new messages can
//! also refer to the new messages of its previous answer, which the bridge
//! keeps ([`PriorAnswer`]). See PROTOCOL.md, "Mirrored payloads".

use std::collections::{BTreeMap, HashMap};
use std::sync::{Arc, Mutex};

use serde::de::{Error as _, SeqAccess, Visitor};
use serde::ser::SerializeSeq;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::value::RawValue;
use serde_json::{Map, Value};

use crate::data::messages::{Message, Messages};
use crate::data::payload::{PayloadItem, PayloadList, ProviderRequest};

/// One edit, as read from the bridge.
#[derive(Debug)]
pub(crate) enum Op {
    /// Keep `len` elements of the previous list from `start`.
    Keep { start: usize, len: usize },
    /// A new element.
    Literal(Box<RawValue>),
}

impl<'de> Deserialize<'de> for Op {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Op;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("[0, start, len] or [1, <element>]")
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Op, A::Error> {
                let kind: u8 = seq
                    .next_element()?
                    .ok_or_else(|| A::Error::custom("an empty op"))?;
                let op = match kind {
                    0 => {
                        let start = seq
                            .next_element()?
                            .ok_or_else(|| A::Error::custom("a keep op without its start"))?;
                        let len = seq
                            .next_element()?
                            .ok_or_else(|| A::Error::custom("a keep op without its length"))?;
                        Op::Keep { start, len }
                    }
                    1 => Op::Literal(
                        seq.next_element()?
                            .ok_or_else(|| A::Error::custom("a literal op without its element"))?,
                    ),
                    other => return Err(A::Error::custom(format!("unknown op {other}"))),
                };
                if seq.next_element::<serde::de::IgnoredAny>()?.is_some() {
                    return Err(A::Error::custom("an op with too many elements"));
                }
                Ok(op)
            }
        }
        d.deserialize_seq(V)
    }
}

/// A list update from the bridge.
#[derive(Debug, Deserialize)]
pub(crate) struct ListUpdate {
    /// The generation the ops apply to (`None`: no previous list).
    #[serde(default)]
    pub(crate) base: Option<u64>,
    /// The generation of the list they make.
    pub(crate) gen: u64,
    /// Its length.
    pub(crate) len: usize,
    pub(crate) ops: Vec<Op>,
    /// `PI_EXT_MIRROR_CHECK=1`: `JSON.stringify` of the whole list.
    #[serde(default)]
    pub(crate) check: Option<String>,
    /// `context`: the generation of this hook's answer whose new messages
    /// the bridge holds (none: it holds none, or predates them).
    #[serde(default)]
    pub(crate) prior: Option<u64>,
}

/// A list element made from the text the bridge sent.
pub(crate) trait Element: Clone {
    fn from_raw(raw: Box<RawValue>) -> Self;
    fn raw(&self) -> &RawValue;
    /// The identity of the shared element.
    fn addr(&self) -> usize;
    /// Whether this handle is the element's only one: then it is in no
    /// input list (the input holds a handle to each of its elements).
    fn is_unique(&self) -> bool;
}

impl Element for Message {
    fn from_raw(raw: Box<RawValue>) -> Self {
        Message::from_raw(raw)
    }
    fn raw(&self) -> &RawValue {
        self.raw_value()
    }
    fn addr(&self) -> usize {
        Message::addr(self)
    }
    fn is_unique(&self) -> bool {
        Message::is_unique(self)
    }
}

impl Element for PayloadItem {
    fn from_raw(raw: Box<RawValue>) -> Self {
        PayloadItem::from_raw(raw)
    }
    fn raw(&self) -> &RawValue {
        self.raw_value()
    }
    fn addr(&self) -> usize {
        PayloadItem::addr(self)
    }
    fn is_unique(&self) -> bool {
        PayloadItem::is_unique(self)
    }
}

/// Why an update could not be applied. The bridge then sends the whole list
/// again (`-32010`).
#[derive(Debug, PartialEq)]
pub(crate) struct Mismatch(pub(crate) String);

/// The list as the bridge last sent it.
pub(crate) struct ListMirror<E> {
    gen: Option<u64>,
    items: Arc<[E]>,
}

impl<E> Default for ListMirror<E> {
    fn default() -> Self {
        Self {
            gen: None,
            items: Arc::from(Vec::new()),
        }
    }
}

impl<E: Element> ListMirror<E> {
    /// Apply an update; on any error the mirror is emptied (the bridge
    /// starts over with the whole list).
    pub(crate) fn apply(&mut self, update: ListUpdate) -> Result<Arc<[E]>, Mismatch> {
        let result = self.try_apply(update);
        if result.is_err() {
            *self = Self::default();
        }
        result
    }

    fn try_apply(&mut self, update: ListUpdate) -> Result<Arc<[E]>, Mismatch> {
        let previous: &[E] = match update.base {
            None => &[],
            Some(base) if Some(base) == self.gen => &self.items,
            Some(base) => {
                return Err(Mismatch(format!(
                    "the edits apply to generation {base}, this process has {}",
                    self.gen.map_or("none".into(), |g| g.to_string())
                )))
            }
        };
        let mut items = Vec::with_capacity(update.len);
        for op in update.ops {
            match op {
                Op::Keep { start, len } => {
                    let run = start
                        .checked_add(len)
                        .and_then(|end| previous.get(start..end))
                        .ok_or_else(|| {
                            Mismatch(format!(
                                "keep {start}+{len} is outside the previous list of {}",
                                previous.len()
                            ))
                        })?;
                    items.extend_from_slice(run);
                }
                Op::Literal(raw) => items.push(E::from_raw(raw)),
            }
        }
        if items.len() != update.len {
            return Err(Mismatch(format!(
                "the edits make {} elements, the bridge says {}",
                items.len(),
                update.len
            )));
        }
        if let Some(check) = &update.check {
            check_list(&items, check)?;
        }
        let items: Arc<[E]> = items.into();
        self.items = items.clone();
        self.gen = Some(update.gen);
        Ok(items)
    }
}

/// `PI_EXT_MIRROR_CHECK=1`: the list, written as JSON, must be what the
/// bridge wrote.
fn check_list<E: Element>(items: &[E], check: &str) -> Result<(), Mismatch> {
    let mut mine = String::with_capacity(check.len());
    mine.push('[');
    for (i, item) in items.iter().enumerate() {
        if i > 0 {
            mine.push(',');
        }
        mine.push_str(item.raw().get());
    }
    mine.push(']');
    if mine == check {
        return Ok(());
    }
    let at = crate::data::session::first_difference(&mine, check);
    // Which element holds the first difference.
    let mut offset = 1;
    let index = items
        .iter()
        .position(|item| {
            offset += item.raw().get().len() + 1;
            offset > at
        })
        .unwrap_or(items.len());
    Err(Mismatch(format!(
        "the mirrored list differs from pi's at element {index} (PI_EXT_MIRROR_CHECK)"
    )))
}

/// An edit of an answer, against the call's input.
pub(crate) enum OutOp<'a, E> {
    Keep {
        start: usize,
        len: usize,
    },
    Literal(&'a E),
    /// `len` new elements of the hook's previous answer from `start`.
    Prior {
        start: usize,
        len: usize,
    },
}

/// How far past the last kept element [`diff_by_identity`] looks before it
/// builds the map of input positions.
const LOOK_AHEAD: usize = 4;

/// `output` as edits of `input`: elements of `input` (the same `Arc`s) in
/// increasing input order become keep runs, everything else a literal.
/// `None` when `output` is `input` unchanged.
pub(crate) fn diff_by_identity<'a, E: Element>(
    input: &[E],
    output: &'a [E],
) -> Option<Vec<OutOp<'a, E>>> {
    if input.len() == output.len() && input.iter().zip(output).all(|(a, b)| a.addr() == b.addr()) {
        return None;
    }
    // Input positions by identity, built only when an element that may be
    // the input's is not found just ahead of the last one kept: a hook that
    // makes new messages and passes the others on in order never needs it.
    let mut position: Option<HashMap<usize, usize>> = None;
    let mut ops: Vec<OutOp<'a, E>> = Vec::new();
    // Keep runs must go forwards through the input (an element kept twice,
    // or moved back, is a literal: the bridge builds the answer from runs).
    let mut next = 0usize;
    for e in output {
        if e.is_unique() {
            // Made by the hook and held by the answer alone.
            ops.push(OutOp::Literal(e));
            continue;
        }
        let addr = e.addr();
        let ahead = input
            .get(next..)
            .unwrap_or_default()
            .iter()
            .take(LOOK_AHEAD)
            .position(|x| x.addr() == addr)
            .map(|k| next + k);
        let found = ahead.or_else(|| {
            position
                .get_or_insert_with(|| {
                    input
                        .iter()
                        .enumerate()
                        .map(|(i, e)| (e.addr(), i))
                        .collect()
                })
                .get(&addr)
                .copied()
        });
        match found {
            Some(i) if i >= next => {
                match ops.last_mut() {
                    Some(OutOp::Keep { start, len }) if *start + *len == i => *len += 1,
                    _ => ops.push(OutOp::Keep { start: i, len: 1 }),
                }
                next = i + 1;
            }
            _ => ops.push(OutOp::Literal(e)),
        }
    }
    Some(ops)
}

/// Writes answer edits as `[[0,start,len],[1,<json>],…]`.
pub(crate) struct OpsJson<'a, E>(pub(crate) &'a [OutOp<'a, E>]);

impl<E: Element> Serialize for OpsJson<'_, E> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut seq = s.serialize_seq(Some(self.0.len()))?;
        for op in self.0 {
            match op {
                OutOp::Keep { start, len } => seq.serialize_element(&(0u8, start, len))?,
                OutOp::Literal(e) => seq.serialize_element(&(1u8, e.raw()))?,
                OutOp::Prior { start, len } => seq.serialize_element(&(2u8, start, len))?,
            }
        }
        seq.end()
    }
}

/// The new messages of a `context` hook's last answer, in order, and that
/// answer's generation (0: none yet).
///
/// A hook that rewrites messages (a pruning placeholder, a redaction) makes
/// the same new messages at every request; the bridge keeps its own copies
/// of the last answer's, and the next answer names them (`[2, start, len]`)
/// instead of sending them again: a pruning hook at 5,000 messages answered
/// 325 KB per request, which pi's thread parsed.
#[derive(Default)]
pub(crate) struct AnswerMemory {
    gen: u64,
    items: Vec<Message>,
}

/// A `context` call's way to its hook's [`AnswerMemory`]: the memory, and
/// which answer's messages the bridge said it holds.
#[derive(Clone)]
pub struct PriorAnswer {
    memory: Arc<Mutex<AnswerMemory>>,
    held: Option<u64>,
}

impl PriorAnswer {
    pub(crate) fn new(memory: Arc<Mutex<AnswerMemory>>, held: Option<u64>) -> Self {
        Self { memory, held }
    }
}

impl std::fmt::Debug for PriorAnswer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PriorAnswer")
            .field("held", &self.held)
            .finish_non_exhaustive()
    }
}

/// The literals of `ops` that are new messages of the previous answer
/// (`prior`) become `Prior` runs; returns the new messages of this answer
/// in order (literals and prior runs alike), what the bridge keeps next.
fn refer_to_prior<'a>(ops: &mut Vec<OutOp<'a, Message>>, prior: &[Message]) -> Vec<Message> {
    let mut kept = Vec::new();
    let mut by_text: Option<HashMap<&str, usize>> = None;
    let mut next = 0usize;
    let mut out: Vec<OutOp<'a, Message>> = Vec::with_capacity(ops.len());
    for op in ops.drain(..) {
        let OutOp::Literal(e) = op else {
            out.push(op);
            continue;
        };
        kept.push(e.clone());
        // Most answers repeat the previous one's messages in order; a
        // look-up table only when one is not where the last one ended.
        // `==` on messages: the same one, or the same JSON text.
        let found = if next < prior.len() && prior[next] == *e {
            Some(next)
        } else if prior.is_empty() {
            None
        } else {
            by_text
                .get_or_insert_with(|| {
                    let mut map = HashMap::with_capacity(prior.len());
                    for (i, m) in prior.iter().enumerate().rev() {
                        map.insert(m.raw_json(), i);
                    }
                    map
                })
                .get(e.raw_json())
                .copied()
        };
        match found {
            Some(k) => {
                match out.last_mut() {
                    Some(OutOp::Prior { start, len }) if *start + *len == k => *len += 1,
                    _ => out.push(OutOp::Prior { start: k, len: 1 }),
                }
                next = k + 1;
            }
            None => out.push(OutOp::Literal(e)),
        }
    }
    *ops = out;
    kept
}

/// The answer of a `context` hook in mirror form: `{"ops": [...]}`, or
/// `null` when it kept the input as it was. With `prior` (the bridge keeps
/// answers), also the answer's generation, `"gen"`, and, when ops refer to
/// the previous answer, its generation, `"prior"`.
pub(crate) fn context_answer(
    input: &Messages,
    output: &[Message],
    prior: Option<&PriorAnswer>,
) -> Option<Box<RawValue>> {
    let mut ops = diff_by_identity(input, output)?;
    #[derive(Serialize)]
    struct Answer<'a> {
        ops: OpsJson<'a, Message>,
        #[serde(skip_serializing_if = "Option::is_none")]
        gen: Option<u64>,
        #[serde(skip_serializing_if = "Option::is_none")]
        prior: Option<u64>,
    }
    let Some(prior) = prior else {
        return serde_json::value::to_raw_value(&Answer {
            ops: OpsJson(&ops),
            gen: None,
            prior: None,
        })
        .ok();
    };
    // Held across the write: two answers of one hook at once (pi does not
    // do that) take turns, each against the memory the other left.
    let mut memory = prior.memory.lock().unwrap_or_else(|e| e.into_inner());
    let held = memory.gen != 0 && prior.held == Some(memory.gen);
    let previous = if held {
        std::mem::take(&mut memory.items)
    } else {
        Vec::new()
    };
    let kept = refer_to_prior(&mut ops, &previous);
    let refers = ops.iter().any(|op| matches!(op, OutOp::Prior { .. }));
    let gen = memory.gen + 1;
    let answer = serde_json::value::to_raw_value(&Answer {
        ops: OpsJson(&ops),
        gen: Some(gen),
        prior: refers.then_some(memory.gen),
    })
    .ok();
    drop(ops);
    memory.gen = gen;
    memory.items = kept;
    answer
}

// ---------------------------------------------------------------- provider

/// A provider request update from the bridge.
#[derive(Debug, Deserialize)]
pub(crate) struct PayloadUpdate {
    #[serde(default)]
    pub(crate) base: Option<u64>,
    pub(crate) gen: u64,
    /// Fields that are new or changed (all of them without a base).
    #[serde(default)]
    pub(crate) fields: Map<String, Value>,
    /// Fields and lists that are gone.
    #[serde(default)]
    pub(crate) removed: Vec<String>,
    /// Every list of the request, as edits of the list of the same name.
    #[serde(default)]
    pub(crate) lists: BTreeMap<String, ListUpdate>,
    /// `PI_EXT_MIRROR_CHECK=1`: `JSON.stringify` of the whole request.
    #[serde(default)]
    pub(crate) check: Option<String>,
}

/// The provider request as the bridge last sent it.
#[derive(Default)]
pub(crate) struct PayloadMirror {
    gen: Option<u64>,
    fields: Map<String, Value>,
    lists: BTreeMap<String, ListMirror<PayloadItem>>,
}

impl PayloadMirror {
    /// Apply an update; on any error the mirror is emptied.
    pub(crate) fn apply(&mut self, update: PayloadUpdate) -> Result<ProviderRequest, Mismatch> {
        let result = self.try_apply(update);
        if result.is_err() {
            *self = Self::default();
        }
        result
    }

    fn try_apply(&mut self, update: PayloadUpdate) -> Result<ProviderRequest, Mismatch> {
        match update.base {
            None => *self = Self::default(),
            Some(base) if Some(base) == self.gen => {}
            Some(base) => {
                return Err(Mismatch(format!(
                    "the request edits apply to generation {base}, this process has {}",
                    self.gen.map_or("none".into(), |g| g.to_string())
                )))
            }
        }
        for key in &update.removed {
            self.fields.remove(key);
            self.lists.remove(key);
        }
        for (key, value) in update.fields {
            self.lists.remove(&key);
            self.fields.insert(key, value);
        }
        let mut lists: BTreeMap<String, PayloadList> = BTreeMap::new();
        let mut mirrors = BTreeMap::new();
        for (key, list) in update.lists {
            let mut mirror = self.lists.remove(&key).unwrap_or_default();
            self.fields.remove(&key);
            lists.insert(key.clone(), mirror.apply(list)?);
            mirrors.insert(key, mirror);
        }
        // A list the update does not name is gone.
        self.lists = mirrors;
        let request = ProviderRequest::from_parts(self.fields.clone(), lists);
        if let Some(check) = &update.check {
            let theirs: Value = serde_json::from_str(check)
                .map_err(|e| Mismatch(format!("unreadable check: {e}")))?;
            if request.to_value() != theirs {
                return Err(Mismatch(
                    "the mirrored provider request differs from pi's (PI_EXT_MIRROR_CHECK)".into(),
                ));
            }
        }
        self.gen = Some(update.gen);
        Ok(request)
    }
}

/// The answer of a `before_provider_request` hook in mirror form:
/// `{"changes": {"fields": {…}, "removed": […], "lists": {"k": {"ops": […]}}}}`
/// with what differs from the input, or `None` when nothing does.
pub(crate) fn payload_answer(
    input: &ProviderRequest,
    output: &ProviderRequest,
) -> Option<Box<RawValue>> {
    let mut fields = Map::new();
    for (k, v) in output.fields() {
        if input.field(k) != Some(v) {
            fields.insert(k.clone(), v.clone());
        }
    }
    let mut removed: Vec<&str> = input
        .fields()
        .keys()
        .filter(|k| output.field(k).is_none() && output.list(k).is_none())
        .map(String::as_str)
        .collect();
    removed.extend(
        input
            .list_names()
            .filter(|k| output.list(k).is_none() && output.field(k).is_none()),
    );
    let empty: &[PayloadItem] = &[];
    let diffs: Vec<(&str, Vec<OutOp<'_, PayloadItem>>)> = output
        .lists()
        .iter()
        .filter_map(|(k, list)| {
            let before = input.list(k).unwrap_or(empty);
            let ops = match diff_by_identity(before, list) {
                Some(ops) => ops,
                // The same list, or a new empty one.
                None if input.list(k).is_some() => return None,
                None => Vec::new(),
            };
            Some((k.as_str(), ops))
        })
        .collect();
    if fields.is_empty() && removed.is_empty() && diffs.is_empty() {
        return None;
    }
    #[derive(Serialize)]
    struct ListOps<'a> {
        ops: OpsJson<'a, PayloadItem>,
    }
    #[derive(Serialize)]
    struct Changes<'a> {
        fields: Map<String, Value>,
        removed: Vec<&'a str>,
        lists: BTreeMap<&'a str, ListOps<'a>>,
    }
    #[derive(Serialize)]
    struct Answer<'a> {
        changes: Changes<'a>,
    }
    let lists = diffs
        .iter()
        .map(|(k, ops)| (*k, ListOps { ops: OpsJson(ops) }))
        .collect();
    serde_json::value::to_raw_value(&Answer {
        changes: Changes {
            fields,
            removed,
            lists,
        },
    })
    .ok()
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn msg(n: u32) -> Box<RawValue> {
        serde_json::value::to_raw_value(
            &serde_json::json!({"role": "user", "content": format!("m{n}"), "timestamp": n}),
        )
        .unwrap()
    }

    fn update(base: Option<u64>, gen: u64, len: usize, ops: Vec<Op>) -> ListUpdate {
        ListUpdate {
            base,
            gen,
            len,
            ops,
            check: None,
            prior: None,
        }
    }

    fn texts(items: &[Message]) -> Vec<String> {
        items.iter().map(|m| m.raw_json().to_owned()).collect()
    }

    #[test]
    fn keeps_and_literals_rebuild_the_list_and_share_kept_messages() {
        let mut mirror = ListMirror::<Message>::default();
        let first = mirror
            .apply(update(
                None,
                1,
                3,
                vec![
                    Op::Literal(msg(0)),
                    Op::Literal(msg(1)),
                    Op::Literal(msg(2)),
                ],
            ))
            .unwrap();
        let second = mirror
            .apply(update(
                Some(1),
                2,
                3,
                vec![Op::Keep { start: 1, len: 2 }, Op::Literal(msg(3))],
            ))
            .unwrap();
        assert_eq!(texts(&second), [msg(1).get(), msg(2).get(), msg(3).get()]);
        assert!(
            Message::ptr_eq(&first[1], &second[0]),
            "kept messages are shared"
        );
    }

    #[test]
    fn a_wrong_base_or_bad_ops_are_refused_and_empty_the_mirror() {
        let mut mirror = ListMirror::<Message>::default();
        mirror
            .apply(update(None, 1, 1, vec![Op::Literal(msg(0))]))
            .unwrap();
        for bad in [
            update(Some(7), 8, 1, vec![Op::Keep { start: 0, len: 1 }]),
            update(Some(1), 2, 1, vec![Op::Keep { start: 0, len: 2 }]),
            update(Some(1), 2, 5, vec![Op::Keep { start: 0, len: 1 }]),
            update(
                Some(1),
                2,
                1,
                vec![Op::Keep {
                    start: usize::MAX,
                    len: 2,
                }],
            ),
        ] {
            mirror
                .apply(update(None, 1, 1, vec![Op::Literal(msg(0))]))
                .unwrap();
            assert!(mirror.apply(bad).is_err());
            assert!(mirror.gen.is_none() && mirror.items.is_empty());
        }
    }

    #[test]
    fn ops_are_read_from_the_wire_shape() {
        let u: ListUpdate = serde_json::from_str(
            r#"{"base":null,"gen":1,"len":2,"ops":[[1,{"role":"user","content":"a","timestamp":1}],[0,0,1]]}"#,
        )
        .unwrap();
        assert!(
            matches!(u.ops[0], Op::Literal(ref r) if r.get() == r#"{"role":"user","content":"a","timestamp":1}"#)
        );
        assert!(matches!(u.ops[1], Op::Keep { start: 0, len: 1 }));
        for bad in [r#"[]"#, r#"[2,1]"#, r#"[0,1]"#, r#"[0,1,2,3]"#, r#"[1]"#] {
            assert!(serde_json::from_str::<Op>(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn check_mode_names_the_element_that_differs() {
        let mut mirror = ListMirror::<Message>::default();
        let mut u = update(None, 1, 2, vec![Op::Literal(msg(0)), Op::Literal(msg(1))]);
        u.check = Some(format!("[{},{}]", msg(0).get(), msg(5).get()));
        let err = mirror.apply(u).unwrap_err();
        assert!(err.0.contains("element 1"), "{}", err.0);
    }

    /// Apply answer edits the way the bridge does.
    fn apply_answer(input: &[Message], ops: &[OutOp<'_, Message>]) -> Vec<String> {
        let mut out = Vec::new();
        for op in ops {
            match op {
                OutOp::Keep { start, len } => out.extend(texts(&input[*start..start + len])),
                OutOp::Literal(m) => out.push(m.raw_json().to_owned()),
                OutOp::Prior { .. } => unreachable!("diff_by_identity makes no prior runs"),
            }
        }
        out
    }

    /// Apply a context answer the way the bridge does: runs of `input`, literals and runs of
    /// the previous answer's new messages (`held`); returns the list and the new messages.
    fn bridge_applies(
        input: &[Message],
        answer: &RawValue,
        held: &[Value],
    ) -> (Vec<Value>, Vec<Value>) {
        let answer: Value = serde_json::from_str(answer.get()).unwrap();
        let (mut out, mut kept) = (Vec::new(), Vec::new());
        for op in answer["ops"].as_array().unwrap() {
            let n = |i: usize| op[i].as_u64().unwrap() as usize;
            match op[0].as_u64().unwrap() {
                0 => out.extend(
                    input[n(1)..n(1) + n(2)]
                        .iter()
                        .map(|m| serde_json::from_str::<Value>(m.raw_json()).unwrap()),
                ),
                1 => {
                    out.push(op[1].clone());
                    kept.push(op[1].clone());
                }
                _ => {
                    out.extend_from_slice(&held[n(1)..n(1) + n(2)]);
                    kept.extend_from_slice(&held[n(1)..n(1) + n(2)]);
                }
            }
        }
        (out, kept)
    }

    fn values(items: &[Message]) -> Vec<Value> {
        items
            .iter()
            .map(|m| serde_json::from_str(m.raw_json()).unwrap())
            .collect()
    }

    #[test]
    fn a_context_answer_names_the_new_messages_of_the_previous_answer_the_bridge_holds() {
        let memory = Arc::new(Mutex::new(AnswerMemory::default()));
        let input: Vec<Message> = (0..6).map(|i| Message::from_raw(msg(i))).collect();
        // Every other message replaced by a placeholder made anew at each call.
        let prune = |input: &[Message]| -> Vec<Message> {
            input
                .iter()
                .enumerate()
                .map(|(i, m)| {
                    if i % 2 == 0 {
                        Message::from_raw(msg(100 + i as u32))
                    } else {
                        m.clone()
                    }
                })
                .collect()
        };
        let messages = Messages::from_arc(input.clone().into());
        let first = context_answer(
            &messages,
            &prune(&input),
            Some(&PriorAnswer::new(memory.clone(), None)),
        )
        .unwrap();
        assert!(!first.get().contains("[2,"), "nothing held yet: {first}");
        let (out, held) = bridge_applies(&input, &first, &[]);
        assert_eq!(out, values(&prune(&input)));
        let gen: Value = serde_json::from_str(first.get()).unwrap();
        let gen = gen["gen"].as_u64().unwrap();

        // The next call: one more message; the placeholders again.
        let input: Vec<Message> = input
            .iter()
            .cloned()
            .chain([Message::from_raw(msg(6))])
            .collect();
        let messages = Messages::from_arc(input.clone().into());
        let second = context_answer(
            &messages,
            &prune(&input),
            Some(&PriorAnswer::new(memory.clone(), Some(gen))),
        )
        .unwrap();
        // The three placeholders of the first answer by name, the new one as a literal.
        let text = second.get();
        assert!(
            text.contains("[2,0,1]") && text.contains("[2,1,1]") && text.contains("[2,2,1]"),
            "{second}"
        );
        assert_eq!(text.matches("[1,").count(), 1, "{second}");
        assert!(text.contains(&format!("\"prior\":{gen}")), "{second}");
        let (out, _) = bridge_applies(&input, &second, &held);
        assert_eq!(out, values(&prune(&input)));

        // A bridge that holds another answer (or none) gets literals only.
        let third = context_answer(
            &messages,
            &prune(&input),
            Some(&PriorAnswer::new(memory, Some(gen))),
        )
        .unwrap();
        assert!(!third.get().contains("[2,"), "{third}");
        let (out, _) = bridge_applies(&input, &third, &[]);
        assert_eq!(out, values(&prune(&input)));
    }

    proptest! {
        /// Whatever a hook does with its input (drop, keep, repeat, reorder,
        /// add), the edits rebuild exactly its answer, and every kept input
        /// message is sent as a keep.
        #[test]
        fn answers_as_edits_rebuild_the_answer(
            n in 0usize..40,
            picks in proptest::collection::vec((0usize..60, any::<bool>()), 0..60),
        ) {
            let input: Vec<Message> = (0..n as u32).map(|i| Message::from_raw(msg(i))).collect();
            let output: Vec<Message> = picks
                .iter()
                .map(|&(i, fresh)| {
                    if i < n && !fresh {
                        input[i].clone()
                    } else {
                        Message::from_raw(msg(1000 + i as u32))
                    }
                })
                .collect();
            match diff_by_identity(&input, &output) {
                None => prop_assert_eq!(texts(&input), texts(&output)),
                Some(ops) => {
                    prop_assert_eq!(apply_answer(&input, &ops), texts(&output));
                    let literals = ops.iter().filter(|o| matches!(o, OutOp::Literal(_))).count();
                    let new = picks.iter().filter(|&&(i, fresh)| i >= n || fresh).count();
                    // Literals: the new messages, plus kept ones out of order.
                    prop_assert!(literals >= new);
                }
            }
        }

        /// Answers in a row, each made of input messages, new messages and messages equal
        /// to earlier answers' (in any order, repeated): the bridge, holding what the
        /// extension says it holds or not, rebuilds each answer exactly.
        #[test]
        fn answers_in_a_row_rebuild_with_or_without_the_previous_answer(
            rounds in proptest::collection::vec(
                (proptest::collection::vec((0u8..3, 0u32..12), 0..16), any::<bool>()),
                1..6,
            ),
        ) {
            let memory = Arc::new(Mutex::new(AnswerMemory::default()));
            let input: Vec<Message> = (0..8).map(|i| Message::from_raw(msg(i))).collect();
            let messages = Messages::from_arc(input.clone().into());
            let (mut held, mut held_gen): (Vec<Value>, Option<u64>) = (Vec::new(), None);
            for (picks, bridge_lost_it) in rounds {
                if bridge_lost_it {
                    held.clear();
                    held_gen = None;
                }
                let output: Vec<Message> = picks
                    .iter()
                    .map(|&(kind, n)| match kind {
                        0 => input[n as usize % 8].clone(),
                        // A few distinct texts, so answers repeat each other's.
                        _ => Message::from_raw(msg(200 + n % 5)),
                    })
                    .collect();
                let Some(answer) = context_answer(
                    &messages,
                    &output,
                    Some(&PriorAnswer::new(memory.clone(), held_gen)),
                ) else {
                    prop_assert_eq!(values(&output), values(&input));
                    continue;
                };
                let (out, kept) = bridge_applies(&input, &answer, &held);
                prop_assert_eq!(out, values(&output));
                let parsed: Value = serde_json::from_str(answer.get()).unwrap();
                if answer.get().contains("[2,") {
                    prop_assert_eq!(parsed["prior"].as_u64(), held_gen);
                }
                held = kept;
                held_gen = parsed["gen"].as_u64();
            }
        }

        /// Random keep/literal sequences against a random previous list:
        /// applied, the mirror holds exactly what the ops describe.
        #[test]
        fn random_updates_apply_or_are_refused(
            prev in 0usize..30,
            ops in proptest::collection::vec((any::<bool>(), 0usize..35, 0usize..10), 0..20),
        ) {
            let mut mirror = ListMirror::<Message>::default();
            let base: Vec<Box<RawValue>> = (0..prev as u32).map(msg).collect();
            let first = mirror
                .apply(update(None, 1, prev, base.iter().map(|r| Op::Literal(r.clone())).collect()))
                .unwrap();
            let mut expected = Vec::new();
            let mut valid = true;
            let wire: Vec<Op> = ops
                .iter()
                .enumerate()
                .map(|(k, &(keep, start, len))| {
                    if keep {
                        match first.get(start..start + len) {
                            Some(run) => expected.extend(texts(run)),
                            None => valid = false,
                        }
                        Op::Keep { start, len }
                    } else {
                        let m = msg(500 + k as u32);
                        expected.push(m.get().to_owned());
                        Op::Literal(m)
                    }
                })
                .collect();
            let len = expected.len();
            match mirror.apply(update(Some(1), 2, len, wire)) {
                Ok(items) => {
                    prop_assert!(valid);
                    prop_assert_eq!(texts(&items), expected);
                }
                Err(_) => prop_assert!(!valid),
            }
        }
    }

    #[test]
    fn provider_requests_are_mirrored_and_answered_as_changes() {
        let mut mirror = PayloadMirror::default();
        let u: PayloadUpdate = serde_json::from_str(
            r#"{"base":null,"gen":1,"fields":{"model":"m","stream":true},"removed":[],
                "lists":{"messages":{"base":null,"gen":1,"len":1,"ops":[[1,{"role":"user","content":"a"}]]},
                         "tools":{"base":null,"gen":1,"len":0,"ops":[]}}}"#,
        )
        .unwrap();
        let first = mirror.apply(u).unwrap();
        let u: PayloadUpdate = serde_json::from_str(
            r#"{"base":1,"gen":2,"fields":{"model":"n"},"removed":["stream"],
                "lists":{"messages":{"base":1,"gen":2,"len":2,"ops":[[0,0,1],[1,{"role":"user","content":"b"}]]}}}"#,
        )
        .unwrap();
        let second = mirror.apply(u).unwrap();
        assert_eq!(
            second.to_value(),
            serde_json::json!({"model": "n", "messages": [{"role": "user", "content": "a"}, {"role": "user", "content": "b"}]})
        );
        assert!(PayloadItem::ptr_eq(
            &first.list("messages").unwrap()[0],
            &second.list("messages").unwrap()[0]
        ));
        // An answer that changes one field and drops the first message.
        let mut answer = second.clone();
        answer.set_field("user", serde_json::json!("me"));
        let kept = answer.list("messages").unwrap()[1..].to_vec();
        answer.set_list("messages", kept);
        let raw = payload_answer(&second, &answer).unwrap();
        assert_eq!(
            raw.get(),
            r#"{"changes":{"fields":{"user":"me"},"removed":[],"lists":{"messages":{"ops":[[0,1,1]]}}}}"#
        );
        assert!(payload_answer(&second, &second.clone()).is_none());
        // A wrong base is refused.
        let stale: PayloadUpdate =
            serde_json::from_str(r#"{"base":9,"gen":10,"fields":{},"lists":{}}"#).unwrap();
        assert!(mirror.apply(stale).is_err());
    }
}
