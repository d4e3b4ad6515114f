// @ts-check
// Hooks through the bridge: deadlines (paused while the hook waits on the
// user), pi's abort, results applied to pi's event, streamed events.
import assert from "node:assert/strict";
import { test } from "node:test";

import { DialogQueue } from "../lib/dialogs.js";
import { hookResult, trustContext } from "../lib/hooks.js";
import { fakeCtx, manifestWith, NO_ANSWER, settle, startBridge, until } from "./helpers.js";

const gate = { id: "gate::ask", event: "tool_call" };

/** A tool_call event as pi hands it to handlers. */
const toolCall = () => ({ type: "tool_call", toolCallId: "t1", toolName: "bash", input: { command: "rm -rf /tmp/x" } });

/**
 * A hook that asks the user (a confirm of its own call) and blocks unless allowed.
 * @param {import("./helpers.js").FakeExtension} ext
 */
function askingGate(ext) {
  ext.handle("hook/call", async (_p, msg, e) => {
    const answer = await e.request("ui/dialog", { call: msg.id, method: "confirm", title: "Allow?", message: "rm" });
    return answer.result?.value === true ? null : { block: true, reason: "denied" };
  });
}

test("a hook waiting on the user's dialog does not time out; the deadline runs again after (defect 2)", async () => {
  const h = await startBridge(manifestWith({ hooks: [gate] }), { script: askingGate });
  const { ctx, dialogs, notes } = fakeCtx();
  await h.startSession(ctx);
  const [result] = await Promise.all([
    h.fake.emit("tool_call", toolCall(), ctx),
    (async () => {
      await until(() => dialogs.length === 1, "the dialog");
      await h.clock.advance(120_000); // the user thinks for two minutes
      assert.equal(dialogs[0].open, true);
      dialogs[0].answer(true);
    })(),
  ]);
  assert.deepEqual(result, [undefined], "allowed, not blocked by a timeout");
  assert.equal(notes.length, 0);
});

test("a hook's deadline is also paused while its dialog waits in the queue", async () => {
  const h = await startBridge(manifestWith({ hooks: [gate] }), { script: askingGate, mode: "interactive", queue: new DialogQueue() });
  const { ctx, dialogs } = fakeCtx();
  await h.startSession(ctx);
  // Another dialog is on screen first.
  const other = h.ext().request("ui/dialog", { call: null, method: "input", title: "Busy" });
  await until(() => dialogs.length === 1, "the first dialog");
  const result = h.fake.emit("tool_call", toolCall(), ctx);
  await h.clock.advance(60_000);
  assert.equal(dialogs.length, 1, "the hook's dialog is queued");
  dialogs[0].answer("done");
  await other;
  await until(() => dialogs.length === 2, "the hook's dialog");
  dialogs[1].answer(false);
  assert.deepEqual(await result, [{ block: true, reason: "denied" }]);
});

test("a hook that does not answer in time: tool_call is blocked, the user is told why, the call is cancelled", async () => {
  const h = await startBridge(manifestWith({ hooks: [gate] }), { script: (ext) => ext.handle("hook/call", () => NO_ANSWER) });
  const { ctx, notes } = fakeCtx();
  await h.startSession(ctx);
  const result = h.fake.emit("tool_call", toolCall(), ctx);
  await h.clock.advance(29_999);
  await h.clock.advance(1);
  const [out] = await result;
  assert.deepEqual(out, { block: true, reason: "pi-ext hook gate::ask failed: hook gate::ask timed out after 30 s" });
  assert.deepEqual(notes, [
    { message: 'pi-ext "fake": hook gate::ask did not answer within 30 s; the tool call was blocked', type: "warning" },
  ]);
  assert.deepEqual(h.ext().sent("cancel").map((m) => m.params.id), [h.ext().sent("hook/call")[0].id]);
});

