// @ts-check
import assert from "node:assert/strict";
import { test } from "node:test";

import { Dialogs, DialogQueue, NO_QUEUE, present, sharedDialogQueue } from "../lib/dialogs.js";
import { Log } from "../lib/log.js";
import { FakeClock, fakeCtx, settle, tempDir, until } from "./helpers.js";

const log = new Log(`${tempDir()}/dialogs.log`, { maxBytes: 1 << 20 });

/**
 * pi's own dialog components, loaded from their files (pi's package index
 * loads all of pi: seconds a test run need not pay).
 * @returns {Promise<any>}
 */
async function piComponents() {
  // pi's package index is `dist/index.js` (resolved through pi-aliases.js on pi 1.x).
  const base = new URL("./", import.meta.resolve("@mariozechner/pi-coding-agent"));
  const load = (/** @type {string} */ file) => import(new URL(file, base).href);
  const [selector, input, editor, loader, theme, keybindings] = await Promise.all([
    load("modes/interactive/components/extension-selector.js"),
    load("modes/interactive/components/extension-input.js"),
    load("modes/interactive/components/extension-editor.js"),
    load("modes/interactive/components/bordered-loader.js"),
    load("modes/interactive/theme/theme.js"),
    load("core/keybindings.js"),
  ]);
  theme.initTheme("dark");
  return { ...selector, ...input, ...editor, ...loader, theme: theme.theme, KeybindingsManager: keybindings.KeybindingsManager };
}

/** @param {{ interactive?: boolean, queue?: import("../lib/dialogs.js").Queue, loadPi?: () => Promise<any> }} [o] */
function options(o = {}) {
  const clock = new FakeClock();
  /** @type {Array<[number | null, number]>} */
  const counts = [];
  return {
    clock,
    counts,
    o: {
      queue: o.queue ?? new DialogQueue(),
      clock,
      interactive: o.interactive ?? false,
      loadPi: o.loadPi ?? piComponents,
      log,
      onCount: (/** @type {any} */ _child, /** @type {number | null} */ call, /** @type {1 | -1} */ delta) => counts.push([call, delta]),
    },
  };
}

test("an answered dialog is a value; a dismissed one is cancelled", async () => {
  const { o } = options();
  const { ctx, dialogs } = fakeCtx();
  const dismissed = new AbortController().signal;
  const answer = present(ctx.ui, { method: "select", title: "Pick", options: ["a", "b"] }, dismissed, o);
  await settle();
  assert.deepEqual(dialogs[0].args.slice(0, 2), ["Pick", ["a", "b"]]);
  dialogs[0].answer("b");
  assert.deepEqual(await answer, { outcome: "value", value: "b" });

  const cancelled = present(ctx.ui, { method: "input", title: "Name" }, dismissed, o);
  await settle();
  dialogs[1].answer(undefined);
  assert.deepEqual(await cancelled, { outcome: "cancelled" });
});

test("the timeout is the bridge's own: pi gets it for its countdown, and the bridge's timer closes the dialog", async () => {
  const { o, clock } = options();
  const { ctx, dialogs } = fakeCtx();
  const answer = present(ctx.ui, { method: "select", title: "Quick", options: ["x"], timeout: 1000 }, new AbortController().signal, o);
  await settle();
  assert.equal(dialogs[0].opts?.timeout, 1000);
  await clock.advance(999);
  assert.equal(dialogs[0].open, true);
  await clock.advance(1);
  assert.equal(dialogs[0].open, false, "the bridge closed it");
  assert.deepEqual(await answer, { outcome: "timeout" });
});

test("a dialog dismissed 10 ms before its timeout is cancelled, not timed out (defect 11)", async () => {
  const { o, clock } = options();
  const { ctx, dialogs } = fakeCtx();
  for (const method of ["select", "input"]) {
    const answer = present(ctx.ui, { method, title: "Last moment", options: ["x"], timeout: 1000 }, new AbortController().signal, o);
    await settle();
    await clock.advance(990);
    dialogs[dialogs.length - 1].answer(undefined); // Escape
    assert.deepEqual(await answer, { outcome: "cancelled" }, method);
  }
});

test("a confirm: yes, no (and Escape, which pi reports the same way), timeout, dismissed by the bridge", async () => {
  const { o, clock } = options();
  const { ctx, dialogs } = fakeCtx();
  const p = { method: "confirm", title: "Sure?", message: "really", timeout: 500 };
  const yes = present(ctx.ui, p, new AbortController().signal, o);
  await settle();
  dialogs[0].answer(true);
  assert.deepEqual(await yes, { outcome: "value", value: true });
  const no = present(ctx.ui, p, new AbortController().signal, o);
  await settle();
  dialogs[1].answer(false);
  assert.deepEqual(await no, { outcome: "value", value: false });
  const late = present(ctx.ui, p, new AbortController().signal, o);
  await clock.advance(500);
  assert.deepEqual(await late, { outcome: "timeout" });
  const gone = new AbortController();
  const dismissed = present(ctx.ui, p, gone.signal, o);
  await settle();
  gone.abort();
  assert.deepEqual(await dismissed, { outcome: "cancelled" });
});

