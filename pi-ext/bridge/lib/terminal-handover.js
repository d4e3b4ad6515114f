// @ts-check
// `runOnTerminal`: pi lends its terminal to a program (an editor, a shell,
// `git rebase -i`) and takes it back, as pi's interactive-shell.ts does
// with `tui.stop()`, the program and `tui.start()`. The extension process
// has no terminal (its stdio is the protocol), so the bridge runs the program.
//
// Unlike the example's spawnSync, the program runs asynchronously: pi's
// event loop (and the extension's protocol) keep going, and a timeout can
// end a program that never exits. pi-tui's stop() pauses stdin, so pi reads
// none of the program's input. While it runs, Ctrl+C goes to the program
// (and to pi, which ignores it, as pi does while suspended with Ctrl+Z).
// Whatever happens, pi gets its terminal back: modes a crashed program left
// on are reset, and the user is told when it did not end by itself.

import { spawn as nodeSpawn, spawnSync as nodeSpawnSync } from "node:child_process";

import { sanitize } from "./sanitize.js";
import { messageOf } from "./protocol.js";

/** Sent before the program: clear the screen, as interactive-shell.ts does. */
export const CLEAR = "\x1b[2J\x1b[H";
/**
 * Sent after a program that crashed or was stopped: leave the alternate
 * screen, show the cursor, mouse reporting off, normal cursor keys and
 * keypad, attributes reset (pi-tui's start() sets its own modes again).
 */
export const RESET = "\x1b[?1049l\x1b[?25h\x1b[?1000l\x1b[?1002l\x1b[?1003l\x1b[?1006l\x1b[?1l\x1b>\x1b[0m";
/** How long a timed-out program has between SIGTERM and SIGKILL. */
export const KILL_GRACE_MS = 2000;

/**
 * @typedef {object} Program
 * @property {string} program the program, or with `shell` the command line
 * @property {string[]} args
 * @property {boolean} shell run `program` with `$SHELL -c` (else /bin/sh)
 * @property {string | undefined} cwd
 * @property {Record<string, string>} env added to pi's environment
 * @property {number | undefined} timeoutMs
 */

/**
 * How the program ended: `code` or `signal`; `timedOut` when the bridge
 * stopped it; `error` when it could not start.
 * @typedef {{ code: number | null, signal: string | null, timedOut: boolean, error: string | null }} Exit
 */

/**
 * What the handover needs of its surroundings (tests pass their own).
 * @typedef {object} Deps
 * @property {typeof nodeSpawn} spawn
 * @property {typeof nodeSpawnSync} spawnSync
 * @property {(text: string) => void} write pi's terminal
 * @property {NodeJS.Process} process for SIGINT and the environment
 * @property {boolean} isTTY whether stdin is a terminal (`stty sane` after a crash)
 */

/** @type {Deps} */
const NODE = {
  spawn: nodeSpawn,
  spawnSync: nodeSpawnSync,
  write: (text) => process.stdout.write(text),
  process,
  isTTY: Boolean(process.stdin.isTTY),
};

/**
 * The extension's request as a `Program`, with what is malformed named.
 * @param {unknown} raw
 * @returns {Program}
 */
export function program(raw) {
  const p = /** @type {Record<string, unknown>} */ (raw ?? {});
  if (typeof p.program !== "string" || p.program === "") throw new Error("runOnTerminal needs a program");
  const args = Array.isArray(p.args) ? p.args.map(String) : [];
  /** @type {Record<string, string>} */
  const env = {};
  for (const [k, v] of Object.entries(/** @type {object} */ (p.env ?? {}))) env[k] = String(v);
  const t = p.timeoutMs;
  return {
    program: p.program,
    args,
    shell: p.shell === true,
    cwd: typeof p.cwd === "string" ? p.cwd : undefined,
    env,
    timeoutMs: typeof t === "number" && Number.isFinite(t) && t > 0 ? t : undefined,
  };
}

