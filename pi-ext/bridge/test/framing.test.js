// @ts-check
import assert from "node:assert/strict";
import { test } from "node:test";

import { LineSplitter, oversize } from "../lib/framing.js";

/** @param {number} max */
function splitter(max = 1024) {
  /** @type {string[]} */
  const lines = [];
  /** @type {Array<{ head: string, bytes: number }>} */
  const dropped = [];
  const s = new LineSplitter(max, {
    onLine: (text) => lines.push(text),
    onOverlong: (head, bytes) => dropped.push({ head, bytes }),
  });
  return { s, lines, dropped };
}

test("lines split on \\n only: U+2028 and U+2029 inside a line stay in it", () => {
  const { s, lines } = splitter();
  const text = JSON.stringify({ text: "a\u2028b\u2029c" }).replace(/\\u2028/g, "\u2028").replace(/\\u2029/g, "\u2029");
  assert.ok(text.includes("\u2028"), "the raw separator is in the line");
  s.push(Buffer.from(`${text}\n{"id":2}\n`));
  assert.deepEqual(lines, [text, `{"id":2}`]);
  assert.equal(JSON.parse(lines[0]).text, "a\u2028b\u2029c");
});

test("a line in many chunks, and many lines in one chunk, come out whole and in order", () => {
  const { s, lines } = splitter();
  const bytes = Buffer.from('{"id":1,"result":"héllo"}\n{"id":2}\n{"id":3,"result":"wörld"}\n');
  // Every split point, including inside a multi-byte character.
  for (let cut = 1; cut < bytes.length; cut++) {
    lines.length = 0;
    s.push(bytes.subarray(0, cut));
    s.push(bytes.subarray(cut));
    assert.deepEqual(lines, ['{"id":1,"result":"héllo"}', '{"id":2}', '{"id":3,"result":"wörld"}'], `cut at ${cut}`);
  }
  lines.length = 0;
  for (const byte of bytes) s.push(Buffer.from([byte]));
  assert.equal(lines.length, 3);
});

test("a trailing \\r is ignored (\\r\\n line ends)", () => {
  const { s, lines } = splitter();
  s.push(Buffer.from('{"id":1}\r\n{"id":2}\r'));
  s.push(Buffer.from("\n"));
  assert.deepEqual(lines, ['{"id":1}', '{"id":2}']);
});

test("an over-long line is dropped without being buffered, with its start and size; the next line is read", () => {
  const { s, lines, dropped } = splitter(100);
  s.push(Buffer.from('{"id":7,"result":"'));
  for (let i = 0; i < 50; i++) {
    s.push(Buffer.alloc(1000, 0x61));
    // Nothing of it is kept beyond its first bytes.
    assert.equal(s.pieces.length, 0);
  }
  s.push(Buffer.from('"}\n{"id":8}\n'));
  assert.deepEqual(lines, ['{"id":8}']);
  assert.equal(dropped.length, 1);
  assert.equal(dropped[0].bytes, 18 + 50_000 + 2);
  assert.ok(dropped[0].head.startsWith('{"id":7,"result":"aaa'), dropped[0].head);
  assert.equal(dropped[0].head.length, 64);
});

test("a line of exactly the limit is read; one byte more is not", () => {
  const { s, lines, dropped } = splitter(10);
  s.push(Buffer.from('"12345678"\n"123456789"\n'));
  assert.deepEqual(lines, ['"12345678"']);
  assert.equal(dropped[0].bytes, 11);
});

test("oversize counts UTF-8 bytes only when it must", () => {
  assert.equal(oversize("abc", 9), 0);
  assert.equal(oversize("ééééé", 9), 10); // 5 characters, 10 bytes
  assert.equal(oversize("éééé", 9), 0);
  assert.equal(oversize("a".repeat(20), 9), 20);
});
