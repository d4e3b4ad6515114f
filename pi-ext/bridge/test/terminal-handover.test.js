// @ts-check
// terminal-handover.js with real programs (node itself) and a fake pi-tui:
// pi's terminal is stopped, lent and always started again; a program that
// crashes, never exits or does not exist is reported to the user.
import { test } from "node:test";
import assert from "node:assert/strict";

import { spawn } from "node:child_process";

import { CLEAR, RESET, program, runOnTerminal, whatHappened } from "../lib/terminal-handover.js";

/** A fake `ctx.ui` whose `custom` runs the factory with a recording `tui`. */
function fakeUi() {
  /** @type {string[]} */
  const log = [];
  const tui = {
    stop: () => log.push("stop"),
    start: () => log.push("start"),
    requestRender: (/** @type {boolean} */ full) => log.push(`render ${full}`),
  };
  const ui = {
    custom: (/** @type {any} */ factory) =>
      new Promise((resolve) => {
        const component = factory(tui, {}, {}, resolve);
        assert.deepEqual(component.render(80), []);
      }),
    notify: (/** @type {string} */ message, /** @type {string} */ level) => log.push(`notify ${level}: ${message}`),
  };
  return { ui, log };
}

/** Deps that record what is written and spawn with stdio ignored (the test has no terminal). */
function deps() {
  /** @type {string[]} */
  const written = [];
  return {
    written,
    d: {
      write: (/** @type {string} */ t) => void written.push(t),
      isTTY: false,
      spawn: /** @type {any} */ (
        (/** @type {string} */ cmd, /** @type {string[]} */ args, /** @type {any} */ o) => spawn(cmd, args, { ...o, stdio: "ignore" })
      ),
    },
  };
}

const node = process.execPath;

test("a program that ends by itself: its exit code, pi's terminal stopped, cleared and started again, nobody told", async () => {
  const { ui, log } = fakeUi();
  const { d, written } = deps();
  const exit = await runOnTerminal(ui, program({ program: node, args: ["-e", "process.exit(3)"] }), d);
  assert.deepEqual(exit, { code: 3, signal: null, timedOut: false, error: null });
  assert.deepEqual(log, ["stop", "start", "render true"]);
  assert.deepEqual(written, [CLEAR]);
});

test("a program that crashes: its signal, the terminal's modes reset, the user told", async () => {
  const { ui, log } = fakeUi();
  const { d, written } = deps();
  const exit = await runOnTerminal(ui, program({ program: node, args: ["-e", "process.kill(process.pid, 'SIGSEGV')"] }), d);
  assert.equal(exit.signal, "SIGSEGV");
  assert.deepEqual(written, [CLEAR, RESET]);
  assert.deepEqual(log.slice(0, 3), ["stop", "start", "render true"]);
  assert.match(log[3], /^notify warning: .*node was killed by SIGSEGV; pi has the terminal back$/);
});

test("a program that never exits is stopped at its timeout, and pi gets the terminal back", async () => {
  const { ui, log } = fakeUi();
  const { d } = deps();
  const p = program({ program: node, args: ["-e", "setInterval(() => {}, 1000)"], timeoutMs: 50 });
  const exit = await runOnTerminal(ui, p, d);
  assert.equal(exit.timedOut, true);
  assert.equal(exit.signal, "SIGTERM");
  assert.deepEqual(log.slice(0, 3), ["stop", "start", "render true"]);
  assert.match(log[3], /ran longer than 0\.1 s and was stopped/);
});

test("a program that does not exist: an error for the user, the terminal back", async () => {
  const { ui, log } = fakeUi();
  const { d } = deps();
  const exit = await runOnTerminal(ui, program({ program: "/no/such/program-x" }), d);
  assert.equal(exit.error, "no program /no/such/program-x");
  assert.deepEqual(log, ["stop", "start", "render true", "notify error: could not run /no/such/program-x on the terminal: no program /no/such/program-x"]);
});

test("a shell command runs with $SHELL -c, with the extension's environment added", async () => {
  const { ui } = fakeUi();
  const { d } = deps();
  const exit = await runOnTerminal(
    ui,
    program({ program: 'test "$HANDOVER_X" = yes && exit 7', shell: true, env: { HANDOVER_X: "yes" } }),
    { ...d, process: /** @type {any} */ (Object.assign(Object.create(process), { env: { ...process.env, SHELL: "/bin/sh" } })) },
  );
  assert.equal(exit.code, 7);
});

test("malformed requests are named; the sentence for a clean exit is none", () => {
  assert.throws(() => program({}), /needs a program/);
  assert.throws(() => program({ program: "" }), /needs a program/);
  const p = program({ program: "vim", args: [1, "x"], timeoutMs: -5, env: { A: 1 } });
  assert.deepEqual(p, { program: "vim", args: ["1", "x"], shell: false, cwd: undefined, env: { A: "1" }, timeoutMs: undefined });
  assert.equal(whatHappened(p, { code: 1, signal: null, timedOut: false, error: null }), undefined);
  // The program's name is the extension's text: no escape reaches pi's notification.
  const hostile = program({ program: "vim\x1b]52;c;eA==\x07" });
  assert.equal(
    whatHappened(hostile, { code: null, signal: "SIGSEGV", timedOut: false, error: null }),
    "vim]52;c;eA== was killed by SIGSEGV; pi has the terminal back",
  );
});
