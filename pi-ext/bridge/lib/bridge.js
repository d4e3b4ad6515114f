// @ts-check
// The extension as pi sees it: tools, hooks and commands that become
// requests to the extension process, and the extension's requests (pi's
// API, its UI, dialogs) that become calls into pi.

import { API, UI_CALLS, wireArgs } from "./api.js";
import { BusListeners } from "./bus.js";
import { ChildConnection } from "./child.js";
import { Deadline } from "./clock.js";
import { Connection } from "./connection.js";
import { Dialogs } from "./dialogs.js";
import { toolDefinition } from "./definitions.js";
import { hookResult, sameMeta, shortUpdate, slimMeta, slimUpdate, STREAMING_EVENTS, trustContext } from "./hooks.js";
import { jsonText } from "./json.js";
import { sanitizeCompletions, sanitizeManifest, sanitizeTool } from "./manifest-text.js";
import { ModelCalls } from "./models.js";
import { providerIdleMs, providerMaxBytes } from "./provider.js";
import { ignoredToolFields, passedToolFields } from "./features.js";
import { userBashResult } from "./builtin-tools.js";
import { prepareArgumentsSync } from "./tools.js";
import { AnswerMemory, ListMirror, PayloadMirror, StaleAnswer } from "./mirror.js";
import { seconds } from "./options.js";
import { BRIDGE_VERSION, codes, messageOf, RpcError } from "./protocol.js";
import { notifyTerminal } from "./terminal-notify.js";
import { program, runOnTerminal } from "./terminal-handover.js";
import { TuiHost } from "./tui.js";

/** @typedef {import("@mariozechner/pi-coding-agent").ExtensionAPI} ExtensionAPI */
/** @typedef {import("@mariozechner/pi-coding-agent").ExtensionContext} ExtensionContext */
/** @typedef {import("./manifest.js").Manifest} Manifest */
/** @typedef {import("./manifest.js").ToolManifest} ToolManifest */
/** @typedef {import("./manifest.js").HookManifest} HookManifest */
/** @typedef {import("./child.js").WireMessage} WireMessage */

/**
 * A pi call the extension is serving: a tool, hook or command request.
 * @typedef {object} Call
 * @property {ExtensionContext | undefined} ctx its pi context (rebound by newSession, fork, switchSession)
 * @property {number} generation the session generation it started in
 * @property {((update: { content: unknown[], details: unknown }) => void) | undefined} onUpdate
 * @property {Deadline | undefined} pausable a hook's deadline, paused while a dialog of the call is open
 * @property {((events: unknown) => void) | undefined} [onEvents] a provider stream's `provider/event`s
 * @property {import("@mariozechner/pi-ai").OAuthLoginCallbacks} [login] pi's UI of a provider's login (`oauth/ui`)
 */

/**
 * How a call may end early.
 * @typedef {object} CallOptions
 * @property {ExtensionContext} [ctx]
 * @property {Call["onUpdate"]} [onUpdate]
 * @property {string} [raw] params already as JSON text
 * @property {string} [what] names the request in errors
 * @property {Call["login"]} [login]
 * @property {number} [timeoutMs]
 * @property {boolean} [pausable] the deadline pauses while a dialog of the call is open
 * @property {() => Error} [onTimeout] the error a deadline settles the call with
 * @property {AbortSignal} [signal] pi's abort
 * @property {Call["onEvents"]} [onEvents]
 * @property {(id: number) => void} [onId] the request's id, before it is written
 * @property {() => void} [onSent] the request is being written (not called when it could not be)
 */

/** The version of the mirrored forms this bridge sends (see PROTOCOL.md, "Mirrored payloads"). */
const MIRROR = 1;

/** The call was ended by pi's abort signal. */
export class CallAborted extends Error {}

/**
 * @typedef {object} BridgeOptions
 * @property {ExtensionAPI} pi
 * @property {string} name the extension's name
 * @property {number} protocol
 * @property {string} binary
 * @property {string} here the extension's directory (index.js's): for its resource paths
 * @property {import("./log.js").Log} log
 * @property {import("./options.js").Limits} limits
 * @property {import("./clock.js").Clock} clock
 * @property {import("./child.js").Launcher} launch
 * @property {import("./manifest.js").Mode} mode
 * @property {() => string} piVersion
 * @property {() => string} [piDir] pi's package directory ("" when unknown)
 * @property {() => { command: string, args: string[] }} [piCommand] how to start pi as it was started
 * @property {NodeJS.ProcessEnv} env the child's environment
 * @property {import("./dialogs.js").Queue} dialogQueue
 * @property {() => Promise<import("./dialogs.js").PiModule>} loadPi
 * @property {() => Promise<import("./models.js").PiAi>} loadAi pi's own pi-ai module (model calls)
 * @property {boolean} [mirrorCheck] PI_EXT_MIRROR_CHECK=1: mirrored lists carry their whole JSON, for the extension to check
 * @property {import("./terminal-notify.js").TerminalOutput} [terminal] where terminal notifications go (default: pi's stdout, PowerShell)
 */

