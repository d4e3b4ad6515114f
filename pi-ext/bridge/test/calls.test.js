// @ts-check
// Tool calls through the bridge: the round trip, deadlines, what cannot be
// sent, line limits, the liveness check, and pi's API table.
import assert from "node:assert/strict";
import * as fs from "node:fs";
import { test } from "node:test";

import { fakeCtx, manifestWith, NO_ANSWER, settle, startBridge, toolManifest, until } from "./helpers.js";

/** @param {any} p */
const echo = (p) => ({ content: [{ type: "text", text: JSON.stringify(p.args) }] });

test("a tool call reaches the extension with its session generation and comes back", async () => {
  const h = await startBridge(manifestWith({ tools: [toolManifest("echo")] }), {
    script: (ext) => ext.handle("tool/call", echo),
  });
  const { ctx } = fakeCtx();
  await h.startSession(ctx);
  const out = await h.fake.tools.get("echo").execute("c1", { a: 1 }, undefined, undefined, ctx);
  assert.deepEqual(out, { content: [{ type: "text", text: '{"a":1}' }], details: {} });
  const [call] = h.ext().sent("tool/call");
  assert.deepEqual(call.params, { tool: "echo", toolCallId: "c1", args: { a: 1 }, session: 1 });
  assert.ok(h.ext().lines.find((l) => l.includes('"tool/call"'))?.startsWith(`{"id":${call.id},`), "the id comes first");
});

test("a tool with timeoutMs fails after it, is cancelled in the extension, and its dialogs close (defect 16)", async () => {
  const h = await startBridge(manifestWith({ tools: [toolManifest("slow", { timeoutMs: 2000 }), toolManifest("free")] }), {
    script: (ext) =>
      ext.handle("tool/call", (p, msg, e) => {
        if (p.tool === "slow") void e.request("ui/dialog", { call: msg.id, method: "confirm", title: "Still there?" });
        return NO_ANSWER;
      }),
  });
  const { ctx, dialogs } = fakeCtx();
  await h.startSession(ctx);
  const slow = h.fake.tools.get("slow").execute("c1", {}, undefined, undefined, ctx);
  const rejected = assert.rejects(slow, /tool `slow` timed out after 2 s/);
  await until(() => dialogs.length === 1, "the dialog");
  await h.clock.advance(1999);
  assert.equal(dialogs[0].open, true);
  await h.clock.advance(1);
  await rejected;
  const id = h.ext().sent("tool/call")[0].id;
  assert.deepEqual(h.ext().sent("cancel").map((m) => m.params), [{ id }]);
  assert.equal(dialogs[0].open, false, "the tool's dialog was dismissed");

  // Without timeoutMs there is no deadline (the extension answers pings: it is alive).
  let settled = false;
  h.fake.tools.get("free").execute("c2", {}, undefined, undefined, ctx).finally(() => (settled = true));
  await h.clock.advance(3_600_000);
  assert.equal(settled, false);
});

test("arguments nested too deeply fail the call with a clear error and send nothing (defect 12)", async () => {
  const h = await startBridge(manifestWith({ tools: [toolManifest("echo")] }), { script: (ext) => ext.handle("tool/call", echo) });
  const { ctx } = fakeCtx();
  await h.startSession(ctx);
  /** @type {unknown} */
  let deep = "leaf";
  for (let i = 0; i < 200_000; i++) deep = [deep];
  await assert.rejects(
    h.fake.tools.get("echo").execute("c1", { deep }, undefined, undefined, ctx),
    /cannot send the arguments of tool `echo`: it is nested too deeply/,
  );
  assert.equal(h.ext().sent("tool/call").length, 0);
  // The connection is fine.
  const out = await h.fake.tools.get("echo").execute("c2", { ok: true }, undefined, undefined, ctx);
  assert.equal(out.content[0].text, '{"ok":true}');
});

