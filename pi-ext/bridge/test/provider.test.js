// @ts-check
// Providers whose answers stream from the extension: registered while pi
// starts, events checked and turned into pi-ai's, and every way a stream
// can end ending pi's stream exactly once.
import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { test } from "node:test";

import { fakeCtx, manifestWith, NO_ANSWER, settle, startBridge, tempDir, until } from "./helpers.js";
import { providerConfig, runtimeProviderConfig } from "../lib/provider.js";

const model = {
  id: "m1",
  name: "M1",
  api: "pi-ext:rusty",
  provider: "rusty",
  baseUrl: "pi-ext:rusty",
  reasoning: false,
  input: ["text"],
  cost: { input: 1_000_000, output: 2_000_000, cacheRead: 0, cacheWrite: 0 },
  contextWindow: 1000,
  maxTokens: 100,
};
const provider = { name: "rusty", displayName: "Rusty", baseUrl: "pi-ext:rusty", apiKey: "RUSTY_KEY", api: "pi-ext:rusty", models: [model] };

/**
 * The bridge with a provider; `events` is what the extension streams for
 * each request (then it answers), or NO_ANSWER to stay silent.
 * @param {(params: any, id: number, ext: import("./helpers.js").FakeExtension) => unknown} onStream
 * @param {object} [o]
 */
async function withProvider(onStream, o = {}) {
  const h = await startBridge(manifestWith({ providers: [provider] }), {
    script: (ext) => ext.handle("provider/stream", (p, msg, e) => onStream(p, /** @type {number} */ (msg.id), e)),
    ...o,
  });
  await h.startSession(fakeCtx().ctx);
  return h;
}

/**
 * Run pi's streamSimple for `rusty` and collect every event until the stream ends.
 * @param {any} h
 * @param {{ signal?: AbortSignal, timeoutMs?: number }} [options]
 */
function stream(h, options = {}) {
  const config = h.fake.providers.get("rusty");
  const s = config.streamSimple(model, { systemPrompt: "sys", messages: [{ role: "user", content: "hi", timestamp: 1 }] }, { apiKey: "k", ...options });
  /** @type {any[]} */
  const events = [];
  const done = (async () => {
    for await (const e of s) events.push(e);
    return s.result();
  })();
  return { events, done };
}

/** Send a batch of events for stream `id`. @param {any} ext @param {number} id @param {unknown[]} events */
const send = (ext, id, events) => ext.send({ method: "provider/event", params: { stream: id, events } });

test("registered from the manifest with pi's configuration, while pi starts", async () => {
  const h = await startBridge(manifestWith({ providers: [provider] }));
  const config = h.fake.providers.get("rusty");
  assert.equal(config.name, "Rusty");
  assert.equal(config.api, "pi-ext:rusty");
  assert.equal(config.apiKey, "RUSTY_KEY");
  assert.deepEqual(config.models, [model]);
  assert.equal(typeof config.streamSimple, "function");
});

test("a provider that is only configuration is registered without a stream: pi's own API answers it", async () => {
  const local = { name: "local", baseUrl: "http://127.0.0.1:1/v1", apiKey: "LOCAL_KEY", api: "openai-completions", models: [model], configOnly: true };
  const h = await startBridge(manifestWith({ providers: [local] }));
  assert.deepEqual(h.fake.providers.get("local"), {
    baseUrl: "http://127.0.0.1:1/v1",
    apiKey: "LOCAL_KEY",
    api: "openai-completions",
    models: [model],
  });
});

