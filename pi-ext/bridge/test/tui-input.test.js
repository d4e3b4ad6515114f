// @ts-check
// The extension's key subscriptions (`ui/input-subscribe`, pi's
// `onTerminalInput`): the filter is applied at once, matched keys are
// reported as parsed keys (no escape sequence), consumed ones never reach
// pi's editor, and every subscription is bounded and ends with its process,
// its session or the extension's unsubscribe.
import assert from "node:assert/strict";
import { test } from "node:test";

import { inputFilter, inputKey, MAX_KEY_IDS, MAX_PASTE, MAX_SUBSCRIPTIONS, filterKeyId, TerminalInputs } from "../lib/tui-input.js";
import { fakeCtx, manifestWith, settle, startBridge, until } from "./helpers.js";

test("key ids are spelled one way, as Key::is compares them, and a bad one is refused", () => {
  assert.equal(filterKeyId("Shift+Ctrl+P"), "ctrl+shift+p");
  assert.equal(filterKeyId("esc"), "escape");
  assert.equal(filterKeyId("ctrl+Return"), "ctrl+enter");
  assert.equal(filterKeyId("pageUp"), "pageup");
  assert.equal(filterKeyId("Q"), "Q", "a lone character as is");
  assert.equal(filterKeyId("ctrl++"), "ctrl++");
  assert.equal(filterKeyId("+"), "+");
  for (const bad of ["", "hyper+x", "ctrl+", "a\x1b", "x".repeat(41), 3, null]) assert.equal(filterKeyId(bad), undefined, JSON.stringify(bad));
  const f = inputFilter({ consume: ["F2"], observe: ["ctrl+L"] });
  assert.deepEqual([...f.consume, ...f.observe, f.all], ["f2", "ctrl+l", false]);
  assert.throws(() => inputFilter({ consume: ["ctrl+\x1b[A"] }), /not a key id/);
  assert.throws(() => inputFilter({ consume: "f2" }), /list of key ids/);
  assert.throws(() => inputFilter({}), /names no key/);
  assert.throws(() => inputFilter({ observe: Array.from({ length: MAX_KEY_IDS + 1 }, (_, i) => `f${i}`) }), /at most 64/);
  assert.equal(inputFilter({ all: true }).all, true);
});

test("what the extension gets of an input: names and text, a paste cut, never a key's escape sequence", () => {
  assert.deepEqual(inputKey("\x1bOQ"), { key: "f2", aliases: [], text: undefined, kind: "press", data: "" });
  assert.deepEqual(inputKey("é"), { key: undefined, aliases: [], text: "é", kind: "press", data: "é" });
  assert.equal(inputKey("\x1b]11;rgb:0/0/0\x07"), undefined, "a terminal's reply is no key");
  const long = "a".repeat(MAX_PASTE + 10);
  const paste = inputKey(`\x1b[200~${long}\x1b[201~`);
  assert.equal(paste?.data, `\x1b[200~${"a".repeat(MAX_PASTE)}\x1b[201~`);
  assert.equal(paste?.key, undefined);
  // A cut never leaves half a surrogate pair.
  const emoji = inputKey(`\x1b[200~${"a".repeat(MAX_PASTE - 1)}😀\x1b[201~`);
  assert.equal(emoji?.data, `\x1b[200~${"a".repeat(MAX_PASTE - 1)}\x1b[201~`);
});

/** A fake pi input: listeners in order, the first to consume ends an input (as pi-tui). */
function fakeTerminal() {
  /** @type {Set<(data: string) => any>} */
  const listeners = new Set();
  /** @type {string[]} */
  const editor = [];
  return {
    listeners,
    editor,
    listen: (/** @type {(data: string) => any} */ h) => {
      listeners.add(h);
      return () => void listeners.delete(h);
    },
    /** @param {string} data */
    input(data) {
      for (const l of listeners) if (l(data)?.consume) return;
      editor.push(data);
    },
  };
}

