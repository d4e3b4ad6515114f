// @ts-check
// The bridge's terminal-UI host: tool rows and messages rendered by the
// extension (answered from caches, asking once, no loop), components (keys,
// frames, sizes, Escape, a dying process), footers and autocomplete.
import assert from "node:assert/strict";
import { test } from "node:test";

import { fakeCtx, manifestWith, NO_ANSWER, settle, startBridge, toolManifest, until } from "./helpers.js";

/** A theme like pi's (every token known). */
const theme = {
  /** @param {string} t */
  fg: (t, /** @type {string} */ s) => `<${t}>${s}</${t}>`,
  /** @param {string} s */
  bold: (s) => `*${s}*`,
  getFgAnsi: () => "\x1b[38;5;1m",
  getBgAnsi: () => "\x1b[48;5;2m",
  getColorMode: () => "truecolor",
};

/** A view of one line of plain text. @param {string} text */
const view = (text) => ({ styles: [], blocks: [{ text: [[text]], wrap: false }] });

/** A pi context whose UI can show components, footers and providers. */
function tuiCtx() {
  const base = fakeCtx();
  const ui = /** @type {any} */ (base.ctx.ui);
  const tui = { terminal: { columns: 80, rows: 24 }, renders: 0, lastRenderAt: 0, requestRender() { this.renders++; } };
  /** @type {any[]} */
  const shown = [];
  ui.theme = theme;
  ui.custom = (/** @type {any} */ factory, /** @type {any} */ options) =>
    new Promise((resolve) => {
      const entry = { options, component: /** @type {any} */ (undefined), closed: false };
      entry.component = factory(tui, theme, {}, (/** @type {unknown} */ v) => {
        entry.closed = true;
        resolve(v);
      });
      shown.push(entry);
    });
  /** @type {any[]} */
  const footers = [];
  ui.setFooter = (/** @type {any} */ f) => footers.push(f && f(tui, theme, { getGitBranch: () => "main", getExtensionStatuses: () => new Map([["a", "b"]]), getAvailableProviderCount: () => 1, onBranchChange: () => () => {} }));
  /** @type {any[]} */
  const providers = [];
  ui.addAutocompleteProvider = (/** @type {any} */ f) => providers.push(f);
  return { ...base, tui, shown, footers, providers };
}

test("a tool row asks the extension once per input and repaints through context.invalidate, without a loop", async () => {
  const h = await startBridge(manifestWith({ tools: [toolManifest("todo", { render: { call: true, result: true } })] }), {
    mode: "interactive",
    script: (ext) => ext.handle("render/tool", (p) => view(`call ${JSON.stringify(p.args)}`)),
  });
  await h.startSession(tuiCtx().ctx);
  const tool = h.fake.tools.get("todo");
  assert.equal(typeof tool.renderCall, "function");
  let invalidated = 0;
  const context = { state: {}, toolCallId: "c1", invalidate: () => invalidated++, argsComplete: false, executionStarted: false, expanded: false };
  // Until the answer: pi's own look (the tool's name).
  const first = tool.renderCall({ a: 1 }, theme, context);
  assert.deepEqual(first.render(40), ["<toolTitle>*todo*</toolTitle>"]);
  await until(() => invalidated === 1, "the answer repaints the row");
  // pi re-runs the renderer: the view is there, nothing is asked again.
  const again = tool.renderCall({ a: 1 }, theme, context);
  assert.equal(again, first, "the same component (pi's lastComponent)");
  assert.deepEqual(again.render(40), ['call {"a":1}']);
  await settle();
  assert.equal(h.ext().sent("render/tool").length, 1);
  assert.equal(invalidated, 1);
});

test("a newer input cancels the row's request in flight; the stale answer is dropped", async () => {
  const h = await startBridge(manifestWith({ tools: [toolManifest("todo", { render: { call: true, result: true } })] }), {
    mode: "interactive",
    script: (ext) => ext.handle("render/tool", (p, msg, e) => (p.args.n === 1 ? NO_ANSWER : view(`n=${p.args.n}`))),
  });
  await h.startSession(tuiCtx().ctx);
  const tool = h.fake.tools.get("todo");
  let invalidated = 0;
  const context = { state: {}, toolCallId: "c1", invalidate: () => invalidated++ };
  tool.renderCall({ n: 1 }, theme, context);
  await until(() => h.ext().sent("render/tool").length === 1, "the first request");
  const c = tool.renderCall({ n: 2 }, theme, context);
  await until(() => invalidated === 1, "the second answer");
  const [stale] = h.ext().sent("render/tool");
  assert.deepEqual(h.ext().sent("cancel").map((m) => m.params), [{ id: stale.id }]);
  h.ext().send({ id: stale.id, result: view("n=1") }); // too late: dropped
  await settle();
  assert.deepEqual(tool.renderCall({ n: 2 }, theme, context).render(20), ["n=2"]);
  assert.equal(c.view.blocks[0].text[0][0], "n=2");
});