test("the hook deadline: per hook from the manifest, else PI_EXT_HOOK_TIMEOUT_MS", async () => {
  const quick = { id: "x::quick", event: "turn_end", timeoutMs: 1000 };
  const plain = { id: "x::plain", event: "agent_end" };
  const h = await startBridge(manifestWith({ hooks: [quick, plain] }), {
    env: { PI_EXT_HOOK_TIMEOUT_MS: "5000" },
    script: (ext) => ext.handle("hook/call", () => NO_ANSWER),
  });
  const { ctx, notes } = fakeCtx();
  await h.startSession(ctx);
  const turn = assert.rejects(h.fake.emit("turn_end", { type: "turn_end" }, ctx), /hook x::quick timed out after 1 s/);
  await h.clock.advance(1000);
  await turn;
  let agentEnded = false;
  const agent = h.fake.emit("agent_end", { type: "agent_end" }, ctx).catch((err) => {
    agentEnded = true;
    return err;
  });
  await h.clock.advance(4999);
  assert.equal(agentEnded, false);
  await h.clock.advance(1);
  assert.match(String(await agent), /hook x::plain timed out after 5 s/);
  assert.match(notes[1].message, /pi went on without it/);
});

test("pi's abort ends a pending hook at once: tool_call is blocked, others return nothing, the extension is told (defect 17)", async () => {
  const other = { id: "x::context", event: "context" };
  const h = await startBridge(manifestWith({ hooks: [gate, other] }), { script: (ext) => ext.handle("hook/call", () => NO_ANSWER) });
  const run = new AbortController();
  const { ctx } = fakeCtx({ signal: run.signal });
  await h.startSession(ctx);
  const gated = h.fake.emit("tool_call", toolCall(), ctx);
  const context = h.fake.emit("context", { type: "context", messages: [] }, ctx);
  await until(() => h.ext().sent("hook/call").length === 2, "both hooks called");
  run.abort(); // no time passes
  assert.deepEqual(await gated, [{ block: true, reason: "pi-ext hook gate::ask: aborted" }]);
  assert.deepEqual(await context, [undefined]);
  await settle();
  assert.deepEqual(
    h.ext().sent("cancel").map((m) => m.params.id).sort(),
    h.ext().sent("hook/call").map((m) => m.id).sort(),
  );
});

test("a hook called with a signal aborted already (the previous run's) runs normally", async () => {
  const h = await startBridge(manifestWith({ hooks: [{ id: "x::end", event: "agent_end" }] }), {
    script: (ext) => ext.handle("hook/call", () => ({ seen: true })),
  });
  const run = new AbortController();
  run.abort();
  const { ctx } = fakeCtx({ signal: run.signal });
  await h.startSession(ctx);
  assert.deepEqual(await h.fake.emit("agent_end", { type: "agent_end" }, ctx), [{ seen: true }]);
});

test("a tool_call hook's new input replaces pi's, without `__proto__` or `constructor` (defect 20)", async () => {
  const h = await startBridge(manifestWith({ hooks: [gate] }), {
    script: (ext) =>
      ext.handle("hook/call", () => JSON.parse('{"input":{"__proto__":{"polluted":true},"constructor":{"prototype":{"x":1}},"command":"ls"}}')),
  });
  const { ctx } = fakeCtx();
  await h.startSession(ctx);
  const event = toolCall();
  const input = event.input;
  assert.deepEqual(await h.fake.emit("tool_call", event, ctx), [undefined]);
  assert.equal(event.input, input, "changed in place, as pi requires");
  assert.deepEqual(Object.keys(input), ["command"]);
  assert.equal(input.command, "ls");
  assert.equal(Object.getPrototypeOf(input), Object.prototype);
  assert.equal(/** @type {any} */ (input).polluted, undefined);
});

