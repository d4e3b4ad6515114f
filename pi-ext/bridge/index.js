// pi-ext bridge: loads a Rust extension binary (built with the pi-ext crate) into pi.
// Written by `<binary> install`; run that again instead of editing this file.
// The protocol is documented in PROTOCOL.md of the pi-ext crate.
//
// Rules this file keeps:
// - pi must never exit or hang because of the extension: the factory never
//   throws, every handler catches, every wait has an end.
// - stdout of the child is the protocol, split on "\n" only (not readline,
//   which also splits on U+2028/U+2029); its stderr goes to a log file.
import { spawn } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { fileURLToPath } from "node:url";

const CONFIG = null; // @pi-ext-config

/** This file's directory: a packed extension's binary path is relative to it. */
const HERE = (() => {
  try {
    return path.dirname(fileURLToPath(import.meta.url));
  } catch {
    return typeof __dirname === "string" ? __dirname : process.cwd();
  }
})();
const BINARY = path.resolve(HERE, CONFIG.binary);
const DEV = CONFIG.dev === true || process.env.PI_EXT_DEV === "1";
const PROTOCOL = 1;
const BRIDGE_VERSION = "0.1.0";
const HANDSHAKE_TIMEOUT_MS = Number(process.env.PI_EXT_HANDSHAKE_TIMEOUT_MS || 10000);
const SHUTDOWN_GRACE_MS = 1000;
const HOOK_TIMEOUT_MS = Number(process.env.PI_EXT_HOOK_TIMEOUT_MS || 30000);
const DRAIN_MS = 10000;

const codes = { VERSION_MISMATCH: -32000, CANCELLED: -32002, NO_UI: -32003 };

/** pi's own mode resolution (main.js resolveAppMode), from its command line. */
function detectMode(argv) {
  let mode;
  let print = false;
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === "--mode" && i + 1 < argv.length) mode = argv[++i];
    else if (argv[i] === "--print" || argv[i] === "-p") print = true;
  }
  if (mode === "rpc") return "rpc";
  if (mode === "json") return "json";
  if (print || !process.stdin.isTTY) return "print";
  return "interactive";
}

class Log {
  constructor(name) {
    this.file = process.env.PI_EXT_LOG_DIR
      ? path.join(process.env.PI_EXT_LOG_DIR, `${name}.log`)
      : CONFIG.log
        ? path.resolve(HERE, CONFIG.log)
        : path.join(os.tmpdir(), `pi-ext-${name}.log`);
    this.stream = undefined;
    this.opened = false;
  }
  /** Opened at the first line, not at load: pi's startup should not pay for it. */
  open() {
    this.opened = true;
    try {
      fs.mkdirSync(path.dirname(this.file), { recursive: true });
      this.stream = fs.createWriteStream(this.file, { flags: "a" });
      this.stream.on("error", () => { this.stream = undefined; });
    } catch {
      this.stream = undefined;
    }
  }
  write(text) {
    if (!this.opened) this.open();
    if (this.stream) this.stream.write(text.endsWith("\n") ? text : text + "\n");
  }
  line(level, message) {
    this.write(`${new Date().toISOString()} [bridge ${level}] ${message}`);
  }
  close() {
    if (this.stream) this.stream.end();
  }
}

/** One running extension process and its protocol connection. */
class Child {
  constructor(binary, log, onMessage) {
    this.log = log;
    this.onMessage = onMessage; // (msg) => void, for the extension's requests and notifications
    this.pending = new Map(); // id -> {resolve, reject}
    this.nextId = 1;
    this.exited = false;
    this.exitReason = undefined;
    this.chunks = [];
    this.queued = []; // notification lines waiting for the end of this event-loop turn
    this.proc = spawn(binary, [], {
      stdio: ["pipe", "pipe", "pipe"],
      env: { ...process.env, PI_EXT_BRIDGE: BRIDGE_VERSION },
      windowsHide: true,
    });
    this.proc.stdout.on("data", (chunk) => this.onData(chunk));
    this.proc.stderr.on("data", (chunk) => this.log.write(chunk.toString("utf8")));
    this.proc.stdin.on("error", () => {}); // EPIPE after the child died: handled by "exit"
    this.proc.on("error", (err) => this.onExit(`could not run ${binary}: ${err.message}`));
    this.proc.on("exit", (code, signal) =>
      this.onExit(`extension process exited (${signal ? "signal " + signal : "code " + code})`),
    );
  }

  onData(chunk) {
    let start = 0;
    let nl = chunk.indexOf(10);
    while (nl !== -1) {
      this.chunks.push(chunk.subarray(start, nl));
      const line = this.chunks.length === 1 ? this.chunks[0] : Buffer.concat(this.chunks);
      this.chunks = [];
      this.onLine(line.toString("utf8"));
      start = nl + 1;
      nl = chunk.indexOf(10, start);
    }
    if (start < chunk.length) this.chunks.push(chunk.subarray(start));
  }

