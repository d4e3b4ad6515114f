// @ts-check
// Mirrored lists: the edits the bridge sends rebuild exactly pi's list on
// the other side, whatever happened to it between two calls; answers as
// edits; the provider request's fields and lists; streamed updates batched
// per turn; session reads from a cursor.
import assert from "node:assert/strict";
import { test } from "node:test";

import { AnswerMemory, applyChanges, applyOps, copyJson, deepEqual, ListMirror, PayloadMirror, StaleAnswer } from "../lib/mirror.js";
import { fakeCtx, manifestWith, startBridge, until } from "./helpers.js";

/** xorshift32, for reproducible random lists. */
/** @param {number} seed */
function rng(seed) {
  let x = seed >>> 0 || 1;
  return (/** @type {number} */ n) => {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    x >>>= 0;
    return x % n;
  };
}

/**
 * The extension's side: what the ops make of the previous list's JSON texts.
 * @param {string[]} prevTexts
 * @param {import("../lib/mirror.js").ListUpdate} update
 */
function applyUpdate(prevTexts, update) {
  /** @type {string[]} */
  const out = [];
  for (const op of update.ops) {
    if (op[0] === 0) {
      assert.ok(op[1] + op[2] <= prevTexts.length, "a keep inside the previous list");
      out.push(...prevTexts.slice(op[1], op[1] + op[2]));
    } else out.push(JSON.stringify(op[1]));
  }
  assert.equal(out.length, update.len);
  return out;
}

/** A message as pi has them. @param {number} i @param {string} [text] */
const message = (i, text = `text ${i}`) => ({
  role: i % 3 === 0 ? "user" : i % 3 === 1 ? "assistant" : "toolResult",
  content: [{ type: "text", text }],
  timestamp: 1000 + i,
  ...(i % 3 === 2 ? { toolCallId: `call_${i}`, details: { n: i, nested: [i, { deep: `x${i}` }] } } : {}),
});

test("deepEqual is JSON equality, conservative where JSON hides things", () => {
  assert.equal(deepEqual({ a: [1, { b: "x" }] }, { a: [1, { b: "x" }] }), true);
  assert.equal(deepEqual({ a: 1, b: 2 }, { b: 2, a: 1 }), true, "JSON objects are unordered");
  assert.equal(deepEqual({ a: 1, b: 2 }, { b: 2, a: 1 }, true), false, "ordered: key order is part of the JSON text");
  assert.equal(deepEqual({ a: 1 }, { a: 1, b: 2 }), false);
  assert.equal(deepEqual({ a: 1, b: 2 }, { a: 1 }), false);
  assert.equal(deepEqual({ a: undefined }, { b: 1 }), false, "as many keys, not the same ones");
  assert.equal(deepEqual({ a: undefined }, { b: undefined }), false);
  assert.equal(deepEqual([1, 2], [1, 2, 3]), false);
  assert.equal(deepEqual(new Date(1), new Date(2)), false, "objects that are not plain compare by identity");
  assert.equal(deepEqual(NaN, NaN), false, "never claims an equality it cannot prove");
  assert.equal(deepEqual({ a: "same length" }, { a: "SAME length" }), false);
});

