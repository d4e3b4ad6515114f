// @ts-check
// Model calls of the extension (`models/*`): pi's registry, pi-ai's stream
// functions with the credentials pi resolves, events before the answer,
// cancellation, and the end of the session.
import assert from "node:assert/strict";
import { test } from "node:test";

import { createAssistantMessageEventStream } from "@mariozechner/pi-ai";

import { shortUpdate } from "../lib/hooks.js";
import { fakeCtx, manifestWith, NO_ANSWER, settle, startBridge, until } from "./helpers.js";

const fakeModel = { id: "m1", name: "M1", api: "test-api", provider: "p", baseUrl: "http://x", headers: { "x-secret": "s" } };

/** An assistant message with `text`. @param {string} text @param {string} [stopReason] @returns {any} */
function message(text, stopReason = "stop") {
  return {
    role: "assistant",
    content: [{ type: "text", text }],
    api: "test-api",
    provider: "p",
    model: "m1",
    usage: { input: 1, output: 1, cacheRead: 0, cacheWrite: 0, totalTokens: 2, cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 } },
    stopReason,
    timestamp: 1,
  };
}

/**
 * A fake pi-ai whose stream emits `deltas` then `done` (or waits for the
 * signal when `hold`), recording the options it was called with.
 * @param {{ deltas?: string[], hold?: boolean }} [o]
 */
function fakeAi(o = {}) {
  /** @type {any[]} */
  const calls = [];
  const stream = (/** @type {any} */ model, /** @type {any} */ context, /** @type {any} */ options) => {
    calls.push({ model, context, options });
    const s = createAssistantMessageEventStream();
    const out = message("");
    setImmediate(() => {
      s.push({ type: "start", partial: out });
      s.push({ type: "text_start", contentIndex: 0, partial: out });
      for (const d of o.deltas ?? []) s.push({ type: "text_delta", contentIndex: 0, delta: d, partial: out });
      const text = (o.deltas ?? []).join("");
      if (o.hold) {
        const abort = () => {
          s.push({ type: "error", reason: "aborted", error: { ...message(text, "aborted"), errorMessage: "Request was aborted." } });
          s.end();
        };
        if (options.signal.aborted) abort();
        else options.signal.addEventListener("abort", abort);
        return;
      }
      s.push({ type: "text_end", contentIndex: 0, content: text, partial: out });
      s.push({ type: "done", reason: "stop", message: message(text) });
      s.end();
    });
    return s;
  };
  return { calls, module: { stream, streamSimple: stream } };
}

/** A pi context with a model registry holding `fakeModel`. */
function modelCtx() {
  const f = fakeCtx();
  f.ctx.model = fakeModel;
  f.ctx.modelRegistry = {
    getAll: () => [fakeModel, { ...fakeModel, id: "m2" }],
    getAvailable: () => [fakeModel],
    find: (/** @type {string} */ p, /** @type {string} */ id) => (p === "p" && id === "m1" ? fakeModel : undefined),
    getApiKeyAndHeaders: async () => ({ ok: true, apiKey: "sk-secret", headers: { "x-secret": "s" } }),
  };
  return f;
}

test("the registry: models without their headers, the current one, unknown ones named", async () => {
  const h = await startBridge(manifestWith({}), { loadAi: async () => fakeAi().module });
  await h.startSession(modelCtx().ctx);
  const all = await h.ext().request("models/list", { call: null, which: "all" });
  assert.deepEqual(all.result.map((/** @type {any} */ m) => m.id), ["m1", "m2"]);
  assert.equal(all.result[0].headers, undefined, "headers may hold credentials");
  const available = await h.ext().request("models/list", { call: null, which: "available" });
  assert.equal(available.result.length, 1);
  const current = await h.ext().request("models/find", { call: null, current: true });
  assert.equal(current.result.id, "m1");
  const none = await h.ext().request("models/find", { call: null, provider: "p", id: "zz" });
  assert.equal(none.result, null);
  const unknown = await h.ext().request("models/complete", { call: null, model: { provider: "p", id: "zz" }, context: { messages: [] }, options: {} });
  assert.deepEqual(unknown.error, { code: -32020, message: "pi has no model p/zz (Models::list shows the models pi knows)" });
  const auth = await h.ext().request("models/auth", { call: null, model: null });
  assert.deepEqual(auth.result, { apiKey: "sk-secret", headers: { "x-secret": "s" } });
});