  onLine(text) {
    if (text.endsWith("\r")) text = text.slice(0, -1);
    if (text.trim() === "") return;
    let msg;
    try {
      msg = JSON.parse(text);
    } catch {
      this.log.line("warn", `malformed line from extension: ${text.slice(0, 200)}`);
      return;
    }
    if (msg === null || typeof msg !== "object") {
      this.log.line("warn", `non-object line from extension: ${text.slice(0, 200)}`);
      return;
    }
    if (typeof msg.method === "string") {
      if (msg.method === "log") {
        this.log.line(msg.params?.level ?? "info", String(msg.params?.message ?? ""));
      } else {
        this.onMessage(msg);
      }
      return;
    }
    const waiter = this.pending.get(msg.id);
    if (!waiter) {
      if (msg.error) this.log.line("warn", `extension reported: ${msg.error.message}`);
      return; // late answer to an aborted call, or unsolicited
    }
    this.pending.delete(msg.id);
    if (msg.error) waiter.reject(rpcError(msg.error));
    else waiter.resolve(msg.result);
  }

  onExit(reason) {
    if (this.exited) return;
    this.exited = true;
    this.exitReason = reason;
    this.log.line("info", reason);
    const err = new Error(`${reason}; see ${this.log.file}`);
    const waiting = [...this.pending.values()];
    this.pending.clear();
    for (const { reject } of waiting) reject(err);
  }

  send(msg) {
    // JSON.stringify escapes U+2028/U+2029 since ES2019, so lines stay whole.
    return this.sendLine(JSON.stringify(msg));
  }

  sendLine(line) {
    if (this.exited) return false;
    if (this.queued.length > 0) {
      this.queued.push(line); // after the queued ones, in order
      this.flush();
    } else {
      this.proc.stdin.write(line + "\n");
    }
    return true;
  }

  /**
   * Send a notification line with whatever else is sent in this turn of
   * the event loop: streamed deltas come in bursts, and one write (and one
   * wake-up of the extension) per burst is much cheaper than one per delta.
   */
  sendSoon(line) {
    if (this.exited) return;
    this.queued.push(line);
    if (this.queued.length === 1) setImmediate(() => this.flush());
  }

  flush() {
    if (this.queued.length === 0 || this.exited) return;
    const text = this.queued.join("\n") + "\n";
    this.queued = [];
    this.proc.stdin.write(text);
  }

  notify(method, params) {
    this.send({ method, params });
  }

  respond(id, result) {
    this.send({ id, result: result ?? null });
  }

  respondError(id, code, message) {
    this.send({ id, error: { code, message } });
  }

  /**
   * Send a request; settle on the answer, the child's death, `timeoutMs`, or
   * `signal`. `onId(id)` runs before the request is sent and `onSettled()`
   * after it settles, however that happens.
   */
  request(method, params, { timeoutMs, signal, onId, onSettled, rawParams } = {}) {
    return new Promise((resolve, reject) => {
      if (this.exited) return reject(new Error(`${this.exitReason}; see ${this.log.file}`));
      const id = this.nextId++;
      let timer;
      let onAbort;
      const done = () => {
        if (timer) clearTimeout(timer);
        if (signal && onAbort) signal.removeEventListener("abort", onAbort);
        if (onSettled) onSettled();
      };
      if (onId) onId(id);
      this.pending.set(id, {
        resolve: (v) => { done(); resolve(v); },
        reject: (e) => { done(); reject(e); },
      });
      if (timeoutMs) {
        timer = setTimeout(() => {
          if (!this.pending.delete(id)) return;
          done();
          reject(new Error(`${method} timed out after ${timeoutMs} ms`));
        }, timeoutMs);
      }
      if (signal) {
        onAbort = () => {
          if (!this.pending.delete(id)) return;
          done();
          this.notify("cancel", { id });
          reject(new Error("Tool call aborted"));
        };
        if (signal.aborted) return onAbort();
        signal.addEventListener("abort", onAbort, { once: true });
      }
      // rawParams: already-serialized JSON (a large event), embedded as is
      // rather than parsed and serialized again.
      if (rawParams !== undefined) {
        this.sendLine(`{"id":${id},"method":${JSON.stringify(method)},"params":${rawParams}}`);
      } else {
        this.send({ id, method, params });
      }
    });
  }

  stop() {
    if (this.exited || this.stopping) return;
    this.stopping = true;
    this.notify("shutdown", {});
    this.proc.stdin.end();
    const timer = setTimeout(() => { if (!this.exited) this.proc.kill("SIGKILL"); }, SHUTDOWN_GRACE_MS);
    timer.unref();
  }
}

