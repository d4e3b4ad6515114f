// @ts-check
// One extension process and its protocol connection: spawning, framing,
// requests and their answers, the liveness check, stopping.

import { spawn } from "node:child_process";

import { LineSplitter, oversize } from "./framing.js";
import { jsonText } from "./json.js";
import { seconds } from "./options.js";
import { codes, messageOf, RpcError } from "./protocol.js";

/** How long streamed notifications wait to share one write (milliseconds). */
const STREAM_BATCH_MS = 2;

/**
 * What the bridge needs of a child process (node's ChildProcess, or a fake in tests).
 * @typedef {object} ProcessLike
 * @property {import("node:stream").Writable} stdin
 * @property {import("node:stream").Readable} stdout
 * @property {import("node:stream").Readable} stderr
 * @property {(signal?: NodeJS.Signals) => boolean} kill
 * @property {(event: string, listener: (...args: any[]) => void) => unknown} on
 */

/** @typedef {(binary: string, env: NodeJS.ProcessEnv) => ProcessLike} Launcher */

/**
 * A message from the extension, as parsed (fields are checked where used).
 * @typedef {{ id?: unknown, method?: unknown, params?: any, result?: unknown, error?: unknown }} WireMessage
 */

/**
 * @typedef {object} Pending
 * @property {string} method
 * @property {(value: unknown) => void} resolve
 * @property {(err: Error) => void} reject
 */

/** @type {Launcher} */
export function launchProcess(binary, env) {
  return spawn(binary, [], { stdio: ["pipe", "pipe", "pipe"], env, windowsHide: true });
}

/**
 * @typedef {object} ChildOptions
 * @property {ProcessLike} proc
 * @property {string} binary the executable, for messages
 * @property {import("./log.js").Log} log
 * @property {import("./clock.js").Clock} clock
 * @property {import("./options.js").Limits} limits
 * @property {(child: ChildConnection, msg: WireMessage) => void} onMessage a request or
 *   notification from the extension (not `log`, which is written here)
 * @property {(child: ChildConnection, reason: string) => void} onExit once, however it ended
 */

export class ChildConnection {
  /** @param {ChildOptions} o */
  constructor(o) {
    this.proc = o.proc;
    this.log = o.log;
    this.clock = o.clock;
    this.limits = o.limits;
    this.onMessage = o.onMessage;
    this.onExit = o.onExit;
    /** @type {Map<number, Pending>} requests waiting for their answer */
    this.pending = new Map();
    this.nextId = 1;
    this.exited = false;
    /** @type {string | undefined} */
    this.exitReason = undefined;
    this.stopping = false;
    /** @type {string[]} notification lines waiting for the end of this event-loop turn */
    this.queued = [];
    /** Whether a flush is due at the end of this event-loop turn. */
    this.flushDue = false;
    /**
     * Streamed `message_update`s of this turn, sent as one `hook/updates` line.
     * @type {{ hooks: string[], session: number, meta?: unknown, ev: unknown[] } | null}
     */
    this.updates = null;
    /** @type {unknown} the message whose metadata the extension has */
    this.metaSource = undefined;
    /** Whether the process reads mirrored payloads (its handshake said so). */
    this.mirror = false;
    /** @type {Map<string, import("./mirror.js").ListMirror | import("./mirror.js").PayloadMirror>} what each hook was sent last */
    this.mirrors = new Map();
    /** @type {Map<string, import("./mirror.js").AnswerMemory>} what each `context` hook answered last */
    this.answers = new Map();
    /** @type {Set<number>} ids of liveness pings in flight */
    this.pings = new Set();
    /** @type {unknown} when the next ping goes out */
    this.pingDue = undefined;
    /** @type {unknown} when an unanswered ping makes the process stuck */
    this.pingDeadline = undefined;

    // What the bridge keeps per process (request ids are per process).
    /** @type {Map<number, import("./bridge.js").Call>} pi calls this process serves, by request id */
    this.calls = new Map();
    /** @type {Map<number, AbortController>} the extension's requests that can be cancelled (exec) */
    this.aborts = new Map();
    /** @type {Array<{ firstId: number, generation: number }>} session generation of request ids */
    this.generations = [];
    /**
     * Process groups of the commands the extension runs for requests still
     * waiting (`ops/group`), by request id: killed if the process exits first.
     * @type {Map<number, Set<number>>}
     */
    this.groups = new Map();

    const splitter = new LineSplitter(o.limits.maxLineBytes, {
      onLine: (text) => this.onLine(text),
      onOverlong: (head, bytes) => this.onOverlong(head, bytes),
    });
    this.proc.stdout.on("data", (/** @type {Buffer} */ chunk) => splitter.push(chunk));
    this.proc.stderr.on("data", (/** @type {Buffer} */ chunk) => this.log.write(chunk.toString("utf8")));
    this.proc.stdin.on("error", () => {}); // EPIPE after the child died: "exit" reports it
    this.proc.on("error", (/** @type {Error} */ err) => this.exit(`could not run ${o.binary}: ${err.message}`));
    this.proc.on("exit", (/** @type {number | null} */ code, /** @type {string | null} */ signal) =>
      this.exit(`extension process exited (${signal ? `signal ${signal}` : `code ${code}`})`),
    );
  }

