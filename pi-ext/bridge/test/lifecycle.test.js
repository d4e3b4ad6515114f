// @ts-check
// The extension process's life: the recorded manifest, crash and restart
// (with the session's start replayed), dialogs of a process that goes away,
// hot reload, and the drain at session_shutdown.
import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { test } from "node:test";

import { DialogQueue } from "../lib/dialogs.js";
import { fakeCtx, manifestWith, NO_ANSWER, settle, startBridge, tempDir, toolManifest, until } from "./helpers.js";

/** @param {any} p */
const echo = (p) => ({ content: [{ type: "text", text: `${p.tool} ${JSON.stringify(p.args)}` }] });

test("with the recorded manifest, tools register at once and the process starts at session_start", async () => {
  const dir = tempDir();
  const binary = path.join(dir, "ext");
  fs.writeFileSync(binary, "12345");
  const stat = fs.statSync(binary);
  const recorded = manifestWith({ tools: [toolManifest("echo"), toolManifest("gone")] });
  const live = manifestWith({ tools: [toolManifest("echo")], problems: ["extension `x` was not loaded: on_load failed"] });
  const h = await startBridge(live, {
    config: { binary, cache: { size: 5, mtimeMs: Math.floor(stat.mtimeMs), manifest: recorded } },
    script: (ext) => ext.handle("tool/call", echo),
  });
  assert.equal(h.extensions.length, 0, "nothing spawned while pi loads");
  assert.deepEqual([...h.fake.tools.keys()], ["echo", "gone"]);
  const { ctx, notes } = fakeCtx();
  await h.startSession(ctx);
  await until(() => notes.length === 1, "the live manifest's problem");
  assert.equal(h.extensions.length, 1);
  assert.match(notes[0].message, /on_load failed/);
  await assert.rejects(
    h.fake.tools.get("gone").execute("c1", {}, undefined, undefined, ctx),
    /tool gone is not available: extension `x` was not loaded: on_load failed/,
  );
  assert.equal(h.ext().sent("tool/call").length, 0, "the process was not asked");
});

test("an extension that only answers pi (onDemand) starts at its first call, not at session_start", async () => {
  const dir = tempDir();
  const binary = path.join(dir, "ext");
  fs.writeFileSync(binary, "12345");
  const stat = fs.statSync(binary);
  const recorded = manifestWith({ tools: [toolManifest("echo")], onDemand: true });
  const h = await startBridge(recorded, {
    config: { binary, cache: { size: 5, mtimeMs: Math.floor(stat.mtimeMs), manifest: recorded } },
    script: (ext) => ext.handle("tool/call", echo),
  });
  const { ctx } = fakeCtx();
  await h.startSession(ctx);
  await settle();
  assert.equal(h.extensions.length, 0, "nothing spawned at session_start");
  const [first, second] = await Promise.all([
    h.fake.tools.get("echo").execute("c1", { n: 1 }, undefined, undefined, ctx),
    h.fake.tools.get("echo").execute("c2", { n: 2 }, undefined, undefined, ctx),
  ]);
  assert.equal(h.extensions.length, 1, "two calls at once start one process");
  assert.deepEqual([first.content[0].text, second.content[0].text], ['echo {"n":1}', 'echo {"n":2}']);
});

test("an onDemand binary of another protocol starts at session_start, so that the mismatch is told then", async () => {
  const dir = tempDir();
  const binary = path.join(dir, "ext");
  fs.writeFileSync(binary, "12345");
  const stat = fs.statSync(binary);
  const recorded = manifestWith({ tools: [toolManifest("echo")], onDemand: true, protocol: 1 });
  const h = await startBridge(manifestWith({ tools: [toolManifest("echo")] }), {
    config: { binary, cache: { size: 5, mtimeMs: Math.floor(stat.mtimeMs), manifest: recorded } },
  });
  assert.equal(h.extensions.length, 0, "nothing spawned while pi loads");
  const { ctx } = fakeCtx();
  await h.startSession(ctx);
  await until(() => h.extensions.length === 1, "the start at session_start");
});