test("a filter consumes its keys, reports them and the observed ones, and passes the rest on", () => {
  const term = fakeTerminal();
  /** @type {TerminalInputs<string>} */
  const inputs = new TerminalInputs();
  /** @type {any[]} */
  const sent = [];
  /** @type {string[]} */
  const ended = [];
  const io = { listen: term.listen, send: (/** @type {any} */ k) => void sent.push(k), end: (/** @type {string} */ r) => void ended.push(r) };
  inputs.add("p1", 1, inputFilter({ consume: ["f2", "Q"], observe: ["ctrl+l"] }), io);
  term.input("\x1bOQ"); // f2
  term.input("\x0c"); // ctrl+l
  term.input("x");
  term.input("Q");
  term.input("q");
  term.input("\x1b[1;1:3Q"); // kitty: f2 released
  assert.deepEqual(term.editor, ["\x0c", "x", "q", "\x1b[1;1:3Q"], "consumed keys never reach the editor; a release passes on");
  assert.deepEqual(
    sent.map((k) => [k.key, k.consumed]),
    [
      ["f2", true],
      ["ctrl+l", false],
      ["Q", true],
    ],
  );
  assert.ok(sent.every((k) => !k.data.includes("\x1b")), "no escape sequence is reported");
  // Observe all: every key, nothing consumed; a second subscription sees what the first passed on.
  inputs.add("p1", 2, inputFilter({ all: true }), { ...io, send: (/** @type {any} */ k) => void sent.push({ all: k.key }) });
  sent.length = 0;
  term.input("\x1bOQ");
  term.input("y");
  assert.deepEqual(sent, [{ key: "f2", aliases: [], text: undefined, kind: "press", data: "", consumed: true }, { all: "y" }]);
  assert.throws(() => inputs.add("p1", 2, inputFilter({ all: true }), io), /exists/);
  // Unsubscribing stops it: f2 reaches the editor again.
  inputs.remove("p1", 1);
  term.input("\x1bOQ");
  assert.equal(term.editor.at(-1), "\x1bOQ");
  assert.equal(term.listeners.size, 1);
  // A process holds a bounded number.
  for (let i = 10; inputs.size < MAX_SUBSCRIPTIONS; i++) inputs.add("p1", i, inputFilter({ all: true }), io);
  assert.throws(() => inputs.add("p1", 99, inputFilter({ all: true }), io), /at most 16/);
  inputs.add("p2", 1, inputFilter({ consume: ["f3"] }), io);
  // Its process gone: its listeners go, nothing told; the session's end tells the rest.
  inputs.retire("p1");
  assert.equal(term.listeners.size, 1);
  assert.deepEqual(ended, []);
  inputs.sessionEnded();
  assert.equal(term.listeners.size, 0);
  assert.deepEqual(ended, ["session"]);
  // A failing send (the process is gone) never throws into pi.
  inputs.add("p3", 1, inputFilter({ consume: ["f2"] }), { ...io, send: () => { throw new Error("gone"); } });
  term.input("\x1bOQ");
  assert.equal(term.editor.at(-1), "\x1bOQ", "the f2 before");
  assert.equal(term.editor.length, 6, "this f2 was consumed");
});

test("through the bridge: ui/input-subscribe listens on pi's input, ui/input reports, ui/input-unsubscribe and the session's end stop it", async () => {
  const h = await startBridge(manifestWith({}), { mode: "interactive" });
  const base = fakeCtx();
  const term = fakeTerminal();
  /** @type {any} */ (base.ctx.ui).onTerminalInput = term.listen;
  await h.startSession(base.ctx);
  const ext = h.ext();
  const bad = await ext.request("ui/input-subscribe", { call: null, subscription: 1, consume: ["\x1b[A"] });
  assert.equal(bad.error?.code, -32602);
  const ok = await ext.request("ui/input-subscribe", { call: null, subscription: 1, consume: ["f2"], observe: ["ctrl+l"] });
  assert.equal(ok.error, undefined);
  term.input("\x1bOQ");
  term.input("\x0c");
  await until(() => ext.sent("ui/input").length === 2, "two keys reported");
  assert.deepEqual(
    ext.sent("ui/input").map((m) => [m.params.subscription, m.params.key, m.params.consumed]),
    [
      [1, "f2", true],
      [1, "ctrl+l", false],
    ],
  );
  assert.deepEqual(term.editor, ["\x0c"]);
  ext.send({ method: "ui/input-unsubscribe", params: { subscription: 1 } });
  await until(() => term.listeners.size === 0, "pi's listener removed");
  await ext.request("ui/input-subscribe", { call: null, subscription: 2, consume: ["f2"] });
  assert.equal(term.listeners.size, 1);
  await h.fake.emit("session_shutdown", { type: "session_shutdown" }, base.ctx);
  await until(() => ext.sent("ui/input-end").length === 1, "the subscription ended");
  assert.deepEqual(ext.sent("ui/input-end")[0].params, { subscription: 2, reason: "session" });
  assert.equal(term.listeners.size, 0);
  await settle();
});

test("outside pi's terminal a subscription is refused", async () => {
  const h = await startBridge(manifestWith({}), { mode: "rpc" });
  await h.startSession();
  const answer = await h.ext().request("ui/input-subscribe", { call: null, subscription: 1, consume: ["f2"] });
  assert.equal(answer.error?.code, -32003);
});