function rpcError(error) {
  const err = new Error(String(error?.message ?? "extension error"));
  err.code = error?.code;
  return err;
}

/** The extension as pi sees it: a manifest plus a (re)startable child. */
class Bridge {
  constructor(pi) {
    this.pi = pi;
    this.log = new Log(CONFIG.name);
    this.mode = detectMode(process.argv);
    this.piVersion = undefined; // read at the first start
    this.cached = undefined; // the manifest `install` recorded, when it was used
    this.child = undefined; // the process, once its handshake succeeded
    this.spawned = undefined; // the process while it handshakes
    this.starting = undefined;
    this.unavailable = new Map(); // tool name -> why (registered from the cache, missing from the live manifest)
    this.calls = new Map(); // bridge request id -> {ctx, onUpdate} of a running tool call
    this.aborts = new Map(); // extension request id -> AbortController (open dialog, running exec)
    this.busOff = []; // unsubscribe functions of pi.events listeners
    this.lastCtx = undefined; // for UI calls that outlive their tool call
  }

  /** pi's version, from the package.json above pi's CLI script (cheap: no import). */
  detectPiVersion() {
    try {
      let dir = path.dirname(fs.realpathSync(process.argv[1] ?? ""));
      for (let i = 0; i < 4; i++, dir = path.dirname(dir)) {
        const file = path.join(dir, "package.json");
        if (!fs.existsSync(file)) continue;
        const pkg = JSON.parse(fs.readFileSync(file, "utf8"));
        if (pkg.name === "@mariozechner/pi-coding-agent") {
          this.piVersion = String(pkg.version ?? "");
          return;
        }
      }
    } catch {
      // Unknown version: the handshake carries "".
    }
    this.piVersion = "";
  }

  /** Spawn the binary and handshake; resolves to the manifest. */
  start(snapshots) {
    if (this.starting) return this.starting;
    if (this.piVersion === undefined) this.detectPiVersion();
    const child = new Child(BINARY, this.log, (msg) => this.onExtensionMessage(child, msg));
    this.spawned = child;
    this.starting = (async () => {
      const result = await child.request(
        "initialize",
        {
          protocol: PROTOCOL,
          bridge: BRIDGE_VERSION,
          pi: this.piVersion,
          mode: this.mode,
          hasUI: this.mode === "interactive" || this.mode === "rpc",
          cwd: process.cwd(),
          ...(snapshots ? { snapshots } : {}),
        },
        { timeoutMs: HANDSHAKE_TIMEOUT_MS },
      );
      if (!result || result.protocol !== PROTOCOL || !result.manifest) {
        throw new Error(
          `protocol version mismatch: bridge speaks ${PROTOCOL}, binary answered ${JSON.stringify(result?.protocol)}; ` +
            `run \`${BINARY} install\` again`,
        );
      }
      if (this.spawned === child) this.spawned = undefined;
      this.child = child;
      this.setManifest(result.manifest);
      return result.manifest;
    })();
    this.starting.catch(() => {
      child.stop();
      if (this.spawned === child) this.spawned = undefined;
      this.starting = undefined;
    });
    return this.starting;
  }

  /**
   * The live manifest. Tools registered from the cached manifest that the
   * process does not serve (an extension whose on_load failed) answer with
   * the reason instead of reaching the process.
   */
  setManifest(manifest) {
    if (this.cached) {
      const live = new Set((manifest.tools ?? []).map((t) => t.name));
      const why = (manifest.problems ?? []).join("; ") || "the extension no longer provides it";
      this.unavailable = new Map(
        (this.cached.tools ?? []).filter((t) => !live.has(t.name)).map((t) => [t.name, why]),
      );
    }
    this.manifest = manifest;
  }

  /** Whether a process is starting and none has finished its handshake yet. */
  get handshaking() {
    return this.starting !== undefined && this.child === undefined;
  }

  /** A live child, restarting one that died. */
  connection() {
    // Fast path without an async frame: a call costs a few microseconds less.
    if (this.child && !this.child.exited) return this.child;
    return this.restart();
  }

  async restart() {
    if (this.handshaking) {
      await this.starting; // a start already under way
      return this.child;
    }
    this.child = undefined;
    this.starting = undefined;
    this.log.line("info", "starting a fresh extension process");
    await this.start();
    return this.child;
  }

  /** Register one manifest tool with pi (at load time or later). */
  registerTool(tool) {
    this.pi.registerTool({
      name: tool.name,
      label: tool.label,
      description: tool.description,
      parameters: tool.parameters,
      ...(tool.promptSnippet ? { promptSnippet: tool.promptSnippet } : {}),
      ...(tool.promptGuidelines?.length ? { promptGuidelines: tool.promptGuidelines } : {}),
      execute: (toolCallId, params, signal, onUpdate, ctx) =>
        this.callTool(tool.name, toolCallId, params, signal, onUpdate, ctx),
    });
  }