export class Bridge {
  /** @param {BridgeOptions} o */
  constructor(o) {
    this.o = o;
    this.pi = o.pi;
    this.log = o.log;
    /** @type {Manifest | undefined} the live manifest (before the first handshake: the recorded one) */
    this.manifest = undefined;
    /** @type {Manifest | undefined} the recorded manifest the tools were registered from */
    this.cached = undefined;
    /** @type {Map<string, string>} tools registered from the record that the live process lacks → why */
    this.unavailable = new Map();
    /** @type {Map<string, ToolManifest>} every tool registered with pi */
    this.tools = new Map();
    /** @type {Set<string>} tool definition fields already told to be ignored by this pi */
    this.ignoredTold = new Set();
    /** @type {string[]} notices for the user, until a session shows them */
    this.notices = [];
    /** @type {Map<string, ChildConnection>} tools registered at run time → the process that did */
    this.runtimeTools = new Map();
    /**
     * pi's session: `generation` counts session_starts; `ctx` is the current
     * session's context (none before the first start and after the shutdown).
     * @type {{ generation: number, ctx: ExtensionContext | undefined, startEvent: unknown }}
     */
    this.session = { generation: 0, ctx: undefined, startEvent: undefined };
    /** @type {Set<ChildConnection>} processes not retired yet */
    this.children = new Set();
    /** @type {{ manifest: Manifest | undefined, hooks: HookManifest[], ids: string[] } | undefined} */
    this.updateCache = undefined;
    this.bus = new BusListeners(
      () => this.pi.events,
      (child, channel, data) => child.notify("bus/event", { channel, data: data ?? null }),
    );
    this.dialogs = new Dialogs({
      queue: o.dialogQueue,
      clock: o.clock,
      interactive: o.mode === "interactive",
      loadPi: o.loadPi,
      log: o.log,
      onCount: (child, call, delta) => {
        const deadline = call === null ? undefined : child.calls.get(call)?.pausable;
        if (delta > 0) deadline?.pause();
        else deadline?.resume();
      },
    });
    this.tui = new TuiHost({
      pi: o.pi,
      log: o.log,
      name: o.name,
      mode: o.mode,
      clock: o.clock,
      ctxFor: (child, p) => this.ctxFor(child, p),
      sessionCtx: () => this.session.ctx,
      acquire: () => this.connection.acquire(),
      loadPi: o.loadPi,
    });
    this.models = new ModelCalls({ loadAi: o.loadAi, loadPi: o.loadPi });
    /** @type {import("./models.js").PiAi | undefined} pi's pi-ai, loaded when providers are registered */
    this.ai = undefined;
    /** @type {import("./builtin-tools.js").PiModule | undefined} pi's module, loaded when built-in tools are registered */
    this.piModule = undefined;
    /**
     * Model calls in flight, with the pi call they belong to (null: none).
     * @type {Set<{ child: ChildConnection, call: number | null, controller: AbortController }>}
     */
    this.modelCalls = new Set();
    this.connection = new Connection({
      launch: () => this.launch(),
      handshake: (child, snapshots) => this.handshake(child, snapshots),
      replay: (child) => this.replay(child),
      retire: (child) => this.retire(child),
      log: o.log,
      clock: o.clock,
      drainMs: o.limits.drainMs,
    });
  }

  // --- the process -------------------------------------------------------

  /** @private */
  launch() {
    const proc = this.o.launch(this.o.binary, { ...this.o.env, PI_EXT_BRIDGE: BRIDGE_VERSION });
    const child = new ChildConnection({
      proc,
      binary: this.o.binary,
      log: this.log,
      clock: this.o.clock,
      limits: this.o.limits,
      onMessage: (c, msg) => this.onExtensionMessage(c, msg),
      onExit: (c) => this.connection.exited(c),
    });
    child.generations.push({ firstId: child.nextId, generation: this.session.generation });
    this.children.add(child);
    return child;
  }

  /**
   * @param {ChildConnection} child
   * @param {Record<string, unknown> | undefined} snapshots
   * @private
   */
  async handshake(child, snapshots) {
    const { protocol, limits } = this.o;
    const mode = this.hostMode();
    const { id, promise } = child.request("initialize", {
      protocol,
      bridge: BRIDGE_VERSION,
      pi: this.o.piVersion(),
      ...(this.o.piDir?.() ? { piDir: this.o.piDir() } : {}),
      ...(this.o.piCommand ? { piCommand: this.o.piCommand() } : {}),
      mode,
      hasUI: mode === "interactive" || mode === "rpc",
      cwd: process.cwd(),
      extensionDir: this.o.here,
      mirror: MIRROR,
      ...(snapshots ? { snapshots } : {}),
    });
    const timer = this.o.clock.setTimeout(() => {
      child.fail(id, new Error(`initialize timed out after ${seconds(limits.handshakeTimeoutMs)} (PI_EXT_HANDSHAKE_TIMEOUT_MS)`));
    }, limits.handshakeTimeoutMs);
    /** @type {any} */
    let result;
    try {
      result = await promise;
    } finally {
      this.o.clock.clearTimeout(timer);
    }
    if (!result || result.protocol !== protocol || !result.manifest) {
      throw new Error(
        `protocol version mismatch: bridge speaks ${protocol}, binary answered ${JSON.stringify(result?.protocol)}; ` +
          `run \`${this.o.binary} install\` again`,
      );
    }
    child.mirror = result.mirror === MIRROR;
    this.setManifest(result.manifest);
  }

  /**
   * After a crash restart: the new process's session_start hooks get the
   * session's start again, so that what they build (state read from the
   * session, tools registered at run time) comes back.
   * @param {ChildConnection} child
   * @private
   */
  async replay(child) {
    const { startEvent, ctx } = this.session;
    if (startEvent === undefined) return;
    for (const hook of this.manifest?.hooks ?? []) {
      if (hook.event !== "session_start") continue;
      try {
        const payload = jsonText(startEvent, "the session_start event") ?? "null";
        await this.call(child, "hook/call", undefined, {
          raw: this.hookParams(hook, payload),
          ctx,
          timeoutMs: this.hookTimeout(hook),
          pausable: true,
          onTimeout: () => new Error(`hook ${hook.id} timed out after ${seconds(this.hookTimeout(hook))}`),
        });
      } catch (err) {
        this.log.line("warn", `replaying session_start to hook ${hook.id} after a restart failed: ${messageOf(err)}`);
      }
    }
  }

  /**
   * A process was stopped or is gone: its dialogs close, its bus listeners
   * and running exec calls end.
   * @param {ChildConnection} child
   * @private
   */
  retire(child) {
    if (!this.children.delete(child)) return;
    this.dialogs.dismiss(child);
    this.tui.retire(child);
    this.bus.removeAll(child);
    for (const controller of child.aborts.values()) controller.abort();
  }

  /**
   * The live manifest. Tools registered from the recorded manifest that the
   * process does not serve (an extension whose on_load failed) answer with
   * the reason instead of reaching the process.
   * @param {Manifest} live
   */
  setManifest(live) {
    // What pi shows of it is the extension's text (lib/manifest-text.js).
    const manifest = sanitizeManifest(live);
    if (this.cached) {
      const live = new Set((manifest.tools ?? []).map((t) => t.name));
      const why = (manifest.problems ?? []).join("; ") || "the extension no longer provides it";
      this.unavailable = new Map((this.cached.tools ?? []).filter((t) => !live.has(t.name)).map((t) => [t.name, why]));
    }
    for (const tool of manifest.tools ?? []) this.tools.set(tool.name, tool);
    this.manifest = manifest;
  }