test("a finished call's result views come with its answer: no request, collapsed and expanded", async () => {
  const views = { collapsed: view("5 items"), expanded: view("all 7 items") };
  const h = await startBridge(manifestWith({ tools: [toolManifest("todo", { render: { call: true, result: true } })] }), {
    mode: "interactive",
    script: (ext) => ext.handle("tool/call", () => ({ content: [{ type: "text", text: "ok" }], details: {}, isError: false, views })),
  });
  const { ctx } = tuiCtx();
  await h.startSession(ctx);
  const tool = h.fake.tools.get("todo");
  const result = await tool.execute("c9", {}, undefined, undefined, ctx);
  assert.deepEqual(result, { content: [{ type: "text", text: "ok" }], details: {} }, "pi does not see the views");
  const context = { state: {}, toolCallId: "c9", invalidate: () => {}, isError: false };
  assert.deepEqual(tool.renderResult(result, { expanded: false, isPartial: false }, theme, context).render(30), ["5 items"]);
  assert.deepEqual(tool.renderResult(result, { expanded: true, isPartial: false }, theme, context).render(30), ["all 7 items"]);
  assert.equal(h.ext().sent("render/tool").length, 0);
});

test("a message renderer shows pi's look until the extension's view arrives, then repaints", async () => {
  const h = await startBridge(manifestWith({ messageRenderers: ["status-update"] }), {
    mode: "interactive",
    script: (ext) => ext.handle("render/message", () => ({ collapsed: view("[WARN] disk"), expanded: view("[WARN] disk at 12:00") })),
  });
  const t = tuiCtx();
  await h.startSession(t.ctx);
  const render = h.fake.messageRenderers.get("status-update");
  const message = { role: "custom", customType: "status-update", content: "disk", display: true, details: {} };
  const c = render(message, { expanded: false }, theme);
  assert.ok(c.render(30).some((/** @type {string} */ l) => l.includes("[status-update]")), "pi's default look first");
  await until(() => c.render(30)[0] === "[WARN] disk", "the extension's view");
  assert.deepEqual(render(message, { expanded: true }, theme).render(30), ["[WARN] disk at 12:00"]);
  assert.equal(h.ext().sent("render/message").length, 1);
});

test("a component gets its size and keys, shows its frames, and Escape closes it when the process does not answer", async () => {
  const h = await startBridge(manifestWith({}), { mode: "interactive" });
  const t = tuiCtx();
  await h.startSession(t.ctx);
  const ext = h.ext();
  const opened = ext.request("ui/open", { component: 7, wantsKeyRelease: false });
  await until(() => t.shown.length === 1, "pi shows the component");
  assert.deepEqual(ext.sent("ui/resize").map((m) => m.params), [{ component: 7, width: 80, rows: 24 }]);
  const c = t.shown[0].component;
  assert.equal(c.capturesViewportInput, undefined, "PageUp/PageDown left to pi unless asked for");
  assert.deepEqual(c.render(80), [], "nothing until the first frame");
  ext.send({ method: "ui/frame", params: { component: 7, width: 80, ...view("count=0") } });
  await until(() => t.tui.renders === 1, "a repaint");
  assert.deepEqual(c.render(80), ["count=0"]);
  // Another width: the old frame, cut, and the extension is told once.
  ext.send({ method: "ui/frame", params: { component: 7, width: 80, ...view("x".repeat(80)) } });
  await until(() => t.tui.renders === 2, "a repaint");
  assert.deepEqual(c.render(10), ["x".repeat(7) + "\x1b[0m...\x1b[0m"], "cut as pi-tui's truncateToWidth cuts");
  c.render(10);
  assert.deepEqual(ext.sent("ui/resize").map((m) => m.params.width), [80, 10]);
  c.handleInput("+");
  await settle();
  assert.deepEqual(ext.sent("ui/key")[0].params, { component: 7, seq: 1, key: "+", aliases: [], data: "+", text: "+", kind: "press" });
  // Escape, unanswered for a second: closed by the bridge.
  c.handleInput("\x1b");
  await h.clock.advance(999);
  assert.equal(t.shown[0].closed, false);
  await h.clock.advance(1);
  assert.equal(t.shown[0].closed, true);
  const answer = await opened;
  assert.deepEqual(answer.result, { outcome: "closed", reason: "unresponsive" });
});