  async callTool(tool, toolCallId, args, signal, onUpdate, ctx) {
    if (ctx) this.lastCtx = ctx;
    let child = this.connection();
    if (child instanceof Promise) child = await child;
    const why = this.unavailable.get(tool);
    if (why !== undefined) throw new Error(`tool ${tool} is not available: ${why}`);
    let callId;
    const result = await child.request(
      "tool/call",
      { tool, toolCallId, args },
      {
        signal,
        onId: (id) => {
          callId = id;
          this.calls.set(id, { ctx, onUpdate });
        },
        onSettled: () => this.settled(callId),
      },
    );
    const content = Array.isArray(result?.content) ? result.content : [];
    if (result?.isError) {
      const text = content.filter((c) => c.type === "text").map((c) => c.text).join("\n");
      throw new Error(text || "tool failed");
    }
    return { content, details: result?.details ?? {} };
  }

  /** Send a request carrying pi's `ctx` (hooks, commands). */
  async callWithCtx(method, params, ctx, timeoutMs, rawParams) {
    if (ctx) this.lastCtx = ctx;
    let child = this.connection();
    if (child instanceof Promise) child = await child;
    let callId;
    return child.request(method, params, {
      timeoutMs,
      rawParams,
      onId: (id) => {
        callId = id;
        this.calls.set(id, { ctx });
      },
      onSettled: () => this.settled(callId),
    });
  }

  /** Whether the live manifest (or, before the handshake, the cached one) has `hook`. */
  hasHook(hook) {
    return this.manifest?.hooks?.some((h) => h.id === hook.id) ?? false; // false: removed by a hot reload
  }

  async callHook(hook, event, ctx) {
    if (!this.hasHook(hook)) return undefined;
    const payload = jsonText(hook.event === "message_update" ? slimUpdate(event) : event) ?? "null";
    const params = `{"hook":${JSON.stringify(hook.id)},"payload":${payload}}`;
    if (STREAMING_EVENTS.has(hook.event)) {
      // Streaming notifications (one per delta) are not awaited: pi's agent
      // loop must not wait on a process round trip per token.
      if (ctx) this.lastCtx = ctx;
      const line = `{"method":"hook/notify","params":${params}}`;
      if (this.child && !this.child.exited) this.child.sendSoon(line);
      else if (this.handshaking) {
        // Still handshaking: send it after the handshake, in order.
        this.starting.then(() => this.child?.sendSoon(line), () => {});
      }
      return undefined;
    }
    let out;
    try {
      if (this.handshaking) await this.starting; // the live manifest decides
      if (!this.hasHook(hook)) return undefined;
      out = await this.callWithCtx("hook/call", undefined, ctx, HOOK_TIMEOUT_MS, params);
    } catch (err) {
      const message = `pi-ext hook ${hook.id} failed: ${err?.message ?? err}`;
      this.log.line("warn", message);
      // tool_call fails closed, as pi does for a throwing handler.
      if (hook.event === "tool_call") return { block: true, reason: message };
      throw new Error(message); // pi reports it as extension_error and goes on
    }
    if (out === null || out === undefined) return undefined;
    switch (hook.event) {
      case "tool_call":
        // pi changes a call's arguments only by mutation of event.input.
        if (out.input && typeof out.input === "object" && event.input && typeof event.input === "object") {
          for (const key of Object.keys(event.input)) delete event.input[key];
          Object.assign(event.input, out.input);
        }
        return out.block ? { block: true, reason: out.reason } : undefined;
      case "before_provider_request":
        return out.payload;
      default:
        return out;
    }
  }

  async callCommand(name, args, ctx) {
    await this.callWithCtx("command/call", { command: name, args }, ctx);
  }

  /**
   * Stop the extension process (pi's session is ending). A command that is
   * replacing the session (`/new` from Rust) is still running in it, so
   * calls in flight may finish first, for up to 10 s.
   */
  stop() {
    for (const off of this.busOff.splice(0)) {
      try {
        off();
      } catch {
        // already gone
      }
    }
    if (this.calls.size > 0 && this.child && !this.child.exited) {
      this.draining = true;
      setTimeout(() => this.forceStop(), DRAIN_MS).unref();
      return;
    }
    this.forceStop();
  }

  forceStop() {
    this.draining = false;
    if (this.child) this.child.stop();
    if (this.spawned) this.spawned.stop(); // still handshaking: it must not outlive pi's session
    this.child = undefined;
    this.spawned = undefined;
    this.starting = undefined;
  }

  settled(callId) {
    this.calls.delete(callId);
    if (this.draining && this.calls.size === 0) this.forceStop();
  }