  /**
   * Start the process now (pi's session started), or join the start under
   * way; resolves to the live manifest.
   */
  async start() {
    await this.connection.acquire();
    return this.manifest;
  }

  /** Calls in flight on the serving process. */
  busy() {
    const child = this.connection.child;
    return child !== undefined && child.calls.size > 0;
  }

  /**
   * pi's session is ending: the process stops, once calls in flight (a
   * command replacing the session) have finished.
   */
  stop() {
    this.tui.sessionEnded();
    this.session.ctx = undefined;
    // Model calls of no live pi call belong to the session that ends; those
    // of a call still running (a command replacing the session) go on.
    for (const m of this.modelCalls) {
      if (m.call === null || !m.child.calls.has(m.call)) m.controller.abort();
    }
    this.connection.stop(this.busy());
  }

  /**
   * Dev mode: switch to a rebuilt binary without restarting pi. Calls in
   * flight finish first (for up to `drainMs`); the old process's on_unload
   * snapshots go to the new one's on_load.
   * @returns {Promise<Manifest | undefined>}
   */
  async hotReload() {
    const { clock, limits } = this.o;
    const end = clock.now() + limits.drainMs;
    while (this.busy() && clock.now() < end) await new Promise((resolve) => clock.setTimeout(() => resolve(undefined), 50));
    await this.connection.reload(async (old) => {
      const { id, promise } = old.request("unload", {});
      const timer = clock.setTimeout(() => old.fail(id, new Error(`unload timed out after ${seconds(limits.drainMs)}`)), limits.drainMs);
      try {
        const result = /** @type {{ snapshots?: Record<string, unknown> } | null} */ (await promise);
        return result?.snapshots ?? {};
      } finally {
        clock.clearTimeout(timer);
      }
    });
    return this.manifest;
  }

  // --- pi's session ----------------------------------------------------------

  /**
   * How pi runs, for the extension: pi's own `ctx.mode` (pi ≥ 0.78.1;
   * `"tui"` is the protocol's `"interactive"`) once a session is there,
   * else what the bridge derived from pi's command line.
   * @returns {import("./manifest.js").Mode}
   */
  hostMode() {
    let reported;
    try {
      reported = /** @type {any} */ (this.session.ctx)?.mode;
    } catch {
      // A stale context: the command line's.
    }
    if (reported === "tui") return "interactive";
    if (reported === "rpc" || reported === "json" || reported === "print") return reported;
    return this.o.mode;
  }

  /**
   * pi started a session: calls from now on belong to a new generation.
   * @param {unknown} event
   * @param {ExtensionContext} ctx
   */
  sessionStarted(event, ctx) {
    const generation = ++this.session.generation;
    this.session.ctx = ctx;
    this.session.startEvent = event;
    this.tui.sessionStarted(ctx, this.manifest);
    for (const child of this.children) child.generations.push({ firstId: child.nextId, generation });
  }

  /**
   * The session generation request `id` of `child` started in.
   * @param {ChildConnection} child
   * @param {number} id
   */
  generationOf(child, id) {
    let generation = -1;
    for (const mark of child.generations) if (mark.firstId <= id) generation = mark.generation;
    return generation;
  }

  /**
   * The pi context a message of the extension acts in. A live call's own;
   * for a call that has ended, the current session's only if the call
   * belonged to it; without a call, the current session's. Never one of
   * another session.
   * @param {ChildConnection} child
   * @param {{ call?: unknown, session?: unknown }} p
   * @returns {ExtensionContext}
   */
  ctxFor(child, p) {
    const { session } = this;
    if (typeof p.call === "number") {
      const call = child.calls.get(p.call);
      if (call?.ctx) return call.ctx;
      const generation =
        typeof p.session === "number" ? p.session : call ? call.generation : this.generationOf(child, p.call);
      if (generation !== session.generation || !session.ctx) {
        throw new RpcError(codes.SESSION_ENDED, "the pi session of this call has ended");
      }
      return session.ctx;
    }
    if (!session.ctx) {
      const why = session.generation === 0 ? "no pi session has started yet" : "the pi session has ended";
      throw new RpcError(codes.SESSION_ENDED, why);
    }
    return session.ctx;
  }

  // --- pi → extension --------------------------------------------------------

  /**
   * Send a request on behalf of a pi call and settle with its answer, the
   * process's end, the deadline, or pi's abort (which also cancels it in
   * the extension and closes its dialogs).
   * @param {ChildConnection} child
   * @param {string} method
   * @param {unknown} params
   * @param {CallOptions} o
   * @returns {Promise<any>}
   */
  call(child, method, params, o) {
    if (o.signal?.aborted) return Promise.reject(new CallAborted("aborted"));
    /** @type {Call} */
    const call = {
      ctx: o.ctx,
      generation: this.session.generation,
      onUpdate: o.onUpdate,
      pausable: undefined,
      onEvents: o.onEvents,
      login: o.login,
    };
    let id = 0;
    /** @param {Error} err */
    const giveUp = (err) => {
      if (!child.fail(id, err)) return;
      child.cancel(id);
      this.dialogs.dismiss(child, id);
    };
    // Armed before the request is written: the extension may open a dialog at once.
    const deadline =
      o.timeoutMs === undefined
        ? undefined
        : new Deadline(this.o.clock, o.timeoutMs, () => giveUp(o.onTimeout?.() ?? new Error(`${method} timed out`)));
    if (o.pausable) call.pausable = deadline;
    const request = child.request(method, params, {
      raw: o.raw,
      what: o.what,
      onId: (requestId) => {
        child.calls.set(requestId, call);
        o.onId?.(requestId);
        o.onSent?.();
      },
    });
    id = request.id;
    const promise = request.promise;
    const onAbort = () => giveUp(new CallAborted("aborted"));
    o.signal?.addEventListener("abort", onAbort, { once: true });
    return promise.finally(() => {
      deadline?.cancel();
      o.signal?.removeEventListener("abort", onAbort);
      child.calls.delete(id);
      if (this.connection.state.name === "draining" && !this.busy()) this.connection.drained();
    });
  }