test("dialogs are shown one at a time, in order; each one's timeout counts from when it is shown (defect 4)", async () => {
  const { o, clock, counts } = options();
  const dialogsOf = new Dialogs(o);
  const { ctx, dialogs } = fakeCtx();
  const child = /** @type {any} */ ({});
  const first = dialogsOf.show({ child, id: 1, call: 10, params: { method: "select", title: "First", options: ["a"] }, ui: ctx.ui });
  const second = dialogsOf.show({ child, id: 2, call: 11, params: { method: "select", title: "Second", options: ["b"], timeout: 1000 }, ui: ctx.ui });
  await settle();
  assert.deepEqual(dialogs.map((d) => d.args[0]), ["First"], "only the first is shown");
  await clock.advance(5000); // longer than the second's timeout: it is not shown yet
  dialogs[0].answer("a");
  assert.deepEqual(await first, { outcome: "value", value: "a" });
  await settle();
  assert.deepEqual(dialogs.map((d) => d.args[0]), ["First", "Second"]);
  await clock.advance(999);
  assert.equal(dialogs[1].open, true);
  dialogs[1].answer("b");
  assert.deepEqual(await second, { outcome: "value", value: "b" });
  assert.deepEqual(counts, [[10, 1], [11, 1], [10, -1], [11, -1]]);
});

test("a queued dialog that is cancelled leaves the queue unseen and answers cancelled", async () => {
  const { o } = options();
  const dialogsOf = new Dialogs(o);
  const { ctx, dialogs } = fakeCtx();
  const child = /** @type {any} */ ({});
  const first = dialogsOf.show({ child, id: 1, call: 10, params: { method: "confirm", title: "First" }, ui: ctx.ui });
  const second = dialogsOf.show({ child, id: 2, call: 11, params: { method: "confirm", title: "Second" }, ui: ctx.ui });
  const third = dialogsOf.show({ child, id: 3, call: 12, params: { method: "confirm", title: "Third" }, ui: ctx.ui });
  await settle();
  assert.equal(dialogsOf.cancel(child, 2), true);
  assert.deepEqual(await second, { outcome: "cancelled" });
  dialogsOf.dismiss(child, 10); // the first's call was aborted: the shown dialog closes
  assert.deepEqual(await first, { outcome: "cancelled" });
  await settle();
  assert.deepEqual(dialogs.map((d) => d.args[0]), ["First", "Third"], "the cancelled one was never shown");
  dialogs[1].answer(true);
  assert.deepEqual(await third, { outcome: "value", value: true });
  assert.equal(dialogsOf.cancel(child, 2), false, "it is gone");
});

test("every dialog of a process is dismissed, shown or queued, and no other's (defect 5)", async () => {
  const { o } = options();
  const dialogsOf = new Dialogs(o);
  const { ctx, dialogs } = fakeCtx();
  const old = /** @type {any} */ ({ name: "old" });
  const other = /** @type {any} */ ({ name: "other" });
  const shown = dialogsOf.show({ child: old, id: 1, call: null, params: { method: "input", title: "A" }, ui: ctx.ui });
  const queued = dialogsOf.show({ child: old, id: 2, call: null, params: { method: "input", title: "B" }, ui: ctx.ui });
  const kept = dialogsOf.show({ child: other, id: 1, call: null, params: { method: "input", title: "C" }, ui: ctx.ui });
  await settle();
  dialogsOf.dismiss(old);
  assert.deepEqual(await shown, { outcome: "cancelled" });
  assert.deepEqual(await queued, { outcome: "cancelled" });
  await settle();
  assert.deepEqual(dialogs.map((d) => [d.args[0], d.open]), [["A", false], ["C", true]]);
  dialogs[1].answer("c");
  assert.deepEqual(await kept, { outcome: "value", value: "c" });
});

test("without a queue (RPC mode) dialogs are shown at once", async () => {
  const { o } = options({ queue: NO_QUEUE });
  const dialogsOf = new Dialogs(o);
  const { ctx, dialogs } = fakeCtx();
  const child = /** @type {any} */ ({});
  dialogsOf.show({ child, id: 1, call: null, params: { method: "confirm", title: "A" }, ui: ctx.ui });
  dialogsOf.show({ child, id: 2, call: null, params: { method: "confirm", title: "B" }, ui: ctx.ui });
  await settle();
  assert.equal(dialogs.length, 2);
  dialogsOf.dismiss(child);
});

test("the queue is one per pi process, shared by every bridge in it", () => {
  assert.equal(sharedDialogQueue(), sharedDialogQueue());
});

/**
 * A fake `ctx.ui.custom` that builds the component as pi's terminal does.
 * @param {any} ui
 * @param {unknown} [keybindings]
 * @param {unknown} [theme]
 */
function withCustom(ui, keybindings, theme = {}) {
  /** @type {any[]} */
  const shown = [];
  ui.custom = (/** @type {any} */ factory) =>
    new Promise((resolve) => {
      const tui = { requestRender() {}, terminal: { rows: 24, columns: 80 } };
      let closed = false;
      const component = factory(tui, theme, keybindings, (/** @type {unknown} */ value) => {
        if (closed) return;
        closed = true;
        component.dispose?.();
        resolve(value);
      });
      shown.push(component);
    });
  return shown;
}