test("a streamed call: pi's key and headers, the extension's options, events in batches before the answer", async () => {
  const ai = fakeAi({ deltas: ["a", "b", "c"] });
  const h = await startBridge(manifestWith({}), { loadAi: async () => ai.module });
  await h.startSession(modelCtx().ctx);
  const answer = await h.ext().request("models/complete", {
    call: null,
    model: null,
    context: { messages: [{ role: "user", content: "hi", timestamp: 1 }] },
    options: { maxTokens: 5, headers: { "x-mine": "m" } },
    stream: true,
  });
  assert.equal(answer.result.content[0].text, "abc");
  const [call] = ai.calls;
  assert.equal(call.options.apiKey, "sk-secret");
  assert.deepEqual(call.options.headers, { "x-mine": "m", "x-secret": "s" });
  assert.equal(call.options.maxTokens, 5);
  assert.ok(call.options.signal instanceof AbortSignal);
  // Every event line came before the answer's line, without `partial`.
  const lines = h.ext().lines;
  const answerAt = lines.findIndex((l) => l.startsWith(`{"id":${answer.id},"result"`));
  const eventLines = lines.map((l, i) => [l, i]).filter(([l]) => String(l).includes('"models/event"'));
  assert.ok(eventLines.length >= 1 && eventLines.length <= 2, `batched: ${eventLines.length} lines`);
  assert.ok(eventLines.every(([, i]) => Number(i) < answerAt));
  const events = h.ext().sent("models/event").flatMap((m) => m.params.events);
  assert.deepEqual(events, [
    { type: "start" },
    { type: "text_start", contentIndex: 0 },
    [0, 0, "a"],
    [0, 0, "b"],
    [0, 0, "c"],
    { type: "text_end", contentIndex: 0, content: "abc" },
  ]);
  assert.ok(h.ext().sent("models/event").every((m) => m.params.id === answer.id));
  assert.ok(!lines.some((l) => l.includes("partial")));
});

test("cancel from the extension aborts the call; the answer says aborted", async () => {
  const ai = fakeAi({ deltas: ["x"], hold: true });
  const h = await startBridge(manifestWith({}), { loadAi: async () => ai.module });
  await h.startSession(modelCtx().ctx);
  const pending = h.ext().request("models/complete", { call: null, model: null, context: { messages: [] }, options: {}, stream: true });
  await until(() => h.ext().sent("models/event").length > 0, "the first events");
  const id = h.ext().sent("models/event")[0].params.id;
  h.ext().send({ method: "cancel", params: { id } });
  const answer = await pending;
  assert.equal(answer.result.stopReason, "aborted");
});

test("the session's end: calls of no live pi call are aborted; later ones get SESSION_ENDED", async () => {
  const ai = fakeAi({ hold: true });
  const h = await startBridge(manifestWith({ commands: [{ name: "busy", description: "d" }] }), {
    loadAi: async () => ai.module,
    script: (ext) => ext.handle("command/call", () => NO_ANSWER),
  });
  const f = modelCtx();
  await h.startSession(f.ctx);
  // A command in flight keeps the process (draining) past the session's end.
  void h.fake.commands.get("busy").handler("", f.ctx);
  await until(() => h.ext().sent("command/call").length === 1, "the command");
  const background = h.ext().request("models/complete", { call: null, model: null, context: { messages: [] }, options: {} });
  await until(() => ai.calls.length === 1, "the call reached pi-ai");
  await h.fake.emit("session_shutdown", { type: "session_shutdown" }, f.ctx);
  assert.equal((await background).result.stopReason, "aborted");
  // A task that calls the model now is refused clearly.
  const late = await h.ext().request("models/list", { call: null, which: "all" });
  assert.equal(late.error?.code, -32022, JSON.stringify(late));
  assert.match(late.error.message, /the pi session has ended; model calls are no longer possible/);
});