  /** @returns {Promise<ChildConnection>} */
  async connect() {
    return this.connection.acquire();
  }

  /**
   * What a provider's stream (lib/provider.js) needs of the bridge. `ai`
   * (pi's pi-ai) is loaded before providers are registered.
   * @returns {import("./provider.js").StreamHost}
   */
  providerHost() {
    return {
      ai: /** @type {import("./models.js").PiAi} */ (this.ai),
      connect: async (provider) => {
        /** @type {ChildConnection} */
        let child;
        try {
          child = await this.connect();
        } catch (err) {
          return { why: `the extension process could not start: ${messageOf(err)}` };
        }
        if (!this.manifest?.providers?.some((p) => p.name === provider)) {
          const problems = (this.manifest?.problems ?? []).join("; ");
          return { why: `the extension no longer provides it${problems ? ` (${problems})` : ""}` };
        }
        return { child };
      },
      request: (child, params, o) =>
        this.call(child, "provider/stream", { .../** @type {object} */ (params), session: this.session.generation }, {
          what: "the provider request",
          signal: o.signal,
          onEvents: o.onEvents,
          onId: o.onId,
        }),
      cancel: (child, id) => {
        if (child.fail(id, new Error("the provider stream has ended"))) child.cancel(id);
      },
      clock: this.o.clock,
      idleMs: providerIdleMs(this.o.env),
      maxBytes: providerMaxBytes(this.o.env),
      log: this.log,
      providerCall: async (provider, op, args, o) => {
        const child = await this.connect();
        return this.call(child, "provider/call", { provider, op, args, session: this.session.generation }, {
          what: `the ${op} of provider ${provider}`,
          signal: o.signal,
          login: o.login,
          ctx: this.session.ctx,
        });
      },
    };
  }

  /**
   * What a virtual model's route (lib/virtual-models.js) needs of the bridge.
   * @returns {import("./virtual-models.js").RouteCall}
   */
  routeCall() {
    return async (params, o) => {
      const child = await this.connect();
      return this.call(child, "virtual/route", { ...params, session: this.session.generation }, {
        what: `the route of virtual model ${params.provider}/${params.id}`,
        signal: o.signal,
        ctx: o.ctx,
      });
    };
  }

  /**
   * `oauth/ui`: a provider login's prompt, link, device code, progress or
   * choice, shown by pi's login UI (the callbacks pi gave the login).
   * @param {ChildConnection} child
   * @param {number} id
   * @param {any} p
   * @private
   */
  async oauthUi(child, id, p) {
    const login = typeof p.call === "number" ? child.calls.get(p.call)?.login : undefined;
    if (!login) return child.respondError(id, codes.INVALID_PARAMS, "oauth/ui: no login of this call is running");
    const a = p.args ?? {};
    /** @type {unknown} */
    let result = null;
    switch (p.kind) {
      case "auth":
        login.onAuth({ url: String(a.url ?? ""), ...(typeof a.instructions === "string" ? { instructions: a.instructions } : {}) });
        break;
      case "deviceCode":
        login.onDeviceCode({ userCode: String(a.userCode ?? ""), verificationUri: String(a.verificationUri ?? "") });
        break;
      case "prompt":
        result = await login.onPrompt({ message: String(a.message ?? ""), ...(typeof a.placeholder === "string" ? { placeholder: a.placeholder } : {}) });
        break;
      case "progress":
        login.onProgress?.(String(a.message ?? ""));
        break;
      case "select":
        result = (await login.onSelect({ message: String(a.message ?? ""), options: Array.isArray(a.options) ? a.options : [] })) ?? null;
        break;
      default:
        return child.respondError(id, codes.INVALID_PARAMS, `oauth/ui: unknown kind ${JSON.stringify(p.kind)}`);
    }
    child.respond(id, result, "pi's login UI");
  }

  /**
   * What the operations of built-in tools (lib/tools.js) need of the bridge.
   * @returns {import("./builtin-tools.js").OpsHost}
   */
  opsHost() {
    return {
      pi: () => this.piModule,
      request: async (method, params, o) => {
        const child = await this.connect();
        try {
          return await this.call(child, method, { ...params, session: this.session.generation }, {
            ctx: o.ctx,
            signal: o.signal,
            onEvents: o.onData,
            what: `the ${method} request`,
          });
        } catch (err) {
          if (err instanceof CallAborted) throw new Error("aborted");
          throw err;
        }
      },
      baseEnv: { ...this.o.env, PI_EXT_BRIDGE: BRIDGE_VERSION },
      release: (handle) => this.connection.child?.notify("ops/release", { id: handle }),
    };
  }

  /**
   * Register one tool with pi (from a manifest, or at run time).
   * @param {ToolManifest} tool
   */
  registerTool(tool) {
    this.tools.set(tool.name, tool);
    this.pi.registerTool({
      ...toolDefinition(tool, (toolCallId, params, signal, onUpdate, ctx) =>
        this.callTool(tool.name, toolCallId, params, signal, /** @type {Call["onUpdate"]} */ (onUpdate), ctx),
      ),
      ...this.tui.toolRenderers(tool),
      ...this.definitionFields(tool),
    });
  }

  /**
   * The definition fields of pi ≥ 0.82 a tool sets (pi 0.73.1 ignores
   * them: the user is told once per field), and `prepareArguments`, which
   * pi calls synchronously: it runs the extension's function in a short
   * run of the binary (`--pi-prepare-arguments`).
   * @param {ToolManifest} tool
   * @private
   */
  definitionFields(tool) {
    const fields = passedToolFields(/** @type {Record<string, unknown>} */ (/** @type {unknown} */ (tool)));
    if (tool.reachesTools === "all") fields.reachesTools = () => "all";
    for (const notice of ignoredToolFields(tool.name, Object.keys(fields), this.o.piVersion(), this.ignoredTold)) {
      const line = `pi-ext extension "${this.o.name}": ${notice}`;
      this.log.line("warn", line);
      if (!this.session.ctx) this.notices.push(line);
      else {
        try {
          this.session.ctx.ui.notify(line, "warning");
        } catch {
          // Showing a notice must never become a problem.
        }
      }
    }
    if (tool.prepareArguments === true) {
      const { binary, env, log } = this.o;
      fields.prepareArguments = (/** @type {unknown} */ args) =>
        prepareArgumentsSync({ binary, env: { ...env, PI_EXT_BRIDGE: BRIDGE_VERSION }, tool: tool.name, args, log });
    }
    return fields;
  }