test("deepEqual without allocating: nested objects, key order at every depth, a polluted Object.prototype, a throwing getter", () => {
  const deep = () => ({ role: "toolResult", content: [{ type: "text", text: "x".repeat(300) }, [1, [2, { a: null }]]], details: { d: { e: [true, "f"] } } });
  assert.equal(deepEqual(deep(), deep()), true);
  const reordered = deep();
  reordered.details.d = /** @type {any} */ ({ ...{ z: 1 }, e: [true, "f"] });
  assert.equal(deepEqual(deep(), reordered), false, "an extra key deep down");
  const swapped = deep();
  /** @type {any} */ (swapped.content[1])[1][1] = { a: undefined };
  assert.equal(deepEqual(deep(), swapped), false, "null is not undefined");
  assert.equal(deepEqual({ a: { x: 1, y: 2 } }, { a: { y: 2, x: 1 } }, true), false, "ordered: key order below the top");
  assert.equal(deepEqual({ a: { x: 1, y: 2 } }, { a: { y: 2, x: 3 } }), false, "a value below the top, keys reordered");
  assert.equal(deepEqual({ a: [1, 2] }, { a: { 0: 1, 1: 2 } }), false, "an array is not an object with the same entries");
  assert.equal(deepEqual([{}], [[]]), false);
  // An enumerable key on Object.prototype: own keys only, as JSON.
  /** @type {any} */ (Object.prototype).polluted = 1;
  try {
    assert.equal(deepEqual({ a: 1 }, { a: 1 }), true);
    assert.equal(deepEqual({ a: 1 }, { a: 1, polluted: 1 }), false, "an own key is not an inherited one");
    assert.equal(deepEqual({ a: { b: 1 } }, { a: { b: 2 } }), false);
  } finally {
    delete (/** @type {any} */ (Object.prototype).polluted);
  }
  // A getter that throws mid-comparison leaves nothing behind for the next one.
  const bad = { a: { b: 1 }, get c() { throw new Error("getter"); } };
  assert.throws(() => deepEqual(bad, { a: { b: 1 }, c: 1 }), /getter/);
  assert.equal(deepEqual({ a: { b: 1 }, c: 2 }, { a: { b: 1 }, c: 2 }), true);
  assert.equal(deepEqual({ a: { b: 1 }, c: 2 }, { a: { b: 1 }, c: 3 }), false);
});

test("a long conversation with a message in the middle changed in place (same length) and one new at the end", () => {
  const mirror = new ListMirror();
  const first = Array.from({ length: 5000 }, (_, i) => message(i, `output of step ${i} `.repeat(20)));
  mirror.diff(first).commit();
  let texts = first.map((m) => JSON.stringify(m));
  for (const at of [2500, 0, 4999]) {
    /** @type {any[]} */
    const cur = structuredClone(first);
    const m = cur[at];
    m.content[0].text = m.content[0].text.replace("output", "OUTPUT"); // same length, other content
    cur.push(message(9000 + at));
    const { update, commit } = mirror.diff(cur);
    const rebuilt = applyUpdate(texts, update);
    assert.deepEqual(rebuilt, cur.map((x) => JSON.stringify(x)), `the extension's copy is pi's list (changed at ${at})`);
    const literals = update.ops.filter((op) => op[0] === 1).map((op) => op[1]);
    assert.deepEqual(literals, [m, cur[5000]], "only the changed message and the new one are sent");
    commit();
    texts = rebuilt;
    mirror.diff(structuredClone(first)).commit(); // back to the first list for the next round
    texts = first.map((x) => JSON.stringify(x));
  }
});

test("random edits between calls: the ops always rebuild pi's list, and unchanged messages are keeps", () => {
  const next = rng(7);
  for (let round = 0; round < 300; round++) {
    const mirror = new ListMirror();
    /** @type {any[]} */
    let prev = Array.from({ length: next(40) }, (_, i) => message(i));
    let texts = applyUpdate([], mirror.diff(prev).update);
    mirror.diff(prev).commit();
    // A fresh structuredClone per call, as pi makes, then random changes.
    for (let call = 0; call < 4; call++) {
      /** @type {any[]} */
      const cur = structuredClone(prev);
      let changed = 0;
      for (let e = next(5); e > 0; e--) {
        const kind = next(6);
        const at = next(cur.length + 1);
        if (kind === 0) cur.push(message(100 + next(1000)));
        else if (kind === 1 && cur.length) cur.splice(at % cur.length, 1);
        else if (kind === 2 && cur.length) cur[at % cur.length].content[0].text += "!"; // in place
        else if (kind === 3 && cur.length) {
          // Same length, other content (what a cheap fingerprint would miss).
          const m = cur[at % cur.length];
          m.content[0].text = m.content[0].text.toUpperCase();
        } else if (kind === 4 && cur.length > 1) cur.reverse();
        else cur.splice(at, 0, cur.length ? structuredClone(cur[next(cur.length)]) : message(5000)); // duplicates
        changed++;
      }
      const { update, commit } = mirror.diff(cur);
      const rebuilt = applyUpdate(texts, update);
      assert.deepEqual(rebuilt, cur.map((m) => JSON.stringify(m)));
      if (changed === 0) assert.deepEqual(update.ops, cur.length ? [[0, 0, cur.length]] : []);
      commit();
      texts = rebuilt;
      prev = cur;
    }
  }
});

