// @ts-check
// pi-tui's own controls in a component's frame: made with pi-tui's classes,
// kept by id across frames, their keys handled in the bridge, their events
// sent as `ui/control`; hostile strings sanitized, sizes bounded.
import assert from "node:assert/strict";
import { test } from "node:test";

import { Input, Markdown, SelectList } from "@mariozechner/pi-tui";

import {
  MAX_INPUT,
  MAX_SELECT_ITEMS,
  MAX_CONTROL_TEXT,
  MAX_CONTROLS,
  MAX_PANEL_HEIGHT,
  ControlSet,
  controlPlain,
  controlSpec,
} from "../lib/tui-controls.js";
import { MAX_MARKDOWN, MAX_MARKDOWN_LINES, markdownTheme } from "../lib/tui-markdown.js";
import { renderView } from "../lib/tui-render.js";
import { fakeCtx, manifestWith, startBridge, until } from "./helpers.js";

/** A theme whose colours show as names. */
const theme = {
  /** @param {string} t */
  getFgAnsi: (t) => `<${t}>`,
  getBgAnsi: () => "",
  getColorMode: () => "truecolor",
};

/** What pi-tui's SelectList draws for these items with these colours. */
function piList(/** @type {any[]} */ items, /** @type {number} */ maxVisible, /** @type {number} */ width, selected = 0) {
  const paint = (/** @type {string} */ t) => (/** @type {string} */ s) => `<${t}>${s}\x1b[39m`;
  const list = new SelectList(items, maxVisible, {
    selectedPrefix: paint("accent"),
    selectedText: paint("accent"),
    description: paint("muted"),
    scrollInfo: paint("dim"),
    noMatch: paint("muted"),
  });
  list.setSelectedIndex(selected);
  return list.render(width);
}

const UP = "\x1b[A";
const DOWN = "\x1b[B";

/** @param {string} id @param {number} n @param {object} [more] */
const select = (id, n, more = {}) => ({
  control: {
    id,
    kind: "select",
    items: Array.from({ length: n }, (_, i) => ({ value: `v${i}`, label: `Item ${i}`, description: `about ${i}` })),
    maxVisible: 3,
    colors: { selected: "accent", description: "muted", scrollInfo: "dim", noMatch: "muted" },
    focused: true,
    ...more,
  },
});

test("a select list draws as pi-tui's, moves and chooses in the bridge, and reports indexes into the extension's items", () => {
  const w = new ControlSet(() => theme);
  const frame = { width: 60, blocks: [{ text: [["Pick"]], wrap: false }, select("p", 5), { text: [["hint"]], wrap: false }] };
  w.sync(frame.blocks);
  const draw = () => renderView(frame, 60, theme, { control: (b, n) => w.render(b, n, true) });
  const items = select("p", 5).control.items;
  assert.deepEqual(draw(), ["Pick", ...piList(items, 3, 60), "hint"]);
  assert.equal(w.key("a"), undefined, "a key the list does not use is the component's");
  assert.deepEqual(w.key(DOWN), [{ control: "p", event: "selectionChanged", index: 1, value: "v1" }]);
  assert.deepEqual(w.key(UP), [{ control: "p", event: "selectionChanged", index: 0, value: "v0" }]);
  assert.deepEqual(w.key(UP), [{ control: "p", event: "selectionChanged", index: 4, value: "v4" }], "wraps as pi-tui's");
  assert.deepEqual(draw(), ["Pick", ...piList(items, 3, 60, 4), "hint"], "scrolled, with (5/5)");
  assert.ok(draw().some((l) => l.includes("(5/5)")));
  // The next frame, same items: the selection stays where the user moved it.
  w.sync(frame.blocks);
  assert.deepEqual(w.key("\r"), [{ control: "p", event: "chosen", index: 4, value: "v4" }]);
  assert.deepEqual(w.key("\x1b"), [{ control: "p", event: "cancelled" }]);
  // A filter: the index is still into all items.
  w.sync([select("p", 12, { filter: "v1" })]);
  assert.deepEqual(w.key(DOWN), [{ control: "p", event: "selectionChanged", index: 10, value: "v10" }]);
  // `selected` moves it when it changes; new items keep the row.
  w.sync([select("p", 12, { selected: 7 })]);
  assert.deepEqual(w.key("\r"), [{ control: "p", event: "chosen", index: 7, value: "v7" }]);
  w.sync([select("p", 9, { selected: 7 })]);
  assert.deepEqual(w.key("\r"), [{ control: "p", event: "chosen", index: 7, value: "v7" }]);
  // A frame without it drops it.
  w.sync([]);
  assert.equal(w.key(DOWN), undefined);
});