  /**
   * Notices for the user not shown yet (pi's session shows them).
   * @returns {string[]}
   */
  takeNotices() {
    return this.notices.splice(0);
  }

  /**
   * @param {string} tool
   * @param {string} toolCallId
   * @param {unknown} args
   * @param {AbortSignal | undefined} signal
   * @param {Call["onUpdate"]} onUpdate
   * @param {ExtensionContext | undefined} ctx
   */
  async callTool(tool, toolCallId, args, signal, onUpdate, ctx) {
    const acquired = this.connection.acquire();
    const child = acquired instanceof Promise ? await acquired : acquired;
    const why = this.unavailable.get(tool);
    if (why !== undefined) throw new Error(`tool ${tool} is not available: ${why}`);
    const timeoutMs = this.tools.get(tool)?.timeoutMs;
    /** @type {any} */
    let result;
    try {
      result = await this.call(
        child,
        "tool/call",
        { tool, toolCallId, args, session: this.session.generation },
        {
          ctx,
          onUpdate,
          what: `the arguments of tool \`${tool}\``,
          timeoutMs: typeof timeoutMs === "number" && timeoutMs > 0 ? timeoutMs : undefined,
          onTimeout: () => new Error(`tool \`${tool}\` timed out after ${seconds(Number(timeoutMs))}`),
          signal,
        },
      );
    } catch (err) {
      if (err instanceof CallAborted) throw new Error("Tool call aborted");
      const owner = this.runtimeTools.get(tool);
      if (err instanceof RpcError && err.code === codes.UNKNOWN_TOOL && owner !== undefined && owner !== child) {
        throw new Error(
          `tool ${tool} was registered at run time by an extension process that has since restarted, ` +
            `and the new process has not registered it again (register it from a session_start hook ` +
            `so that it comes back after a restart)`,
        );
      }
      throw err;
    }
    const content = Array.isArray(result?.content) ? result.content : [];
    if (result?.views) this.tui.toolViews(toolCallId, result.views, result.isError === true);
    if (result?.isError) {
      const text = content
        .filter((/** @type {any} */ c) => c?.type === "text")
        .map((/** @type {any} */ c) => c.text)
        .join("\n");
      throw new Error(text || "tool failed");
    }
    return {
      content,
      details: result?.details ?? {},
      ...(result?.structuredContent !== undefined ? { structuredContent: result.structuredContent } : {}),
      ...(result?.terminate === true ? { terminate: true } : {}),
    };
  }

  /**
   * Whether the live manifest (or, before the handshake, the recorded one) has `hook`.
   * @param {HookManifest} hook
   */
  hasHook(hook) {
    return this.manifest?.hooks?.some((h) => h.id === hook.id) ?? false; // false: removed by a hot reload
  }

  /**
   * The deadline of a hook's calls.
   * @param {HookManifest} hook
   */
  hookTimeout(hook) {
    const live = this.manifest?.hooks?.find((h) => h.id === hook.id) ?? hook;
    return typeof live.timeoutMs === "number" && live.timeoutMs > 0 ? live.timeoutMs : this.o.limits.hookTimeoutMs;
  }

  /**
   * @param {HookManifest} hook
   * @param {string} payload the event as JSON
   * @private
   */
  hookParams(hook, payload) {
    return `{"hook":${JSON.stringify(hook.id)},"session":${this.session.generation},"payload":${payload}}`;
  }

  /**
   * pi's handler of a hook's event.
   * @param {HookManifest} hook
   * @param {any} event
   * @param {ExtensionContext | undefined} ctx
   */
  async callHook(hook, event, ctx) {
    if (!this.hasHook(hook)) return undefined;
    const mirrored = hook.event === "context" || hook.event === "context_with_system" || hook.event === "before_provider_request";
    if (hook.event === "project_trust") {
      // The hook asks in pi's trust context (its own UI and hasUI), and
      // hears what that context allows.
      event = { ...event, mode: ctx?.mode, hasUI: ctx?.hasUI === true };
      if (ctx) ctx = trustContext(ctx);
    }
    /** @type {string | undefined} */
    let params;
    if (!mirrored) {
      try {
        const payload = jsonText(hook.event === "message_update" ? slimUpdate(event) : event, `the ${hook.event} event`) ?? "null";
        params = this.hookParams(hook, payload);
      } catch (err) {
        return this.hookFailed(hook, err);
      }
    }
    if (params !== undefined && STREAMING_EVENTS.has(hook.event)) {
      // Streaming notifications (one per delta) are not awaited: pi's agent
      // loop must not wait on a process round trip per token.
      const line = `{"method":"hook/notify","params":${params}}`;
      const child = this.connection.child;
      if (child && !child.exited) child.sendSoon(line);
      else this.connection.starting?.then((c) => c.sendSoon(line), () => {}); // in order, after the handshake
      return undefined;
    }
    const timeoutMs = this.hookTimeout(hook);
    /** @type {CallOptions} */
    const options = {
      ctx,
      timeoutMs,
      pausable: true,
      onTimeout: () => {
        this.notifyTimeout(hook, timeoutMs, ctx);
        return new Error(`hook ${hook.id} timed out after ${seconds(timeoutMs)}`);
      },
      // An event with its own signal (session_before_compact, _tree: the
      // user cancelled) cancels the hook, else the run's.
      signal: event?.signal instanceof AbortSignal && !event.signal.aborted ? event.signal : signalOf(ctx),
    };
    let out;
    try {
      if (this.connection.starting) await this.connection.starting; // the live manifest decides
      if (!this.hasHook(hook)) return undefined;
      const child = await this.connect();
      out =
        params === undefined
          ? await this.callMirrored(child, hook, event, options)
          : await this.call(child, "hook/call", undefined, { ...options, raw: params });
    } catch (err) {
      if (err instanceof CallAborted) {
        // pi aborted the run: settle at once; a tool_call is blocked (fail closed).
        return hook.event === "tool_call" ? { block: true, reason: `pi-ext hook ${hook.id}: aborted` } : undefined;
      }
      return this.hookFailed(hook, err);
    }
    try {
      if (hook.event === "user_bash") return userBashResult(out, this.opsHost(), ctx);
      return hookResult(hook.event, event, out);
    } catch (err) {
      return this.hookFailed(hook, err);
    }
  }