test("registered at run time: only a provider without a stream; unregistered by name", async () => {
  const h = await startBridge(manifestWith({}));
  await h.startSession(fakeCtx().ctx);
  const local = { name: "later", baseUrl: "http://127.0.0.1:1/v1", apiKey: "K", api: "openai-completions", headers: { "x-team": "a" }, models: [model], configOnly: true };
  const ok = await h.ext().request("api/call", { call: null, method: "registerProvider", args: [local] });
  assert.equal(ok.error, undefined);
  assert.deepEqual(h.fake.providers.get("later"), {
    baseUrl: "http://127.0.0.1:1/v1",
    apiKey: "K",
    api: "openai-completions",
    headers: { "x-team": "a" },
    models: [model],
  });
  // A Rust stream needs the manifest's registration: refused, nothing registered.
  const streamed = await h.ext().request("api/call", { call: null, method: "registerProvider", args: [{ ...local, name: "streamed", configOnly: false }] });
  assert.equal(streamed.error?.message, "provider `streamed`: only a provider without a stream is registered at run time");
  assert.equal(h.fake.providers.has("streamed"), false);
  // Under a built-in provider's name pi would send its stored key to this base URL: refused without the opt-in.
  const impostor = await h.ext().request("api/call", { call: null, method: "registerProvider", args: [{ ...local, name: "anthropic" }] });
  assert.match(String(impostor.error?.message), /^provider `anthropic` not registered: .*its own base URL, where pi would send the key it stores for `anthropic`/);
  assert.equal(h.fake.providers.has("anthropic"), false);
  const optedIn = await h.ext().request("api/call", { call: null, method: "registerProvider", args: [{ ...local, name: "anthropic", replacesBuiltin: true }] });
  assert.equal(optedIn.error, undefined);
  assert.equal(h.fake.providers.get("anthropic")?.baseUrl, "http://127.0.0.1:1/v1");
  const nameless = await h.ext().request("api/call", { call: null, method: "registerProvider", args: [null] });
  assert.equal(nameless.error?.message, "registerProvider needs a provider manifest with a name");
  await h.ext().request("api/call", { call: null, method: "unregisterProvider", args: ["later"] });
  assert.equal(h.fake.providers.has("later"), false);
});

test("a streamed answer: pi's events with the partial message, tool-call arguments parsed, cost from usage", async () => {
  const h = await withProvider((p, id, ext) => {
    send(ext, id, [["start", "resp-1", null], ["text_start", 0], ["text_delta", 0, "Hel"], ["text_delta", 0, "lo"]]);
    send(ext, id, [["text_end", 0, null], ["toolcall_start", 1, "c1", "read"], ["toolcall_delta", 1, '{"path":'], ["toolcall_delta", 1, '"a"}']]);
    send(ext, id, [["toolcall_end", 1, null], ["usage", { input: 3, output: 5 }], ["done", "toolUse"]]);
    return {};
  });
  const { events, done } = stream(h);
  const message = await done;
  assert.deepEqual(
    events.map((e) => e.type),
    ["start", "text_start", "text_delta", "text_end", "toolcall_start", "toolcall_delta", "toolcall_end", "done"],
  );
  assert.deepEqual([events[2].delta, events[5].delta], ["Hello", '{"path":"a"}'], "a line's adjacent deltas of one block are one");
  assert.equal(events[2].partial, message, "one partial message, as pi-ai's providers keep");
  assert.deepEqual(message.content, [
    { type: "text", text: "Hello" },
    { type: "toolCall", id: "c1", name: "read", arguments: { path: "a" } },
  ]);
  assert.equal(message.stopReason, "toolUse");
  assert.equal(message.responseId, "resp-1");
  assert.deepEqual(message.usage, { input: 3, output: 5, cacheRead: 0, cacheWrite: 0, totalTokens: 8, cost: { input: 3, output: 10, cacheRead: 0, cacheWrite: 0, total: 13, totalFromProvider: false } });
  const [request] = h.ext().sent("provider/stream");
  assert.equal(request.params.provider, "rusty");
  assert.equal(request.params.options.apiKey, "k");
  assert.equal(request.params.context.systemPrompt, "sys");
  assert.equal(request.params.session, 1);
});