test("an answer with id null (the extension could not read a line) is logged (defect 12)", async () => {
  const h = await startBridge(manifestWith({}));
  h.ext().send({ id: null, error: { code: -32700, message: "malformed protocol line: lone surrogate" } });
  await settle();
  assert.match(fs.readFileSync(h.logFile, "utf8"), /the extension could not read a line the bridge sent: malformed protocol line: lone surrogate/);
});

test("line limit: an over-long request is refused before it is sent; an over-long answer fails its call only", async () => {
  const h = await startBridge(manifestWith({ tools: [toolManifest("echo"), toolManifest("big")] }), {
    env: { PI_EXT_MAX_LINE_BYTES: "1000" },
    script: (ext) =>
      ext.handle("tool/call", (p) => (p.tool === "big" ? { content: [{ type: "text", text: "x".repeat(5000) }] } : echo(p))),
  });
  const { ctx } = fakeCtx();
  await h.startSession(ctx);
  const tool = (/** @type {string} */ name, /** @type {unknown} */ args) => h.fake.tools.get(name).execute("c", args, undefined, undefined, ctx);
  await assert.rejects(tool("echo", { text: "y".repeat(2000) }), /cannot send the arguments of tool `echo`: its request line would be 2\d\d\d bytes, over the limit of 1000 bytes per line \(PI_EXT_MAX_LINE_BYTES\)/);
  assert.equal(h.ext().sent("tool/call").length, 0);
  await assert.rejects(tool("big", {}), /the extension's answer to tool\/call was 50\d\d bytes, over the limit of 1000 bytes/);
  assert.equal((await tool("echo", { n: 1 })).content[0].text, '{"n":1}');

  // A request from the extension over the limit is answered with an error.
  const answer = await h.ext().request("ui/call", { call: null, method: "notify", args: ["z".repeat(3000)] });
  assert.equal(answer.error.code, -32600);
  assert.match(answer.error.message, /over the limit of 1000 bytes/);
});

test("liveness: a stopped process is noticed, killed, its calls fail clearly, and the next call restarts it (defect 16)", async () => {
  const h = await startBridge(manifestWith({ tools: [toolManifest("echo")] }), {
    env: { PI_EXT_LIVENESS_TIMEOUT_MS: "10000" },
    script: (ext) => ext.handle("tool/call", echo),
  });
  const { ctx } = fakeCtx();
  await h.startSession(ctx);
  const first = h.ext();
  first.sigstop();
  const pending = h.fake.tools.get("echo").execute("c1", {}, undefined, undefined, ctx);
  const failed = assert.rejects(pending, /extension process stopped responding \(no answer to a liveness ping within 10 s, PI_EXT_LIVENESS_TIMEOUT_MS\)/);
  await h.clock.advance(5000); // the first ping goes out
  assert.equal(first.killedWith, undefined);
  await h.clock.advance(10_000);
  await failed;
  assert.equal(first.killedWith, "SIGKILL");
  const out = await h.fake.tools.get("echo").execute("c2", { again: 1 }, undefined, undefined, ctx);
  assert.equal(out.content[0].text, '{"again":1}');
  assert.equal(h.extensions.length, 2);
});

test("liveness: an extension that answers ping with 'unknown method' is alive; pings stop when nothing waits", async () => {
  const h = await startBridge(manifestWith({ tools: [toolManifest("wait")] }), {
    script: (ext) => {
      ext.handlers.delete("ping"); // the runtime before `ping`
      ext.handle("tool/call", () => NO_ANSWER);
    },
  });
  const { ctx } = fakeCtx();
  await h.startSession(ctx);
  h.fake.tools.get("wait").execute("c1", {}, undefined, undefined, ctx).catch(() => {});
  await h.clock.advance(60_000);
  assert.equal(h.ext().killedWith, undefined);
  const pings = h.ext().sent("ping").length;
  assert.ok(pings >= 5 && pings <= 12, `${pings} pings in 60 s`);
  // The call is answered: no more pings.
  const call = h.ext().sent("tool/call")[0];
  h.ext().send({ id: call.id, result: { content: [] } });
  await h.clock.advance(60_000);
  assert.equal(h.ext().sent("ping").length, pings);
});

test("pi's API table is a Map: `constructor` and other Object.prototype names are unknown methods (defect 20)", async () => {
  const h = await startBridge(manifestWith({}));
  await h.startSession();
  for (const method of ["constructor", "__proto__", "toString", "hasOwnProperty"]) {
    const answer = await h.ext().request("api/call", { call: null, method, args: [] });
    assert.equal(answer.error?.code, -32601, method);
    assert.equal(answer.result, undefined, method);
  }
  const ui = await h.ext().request("ui/call", { call: null, method: "constructor", args: [] });
  assert.equal(ui.error?.code, -32601);
  const name = await h.ext().request("api/call", { call: null, method: "getSessionName", args: [] });
  assert.equal(name.result, "a session");
});

test("pi's exception in an API call is an INTERNAL_ERROR answer with pi's message", async () => {
  const h = await startBridge(manifestWith({}));
  await h.startSession();
  h.pi.appendEntry = () => {
    throw new Error("no such entry type");
  };
  const answer = await h.ext().request("api/call", { call: null, method: "appendEntry", args: ["x", {}] });
  assert.deepEqual(answer.error, { code: -32603, message: "no such entry type" });
});

test("sendUserMessage without a delivery while pi is busy is a follow-up (pi ≥ 1.2 rejects it inside before_agent_start, where the session is busy)", async () => {
  const h = await startBridge(manifestWith({}));
  const { ctx } = fakeCtx();
  let idle = true;
  ctx.isIdle = () => idle;
  await h.startSession(ctx);
  /** @type {unknown[]} */
  const sent = [];
  h.pi.sendUserMessage = (/** @type {unknown} */ content, /** @type {unknown} */ options) => sent.push([content, options]);
  const call = (/** @type {unknown} */ options) => h.ext().request("api/call", { call: null, method: "sendUserMessage", args: ["hi", options] });
  await call(null);
  idle = false;
  await call(null);
  await call({ deliverAs: "steer" });
  assert.deepEqual(sent, [
    ["hi", undefined],
    ["hi", { deliverAs: "followUp" }],
    ["hi", { deliverAs: "steer" }],
  ]);
});

test("a shortcut alone (`#[shortcut]`) registers its key and no command; the key runs it by its wire name, a failure is shown naming the key", async () => {
  const manifest = manifestWith({
    commands: [
      { name: "shortcut:ctrl+shift+u", description: "Cycle presets", shortcut: "ctrl+shift+u", shortcutOnly: true },
      { name: "both", description: "A command with a key", shortcut: "ctrl+shift+b" },
    ],
  });
  let calls = 0;
  const h = await startBridge(manifest, {
    script: (ext) =>
      ext.handle("command/call", () => {
        // The second press fails, as a handler returning `Err` does.
        if (++calls === 2) throw { code: -32000, message: "no presets" };
        return null;
      }),
  });
  const { ctx, notes } = fakeCtx();
  await h.startSession(ctx);
  assert.deepEqual([...h.fake.commands.keys()], ["both"]);
  assert.deepEqual([...h.fake.shortcuts.keys()], ["ctrl+shift+u", "ctrl+shift+b"]);
  assert.equal(h.fake.shortcuts.get("ctrl+shift+u").description, "Cycle presets");
  await h.fake.shortcuts.get("ctrl+shift+u").handler(ctx);
  assert.deepEqual(
    h.ext().sent("command/call").map((m) => [m.params.command, m.params.args]),
    [["shortcut:ctrl+shift+u", ""]],
  );
  assert.deepEqual(notes, []);
  await h.fake.shortcuts.get("ctrl+shift+u").handler(ctx);
  assert.deepEqual(notes, [{ message: "ctrl+shift+u failed: no presets", type: "error" }]);
});
