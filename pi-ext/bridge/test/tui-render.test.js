// @ts-check
// The bridge's renderer: views and frames as lines pi paints, styles resolved
// with the theme at paint time, never a line wider than pi's width.
import assert from "node:assert/strict";
import { test } from "node:test";

import { CURSOR_MARKER, truncateToWidth, visibleWidth, wrapTextWithAnsi } from "@mariozechner/pi-tui";

import {
  colorAnsi,
  DEPTH_NOTE,
  MAX_DEPTH,
  MAX_LINES,
  plainLines,
  renderView,
  styledText,
  ViewComponent,
} from "../lib/tui-render.js";
import { sanitize } from "../lib/sanitize.js";

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

test("a spread line puts left and right at the edges and cuts the right side first, with pi-tui's ...", () => {
  const view = { blocks: [{ line: { left: ["↑1 ↓2"], right: ["model (main)"] } }] };
  assert.deepEqual(renderView(view, 30, undefined), ["↑1 ↓2             model (main)"]);
  // custom-footer.ts: truncateToWidth(left + pad + right, width).
  assert.deepEqual(renderView(view, 12, undefined), [truncateToWidth("↑1 ↓2 model (main)", 12)]);
  assert.deepEqual(renderView(view, 12, undefined).map(plain), ["↑1 ↓2 mod..."]);
});

test("centred lines and rules are laid out at the width as tic-tac-toe.ts draws them, styled, and as text without one", () => {
  const t = theme({ dim: 8, accent: 4 });
  const view = wire({
    styles: [{ fg: "dim" }, { fg: "accent", bold: true }],
    blocks: [{ center: [["X wins", 1]] }, { rule: { fill: [["─", 0]], title: [[" Tic-Tac-Toe ", 1]] } }, { rule: { fill: [["─", 0]] } }],
  });
  const dim = (/** @type {string} */ s) => `\x1b[38;5;8m${s}\x1b[39m`;
  const lines = renderView(view, 20, t);
  // centerPad(content, width) and the banner of tic-tac-toe.ts, with the theme's colours.
  assert.deepEqual(lines.map(plain), ["       X wins       ", "─── Tic-Tac-Toe ────", "────────────────────"]);
  assert.ok(lines[1].startsWith(dim("───")), JSON.stringify(lines[1]));
  assert.ok(lines[2] === dim("─".repeat(20)), JSON.stringify(lines[2]));
  assert.ok(lines.every((l) => visibleWidth(l) === 20));
  assert.deepEqual(plainLines(view), ["X wins", "── Tic-Tac-Toe ──", "───"]);
});

test("a frame line wider than the width ends in pi-tui's ..., as truncateToWidth cuts it", () => {
  const frame = wire({ width: 40, styles: [{ fg: "accent" }], blocks: [{ text: [["  ", ["○ #1 a todo with a long text", 0]], ["fits"]], wrap: false }] });
  const lines = renderView(frame, 20, theme({ accent: 5 }));
  assert.deepEqual(lines, [truncateToWidth("  \x1b[38;5;5m○ #1 a todo with a long text\x1b[39m", 20), "fits"]);
  assert.equal(plain(lines[0]), "  ○ #1 a todo wit...");
});

test("a 100,000-line frame paints 2,000 lines, the last saying how many more", () => {
  const lines = Array.from({ length: 100_000 }, (_, i) => [String(i)]);
  const frame = new ViewComponent(() => undefined, wire({ width: 80, blocks: [{ text: lines, wrap: false }] }));
  const painted = frame.render(80);
  assert.equal(painted.length, MAX_LINES);
  assert.equal(painted[MAX_LINES - 2], "1998");
  assert.equal(painted[MAX_LINES - 1], "\x1b[2m… 98,001 more lines (pi-ext caps a frame at 2,000)\x1b[22m");
  // A view: counted across blocks, in painted lines (a wrapped line counts as what it wraps to).
  const long = "word ".repeat(60_000);
  const wrapped = 500 + wrapTextWithAnsi(long, 100).length;
  assert.ok(wrapped > MAX_LINES);
  const view = wire({ blocks: [{ spacer: 500 }, { text: [[long]], wrap: true }] });
  const viewLines = renderView(view, 100, undefined);
  assert.equal(viewLines.length, MAX_LINES);
  const more = (wrapped - (MAX_LINES - 1)).toLocaleString("en-US");
  assert.equal(plain(viewLines[MAX_LINES - 1]), `… ${more} more lines (pi-ext caps a view at 2,000)`);
  // The runtime's own cut (1,999 lines and its note) passes as it is.
  const runtime = [...lines.slice(0, MAX_LINES - 1), [["… 98,001 more lines (pi-ext caps a frame at 2,000)", 0]]];
  const passed = renderView(wire({ width: 80, styles: [{ dim: true }], blocks: [{ text: runtime, wrap: false }] }), 80, undefined);
  assert.equal(passed.length, MAX_LINES);
  assert.equal(plain(passed[MAX_LINES - 1]), "… 98,001 more lines (pi-ext caps a frame at 2,000)");
  // pi's own rendering of a slot (`builtin`) is not held to pi-ext's limit.
  const own = Array.from({ length: 3000 }, (_, i) => `pi ${i}`);
  const builtin = renderView(wire({ blocks: [{ builtin: true }, { text: [["mine"]], wrap: false }] }), 80, undefined, { builtin: () => own });
  assert.deepEqual(builtin, [...own, "mine"]);
  // Plain and styled text (RPC widgets, statuses) hold to it too.
  const plainView = wire({ blocks: [{ text: lines }] });
  const plainOut = plainLines(plainView);
  assert.equal(plainOut.length, MAX_LINES);
  assert.equal(plainOut[MAX_LINES - 1], "… 98,001 more lines (pi-ext caps a view at 2,000)");
  assert.equal(styledText(plainView, undefined).split("\n").length, MAX_LINES);
});

test("boxes nested 5,000 deep paint down to the limit and then a note, not nothing", () => {
  /** @type {any} */
  let block = { text: [["deep"]], wrap: true };
  for (let i = 0; i < 5000; i++) block = { box: { padX: 0, padY: 0 }, blocks: [block] };
  const view = wire({ blocks: [block] });
  assert.deepEqual(new ViewComponent(() => undefined, view).render(80).map((l) => plain(l).trimEnd()), [DEPTH_NOTE]);
  assert.deepEqual(plainLines(view), [DEPTH_NOTE]);
  assert.equal(plain(styledText(view, undefined)), DEPTH_NOTE);
  // At the limit, the content shows.
  /** @type {any} */
  let shallow = { text: [["deep"]], wrap: true };
  for (let i = 0; i < MAX_DEPTH; i++) shallow = { box: { padX: 0, padY: 0 }, blocks: [shallow] };
  assert.deepEqual(renderView(wire({ blocks: [shallow] }), 10, undefined), ["deep      "]);
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