test("a flood of deltas in one line is one pi event per run of one block's deltas, in order", async () => {
  const x = Array.from({ length: 1000 }, () => ["text_delta", 1, "x"]);
  const h = await withProvider((p, id, ext) => {
    send(ext, id, [
      ["thinking_start", 0],
      ...Array.from({ length: 500 }, () => ["thinking_delta", 0, "t"]),
      ["thinking_end", 0, "sig", false],
      ["text_start", 1],
      ...x,
      ["toolcall_start", 2, "c1", "read"],
      ...Array.from('{"path":"a.txt"}', (c) => ["toolcall_delta", 2, c]),
      ...x,
      ["toolcall_end", 2, null],
      ["text_delta", 1, "!"],
      ["text_end", 1, null],
      ["done", "toolUse"],
    ]);
    return {};
  });
  const { events, done } = stream(h);
  const message = await done;
  assert.deepEqual(
    events.map((e) => (e.delta === undefined ? e.type : [e.type, e.contentIndex, e.delta.length])),
    [
      "start",
      "thinking_start",
      ["thinking_delta", 0, 500],
      "thinking_end",
      "text_start",
      ["text_delta", 1, 1000],
      "toolcall_start",
      ["toolcall_delta", 2, 16],
      ["text_delta", 1, 1000],
      "toolcall_end",
      ["text_delta", 1, 1],
      "text_end",
      "done",
    ],
  );
  assert.equal(message.content[0].thinking, "t".repeat(500));
  assert.equal(message.content[1].text, `${"x".repeat(2000)}!`);
  assert.deepEqual(message.content[2].arguments, { path: "a.txt" });
});

test("a 50 kB tool call in 100-byte deltas, a line each: read once, not re-parsed at each delta; its partial arguments grow as it streams", async () => {
  const content = "x".repeat(50_000);
  const json = JSON.stringify({ path: "big.txt", content });
  const pieces = Array.from({ length: Math.ceil(json.length / 100) }, (_, i) => json.slice(i * 100, (i + 1) * 100));
  const half = Math.floor(pieces.length / 2);
  let reparsed = 0;
  /** @type {() => void} */
  let rest = () => {};
  const h = await withProvider(
    (p, id, ext) => {
      send(ext, id, [["toolcall_start", 0, "c1", "write"]]);
      for (const piece of pieces.slice(0, half)) send(ext, id, [["toolcall_delta", 0, piece]]);
      rest = () => {
        for (const piece of pieces.slice(half)) send(ext, id, [["toolcall_delta", 0, piece]]);
        send(ext, id, [["toolcall_end", 0, null], ["done", "toolUse"]]);
        ext.send({ id, result: {} });
      };
      return NO_ANSWER;
    },
    {
      // pi-ai's partial parser, counting what it is given.
      loadAi: async () => {
        const ai = await import("@mariozechner/pi-ai");
        return { ...ai, parseStreamingJson: (/** @type {string} */ s) => ((reparsed += s.length), ai.parseStreamingJson(s)) };
      },
    },
  );
  const { events, done } = stream(h);
  const sofar = half * 100 - '{"path":"big.txt","content":"'.length;
  await until(() => events.some((e) => e.partial?.content[0]?.arguments?.content?.length === sofar), "the first half's arguments");
  assert.equal(events[events.length - 1].partial.content[0].arguments.path, "big.txt");
  rest();
  const message = await done;
  assert.deepEqual(message.content[0].arguments, { path: "big.txt", content });
  const deltas = events.filter((e) => e.type === "toolcall_delta");
  assert.equal(deltas.map((e) => e.delta).join(""), json);
  assert.ok(deltas.length <= pieces.length, `${deltas.length} pi events for ${pieces.length} lines`);
  assert.ok(reparsed <= 2 * json.length, `${reparsed} bytes parsed for ${json.length} bytes of arguments`);
});

test("an answer past PI_EXT_PROVIDER_MAX_BYTES ends with an error naming the limit, keeps what fits (whole characters), and the next answer works", async () => {
  let n = 0;
  const h = await withProvider(
    (p, id, ext) => {
      if (n++ > 0) {
        send(ext, id, [["text_start", 0], ["text_delta", 0, "fine"], ["text_end", 0, null], ["done", "stop"]]);
        return {};
      }
      send(ext, id, [["text_start", 0], ["text_delta", 0, "a".repeat(600)]]);
      // 300 two-byte characters: 1,200 bytes in all.
      send(ext, id, [["text_delta", 0, "b"], ["text_delta", 0, "é".repeat(300)], ["text_delta", 0, "c"]]);
      send(ext, id, [["text_end", 0, null], ["done", "stop"]]);
      return NO_ANSWER;
    },
    { env: { PI_EXT_PROVIDER_MAX_BYTES: "1000" } },
  );
  const { events, done } = stream(h);
  const message = await done;
  assert.equal(message.stopReason, "error");
  assert.equal(
    message.errorMessage,
    "pi-ext provider `rusty`: the answer passed the limit of 1000 bytes of text, thinking and tool-call arguments (PI_EXT_PROVIDER_MAX_BYTES); it was cut off there",
  );
  assert.equal(message.content[0].text, `${"a".repeat(600)}b${"é".repeat(199)}`, "the first 999 of 1,000 bytes: the next é would pass the limit");
  const deltas = events.filter((e) => e.type === "text_delta");
  assert.equal(deltas.map((e) => e.delta).join(""), message.content[0].text, "pi was given them, and nothing after");
  assert.deepEqual(events.map((e) => e.type).slice(-2), ["text_delta", "error"]);
  await until(() => h.ext().sent("cancel").length === 1, "the cancel");
  assert.equal((await stream(h).done).content[0].text, "fine");
});