test("a message whose keys an earlier handler only reordered is kept, unless the list is checked (PI_EXT_MIRROR_CHECK compares texts)", () => {
  const first = Array.from({ length: 30 }, (_, i) => message(i));
  for (const check of [false, true]) {
    const mirror = new ListMirror();
    mirror.diff(first, check).commit();
    /** @type {any[]} */
    const cur = structuredClone(first);
    cur[7] = Object.fromEntries(Object.entries(cur[7]).reverse());
    cur[8].content[0] = { text: cur[8].content[0].text, type: "text" };
    const { update } = mirror.diff(cur, check);
    if (check) {
      assert.deepEqual(update.ops, [[0, 0, 7], [1, cur[7]], [1, cur[8]], [0, 9, 21]]);
      assert.equal(update.check, JSON.stringify(cur));
    } else assert.deepEqual(update.ops, [[0, 0, 30]]);
  }
});

test("one new message at the end of a long conversation: one keep and one literal", () => {
  const mirror = new ListMirror();
  const first = Array.from({ length: 200 }, (_, i) => message(i));
  mirror.diff(first).commit();
  const second = [...structuredClone(first), message(200)];
  const { update } = mirror.diff(second);
  assert.equal(update.base, 1);
  assert.deepEqual(update.ops, [[0, 0, 200], [1, message(200)]]);
  assert.ok(JSON.stringify(update).length < JSON.stringify(message(200)).length + 100, "bytes follow the new message");
});

test("the held list keeps its own objects where pi's fresh copy equals them, so the copy is not kept alive", () => {
  const mirror = new ListMirror();
  const first = Array.from({ length: 6 }, (_, i) => message(i));
  mirror.diff(first).commit();
  // pi's next copy: the same messages, one changed, one dropped, one new.
  const second = structuredClone(first);
  second[2] = { ...second[2], timestamp: 99 };
  second.splice(4, 1);
  second.push(message(6));
  const { update, commit } = mirror.diff(second);
  commit();
  assert.deepEqual(update.ops, [[0, 0, 2], [1, second[2]], [0, 3, 1], [0, 5, 1], [1, message(6)]]);
  const held = /** @type {unknown[]} */ (mirror.prev);
  assert.deepEqual(held, second);
  /** @type {Array<[number, unknown]>} */
  const expected = [[0, first[0]], [1, first[1]], [2, second[2]], [3, first[3]], [4, first[5]], [5, second[5]]];
  for (const [i, from] of expected) {
    assert.equal(held[i], from, `held element ${i}`);
  }
  // The next copy is compared against the held objects: unchanged, one keep.
  const third = mirror.diff(structuredClone(second));
  assert.deepEqual(third.update.ops, [[0, 0, 6]]);
});

