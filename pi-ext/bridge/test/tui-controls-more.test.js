// @ts-check
// pi-tui's SettingsList, pi's DynamicBorder and pi-tui's Loader in a frame:
// drawn as pi's own, kept by id, keys handled in the bridge, events out;
// hostile specs sanitized and bounded; a loader animates without the
// extension and stops when dropped.
import assert from "node:assert/strict";
import { mock, test } from "node:test";

import { Editor, Loader, SettingsList } from "@mariozechner/pi-tui";

import { MAX_CONTROL_TEXT, MAX_SELECT_ITEMS, ControlSet, controlPlain, controlSpec } from "../lib/tui-controls.js";
import { MAX_EDITOR_TEXT, MAX_LOADER_FRAMES, MAX_SETTING_VALUES, settingsTheme } from "../lib/tui-controls-more.js";
import { renderView } from "../lib/tui-render.js";
import { fakeCtx, manifestWith, startBridge, until } from "./helpers.js";

/** A theme whose colours show as names. */
const theme = {
  /** @param {string} t */
  getFgAnsi: (t) => `<${t}>`,
  getBgAnsi: () => "",
  getColorMode: () => "truecolor",
};
const fgOpen = (/** @type {unknown} */ c) => (typeof c === "string" ? `<${c}>` : "");

