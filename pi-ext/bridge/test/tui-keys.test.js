// @ts-check
// Keys as pi-tui names them, and the bytes of key names.
import assert from "node:assert/strict";
import { test } from "node:test";

import { matchesKey } from "@mariozechner/pi-tui";

import { decodeKey, keyBytes } from "../lib/tui-keys.js";

test("input is named as parseKey names it, with the other names matchesKey accepts", () => {
  assert.deepEqual(decodeKey("\r"), { key: "enter", aliases: ["ctrl+m"], text: undefined, kind: "press" });
  assert.equal(decodeKey("\x1b[A").key, "up");
  assert.equal(decodeKey("\x1b").key, "escape");
  const upper = decodeKey("A");
  assert.equal(upper.key, "A");
  assert.ok(upper.aliases.includes("shift+a"));
  assert.equal(upper.text, "A");
  assert.equal(decodeKey("é").text, "é");
  assert.equal(decodeKey("\x03").key, "ctrl+c");
  assert.equal(decodeKey("\x03").text, undefined);
  assert.equal(decodeKey("\x1b[200~pasted\x1b[201~").text, undefined);
  assert.equal(decodeKey("x"), decodeKey("x"), "decoded once, then from the cache");
});

test("every name matchesKey accepts for common inputs is the key or an alias", () => {
  const ids = ["enter", "escape", "tab", "backspace", "up", "down", "left", "right", "home", "end", "ctrl+c", "ctrl+m", "ctrl+h", "ctrl+[", "shift+tab", "alt+b", "alt+left", "delete", "space", "a", "shift+a"];
  for (const data of ["\r", "\x1b", "\t", "\x7f", "\b", "\x1b[A", "\x1b[H", "\x1b[1~", "\x1bOH", "\x1b[Z", "\x1bb", "\x1b[3~", " ", "a", "A", "\x03"]) {
    const { key, aliases } = decodeKey(data);
    for (const id of ids) {
      if (matchesKey(data, /** @type {any} */ (id))) assert.ok(id === key || aliases.includes(id), `${JSON.stringify(data)}: ${id} not in ${key} ${aliases}`);
    }
  }
});

test("key names become the bytes pi's editor reads back as them", () => {
  for (const name of ["left", "right", "up", "down", "delete", "ctrl+a", "ctrl+e", "enter", "home", "end", "backspace", "tab"]) {
    const bytes = keyBytes(name);
    assert.ok(bytes !== undefined, name);
    assert.ok(matchesKey(/** @type {string} */ (bytes), /** @type {any} */ (name)), `${name} → ${JSON.stringify(bytes)}`);
  }
  assert.equal(keyBytes("x"), "x");
  assert.equal(keyBytes("no-such-key"), undefined);
});