  /**
   * A `context` or `before_provider_request` hook: its list (the messages,
   * the request body) as edits of what this hook was sent last, when the
   * process reads them; the whole event otherwise. A process that has
   * another list (restarted, or out of step) answers MIRROR_MISMATCH, and
   * the call is sent again once with the whole list.
   * @param {ChildConnection} child
   * @param {HookManifest} hook
   * @param {any} event
   * @param {CallOptions} options
   * @private
   */
  async callMirrored(child, hook, event, options) {
    const isContext = hook.event !== "before_provider_request";
    const list = isContext ? event?.messages : event?.payload;
    const fits = isContext ? Array.isArray(list) : list !== null && typeof list === "object" && !Array.isArray(list);
    if (!child.mirror || !fits) {
      const payload = jsonText(event, `the ${hook.event} event`) ?? "null";
      return this.call(child, "hook/call", undefined, { ...options, raw: this.hookParams(hook, payload) });
    }
    for (let attempt = 0; ; attempt++) {
      let slot = child.mirrors.get(hook.id);
      if (!slot) {
        slot = isContext ? new ListMirror() : new PayloadMirror();
        child.mirrors.set(hook.id, slot);
      }
      /** @type {AnswerMemory | undefined} */
      let answers;
      if (isContext) {
        answers = child.answers.get(hook.id);
        if (!answers) child.answers.set(hook.id, (answers = new AnswerMemory()));
      }
      if (attempt > 0) {
        slot.reset();
        answers?.reset();
      }
      const { update, commit } = slot.diff(list, this.o.mirrorCheck === true);
      if (answers && answers.gen !== null) /** @type {import("./mirror.js").ListUpdate} */ (update).prior = answers.gen;
      const text = jsonText(update, `the ${hook.event} event`) ?? "null";
      const raw = `{"hook":${JSON.stringify(hook.id)},"session":${this.session.generation},"${isContext ? "context" : "provider"}":${text}}`;
      try {
        const out = await this.call(child, "hook/call", undefined, { ...options, raw, onSent: commit });
        // The answer's edits, against this call's input and the hook's
        // previous answer (hookResult passes the list on).
        if (answers && out !== null && typeof out === "object" && "ops" in out) return { messages: answers.apply(list, out) };
        return out;
      } catch (err) {
        const again = err instanceof StaleAnswer || (err instanceof RpcError && err.code === codes.MIRROR_MISMATCH);
        if (attempt === 0 && again) {
          this.log.line("info", `hook ${hook.id}: the extension's copy was out of step (${err.message}); sending the whole list`);
          continue;
        }
        throw err;
      }
    }
  }

  /**
   * pi's handler of `message_update` when the extension has hooks on it
   * (one handler for all of them): the event joins this turn's
   * `hook/updates` line, as a short tuple for a delta, with the message's
   * metadata only when it changed. Nothing waits for the extension.
   * @param {any} event
   */
  onMessageUpdate(event) {
    const hooks = this.updateHooks();
    if (hooks.length === 0) return undefined;
    const child = this.connection.child;
    if (child && !child.exited) this.queueUpdate(child, hooks, event);
    else this.connection.starting?.then((c) => this.queueUpdate(c, hooks, event), () => {}); // in order, after the handshake
    return undefined;
  }

  /**
   * @param {ChildConnection} child
   * @param {HookManifest[]} hooks
   * @param {any} event
   * @private
   */
  queueUpdate(child, hooks, event) {
    if (!child.mirror) {
      // A process that predates hook/updates: one notification per hook.
      for (const hook of hooks) void this.callHook(hook, event, undefined);
      return;
    }
    const message = event?.message;
    let meta;
    if (!sameMeta(message, child.metaSource)) {
      meta = slimMeta(message);
      child.metaSource = message;
    }
    child.queueUpdate(this.updateHookIds(hooks), this.session.generation, shortUpdate(event?.assistantMessageEvent), meta);
  }

  /**
   * The live manifest's `message_update` hooks (cached per manifest).
   * @private
   */
  updateHooks() {
    const manifest = this.manifest;
    let cache = this.updateCache;
    if (!cache || cache.manifest !== manifest) {
      const hooks = (manifest?.hooks ?? []).filter((h) => h.event === "message_update");
      cache = this.updateCache = { manifest, hooks, ids: hooks.map((h) => h.id) };
    }
    return cache.hooks;
  }

  /**
   * The ids of `hooks` (the same array for the same manifest, which keeps
   * one turn's events on one line).
   * @param {HookManifest[]} hooks
   * @private
   */
  updateHookIds(hooks) {
    return this.updateCache?.hooks === hooks ? this.updateCache.ids : hooks.map((h) => h.id);
  }

  /**
   * A hook call failed: a tool_call is blocked (fail closed, as pi does for
   * a throwing handler); other events get an error pi reports and goes on.
   * @param {HookManifest} hook
   * @param {unknown} err
   * @private
   */
  hookFailed(hook, err) {
    const message = `pi-ext hook ${hook.id} failed: ${messageOf(err)}`;
    this.log.line("warn", message);
    if (hook.event === "tool_call") return { block: true, reason: message };
    throw new Error(message);
  }

