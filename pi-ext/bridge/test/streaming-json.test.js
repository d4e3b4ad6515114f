// @ts-check
// Streamed tool-call JSON read once: after every piece, the partial value is
// what pi-ai's parseStreamingJson makes of the text so far.
import assert from "node:assert/strict";
import { test } from "node:test";

import { parseStreamingJson } from "@mariozechner/pi-ai";

import { StreamingJson } from "../lib/streaming-json.js";

const TEXTS = [
  "{}",
  ' { "path" : "a.txt" , "offset" : 10, "limit":-2.5e+3 } ',
  '{"a":[1,[2,{"b":null}],[],{}],"c":{"d":{"e":[true,false]}},"f":"g"}',
  '{"s":"quote \\" backslash \\\\ slash \\/ \\b\\f\\n\\r\\t unicode \\u00e9 \\ud83d\\ude00 end","n":0}',
  '{"dup":1,"dup":2}',
  '{"content":"' + "line of a file\\n".repeat(40) + '","path":"big.txt"}',
];

/**
 * Every cut of `text` into pieces of `size` characters.
 * @param {string} text
 * @param {number} size
 */
const pieces = (text, size) => Array.from({ length: Math.ceil(text.length / size) }, (_, i) => text.slice(i * size, (i + 1) * size));

test("after every piece the view is pi-ai's partial parse of the text so far; at the end it is JSON.parse's", () => {
  for (const text of TEXTS) {
    for (const size of [1, 2, 3, 7, text.length]) {
      const json = new StreamingJson();
      let sofar = "";
      for (const piece of pieces(text, size)) {
        json.push(piece);
        sofar += piece;
        // pi-ai's differs on a number being read (`-2.` is -2 here) and
        // trims a string being read (`"a ` is "a " here).
        if (!/[-+.eE0-9\s]$/.test(sofar)) assert.deepEqual(json.value, parseStreamingJson(sofar), `${JSON.stringify(sofar)} in pieces of ${size}`);
      }
      assert.deepEqual(json.value, JSON.parse(text), text);
      assert.equal(json.broken, false, text);
      assert.equal(json.scanned, text.length, "each character read once");
    }
  }
  // What pi-ai repairs (an unknown escape, a raw control character) is read as it reads it.
  const lenient = '{"odd":"bad \\q escape","raw":"tab\there"}';
  const json = new StreamingJson();
  for (const piece of pieces(lenient, 3)) json.push(piece);
  assert.deepEqual(json.value, parseStreamingJson(lenient));
  assert.deepEqual(json.value, { odd: "bad \\q escape", raw: "tab\there" });
  // A `__proto__` key is an own property, as JSON.parse makes it (pi-ai's sets the prototype).
  const proto = new StreamingJson();
  const text = '{"__proto__":{"polluted":1},"x":[{"__proto__":2}]}';
  for (const piece of pieces(text, 4)) proto.push(piece);
  assert.deepEqual(proto.value, JSON.parse(text));
  assert.equal(Object.getPrototypeOf(proto.value), Object.prototype);
  assert.equal(/** @type {any} */ (proto.value).polluted, undefined);
});

test("text that is not JSON breaks the view where it goes wrong and keeps what came before", () => {
  for (const [text, kept] of [
    ['{"a":1,"b":tru}', { a: 1, b: true }],
    ['{"a":1}{"b":2}', { a: 1 }],
    ['{"a":[1}', { a: [1] }],
    ['{"a" 1}', {}],
    ['{"a":01}', { a: 0 }],
    ["[1,2]", {}],
  ]) {
    const json = new StreamingJson();
    for (const piece of pieces(/** @type {string} */ (text), 2)) json.push(piece);
    assert.equal(json.broken, /** @type {string} */ (text) !== "[1,2]", /** @type {string} */ (text));
    assert.deepEqual(json.value, kept, /** @type {string} */ (text));
  }
});

test("a 200 kB call in 100-byte pieces is read once: 200 kB scanned, not the 200 MB re-parsing each piece costs", () => {
  const content = "x".repeat(200_000);
  const text = JSON.stringify({ path: "big.txt", content });
  const json = new StreamingJson();
  let grew = 0;
  let last = -1;
  for (const piece of pieces(text, 100)) {
    json.push(piece);
    const shown = /** @type {string | undefined} */ (json.value.content)?.length ?? 0;
    if (shown > last) grew++;
    last = shown;
  }
  assert.equal(json.scanned, text.length);
  assert.ok(grew > 1900, `the partial content grew at ${grew} of ${Math.ceil(text.length / 100)} pieces`);
  assert.deepEqual(json.value, { path: "big.txt", content });
});