test("a provider request's held fields are the held values where pi's new request equals them", () => {
  const mirror = new PayloadMirror();
  const body = { model: "m", options: { t: 1 }, messages: [message(0)], stream: true };
  mirror.diff(body).commit();
  const next = { model: "n", options: { t: 1 }, messages: [...structuredClone(body.messages), message(1)], stream: undefined };
  const { update, commit } = mirror.diff(next);
  commit();
  assert.deepEqual(update.removed, ["stream"]);
  const held = /** @type {Record<string, any>} */ (mirror.prev);
  assert.equal(held.options, body.options, "unchanged: the held object");
  assert.equal(held.model, "n");
  assert.equal(held.messages[0], body.messages[0], "a list's unchanged element: the held one");
  assert.equal(held.messages[1], next.messages[1]);
  assert.equal(held.stream, undefined);
  assert.deepEqual(mirror.diff(structuredClone({ ...next, stream: undefined })).update.fields, {});
  // A `__proto__` field (JSON.parse makes it an own key) is held as a field.
  const odd = new PayloadMirror();
  odd.diff(JSON.parse('{"model":"m","__proto__":{"x":1}}')).commit();
  const again = odd.diff(JSON.parse('{"model":"m","__proto__":{"x":1}}'));
  assert.deepEqual(again.update.fields, {});
  assert.deepEqual(again.update.removed, []);
  assert.deepEqual(odd.diff(JSON.parse('{"model":"m","__proto__":{"x":2}}')).update.fields, JSON.parse('{"__proto__":{"x":2}}'));
});

test("answers as edits: keeps of the input and new elements; malformed edits are refused", () => {
  const input = [{ a: 1 }, { b: 2 }, { c: 3 }];
  const out = applyOps(input, [[0, 1, 2], [1, { d: 4 }], [0, 0, 1]]);
  assert.deepEqual(out, [{ b: 2 }, { c: 3 }, { d: 4 }, { a: 1 }]);
  assert.equal(out[0], input[1], "kept elements are pi's own objects");
  for (const bad of [[[0, 2, 5]], [[0, -1, 1]], [[2, 1]], [[0, 0]], "x", [["x"]]]) {
    assert.throws(() => applyOps(input, bad), Error, JSON.stringify(bad));
  }
});

test("a context answer's new elements are held, and the next answer names them: pi gets copies, the held ones stay as they were", () => {
  const memory = new AnswerMemory();
  const input = [{ a: 1 }, { b: 2 }];
  const placeholder = { role: "toolResult", content: [{ type: "text", text: "[pruned]" }] };
  const first = memory.apply(input, { ops: [[1, structuredClone(placeholder)], [0, 1, 1]], gen: 1 });
  assert.deepEqual(first, [placeholder, { b: 2 }]);
  assert.equal(memory.gen, 1);
  // A handler after the hook changes what it got in place.
  /** @type {any} */ (first[0]).content[0].text = "changed";
  const second = memory.apply(input, { ops: [[2, 0, 1], [0, 1, 1], [1, { c: 3 }]], gen: 2, prior: 1 });
  assert.deepEqual(second, [placeholder, { b: 2 }, { c: 3 }], "the held copy did not change");
  assert.notEqual(second[0], memory.items[0], "pi gets a copy of the held element");
  assert.deepEqual(memory.items, [placeholder, { c: 3 }]);
  /** @type {any} */ (second[0]).content.push("more");
  const third = memory.apply(input, { ops: [[2, 1, 1], [2, 0, 1], [2, 0, 1]], gen: 3, prior: 2 });
  assert.deepEqual(third, [{ c: 3 }, placeholder, placeholder], "repeated and out of order");
  assert.notEqual(third[1], third[2]);
});

test("a context answer that names an answer the bridge does not hold, or outside it, is refused; without a generation nothing is held", () => {
  const memory = new AnswerMemory();
  assert.throws(() => memory.apply([], { ops: [[2, 0, 1]], gen: 1, prior: 0 }), StaleAnswer);
  memory.apply([], { ops: [[1, { a: 1 }]], gen: 4 });
  assert.throws(() => memory.apply([], { ops: [[2, 0, 1]], gen: 5, prior: 3 }), StaleAnswer);
  assert.equal(memory.gen, 4, "a stale answer changes nothing");
  assert.throws(() => memory.apply([], { ops: [[2, 0, 2]], gen: 5, prior: 4 }), /outside the previous answer of 1/);
  assert.equal(memory.gen, null, "a malformed answer empties the memory");
  memory.apply([], { ops: [[1, { a: 1 }]] });
  assert.deepEqual([memory.gen, memory.items], [null, []], "an extension that predates held answers");
  assert.throws(() => applyOps([], [[2, 0, 0]]), /unknown op/, "plain edits have no previous answer");
});

