// @ts-check
// The table-driven editor: keys decided per mode, labels on the border.
import assert from "node:assert/strict";
import { test } from "node:test";

import { applyActions, decorate, editorActions, rustEditorClass } from "../lib/tui-editor.js";

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
