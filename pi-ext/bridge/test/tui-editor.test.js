// @ts-check
// The table-driven editor: keys decided per mode, labels on the border.
import assert from "node:assert/strict";
import { test } from "node:test";

import { applyActions, decorate, editorActions, highlight, highlightsOf, rustEditorClass } from "../lib/tui-editor.js";

const spec = {
  mode: "insert",
  styles: [{ bold: true }],
  modes: {
    insert: { keys: { Esc: [{ mode: "normal" }] }, otherwise: /** @type {const} */ ("pass"), decor: { bottomRight: [" INSERT "] } },
    normal: {
      keys: { i: [{ mode: "insert" }], a: [{ mode: "insert" }, { send: "right" }], x: [{ send: "delete" }], "ctrl+w": ["swallow"] },
      otherwise: /** @type {const} */ ("swallowText"),
      decor: { bottomRight: [[" NORMAL ", 0]] },
    },
  },
};

/** Run `data` through the table in `mode`: what pi's editor got, and the mode after. */
function run(/** @type {string} */ mode, /** @type {string} */ data) {
  /** @type {string[]} */
  const passed = [];
  let now = mode;
  applyActions(editorActions(/** @type {any} */ (spec), mode, data), data, { pass: (d) => passed.push(d), setMode: (m) => (now = m) });
  return { passed, mode: now };
}

test("keys do what the mode's table says, with pi's editor getting the rest", () => {
  assert.deepEqual(run("insert", "h"), { passed: ["h"], mode: "insert" });
  assert.deepEqual(run("insert", "\x1b"), { passed: [], mode: "normal" }, "Esc is escape");
  assert.deepEqual(run("normal", "a"), { passed: ["\x1b[C"], mode: "insert" });
  assert.deepEqual(run("normal", "x"), { passed: ["\x1b[3~"], mode: "normal" });
  assert.deepEqual(run("normal", "q"), { passed: [], mode: "normal" }, "text is swallowed");
  assert.deepEqual(run("normal", "\x03"), { passed: ["\x03"], mode: "normal" }, "ctrl+c is pi's");
  assert.deepEqual(run("normal", "\x17"), { passed: [], mode: "normal" }, "ctrl+w swallowed");
  assert.deepEqual(run("nope", "z"), { passed: ["z"], mode: "nope" }, "an unknown mode passes everything");
});