test("an event that cannot be sent blocks a tool_call with the reason, and reaches nothing (defect 12)", async () => {
  const h = await startBridge(manifestWith({ hooks: [gate] }), { script: (ext) => ext.handle("hook/call", () => null) });
  const { ctx } = fakeCtx();
  await h.startSession(ctx);
  const event = { ...toolCall(), input: { size: 10n } };
  const [out] = /** @type {any[]} */ (await h.fake.emit("tool_call", event, ctx));
  assert.equal(out.block, true);
  assert.match(out.reason, /cannot send the tool_call event: `size` is a BigInt/);
  assert.equal(h.ext().sent("hook/call").length, 0);
});

test("streamed message_update events are sent without the partial message (event slimming), in one write", async () => {
  const h = await startBridge(manifestWith({ hooks: [{ id: "x::stream", event: "message_update" }] }));
  const { ctx } = fakeCtx();
  await h.startSession(ctx);
  const big = "word ".repeat(1000);
  const update = (/** @type {string} */ delta) => ({
    type: "message_update",
    message: { role: "assistant", content: [{ type: "text", text: big }], model: "m" },
    assistantMessageEvent: { type: "text_delta", delta, partial: { content: [{ type: "text", text: big }] } },
  });
  const writes = [];
  h.ext().stdin.on("data", (chunk) => writes.push(chunk));
  for (const delta of ["a", "b", "c"]) assert.deepEqual(await h.fake.emit("message_update", update(delta), ctx), [undefined]);
  await until(() => h.ext().sent("hook/notify").length === 3, "the three notifications");
  const notes = h.ext().sent("hook/notify");
  assert.deepEqual(
    notes.map((n) => n.params.payload.assistantMessageEvent),
    ["a", "b", "c"].map((delta) => ({ type: "text_delta", delta })),
  );
  assert.deepEqual(notes[0].params.payload.message, { role: "assistant", model: "m" });
  assert.equal(notes[0].params.hook, "x::stream");
  assert.ok(h.ext().lines.every((l) => !l.includes("word word")), "no partial content is sent");
  assert.equal(writes.length, 1, "three notifications, one write");
});

test("pi 1.6's hook results: tool_call's terminate, header changes made in place", () => {
  assert.deepEqual(hookResult("tool_call", toolCall(), { block: true, reason: "r", terminate: true }), { block: true, reason: "r", terminate: true });
  assert.deepEqual(hookResult("tool_call", toolCall(), { block: true, reason: "r" }), { block: true, reason: "r" });
  const headers = { "x-keep": "k", "x-drop": "d", "x-set": "old" };
  const event = { type: "before_provider_headers", headers };
  const out = hookResult("before_provider_headers", event, { headers: { "x-set": "new", "x-drop": null, "x-add": "a", "x-bad": 5 } });
  assert.equal(out, undefined, "pi ignores the result: the headers change in place");
  assert.equal(event.headers, headers);
  assert.deepEqual(headers, { "x-keep": "k", "x-drop": null, "x-set": "new", "x-add": "a" });
});

test("a project_trust hook always answers pi with a decision; a malformed one is undecided", () => {
  assert.deepEqual(hookResult("project_trust", {}, null), { trusted: "undecided" });
  assert.deepEqual(hookResult("project_trust", {}, { trusted: "maybe" }), { trusted: "undecided" });
  assert.deepEqual(hookResult("project_trust", {}, { trusted: "yes", remember: true }), { trusted: "yes", remember: true });
  assert.deepEqual(hookResult("project_trust", {}, { trusted: "no", remember: "yes" }), { trusted: "no" });
});

test("pi's project_trust context: what it offers works, anything else fails saying what it offers", async () => {
  /** @type {string[]} */
  const notes = [];
  const ctx = trustContext({
    cwd: "/p",
    mode: "tui",
    hasUI: true,
    ui: { select: async () => "Trust", confirm: async () => true, input: async () => "", notify: (/** @type {string} */ m) => notes.push(m) },
  });
  assert.equal(ctx.cwd, "/p");
  assert.equal(await ctx.ui.select(), "Trust");
  ctx.ui.notify("hi");
  assert.deepEqual(notes, ["hi"]);
  const any = /** @type {any} */ (ctx);
  assert.throws(() => any.sessionManager.getEntries(), /ctx\.sessionManager is not available in a project_trust hook: pi gives it only cwd, mode, hasUI and ui\.select\/confirm\/input\/notify/);
  assert.throws(() => any.ui.setStatus("k", "v"), /ctx\.ui\.setStatus is not available in a project_trust hook/);
  assert.equal(await Promise.resolve(ctx), ctx, "awaitable like any object");
});