test("an unfocused control gets no keys; the first focused one does", () => {
  const w = new ControlSet(() => theme);
  w.sync([select("a", 2, { focused: false }), select("b", 2), select("c", 2)]);
  assert.deepEqual(w.key(DOWN), [{ control: "b", event: "selectionChanged", index: 1, value: "v1" }]);
  w.sync([select("a", 2, { focused: false })]);
  assert.equal(w.key(DOWN), undefined);
});

test("an input draws as pi-tui's, edits in the bridge, reports changes and submits, and leaves Tab to the component", () => {
  const w = new ControlSet(() => theme);
  w.sync([{ control: { id: "n", kind: "input", value: "pi", focused: true } }]);
  const own = /** @type {any} */ (new Input());
  own.setValue("pi");
  own.cursor = 2;
  own.focused = true;
  assert.deepEqual(w.render({ id: "n" }, 30, true), own.render(30), "the cursor marker while focused");
  own.focused = false;
  assert.deepEqual(w.render({ id: "n" }, 30, false), own.render(30));
  assert.deepEqual(w.key("!"), [{ control: "n", event: "changed", text: "pi!" }]);
  assert.deepEqual(w.key("\x1b[D"), [], "a cursor move changes nothing the component hears");
  assert.equal(w.key("\t"), undefined);
  assert.equal(w.key(UP), undefined);
  assert.deepEqual(w.key("\r"), [{ control: "n", event: "submitted", text: "pi!" }]);
  assert.deepEqual(w.key("\x1b"), [{ control: "n", event: "cancelled" }]);
  // The same value again keeps what was typed; a new one replaces it.
  w.sync([{ control: { id: "n", kind: "input", value: "pi", focused: true } }]);
  assert.deepEqual(w.key("?"), [{ control: "n", event: "changed", text: "pi?!" }], "typed at the cursor, moved left before");
  w.sync([{ control: { id: "n", kind: "input", value: "new", focused: true } }]);
  assert.deepEqual(w.key("?"), [{ control: "n", event: "changed", text: "new?" }]);
  // A paste past the limit is cut.
  const paste = `\x1b[200~${"x".repeat(MAX_INPUT + 50)}\x1b[201~`;
  const events = /** @type {any[]} */ (w.key(paste));
  assert.equal(events.at(-1).text.length, MAX_INPUT);
});

