// @ts-check
// Test doubles for the bridge: a clock the test drives, a scripted
// extension process over in-memory streams, and a fake pi.

import { EventEmitter } from "node:events";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { PassThrough } from "node:stream";
import { fileURLToPath } from "node:url";

import { DialogQueue } from "../lib/dialogs.js";
import { activate } from "../lib/main.js";

/** Let pending I/O callbacks and promise chains run. */
export async function settle() {
  for (let i = 0; i < 10; i++) await new Promise((resolve) => setImmediate(resolve));
}

/**
 * Wait until `check` is true: a few event-loop turns, then polls, for at
 * most 20 s (a real process on a busy machine may be slow to answer).
 * @param {() => boolean} check
 * @param {string} what
 */
export async function until(check, what) {
  for (let i = 0; i < 100; i++) {
    if (check()) return;
    await new Promise((resolve) => setImmediate(resolve));
  }
  const deadline = Date.now() + 20_000;
  while (Date.now() < deadline) {
    if (check()) return;
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  throw new Error(`never happened: ${what}`);
}

/** @typedef {import("../lib/clock.js").Clock} Clock */

/**
 * A clock whose time moves only when the test says so.
 * @implements {Clock}
 */
export class FakeClock {
  constructor() {
    this.t = 0;
    this.seq = 0;
    /** @type {Array<{ at: number, seq: number, fn: () => void }>} */
    this.timers = [];
  }
  now() {
    return this.t;
  }
  /** @param {() => void} fn @param {number} ms */
  setTimeout(fn, ms) {
    const timer = { at: this.t + Math.max(0, ms), seq: this.seq++, fn };
    this.timers.push(timer);
    return timer;
  }
  /** @param {unknown} handle */
  clearTimeout(handle) {
    const i = this.timers.indexOf(/** @type {any} */ (handle));
    if (i !== -1) this.timers.splice(i, 1);
  }
  /**
   * Move time on by `ms`, running the timers that come due in order, with
   * I/O and promises settling between them.
   * @param {number} ms
   */
  async advance(ms) {
    const end = this.t + ms;
    for (;;) {
      await settle();
      const due = this.timers.filter((t) => t.at <= end).sort((a, b) => a.at - b.at || a.seq - b.seq)[0];
      if (!due) break;
      this.timers.splice(this.timers.indexOf(due), 1);
      this.t = due.at;
      due.fn();
    }
    this.t = end;
    await settle();
  }
}

/** A handler's return value that means "do not answer (yet)". */
export const NO_ANSWER = Symbol("no answer");

/**
 * @typedef {{ id?: number | null, method?: string, params?: any, result?: any, error?: any }} Msg
 * @typedef {(params: any, msg: Msg, ext: FakeExtension) => unknown} Handler
 */

/** A scripted extension process: the other end of the bridge's pipes. */
export class FakeExtension {
  /** @param {object} manifest */
  constructor(manifest) {
    this.manifest = manifest;
    this.stdin = new PassThrough();
    this.stdout = new PassThrough();
    this.stderr = new PassThrough();
    this.emitter = new EventEmitter();
    /** @type {Msg[]} every message the bridge sent */
    this.received = [];
    /** @type {string[]} every line the bridge sent, as written */
    this.lines = [];
    /** @type {Map<string, Handler>} */
    this.handlers = new Map([
      ["initialize", () => ({ protocol: 2, sdk: "0.1.0", manifest: this.manifest })],
      ["ping", () => ({})],
    ]);
    /** @type {Map<number, (msg: Msg) => void>} the extension's own requests */
    this.waiting = new Map();
    this.nextId = 1;
    this.exited = false;
    /** @type {string | undefined} */
    this.killedWith = undefined;
    /** A stopped process (SIGSTOP) reads nothing. */
    this.stopped = false;
    /** @type {string[]} */
    this.backlog = [];
    let buffer = "";
    this.stdin.on("data", (chunk) => {
      buffer += chunk.toString("utf8");
      let nl;
      while ((nl = buffer.indexOf("\n")) !== -1) {
        const line = buffer.slice(0, nl);
        buffer = buffer.slice(nl + 1);
        if (this.stopped) this.backlog.push(line);
        else this.read(line);
      }
    });
    this.stdin.on("end", () => this.exit(0));
  }

  /** @param {string} line @private */
  read(line) {
    this.lines.push(line);
    /** @type {Msg} */
    const msg = JSON.parse(line);
    this.received.push(msg);
    if (msg.method === "shutdown") return this.exit(0);
    if (msg.method !== undefined && msg.id !== undefined) {
      const handler = this.handlers.get(msg.method);
      if (!handler) return this.send({ id: msg.id, error: { code: -32601, message: `unknown method \`${msg.method}\`` } });
      let out;
      try {
        out = handler(msg.params, msg, this);
      } catch (err) {
        return this.send({ id: msg.id, error: /** @type {any} */ (err) });
      }
      if (out === NO_ANSWER) return;
      Promise.resolve(out).then(
        (result) => result !== NO_ANSWER && this.send({ id: msg.id, result: result ?? null }),
        (err) => this.send({ id: msg.id, error: err }),
      );
      return;
    }
    if (msg.method === undefined && typeof msg.id === "number") this.waiting.get(msg.id)?.(msg);
  }

  /** @param {string} method @param {Handler} handler */
  handle(method, handler) {
    this.handlers.set(method, handler);
    return this;
  }

  /** @param {Msg} msg */
  send(msg) {
    if (!this.exited) this.stdout.write(`${JSON.stringify(msg)}\n`);
  }

  /**
   * Send a request to the bridge; resolves to its answer message.
   * @param {string} method
   * @param {any} params
   * @returns {Promise<Msg>}
   */
  request(method, params) {
    const id = this.nextId++;
    return new Promise((resolve) => {
      this.waiting.set(id, resolve);
      this.send({ id, method, params });
    });
  }

  /** Messages of `method` the bridge sent. @param {string} method */
  sent(method) {
    return this.received.filter((m) => m.method === method);
  }

  /** SIGSTOP: nothing is read or answered from now on. */
  sigstop() {
    this.stopped = true;
  }

  /** @param {number | null} code @param {string | null} [signal] */
  exit(code, signal = null) {
    if (this.exited) return;
    this.exited = true;
    setImmediate(() => this.emitter.emit("exit", code, signal));
  }

  // ProcessLike
  /** @param {string} event @param {(...args: any[]) => void} listener */
  on(event, listener) {
    this.emitter.on(event, listener);
    return this;
  }
  /** @param {NodeJS.Signals} [signal] */
  kill(signal) {
    this.killedWith = signal ?? "SIGTERM";
    this.exit(null, this.killedWith);
    return true;
  }
}

/**
 * A dialog the fake UI shows.
 * @typedef {object} ShownDialog
 * @property {string} method
 * @property {any[]} args
 * @property {{ signal?: AbortSignal, timeout?: number } | undefined} opts
 * @property {(value: unknown) => void} answer the user's answer (or dismissal: undefined)
 * @property {boolean} open
 */

/** A pi context whose UI records what it is asked. */
export function fakeCtx({ hasUI = true, signal = /** @type {AbortSignal | undefined} */ (undefined) } = {}) {
  /** @type {ShownDialog[]} */
  const dialogs = [];
  /** @type {Array<{ message: string, type: string | undefined }>} */
  const notes = [];
  /** @type {Array<{ method: string, args: unknown[] }>} */
  const uiCalls = [];
  /**
   * @param {string} method
   * @param {unknown} dismissed what pi resolves a dismissed dialog to
   * @param {number} optsAt where the options argument is
   */
  const dialog = (method, dismissed, optsAt) => (/** @type {any[]} */ ...args) =>
    new Promise((resolve) => {
      const opts = args[optsAt];
      /** @type {ShownDialog} */
      const d = {
        method,
        args,
        opts,
        open: true,
        answer: (value) => {
          if (!d.open) return;
          d.open = false;
          resolve(value === undefined ? dismissed : value);
        },
      };
      if (opts?.signal?.aborted) return resolve(dismissed);
      opts?.signal?.addEventListener("abort", () => d.answer(undefined), { once: true });
      dialogs.push(d);
    });
  const ui = {
    select: dialog("select", undefined, 2),
    confirm: dialog("confirm", false, 2),
    input: dialog("input", undefined, 2),
    editor: dialog("editor", undefined, 9),
    notify: (/** @type {string} */ message, /** @type {string | undefined} */ type) => {
      notes.push({ message, type });
    },
    setStatus: (/** @type {unknown[]} */ ...args) => {
      uiCalls.push({ method: "setStatus", args });
    },
    getEditorText: () => "draft",
  };
  const ctx = /** @type {any} */ ({
    ui,
    hasUI,
    signal,
    cwd: "/",
    // pi 1.x's bash tool puts the session file into the command's environment.
    sessionManager: { getSessionId: () => "session-1", getSessionFile: () => undefined, getEntries: () => [] },
  });
  return { ctx, dialogs, notes, uiCalls };
}

/** A fake pi: records registrations and runs handlers the way pi's runner does. */
export function fakePi() {
  /** @type {Map<string, Array<(event: any, ctx: any) => unknown>>} */
  const handlers = new Map();
  /** @type {Map<string, any>} */
  const tools = new Map();
  /** @type {Map<string, any>} */
  const commands = new Map();
  /** @type {Map<string, any>} */
  const providers = new Map();
  /** @type {Map<string, any>} */
  const flags = new Map();
  /** @type {Map<string, any>} */
  const shortcuts = new Map();
  /** @type {Map<string, Set<(data: unknown) => void>>} */
  const bus = new Map();
  /** @type {Map<string, any>} */
  const messageRenderers = new Map();
  const pi = /** @type {any} */ ({
    registerMessageRenderer: (/** @type {string} */ type, /** @type {any} */ renderer) => messageRenderers.set(type, renderer),
    on: (/** @type {string} */ event, /** @type {any} */ handler) => handlers.set(event, [...(handlers.get(event) ?? []), handler]),
    registerTool: (/** @type {any} */ tool) => tools.set(tool.name, tool),
    registerCommand: (/** @type {string} */ name, /** @type {any} */ options) => commands.set(name, options),
    registerProvider: (/** @type {string} */ name, /** @type {any} */ config) => providers.set(name, config),
    unregisterProvider: (/** @type {string} */ name) => providers.delete(name),
    registerFlag: (/** @type {string} */ name, /** @type {any} */ options) => flags.set(name, options),
    registerShortcut: (/** @type {string} */ key, /** @type {any} */ options) => shortcuts.set(key, options),
    getActiveTools: () => [...tools.keys()],
    setActiveTools: () => {},
    getSessionName: () => "a session",
    events: {
      on: (/** @type {string} */ channel, /** @type {(data: unknown) => void} */ fn) => {
        const set = bus.get(channel) ?? new Set();
        bus.set(channel, set);
        // A fresh function per listener: the same handler twice is two listeners, as in pi.
        const listener = (/** @type {unknown} */ data) => fn(data);
        set.add(listener);
        return () => set.delete(listener);
      },
      emit: (/** @type {string} */ channel, /** @type {unknown} */ data) => {
        for (const fn of bus.get(channel) ?? []) fn(data);
      },
    },
  });
  /**
   * Run the handlers of `event` in order, as pi does; their results.
   * @param {string} event
   * @param {any} payload
   * @param {any} ctx
   */
  const emit = async (event, payload, ctx) => {
    const results = [];
    for (const handler of handlers.get(event) ?? []) results.push(await handler(payload, ctx));
    return results;
  };
  return { pi, handlers, tools, commands, providers, flags, shortcuts, bus, emit, messageRenderers };
}

/** What {@link tempDir} made: removed when the test file's process exits. */
const tempDirs = /** @type {string[]} */ ([]);
process.on("exit", () => {
  for (const dir of tempDirs) fs.rmSync(dir, { recursive: true, force: true });
});

/**
 * A fresh directory for one test, removed with everything in it when the
 * test file's process exits, passed or failed (a run of the bridge's tests
 * used to leave 192 directories, 39 MB, in the system's temporary directory).
 * @param {string} [prefix]
 */
export function tempDir(prefix = "pi-ext-bridge-test-") {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  tempDirs.push(dir);
  return dir;
}

/**
 * @typedef {object} Harness
 * @property {import("../lib/bridge.js").Bridge} bridge
 * @property {ReturnType<typeof fakePi>} fake
 * @property {any} pi
 * @property {FakeClock} clock
 * @property {FakeExtension[]} extensions every process spawned, in order
 * @property {() => FakeExtension} ext the newest process
 * @property {string} logFile
 * @property {(ctx?: any) => Promise<void>} startSession run pi's session_start
 */

/**
 * The bridge, activated with a fake pi and fake processes that answer with
 * `manifest` (scripted further by `script`, for each process).
 * @param {object} manifest
 * @param {{ script?: (ext: FakeExtension, n: number) => void, env?: Record<string, string>,
 *   mode?: "rpc" | "interactive" | "print", config?: object, loadPi?: () => Promise<any>, loadAi?: () => Promise<any>, queue?: import("../lib/dialogs.js").Queue, piVersion?: string,
 *   terminal?: import("../lib/terminal-notify.js").TerminalOutput }} [options]
 * @returns {Promise<Harness>}
 */
export async function startBridge(manifest, options = {}) {
  const dir = tempDir();
  const clock = new FakeClock();
  const fake = fakePi();
  /** @type {FakeExtension[]} */
  const extensions = [];
  const argv = options.mode === "interactive" ? ["node", "pi"] : options.mode === "print" ? ["node", "pi", "-p"] : ["node", "pi", "--mode", "rpc"];
  const bridge = await activate(fake.pi, {
    config: { name: "fake", binary: "/nonexistent/fake-extension", ...(options.config ?? {}) },
    protocol: 2,
    here: dir,
    env: { PI_EXT_LOG_DIR: dir, ...(options.env ?? {}) },
    argv,
    stdinIsTTY: options.mode === "interactive",
    clock,
    launch: () => {
      const ext = new FakeExtension(manifest);
      options.script?.(ext, extensions.length);
      extensions.push(ext);
      return ext;
    },
    dialogQueue: options.queue ?? new DialogQueue(),
    loadPi: options.loadPi ?? (() => import("@mariozechner/pi-coding-agent")),
    loadAi: options.loadAi ?? (() => import("@mariozechner/pi-ai")),
    ...(options.piVersion ? { piVersion: () => /** @type {string} */ (options.piVersion) } : {}),
    ...(options.terminal ? { terminal: options.terminal } : {}),
  });
  return {
    bridge,
    fake,
    pi: fake.pi,
    clock,
    extensions,
    ext: () => extensions[extensions.length - 1],
    logFile: path.join(dir, "fake.log"),
    startSession: async (ctx = fakeCtx().ctx) => {
      await fake.emit("session_start", { type: "session_start", reason: "startup" }, ctx);
      await settle();
    },
  };
}

/** A manifest with the given parts. @param {object} parts */
export function manifestWith(parts) {
  return { name: "fake", version: "0.1.0", protocol: 2, sdk: "0.1.0", tools: [], hooks: [], commands: [], flags: [], problems: [], ...parts };
}

/** A tool manifest. @param {string} name @param {object} [extra] */
export function toolManifest(name, extra = {}) {
  return { name, label: name, description: `${name} tool`, parameters: { type: "object", properties: {} }, ...extra };
}

/** The bridge's sources: what `install` bundles. */
const SOURCES = path.dirname(path.dirname(fileURLToPath(import.meta.url)));

/**
 * The sources laid out in `dir` as `install` writes an extension (index.js
 * with its CONFIG, entry.cjs and bridge.cjs beside it, with the modules
 * beside them where `install` inlines them); pi's packages resolve through
 * the repository's node_modules, as pi resolves them for extensions.
 * @param {string} dir
 * @param {object} config its CONFIG
 * @param {{ bridgeCjs?: string, entryId?: string, entryCjs?: string }} [o] another bridge.cjs or entry.cjs
 *   (its text), and an ENTRY_ID
 * @returns {string} index.js
 */
export function installSources(dir, config, o = {}) {
  let entry = fs.readFileSync(path.join(SOURCES, "index.js"), "utf8");
  const line = (/** @type {string} */ from, /** @type {string} */ to) => {
    if (!entry.includes(from)) throw new Error(`index.js has no \`${from}\``);
    entry = entry.replace(from, to);
  };
  line("const CONFIG = null; // @pi-ext-config", `const CONFIG = ${JSON.stringify(config)};`);
  if (o.entryId) line("const ENTRY_ID = /** @type {string | null} */ (null); // @pi-ext-entry-id", `const ENTRY_ID = ${JSON.stringify(o.entryId)};`);
  fs.writeFileSync(path.join(dir, "index.js"), entry);
  for (const file of ["bridge.js", "entry.js", "bridge.cjs", "entry.cjs"]) fs.copyFileSync(path.join(SOURCES, file), path.join(dir, file));
  if (o.bridgeCjs !== undefined) fs.writeFileSync(path.join(dir, "bridge.cjs"), o.bridgeCjs);
  if (o.entryCjs !== undefined) fs.writeFileSync(path.join(dir, "entry.cjs"), o.entryCjs);
  fs.cpSync(path.join(SOURCES, "lib"), path.join(dir, "lib"), { recursive: true });
  fs.symlinkSync(path.join(SOURCES, "..", "..", "node_modules"), path.join(dir, "node_modules"));
  return path.join(dir, "index.js");
}