test("a binary changed since install is asked for its manifest while pi loads", async () => {
  const dir = tempDir();
  const binary = path.join(dir, "ext");
  fs.writeFileSync(binary, "123456");
  const h = await startBridge(manifestWith({ tools: [toolManifest("fresh")] }), {
    config: { binary, cache: { size: 5, manifest: manifestWith({ tools: [toolManifest("stale")] }) } },
  });
  assert.equal(h.extensions.length, 1);
  assert.deepEqual([...h.fake.tools.keys()], ["fresh"]);
  assert.match(fs.readFileSync(h.logFile, "utf8"), /changed since it was installed/);
});

test("a process that dies fails its calls with the reason; the next call starts a new one", async () => {
  const h = await startBridge(manifestWith({ tools: [toolManifest("echo")] }), {
    script: (ext, n) => ext.handle("tool/call", (p) => (n === 0 ? NO_ANSWER : echo(p))),
  });
  const { ctx } = fakeCtx();
  await h.startSession(ctx);
  const pending = h.fake.tools.get("echo").execute("c1", {}, undefined, undefined, ctx);
  await settle();
  h.ext().exit(3);
  await assert.rejects(pending, (err) => err instanceof Error && err.message === `extension process exited (code 3); see ${h.logFile}`);
  const out = await h.fake.tools.get("echo").execute("c2", { n: 2 }, undefined, undefined, ctx);
  assert.equal(out.content[0].text, 'echo {"n":2}');
  assert.equal(h.extensions.length, 2);
});

/**
 * An extension that registers the tool `dyn` at run time from its
 * session_start hook (unless told not to) and serves it once registered.
 * @param {{ registerAgain: boolean }} o
 */
function runtimeToolScript({ registerAgain }) {
  return (/** @type {import("./helpers.js").FakeExtension} */ ext, /** @type {number} */ n) => {
    let registered = false;
    ext.handle("hook/call", async (p, msg, e) => {
      if (p.hook === "x::start" && (n === 0 || registerAgain)) {
        await e.request("api/call", { call: msg.id, session: p.session, method: "registerTool", args: [toolManifest("dyn")] });
        registered = true;
      }
      return null;
    });
    ext.handle("tool/call", (p) => {
      if (p.tool === "crash") return e_exit(ext);
      if (p.tool === "dyn" && !registered) throw { code: -32001, message: "unknown tool `dyn`" };
      return echo(p);
    });
  };
}
/** @param {import("./helpers.js").FakeExtension} ext */
function e_exit(ext) {
  ext.exit(3);
  return NO_ANSWER;
}

test("after a crash the new process gets the session's start again, so tools it registers at run time come back (defect 9)", async () => {
  const manifest = manifestWith({ tools: [toolManifest("crash")], hooks: [{ id: "x::start", event: "session_start" }] });
  const h = await startBridge(manifest, { script: runtimeToolScript({ registerAgain: true }) });
  const { ctx } = fakeCtx();
  await h.startSession(ctx);
  const tool = (/** @type {string} */ name) => h.fake.tools.get(name).execute("c", { k: 1 }, undefined, undefined, ctx);
  assert.equal((await tool("dyn")).content[0].text, 'dyn {"k":1}');
  await assert.rejects(tool("crash"), /exited \(code 3\)/);
  assert.equal((await tool("dyn")).content[0].text, 'dyn {"k":1}');
  const [replayed] = h.extensions[1].sent("hook/call");
  assert.deepEqual(replayed.params, { hook: "x::start", session: 1, payload: { type: "session_start", reason: "startup" } });
  // The first process got the session's start from pi, once; no replay at a first start.
  assert.equal(h.extensions[0].sent("hook/call").length, 1);
});

