// @ts-check
// sessions.js against pi's own SessionManager: another session file read
// without a write, and the errors a bad path gets.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";

import { MAX_SESSION_FILE_BYTES, openSession } from "../lib/sessions.js";
import { treeOptions } from "../lib/api.js";
import { tempDir } from "./helpers.js";

const pi = /** @type {any} */ (await import("@mariozechner/pi-coding-agent"));

const header = { type: "session", version: 3, id: "s-1", timestamp: "2026-12-01T00:00:00.000Z", cwd: "/work/p" };
/** @param {string} id @param {string | null} parent @param {string} text */
const user = (id, parent, text) => ({
  type: "message",
  id,
  parentId: parent,
  timestamp: "2026-12-01T00:00:01.000Z",
  message: { role: "user", content: text, timestamp: 1 },
});

test("a session file is read with its header, entries, leaf and name, and not written", () => {
  const dir = tempDir("pi-ext-sessions-");
  const file = join(dir, "s.jsonl");
  const lines = [
    header,
    user("a", null, "first"),
    "{ not json",
    user("b", "a", "second"),
    { type: "session_info", id: "n", parentId: "b", timestamp: "t", name: " review " },
  ];
  writeFileSync(file, lines.map((l) => (typeof l === "string" ? l : JSON.stringify(l))).join("\n") + "\n");
  const before = statSync(file).mtimeMs;
  const text = readFileSync(file, "utf8");
  const s = openSession(pi, file);
  assert.equal(s.header.id, "s-1");
  assert.equal(s.header.cwd, "/work/p");
  assert.deepEqual(
    s.entries.map((/** @type {any} */ e) => e.id),
    ["a", "b", "n"],
  );
  assert.equal(s.leafId, "n");
  assert.equal(s.name, "review");
  assert.equal(readFileSync(file, "utf8"), text);
  assert.equal(statSync(file).mtimeMs, before);
});

test("a missing, empty, foreign or huge file gets an error naming it, and an empty one stays empty", () => {
  const dir = tempDir("pi-ext-sessions-");
  assert.throws(() => openSession(pi, join(dir, "none.jsonl")), /no session file at .*none\.jsonl/);
  assert.throws(() => openSession(pi, dir), /is not a file/);
  assert.throws(() => openSession(pi, ""), /path is needed/);
  const empty = join(dir, "empty.jsonl");
  writeFileSync(empty, "");
  assert.throws(() => openSession(pi, empty), /is not a pi session/);
  assert.equal(readFileSync(empty, "utf8"), "");
  const foreign = join(dir, "x.jsonl");
  writeFileSync(foreign, '{"hello": 1}\n');
  assert.throws(() => openSession(pi, foreign), /is not a pi session/);
  const huge = join(dir, "huge.jsonl");
  writeFileSync(huge, JSON.stringify(header) + "\n" + " ".repeat(MAX_SESSION_FILE_BYTES));
  assert.throws(() => openSession(pi, huge), /32\.0 MiB: a session file is read whole up to 32 MiB/);
});

test("navigateTree's options pass pi's four keys, typed, and a label without control characters", () => {
  assert.deepEqual(treeOptions(undefined), {});
  assert.deepEqual(
    treeOptions({ summarize: true, customInstructions: "x", replaceInstructions: false, label: "a\x1b[31mb", extra: 1 }),
    { summarize: true, customInstructions: "x", replaceInstructions: false, label: "a[31mb" },
  );
  assert.deepEqual(treeOptions({ summarize: "yes", label: 3 }), {});
});
