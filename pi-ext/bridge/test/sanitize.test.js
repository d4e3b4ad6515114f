// @ts-check
// Text from the extension on every path to pi's terminal (issue 20, item 4):
// no control character of the extension's (ESC, BEL, C1) reaches pi's ui
// calls, whatever the path; what the text says is kept. The manifest's texts
// pi shows, too. And item 17: the statuses a process set go when it dies.
import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { test } from "node:test";

import { present } from "../lib/dialogs.js";
import { Log } from "../lib/log.js";
import { cachedManifest } from "../lib/manifest.js";
import { sanitizeManifest } from "../lib/manifest-text.js";
import { callbacks } from "../lib/provider.js";
import { sanitize } from "../lib/sanitize.js";
import { linkUrl, renderView, styleAnsi } from "../lib/tui-render.js";
import { FakeClock, fakeCtx, manifestWith, settle, startBridge, tempDir, toolManifest, until } from "./helpers.js";

/** OSC 52 (a clipboard write), OSC 8 (a link), CSI 2J (clear screen), C1 CSI (0x9b). */
const HOSTILE = "a\x1b]52;c;aGk=\x07b\x1b]8;;http://evil.example/\x1b\\link\x1b]8;;\x1b\\c\x1b[2Jd\u009b31me";
/** What is left of it: the text, without a control character. */
const HOSTILE_SHOWN = "a]52;c;aGk=b]8;;http://evil.example/\\link]8;;\\c[2Jd31me";
/** A title that closes pi's own OSC 0 with BEL, then writes to the clipboard. */
const TITLE = "t\x07\x1b]52;c;aGk=\x07";

/** What must not reach pi: C0 but tab and newline, DEL, C1. */
const UNSAFE = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/;

/**
 * Every string in `v`.
 * @param {unknown} v
 * @returns {string[]}
 */
function strings(v) {
  if (typeof v === "string") return [v];
  if (Array.isArray(v)) return v.flatMap(strings);
  if (v && typeof v === "object") return Object.values(v).flatMap(strings);
  return [];
}

/**
 * No string in `v` has a control character but in the bridge's own colour
 * codes (`CSI … m`: HOSTILE has none, so any left would be the extension's).
 * @param {unknown} v
 * @param {string} what
 */