test("pi's abort ends the stream at once and cancels it in the extension", async () => {
  const h = await withProvider((p, id, ext) => {
    send(ext, id, [["text_start", 0], ["text_delta", 0, "a"]]);
    return NO_ANSWER;
  });
  const controller = new AbortController();
  const { events, done } = stream(h, { signal: controller.signal });
  await until(() => events.length >= 3, "the first delta");
  controller.abort();
  const message = await done;
  assert.equal(message.stopReason, "aborted");
  assert.equal(message.errorMessage, "Request was aborted");
  assert.equal(message.content[0].text, "a", "what came before is kept");
  const id = h.ext().sent("provider/stream")[0].id;
  await until(() => h.ext().sent("cancel").length > 0, "the cancel");
  assert.deepEqual(h.ext().sent("cancel").map((m) => m.params), [{ id }]);
});

test("the process dying mid-stream ends pi's stream with an error naming the exit and the log", async () => {
  const h = await withProvider((p, id, ext) => {
    send(ext, id, [["text_start", 0]]);
    setImmediate(() => ext.kill("SIGKILL"));
    return NO_ANSWER;
  });
  const message = await stream(h).done;
  assert.equal(message.stopReason, "error");
  assert.match(message.errorMessage, /^pi-ext provider `rusty`: extension process exited \(signal SIGKILL\); see .*fake\.log$/);
});

test("silence past the idle limit ends the stream and cancels it", async () => {
  const h = await withProvider(() => NO_ANSWER, { env: { PI_EXT_PROVIDER_IDLE_MS: "5000" } });
  const { done } = stream(h, { timeoutMs: 999_999 });
  await settle();
  let ended = false;
  void done.then(() => (ended = true));
  await h.clock.advance(4999);
  assert.equal(ended, false);
  await h.clock.advance(1);
  const message = await done;
  assert.equal(message.errorMessage, "pi-ext provider `rusty`: sent nothing for 5 s (PI_EXT_PROVIDER_IDLE_MS, else pi's request timeout)");
  await until(() => h.ext().sent("cancel").length === 1, "the cancel");
});

for (const [name, events, error] of [
  ["an index out of order", [["text_start", 1]], "text_start at index 1; the next block's index is 0"],
  ["a delta for a block never started", [["text_start", 0], ["text_delta", 3, "x"]], "text_delta for 3, which is not an open text block"],
  ["a delta of the wrong kind", [["text_start", 0], ["thinking_delta", 0, "x"]], "thinking_delta for 0, which is not an open thinking block"],
  ["a delta after its block ended", [["text_start", 0], ["text_end", 0, null], ["text_delta", 0, "x"]], "text_delta for 0, which is not an open text block"],
  ["tool-call arguments that are not JSON", [["toolcall_start", 0, "c", "t"], ["toolcall_delta", 0, "{oops"], ["toolcall_end", 0, null]], "toolcall_end 0: the tool call's arguments are not a JSON object: {oops"],
  ["done with a block open", [["text_start", 0], ["done", "stop"]], "done while block 0 is still open (end it first)"],
  ["an unknown kind", [["telepathy", 0]], 'unknown event kind "telepathy"'],
  ["not an array", ["text_start"], '"text_start" is not [kind, ...]'],
  ["a bad stop reason", [["done", "error"]], 'done with reason "error"'],
]) {
  test(`malformed: ${name} ends the stream with an error naming it, and nothing more reaches pi`, async () => {
    const h = await withProvider((p, id, ext) => {
      send(ext, id, /** @type {unknown[]} */ (events));
      send(ext, id, [["text_start", 5]]);
      return NO_ANSWER;
    });
    const { events: seen, done } = stream(h);
    const message = await done;
    assert.equal(message.stopReason, "error");
    assert.equal(message.errorMessage, `pi-ext provider \`rusty\`: sent a malformed event: ${error}`);
    assert.equal(seen[seen.length - 1].type, "error");
    assert.ok(seen.every((e) => e.contentIndex === undefined || e.contentIndex === 0), "no event for a bad index");
    await until(() => h.ext().sent("cancel").length === 1, "the cancel");
  });
}