  async apiCall(child, id, p) {
    const fn = API[p.method];
    if (!fn) return child.respondError(id, -32601, `pi API method ${p.method} is not available to extensions`);
    if (p.method === "registerTool") {
      this.registerTool(p.args?.[0] ?? {});
      return child.respond(id, null);
    }
    if (p.method === "subscribe") {
      const channel = String(p.args?.[0]);
      const off = this.pi.events.on(channel, (data) =>
        child.notify("bus/event", { channel, data: toJson(data) ?? null }),
      );
      this.busOff.push(off);
      return child.respond(id, null);
    }
    const ctx = this.ctxFor(p.call);
    const controller = new AbortController();
    this.aborts.set(id, controller);
    try {
      const args = (Array.isArray(p.args) ? p.args : []).map((a) => (a === null ? undefined : a));
      // After newSession/fork/switchSession pi hands over a context bound to
      // the new session; the old one is stale.
      const rebind = (fresh) => {
        this.lastCtx = fresh;
        const call = this.calls.get(p.call);
        if (call) call.ctx = fresh;
      };
      const result = await fn(this.pi, ctx, args, controller.signal, rebind);
      child.respond(id, toJson(result) ?? null);
    } catch (err) {
      child.respondError(id, -32603, String(err?.message ?? err));
    } finally {
      this.aborts.delete(id);
    }
  }