  /**
   * Tell the user why a hook was given up on.
   * @param {HookManifest} hook
   * @param {number} timeoutMs
   * @param {ExtensionContext | undefined} ctx
   * @private
   */
  notifyTimeout(hook, timeoutMs, ctx) {
    const outcome = hook.event === "tool_call" ? "the tool call was blocked" : "pi went on without it";
    const message = `pi-ext "${this.o.name}": hook ${hook.id} did not answer within ${seconds(timeoutMs)}; ${outcome}`;
    this.log.line("warn", message);
    try {
      (ctx ?? this.session.ctx)?.ui.notify(message, "warning");
    } catch {
      // Telling the user must never become a problem of its own.
    }
  }

  /**
   * @param {string} name
   * @param {string} args
   * @param {ExtensionContext} ctx
   */
  async callCommand(name, args, ctx) {
    const child = await this.connect();
    await this.call(child, "command/call", { command: name, args, session: this.session.generation }, { ctx });
  }

  /**
   * A command's argument completions computed by the extension for the
   * typed prefix; none (pi shows no list) when the extension cannot answer.
   * @param {string} name
   * @param {string} prefix
   * @returns {Promise<{ value: string, label: string, description?: string }[] | null>}
   */
  async completeCommand(name, prefix) {
    try {
      const child = await this.connect();
      const items = await this.call(
        child,
        "command/complete",
        { command: name, prefix },
        { what: `the completions of /${name}`, timeoutMs: this.o.limits.hookTimeoutMs },
      );
      // pi lists them and types the value into its editor: one line each, sanitized.
      return sanitizeCompletions(items);
    } catch (err) {
      this.log.line("warn", `completions of /${name}: ${messageOf(err)}`);
      return null;
    }
  }

  // --- extension → pi --------------------------------------------------------

  /**
   * A request or notification from the extension. Never throws.
   * @param {ChildConnection} child
   * @param {WireMessage} msg
   */
  onExtensionMessage(child, msg) {
    const id = typeof msg.id === "number" ? msg.id : undefined;
    const method = String(msg.method);
    const params = msg.params !== null && typeof msg.params === "object" ? msg.params : {};
    /**
     * @param {number} code
     * @param {string} message
     */
    const fail = (code, message) => {
      if (id !== undefined) child.respondError(id, code, message);
      else this.log.line("warn", `${method}: ${message}`);
    };
    /** @param {unknown} err */
    const failWith = (err) => fail(err instanceof RpcError && err.code !== undefined ? err.code : codes.INTERNAL_ERROR, messageOf(err));
    try {
      switch (method) {
        case "tool/update": {
          const call = typeof params.call === "number" ? child.calls.get(params.call) : undefined;
          call?.onUpdate?.({ content: params.content ?? [], details: params.details ?? {} });
          return;
        }
        case "provider/event": {
          const call = typeof params.stream === "number" ? child.calls.get(params.stream) : undefined;
          call?.onEvents?.(params.events);
          return;
        }
        case "ops/data": {
          const call = typeof params.call === "number" ? child.calls.get(params.call) : undefined;
          call?.onEvents?.(params.data);
          return;
        }
        case "ops/group":
          if (typeof params.call === "number") child.ownsGroup(params.call, params.pgid);
          return;
        case "ui/dialog":
          if (id === undefined) return fail(codes.INVALID_REQUEST, "ui/dialog must be a request");
          this.dialog(child, id, params).catch(failWith);
          return;
        case "cancel":
          if (typeof params.id === "number" && !this.dialogs.cancel(child, params.id)) child.aborts.get(params.id)?.abort();
          return;
        case "api/call":
          if (id === undefined) return fail(codes.INVALID_REQUEST, "api/call must be a request");
          this.apiCall(child, id, params).catch(failWith);
          return;
        case "ui/call":
          return this.uiCall(child, id, params);
        case "models/list":
        case "models/find":
        case "models/auth":
        case "models/complete":
        case "models/serialize":
        case "models/convert":
        case "models/classify":
        case "models/images":
          if (id === undefined) return fail(codes.INVALID_REQUEST, `${method} must be a request`);
          this.modelCall(child, id, method, params).catch(failWith);
          return;
        case "oauth/ui":
          if (id === undefined) return fail(codes.INVALID_REQUEST, "oauth/ui must be a request");
          this.oauthUi(child, id, params).catch(failWith);
          return;
        case "session/sync":
          if (id === undefined) return fail(codes.INVALID_REQUEST, "session/sync must be a request");
          return this.sessionSync(child, id, params);
        default:
          if (this.tui.handles(method)) return this.tui.onMessage(child, id, method, params);
          return fail(codes.METHOD_NOT_FOUND, `the bridge has no method ${method}`);
      }
    } catch (err) {
      failWith(err);
    }
  }

  /**
   * @param {ChildConnection} child
   * @param {number} id
   * @param {any} p
   * @private
   */
  async apiCall(child, id, p) {
    const method = typeof p.method === "string" ? API.get(p.method) : undefined;
    if (!method) {
      return child.respondError(id, codes.METHOD_NOT_FOUND, `pi API method ${p.method} is not available to extensions`);
    }
    const controller = new AbortController();
    child.aborts.set(id, controller);
    try {
      const result = await method({
        pi: this.pi,
        ctx: () => this.ctxFor(child, p),
        args: wireArgs(p.args),
        signal: controller.signal,
        rebind: (fresh) => {
          // After newSession/fork/switchSession pi hands over a context
          // bound to the new session; the old one is stale.
          const call = typeof p.call === "number" ? child.calls.get(p.call) : undefined;
          if (call) call.ctx = fresh;
        },
        subscribe: (channel) => this.bus.subscribe(child, channel),
        unsubscribe: (channel) => this.bus.unsubscribe(child, channel),
        registerTool: (tool) => this.registerRuntimeTool(child, tool),
        messageViews: (message, views) => this.tui.rememberMessageViews(message, views),
        withSession: (handle, fresh) =>
          this.call(child, "session/with", { handle, session: this.session.generation }, { ctx: fresh, what: "the withSession call" }),
        loadPi: async () => /** @type {any} */ (await this.o.loadPi()),
        mode: this.hostMode(),
        piVersion: this.o.piVersion(),
      });
      child.respond(id, result, `pi's answer to ${p.method}`);
    } catch (err) {
      child.respondError(id, err instanceof RpcError && err.code !== undefined ? err.code : codes.INTERNAL_ERROR, messageOf(err));
    } finally {
      child.aborts.delete(id);
    }
  }