test("an answer without done is an error; the extension's error event is pi's error (aborted too)", async () => {
  const silent = await withProvider((p, id, ext) => {
    send(ext, id, [["text_start", 0], ["text_end", 0, null]]);
    return {};
  });
  assert.equal((await stream(silent).done).errorMessage, "pi-ext provider `rusty`: the stream ended without `done`");
  const failing = await withProvider((p, id, ext) => {
    send(ext, id, [["error", "upstream said 500", false]]);
    return {};
  });
  const message = await stream(failing).done;
  assert.deepEqual([message.stopReason, message.errorMessage], ["error", "upstream said 500"]);
  const aborted = await withProvider((p, id, ext) => {
    send(ext, id, [["error", "gave up", true]]);
    return {};
  });
  assert.equal((await stream(aborted).done).stopReason, "aborted");
  const refused = await withProvider(() => {
    throw { code: -32004, message: "the stream function failed" };
  });
  assert.equal((await stream(refused).done).errorMessage, "pi-ext provider `rusty`: the stream function failed");
});

test("registered from the recorded manifest without a spawn; a provider the live process lacks fails with its problems", async () => {
  const dir = tempDir();
  const binary = path.join(dir, "ext");
  fs.writeFileSync(binary, "12345");
  const stat = fs.statSync(binary);
  const live = manifestWith({ problems: ["extension `rusty` failed to load: no config"] });
  const h = await startBridge(live, {
    config: { binary, cache: { size: 5, mtimeMs: Math.floor(stat.mtimeMs), manifest: manifestWith({ providers: [provider] }) } },
  });
  assert.equal(h.extensions.length, 0, "nothing spawned while pi loads");
  assert.ok(h.fake.providers.has("rusty"));
  await h.startSession(fakeCtx().ctx);
  const message = await stream(h).done;
  assert.equal(message.errorMessage, "pi-ext provider `rusty`: the extension no longer provides it (extension `rusty` failed to load: no config)");
  assert.equal(h.ext().sent("provider/stream").length, 0, "the process was not asked");
});

test("an api_key_env variable is written as the host pi reads it: `$NAME` from 0.77, the bare name before", () => {
  const manifest = /** @type {any} */ ({ name: "p", apiKey: "$MY_KEY", api: "openai-completions", baseUrl: "http://127.0.0.1:9", models: [], configOnly: true });
  assert.equal(providerConfig(manifest, () => /** @type {any} */ (null), "1.6.0").apiKey, "$MY_KEY");
  assert.equal(providerConfig(manifest, () => /** @type {any} */ (null), "0.77.0").apiKey, "$MY_KEY");
  assert.equal(providerConfig(manifest, () => /** @type {any} */ (null), "0.73.1").apiKey, "MY_KEY");
  assert.equal(providerConfig(manifest, () => /** @type {any} */ (null), "").apiKey, "$MY_KEY", "an unknown pi is taken as new");
  // Anything else is passed as it is.
  for (const key of ["sk-literal", "!pass show key", "$not a name", "pre$FIX"]) {
    assert.equal(providerConfig({ ...manifest, apiKey: key }, () => /** @type {any} */ (null), "0.73.1").apiKey, key);
  }
  assert.equal(runtimeProviderConfig(manifest, "0.73.1").apiKey, "MY_KEY");
});

/**
 * pi-ai with a fake `anthropic-messages`: it records what it was asked and
 * answers with `start`, one text block and `done`, as pi-ai's implementations do.
 */