function assertClean(v, what) {
  const all = strings(v);
  assert.ok(all.length > 0, `${what}: nothing reached pi`);
  for (const s of all) assert.ok(!UNSAFE.test(s.replace(/\x1b\[[0-9;]*m/g, "")), `${what}: ${JSON.stringify(s)}`);
}

/** A view of one line of `text`, unstyled (so pi's lines have no escape sequence of the bridge's either). */
const view = (/** @type {string} */ text) => ({ styles: [], blocks: [{ text: [[text]], wrap: false }] });

/** A theme with no colours: rendered lines are text only. */
const theme = {
  fg: (/** @type {string} */ _t, /** @type {string} */ s) => s,
  bold: (/** @type {string} */ s) => s,
  getFgAnsi: () => "",
  getBgAnsi: () => "",
  getColorMode: () => "truecolor",
};

/** A pi context whose UI records every call, shows components and takes footers, headers, widgets, editors. */
function recordingCtx() {
  const base = fakeCtx();
  const ui = /** @type {any} */ (base.ctx.ui);
  /** @type {Array<{ method: string, args: any[] }>} */
  const calls = [];
  const tui = { terminal: { columns: 80, rows: 24 }, requestRender() {} };
  for (const m of ["notify", "setStatus", "setTitle", "setEditorText", "pasteToEditor", "setWorkingMessage", "setWorkingIndicator", "setHiddenThinkingLabel"]) {
    ui[m] = (/** @type {any[]} */ ...args) => calls.push({ method: m, args });
  }
  /** @type {Record<string, any>} what pi got from each factory, by target */
  const set = {};
  ui.setWidget = (/** @type {string} */ key, /** @type {any} */ content, /** @type {any} */ options) => {
    calls.push({ method: "setWidget", args: [key, content, options] });
    if (typeof content === "function") set[`widget:${key}`] = content(tui, theme);
  };
  ui.setFooter = (/** @type {any} */ f) => (set.footer = f?.(tui, theme, { getExtensionStatuses: () => new Map() }));
  ui.setHeader = (/** @type {any} */ f) => (set.header = f?.(tui, theme));
  ui.setEditorComponent = (/** @type {any} */ f) => (set.editor = f?.(tui, theme, {}));
  ui.theme = theme;
  /** @type {any[]} */
  const shown = [];
  ui.custom = (/** @type {any} */ factory) =>
    new Promise((resolve) => {
      shown.push(factory(tui, theme, {}, resolve));
    });
  /** @type {any[]} */
  const providers = [];
  ui.addAutocompleteProvider = (/** @type {any} */ f) => providers.push(f);
  return { ...base, calls, set, shown, providers };
}

/** pi's CustomEditor, as far as the bridge's editor uses it: what it was typed, a bordered box. */
class FakeCustomEditor {
  constructor() {
    /** @type {string[]} */
    this.typed = [];
  }
  /** @param {string} data */
  handleInput(data) {
    this.typed.push(data);
  }
  /** @param {number} width */
  render(width) {
    return ["─".repeat(width), "", "─".repeat(width)];
  }
}

test("sanitize drops every control character and keeps the whitespace the path allows", () => {
  assert.equal(sanitize(HOSTILE), HOSTILE_SHOWN);
  assert.equal(sanitize(TITLE), "t]52;c;aGk=");
  assert.equal(sanitize("a\r\nb\rc\td\n"), "abc   d", "one line");
  assert.equal(sanitize("a\r\nb\rc\td\n", "lines"), "a\nb\nc   d\n", "lines");
  assert.equal(sanitize("a\r\nb\rc\td\n", "text"), "a\nb\nc\td\n", "text pi lays out");
  assert.equal(sanitize("plain ✓ 中文"), "plain ✓ 中文");
  assert.equal(sanitize(undefined), "");
  assert.equal(sanitize(["\x1b]0;x\x07"]), "]0;x", "not a string: its text, sanitized");
});

test("every ui/call reaches pi without a control character of the extension's, its text kept", async () => {
  const h = await startBridge(manifestWith({}));
  const t = recordingCtx();
  await h.startSession(t.ctx);
  const ext = h.ext();
  /** @param {string} method @param {unknown[]} args */
  const call = async (method, args) => {
    const answer = await ext.request("ui/call", { call: null, method, args });
    assert.equal(answer.error, undefined, `${method}: ${JSON.stringify(answer.error)}`);
    return t.calls.at(-1);
  };
  assert.deepEqual((await call("notify", [`${HOSTILE}\nline two`, "info"]))?.args, [`${HOSTILE_SHOWN}\nline two`, "info"]);
  assert.deepEqual((await call("setStatus", ["hostile", HOSTILE]))?.args, ["hostile", HOSTILE_SHOWN]);
  assert.deepEqual((await call("setWidget", ["w", [HOSTILE, "two\nlines"]]))?.args, ["w", [HOSTILE_SHOWN, "two\nlines"], undefined]);
  assert.deepEqual((await call("setTitle", [TITLE]))?.args, ["t]52;c;aGk="]);
  assert.deepEqual((await call("setTitle", [[TITLE]]))?.args, ["t]52;c;aGk="], "an array is its text");
  assert.deepEqual((await call("setEditorText", [`${HOSTILE}\n\tindented`]))?.args, [`${HOSTILE_SHOWN}\n\tindented`]);
  // In a paste, an ESC would end it early and type the rest as keys (Enter: submit).
  assert.deepEqual((await call("pasteToEditor", ["x\x1b[201~\r"]))?.args, ["x[201~\n"]);
  assert.deepEqual((await call("setWorkingMessage", [HOSTILE]))?.args, [HOSTILE_SHOWN]);
  assert.deepEqual((await call("setWorkingIndicator", [{ frames: [HOSTILE, "b"], intervalMs: 80 }]))?.args, [
    { frames: [HOSTILE_SHOWN, "b"], intervalMs: 80 },
  ]);
  assert.deepEqual((await call("setHiddenThinkingLabel", [HOSTILE]))?.args, [HOSTILE_SHOWN]);
  // Styled text, too.
  const styled = { styled: { styles: [], blocks: [{ text: [[HOSTILE]] }] } };
  assert.deepEqual((await call("notify", [styled, "warning"]))?.args, [HOSTILE_SHOWN, "warning"]);
  assert.deepEqual((await call("setStatus", ["s", styled]))?.args, ["s", HOSTILE_SHOWN]);
  // Clearing still clears.
  assert.deepEqual((await call("setStatus", ["hostile", null]))?.args, ["hostile", undefined]);
  assertClean(t.calls, "ui calls");
});

test("dialogs show their title, options, message, placeholder and prefill sanitized; a select answers the extension's option", async () => {
  const h = await startBridge(manifestWith({}));
  const t = recordingCtx();
  await h.startSession(t.ctx);
  const ext = h.ext();
  /** @param {object} params @param {unknown} answer */
  const dialog = async (params, answer) => {
    const reply = ext.request("ui/dialog", { call: null, ...params });
    await until(() => t.dialogs.length > 0 && t.dialogs.at(-1)?.open === true, "the dialog");
    const d = /** @type {import("./helpers.js").ShownDialog} */ (t.dialogs.at(-1));
    d.answer(answer);
    return { shown: d.args.slice(0, 2), result: (await reply).result };
  };
  const select = await dialog({ method: "select", title: HOSTILE, options: [HOSTILE, "plain"] }, HOSTILE_SHOWN);
  assert.deepEqual(select.shown, [HOSTILE_SHOWN, [HOSTILE_SHOWN, "plain"]]);
  assert.deepEqual(select.result, { outcome: "value", value: HOSTILE }, "the extension's own option back");
  const confirm = await dialog({ method: "confirm", title: `${HOSTILE}\nsecond`, message: HOSTILE }, true);
  assert.deepEqual(confirm.shown, [`${HOSTILE_SHOWN}\nsecond`, HOSTILE_SHOWN]);
  const input = await dialog({ method: "input", title: HOSTILE, placeholder: HOSTILE }, "typed");
  assert.deepEqual(input.shown, [HOSTILE_SHOWN, HOSTILE_SHOWN]);
  assert.deepEqual(input.result, { outcome: "value", value: "typed" });
  const editor = await dialog({ method: "editor", title: HOSTILE, prefill: `${HOSTILE}\n\tx` }, "done");
  assert.deepEqual(editor.shown, [HOSTILE_SHOWN, `${HOSTILE_SHOWN}\n\tx`]);
  // RPC mode's loader is a select with one option.
  const loader = await dialog({ method: "loader", title: HOSTILE }, "Cancel");
  assert.deepEqual(loader.shown, [HOSTILE_SHOWN, ["Cancel"]]);
  assertClean(t.dialogs.map((d) => d.args.slice(0, 2)), "dialogs");
});

test("pi's own dialog components (a select with an initial option, a prefilled input, the loader, the editor) get sanitized text", async () => {
  const { ctx } = recordingCtx();
  const ui = /** @type {any} */ (ctx.ui);
  /** @type {any[]} */
  const built = [];
  /** A stand-in for each of pi's components: records what it was given and typed. */
  const component = (/** @type {string} */ name) =>
    class {
      /** @param {any[]} args */
      constructor(...args) {
        this.name = name;
        this.args = args.filter((a) => typeof a === "string" || Array.isArray(a));
        /** @type {string[]} */
        this.typed = [];
        built.push(this);
      }
      /** @param {string} data */
      handleInput(data) {
        this.typed.push(data);
      }
    };
  const pi = {
    ExtensionSelectorComponent: component("select"),
    ExtensionInputComponent: component("input"),
    ExtensionEditorComponent: component("editor"),
    BorderedLoader: component("loader"),
  };
  const o = {
    queue: { add: () => () => false },
    clock: new FakeClock(),
    interactive: true,
    loadPi: async () => /** @type {any} */ (pi),
    log: new Log(`${tempDir()}/sanitize.log`, { maxBytes: 1 << 20 }),
    onCount: () => {},
  };
  const dismissed = new AbortController().signal;
  /** @type {Array<(v: unknown) => void>} */
  const dones = [];
  ui.custom = (/** @type {any} */ factory) => new Promise((resolve) => (factory({}, theme, {}, resolve), dones.push(resolve)));
  const select = present(ui, { method: "select", title: HOSTILE, options: ["x", HOSTILE], initial: 1 }, dismissed, o);
  await until(() => built.length === 1, "the selector");
  dones[0](HOSTILE_SHOWN);
  assert.deepEqual(await select, { outcome: "value", value: HOSTILE }, "the extension's own option back");
  void present(ui, { method: "input", title: HOSTILE, placeholder: HOSTILE, prefill: "a\x1b[201~\rrm -rf ~\r" }, dismissed, o);
  await until(() => built.length === 2, "the input");
  void present(ui, { method: "loader", title: HOSTILE }, dismissed, o);
  void present(ui, { method: "editor", title: HOSTILE, prefill: HOSTILE }, dismissed, o);
  await until(() => built.length === 4, "the loader and the editor");
  await settle();
  assert.deepEqual(built.map((b) => b.name), ["select", "input", "loader", "editor"]);
  assert.deepEqual(built[0].args, [HOSTILE_SHOWN, ["x", HOSTILE_SHOWN]]);
  // The prefill is pasted whole: nothing of it ends the paste early.
  assert.deepEqual(built[1].typed, ["\x1b[200~a[201~\nrm -rf ~\n\x1b[201~"]);
  assertClean([built.map((b) => b.args), built[1].typed.map((/** @type {string} */ s) => s.slice(6, -6))], "pi's dialog components");
});

test("footers, headers, widgets, frames, tool rows, messages, editor labels and inserts, autocomplete items and errors reach pi sanitized", async () => {
  const tools = [toolManifest("todo", { render: { call: true, result: true } })];
  const h = await startBridge(manifestWith({ tools, messageRenderers: ["note"] }), {
    mode: "interactive",
    loadPi: async () => ({ CustomEditor: FakeCustomEditor }),
    script: (ext) => {
      ext.handle("render/tool", () => view(HOSTILE));
      ext.handle("render/message", () => ({ collapsed: view(HOSTILE), expanded: view(HOSTILE) }));
      ext.handle("autocomplete/suggest", () => ({ prefix: "#", items: [{ value: HOSTILE, label: HOSTILE, description: HOSTILE }] }));
    },
  });
  const t = recordingCtx();
  await h.startSession(t.ctx);
  const ext = h.ext();
  /** @type {Record<string, unknown>} */
  const seen = {};
  for (const target of ["footer", "header"]) {
    await ext.request("ui/set", { target, component: target.length, view: view(HOSTILE) });
    seen[target] = t.set[target].render(80);
  }
  await ext.request("ui/set", { target: "widget", key: "w", component: 9, view: view(HOSTILE) });
  seen.widget = t.set["widget:w"].render(80);
  // A frame.
  void ext.request("ui/open", { component: 1 });
  await until(() => t.shown.length === 1, "the component");
  ext.send({ method: "ui/frame", params: { component: 1, width: 80, ...view(HOSTILE) } });
  await until(() => t.shown[0].render(80).length === 1, "the frame");
  seen.frame = t.shown[0].render(80);
  // A tool row (its fallback shows the result's text), and a message.
  const tool = h.fake.tools.get("todo");
  const result = { content: [{ type: "text", text: HOSTILE }] };
  seen.fallback = tool.renderResult(result, { expanded: false, isPartial: true }, theme, { state: {}, invalidate: () => {} }).render(80);
  let invalidated = 0;
  const row = tool.renderCall({}, theme, { state: {}, invalidate: () => invalidated++ });
  await until(() => invalidated === 1, "the row's view");
  seen.row = row.render(80);
  const message = h.fake.messageRenderers.get("note")({ role: "custom", customType: "note", content: HOSTILE, display: true }, { expanded: false }, theme);
  seen.messageDefault = message.render(80);
  await until(() => message.render(80).join("") === HOSTILE_SHOWN, "the message's view");
  // The editor: a label on its border and an inserted text.
  const spec = { mode: "m", styles: [], modes: { m: { keys: { x: [{ insert: "a\x1b[201~\r" }] }, decor: { bottomRight: [HOSTILE] } } } };
  await ext.request("ui/set", { target: "editor", component: 4, editor: spec });
  const editor = t.set.editor;
  seen.editor = editor.render(100);
  editor.handleInput("x");
  assert.deepEqual(editor.typed, ["\x1b[200~a[201~\n\x1b[201~"], "the insert is one paste");
  // Autocomplete.
  await ext.request("ui/autocomplete", { provider: 1, trigger: "#$" });
  const base = { getSuggestions: async () => null, applyCompletion: () => null };
  seen.suggestions = await t.providers[0](base).getSuggestions(["#"], 0, 1, { signal: new AbortController().signal });
  // A component's error, told to the user.
  void ext.request("ui/open", { component: 2 });
  await until(() => t.shown.length === 2, "the second component");
  ext.send({ method: "ui/close", params: { component: 2, reason: "failed", error: HOSTILE } });
  await until(() => t.calls.some((c) => c.method === "notify"), "the error's notification");
  seen.error = t.calls.filter((c) => c.method === "notify").map((c) => c.args[0]);
  for (const [what, lines] of Object.entries(seen)) assertClean(lines, what);
  assert.ok(strings(seen).some((s) => s.includes(HOSTILE_SHOWN)), "the text is shown");
});

test("a session name and a label (pi's footer, title and tree) are sanitized", async () => {
  const h = await startBridge(manifestWith({}));
  /** @type {unknown[][]} */
  const got = [];
  h.pi.setSessionName = (/** @type {unknown} */ name) => got.push(["name", name]);
  h.pi.setLabel = (/** @type {unknown} */ id, /** @type {unknown} */ label) => got.push(["label", id, label]);
  await h.startSession(recordingCtx().ctx);
  await h.ext().request("api/call", { call: null, method: "setSessionName", args: [TITLE] });
  await h.ext().request("api/call", { call: null, method: "setLabel", args: ["e1", HOSTILE] });
  await h.ext().request("api/call", { call: null, method: "setLabel", args: ["e1", null] });
  assert.deepEqual(got, [
    ["name", "t]52;c;aGk="],
    ["label", "e1", HOSTILE_SHOWN],
    ["label", "e1", undefined],
  ]);
});

test("a link span is an OSC 8 hyperlink the bridge writes; a URL with control characters is no link", () => {
  const url = "https://example.com/a?b=c;d";
  const [open, close] = styleAnsi({ link: url }, undefined);
  assert.equal(open, `\x1b]8;;${url}\x07`);
  assert.equal(close, "\x1b]8;;\x07");
  const linked = { styles: [{ link: url, underline: true }], blocks: [{ text: [["see ", ["docs", 0]]], wrap: false }] };
  assert.deepEqual(renderView(/** @type {any} */ (linked), 40, undefined), [`see \x1b]8;;${url}\x07\x1b[4mdocs\x1b[24m\x1b]8;;\x07`]);
  for (const bad of [`http://x\x07\x1b]52;c;aGk=\x07`, "http://x/\u009b2J", "no scheme", "http://a b", "javascript", "", "https://é.example", `https://x/${"a".repeat(2048)}`, 7]) {
    assert.equal(linkUrl(bad), undefined, JSON.stringify(bad));
    const [o, c] = styleAnsi({ link: /** @type {any} */ (bad) }, undefined);
    assert.deepEqual([o, c], ["", ""], JSON.stringify(bad));
  }
  assert.equal(linkUrl("mailto:someone@example.com"), "mailto:someone@example.com");
});

test("the statuses and text widgets a process set are cleared when it dies, and pi is told", async () => {
  const h = await startBridge(manifestWith({}), { mode: "interactive" });
  const t = recordingCtx();
  await h.startSession(t.ctx);
  const ext = h.ext();
  await ext.request("ui/call", { call: null, method: "setStatus", args: ["mine", "working"] });
  await ext.request("ui/call", { call: null, method: "setStatus", args: ["gone", "x"] });
  await ext.request("ui/call", { call: null, method: "setStatus", args: ["gone", null] });
  await ext.request("ui/call", { call: null, method: "setWidget", args: ["lines", ["a", "b"]] });
  t.calls.length = 0;
  ext.exit(null, "SIGKILL");
  await until(() => t.calls.some((c) => c.method === "notify"), "the notice");
  assert.deepEqual(
    t.calls.filter((c) => c.method === "setStatus" || c.method === "setWidget").map((c) => [c.method, c.args[0], c.args[1]]),
    [
      ["setStatus", "mine", undefined],
      ["setWidget", "lines", undefined],
    ],
    "only what is still set: a status it cleared itself is not touched",
  );
  assert.match(String(t.calls.find((c) => c.method === "notify")?.args[0]), /process ended/);
});

/** Every hostile string, with a second line and a tab (kept where pi shows several lines). */
const MULTI = `${HOSTILE}\n\tsecond`;
/** A model of a provider, named by the extension. */
const hostileModel = (/** @type {string} */ id) => ({ id, name: MULTI, api: "openai-completions", input: ["text"], contextWindow: 1000, maxTokens: 100 });

test("what pi shows of the manifest (tool labels and descriptions, commands, completions, shortcuts, flags, providers, models) reaches pi sanitized", async () => {
  const sent = toolManifest("t", { label: MULTI, description: MULTI, promptSnippet: MULTI, promptGuidelines: [MULTI, "plain"] });
  const manifest = manifestWith({
    tools: [sent],
    commands: [
      { name: "fixed", description: MULTI, completions: [MULTI, "b"], shortcut: "ctrl+shift+x" },
      { name: "dyn", description: "d", dynamicCompletions: true },
    ],
    flags: [{ name: "f", description: MULTI, type: "boolean" }],
    providers: [
      {
        name: "hostile",
        displayName: MULTI,
        baseUrl: "http://127.0.0.1:1/v1",
        apiKey: "K",
        api: "openai-completions",
        models: [hostileModel("m1")],
        configOnly: true,
        oauth: { name: MULTI, apiKeyField: "access" },
      },
    ],
  });
  const h = await startBridge(manifest, {
    script: (ext) => ext.handle("command/complete", () => [{ value: `${HOSTILE}\nv`, label: MULTI, description: MULTI }, { value: "plain", label: "plain" }]),
  });
  await h.startSession(recordingCtx().ctx);
  const line = `${HOSTILE_SHOWN}   second`;
  const lines = `${HOSTILE_SHOWN}\n   second`;
  const text = `${HOSTILE_SHOWN}\n\tsecond`;
  // A tool: its label one line; what the model reads keeps its lines and tabs.
  const tool = h.fake.tools.get("t");
  assert.deepEqual([tool.label, tool.description, tool.promptSnippet, tool.promptGuidelines], [line, text, text, [text, "plain"]]);
  // Commands, their completions and shortcut, and flags: pi lists them (it joins a description's lines).
  const fixed = h.fake.commands.get("fixed");
  assert.equal(fixed.description, lines);
  assert.deepEqual(fixed.getArgumentCompletions(""), [
    { value: line, label: line },
    { value: "b", label: "b" },
  ]);
  assert.equal(h.fake.shortcuts.get("ctrl+shift+x").description, lines);
  assert.equal(h.fake.flags.get("f").description, lines);
  assert.deepEqual(await h.fake.commands.get("dyn").getArgumentCompletions(""), [
    { value: `${HOSTILE_SHOWN}v`, label: line, description: line },
    { value: "plain", label: "plain" },
  ]);
  // A provider: its name, its login's name (`/login`), its models' names (the model selector).
  const provider = h.fake.providers.get("hostile");
  assert.deepEqual([provider.name, provider.oauth.name, provider.models.map((/** @type {any} */ m) => m.name)], [line, line, [line]]);
  // Registered at run time: a tool and a provider.
  const ext = h.ext();
  const runtimeTool = await ext.request("api/call", { call: null, method: "registerTool", args: [toolManifest("later", { label: MULTI, description: MULTI })] });
  assert.equal(runtimeTool.error, undefined);
  assert.deepEqual([h.fake.tools.get("later").label, h.fake.tools.get("later").description], [line, text]);
  const runtimeProvider = { name: "later", displayName: MULTI, baseUrl: "http://127.0.0.1:1/v1", apiKey: "K", api: "openai-completions", models: [hostileModel("m2")], configOnly: true };
  assert.equal((await ext.request("api/call", { call: null, method: "registerProvider", args: [runtimeProvider] })).error, undefined);
  assert.deepEqual([h.fake.providers.get("later").name, h.fake.providers.get("later").models[0].name], [line, line]);
  // Nothing else changed: names, schemas, ids as the extension sent them.
  assert.deepEqual(tool.parameters, sent.parameters);
  assert.equal(provider.models[0].id, "m1");
  assertClean([tool.label, fixed, h.fake.shortcuts.get("ctrl+shift+x").description, h.fake.flags.get("f").description, provider], "the manifest's texts");
});

test("models the extension lists at run time (refreshModels) and virtual models reach pi with their names sanitized", async () => {
  const host = () => /** @type {any} */ ({ providerCall: async () => [hostileModel("m"), { id: "nameless" }] });
  const c = /** @type {any} */ (callbacks(/** @type {any} */ ({ name: "corp", refreshModels: true, models: [] }), host));
  assert.deepEqual(await c.refreshModels({}), [{ ...hostileModel("m"), name: `${HOSTILE_SHOWN}   second` }, { id: "nameless" }]);
  const m = sanitizeManifest(/** @type {any} */ ({ virtualModels: [{ provider: "p", id: "v", name: MULTI }], tools: [{ name: "x" }] }));
  assert.deepEqual(m.virtualModels, [{ provider: "p", id: "v", name: `${HOSTILE_SHOWN}   second` }]);
  assert.deepEqual(m.tools, [{ name: "x" }], "a field it lacks stays missing");
  // A malformed manifest is left to the checks that report it.
  assert.deepEqual(sanitizeManifest(/** @type {any} */ ({ tools: "nope", commands: [null] })), { tools: "nope", commands: [null] });
});

test("the manifest install recorded is sanitized too (pi registers it before the process starts)", () => {
  const dir = tempDir();
  const binary = path.join(dir, "ext");
  fs.writeFileSync(binary, "binary");
  const stat = fs.statSync(binary);
  const recorded = manifestWith({ tools: [toolManifest("t", { label: HOSTILE })], commands: [{ name: "c", description: HOSTILE }] });
  const config = { name: "x", cache: { size: stat.size, mtimeMs: Math.floor(stat.mtimeMs), manifest: recorded } };
  const m = cachedManifest(config, binary, new Log(path.join(dir, "log"), { maxBytes: 1 << 20 }));
  assert.equal(m?.tools?.[0].label, HOSTILE_SHOWN);
  assert.equal(m?.commands?.[0].description, HOSTILE_SHOWN);
});