  /**
   * A `models/*` request: pi's model registry and model calls (lib/models.js).
   * @param {ChildConnection} child
   * @param {number} id
   * @param {string} method
   * @param {any} p
   * @private
   */
  async modelCall(child, id, method, p) {
    const controller = new AbortController();
    const entry = { child, call: typeof p.call === "number" ? p.call : null, controller };
    child.aborts.set(id, controller);
    this.modelCalls.add(entry);
    try {
      const result = await this.models.handle({
        method,
        params: p,
        id,
        ctx: () => this.ctxFor(child, p),
        signal: controller.signal,
        send: (line) => child.sendSoon(line),
      });
      child.respond(id, result, `pi's answer to ${method}`);
    } catch (err) {
      child.respondError(id, err instanceof RpcError && err.code !== undefined ? err.code : codes.INTERNAL_ERROR, messageOf(err));
    } finally {
      child.aborts.delete(id);
      this.modelCalls.delete(entry);
    }
  }

  /**
   * `session/sync`: the session's entries after the extension's cursor (its
   * copy's session id, count and last id), or all of them when the copy is
   * not a prefix of pi's list (another session, a reopened file). pi's
   * entries are append-only and replaced only together with the session id,
   * so this is exact; the extension walks branches and labels itself.
   * @param {ChildConnection} child
   * @param {number} id
   * @param {any} p
   * @private
   */
  sessionSync(child, id, p) {
    const sm = this.ctxFor(child, p).sessionManager;
    const all = sm.getEntries();
    const sessionId = sm.getSessionId();
    const count = p.count;
    const continues =
      p.sessionId === sessionId &&
      Number.isInteger(count) &&
      count >= 0 &&
      count <= all.length &&
      (count === 0 || all[count - 1]?.id === p.lastId);
    /** @type {Record<string, unknown>} */
    const result = { sessionId, leafId: sm.getLeafId() ?? null, reset: !continues, entries: continues ? all.slice(count) : all };
    if (this.o.mirrorCheck) result.check = JSON.stringify(all);
    child.respond(id, result, "the session's entries");
  }

  /**
   * @param {ChildConnection} child
   * @param {unknown} tool
   * @private
   */
  registerRuntimeTool(child, tool) {
    if (tool === null || typeof tool !== "object" || typeof (/** @type {any} */ (tool).name) !== "string") {
      throw new RpcError(codes.INVALID_PARAMS, "registerTool needs a tool manifest with a name");
    }
    const t = sanitizeTool(/** @type {ToolManifest} */ (tool));
    this.registerTool(t);
    this.unavailable.delete(t.name);
    this.runtimeTools.set(t.name, child);
  }

  /**
   * @param {ChildConnection} child
   * @param {number | undefined} id
   * @param {any} p
   * @private
   */
  uiCall(child, id, p) {
    const fail = (/** @type {number} */ code, /** @type {string} */ message) => {
      if (id !== undefined) child.respondError(id, code, message);
      else this.log.line("warn", `ui/call ${p.method}: ${message}`);
    };
    if (typeof p.method !== "string" || !UI_CALLS.has(p.method)) {
      return fail(codes.METHOD_NOT_FOUND, `ctx.ui.${p.method} is not available to extensions`);
    }
    if (p.method === "notifyTerminal") {
      // Not pi's: the bridge writes the sequence itself (terminal-notify.js).
      this.ctxFor(child, p);
      const [title, body] = wireArgs(p.args);
      const outcome = notifyTerminal({ mode: this.hostMode(), env: this.o.env, title, body }, this.o.terminal);
      if (id !== undefined) child.respond(id, outcome, "the terminal notification's outcome");
      return;
    }
    if (p.method === "runOnTerminal") return this.handOver(child, id, p);
    const result = this.tui.uiCall(child, this.ctxFor(child, p), p.method, wireArgs(p.args));
    if (id !== undefined) child.respond(id, result === undefined ? null : result, `pi's answer to ui.${p.method}`);
  }

  /**
   * `runOnTerminal` (terminal-handover.js): only interactive pi has a
   * terminal to lend; elsewhere the answer says why, and nothing runs.
   * @param {ChildConnection} child
   * @param {number | undefined} id
   * @param {any} p
   * @private
   */
  async handOver(child, id, p) {
    if (id === undefined) return;
    const ctx = this.ctxFor(child, p);
    const mode = this.hostMode();
    if (mode !== "interactive" || !ctx.hasUI) return child.respond(id, { why: mode }, "why nothing ran");
    let request;
    try {
      request = program(wireArgs(p.args)[0]);
    } catch (e) {
      return child.respondError(id, codes.INVALID_PARAMS, messageOf(e));
    }
    try {
      child.respond(id, { exit: await runOnTerminal(/** @type {any} */ (ctx.ui), request) }, "how the program ended");
    } catch (e) {
      child.respondError(id, codes.INTERNAL_ERROR, messageOf(e));
    }
  }

  /**
   * @param {ChildConnection} child
   * @param {number} id
   * @param {any} p
   * @private
   */
  async dialog(child, id, p) {
    const ctx = this.ctxFor(child, p);
    if (!ctx.hasUI) return child.respondError(id, codes.NO_UI, "pi has no UI in this mode");
    if (!["select", "confirm", "input", "editor", "loader"].includes(p.method)) {
      return child.respondError(id, codes.INVALID_PARAMS, `unknown dialog ${p.method}`);
    }
    const outcome = await this.dialogs.show({
      child,
      id,
      call: typeof p.call === "number" ? p.call : null,
      params: p,
      ui: ctx.ui,
    });
    child.respond(id, outcome);
  }
}

/**
 * pi's abort signal of the run a hook belongs to: `ctx.signal` (a getter
 * that throws once the context is stale).
 * @param {ExtensionContext | undefined} ctx
 * @returns {AbortSignal | undefined}
 */
function signalOf(ctx) {
  try {
    const signal = ctx?.signal;
    // A signal aborted already is the previous run's: this hook is not part of it.
    return signal && !signal.aborted ? signal : undefined;
  } catch {
    return undefined;
  }
}