async function aiWithFakeAnthropic() {
  const real = /** @type {any} */ (await import("@mariozechner/pi-ai"));
  /** @type {any[]} */
  const asked = [];
  const ai = {
    ...real,
    /** @param {string} api */
    getApiProvider: (api) => (api === "anthropic-messages" ? { api } : undefined),
    /** @param {any} m @param {any} context @param {any} options */
    streamSimple: (m, context, options) => {
      asked.push({ model: m, context, options });
      const s = real.createAssistantMessageEventStream();
      const output = { role: "assistant", content: [{ type: "text", text: "" }], api: m.api, provider: m.provider, model: m.id, usage: {}, stopReason: "stop", timestamp: 1 };
      queueMicrotask(() => {
        s.push({ type: "start", partial: output });
        s.push({ type: "text_start", contentIndex: 0, partial: output });
        output.content[0].text = "from pi";
        s.push({ type: "text_delta", contentIndex: 0, delta: "from pi", partial: output });
        s.push({ type: "text_end", contentIndex: 0, content: "from pi", partial: output });
        s.push({ type: "done", reason: "stop", message: output });
        s.end();
      });
      return s;
    },
  };
  return { ai, asked };
}

test("a delegation: pi's own implementation of the API answers with the endpoint, headers, key and compat given; the messages keep the model's api", async () => {
  const { ai, asked } = await aiWithFakeAnthropic();
  const to = { api: "anthropic-messages", baseUrl: "http://127.0.0.1:1/proxy/", headers: { authorization: "Bearer t" }, apiKey: "gitlab-duo", compat: { forceAdaptiveThinking: true } };
  const h = await withProvider(
    (p, id, ext) => {
      send(ext, id, [["delegate", to]]);
      return {};
    },
    { loadAi: async () => ai },
  );
  const { events, done } = stream(h);
  const message = await done;
  assert.deepEqual(events.map((e) => e.type), ["start", "text_start", "text_delta", "text_end", "done"], "pi's start once: the bridge pushed it");
  assert.equal(message.content[0].text, "from pi");
  assert.equal(message.api, "pi-ext:rusty", "as pi-ai's implementation called directly records it");
  assert.equal(asked.length, 1);
  const [{ model: m, context, options }] = asked;
  assert.equal(m.api, "anthropic-messages");
  assert.equal(m.baseUrl, "http://127.0.0.1:1/proxy/");
  assert.deepEqual(m.compat, { forceAdaptiveThinking: true });
  assert.equal(m.id, "m1");
  assert.equal(options.apiKey, "gitlab-duo");
  assert.deepEqual(options.headers, { authorization: "Bearer t" });
  assert.equal(context.systemPrompt, "sys", "the context pi gave");
});

test("a delegation that is malformed, late or names an API pi lacks ends the answer with an error naming it; pi-ai is not called", async () => {
  const cases = [
    [[["delegate", { api: "nope" }]], "delegate: pi has no API `nope`"],
    [[["delegate", { api: "pi-ext:rusty" }]], "delegate: `pi-ext:rusty` is an extension's, not one of pi's APIs"],
    [[["delegate", { api: "anthropic-messages", baseUrl: "file:///etc/passwd" }]], "delegate: `baseUrl` must be an http or https URL"],
    [[["delegate", { api: "anthropic-messages", headers: { x: "a\r\nHost: evil" } }]], "delegate: header `x` must be a string without CR, LF or NUL"],
    [[["delegate", { api: "anthropic-messages", extra: 1 }]], 'delegate: unknown field "extra"'],
    [[["text_start", 0], ["delegate", { api: "anthropic-messages" }]], "delegate after the answer's first block (a delegation is the whole answer)"],
  ];
  for (const [sent, why] of cases) {
    const { ai, asked } = await aiWithFakeAnthropic();
    const h = await withProvider(
      (p, id, ext) => {
        send(ext, id, /** @type {unknown[]} */ (sent));
        return {};
      },
      { loadAi: async () => ai },
    );
    const { done } = stream(h);
    const message = await done;
    assert.equal(message.stopReason, "error");
    assert.equal(message.errorMessage, `pi-ext provider \`rusty\`: sent a malformed event: ${why}`);
    assert.equal(asked.length, 0);
  }
});