test("hostile specs are sanitized and bounded; plain lines stand in where there is no live control", () => {
  const items = Array.from({ length: MAX_SELECT_ITEMS + 7 }, (_, i) => ({
    value: `v${i}\x1b]52;c;eA==\x07`,
    label: "\x1b[2J" + "L".repeat(MAX_CONTROL_TEXT + 3),
    description: 5,
  }));
  const spec = /** @type {any} */ (controlSpec({ id: "x".repeat(100), kind: "select", items, maxVisible: 1e9, selected: -3 }));
  assert.equal(spec.items.length, MAX_SELECT_ITEMS);
  assert.equal(spec.items[0].value, "v0]52;c;eA==");
  assert.equal(spec.items[0].label.length, MAX_CONTROL_TEXT);
  assert.ok(!spec.items[0].label.includes("\x1b"));
  assert.equal(spec.items[0].description, undefined);
  assert.equal(spec.maxVisible, 100);
  assert.equal(spec.selected, undefined);
  assert.equal(spec.id.length, 64);
  assert.equal(controlSpec({ kind: "slider" }), undefined);
  assert.equal(controlSpec(null), undefined);
  const input = /** @type {any} */ (controlSpec({ id: "i", kind: "input", value: "a\x1b[31mb\x9bc" }));
  assert.equal(input.value, "a[31mbc");
  // At most MAX_CONTROLS controls live; a repeated id is the first one.
  const w = new ControlSet(() => theme);
  w.sync([...Array.from({ length: MAX_CONTROLS + 4 }, (_, i) => select(`w${i}`, 1)), select("w0", 3)]);
  assert.equal(w.live.size, MAX_CONTROLS);
  assert.deepEqual(w.render({ id: `w${MAX_CONTROLS}` }, 40, true), []);
  assert.equal(w.render({ id: "w0" }, 40, true).length, 1);
  assert.deepEqual(controlPlain(select("p", 4).control), ["  Item 0", "  Item 1", "  Item 2"]);
  assert.deepEqual(controlPlain({ id: "i", kind: "input", value: "hi" }), ["> hi"]);
  // Every line pi gets fits the width, even for a 1-column frame.
  const lines = renderView({ width: 1, blocks: [select("p", 3)] }, 1, theme, { control: (b, n) => w.render(b, n, true) });
  assert.ok(lines.every((l) => l.replace(/\x1b\[[0-9;]*m|<[a-z]+>/g, "").length <= 1), JSON.stringify(lines));
});

test("in a component: the control's keys go to it as ui/control, not ui/key; other keys still reach the extension", async () => {
  const h = await startBridge(manifestWith({}), { mode: "interactive" });
  const base = fakeCtx();
  const ui = /** @type {any} */ (base.ctx.ui);
  const tui = { terminal: { columns: 60, rows: 24 }, renders: 0, requestRender() { this.renders++; } };
  /** @type {any[]} */
  const shown = [];
  ui.theme = theme;
  ui.custom = (/** @type {any} */ factory) =>
    new Promise((resolve) => shown.push(factory(tui, theme, {}, resolve)));
  await h.startSession(base.ctx);
  const ext = h.ext();
  ext.request("ui/open", { component: 3, wantsKeyRelease: false });
  await until(() => shown.length === 1, "pi shows the component");
  const c = shown[0];
  ext.send({ method: "ui/frame", params: { component: 3, width: 60, styles: [], blocks: [{ text: [["Top"]], wrap: false }, select("p", 3)] } });
  await until(() => tui.renders === 1, "a repaint");
  assert.equal(c.render(60)[0], "Top");
  assert.equal(c.render(60).length, 4);
  c.handleInput(DOWN);
  await until(() => ext.sent("ui/control").length === 1, "the event");
  assert.deepEqual(ext.sent("ui/control")[0].params, { component: 3, seq: 1, control: "p", event: "selectionChanged", index: 1, value: "v1" });
  assert.equal(ext.sent("ui/key").length, 0, "the list's key is not sent as a key");
  assert.ok(c.render(60)[2].includes("Item 1") && c.render(60)[2].startsWith("<accent>"), "repainted at once, in the bridge");
  c.handleInput("q");
  await until(() => ext.sent("ui/key").length === 1, "the key");
  assert.equal(ext.sent("ui/key")[0].params.key, "q");
});

/** @param {string} id @param {string} markdown @param {object} [more] */
const panel = (id, markdown, more = {}) => ({ control: { id, kind: "markdown", markdown, ...more } });

/** Text without SGR sequences. @param {string} s */
const plain = (s) => s.replace(/\x1b\[[0-9;]*m/g, "");

const ANSWER = ["# Answer", "", "Some **bold** and `code`.", "", "- one", "- two", "", "```rust", "fn main() {}", "```", "", "The end."].join("\n");

test("a Markdown panel is pi-tui's Markdown with pi's theme, shown from its scroll offset for its height, and reports its line count", () => {
  /** @type {any[]} */
  const reported = [];
  const w = new ControlSet(() => theme, (events) => reported.push(...events));
  const own = new Markdown(ANSWER, 0, 0, markdownTheme(theme)).render(40);
  assert.ok(own.length > 8, own.join("\n"));
  w.sync([panel("a", ANSWER)]);
  assert.deepEqual(w.render({ id: "a" }, 40, true), own, "no height: all of it");
  assert.deepEqual(reported, [{ control: "a", event: "measured", lines: own.length }]);
  // The same count again is not reported again; another width's count is.
  w.render({ id: "a" }, 40, true);
  assert.equal(reported.length, 1);
  const narrow = new Markdown(ANSWER, 0, 0, markdownTheme(theme)).render(12);
  w.render({ id: "a" }, 12, true);
  assert.deepEqual(reported.at(-1), { control: "a", event: "measured", lines: narrow.length });
  // A window; an offset past the end shows the last rows.
  w.sync([panel("a", ANSWER, { height: 3, scroll: 2 })]);
  assert.deepEqual(w.render({ id: "a" }, 40, true), own.slice(2, 5));
  w.sync([panel("a", ANSWER, { height: 3, scroll: 999 })]);
  assert.deepEqual(w.render({ id: "a" }, 40, true), own.slice(-3));
  w.sync([panel("a", ANSWER, { height: 1000, scroll: 5 })]);
  assert.deepEqual(w.render({ id: "a" }, 40, true), own, "taller than the text: from the top");
  // In a frame, between text lines; it takes no keys (the component scrolls it).
  w.sync([{ text: [["Top"]], wrap: false }, panel("a", ANSWER, { height: 2 }), select("s", 3, { focused: false })]);
  const lines = renderView({ width: 40, blocks: [{ text: [["Top"]], wrap: false }, panel("a", ANSWER, { height: 2 })] }, 40, theme, {
    control: (b, n) => w.render(b, n, true),
  });
  assert.deepEqual(lines, ["Top", ...own.slice(0, 2)]);
  for (const key of ["\x1b[5~", "\x1b[6~", UP, DOWN, "\r", "\x1b", "q"]) assert.equal(w.key(key), undefined);
  // A new text is drawn anew and measured, even with as many rows; the plain lines are its source's, windowed.
  w.sync([panel("a", "## Other\n\ntext", { height: 5 })]);
  assert.match(plain(w.render({ id: "a" }, 40, true)[0]), /Other/);
  w.sync([panel("a", "## Same\n\ntext", { height: 5 })]);
  w.render({ id: "a" }, 40, true);
  assert.deepEqual(reported.slice(-2), [
    { control: "a", event: "measured", lines: 3 },
    { control: "a", event: "measured", lines: 3 },
  ]);
  assert.deepEqual(controlPlain(panel("a", ANSWER, { height: 2, scroll: 4 }).control), ["- one", "- two"]);
  // Padding is pi-tui's (summarize.ts's `new Markdown(summary, 1, 1, theme)`), and bounded.
  w.sync([panel("a", ANSWER, { paddingX: 1, paddingY: 1 })]);
  assert.deepEqual(w.render({ id: "a" }, 40, true), new Markdown(ANSWER, 1, 1, markdownTheme(theme)).render(40));
  w.sync([panel("a", ANSWER, { paddingX: 1e9, paddingY: -4 })]);
  assert.deepEqual(w.render({ id: "a" }, 60, true), new Markdown(ANSWER, 16, 0, markdownTheme(theme)).render(60));
});

test("a hostile Markdown panel draws bounded and sanitized: escapes dropped, huge text and code cut with a note, nesting held", () => {
  const w = new ControlSet(() => theme);
  const hostile = "# a\x1b[2Jb\n\n\x1b]52;c;aGk=\x07[l](https://e/\x1b]8;;x\x07) \u009b31m\n\n```\n\x1b[?1049h code\n```";
  w.sync([panel("h", hostile)]);
  const out = w.render({ id: "h" }, 60, true).join("\n");
  assert.doesNotMatch(out, /\x1b\[2J|\x1b\]52|\x1b\]8|\u009b|\x07|\x1b\[\?1049h/);
  assert.match(plain(out), /a\[2Jb/);
  const code = `\`\`\`\n${"x = 1\n".repeat(200_000)}\`\`\``;
  const nested = `${"- > ".repeat(5000)}deep`;
  const stars = "*a ".repeat(400_000);
  for (const text of [code, nested, stars, "\x00".repeat(1 << 20)]) {
    w.sync([panel("h", text, { height: 1e12, scroll: -5 })]);
    const lines = w.render({ id: "h" }, 60, true);
    assert.ok(lines.length <= MAX_MARKDOWN_LINES + 2, `${lines.length} lines`);
    if (text.length > MAX_MARKDOWN) assert.match(plain(lines.at(-1) ?? ""), /more bytes \(pi-ext caps a Markdown view at 4,096\)$/);
    for (const l of lines) assert.doesNotMatch(l.replace(/\x1b\[[0-9;]*m|<[a-zA-Z]+>/g, ""), /[\x00-\x08\x0b-\x1f\x7f\x9b]/);
  }
  const spec = /** @type {any} */ (controlSpec({ id: "h", kind: "markdown", markdown: 5, more: -3, height: 1e9, scroll: Infinity, focused: true, paddingX: "x", paddingY: NaN }));
  assert.deepEqual(spec, { id: "h", kind: "markdown", markdown: "", more: 0, height: MAX_PANEL_HEIGHT, scroll: 0, paddingX: 0, paddingY: 0, focused: false });
  const huge = /** @type {any} */ (controlSpec({ id: "h", kind: "markdown", markdown: "é".repeat(1 << 20), more: 5 }));
  assert.equal(Buffer.byteLength(huge.markdown), MAX_MARKDOWN);
  assert.equal(huge.more, 5 + 2 * (1 << 20) - MAX_MARKDOWN);
  const nan = /** @type {any} */ (controlSpec({ id: "h", kind: "markdown", markdown: "x", height: "a", scroll: -1 }));
  assert.equal(nan.height, undefined);
  assert.equal(nan.scroll, 0);
  assert.deepEqual(controlPlain({ id: "h", kind: "markdown", markdown: "a\x1b[31mb", more: 10 }), [
    "a[31mb",
    "… 10 more bytes (pi-ext caps a Markdown view at 4,096)",
  ]);
  // Every line fits the width, even a 1-column frame.
  w.sync([panel("h", ANSWER)]);
  const narrow = renderView({ width: 1, blocks: [panel("h", ANSWER)] }, 1, theme, { control: (b, n) => w.render(b, n, true) });
  assert.ok(narrow.every((l) => l.replace(/\x1b\[[0-9;]*m|<[a-zA-Z]+>/g, "").length <= 1), JSON.stringify(narrow));
});

test("in a component: a Markdown panel's line count goes to the extension as ui/control when drawn", async () => {
  const h = await startBridge(manifestWith({}), { mode: "interactive" });
  const base = fakeCtx();
  const ui = /** @type {any} */ (base.ctx.ui);
  const tui = { terminal: { columns: 60, rows: 24 }, renders: 0, requestRender() { this.renders++; } };
  /** @type {any[]} */
  const shown = [];
  ui.theme = theme;
  ui.custom = (/** @type {any} */ factory) =>
    new Promise((resolve) => shown.push(factory(tui, theme, {}, resolve)));
  await h.startSession(base.ctx);
  const ext = h.ext();
  ext.request("ui/open", { component: 4, wantsKeyRelease: false });
  await until(() => shown.length === 1, "pi shows the component");
  const c = shown[0];
  ext.send({ method: "ui/frame", params: { component: 4, width: 60, styles: [], blocks: [panel("md", "a\n\nb\n\nc", { height: 2, scroll: 1 })] } });
  await until(() => tui.renders === 1, "a repaint");
  const lines = c.render(60).map(plain);
  assert.deepEqual(lines.map((/** @type {string} */ l) => l.trimEnd()), ["", "b"]);
  await until(() => ext.sent("ui/control").length === 1, "the count");
  assert.deepEqual(ext.sent("ui/control")[0].params, { component: 4, seq: 0, control: "md", event: "measured", lines: 5 });
  c.handleInput("\x1b[6~");
  await until(() => ext.sent("ui/key").length === 1, "PageDown is the component's");
  assert.equal(ext.sent("ui/key")[0].params.key, "pageDown");
});
