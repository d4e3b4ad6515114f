// @ts-check
// Which pi context an extension message acts in (defect 10: never "the last
// one seen", never another session's).
import assert from "node:assert/strict";
import { test } from "node:test";

import { fakeCtx, manifestWith, NO_ANSWER, startBridge, toolManifest, until } from "./helpers.js";

/** @param {any} answer */
const notified = (answer) => answer.error ?? answer.result;

test("a live call's messages act in that call's context, even after a newer session started", async () => {
  const h = await startBridge(manifestWith({ tools: [toolManifest("slow")] }), {
    script: (ext) => ext.handle("tool/call", () => NO_ANSWER),
  });
  const one = fakeCtx();
  await h.startSession(one.ctx);
  h.fake.tools.get("slow").execute("c1", {}, undefined, undefined, one.ctx).catch(() => {});
  await until(() => h.ext().sent("tool/call").length === 1, "the call");
  const call = h.ext().sent("tool/call")[0].id;
  const two = fakeCtx();
  await h.startSession(two.ctx);
  await h.ext().request("ui/call", { call, method: "notify", args: ["from the call"] });
  assert.deepEqual(one.notes.map((n) => n.message), ["from the call"]);
  assert.deepEqual(two.notes, []);
});

test("a finished call's messages act in its session only while that session is current (defect 10)", async () => {
  const h = await startBridge(manifestWith({ tools: [toolManifest("quick")] }), {
    script: (ext) => ext.handle("tool/call", () => ({ content: [] })),
  });
  const one = fakeCtx();
  await h.startSession(one.ctx);
  await h.fake.tools.get("quick").execute("c1", {}, undefined, undefined, one.ctx);
  const call = h.ext().sent("tool/call")[0].id;
  // Finished, same session (a task the tool spawned): the session's context.
  assert.equal(notified(await h.ext().request("ui/call", { call, method: "notify", args: ["later"] })), null);
  assert.deepEqual(one.notes.map((n) => n.message), ["later"]);

  const two = fakeCtx();
  await h.startSession(two.ctx);
  // Without `session`, the bridge knows the call's generation itself.
  for (const params of [{ call }, { call, session: 1 }]) {
    const answer = await h.ext().request("ui/call", { ...params, method: "notify", args: ["stale"] });
    assert.deepEqual(answer.error, { code: -32022, message: "the pi session of this call has ended" }, JSON.stringify(params));
    const dialog = await h.ext().request("ui/dialog", { ...params, method: "confirm", title: "stale?" });
    assert.equal(dialog.error.code, -32022);
    const api = await h.ext().request("api/call", { ...params, method: "getSessionId", args: [] });
    assert.equal(api.error.code, -32022);
  }
  assert.deepEqual(one.notes.map((n) => n.message), ["later"], "nothing reached the old session");
  assert.equal(two.notes.length, 0, "nor the new one");
  assert.equal(two.dialogs.length + one.dialogs.length, 0);
  // The Rust side may say the call's session is the current one (a call it got in session 2).
  await h.ext().request("ui/call", { call, session: 2, method: "notify", args: ["current"] });
  assert.deepEqual(two.notes.map((n) => n.message), ["current"]);
});

test("a message without a call acts in the current session; before the first and after the last there is none", async () => {
  const h = await startBridge(manifestWith({}));
  const before = await h.ext().request("ui/call", { call: null, method: "notify", args: ["early"] });
  assert.deepEqual(before.error, { code: -32022, message: "no pi session has started yet" });
  const one = fakeCtx();
  await h.startSession(one.ctx);
  const two = fakeCtx();
  await h.startSession(two.ctx);
  await h.ext().request("ui/call", { call: null, method: "notify", args: ["now"] });
  assert.deepEqual(two.notes.map((n) => n.message), ["now"]);
  assert.deepEqual(one.notes, []);
  await h.fake.emit("session_shutdown", { type: "session_shutdown" }, two.ctx);
  // pi-ext's process was told to stop; a message still in flight finds no session.
  assert.equal(h.bridge.session.ctx, undefined);
});

test("a command's context is rebound when it replaces the session", async () => {
  const h = await startBridge(manifestWith({ commands: [{ name: "fresh" }] }), {
    script: (ext) =>
      ext.handle("command/call", async (_p, msg, e) => {
        await e.request("api/call", { call: msg.id, method: "newSession", args: [] });
        await e.request("ui/call", { call: msg.id, method: "notify", args: ["in the new session"] });
        return null;
      }),
  });
  const old = fakeCtx();
  const fresh = fakeCtx();
  old.ctx.newSession = async (/** @type {any} */ options) => {
    await options.withSession(fresh.ctx);
    return { cancelled: false };
  };
  await h.startSession(old.ctx);
  await h.fake.commands.get("fresh").handler("", old.ctx);
  assert.deepEqual(fresh.notes.map((n) => n.message), ["in the new session"]);
  assert.deepEqual(old.notes, []);
});