  /** @param {string} text @private */
  onLine(text) {
    if (text.trim() === "") return;
    /** @type {unknown} */
    let parsed;
    try {
      parsed = JSON.parse(text);
    } catch {
      this.log.line("warn", `malformed line from extension: ${text.slice(0, 200)}`);
      return;
    }
    if (parsed === null || typeof parsed !== "object" || Array.isArray(parsed)) {
      this.log.line("warn", `non-object line from extension: ${text.slice(0, 200)}`);
      return;
    }
    const msg = /** @type {WireMessage} */ (parsed);
    if (typeof msg.method === "string") {
      if (msg.method === "log") {
        this.log.line(String(msg.params?.level ?? "info"), String(msg.params?.message ?? ""));
      } else {
        this.onMessage(this, msg);
      }
      return;
    }
    const id = typeof msg.id === "number" ? msg.id : undefined;
    if (id !== undefined && this.pings.has(id)) {
      this.answered(id); // an error (an extension without `ping`) is an answer too
      return;
    }
    const waiter = id === undefined ? undefined : this.pending.get(id);
    if (id === undefined || !waiter) {
      if (msg.id === null && msg.error) {
        // The extension could not even read the id of a line the bridge sent.
        this.log.line("warn", `the extension could not read a line the bridge sent: ${RpcError.fromWire(msg.error).message}`);
      } else if (msg.error) {
        this.log.line("warn", `extension reported: ${RpcError.fromWire(msg.error).message}`);
      }
      return; // a late answer to an abandoned call, or unsolicited
    }
    this.settled(id);
    if (msg.error) waiter.reject(RpcError.fromWire(msg.error));
    else waiter.resolve(msg.result);
  }

