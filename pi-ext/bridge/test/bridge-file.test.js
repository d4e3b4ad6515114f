// @ts-check
// The shared bridge's file loads with a code cache of its own: made after
// the first start, used by the next, never with another file's content, and
// a directory it cannot write to only means no cache.
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { test } from "node:test";

import { loadBridgeFile } from "../lib/bridge-file.js";
import { tempDir } from "./helpers.js";

/** A directory with a bridge.cjs whose function, once called, says `word`. @param {string} word */
function bridgeDir(word) {
  const dir = tempDir("pi-ext-bridge-file-");
  fs.writeFileSync(
    path.join(dir, "bridge.cjs"),
    `"use strict";\nmodule.exports = (function made(p) {\n  const { join } = require("node:path");\n  function said() { return ${JSON.stringify(word)} + join("a", "b"); }\n  return { bridge: { said } };\n});\n`,
  );
  return dir;
}

/** @param {string} dir */
const caches = (dir) => fs.readdirSync(dir).filter((f) => f.endsWith(".v8cache")).sort();

/**
 * `loadBridgeFile(dir, id)` in a new Node process (V8 keeps what it compiled
 * in a process, so only a new one reads the cache file), then `save()`.
 * @param {string} dir
 * @param {string} id
 * @returns {{ cached: boolean, said: string }}
 */
function loadInChild(dir, id) {
  const script = `
    import { loadBridgeFile } from ${JSON.stringify(new URL("../lib/bridge-file.js", import.meta.url).href)};
    const file = loadBridgeFile(${JSON.stringify(dir)}, ${JSON.stringify(id)});
    const said = file.exports(null).bridge.said();
    file.save();
    console.log(JSON.stringify({ cached: file.cached, said }));`;
  return JSON.parse(execFileSync(process.execPath, ["--input-type=module", "-e", script], { encoding: "utf8" }));
}

test("the first load makes a code cache once the bridge ran; the next process uses it", () => {
  const dir = bridgeDir("hello");
  const first = loadBridgeFile(dir, "0a1b");
  assert.equal(first.cached, false);
  const made = /** @type {(p: unknown) => { bridge: { said: () => string } }} */ (first.exports);
  assert.equal(made(null).bridge.said(), `hello${path.join("a", "b")}`, "require reaches Node's modules");
  assert.deepEqual(caches(dir), [], "nothing is written before save");
  first.save();
  assert.deepEqual(caches(dir), ["bridge-0a1b.v8cache"]);
  const written = fs.statSync(path.join(dir, "bridge-0a1b.v8cache")).mtimeMs;
  assert.deepEqual(loadInChild(dir, "0a1b"), { cached: true, said: `hello${path.join("a", "b")}` });
  assert.equal(fs.statSync(path.join(dir, "bridge-0a1b.v8cache")).mtimeMs, written, "a cache that was used is not written again");
});

test("a cache is only used with the content it was made from, and a bad one is replaced", () => {
  const dir = bridgeDir("one");
  loadBridgeFile(dir, "1111").save();
  // Another content of the same length: V8 alone would take the old cache.
  fs.writeFileSync(path.join(dir, "bridge.cjs"), fs.readFileSync(path.join(dir, "bridge.cjs"), "utf8").replace('"one"', '"two"'));
  assert.deepEqual(loadInChild(dir, "2222"), { cached: false, said: `two${path.join("a", "b")}` });
  assert.deepEqual(caches(dir), ["bridge-1111.v8cache", "bridge-2222.v8cache"]);
  fs.writeFileSync(path.join(dir, "bridge-2222.v8cache"), "not a code cache");
  assert.deepEqual(loadInChild(dir, "2222"), { cached: false, said: `two${path.join("a", "b")}` }, "V8 rejects it");
  assert.notEqual(fs.readFileSync(path.join(dir, "bridge-2222.v8cache"), "utf8"), "not a code cache", "replaced");
  assert.equal(loadInChild(dir, "2222").cached, true, "by a good one");
});

test("no id (the sources) or one that is not a content id: required as any file, no cache", () => {
  const dir = bridgeDir("plain");
  for (const id of [null, "../x", ""]) {
    const file = loadBridgeFile(dir, id);
    assert.equal(file.cached, false);
    file.save();
    assert.deepEqual(caches(dir), []);
    assert.equal(typeof file.exports, "function");
  }
});

test("a cache it cannot write: save does nothing, throws nothing and leaves no temporary file", () => {
  const dir = bridgeDir("stuck");
  const file = loadBridgeFile(dir, "abcd");
  // Where the cache goes is a directory with a file in it: the rename fails, even for root.
  fs.mkdirSync(path.join(dir, "bridge-abcd.v8cache"));
  fs.writeFileSync(path.join(dir, "bridge-abcd.v8cache", "x"), "");
  file.save();
  assert.deepEqual(fs.readdirSync(dir).sort(), ["bridge-abcd.v8cache", "bridge.cjs"]);
  assert.ok(fs.statSync(path.join(dir, "bridge-abcd.v8cache")).isDirectory());
});