test("a run-time tool the restarted process did not register again fails with a clear error (defect 9)", async () => {
  const manifest = manifestWith({ tools: [toolManifest("crash")], hooks: [{ id: "x::start", event: "session_start" }] });
  const h = await startBridge(manifest, { script: runtimeToolScript({ registerAgain: false }) });
  const { ctx } = fakeCtx();
  await h.startSession(ctx);
  const tool = (/** @type {string} */ name) => h.fake.tools.get(name).execute("c", {}, undefined, undefined, ctx);
  await tool("dyn");
  await assert.rejects(tool("crash"), /exited/);
  await assert.rejects(
    tool("dyn"),
    /tool dyn was registered at run time by an extension process that has since restarted, and the new process has not registered it again/,
  );
});

test("the dialogs of a process that dies are dismissed, shown or queued (defect 5)", async () => {
  const h = await startBridge(manifestWith({}), { mode: "interactive", queue: new DialogQueue() });
  const { ctx, dialogs } = fakeCtx();
  await h.startSession(ctx);
  const first = h.ext().request("ui/dialog", { call: null, method: "input", title: "One" });
  const second = h.ext().request("ui/dialog", { call: null, method: "input", title: "Two" });
  await until(() => dialogs.length === 1, "the first dialog");
  h.ext().exit(null, "SIGKILL");
  await until(() => !dialogs[0].open, "the first dialog closed");
  await settle();
  assert.equal(dialogs.length, 1, "the queued one is never shown");
  // The process is gone (its requests get no answer); the queue is free for others.
  void first;
  void second;
  await h.bridge.start();
  const third = h.ext().request("ui/dialog", { call: null, method: "confirm", title: "Three" });
  await until(() => dialogs.length === 2, "the new process's dialog");
  dialogs[1].answer(true);
  assert.deepEqual((await third).result, { outcome: "value", value: true });
});

test("a hot reload dismisses the old process's dialogs and hands its snapshots to the new one (defect 5)", async () => {
  const h = await startBridge(manifestWith({}), {
    script: (ext, n) => ext.handle("unload", () => ({ snapshots: { fake: { count: n + 1 } } })),
  });
  const { ctx, dialogs } = fakeCtx();
  await h.startSession(ctx);
  void h.ext().request("ui/dialog", { call: null, method: "select", title: "Pick", options: ["a"] });
  await until(() => dialogs.length === 1, "the dialog");
  await h.bridge.hotReload();
  assert.equal(dialogs[0].open, false);
  assert.equal(h.extensions.length, 2);
  assert.deepEqual(h.extensions[1].sent("initialize")[0].params.snapshots, { fake: { count: 1 } });
});

test("session_shutdown lets a call in flight finish before the process stops", async () => {
  const h = await startBridge(manifestWith({ commands: [{ name: "new" }] }), {
    script: (ext) => ext.handle("command/call", () => NO_ANSWER),
  });
  const { ctx } = fakeCtx();
  await h.startSession(ctx);
  const command = h.fake.commands.get("new").handler("", ctx);
  await settle();
  await h.fake.emit("session_shutdown", { type: "session_shutdown" }, ctx);
  await settle();
  assert.equal(h.ext().sent("shutdown").length, 0, "still serving the command");
  assert.equal(h.bridge.connection.state.name, "draining");
  const call = h.ext().sent("command/call")[0];
  assert.equal(call.params.session, 1);
  h.ext().send({ id: call.id, result: null });
  await command;
  await settle();
  assert.equal(h.ext().sent("shutdown").length, 1);
  assert.equal(h.bridge.connection.state.name, "idle");
});

test("a drain ends after 10 s even if the call does not", async () => {
  const h = await startBridge(manifestWith({ commands: [{ name: "stuck" }] }), {
    script: (ext) => ext.handle("command/call", () => NO_ANSWER),
  });
  const { ctx } = fakeCtx();
  await h.startSession(ctx);
  h.fake.commands.get("stuck").handler("", ctx).catch(() => {});
  await settle();
  await h.fake.emit("session_shutdown", { type: "session_shutdown" }, ctx);
  await h.clock.advance(9999);
  assert.equal(h.ext().sent("shutdown").length, 0);
  await h.clock.advance(1);
  assert.equal(h.ext().sent("shutdown").length, 1);
});
