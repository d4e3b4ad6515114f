// @ts-check
// The stand-ins of lib/off/ (an extension built without an optional part
// embeds them instead of the part's modules): each exports what the bridge's
// other modules import from the real module, nothing the real one lacks, and
// works for what the bridge does without the part (plain `ctx.ui` calls, a
// process that goes).
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";

import { TuiHost } from "../lib/off/tui.js";
import { userBashResult } from "../lib/off/builtin-tools.js";

const LIB = path.join(path.dirname(fileURLToPath(import.meta.url)), "../lib");
const OFF = path.join(LIB, "off");
const standIns = fs.readdirSync(OFF).filter((f) => f.endsWith(".js"));

/** `{ names } from "./file"` of every import line of `source`. @param {string} source */
function imports(source) {
  return [...source.matchAll(/^import \{([^}]*)\} from "\.{1,2}\/([^"]+)";$/gm)].map((m) => ({
    names: m[1].split(",").map((n) => n.trim()).filter(Boolean),
    file: m[2],
  }));
}

test("every stand-in replaces a module of lib/", () => {
  assert.ok(standIns.length >= 7, `stand-ins: ${standIns}`);
  for (const f of standIns) assert.ok(fs.existsSync(path.join(LIB, f)), `lib/off/${f} has no lib/${f}`);
});

test("each stand-in exports what the other modules import from the real one, and only what it exports", async () => {
  const modules = fs.readdirSync(LIB).filter((f) => f.endsWith(".js") && !standIns.includes(f));
  for (const f of standIns) {
    const off = Object.keys(await import(path.join(OFF, f))).sort();
    const real = Object.keys(await import(path.join(LIB, f)));
    for (const name of off) assert.ok(real.includes(name), `lib/off/${f} exports ${name}, which lib/${f} does not`);
    for (const m of modules) {
      for (const i of imports(fs.readFileSync(path.join(LIB, m), "utf8"))) {
        if (i.file !== f) continue;
        for (const name of i.names) assert.ok(off.includes(name), `lib/${m} imports ${name} from ./${f}, which lib/off/${f} lacks`);
      }
    }
  }
});

test("without the terminal UI, ctx.ui's calls reach pi sanitized and a process's statuses are cleared when it goes", () => {
  /** @type {unknown[][]} */
  const calls = [];
  const ui = new Proxy({}, { get: (_t, method) => (/** @type {unknown[]} */ ...args) => calls.push([method, ...args]) });
  const ctx = /** @type {any} */ ({ ui });
  const host = new TuiHost({});
  const child = {};
  host.uiCall(child, ctx, "notify", ["hi\u001b[2J there", "info"]);
  host.uiCall(child, ctx, "setStatus", ["k", "busy\u001b]0;x\u0007"]);
  host.uiCall({}, ctx, "setStatus", ["other", "kept"]);
  assert.deepEqual(calls, [
    ["notify", "hi[2J there", "info"],
    ["setStatus", "k", "busy]0;x"],
    ["setStatus", "other", "kept"],
  ]);
  assert.equal(host.handles("ui/key"), false);
  assert.deepEqual(host.toolRenderers({ name: "t" }), {});
  host.retire(child);
  assert.deepEqual(calls.at(-1), ["setStatus", "k", undefined]);
  assert.equal(calls.length, 4, "only the gone process's status is cleared");
});

test("without the built-in tools, a user_bash answer is its result only", () => {
  assert.deepEqual(userBashResult({ result: { output: "x" } }, {}, undefined), { result: { output: "x" } });
  assert.equal(userBashResult({ operations: { handle: 1 } }, {}, undefined), undefined);
  assert.equal(userBashResult(null, {}, undefined), undefined);
});
