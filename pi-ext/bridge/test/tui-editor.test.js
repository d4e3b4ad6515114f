// @ts-check
// The table-driven editor: keys decided per mode, labels on the border.
import assert from "node:assert/strict";
import { test } from "node:test";

import { applyActions, decorate, editorActions } from "../lib/tui-editor.js";

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
