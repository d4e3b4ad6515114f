// @ts-check
import assert from "node:assert/strict";
import { test } from "node:test";

import { assignOwnKeys, EncodeError, jsonText } from "../lib/json.js";

test("plain data is written as JSON.stringify writes it", () => {
  const value = { a: [1, "two", null], b: { c: true } };
  assert.equal(jsonText(value, "x"), JSON.stringify(value));
  assert.equal(jsonText(undefined, "x"), undefined);
});

test("functions, AbortSignals and cycles are left out; shared objects are kept", () => {
  /** @type {any} */
  const event = { name: "e", fn: () => 1, signal: new AbortController().signal };
  event.self = event;
  const shared = { n: 1 };
  event.list = [shared, shared];
  assert.deepEqual(JSON.parse(jsonText(event, "the event") ?? "null"), { name: "e", list: [{ n: 1 }, { n: 1 }] });
});

test("a BigInt is an error that names what was being sent (defect 12)", () => {
  assert.throws(
    () => jsonText({ args: { n: 10n } }, "the arguments of tool `x`"),
    (err) => err instanceof EncodeError && /cannot send the arguments of tool `x`: `n` is a BigInt/.test(err.message),
  );
});

test("nesting too deep for JSON.stringify is an error, not a silent null (defect 12)", () => {
  /** @type {unknown} */
  let deep = [];
  for (let i = 0; i < 200_000; i++) deep = [deep];
  assert.throws(
    () => jsonText({ deep }, "the tool_call event"),
    (err) => err instanceof EncodeError && /cannot send the tool_call event: it is nested too deeply/.test(err.message),
  );
});

test("assignOwnKeys skips __proto__, constructor and prototype (defect 20)", () => {
  /** @type {Record<string, unknown>} */
  const target = {};
  const source = JSON.parse('{"__proto__":{"polluted":true},"constructor":{"x":1},"prototype":2,"path":"a.txt"}');
  assignOwnKeys(target, source);
  assert.deepEqual(Object.keys(target), ["path"]);
  assert.equal(Object.getPrototypeOf(target), Object.prototype);
  assert.equal(/** @type {any} */ (target).polluted, undefined);
  assert.equal(/** @type {any} */ ({}).polluted, undefined);
});

test("the old Object.assign would have set the prototype: the case above is real", () => {
  const source = JSON.parse('{"__proto__":{"polluted":true}}');
  const target = Object.assign({}, source);
  assert.equal(/** @type {any} */ (target).polluted, true);
});