test("the mode's label replaces the end of the bottom border, never past the width", () => {
  const lines = ["─".repeat(20), "text", "─".repeat(20)];
  const out = decorate([...lines], 20, /** @type {any} */ (spec), "normal", undefined);
  assert.equal(out[2].replace(/\x1b\[[0-9;]*m/g, ""), `${"─".repeat(12)} NORMAL `);
  assert.equal(out[0], lines[0]);
  assert.deepEqual(decorate(["──"], 2, /** @type {any} */ (spec), "insert", undefined), ["──"], "no room: unchanged");
});

test("left labels redraw the border as ─left───right─ in the border's colour, cutting the right label first", () => {
  const labels = {
    styles: [],
    modes: { m: { decor: { topLeft: [" ⠋ "], bottomLeft: [" fake/model · off "], bottomRight: [" ctx ? · ~/p "] } } },
  };
  const border = (/** @type {string} */ t) => `<${t}>`;
  const plain = (/** @type {string} */ t) => t.replace(/<|>/g, "").replace(/\x1b\[[0-9;]*m/g, "");
  const out = decorate(["─".repeat(40), "text", "─".repeat(40)], 40, /** @type {any} */ (labels), "m", undefined, border);
  assert.equal(out[0], `<─> ⠋ <${"─".repeat(35)}><─>`);
  assert.equal(plain(out[2]), `─ fake/model · off ${"─".repeat(7)} ctx ? · ~/p ─`);
  // Narrow: the right label goes first, then the left, a gap of three kept.
  const narrow = decorate(["─".repeat(24), "t", "─".repeat(24)], 24, /** @type {any} */ (labels), "m", undefined, border);
  assert.equal(plain(narrow[2]), `─ fake/model · off ─── ─`);
  const tiny = decorate(["─".repeat(8), "t", "─".repeat(8)], 8, /** @type {any} */ (labels), "m", undefined, border);
  assert.equal(plain(tiny[2]), `─ fa────`);
  assert.deepEqual(decorate(["x"], 1, /** @type {any} */ (labels), "m", undefined, border), ["<─>"]);
});

test("a spec's paddingX is pi-tui's option when the editor is made, and set again with a new spec", () => {
  /** @type {any[]} */
  const made = [];
  class FakeCustomEditor {
    /** @param {any} _tui @param {any} _theme @param {any} _kb @param {any} [options] */
    constructor(_tui, _theme, _kb, options) {
      made.push(options);
      /** @type {number[]} */
      this.paddings = [];
    }
    /** @param {number} p */
    setPaddingX(p) {
      this.paddings.push(p);
    }
  }
  const RustEditor = rustEditorClass(FakeCustomEditor);
  const o = { getTheme: () => undefined, onDispose: () => {} };
  const editor = /** @type {any} */ (new RustEditor({}, {}, {}, { ...o, spec: { paddingX: 0, modes: {} } }));
  new RustEditor({}, {}, {}, { ...o, spec: { modes: {} } });
  new RustEditor({}, {}, {}, { ...o, spec: /** @type {any} */ ({ paddingX: "wide", modes: {} }) });
  assert.deepEqual(made, [{ paddingX: 0 }, undefined, undefined]);
  editor.setSpec({ paddingX: 2, modes: {} });
  editor.setSpec({ modes: {} });
  assert.deepEqual(editor.paddings, [2]);
});

test("a highlight colours its word as rainbow-editor.ts does, byte for byte, with the shine where the frame puts it", () => {
  // rainbow-editor.ts's own colorize, for the expected bytes.
  const COLORS = /** @type {[number, number, number][]} */ ([
    [233, 137, 115],
    [228, 186, 103],
    [141, 192, 122],
  ]);
  /** @param {string} text @param {number} shinePos */
  const original = (text, shinePos) =>
    [...text]
      .map((c, i) => {
        const base = COLORS[i % COLORS.length];
        let factor = 0;
        if (shinePos >= 0) {
          const dist = Math.abs(i - shinePos);
          if (dist === 0) factor = 0.7;
          else if (dist === 1) factor = 0.35;
        }
        const [r, g, b] = base.map((c) => Math.round(c + (255 - c) * factor));
        return `\x1b[38;2;${r};${g};${b}m${c}`;
      })
      .join("") + "\x1b[0m";
  const hs = highlightsOf({
    highlights: [{ word: "ultrathink", ignoreCase: true, colors: COLORS, shine: { everyMs: 60, steps: 10, pause: 10, falloff: [0.7, 0.35] } }],
  });
  const line = "│ say UltraThink and ultrathink │";
  for (const frame of [0, 3, 9, 10, 19, 20, 23]) {
    const cycle = frame % 20;
    const pos = cycle < 10 ? cycle : -1;
    const want = line.replace(/ultrathink/gi, (m) => original(m, pos));
    assert.deepEqual(highlight([line, "no match"], hs, frame), [want, "no match"], `frame ${frame}`);
  }
  assert.deepEqual(highlight([line], [], 3), [line], "no highlights: the lines as they were");
});

test("highlights are literal, bounded, and dropped when they cannot match or have no colours", () => {
  const hs = highlightsOf(/** @type {any} */ ({
    highlights: [
      { word: "a.c(", colors: [[1, 2, 3]] },
      { word: "", colors: [[1, 2, 3]] },
      { word: "x\x1b[31m", colors: [[1, 2, 3]] },
      { word: "nocolour", colors: [] },
      { word: "w", colors: [[999, -5, 1.5]], shine: { everyMs: 0, steps: 1e9, pause: -3, falloff: [2, -1, "x"] } },
      ...Array.from({ length: 40 }, () => ({ word: "many", colors: [[0, 0, 0]] })),
    ],
  }));
  assert.equal(hs.length, 16 - 3, "at most 16 looked at, three dropped");
  assert.deepEqual(highlight(["abc( a.c("], [hs[0]], 0), ["abc( \x1b[38;2;1;2;3ma\x1b[38;2;1;2;3m.\x1b[38;2;1;2;3mc\x1b[38;2;1;2;3m(\x1b[0m"], "a dot is a dot");
  assert.deepEqual(hs[1].colors, [[255, 0, 1]]);
  assert.deepEqual(hs[1].shine, { everyMs: 16, steps: 1000, pause: 0, falloff: [1, 0, 0] });
  assert.deepEqual(highlightsOf(/** @type {any} */ ({ highlights: "nope" })), []);
  assert.deepEqual(highlightsOf(undefined), []);
});

test("the editor animates only while a shining word is in its text, and stops when it is disposed", () => {
  /** @type {string[]} */
  let typed = [];
  class FakeEditor {
    constructor(/** @type {any} */ tui) {
      this.tui = tui;
    }
    getText() {
      return typed.join("");
    }
    handleInput(/** @type {string} */ d) {
      typed.push(d);
    }
    render() {
      return [this.getText()];
    }
    dispose() {}
  }
  let renders = 0;
  const Editor = rustEditorClass(FakeEditor);
  const shine = { everyMs: 60, steps: 2, pause: 0, falloff: [1] };
  const ed = new Editor({ requestRender: () => renders++ }, {}, {}, {
    spec: { highlights: [{ word: "go", colors: [[0, 0, 0]], shine }] },
    getTheme: () => undefined,
    onDispose: () => {},
  });
  ed.handleInput("g");
  assert.equal(ed.shineTimer, undefined, "no word yet: no timer");
  ed.handleInput("o");
  assert.notEqual(ed.shineTimer, undefined, "the word typed: a timer");
  typed = ["g"];
  ed.handleInput("");
  typed = ["g"];
  assert.equal(ed.shineTimer, undefined, "the word gone: the timer stopped");
  ed.handleInput("o");
  assert.notEqual(ed.shineTimer, undefined);
  ed.dispose();
  assert.equal(ed.shineTimer, undefined, "disposed: the timer stopped");
  assert.equal(renders, 0, "no frame requested in this synchronous test");
});

test("a highlight colours text only, never inside the escape sequences pi's editor draws", () => {
  const [h] = highlightsOf({ highlights: [{ word: "2", colors: [[1, 2, 3]] }] });
  const link = "\x1b]8;;http://x/2\x07";
  const line = `\x1b[2mdim\x1b[22m a2 ${link}l2\x1b]8;;\x07\x1b_pi:c\x07`;
  const out = highlight([line], [h], 0)[0];
  const two = "\x1b[38;2;1;2;3m2\x1b[0m";
  assert.equal(out, `\x1b[2mdim\x1b[22m a${two} ${link}l${two}\x1b]8;;\x07\x1b_pi:c\x07`);
});
