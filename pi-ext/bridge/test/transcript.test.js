// @ts-check
// pi ≥ 0.86 hands a provider a TranscriptContext (system prompt and tools as
// `role: "system"` messages); a Rust provider gets pi 0.73.1's Context form
// from either.
import assert from "node:assert/strict";
import { test } from "node:test";

import { legacyContext } from "../lib/transcript.js";
import { fakeCtx, manifestWith, startBridge, until } from "./helpers.js";

const read = { name: "read", description: "Read a file", parameters: { type: "object", properties: { path: { type: "string" } } } };
const bash = { name: "bash", description: "Run a command", parameters: { type: "object" } };
const bash2 = { ...bash, description: "Run a command (v2)" };
const user = { role: "user", content: "hi", timestamp: 1 };
const answer = { role: "assistant", content: [{ type: "text", text: "ok" }], stopReason: "stop", timestamp: 2 };

test("a 0.73.1 Context is passed on as it is", () => {
  const context = { systemPrompt: "sys", messages: [user], tools: [read] };
  assert.equal(legacyContext(context), context);
  const bare = { messages: [user] };
  assert.equal(legacyContext(bare), bare);
});

test("a TranscriptContext's system messages become systemPrompt and tools, replayed as pi-ai does", () => {
  const context = {
    messages: [
      { role: "system", content: "You are pi.", sections: { env: "<env>cwd: /</env>", rules: "<rules>be brief</rules>" }, toolsAdded: [read, bash], timestamp: 0 },
      user,
      answer,
      // Later: more text, a section replaced and one removed, a tool removed and one redefined.
      {
        role: "system",
        content: [{ type: "text", text: "Also: answer in English." }, { type: "image", data: "x" }],
        sections: { env: "<env>cwd: /tmp</env>", rules: null },
        toolsRemoved: [{ name: "read" }, { name: "bash" }],
        toolsAdded: [bash2],
        timestamp: 3,
      },
      { role: "user", content: "again", timestamp: 4 },
    ],
  };
  assert.deepEqual(legacyContext(context), {
    systemPrompt: "You are pi.\n\nAlso: answer in English.\n\n<env>cwd: /tmp</env>",
    messages: [user, answer, { role: "user", content: "again", timestamp: 4 }],
    tools: [bash2],
  });
  // The input is not changed.
  assert.equal(context.messages.length, 5);
});

test("a transcript with a system message but no prompt text or tools has neither", () => {
  assert.deepEqual(legacyContext({ messages: [{ role: "system", content: "", timestamp: 0 }, user] }), { messages: [user] });
});

test("a Rust provider on pi ≥ 0.86 is sent systemPrompt and tools, not system messages (was: every provider call failed in Rust)", async () => {
  const model = { id: "m1", name: "M1", api: "pi-ext:rusty", provider: "rusty", baseUrl: "pi-ext:rusty", input: ["text"], cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 }, contextWindow: 1000, maxTokens: 100 };
  const provider = { name: "rusty", baseUrl: "pi-ext:rusty", apiKey: "K", api: "pi-ext:rusty", models: [model] };
  /** @type {any[]} */
  const seen = [];
  const h = await startBridge(manifestWith({ providers: [provider] }), {
    script: (ext) =>
      ext.handle("provider/stream", (p, msg, e) => {
        seen.push(p.context);
        e.send({ method: "provider/event", params: { stream: msg.id, events: [["done", "stop"]] } });
        return {};
      }),
  });
  await h.startSession(fakeCtx().ctx);
  const transcript = { messages: [{ role: "system", content: "sys", toolsAdded: [read], timestamp: 0 }, user] };
  const s = h.fake.providers.get("rusty").streamSimple(model, transcript, { apiKey: "K" });
  for await (const _ of s);
  await until(() => seen.length === 1, "provider/stream");
  assert.deepEqual(seen[0], { systemPrompt: "sys", messages: [user], tools: [read] });
  assert.equal((await s.result()).stopReason, "stop");
});