test("copyJson copies JSON data with its key order, an own __proto__ key included", () => {
  const value = JSON.parse('{"z":1,"a":[{"b":null},"s",true],"__proto__":{"x":1}}');
  const copy = /** @type {any} */ (copyJson(value));
  assert.deepEqual(Object.keys(copy), ["z", "a", "__proto__"]);
  assert.equal(Object.getPrototypeOf(copy), Object.prototype);
  assert.equal(JSON.stringify(copy), JSON.stringify(value));
  assert.notEqual(copy.a, value.a);
  assert.notEqual(copy.a[0], value.a[0]);
});

test("a provider request: changed fields, removed fields and lists as edits; the answer's changes applied in the input's key order", () => {
  const mirror = new PayloadMirror();
  const body = { model: "m", messages: [message(0), message(1)], stream: true, tools: [{ name: "t" }] };
  const first = mirror.diff(body);
  assert.equal(first.update.base, null);
  assert.deepEqual(first.update.fields, { model: "m", stream: true });
  first.commit();
  const next = { model: "n", messages: [...structuredClone(body.messages), message(2)], tools: [{ name: "t" }] };
  const { update } = mirror.diff(next);
  assert.deepEqual(update.fields, { model: "n" });
  assert.deepEqual(update.removed, ["stream"]);
  assert.deepEqual(update.lists.messages.ops, [[0, 0, 2], [1, message(2)]]);
  assert.deepEqual(update.lists.tools.ops, [[0, 0, 1]]);
  const replaced = applyChanges(next, { fields: { user: "me" }, removed: ["model"], lists: { messages: { ops: [[0, 2, 1]] } } });
  assert.deepEqual(Object.keys(replaced), ["messages", "tools", "user"]);
  assert.deepEqual(replaced.messages, [message(2)]);
  assert.equal(replaced.tools, next.tools);
  const polluted = applyChanges({}, JSON.parse('{"fields":{"__proto__":{"x":1}}}'));
  assert.equal(Object.getPrototypeOf(polluted), Object.prototype);
});

/**
 * A fake extension that reads mirrored payloads: keeps each hook's list and
 * answers with `answer(list)`.
 * @param {import("./helpers.js").FakeExtension} ext
 * @param {(list: string[], params: any) => unknown} answer
 */
function mirroring(ext, answer) {
  /** @type {Map<string, { gen: number | null, texts: string[] }>} */
  const slots = new Map();
  ext.handle("initialize", () => ({ protocol: 2, sdk: "0.1.0", manifest: ext.manifest, mirror: 1 }));
  ext.handle("hook/call", (p) => {
    const u = p.context;
    const slot = slots.get(p.hook) ?? { gen: null, texts: [] };
    if (u.base !== null && u.base !== slot.gen) throw { code: -32010, message: "out of step" };
    const texts = applyUpdate(u.base === null ? [] : slot.texts, u);
    slots.set(p.hook, { gen: u.gen, texts });
    return answer(texts, p);
  });
  return slots;
}