/** Text without SGR sequences and pi-tui's cursor markers. @param {string} s */
const plain = (s) => s.replace(/\x1b\[[0-9;]*m|<[a-zA-Z]+>|\x1b_pi:\/?f?c\x07/g, "");

const UP = "\x1b[A";
const DOWN = "\x1b[B";

/** @param {string} id @param {number} n @param {object} [more] */
const settings = (id, n, more = {}) => ({
  control: {
    id,
    kind: "settings",
    items: Array.from({ length: n }, (_, i) => ({ id: `t${i}`, label: `tool${i}`, value: i % 2 ? "disabled" : "enabled", values: ["enabled", "disabled"] })),
    maxVisible: 3,
    search: false,
    focused: true,
    ...more,
  },
});

/** What pi-tui's SettingsList with pi's settings theme draws for these items. */
function piSettings(/** @type {any[]} */ items, /** @type {number} */ maxVisible, /** @type {number} */ width, setup = (/** @type {any} */ _l) => {}, search = false) {
  const own = items.map((i) => ({ id: i.id, label: i.label, currentValue: i.value, values: i.values, description: i.description }));
  const list = new SettingsList(own, maxVisible, settingsTheme(fgOpen), () => {}, () => {}, { enableSearch: search });
  setup(list);
  return list.render(width);
}

test("a settings list draws as pi-tui's with pi's theme, cycles values in the bridge and reports them", () => {
  const w = new ControlSet(() => theme);
  const block = settings("s", 5);
  w.sync([block]);
  const items = block.control.items;
  assert.deepEqual(w.render({ id: "s" }, 60, true), piSettings(items, 3, 60));
  const first = w.render({ id: "s" }, 60, true)[0];
  assert.equal(first, "<accent>→ \x1b[39m<accent>tool0\x1b[39m  <accent>enabled\x1b[39m", "pi's getSettingsListTheme()");
  assert.equal(w.key("a"), undefined, "a key it does not use is the component's");
  assert.deepEqual(w.key(DOWN), [], "a move reports nothing (pi-tui has no callback for it)");
  assert.deepEqual(w.key("\r"), [{ control: "s", event: "settingChanged", item: "t1", value: "enabled" }]);
  assert.deepEqual(w.key(" "), [{ control: "s", event: "settingChanged", item: "t1", value: "disabled" }], "Space cycles, wrapping");
  assert.deepEqual(w.key(UP), []);
  assert.deepEqual(w.key(UP), [], "wraps to the last");
  assert.ok(w.render({ id: "s" }, 60, true).some((l) => l.includes("(5/5)")));
  // The next frame with the same values: the selection stays, the cycled value too.
  w.sync([block]);
  assert.ok(w.render({ id: "s" }, 60, true).some((l) => l.includes("(5/5)")));
  // The extension sets a value: applied without losing the selection.
  const changed = settings("s", 5);
  changed.control.items[4].value = "disabled";
  w.sync([changed]);
  assert.ok(w.render({ id: "s" }, 60, true).some((l) => l.includes("tool4\x1b[39m  <accent>disabled")));
  assert.deepEqual(w.key("\x1b"), [{ control: "s", event: "cancelled" }]);
  // `selected` moves it when it changes; other items rebuild it, keeping the row.
  w.sync([settings("s", 5, { selected: "t2" })]);
  assert.deepEqual(w.key("\r"), [{ control: "s", event: "settingChanged", item: "t2", value: "disabled" }]);
  w.sync([settings("s", 6, { selected: "t2" })]);
  assert.deepEqual(w.key("\r"), [{ control: "s", event: "settingChanged", item: "t2", value: "disabled" }]);
  // A description shows under the selected row; an item without values does not change.
  const described = settings("s", 2, { selected: "a", items: [{ id: "a", label: "A", value: "x", description: "about A" }, { id: "b", label: "B", value: "y", values: [] }] });
  w.sync([described]);
  assert.deepEqual(w.render({ id: "s" }, 40, true), piSettings(described.control.items, 3, 40));
  assert.ok(w.render({ id: "s" }, 40, true).includes("<dim>  about A\x1b[39m"));
  assert.deepEqual(w.key("\r"), []);
  // PageDown is its key.
  w.sync([settings("s", 20)]);
  assert.deepEqual(w.key("\x1b[6~"), []);
  assert.ok(w.render({ id: "s" }, 60, true).some((l) => l.includes("(4/20)")), w.render({ id: "s" }, 60, true).join("\n"));
});

test("a settings list with search filters as the user types, leaving Tab to the component", () => {
  const w = new ControlSet(() => theme);
  const block = settings("s", 12, { search: true, maxVisible: 5 });
  w.sync([block]);
  assert.deepEqual(w.render({ id: "s" }, 60, false), piSettings(block.control.items, 5, 60, () => {}, true));
  assert.deepEqual(w.key("1"), []);
  assert.deepEqual(w.key("1"), []);
  assert.deepEqual(
    w.render({ id: "s" }, 60, false),
    piSettings(block.control.items, 5, 60, (l) => {
      l.handleInput("1");
      l.handleInput("1");
    }, true),
  );
  assert.deepEqual(w.key(" "), [], "Space types into the search once it has text");
  assert.equal(w.key("\t"), undefined);
  assert.deepEqual(w.key("\x7f"), []);
  assert.deepEqual(w.key("\x7f"), []);
  assert.deepEqual(w.key("\x7f"), []);
  assert.deepEqual(w.key(" "), [{ control: "s", event: "settingChanged", item: "t0", value: "disabled" }]);
});

test("hostile settings, borders and loaders are sanitized and bounded", () => {
  const items = Array.from({ length: MAX_SELECT_ITEMS + 9 }, (_, i) => ({
    id: `t${i}\x07`,
    label: "\x1b[2J" + "L".repeat(MAX_CONTROL_TEXT + 3),
    value: "\x1b]52;c;eA==\x07on",
    values: Array.from({ length: MAX_SETTING_VALUES + 4 }, (_, v) => `v${v}\x9b`),
    description: 7,
  }));
  const spec = /** @type {any} */ (controlSpec({ id: "s", kind: "settings", items, maxVisible: 1e12, selected: 5, search: "yes" }));
  assert.equal(spec.items.length, MAX_SELECT_ITEMS);
  assert.equal(spec.items[0].id, "t0");
  assert.equal(spec.items[0].label.length, MAX_CONTROL_TEXT);
  assert.ok(!spec.items[0].label.includes("\x1b"));
  assert.equal(spec.items[0].currentValue, "]52;c;eA==on");
  assert.equal(spec.items[0].values.length, MAX_SETTING_VALUES);
  assert.equal(spec.items[0].values[0], "v0");
  assert.equal(spec.items[0].description, undefined);
  assert.equal(spec.maxVisible, 100);
  assert.equal(spec.selected, undefined);
  assert.equal(spec.search, false);
  const odd = /** @type {any} */ (controlSpec({ id: "s", kind: "settings", items: [null, { values: "x" }], maxVisible: "a" }));
  assert.deepEqual(odd.items[0], { id: "", label: "", currentValue: "", values: [] });
  assert.equal(odd.maxVisible, 10);
  const loader = /** @type {any} */ (controlSpec({
    id: "l",
    kind: "loader",
    message: "wait\x1b[?1049h",
    frames: Array.from({ length: MAX_LOADER_FRAMES + 3 }, () => "\x1b[31m" + "x".repeat(40)),
    intervalMs: -5,
  }));
  assert.equal(loader.message, "wait[?1049h");
  assert.equal(loader.frames.length, MAX_LOADER_FRAMES);
  assert.equal(loader.frames[0], "[31mxxxxxxxxxxxx");
  assert.equal(loader.intervalMs, 16);
  assert.equal(/** @type {any} */ (controlSpec({ id: "l", kind: "loader", intervalMs: 1e9 })).intervalMs, 10_000);
  // A drawn settings list, border and loader hold no escape sequence but the theme's colours.
  const w = new ControlSet(() => theme);
  w.sync([{ control: { id: "s", kind: "settings", items: items.slice(0, 3), maxVisible: 3 } }, { control: { kind: "border", color: "\x1b[2J" } }, { control: { id: "l", kind: "loader", message: "a\x1b[2Jb", frames: ["\x1b]0;t\x07"] } }]);
  const lines = renderView(
    {
      width: 30,
      blocks: [{ control: { id: "s", kind: "settings" } }, { control: { kind: "border", color: "\x1b[2J" } }, { control: { id: "l", kind: "loader" } }],
    },
    30,
    theme,
    { control: (b, n) => w.render(b, n, true) },
  );
  for (const l of lines) assert.doesNotMatch(l.replace(/\x1b\[(39|0)m/g, ""), /[\x00-\x08\x0b-\x1f\x7f\x9b]/, JSON.stringify(l));
  assert.ok(lines.every((l) => l.replace(/\x1b\[[0-9;]*m|<[a-zA-Z]+>/g, "").length <= 30), JSON.stringify(lines));
  assert.deepEqual(controlPlain(settings("p", 4).control), ["  tool0  enabled", "  tool1  disabled", "  tool2  enabled"]);
  assert.deepEqual(controlPlain({ id: "l", kind: "loader", message: "hi" }), ["", " hi"]);
});

test("a border is pi's DynamicBorder: a rule across any width in its colour, any number of them", () => {
  const sgr = { ...theme, getFgAnsi: (/** @type {string} */ t) => (t === "accent" ? "\x1b[36m" : "\x1b[90m") };
  const w = new ControlSet(() => sgr);
  const blocks = [{ control: { kind: "border", color: "accent" } }, { text: [["Title"]], wrap: false }, { control: { kind: "border" } }];
  w.sync(blocks);
  const draw = (/** @type {number} */ n) => renderView({ width: n, blocks }, n, sgr, { control: (b, m) => w.render(b, m, true) });
  assert.deepEqual(draw(12), [`\x1b[36m${"─".repeat(12)}\x1b[39m`, "Title", `\x1b[90m${"─".repeat(12)}\x1b[39m`]);
  assert.deepEqual(draw(1)[0], "\x1b[36m─\x1b[39m");
  w.sync([{ control: { kind: "border", color: 33 } }]);
  assert.deepEqual(w.render({ kind: "border", color: 33 }, 3, true), ["\x1b[38;5;33m───\x1b[39m"]);
  assert.equal(w.key(DOWN), undefined, "it takes no keys");
});

test("a loader animates in the bridge with pi-tui's frames, takes a new message, and stops when dropped or closed", () => {
  mock.timers.enable({ apis: ["setInterval"] });
  try {
    let repaints = 0;
    const w = new ControlSet(() => theme, undefined, () => repaints++);
    w.sync([{ control: { id: "l", kind: "loader", message: "Working" } }]);
    const own = new Loader(/** @type {any} */ ({ requestRender() {} }), (s) => `<accent>${s}\x1b[39m`, (s) => `<muted>${s}\x1b[39m`, "Working");
    assert.deepEqual(w.render({ id: "l" }, 40, true), own.render(40));
    assert.match(w.render({ id: "l" }, 40, true)[1], /⠋/);
    const before = repaints;
    mock.timers.tick(80);
    assert.equal(repaints, before + 1, "a frame repaints pi with no round trip");
    assert.match(w.render({ id: "l" }, 40, true)[1], /⠙/);
    // The same spec again: the animation goes on; a new message is shown.
    w.sync([{ control: { id: "l", kind: "loader", message: "Working" } }]);
    mock.timers.tick(80);
    assert.match(w.render({ id: "l" }, 40, true)[1], /⠹.*Working/);
    w.sync([{ control: { id: "l", kind: "loader", message: "Almost" } }]);
    assert.match(w.render({ id: "l" }, 40, true)[1], /⠹.*Almost/);
    // Its own indicator, drawn as given.
    w.sync([{ control: { id: "l", kind: "loader", message: "m", frames: ["-", "+"], intervalMs: 200 } }]);
    assert.equal(w.render({ id: "l" }, 40, true)[1].trimEnd(), " - <muted>m\x1b[39m");
    mock.timers.tick(200);
    assert.equal(w.render({ id: "l" }, 40, true)[1].trimEnd(), " + <muted>m\x1b[39m");
    assert.equal(w.key("\x1b"), undefined, "it takes no keys");
    // Dropped from the frame: no more repaints.
    w.sync([]);
    const after = repaints;
    mock.timers.tick(1000);
    assert.equal(repaints, after);
    // Closed with the component: stopped too.
    w.sync([{ control: { id: "l", kind: "loader", message: "m" } }]);
    w.dispose();
    const closed = repaints;
    mock.timers.tick(1000);
    assert.equal(repaints, closed);
  } finally {
    mock.timers.reset();
  }
});

/** pi-tui's own Editor as question.ts makes it (`new Editor(tui, editorTheme)`), its text typed. */
function piEditor(/** @type {string} */ typed, rows = 24) {
  const paint = (/** @type {string} */ t) => (/** @type {string} */ s) => `<${t}>${s}\x1b[39m`;
  const e = new Editor(/** @type {any} */ ({ terminal: { rows }, requestRender() {} }), {
    borderColor: paint("accent"),
    selectList: { selectedPrefix: paint("accent"), selectedText: paint("accent"), description: paint("muted"), scrollInfo: paint("muted"), noMatch: paint("muted") },
  });
  for (const ch of typed) e.handleInput(ch);
  return e;
}

/** @param {object} [more] */
const editorBlock = (more = {}) => ({ control: { id: "e", kind: "editor", border: "accent", focused: true, ...more } });

test("an editor is pi-tui's Editor: drawn as its own, edited in the bridge, Enter submits the trimmed text, Escape cancels", () => {
  const w = new ControlSet(() => theme, undefined, undefined, () => 24);
  w.sync([editorBlock()]);
  assert.deepEqual(w.render({ id: "e" }, 30, false), piEditor("").render(30));
  assert.deepEqual(w.key("h"), [{ control: "e", event: "changed", text: "h" }]);
  assert.deepEqual(w.key("i"), [{ control: "e", event: "changed", text: "hi" }]);
  assert.deepEqual(w.render({ id: "e" }, 30, false), piEditor("hi").render(30));
  // Shift+Enter (and `\` Enter) make a new line; long lines wrap as pi-tui's.
  assert.deepEqual(w.key("\\"), [{ control: "e", event: "changed", text: "hi\\" }]);
  assert.deepEqual(w.key("\r"), [{ control: "e", event: "changed", text: "hi\n" }]);
  for (const ch of "a long second line that wraps") w.key(ch);
  const own = piEditor("hi\\\ra long second line that wraps");
  assert.deepEqual(w.render({ id: "e" }, 20, false), own.render(20));
  assert.ok(w.render({ id: "e" }, 20, false).length > 4, "wrapped");
  assert.equal(w.key("\x03"), undefined, "Ctrl+C is the component's");
  assert.deepEqual(w.key("\x1b"), [{ control: "e", event: "cancelled" }]);
  assert.deepEqual(w.key(" "), [{ control: "e", event: "changed", text: "hi\na long second line that wraps " }]);
  assert.deepEqual(w.key("\r"), [{ control: "e", event: "submitted", text: "hi\na long second line that wraps" }], "trimmed; the editor is empty after");
  assert.deepEqual(w.render({ id: "e" }, 30, false), piEditor("").render(30));
  // Inset: as question.ts draws it, " " + editor.render(width - 2).
  w.sync([editorBlock({ inset: [1, 1] })]);
  w.key("x");
  assert.deepEqual(
    w.render({ id: "e" }, 30, false),
    piEditor("x").render(28).map((l) => ` ${l}`),
  );
  // A value set by the extension replaces the text when it changes, and is no change to report.
  w.sync([editorBlock({ inset: [1, 1], value: "set\nby rust" })]);
  assert.deepEqual(w.key("!"), [{ control: "e", event: "changed", text: "set\nby rust!" }]);
  w.sync([editorBlock({ inset: [1, 1], value: "set\nby rust" })]);
  assert.deepEqual(w.key("?"), [{ control: "e", event: "changed", text: "set\nby rust!?" }], "the same value again keeps the typing");
  // Focused: pi-tui's cursor marker for the hardware cursor.
  assert.ok(w.render({ id: "e" }, 30, true).some((l) => l.includes("\x1b_pi:c\x07")));
});

test("a hostile editor is bounded and sanitized: escapes never drawn, text cut, pastes cut", () => {
  const spec = /** @type {any} */ (controlSpec({ id: "e", kind: "editor", value: "a\x1b[2J\tb\nc\x9b", border: "\x1b[31m", paddingX: 1e9, inset: [-3, "x"] }));
  assert.deepEqual(spec, { id: "e", kind: "editor", value: "a[2J\tb\nc", border: "borderMuted", paddingX: 16, inset: [0, 0], focused: true });
  const huge = /** @type {any} */ (controlSpec({ id: "e", kind: "editor", value: "x".repeat(MAX_EDITOR_TEXT + 10) }));
  assert.equal(huge.value.length, MAX_EDITOR_TEXT);
  const w = new ControlSet(() => theme);
  w.sync([editorBlock({ value: "q\x1b]52;c;eA==\x07\x1b[?1049h" })]);
  // pi-tui's own sequences only: colours and its fake cursor's APC markers.
  for (const l of w.render({ id: "e" }, 30, false)) assert.doesNotMatch(l.replace(/\x1b\[(7|27|39|0)m|\x1b_pi:\/?fc\x07/g, ""), /[\x00-\x08\x0b-\x1f\x7f\x9b]/, JSON.stringify(l));
  // A paste past the limit is cut; what is reported has no escape sequence.
  const events = /** @type {any[]} */ (w.key(`\x1b[200~${"y\x1b[31m".repeat(MAX_EDITOR_TEXT)}\x1b[201~`));
  assert.ok(events.length > 0);
  for (const e of events) assert.ok(!e.text.includes("\x1b") && e.text.length <= MAX_EDITOR_TEXT);
  // Every line fits the width, even a 1-column frame, inset or not.
  for (const inset of [[0, 0], [16, 16]]) {
    w.sync([editorBlock({ value: "some text here", inset })]);
    const lines = renderView({ width: 1, blocks: [editorBlock({ inset })] }, 1, theme, { control: (b, n) => w.render(b, n, true) });
    assert.ok(lines.every((l) => l.replace(/\x1b\[[0-9;]*m|<[a-zA-Z]+>|\x1b_pi:\/?f?c\x07/g, "").length <= 1), JSON.stringify(lines));
  }
  assert.deepEqual(controlPlain({ id: "e", kind: "editor", value: "a\nb" }), ["a", "b"]);
});

test("in a component: a loader repaints pi on its own, a setting's change goes out as ui/control, and closing stops the loader", async () => {
  const h = await startBridge(manifestWith({}), { mode: "interactive" });
  const base = fakeCtx();
  const ui = /** @type {any} */ (base.ctx.ui);
  const tui = { terminal: { columns: 60, rows: 24 }, renders: 0, requestRender() { this.renders++; } };
  /** @type {any[]} */
  const shown = [];
  /** @type {any[]} */
  const dones = [];
  ui.theme = theme;
  ui.custom = (/** @type {any} */ factory) =>
    new Promise((resolve) => {
      dones.push(resolve);
      shown.push(factory(tui, theme, {}, resolve));
    });
  await h.startSession(base.ctx);
  const ext = h.ext();
  const opened = ext.request("ui/open", { component: 5, wantsKeyRelease: false });
  await until(() => shown.length === 1, "pi shows the component");
  const c = shown[0];
  mock.timers.enable({ apis: ["setInterval"] });
  try {
    ext.send({ method: "ui/frame", params: { component: 5, width: 60, styles: [], blocks: [{ control: { id: "l", kind: "loader", message: "Working" } }, settings("s", 3)] } });
    await until(() => tui.renders >= 1, "a repaint");
    assert.match(c.render(60)[1], /⠋/);
    const before = tui.renders;
    mock.timers.tick(80);
    assert.ok(tui.renders > before, "the loader's frame repaints pi, with no message to the extension");
    assert.match(c.render(60)[1], /⠙/, "drawn anew, not from the view's cache");
    c.handleInput("\r");
    await until(() => ext.sent("ui/control").length === 1, "the change");
    assert.deepEqual(ext.sent("ui/control")[0].params, { component: 5, seq: 1, control: "s", event: "settingChanged", item: "t0", value: "disabled" });
    assert.equal(ext.sent("ui/key").length, 0);
    // The component closes (pi's `done`): its loader stops repainting.
    dones[0]();
    await opened;
    const closed = tui.renders;
    mock.timers.tick(800);
    assert.equal(tui.renders, closed);
  } finally {
    mock.timers.reset();
  }
});

test("in a component: an editor's Enter is drawn with the extension's answer to it, not the emptied editor in between", async () => {
  const h = await startBridge(manifestWith({}), { mode: "interactive" });
  const base = fakeCtx();
  const ui = /** @type {any} */ (base.ctx.ui);
  const tui = { terminal: { columns: 40, rows: 24 }, renders: 0, requestRender() { this.renders++; } };
  /** @type {any[]} */
  const shown = [];
  ui.theme = theme;
  ui.custom = (/** @type {any} */ factory) => new Promise((resolve) => shown.push(factory(tui, theme, {}, resolve)));
  await h.startSession(base.ctx);
  const ext = h.ext();
  ext.request("ui/open", { component: 6, wantsKeyRelease: false });
  await until(() => shown.length === 1, "pi shows the component");
  const c = shown[0];
  const frame = (/** @type {string} */ title, /** @type {number | undefined} */ forKey) =>
    ext.send({ method: "ui/frame", params: { component: 6, width: 40, styles: [], forKey, blocks: [{ text: [[title]], wrap: false }, editorBlock()] } });
  frame("Ask", undefined);
  await until(() => tui.renders >= 1, "a repaint");
  c.handleInput("h");
  c.handleInput("i");
  await until(() => ext.sent("ui/control").length === 2, "the changes");
  assert.match(plain(c.render(40)[2]), /^hi/, "typing is drawn at once, in the bridge");
  const renders = tui.renders;
  c.handleInput("\r");
  await until(() => ext.sent("ui/control").length === 3, "the submit");
  assert.deepEqual(ext.sent("ui/control")[2].params, { component: 6, seq: 3, control: "e", event: "submitted", text: "hi" });
  assert.equal(tui.renders, renders, "no repaint before the extension answers");
  assert.match(plain(c.render(40)[2]), /^hi/, "the old frame still");
  frame("Thanks", 3);
  await until(() => c.render(40)[0] === "Thanks", "the answer's frame");
  assert.doesNotMatch(plain(c.render(40)[2]), /hi/, "and the emptied editor with it");
  // Answered with an ack (nothing to redraw): the control's own state is drawn then.
  c.handleInput("x");
  await until(() => ext.sent("ui/control").length === 4, "typed");
  assert.match(plain(c.render(40)[2]), /^x/, "pi repaints for it");
  c.handleInput("\r");
  await until(() => ext.sent("ui/control").length === 5, "submitted");
  assert.match(plain(c.render(40)[2]), /^x/);
  ext.send({ method: "ui/ack", params: { component: 6, seq: 5 } });
  await until(() => !/^x/.test(plain(c.render(40)[2])), "the emptied editor after the ack");
});
