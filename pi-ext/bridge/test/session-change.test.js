// @ts-check
// Session changes with work in the new session (withSession), and hooks
// cancelled by their event's own signal.
import assert from "node:assert/strict";
import { test } from "node:test";

import { fakeCtx, manifestWith, NO_ANSWER, startBridge, until } from "./helpers.js";

test("newSession's withSession runs the extension's closure as a call bound to the new session", async () => {
  const h = await startBridge(manifestWith({ commands: [{ name: "handoff", description: "d" }] }), {
    script: (ext) => {
      ext.handle("command/call", async (_p, msg, e) => {
        const answer = await e.request("api/call", { call: msg.id, method: "newSession", args: [{ parentSession: "/old.jsonl", withSession: 3 }] });
        return answer.result;
      });
      ext.handle("session/with", async (p, msg, e) => {
        await e.request("ui/call", { call: msg.id, method: "setEditorText", args: [`from handle ${p.handle}`] });
        return null;
      });
    },
  });
  const old = fakeCtx();
  const fresh = fakeCtx();
  /** @type {any} */
  let options;
  old.ctx.newSession = async (/** @type {any} */ o) => {
    options = o;
    await o.withSession(fresh.ctx);
    return { cancelled: false };
  };
  fresh.ctx.ui.setEditorText = (/** @type {string} */ text) => fresh.uiCalls.push({ method: "setEditorText", args: [text] });
  await h.startSession(old.ctx);
  await h.fake.commands.get("handoff").handler("", old.ctx);
  assert.equal(options.parentSession, "/old.jsonl");
  assert.deepEqual(fresh.uiCalls, [{ method: "setEditorText", args: ["from handle 3"] }], "the new session's UI");
  assert.deepEqual(h.ext().sent("session/with").map((m) => m.params.handle), [3]);
});

test("a hook on an event with its own signal (session_before_compact) is cancelled when it fires", async () => {
  const h = await startBridge(manifestWith({ hooks: [{ id: "x::compact", event: "session_before_compact" }] }), {
    script: (ext) => ext.handle("hook/call", () => NO_ANSWER),
  });
  const f = fakeCtx();
  await h.startSession(f.ctx);
  const controller = new AbortController();
  const result = h.fake.emit("session_before_compact", { type: "session_before_compact", preparation: {}, signal: controller.signal }, f.ctx);
  await until(() => h.ext().sent("hook/call").length === 1, "the hook call");
  controller.abort();
  assert.deepEqual(await result, [undefined], "nothing for pi: the compaction was cancelled");
  await until(() => h.ext().sent("cancel").length === 1, "the cancel");
  assert.equal(h.ext().sent("cancel")[0].params.id, h.ext().sent("hook/call")[0].id);
});