/**
 * A sentence for the user about a program that did not end by itself, or
 * `undefined` when it did (with any exit code).
 * @param {Program} p
 * @param {Exit} exit
 */
export function whatHappened(p, exit) {
  // The extension's text: shown without control characters, as every string it sends.
  const name = sanitize(p.shell ? p.program.trim().split(/\s+/)[0] : p.program);
  if (exit.error) return `could not run ${name} on the terminal: ${sanitize(exit.error)}`;
  if (exit.timedOut) return `${name} ran longer than ${Math.round((p.timeoutMs ?? 0) / 100) / 10} s and was stopped; pi has the terminal back`;
  if (exit.signal) return `${name} was killed by ${exit.signal}; pi has the terminal back`;
  return undefined;
}

/**
 * Run the program on pi's terminal, inside `ui.custom` (which gives pi-tui's
 * `tui`), and resolve with how it ended once pi has the terminal back.
 * @param {{ custom: (factory: any) => Promise<unknown>, notify: (message: string, level: string) => void }} ui
 * @param {Program} p
 * @param {Partial<Deps>} [deps]
 * @returns {Promise<Exit>}
 */
export async function runOnTerminal(ui, p, deps = {}) {
  const d = { ...NODE, ...deps };
  const exit = /** @type {Exit} */ (
    await ui.custom((/** @type {any} */ tui, /** @type {unknown} */ _theme, /** @type {unknown} */ _keys, /** @type {(v: Exit) => void} */ done) => {
      void hand(tui, p, d).then(done);
      return { render: () => [], invalidate: () => {} };
    })
  );
  const told = whatHappened(p, exit);
  if (told) ui.notify(told, exit.error ? "error" : "warning");
  return exit;
}

/**
 * Stop the TUI, run the program, start the TUI again: never leaves pi's
 * terminal stopped, whatever the program does.
 * @param {any} tui
 * @param {Program} p
 * @param {Deps} d
 * @returns {Promise<Exit>}
 */
async function hand(tui, p, d) {
  const ignoreSigint = () => {};
  d.process.on("SIGINT", ignoreSigint);
  tui.stop();
  /** @type {Exit} */
  let exit = { code: null, signal: null, timedOut: false, error: null };
  try {
    d.write(CLEAR);
    exit = await run(p, d);
  } catch (e) {
    exit = { ...exit, error: messageOf(e) };
  } finally {
    if (exit.signal || exit.timedOut) {
      d.write(RESET);
      // The program may have left the line discipline raw or without echo.
      if (d.isTTY) d.spawnSync("stty", ["sane"], { stdio: "inherit", timeout: 2000 });
    }
    d.process.removeListener("SIGINT", ignoreSigint);
    tui.start();
    tui.requestRender(true);
  }
  return exit;
}

/**
 * @param {Program} p
 * @param {Deps} d
 * @returns {Promise<Exit>}
 */
function run(p, d) {
  const env = { ...d.process.env, ...p.env };
  const [command, args] = p.shell ? [env.SHELL || "/bin/sh", ["-c", p.program]] : [p.program, p.args];
  return new Promise((resolve) => {
    let timedOut = false;
    /** @type {NodeJS.Timeout | undefined} */
    let term;
    /** @type {NodeJS.Timeout | undefined} */
    let kill;
    const child = d.spawn(command, args, { stdio: "inherit", cwd: p.cwd, env });
    const finish = (/** @type {Exit} */ exit) => {
      clearTimeout(term);
      clearTimeout(kill);
      resolve(exit);
    };
    child.once("error", (e) =>
      finish({ code: null, signal: null, timedOut, error: /** @type {any} */ (e).code === "ENOENT" ? `no program ${command}` : e.message }),
    );
    child.once("exit", (code, signal) => finish({ code, signal, timedOut, error: null }));
    if (p.timeoutMs !== undefined) {
      term = setTimeout(() => {
        timedOut = true;
        child.kill("SIGTERM");
        kill = setTimeout(() => child.kill("SIGKILL"), KILL_GRACE_MS);
      }, p.timeoutMs);
    }
  });
}
