// @ts-check
// PROTOCOL.md's table of error codes must be the bridge's `codes`, and say
// "bridge" for exactly the codes the bridge sends.
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { test } from "node:test";

import { codes } from "../lib/protocol.js";

const bridge = new URL("..", import.meta.url);

/** The rows of PROTOCOL.md's error code table: name → {code, sentBy}. */
function documented() {
  const doc = readFileSync(new URL("../PROTOCOL.md", bridge), "utf8");
  /** @type {Map<string, { code: number, sentBy: string }>} */
  const rows = new Map();
  for (const m of doc.matchAll(/^\| `(-\d+)` \| `([A-Z_]+)` \| (\w+) \| (.*) \|$/gm)) {
    assert.ok(m[4].trim() !== "", `${m[2]} has no meaning in PROTOCOL.md`);
    assert.ok(!rows.has(m[2]), `${m[2]} is in PROTOCOL.md twice`);
    rows.set(m[2], { code: Number(m[1]), sentBy: m[3] });
  }
  return rows;
}

/** The codes the bridge's own code answers with (not those it only compares with). */
function sentByTheBridge() {
  const files = [new URL("index.js", bridge)];
  for (const f of readdirSync(new URL("lib/", bridge))) if (f.endsWith(".js")) files.push(new URL(`lib/${f}`, bridge));
  const sent = new Set();
  for (const file of files) {
    const text = readFileSync(file, "utf8");
    for (const m of text.matchAll(/(===?|!==?)?\s*\bcodes\.([A-Z_]+)/g)) if (!m[1]) sent.add(m[2]);
  }
  return sent;
}

test("PROTOCOL.md lists every code of lib/protocol.js with its number and meaning", () => {
  const rows = documented();
  const doc = Object.fromEntries([...rows].map(([name, row]) => [name, row.code]));
  assert.deepEqual(doc, { ...codes });
  for (const [name, row] of rows) assert.ok(["bridge", "extension", "both"].includes(row.sentBy), `${name}: sent by ${row.sentBy}?`);
});

test("PROTOCOL.md says which codes the bridge sends: exactly those its code answers with", () => {
  const sent = sentByTheBridge();
  for (const name of sent) assert.ok(name in codes, `the bridge sends codes.${name}, which protocol.js lacks`);
  const said = [...documented()].filter(([, row]) => row.sentBy !== "extension").map(([name]) => name);
  assert.deepEqual(said.sort(), [...sent].sort());
});
