// @ts-check
// The bridge's renderer: views and frames as lines pi paints, styles resolved
// with the theme at paint time, never a line wider than pi's width.
import assert from "node:assert/strict";
import { test } from "node:test";

import { CURSOR_MARKER, visibleWidth } from "@mariozechner/pi-tui";

import { colorAnsi, plainLines, renderView, sanitize, styledText, ViewComponent } from "../lib/tui-render.js";

/** A theme like pi's: tokens to escape sequences. @param {Record<string, number>} colors */
function theme(colors, mode = "truecolor") {
  return {
    /** @param {string} t */
    getFgAnsi: (t) => {
      if (!(t in colors)) throw new Error(`Unknown theme color: ${t}`);
      return `\x1b[38;5;${colors[t]}m`;
    },
    /** @param {string} t */
    getBgAnsi: (t) => {
      if (!(t in colors)) throw new Error(`Unknown theme background color: ${t}`);
      return `\x1b[48;5;${colors[t]}m`;
    },
    getColorMode: () => mode,
  };
}

/**
 * A view literal as the wire type (JSON tuples are arrays to TypeScript).
 * @param {unknown} v
 * @returns {import("../lib/tui-render.js").WireView}
 */
const wire = (v) => /** @type {any} */ (v);

/** Text without escape sequences (CURSOR_MARKER included). @param {string} s */
const plain = (s) => s.replace(/\x1b\[[0-9;]*m/g, "").replaceAll(CURSOR_MARKER, "");

test("tokens are resolved with the theme at paint time; invalidate repaints in a new theme", () => {
  let current = theme({ accent: 1 });
  const view = wire({ styles: [{ fg: "accent", bold: true }], blocks: [{ text: [[["hi", 0], " there"]], wrap: false }] });
  const c = new ViewComponent(() => current, view);
  const first = c.render(20);
  assert.equal(first[0], "\x1b[38;5;1m\x1b[1mhi\x1b[22m\x1b[39m there");
  assert.equal(c.render(20), first, "a repaint at the same width is the cached array");
  assert.equal(c.builds, 1);
  current = theme({ accent: 2 });
  assert.equal(c.render(20), first, "pi has not invalidated yet");
  c.invalidate(); // pi does this on every theme switch
  assert.match(c.render(20)[0], /\x1b\[38;5;2m/);
  assert.equal(c.builds, 2);
});

test("no line is ever wider than the width pi asks for, whatever the frame holds", () => {
  const wide = "中文日本語👨‍👩‍👧‍👦🇯🇵e\u0301x\ttab".repeat(20);
  const frame = wire({
    width: 300,
    styles: [{ fg: "#ff0000" }, { bg: 236, inverse: true }],
    blocks: [{ text: [[[wide, 0], [wide, 1]], ["plain ".repeat(100)], []], wrap: false }],
    cursor: { line: 0, col: 37 },
  });
  const view = wire({
    styles: [{ fg: "accent" }],
    blocks: [
      { text: [[[wide, 0]]], wrap: true },
      { box: { padX: 1, padY: 1, bg: "accent" }, blocks: [{ text: [[wide]], wrap: true }] },
      { line: { left: [[wide, 0]], right: ["right side"] } },
    ],
  });
  for (let width = 1; width <= 90; width++) {
    for (const v of [frame, view]) {
      const lines = renderView(v, width, theme({ accent: 3 }), { focused: true });
      assert.ok(lines.length > 0);
      for (const l of lines) assert.ok(visibleWidth(l) <= width, `width ${width}: ${JSON.stringify(l)} is ${visibleWidth(l)}`);
    }
  }
});

test("text from the extension cannot carry escape sequences", () => {
  assert.equal(sanitize("a\x1b[2Jb\x07c\u009bd\te"), "a[2Jbcd   e");
  const lines = renderView({ blocks: [{ text: [["\x1b]0;title\x07x", ["\x1b[31my", 9]]], wrap: false }] }, 20, undefined);
  assert.deepEqual(lines, ["]0;titlex[31my"]);
});

test("an unknown token or a malformed view paints plain text, never throws", () => {
  const t = theme({});
  assert.deepEqual(renderView({ styles: [{ fg: "noSuchToken", bg: "nope" }], blocks: [{ text: [[["x", 0]]], wrap: false }] }, 5, t), ["x"]);
  for (const bad of [undefined, null, 3, "x", { blocks: 5 }, { blocks: [null, 7, { text: 3 }, { box: 1 }] }]) {
    assert.deepEqual(renderView(/** @type {any} */ (bad), 10, t), []);
  }
  assert.deepEqual(new ViewComponent(() => t, /** @type {any} */ ({ blocks: [{ text: [[{}]] }] })).render(5), []);
});

test("raw colours follow the colour mode: 24-bit, or the nearest of 256", () => {
  assert.equal(colorAnsi("#8abeb7", false, theme({})), "\x1b[38;2;138;190;183m");
  assert.equal(colorAnsi("#8abeb7", true, theme({}, "256color")), "\x1b[48;5;109m");
  assert.equal(colorAnsi("#808080", false, theme({}, "256color")), "\x1b[38;5;244m", "a gray");
  assert.equal(colorAnsi(9, false, undefined), "\x1b[38;5;9m");
  assert.equal(colorAnsi(300, false, undefined), "");
});

test("blocks lay out as pi-tui's Text, Box and Spacer do", () => {
  const t = theme({ customMessageBg: 4 });
  const view = {
    blocks: [
      { spacer: 1 },
      { box: { padX: 1, padY: 1, bg: "customMessageBg" }, blocks: [{ text: [["one two three"]], wrap: true }] },
      { text: [[""], [" "]], wrap: true },
    ],
  };
  const lines = renderView(view, 9, t);
  assert.deepEqual(lines.map(plain), ["", "         ", " one two ", " three   ", "         "]);
  for (const l of lines.slice(1)) assert.ok(l.startsWith("\x1b[48;5;4m") && l.endsWith("\x1b[49m"), JSON.stringify(l));
  assert.deepEqual(plainLines(view), ["", "one two three", "", " "]);
});

test("a spread line puts left and right at the edges and cuts the right side first", () => {
  const view = { blocks: [{ line: { left: ["↑1 ↓2"], right: ["model (main)"] } }] };
  assert.deepEqual(renderView(view, 30, undefined), ["↑1 ↓2             model (main)"]);
  assert.deepEqual(renderView(view, 12, undefined).map(plain), ["↑1 ↓2 model "]);
});

test("a frame's cursor becomes CURSOR_MARKER, only while focused, before the right column", () => {
  const frame = wire({ width: 20, blocks: [{ text: [["ab"], ["中文", ["xyz", 0]]], wrap: false }], styles: [{ inverse: true }], cursor: { line: 1, col: 5 } });
  const focused = renderView(frame, 20, undefined, { focused: true });
  assert.equal(focused[0], "ab");
  const at = focused[1].indexOf(CURSOR_MARKER);
  assert.ok(at > 0);
  assert.equal(plain(focused[1].slice(0, at)), "中文x", "after 5 columns");
  assert.ok(!renderView(frame, 20, undefined)[1].includes(CURSOR_MARKER));
  const past = renderView({ ...frame, cursor: { line: 0, col: 4 } }, 20, undefined, { focused: true });
  assert.equal(past[0], `ab  ${CURSOR_MARKER}`);
});

test("styled text for pi's strings (status, notify) uses the theme when it is made", () => {
  const view = wire({ styles: [{ fg: "warning" }], blocks: [{ text: [[["● plan", 0], " mode"]], wrap: true }] });
  assert.equal(styledText(view, theme({ warning: 3 })), "\x1b[38;5;3m● plan\x1b[39m mode");
});
