// @ts-check
// pi's event bus for the extension (defect 8).
import assert from "node:assert/strict";
import { test } from "node:test";

import { manifestWith, settle, startBridge } from "./helpers.js";

test("one pi listener per channel however often the extension subscribes; each message is sent once", async () => {
  const h = await startBridge(manifestWith({}));
  await h.startSession();
  for (let i = 0; i < 3; i++) {
    const answer = await h.ext().request("api/call", { call: null, method: "subscribe", args: ["news"] });
    assert.equal(answer.error, undefined);
  }
  assert.equal(h.fake.bus.get("news")?.size, 1);
  h.pi.events.emit("news", { n: 1 });
  await settle();
  assert.deepEqual(h.ext().sent("bus/event").map((m) => m.params), [{ channel: "news", data: { n: 1 } }]);
});

test("unsubscribe removes the listener; subscribing again adds one", async () => {
  const h = await startBridge(manifestWith({}));
  await h.startSession();
  await h.ext().request("api/call", { call: null, method: "subscribe", args: ["news"] });
  await h.ext().request("api/call", { call: null, method: "unsubscribe", args: ["news"] });
  assert.equal(h.fake.bus.get("news")?.size, 0);
  h.pi.events.emit("news", "lost");
  await h.ext().request("api/call", { call: null, method: "unsubscribe", args: ["never-subscribed"] });
  await h.ext().request("api/call", { call: null, method: "subscribe", args: ["news"] });
  h.pi.events.emit("news", "kept");
  await settle();
  assert.deepEqual(h.ext().sent("bus/event").map((m) => m.params.data), ["kept"]);
});

test("a process's listeners go when it exits; its successor starts with none", async () => {
  const h = await startBridge(manifestWith({}));
  await h.startSession();
  await h.ext().request("api/call", { call: null, method: "subscribe", args: ["a"] });
  await h.ext().request("api/call", { call: null, method: "subscribe", args: ["b"] });
  h.ext().exit(1);
  await settle();
  assert.equal(h.fake.bus.get("a")?.size, 0);
  assert.equal(h.fake.bus.get("b")?.size, 0);
});

test("the extension can subscribe while it loads, before its handshake is answered", async () => {
  const h = await startBridge(manifestWith({}), {
    script: (ext) =>
      ext.handle("initialize", async (_p, _msg, e) => {
        await e.request("api/call", { call: null, method: "subscribe", args: ["early"] });
        return { protocol: 2, sdk: "0.1.0", manifest: e.manifest };
      }),
  });
  assert.equal(h.fake.bus.get("early")?.size, 1);
  h.pi.events.emit("early", 42);
  await settle();
  assert.deepEqual(h.ext().sent("bus/event").map((m) => m.params.data), [42]);
});

test("a bus message that cannot be sent is logged and dropped, and the next one arrives", async () => {
  const h = await startBridge(manifestWith({}));
  await h.startSession();
  await h.ext().request("api/call", { call: null, method: "subscribe", args: ["c"] });
  h.pi.events.emit("c", { big: 1n });
  h.pi.events.emit("c", { ok: 1 });
  await settle();
  assert.deepEqual(h.ext().sent("bus/event").map((m) => m.params.data), [{ ok: 1 }]);
});