/** @param {any} component */
function screen(component) {
  // eslint-disable-next-line no-control-regex
  return component.render(60).join("\n").replace(/\x1b\[[0-9;]*m/g, "");
}

test("interactive: a select starts on `initial`, in pi's own selector (contract item 5)", async () => {
  const { o } = options({ interactive: true });
  const { ctx } = fakeCtx();
  const shown = withCustom(ctx.ui);
  const answer = present(ctx.ui, { method: "select", title: "Style", options: ["plain", "excited", "quiet"], initial: 2, timeout: 9000 }, new AbortController().signal, o);
  await until(() => shown.length === 1, "the component");
  const text = screen(shown[0]);
  assert.match(text, /→ quiet/);
  assert.match(text, /Style \(9s\)/, "pi's countdown is shown");
  shown[0].handleInput("\r");
  assert.deepEqual(await answer, { outcome: "value", value: "quiet" });
});

test("interactive: an input starts with `prefill`, and dismissing it closes pi's component", async () => {
  const { o } = options({ interactive: true });
  const { ctx } = fakeCtx();
  const shown = withCustom(ctx.ui);
  const answer = present(ctx.ui, { method: "input", title: "Greeting", prefill: "Hello\nthere" }, new AbortController().signal, o);
  await until(() => shown.length === 1, "the component");
  assert.match(screen(shown[0]), /> Hellothere/);
  shown[0].handleInput("!");
  shown[0].handleInput("\r");
  assert.deepEqual(await answer, { outcome: "value", value: "Hellothere!" });

  const gone = new AbortController();
  const dismissed = present(ctx.ui, { method: "input", title: "Greeting", prefill: "x" }, gone.signal, o);
  await until(() => shown.length === 2, "the component");
  gone.abort();
  assert.deepEqual(await dismissed, { outcome: "cancelled" });
});

test("interactive: the editor is pi's own editor component, which the bridge can dismiss", async () => {
  const { o } = options({ interactive: true });
  const { ctx, dialogs } = fakeCtx();
  const pi = await piComponents();
  const shown = withCustom(ctx.ui, new pi.KeybindingsManager());
  const gone = new AbortController();
  const answer = present(ctx.ui, { method: "editor", title: "Notes", prefill: "draft" }, gone.signal, o);
  await until(() => shown.length === 1, "the component");
  assert.match(screen(shown[0]), /draft/);
  gone.abort();
  assert.deepEqual(await answer, { outcome: "cancelled" });
  assert.equal(dialogs.length, 0, "ctx.ui.editor (which cannot be dismissed) was not used");
});

test("interactive: a loader is pi's BorderedLoader; Escape answers cancel, the bridge's dismissal closes it", async () => {
  const { o } = options({ interactive: true });
  const { ctx, dialogs } = fakeCtx();
  const pi = await piComponents();
  const shown = withCustom(ctx.ui, new pi.KeybindingsManager(), pi.theme);
  const answer = present(ctx.ui, { method: "loader", title: "Extracting questions..." }, new AbortController().signal, o);
  await until(() => shown.length === 1, "the component");
  assert.ok(shown[0] instanceof pi.BorderedLoader);
  const text = screen(shown[0]);
  assert.match(text, /Extracting questions\.\.\./);
  assert.match(text, /esc.*cancel/);
  shown[0].handleInput("\x1b");
  assert.deepEqual(await answer, { outcome: "value", value: "cancel" });

  const gone = new AbortController();
  const dismissed = present(ctx.ui, { method: "loader", title: "Working" }, gone.signal, o);
  await until(() => shown.length === 2, "the component");
  gone.abort();
  assert.deepEqual(await dismissed, { outcome: "cancelled" });
  assert.equal(dialogs.length, 0, "no plain dialog in the terminal");
});

test("outside the terminal a loader is a select with the one option Cancel", async () => {
  const { o } = options({ interactive: false });
  const { ctx, dialogs } = fakeCtx();
  const answer = present(ctx.ui, { method: "loader", title: "Working" }, new AbortController().signal, o);
  await settle();
  assert.equal(dialogs[0].method, "select");
  assert.deepEqual(dialogs[0].args.slice(0, 2), ["Working", ["Cancel"]]);
  dialogs[0].answer("Cancel");
  assert.deepEqual(await answer, { outcome: "value", value: "Cancel" });
});

test("outside the terminal, `initial` and `prefill` are ignored and pi's plain dialogs are used", async () => {
  const { o } = options({ interactive: false });
  const { ctx, dialogs } = fakeCtx();
  const answer = present(ctx.ui, { method: "select", title: "S", options: ["a", "b"], initial: 1 }, new AbortController().signal, o);
  await settle();
  assert.equal(dialogs[0].method, "select");
  dialogs[0].answer("a");
  assert.deepEqual(await answer, { outcome: "value", value: "a" });
});