for (const name of ["context", "context_with_system"]) test(`${name} hooks: the first call sends the list, the next only what changed; answer edits reach pi`, async () => {
  const hook = { id: "x::ctx", event: name };
  const h = await startBridge(manifestWith({ hooks: [hook] }), {
    script: (ext) => mirroring(ext, (texts) => ({ ops: [[0, 1, texts.length - 1]] })), // drop the first message
  });
  const { ctx } = fakeCtx();
  await h.startSession(ctx);
  const messages = Array.from({ length: 50 }, (_, i) => message(i));
  const [first] = /** @type {any[]} */ (await h.fake.emit(name, { type: name, messages: structuredClone(messages) }, ctx));
  assert.deepEqual(first.messages, messages.slice(1));
  const more = [...messages, message(50)];
  const event = { type: name, messages: structuredClone(more) };
  const [second] = /** @type {any[]} */ (await h.fake.emit(name, event, ctx));
  assert.deepEqual(second.messages, more.slice(1));
  assert.equal(second.messages[0], event.messages[1], "kept messages are the ones pi passed");
  const calls = h.ext().sent("hook/call");
  assert.equal(calls[0].params.context.base, null);
  assert.deepEqual(calls[1].params.context.ops, [[0, 0, 50], [1, message(50)]]);
  assert.ok(h.ext().lines[h.ext().lines.length - 1].length < 500, "the second line carries one message");
});

test("context answers name the previous answer's new messages: the call says which answer the bridge holds; a stale answer is asked for again", async () => {
  const hook = { id: "x::ctx", event: "context" };
  const placeholder = { role: "toolResult", content: [{ type: "text", text: "[pruned]" }] };
  let stale = false;
  const h = await startBridge(manifestWith({ hooks: [hook] }), {
    script: (ext) =>
      mirroring(ext, (texts, p) => {
        const prior = p.context.prior;
        if (prior === undefined) return { ops: [[1, placeholder], [0, 1, texts.length - 1]], gen: 1 };
        return { ops: [[2, 0, 1], [0, 1, texts.length - 1]], gen: prior + 1, prior: stale ? 99 : prior };
      }),
  });
  const { ctx } = fakeCtx();
  await h.startSession(ctx);
  const messages = [message(0), message(1)];
  const emit = async () => /** @type {any[]} */ (await h.fake.emit("context", { type: "context", messages: structuredClone(messages) }, ctx))[0].messages;
  const first = await emit();
  assert.deepEqual(first, [placeholder, message(1)]);
  first[0].content[0].text = "changed in place by a later handler";
  assert.deepEqual(await emit(), [placeholder, message(1)], "the held copy, copied again");
  stale = true;
  assert.deepEqual(await emit(), [placeholder, message(1)], "asked again with nothing held");
  const sent = h.ext().sent("hook/call").map((m) => [m.params.context.base, m.params.context.prior]);
  assert.deepEqual(sent, [[null, undefined], [1, 1], [2, 2], [null, undefined]]);
});

test("a process out of step answers MIRROR_MISMATCH: the call is sent again once with the whole list", async () => {
  const hook = { id: "x::ctx", event: "context" };
  /** @type {Map<string, any>} */
  let slots = new Map();
  const h = await startBridge(manifestWith({ hooks: [hook] }), {
    script: (ext) => {
      slots = mirroring(ext, () => null);
    },
  });
  const { ctx } = fakeCtx();
  await h.startSession(ctx);
  const messages = [message(0), message(1)];
  await h.fake.emit("context", { type: "context", messages: structuredClone(messages) }, ctx);
  slots.clear(); // the process lost its copy
  assert.deepEqual(await h.fake.emit("context", { type: "context", messages: structuredClone(messages) }, ctx), [undefined]);
  const bases = h.ext().sent("hook/call").map((m) => m.params.context.base);
  assert.deepEqual(bases, [null, 1, null]);
});

test("PI_EXT_MIRROR_CHECK=1 sends the whole list along", async () => {
  const hook = { id: "x::ctx", event: "context" };
  const h = await startBridge(manifestWith({ hooks: [hook] }), {
    env: { PI_EXT_MIRROR_CHECK: "1" },
    script: (ext) => mirroring(ext, () => null),
  });
  const { ctx } = fakeCtx();
  await h.startSession(ctx);
  const messages = [message(0)];
  await h.fake.emit("context", { type: "context", messages }, ctx);
  assert.equal(h.ext().sent("hook/call")[0].params.context.check, JSON.stringify(messages));
});

