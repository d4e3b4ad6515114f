// @ts-check
// Terminal queries (`ui/query-terminal`): only known queries are written,
// only their replies are taken from pi's input, in order, and an
// unanswered one ends at its timeout.
import assert from "node:assert/strict";
import { test } from "node:test";

import { TerminalQueries, terminalQuery } from "../lib/tui-query.js";
import { FakeClock } from "./helpers.js";

test("the bridge builds the queries it knows and refuses any other", () => {
  assert.equal(terminalQuery({ kind: "osc", code: 11 }).send, "\x1b]11;?\x07");
  assert.equal(terminalQuery({ kind: "palette", index: 3 }).send, "\x1b]4;3;?\x07");
  assert.equal(terminalQuery({ kind: "csi", query: "16t" }).send, "\x1b[16t");
  assert.equal(terminalQuery({ kind: "csi", query: "?2026$p" }).send, "\x1b[?2026$p");
  const bg = terminalQuery({ kind: "osc", code: 11 }).reply;
  assert.ok(bg.test("\x1b]11;rgb:0000/ffff/8080\x07") && bg.test("\x1b]11;rgb:00/ff/80\x1b\\"));
  assert.ok(!bg.test("\x1b]10;rgb:0000/ffff/8080\x07") && !bg.test("x\x1b]11;rgb:0/0/0\x07"));
  assert.ok(terminalQuery({ kind: "csi", query: "16t" }).reply.test("\x1b[6;18;9t"));
  assert.ok(!terminalQuery({ kind: "csi", query: "16t" }).reply.test("\x1b[4;18;9t"));
  for (const bad of [
    { kind: "osc", code: 52 },
    { kind: "osc", code: "11" },
    { kind: "palette", index: 256 },
    { kind: "csi", query: "2J" },
    { kind: "csi", query: "?1049h" },
    { kind: "raw", query: "\x1b]52;c;?\x07" },
    null,
  ]) {
    assert.throws(() => terminalQuery(bad), /OSC colour|palette|knows no terminal query/, JSON.stringify(bad));
  }
});

test("replies go to the oldest query of their shape, everything else goes on, and an unanswered one times out", async () => {
  const clock = new FakeClock();
  const queries = new TerminalQueries(clock);
  /** @type {string[]} */
  const written = [];
  /** @type {((data: string) => { consume?: boolean } | undefined) | undefined} */
  let listener;
  let listens = 0;
  const io = {
    write: (/** @type {string} */ s) => void written.push(s),
    listen: (/** @type {(data: string) => { consume?: boolean } | undefined} */ h) => {
      listens += 1;
      listener = h;
      return () => {
        listener = undefined;
      };
    },
  };
  const bg = terminalQuery({ kind: "osc", code: 11 });
  const first = queries.ask(bg, 1000, io);
  const second = queries.ask(bg, 1000, io);
  const cell = queries.ask(terminalQuery({ kind: "csi", query: "16t" }), 500, io);
  assert.equal(listens, 1, "one listener for all");
  assert.deepEqual(written, ["\x1b]11;?\x07", "\x1b]11;?\x07", "\x1b[16t"]);
  const input = (/** @type {string} */ d) => listener?.(d);
  assert.equal(input("x"), undefined, "a key goes on");
  assert.equal(input("\x1b[A"), undefined, "an arrow goes on");
  assert.deepEqual(input("\x1b]11;rgb:1/2/3\x07"), { consume: true });
  assert.deepEqual(input("\x1b]11;rgb:4/5/6\x1b\\"), { consume: true });
  assert.equal(await first, "\x1b]11;rgb:1/2/3\x07");
  assert.equal(await second, "\x1b]11;rgb:4/5/6\x1b\\");
  assert.equal(input("\x1b]11;rgb:7/8/9\x07"), undefined, "no query waits for it: it goes on");
  await clock.advance(500);
  assert.equal(await cell, null, "timed out");
  assert.equal(listener, undefined, "the listener goes when none waits");
  // A failing write: no reply, at once.
  const failing = queries.ask(bg, 1000, { ...io, write: () => { throw new Error("stopped"); } });
  assert.equal(await failing, null);
  // pi's session ends: what waits ends unanswered.
  const pending = queries.ask(bg, 1000, io);
  queries.stop();
  assert.equal(await pending, null);
  assert.equal(listener, undefined);
});