test("a project_trust hook is sent the trust context's mode and hasUI, and its dialog is shown in that context", async () => {
  /** @type {unknown[]} */
  const errors = [];
  const h = await startBridge(manifestWith({ hooks: [{ id: "t::trust", event: "project_trust" }] }), {
    script: (ext) =>
      ext.handle("hook/call", async (p, msg, e) => {
        const answer = await e.request("ui/dialog", { call: msg.id, method: "select", title: `Trust ${p.payload.cwd}?`, options: ["yes", "no"] });
        // Not in pi's trust context: refused, saying why.
        const entries = await e.request("api/call", { call: msg.id, method: "getEntries", args: [] });
        errors.push(entries.error?.message);
        return { trusted: answer.result?.value === "yes" ? "yes" : "no", remember: entries.error?.message };
      }),
  });
  const { ctx, dialogs } = fakeCtx();
  const trustCtx = { cwd: "/p", mode: "tui", hasUI: true, ui: { select: ctx.ui.select, confirm: ctx.ui.confirm, input: ctx.ui.input, notify: ctx.ui.notify } };
  const pending = h.fake.emit("project_trust", { type: "project_trust", cwd: "/p" }, /** @type {any} */ (trustCtx));
  await until(() => dialogs.length === 1, "the dialog shown");
  assert.equal(dialogs[0].args[0], "Trust /p?");
  dialogs[0].answer("yes");
  const [out] = /** @type {any[]} */ (await pending);
  assert.deepEqual(out, { trusted: "yes" }, "remember is kept only when it is true");
  const { payload } = h.ext().sent("hook/call")[0].params;
  assert.deepEqual([payload.type, payload.cwd, payload.mode, payload.hasUI], ["project_trust", "/p", "tui", true]);
  assert.equal(errors.length, 1);
  assert.match(String(errors[0]), /ctx\.sessionManager is not available in a project_trust hook/);
});

test("before_agent_start: systemPromptOptions changes are made in pi's options in place; the rest is the result", () => {
  const event = {
    systemPrompt: "p",
    systemPromptOptions: { sections: { tool_guidance: "old", keep: "k" }, selectedTools: ["read"], promptGuidelines: ["g"] },
  };
  const out = hookResult("before_agent_start", event, {
    systemPromptOptions: {
      // As JSON decodes it: `__proto__` an own key.
      sections: JSON.parse('{"tool_guidance": null, "extra": "- more", "__proto__": {"polluted": 1}, "bad": 3}'),
      selectedTools: ["read", "bash"],
      promptGuidelines: ["a", 1],
    },
  });
  assert.equal(out, undefined, "nothing else: no result for pi");
  assert.deepEqual(event.systemPromptOptions, {
    sections: { keep: "k", extra: "- more" },
    selectedTools: ["read", "bash"],
    promptGuidelines: ["g"],
  });
  assert.equal(Object.getPrototypeOf(event.systemPromptOptions.sections), Object.prototype);
  assert.equal(/** @type {any} */ (event.systemPromptOptions.sections).polluted, undefined);
  assert.deepEqual(hookResult("before_agent_start", event, { systemPrompt: "s", systemPromptOptions: { sections: { keep: "k2" } } }), { systemPrompt: "s" });
  assert.equal(event.systemPromptOptions.sections.keep, "k2");
  // pi 0.73.1 has no options: the changes are dropped, the rest kept.
  assert.deepEqual(hookResult("before_agent_start", { systemPrompt: "p" }, { systemPrompt: "s", systemPromptOptions: { sections: {} } }), { systemPrompt: "s" });
});