test("streamed message_updates: one hook/updates line per batch for all hooks, deltas as tuples, metadata when it changes", async () => {
  const hooks = [
    { id: "x::a", event: "message_update" },
    { id: "x::b", event: "message_update" },
  ];
  const h = await startBridge(manifestWith({ hooks }), {
    script: (ext) => ext.handle("initialize", () => ({ protocol: 2, sdk: "0.1.0", manifest: ext.manifest, mirror: 1 })),
  });
  const { ctx } = fakeCtx();
  await h.startSession(ctx);
  assert.equal(h.fake.handlers.get("message_update")?.length, 1, "one pi handler for both hooks");
  const usage = { input: 1 };
  const partial = { role: "assistant", content: [{ type: "text", text: "long text" }], model: "m", usage };
  const update = (/** @type {any} */ a, /** @type {any} */ m = partial) => ({
    type: "message_update",
    message: { ...m }, // pi copies the message shallowly for every event
    assistantMessageEvent: { ...a, partial: m },
  });
  await h.fake.emit("message_update", update({ type: "text_start", contentIndex: 0 }), ctx);
  for (const delta of ["a", "b", "c"]) await h.fake.emit("message_update", update({ type: "text_delta", contentIndex: 0, delta }), ctx);
  const done = { ...partial, usage: { input: 5 } };
  await h.fake.emit("message_update", update({ type: "text_end", contentIndex: 0, content: "abc" }, done), ctx);
  await until(() => h.ext().sent("hook/updates").length === 2, "the two lines");
  const lines = h.ext().sent("hook/updates");
  assert.equal(lines.length, 2, "a new metadata starts a new line");
  assert.deepEqual(lines[0].params.hooks, ["x::a", "x::b"]);
  assert.deepEqual(lines[0].params.meta, { role: "assistant", model: "m", usage });
  assert.deepEqual(lines[0].params.ev, [{ type: "text_start", contentIndex: 0 }, [0, 0, "a"], [0, 0, "b"], [0, 0, "c"]]);
  assert.deepEqual(lines[1].params.meta, { role: "assistant", model: "m", usage: { input: 5 } });
  assert.deepEqual(lines[1].params.ev, [{ type: "text_end", contentIndex: 0, content: "abc" }]);
  assert.ok(h.ext().lines.every((l) => !l.includes("long text")), "no content, no partial");
});

test("session/sync sends the entries after the extension's cursor, or all of them when it does not continue pi's list", async () => {
  const h = await startBridge(manifestWith({}));
  const { ctx } = fakeCtx();
  const entries = [{ id: "a", parentId: null }, { id: "b", parentId: "a" }, { id: "c", parentId: "b" }];
  ctx.sessionManager = { getSessionId: () => "s1", getEntries: () => [...entries], getLeafId: () => "c" };
  await h.startSession(ctx);
  const sync = async (/** @type {any} */ p) => (await h.ext().request("session/sync", { call: null, ...p })).result;
  assert.deepEqual(await sync({ sessionId: null, count: 0, lastId: null }), { sessionId: "s1", leafId: "c", reset: true, entries });
  assert.deepEqual(await sync({ sessionId: "s1", count: 2, lastId: "b" }), { sessionId: "s1", leafId: "c", reset: false, entries: [entries[2]] });
  for (const stale of [
    { sessionId: "s0", count: 2, lastId: "b" },
    { sessionId: "s1", count: 2, lastId: "x" },
    { sessionId: "s1", count: 9, lastId: "c" },
  ]) {
    const answer = await sync(stale);
    assert.equal(answer.reset, true, JSON.stringify(stale));
    assert.deepEqual(answer.entries, entries);
  }
});