test("a call belonging to a live pi call goes on past session_shutdown (a command replacing the session)", async () => {
  const ai = fakeAi({ hold: true });
  const h = await startBridge(manifestWith({ commands: [{ name: "swap", description: "d" }] }), {
    loadAi: async () => ai.module,
    script: (ext) => ext.handle("command/call", () => NO_ANSWER),
  });
  const f = modelCtx();
  await h.startSession(f.ctx);
  void h.fake.commands.get("swap").handler("", f.ctx);
  await until(() => h.ext().sent("command/call").length === 1, "the command");
  const call = h.ext().sent("command/call")[0].id;
  void h.ext().request("models/complete", { call, model: null, context: { messages: [] }, options: {} });
  await until(() => ai.calls.length === 1, "the call reached pi-ai");
  await h.fake.emit("session_shutdown", { type: "session_shutdown" }, f.ctx);
  await settle();
  assert.equal(ai.calls[0].options.signal.aborted, false);
});

test("no model selected, and pi's auth failure, are errors with their own codes", async () => {
  const h = await startBridge(manifestWith({}), { loadAi: async () => fakeAi().module });
  const f = modelCtx();
  f.ctx.model = undefined;
  f.ctx.modelRegistry.getApiKeyAndHeaders = async () => ({ ok: false, error: "No API key for p" });
  await h.startSession(f.ctx);
  const none = await h.ext().request("models/complete", { call: null, model: null, context: { messages: [] }, options: {} });
  assert.equal(none.error.code, -32023);
  const auth = await h.ext().request("models/auth", { call: null, model: { provider: "p", id: "m1" } });
  assert.deepEqual(auth.error, { code: -32021, message: "No API key for p" });
});

test("events keep what the extension needs, never the partial message", () => {
  const partial = { content: [] };
  assert.deepEqual(shortUpdate({ type: "toolcall_end", contentIndex: 2, toolCall: { id: "c", name: "n", arguments: {} }, partial }), {
    type: "toolcall_end",
    contentIndex: 2,
    toolCall: { id: "c", name: "n", arguments: {} },
  });
  assert.deepEqual(shortUpdate({ type: "thinking_delta", contentIndex: 1, delta: "hm", partial }), [1, 1, "hm"]);
  assert.deepEqual(shortUpdate({ type: "brand_new", partial }), { type: "brand_new" });
});

test("options that would move the request or carry another key are refused before pi resolves the key", async () => {
  const ai = fakeAi({ deltas: ["a"] });
  const h = await startBridge(manifestWith({}), { loadAi: async () => ai.module });
  const { ctx } = modelCtx();
  let resolved = 0;
  const registry = ctx.modelRegistry;
  const getKey = registry.getApiKeyAndHeaders.bind(registry);
  registry.getApiKeyAndHeaders = (/** @type {any} */ m) => {
    resolved++;
    return getKey(m);
  };
  await h.startSession(ctx);
  const hostile = [
    { azureBaseUrl: "http://127.0.0.1:9/openai/v1" },
    { azureResourceName: "attacker" },
    { project: "p", location: "l" },
    { region: "us-east-1" },
    { profile: "other" },
    { apiKey: "sk-mine" },
    { onPayload: "x" },
    { baseUrl: "http://127.0.0.1:9" },
  ];
  for (const options of hostile) {
    const answer = await h.ext().request("models/complete", { call: null, model: null, context: { messages: [] }, options });
    const key = Object.keys(options)[0];
    assert.equal(answer.error?.code, -32602, JSON.stringify(options));
    assert.match(answer.error.message, new RegExp(`"${key}" cannot be set by an extension`));
  }
  const badHeaders = await h.ext().request("models/complete", { call: null, model: null, context: { messages: [] }, options: { headers: { a: 1 } } });
  assert.equal(badHeaders.error?.message, "options.headers must be an object of strings");
  assert.equal(ai.calls.length, 0, "pi-ai was never called");
  assert.equal(resolved, 0, "pi never resolved the key for a refused call");
  // pi's own headers win over the extension's of the same name.
  const ok = await h.ext().request("models/complete", { call: null, model: null, context: { messages: [] }, options: { headers: { "x-secret": "mine" }, temperature: 0 } });
  assert.ok(ok.result, JSON.stringify(ok));
  assert.deepEqual(ai.calls[0].options.headers, { "x-secret": "s" });
  assert.equal(ai.calls[0].options.temperature, 0);
});
