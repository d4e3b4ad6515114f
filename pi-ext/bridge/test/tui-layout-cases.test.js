// @ts-check
// The bridge's layout held to layout-cases.json, which the Rust test kit's
// `Snapshot` is held to as well: the two lay views out alike.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";

import { renderView } from "../lib/tui-render.js";

/** @type {{ cases: Array<{ name: string, width: number, view: any, lines: string[] }> }} */
const { cases } = JSON.parse(readFileSync(new URL("./layout-cases.json", import.meta.url), "utf8"));

/** A theme that knows every token (the colours do not matter here). */
const theme = { getFgAnsi: () => "\x1b[38;5;1m", getBgAnsi: () => "\x1b[48;5;2m", getColorMode: () => "256color" };

/** @param {string} line without escape sequences, trailing spaces trimmed */
const plain = (line) => line.replace(/\x1b\[[0-9;]*m/g, "").replace(/\x1b\]8;;[^\x07]*\x07/g, "").trimEnd();

test("the cases are there", () => assert.ok(cases.length >= 8));

for (const c of cases) {
  test(`layout: ${c.name}`, () => {
    assert.deepEqual(renderView(c.view, c.width, theme).map(plain), c.lines);
  });
}