  /**
   * A line over the limit was dropped unread. Its start names its id (both
   * sides write `{"id":N,` first), so its request is still settled.
   * @param {string} head
   * @param {number} bytes
   * @private
   */
  onOverlong(head, bytes) {
    const limit = `over the limit of ${this.limits.maxLineBytes} bytes per line (PI_EXT_MAX_LINE_BYTES)`;
    this.log.line("warn", `dropped a line of ${bytes} bytes from the extension, ${limit}: ${head}…`);
    const m = /^\s*\{\s*"id"\s*:\s*(\d+)\s*,\s*"(result|error|method)"/.exec(head);
    if (!m) return;
    const id = Number(m[1]);
    if (m[2] === "method") {
      this.respondError(id, codes.INVALID_REQUEST, `the request was ${bytes} bytes, ${limit}`);
      return;
    }
    const waiter = this.pending.get(id);
    if (waiter) this.fail(id, new Error(`the extension's answer to ${waiter.method} was ${bytes} bytes, ${limit}`));
  }

  /**
   * The process is gone (or given up on): every waiting request fails.
   * @param {string} reason
   */
  exit(reason) {
    if (this.exited) return;
    this.exited = true;
    this.exitReason = reason;
    this.stopWatching();
    this.queued = [];
    this.updates = null;
    this.log.line("info", reason);
    this.killGroups();
    const err = new Error(`${reason}; see ${this.log.file}`);
    const waiting = [...this.pending.values()];
    this.pending.clear();
    for (const { reject } of waiting) reject(err);
    this.onExit(this, reason);
  }

  /**
   * Send a request. The promise settles with the answer, the process's end,
   * or `fail(id, …)`; it rejects at once (nothing sent) when the message
   * cannot be encoded or is over the line limit.
   * @param {string} method
   * @param {unknown} params
   * @param {{ raw?: string, what?: string, onId?: (id: number) => void }} [options] `raw`:
   *   params already as JSON text (a large event is not parsed and written again); `what`:
   *   names the request in errors; `onId`: runs before the request is written (its answer,
   *   and the extension's messages about it, may follow at once)
   * @returns {{ id: number, promise: Promise<unknown> }}
   */
  request(method, params, { raw, what, onId } = {}) {
    const id = this.nextId++;
    if (this.exited) return { id, promise: Promise.reject(new Error(`${this.exitReason}; see ${this.log.file}`)) };
    let line;
    try {
      line =
        raw !== undefined
          ? `{"id":${id},"method":${JSON.stringify(method)},"params":${raw}}`
          : /** @type {string} */ (jsonText({ id, method, params }, what ?? `the ${method} request`));
    } catch (err) {
      return { id, promise: Promise.reject(err) };
    }
    const bytes = oversize(line, this.limits.maxLineBytes);
    if (bytes > 0) {
      const message = `cannot send ${what ?? `the ${method} request`}: its request line would be ${bytes} bytes, over the limit of ${this.limits.maxLineBytes} bytes per line (PI_EXT_MAX_LINE_BYTES)`;
      return { id, promise: Promise.reject(new Error(message)) };
    }
    const promise = new Promise((resolve, reject) => this.pending.set(id, { method, resolve, reject }));
    onId?.(id);
    this.writeLine(line);
    this.watch();
    return { id, promise };
  }

  /**
   * Settle a waiting request with `err` (a deadline, an abort); its late
   * answer is dropped. False if it had settled already.
   * @param {number} id
   * @param {Error} err
   */
  fail(id, err) {
    const waiter = this.pending.get(id);
    if (!waiter) return false;
    this.settled(id);
    waiter.reject(err);
    return true;
  }

  /** @param {number} id @private */
  settled(id) {
    this.pending.delete(id);
    this.groups.delete(id);
    if (this.pending.size > 0) return;
    // Nothing waits: an unanswered ping no longer matters. The next ping's
    // timer stays (it does nothing when nothing waits): calls one after the
    // other do not each arm and clear one.
    this.clock.clearTimeout(this.pingDeadline);
    this.pingDeadline = undefined;
  }

  /**
   * Process group `pgid` runs a command for request `id` (`ops/group`). If
   * the process exits before it answers `id`, the group is killed: the
   * runtime's PR_SET_PDEATHSIG reaches the command's shell only, not what
   * the shell started. Ignored unless `id` waits for its answer and `pgid`
   * can be a group of the extension's (an integer above 1, not pi's pid).
   * @param {number} id
   * @param {unknown} pgid
   */
  ownsGroup(id, pgid) {
    if (!this.pending.has(id) || typeof pgid !== "number" || !Number.isSafeInteger(pgid) || pgid <= 1 || pgid === process.pid) return;
    const groups = this.groups.get(id) ?? new Set();
    groups.add(pgid);
    this.groups.set(id, groups);
  }

  /**
   * Kill the process groups of commands still running (the process is gone).
   * A group lives while any of its processes does, so its id is not reused
   * while there is something to kill.
   * @private
   */
  killGroups() {
    for (const groups of this.groups.values()) {
      for (const pgid of groups) {
        try {
          process.kill(-pgid, "SIGKILL");
        } catch {
          // Ended already.
        }
      }
    }
    this.groups.clear();
  }

  /**
   * Ask the extension to cancel its work on request `id`.
   * @param {number} id
   */
  cancel(id) {
    this.notify("cancel", { id });
  }

  /**
   * @param {string} method
   * @param {unknown} params
   */
  notify(method, params) {
    let line;
    try {
      line = /** @type {string} */ (jsonText({ method, params }, `the ${method} notification`));
    } catch (err) {
      this.log.line("warn", messageOf(err));
      return;
    }
    if (oversize(line, this.limits.maxLineBytes) > 0) {
      this.log.line("warn", `dropped a ${method} notification over the line limit (PI_EXT_MAX_LINE_BYTES)`);
      return;
    }
    this.writeLine(line);
  }

  /**
   * Answer a request of the extension with `result` (functions and cycles
   * left out); what cannot be sent becomes an error answer.
   * @param {number} id
   * @param {unknown} result
   * @param {string} [what] names the answer in errors
   */
  respond(id, result, what = "the answer") {
    let line;
    try {
      line = /** @type {string} */ (jsonText({ id, result: result ?? null }, what));
    } catch (err) {
      this.respondError(id, codes.INTERNAL_ERROR, messageOf(err));
      return;
    }
    const bytes = oversize(line, this.limits.maxLineBytes);
    if (bytes > 0) {
      const limit = `over the limit of ${this.limits.maxLineBytes} bytes per line (PI_EXT_MAX_LINE_BYTES)`;
      this.respondError(id, codes.INTERNAL_ERROR, `${what} is ${bytes} bytes as JSON, ${limit}`);
      return;
    }
    this.writeLine(line);
  }

  /**
   * @param {number} id
   * @param {number} code
   * @param {string} message
   */
  respondError(id, code, message) {
    this.writeLine(JSON.stringify({ id, error: { code, message } }));
  }

  /** @param {string} line @private */
  writeLine(line) {
    if (this.exited) return;
    if (this.queued.length > 0 || this.updates) {
      this.closeUpdates();
      this.queued.push(line); // after the queued ones, in order
      this.flush();
    } else {
      this.proc.stdin.write(`${line}\n`);
    }
  }

  /**
   * Send a notification line with whatever else is sent in this turn of the
   * event loop: streamed deltas come in bursts, and one write (and one
   * wake-up of the extension) per burst is much cheaper than one per delta.
   * @param {string} line
   */
  sendSoon(line) {
    if (this.exited) return;
    if (oversize(line, this.limits.maxLineBytes) > 0) {
      this.log.line("warn", "dropped a streamed hook notification over the line limit (PI_EXT_MAX_LINE_BYTES)");
      return;
    }
    this.closeUpdates();
    this.queued.push(line);
    this.flushSoon();
  }

  /**
   * Queue one streamed `message_update` for `hooks` (one `hook/updates`
   * line per batch of up to STREAM_BATCH_MS). `ev` is the event in its short form;
   * `meta` the message's metadata when it changed (it starts a new line, so
   * that it applies to the events after it only).
   * @param {string[]} hooks
   * @param {number} session
   * @param {unknown} ev
   * @param {unknown} [meta]
   */
  queueUpdate(hooks, session, ev, meta) {
    if (this.exited) return;
    let u = this.updates;
    if (u && (u.hooks !== hooks || u.session !== session || meta !== undefined)) {
      this.closeUpdates();
      u = null;
    }
    if (!u) {
      u = this.updates = meta === undefined ? { hooks, session, ev: [] } : { hooks, session, meta, ev: [] };
      this.flushSoon();
    }
    u.ev.push(ev);
  }

  /** The open `hook/updates` line goes into the queue. @private */
  closeUpdates() {
    const u = this.updates;
    if (!u) return;
    this.updates = null;
    const line = `{"method":"hook/updates","params":${JSON.stringify(u)}}`;
    if (oversize(line, this.limits.maxLineBytes) > 0) {
      this.log.line("warn", "dropped streamed message_update events over the line limit (PI_EXT_MAX_LINE_BYTES)");
      return;
    }
    this.queued.push(line);
  }

  /** @private */
  flushSoon() {
    if (this.flushDue) return;
    this.flushDue = true;
    // A few milliseconds rather than the next turn of the event loop: a
    // fast stream (a delta per turn) then costs pi one write, and the
    // extension one wake-up, per STREAM_BATCH_MS instead of per delta. A
    // request or answer written meanwhile takes the queue with it, in order.
    setTimeout(() => this.flush(), STREAM_BATCH_MS);
  }

  /** @private */
  flush() {
    this.flushDue = false;
    this.closeUpdates();
    if (this.queued.length === 0 || this.exited) return;
    const text = `${this.queued.join("\n")}\n`;
    this.queued = [];
    this.proc.stdin.write(text);
  }

  // Liveness: while a request waits, a ping goes out every `pingIntervalMs`;
  // one unanswered for `livenessTimeoutMs` means the process no longer reads
  // its input (stopped, wedged). The extension answers pings from its
  // reading task; an extension that predates `ping` answers "unknown
  // method", which is as good.

  /** @private */
  watch() {
    if (this.pingDue !== undefined || this.pingDeadline !== undefined || this.stopping) return;
    // In the background: a waiting call keeps pi alive, not this timer.
    this.pingDue = this.clock.setTimeout(() => this.ping(), this.limits.pingIntervalMs, true);
  }

  /** @private */
  ping() {
    this.pingDue = undefined;
    if (this.exited || this.pending.size === 0) return;
    const id = this.nextId++;
    this.pings.add(id);
    this.writeLine(`{"id":${id},"method":"ping","params":{}}`);
    this.pingDeadline = this.clock.setTimeout(() => this.stuck(), this.limits.livenessTimeoutMs, true);
  }

  /** @param {number} id @private */
  answered(id) {
    this.pings.delete(id);
    this.clock.clearTimeout(this.pingDeadline);
    this.pingDeadline = undefined;
    if (this.pending.size > 0) this.watch();
  }

  /** @private */
  stopWatching() {
    this.clock.clearTimeout(this.pingDue);
    this.clock.clearTimeout(this.pingDeadline);
    this.pingDue = undefined;
    this.pingDeadline = undefined;
  }

  /** @private */
  stuck() {
    this.pingDeadline = undefined;
    if (this.exited) return;
    const reason =
      `extension process stopped responding (no answer to a liveness ping within ${seconds(this.limits.livenessTimeoutMs)}, ` +
      `PI_EXT_LIVENESS_TIMEOUT_MS); it was killed and starts again at the next call`;
    this.kill();
    this.exit(reason);
  }

  /** Kill the process now. */
  kill() {
    try {
      this.proc.kill("SIGKILL");
    } catch {
      // Gone already.
    }
  }

  /** Ask the process to end (`shutdown`, then EOF); kill it if it is still there after the grace period. */
  stop() {
    if (this.exited || this.stopping) return;
    this.stopping = true;
    this.stopWatching();
    this.notify("shutdown", {});
    this.flush();
    this.proc.stdin.end();
    const timer = setTimeout(() => {
      if (!this.exited) this.kill();
    }, this.limits.shutdownGraceMs);
    timer.unref();
  }
}