test("an answered Escape keeps the component; done closes it; a dead process closes the rest and says so", async () => {
  const h = await startBridge(manifestWith({}), { mode: "interactive" });
  const t = tuiCtx();
  await h.startSession(t.ctx);
  const ext = h.ext();
  const a = ext.request("ui/open", { component: 1 });
  const b = ext.request("ui/open", { component: 2, capturesViewportInput: true, overlay: { width: "50%" } });
  await until(() => t.shown.length === 2, "two components");
  assert.equal(t.shown[1].component.capturesViewportInput, true, "PageUp/PageDown to the component");
  const { onHandle, ...options } = t.shown[1].options;
  assert.deepEqual(options, { overlay: true, overlayOptions: { width: "50%" } });
  assert.equal(typeof onHandle, "function", "the overlay's handle comes back through onHandle");
  assert.equal(ext.sent("ui/resize").find((m) => m.params.component === 2)?.params.width, 40, "half of 80 columns");
  t.shown[0].component.handleInput("\x1b");
  await settle();
  ext.send({ method: "ui/ack", params: { component: 1, seq: 1 } });
  await h.clock.advance(2000);
  assert.equal(t.shown[0].closed, false, "the extension heard it");
  ext.send({ method: "ui/close", params: { component: 1, reason: "done" } });
  assert.deepEqual((await a).result, { outcome: "done" });
  ext.exit(null, "SIGKILL");
  void b; // never answered: the process is gone
  await until(() => t.shown[1].closed, "the overlay closed");
  assert.ok(t.notes.some((n) => n.type === "error" && n.message.includes("process ended")), JSON.stringify(t.notes));
});

test("a footer gets pi's footer data, shows the extension's views, and is restored", async () => {
  const h = await startBridge(manifestWith({}), { mode: "interactive" });
  const t = tuiCtx();
  await h.startSession(t.ctx);
  const ext = h.ext();
  const set = await ext.request("ui/set", { target: "footer", component: 3, view: view("mine") });
  assert.equal(set.result, null);
  const footer = t.footers[0];
  assert.deepEqual(footer.render(20), ["mine"]);
  assert.deepEqual(ext.sent("footer/data")[0].params, { component: 3, gitBranch: "main", statuses: { a: "b" }, providerCount: 1 });
  ext.send({ method: "ui/view", params: { component: 3, ...view("updated") } });
  await until(() => footer.render(20)[0] === "updated", "the new view");
  await ext.request("ui/set", { target: "footer", component: 3, restore: true });
  assert.equal(t.footers.at(-1), undefined, "pi's footer back");
});

test("autocomplete: the extension answers matching text; the rest, and aborted queries, are pi's", async () => {
  const h = await startBridge(manifestWith({}), {
    mode: "interactive",
    script: (ext) =>
      ext.handle("autocomplete/suggest", (p) => (p.match[1] === "2" ? NO_ANSWER : { prefix: `#${p.match[1]}`, items: [{ value: "#29", label: "#29" }] })),
  });
  const t = tuiCtx();
  await h.startSession(t.ctx);
  const ext = h.ext();
  const added = await ext.request("ui/autocomplete", { provider: 5, trigger: "(?:^|[ \\t])#([^\\s#]*)$" });
  assert.equal(added.error, undefined);
  const base = { getSuggestions: async () => ({ prefix: "/", items: [{ value: "/base", label: "/base" }] }), applyCompletion: () => "applied" };
  const p = t.providers[0](base);
  const ours = await p.getSuggestions(["see #29"], 0, 7, { signal: new AbortController().signal });
  assert.deepEqual(ours, { prefix: "#29", items: [{ value: "#29", label: "#29" }] });
  assert.deepEqual(await p.getSuggestions(["/x"], 0, 2, { signal: new AbortController().signal }), await base.getSuggestions());
  const abort = new AbortController();
  const held = p.getSuggestions(["#2"], 0, 2, { signal: abort.signal });
  await until(() => ext.sent("autocomplete/suggest").length === 2, "the held query");
  abort.abort();
  assert.equal(await held, null, "an aborted query shows nothing");
  const id = ext.sent("autocomplete/suggest")[1].id;
  assert.ok(ext.sent("cancel").some((m) => m.params.id === id), "and is cancelled in the extension");
  const bad = await ext.request("ui/autocomplete", { provider: 6, trigger: "(" });
  assert.match(bad.error.message, /not a JavaScript regular expression/);
});
