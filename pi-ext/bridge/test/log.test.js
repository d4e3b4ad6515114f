// @ts-check
import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { test } from "node:test";

import { Log } from "../lib/log.js";
import { tempDir } from "./helpers.js";

test("the log is created private (0600) at its first line, not before", () => {
  const file = path.join(tempDir(), "sub", "x.log");
  const log = new Log(file, { maxBytes: 1000 });
  assert.equal(fs.existsSync(file), false);
  log.line("info", "hello");
  assert.equal(fs.statSync(file).mode & 0o777, 0o600);
  assert.match(fs.readFileSync(file, "utf8"), /\[bridge info\] hello\n$/);
  log.close();
});

test("a log an older bridge left readable by others is made private", () => {
  const file = path.join(tempDir(), "x.log");
  fs.writeFileSync(file, "old\n", { mode: 0o644 });
  fs.chmodSync(file, 0o644);
  const log = new Log(file, { maxBytes: 1000 });
  log.write("new");
  assert.equal(fs.statSync(file).mode & 0o777, 0o600);
  assert.equal(fs.readFileSync(file, "utf8"), "old\nnew\n");
  log.close();
});

test("the log is rotated before it would pass the limit; one old file is kept (defect 15)", () => {
  const dir = tempDir();
  const file = path.join(dir, "x.log");
  const log = new Log(file, { maxBytes: 100 });
  const line = `${"a".repeat(39)}\n`; // 40 bytes
  for (let i = 0; i < 10; i++) log.write(line);
  // 10 lines of 40 bytes: files of 2 lines each (80 ≤ 100 < 120); the last two files are left.
  assert.equal(fs.readFileSync(file, "utf8"), line.repeat(2));
  assert.equal(fs.readFileSync(`${file}.1`, "utf8"), line.repeat(2));
  assert.deepEqual(fs.readdirSync(dir).sort(), ["x.log", "x.log.1"]);
  assert.equal(fs.statSync(`${file}.1`).mode & 0o777, 0o600);
  // The size is counted from what is there at the first write.
  log.close();
  const again = new Log(file, { maxBytes: 100 });
  again.write(line); // 80 + 40 > 100: rotated first
  assert.equal(fs.readFileSync(file, "utf8"), line);
  again.close();
});

test("a log that cannot be opened is off, and writing to it is harmless", () => {
  const dir = tempDir();
  fs.writeFileSync(path.join(dir, "file"), "");
  const log = new Log(path.join(dir, "file", "x.log"), { maxBytes: 100 });
  log.write("lost");
  log.write("lost");
  assert.equal(log.broken, true);
});