  /**
   * Dev mode: switch to a rebuilt binary without restarting pi. The old
   * process's on_unload snapshots go to the new one's on_load.
   */
  async hotReload(register) {
    const deadline = Date.now() + DRAIN_MS;
    while (this.calls.size > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    const old = this.child;
    const before = this.manifest;
    let snapshots = {};
    if (old && !old.exited) {
      try {
        snapshots = (await old.request("unload", {}, { timeoutMs: 10000 }))?.snapshots ?? {};
      } catch (err) {
        this.log.line("warn", `unload before hot reload failed: ${err?.message ?? err}`);
      }
      old.stop();
    }
    this.child = undefined;
    this.starting = undefined;
    const manifest = await this.start(snapshots);
    register(manifest, before);
    return manifest;
  }

  ctxFor(callId) {
    return this.calls.get(callId)?.ctx ?? this.lastCtx;
  }

  /** A request or notification from the extension. Never throws. */
  onExtensionMessage(child, msg) {
    const { id, method } = msg;
    const params = msg.params ?? {};
    const fail = (code, message) => {
      if (id !== undefined) child.respondError(id, code, message);
      else this.log.line("warn", `${method}: ${message}`);
    };
    try {
      switch (method) {
        case "tool/update": {
          const call = this.calls.get(params.call);
          if (call?.onUpdate) call.onUpdate({ content: params.content ?? [], details: params.details ?? {} });
          return;
        }
        case "ui/dialog":
          if (id === undefined) return fail(-32600, "ui/dialog must be a request");
          this.dialog(child, id, params).catch((err) => fail(-32603, String(err?.message ?? err)));
          return;
        case "cancel":
          this.aborts.get(params.id)?.abort();
          return;
        case "api/call":
          if (id === undefined) return fail(-32600, "api/call must be a request");
          this.apiCall(child, id, params).catch((err) => fail(-32603, String(err?.message ?? err)));
          return;
        case "ui/call":
          return this.uiCall(child, id, params, fail);
        default:
          return fail(-32601, `the bridge has no method ${method}`);
      }
    } catch (err) {
      fail(-32603, String(err?.message ?? err));
    }
  }

  async dialog(child, id, p) {
    const ctx = this.ctxFor(p.call);
    if (!ctx || !ctx.hasUI) return child.respondError(id, codes.NO_UI, "pi has no UI in this mode");
    const controller = new AbortController();
    this.aborts.set(id, controller);
    const opts = { signal: controller.signal };
    if (p.timeout) opts.timeout = p.timeout;
    const started = Date.now();
    let value;
    try {
      switch (p.method) {
        case "select":
          value = await ctx.ui.select(p.title, p.options ?? [], opts);
          break;
        case "confirm":
          value = await ctx.ui.confirm(p.title, p.message ?? "", opts);
          break;
        case "input":
          value = await ctx.ui.input(p.title, p.placeholder, opts);
          break;
        case "editor":
          value = await ctx.ui.editor(p.title, p.prefill);
          break;
        default:
          return child.respondError(id, -32602, `unknown dialog ${p.method}`);
      }
    } finally {
      this.aborts.delete(id);
    }
    // pi resolves a dismissed or timed-out dialog to undefined (false for
    // confirm); the elapsed time tells a timeout apart.
    const timedOut = p.timeout && Date.now() - started >= p.timeout - 25;
    if (p.method === "confirm") {
      if (value === true) return child.respond(id, { outcome: "value", value: true });
      return child.respond(id, timedOut ? { outcome: "timeout" } : { outcome: "value", value: false });
    }
    if (value === undefined || value === null) {
      return child.respond(id, { outcome: timedOut ? "timeout" : "cancelled" });
    }
    child.respond(id, { outcome: "value", value: String(value) });
  }

  uiCall(child, id, p, fail) {
    const ctx = this.ctxFor(p.call);
    if (!UI_CALLS.has(p.method)) return fail(-32601, `ctx.ui.${p.method} is not available to extensions`);
    if (!ctx) return fail(codes.NO_UI, "no pi context yet");
    // JSON has no `undefined`: a null argument means "not given" (clearing a
    // status or widget, resetting a label).
    const args = (Array.isArray(p.args) ? p.args : []).map((a) => (a === null ? undefined : a));
    const result = ctx.ui[p.method](...args);
    if (id !== undefined) child.respond(id, result === undefined ? null : result);
  }
}

/** Events pi emits once per streamed delta: their hooks are notifications. */
const STREAMING_EVENTS = new Set(["message_update", "tool_execution_update"]);

/**
 * A `message_update` without the partial message's content (and the
 * streaming event's copy of it): sending the whole message again with every
 * delta would make a streamed answer cost O(n²) bytes. The delta is kept.
 */
function slimUpdate(event) {
  const { content: _content, ...message } = event.message ?? {};
  const { partial: _partial, ...assistantMessageEvent } = event.assistantMessageEvent ?? {};
  return { ...event, message, assistantMessageEvent };
}

/** JSON text of an event or result: drops functions, AbortSignals and cycles. */
function jsonText(value) {
  if (value === undefined) return undefined;
  try {
    // Plain data (nearly every event) needs no replacer, which costs a call per key.
    return JSON.stringify(value);
  } catch {
    // A cycle or a BigInt: the careful way below.
  }
  const seen = new WeakSet();
  try {
    return JSON.stringify(value, (_key, v) => {
      if (typeof v === "function" || typeof v === "bigint") return undefined;
      if (v && typeof v === "object") {
        if (typeof AbortSignal !== "undefined" && v instanceof AbortSignal) return undefined;
        if (seen.has(v)) return undefined;
        seen.add(v);
      }
      return v;
    });
  } catch {
    return undefined;
  }
}

/** A JSON copy of a value (see `jsonText`). */
function toJson(value) {
  const text = jsonText(value);
  return text === undefined ? undefined : JSON.parse(text);
}

function needCtx(ctx) {
  if (!ctx) throw new Error("no pi context yet (called before the session started)");
  return ctx;
}

/** pi API methods the extension may call: (pi, ctx, args, signal) => result. */
const API = {
  // pi.* (ExtensionAPI)
  sendMessage: (pi, _c, [message, opts]) => pi.sendMessage(message, opts),
  sendUserMessage: (pi, _c, [content, opts]) => pi.sendUserMessage(content, opts),
  appendEntry: (pi, _c, [type, data]) => pi.appendEntry(type, data),
  getSessionName: (pi) => pi.getSessionName() ?? null,
  setSessionName: (pi, _c, [name]) => pi.setSessionName(name),
  setLabel: (pi, _c, [entryId, label]) => pi.setLabel(entryId, label),
  exec: (pi, _c, [command, args, opts], signal) => pi.exec(command, args ?? [], { ...(opts ?? {}), signal }),
  getActiveTools: (pi) => pi.getActiveTools(),
  setActiveTools: (pi, _c, [names]) => pi.setActiveTools(names ?? []),
  getAllTools: (pi) => pi.getAllTools().map(({ name, description, parameters }) => ({ name, description, parameters })),
  getCommands: (pi) => pi.getCommands().map(({ name, description, source }) => ({ name, description, source })),
  setModel: async (pi, ctx, [provider, modelId]) => {
    const model = needCtx(ctx).modelRegistry.find(provider, modelId);
    if (!model) throw new Error(`Model not found: ${provider}/${modelId}`);
    return await pi.setModel(model);
  },
  getThinkingLevel: (pi) => pi.getThinkingLevel(),
  setThinkingLevel: (pi, _c, [level]) => pi.setThinkingLevel(level),
  getFlag: (pi, _c, [name]) => pi.getFlag(name) ?? null,
  emit: (pi, _c, [channel, data]) => pi.events.emit(channel, data),
  subscribe: () => null, // handled in apiCall
  registerTool: () => null, // handled in apiCall
  // ctx.* (ExtensionContext)
  getEntries: (_p, ctx) => needCtx(ctx).sessionManager.getEntries(),
  getBranch: (_p, ctx, [fromId]) => needCtx(ctx).sessionManager.getBranch(fromId),
  getLeafId: (_p, ctx) => needCtx(ctx).sessionManager.getLeafId() ?? null,
  getLabel: (_p, ctx, [id]) => needCtx(ctx).sessionManager.getLabel(id) ?? null,
  getSessionFile: (_p, ctx) => needCtx(ctx).sessionManager.getSessionFile() ?? null,
  getSessionId: (_p, ctx) => needCtx(ctx).sessionManager.getSessionId(),
  getModel: (_p, ctx) => needCtx(ctx).model ?? null,
  isIdle: (_p, ctx) => needCtx(ctx).isIdle(),
  abort: (_p, ctx) => needCtx(ctx).abort(),
  hasPendingMessages: (_p, ctx) => needCtx(ctx).hasPendingMessages(),
  shutdown: (_p, ctx) => needCtx(ctx).shutdown(),
  getContextUsage: (_p, ctx) => needCtx(ctx).getContextUsage() ?? null,
  compact: (_p, ctx, [customInstructions]) => needCtx(ctx).compact({ customInstructions }),
  getSystemPrompt: (_p, ctx) => needCtx(ctx).getSystemPrompt(),
  // ExtensionCommandContext (commands only)
  waitForIdle: (_p, ctx) => commandCtx(ctx, "waitForIdle").waitForIdle(),
  newSession: (_p, ctx, _a, _s, rebind) =>
    commandCtx(ctx, "newSession").newSession({ withSession: async (fresh) => rebind(fresh) }),
  fork: (_p, ctx, [entryId], _s, rebind) =>
    commandCtx(ctx, "fork").fork(entryId, { withSession: async (fresh) => rebind(fresh) }),
  navigateTree: (_p, ctx, [targetId]) => commandCtx(ctx, "navigateTree").navigateTree(targetId),
  switchSession: (_p, ctx, [path], _s, rebind) =>
    commandCtx(ctx, "switchSession").switchSession(path, { withSession: async (fresh) => rebind(fresh) }),
  reload: (_p, ctx) => commandCtx(ctx, "reload").reload(),
};

function commandCtx(ctx, method) {
  if (!ctx || typeof ctx[method] !== "function") throw new Error(`${method} is only available to commands`);
  return ctx;
}

/** `ctx.ui` methods the extension may call with JSON arguments. */
const UI_CALLS = new Set([
  "notify", "setStatus", "setWidget", "setTitle", "setEditorText", "pasteToEditor", "getEditorText",
  "setWorkingMessage", "setWorkingVisible", "setWorkingIndicator", "setHiddenThinkingLabel",
  "getToolsExpanded", "setToolsExpanded", "getAllThemes", "setTheme",
]);

/**
 * The manifest `install` recorded, if the binary is still the one it was
 * recorded from (same size and modification time); otherwise undefined and
 * the binary is asked at startup.
 */
function cachedManifest(log) {
  const cache = CONFIG.cache;
  if (!cache?.manifest || DEV) return undefined;
  try {
    // Not { bigint: true }: its first use costs milliseconds.
    const stat = fs.statSync(BINARY);
    if (stat.size === cache.size && (cache.mtimeMs === undefined || Math.floor(stat.mtimeMs) === cache.mtimeMs)) {
      return cache.manifest;
    }
    log.line("info", `${BINARY} changed since it was installed: asking it for its manifest (run \`${BINARY} install\` again to start faster)`);
  } catch {
    // Missing binary: the start below reports it.
  }
  return undefined;
}

export default async function piExtBridge(pi) {
  const bridge = new Bridge(pi);
  const problems = [];
  const label = `pi-ext extension "${CONFIG.name}"`;
  const startFailed = (err) => {
    const message = `${label} failed to start: ${err?.message ?? err}`;
    bridge.log.line("error", message);
    return message;
  };
  // With the manifest install recorded, register at once and start the
  // process when the session starts: pi's startup does not wait for it.
  let manifest = cachedManifest(bridge.log);
  const lazy = manifest !== undefined;
  if (lazy) {
    bridge.cached = manifest;
    bridge.manifest = manifest;
  } else {
    try {
      manifest = await bridge.start();
    } catch (err) {
      problems.push(startFailed(err));
    }
  }
  const subscribed = new Set(); // hook ids with a pi handler
  const commands = new Set(); // command names registered with pi

  for (const tool of manifest?.tools ?? []) {
    try {
      bridge.registerTool(tool);
    } catch (err) {
      problems.push(`pi-ext extension "${CONFIG.name}": could not register tool ${tool.name}: ${err?.message ?? err}`);
    }
  }
  for (const flag of manifest?.flags ?? []) {
    try {
      pi.registerFlag(flag.name, {
        description: flag.description,
        type: flag.type,
        ...(flag.default !== undefined ? { default: flag.default } : {}),
      });
    } catch (err) {
      problems.push(`pi-ext extension "${CONFIG.name}": could not register flag --${flag.name}: ${err?.message ?? err}`);
    }
  }
  const registerHandlers = (m) => {
    for (const hook of m?.hooks ?? []) {
      if (subscribed.has(hook.id)) continue;
      try {
        pi.on(hook.event, (event, ctx) => bridge.callHook(hook, event, ctx));
        subscribed.add(hook.id);
      } catch (err) {
        problems.push(`pi-ext extension "${CONFIG.name}": could not subscribe hook ${hook.id}: ${err?.message ?? err}`);
      }
    }
    for (const command of m?.commands ?? []) {
      if (commands.has(command.name)) continue;
      registerCommand(command);
      commands.add(command.name);
    }
  };
  const registerCommand = (command) => {
    try {
      const completions = command.completions ?? [];
      pi.registerCommand(command.name, {
        description: command.description,
        ...(completions.length
          ? {
              getArgumentCompletions: (prefix) =>
                completions.filter((c) => c.startsWith(prefix ?? "")).map((c) => ({ value: c, label: c })),
            }
          : {}),
        handler: (args, ctx) => bridge.callCommand(command.name, args, ctx),
      });
      if (command.shortcut) {
        // Terminal UI only: pi ignores shortcuts in RPC and print mode.
        pi.registerShortcut(command.shortcut, {
          description: command.description,
          handler: (ctx) => bridge.callCommand(command.name, "", ctx).catch((err) => {
            bridge.log.line("warn", `shortcut ${command.shortcut}: ${err?.message ?? err}`);
            ctx?.ui?.notify?.(`/${command.name} failed: ${err?.message ?? err}`, "error");
          }),
        });
      }
    } catch (err) {
      problems.push(`pi-ext extension "${CONFIG.name}": could not register command /${command.name}: ${err?.message ?? err}`);
    }
  };
  registerHandlers(manifest);
  const warningsOf = (m) => (m?.problems ?? []).map((p) => `${label}: ${p}`);
  for (const p of problems) bridge.log.line("warn", p);

  pi.on("session_start", (_event, ctx) => {
    bridge.lastCtx = ctx;
    const show = (list, level) => {
      try {
        for (const p of list) ctx.ui.notify(p, level);
      } catch {
        // Showing a problem must never become one.
      }
    };
    show(problems, "error");
    const shown = new Set();
    const warn = (m) => {
      const fresh = warningsOf(m).filter((p) => !shown.has(p));
      for (const p of fresh) {
        shown.add(p);
        bridge.log.line("warn", p);
      }
      show(fresh, "warning");
    };
    // Problems known without running the binary (a dependency cycle, a
    // schema) at once; a lazy start adds those of loading (a failed
    // on_load, invalid settings) when the process has started.
    warn(manifest);
    if (!lazy) return;
    bridge.start().then(warn, (err) => show([startFailed(err)], "error"));
  });
  pi.on("session_shutdown", () => {
    if (DEV) fs.unwatchFile(BINARY);
    bridge.stop();
  });

  if (DEV && manifest) {
    // Reflect a rebuilt binary's tools, commands and hooks in pi.
    const apply = (fresh, before) => {
      for (const tool of fresh.tools ?? []) bridge.registerTool(tool);
      const gone = (before?.tools ?? []).map((t) => t.name).filter((n) => !(fresh.tools ?? []).some((t) => t.name === n));
      if (gone.length) {
        try {
          pi.setActiveTools(pi.getActiveTools().filter((n) => !gone.includes(n)));
        } catch (err) {
          bridge.log.line("warn", `could not deactivate removed tools: ${err?.message ?? err}`);
        }
      }
      registerHandlers(fresh);
    };
    let timer;
    let reloading = Promise.resolve();
    fs.watchFile(BINARY, { interval: 250 }, (cur, prev) => {
      if (cur.mtimeMs === prev.mtimeMs && cur.size === prev.size) return;
      if (cur.size === 0) return; // being written
      clearTimeout(timer);
      timer = setTimeout(() => {
        reloading = reloading
          .then(() => bridge.hotReload(apply))
          .then(
            () => {
              bridge.log.line("info", "hot reload: switched to the rebuilt binary");
              bridge.lastCtx?.ui?.notify?.(`pi-ext: reloaded "${CONFIG.name}"`, "info");
            },
            (err) => {
              bridge.log.line("error", `hot reload failed: ${err?.message ?? err}`);
              bridge.lastCtx?.ui?.notify?.(`pi-ext: hot reload of "${CONFIG.name}" failed: ${err?.message ?? err}`, "error");
            },
          );
      }, 300);
    });
  }
}
