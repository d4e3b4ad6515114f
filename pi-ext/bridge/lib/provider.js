// @ts-check
// Model providers whose answers stream from the extension. pi calls a
// provider's `streamSimple` and waits on the stream it returns until a
// `done` or `error` event, forever if none comes (even after an abort), so
// the stream is owned here: the extension sends small events
// (`provider/event`), this module checks them and builds pi-ai's events and
// the partial message from them, and every way a stream can end (pi's
// abort, the process's death, silence, a malformed event, an answer without
// `done`) ends pi's stream exactly once.
//
// A flood must not flood pi: adjacent deltas of one block, in a line or in
// the lines read in one turn of the event loop, are merged into one pi event
// (pi writes each event, with the whole partial message, to its RPC output),
// streamed tool-call JSON is read once (lib/streaming-json.js), and
// one answer may hold at most PI_EXT_PROVIDER_MAX_BYTES of deltas.

import { sanitizeModels, sanitizeProvider } from "./manifest-text.js";
import { messageOf } from "./protocol.js";
import { seconds } from "./options.js";
import { StreamingJson } from "./streaming-json.js";
import { legacyContext } from "./transcript.js";
import { olderThan } from "./features.js";

/** @typedef {import("@mariozechner/pi-ai").Model<any>} Model */
/** @typedef {import("@mariozechner/pi-ai").AssistantMessage} AssistantMessage */
/** @typedef {import("@mariozechner/pi-ai").AssistantMessageEventStream} EventStream */
/** @typedef {typeof import("@mariozechner/pi-ai")} PiAi */

/**
 * A provider in the manifest: pi's `registerProvider` configuration, minus
 * `streamSimple`.
 * @typedef {object} ProviderManifest
 * @property {string} name
 * @property {string} [displayName]
 * @property {string} baseUrl
 * @property {string} apiKey
 * @property {string} api
 * @property {Record<string, string>} [headers]
 * @property {boolean} [authHeader]
 * @property {any[]} models
 * @property {boolean} [configOnly] no stream: pi's own implementation of `api` answers
 * @property {OAuthManifest} [oauth] a `/login` whose login and refresh run in the extension
 * @property {boolean} [refreshModels] the extension lists the models at run time (pi ≥ 0.99)
 * @property {boolean} [replacesBuiltin] it may take the name of a pi built-in provider
 */

/**
 * @typedef {object} OAuthManifest
 * @property {string} name
 * @property {boolean} [isSubscription]
 * @property {boolean} [usesCallbackServer]
 * @property {string} apiKeyField the credentials' field pi sends as the key
 */

/**
 * A call of a provider's callback in the extension (`provider/call`).
 * @typedef {(provider: string, op: "login" | "refreshToken" | "refreshModels", args: unknown,
 *   o: { signal?: AbortSignal, login?: import("@mariozechner/pi-ai").OAuthLoginCallbacks }) => Promise<unknown>} ProviderCall
 */

/** Options pi passes that are JSON: the rest (functions, the signal) stay here. */
const JSON_OPTIONS = [
  "reasoning",
  "sessionId",
  "maxTokens",
  "temperature",
  "apiKey",
  "headers",
  "timeoutMs",
  "maxRetries",
  "maxRetryDelayMs",
  "cacheRetention",
  "transport",
  "thinkingBudgets",
  "metadata",
];

/** Default of PI_EXT_PROVIDER_IDLE_MS: pi-ai's SDK request timeout. */
const DEFAULT_IDLE_MS = 600_000;

/**
 * Default of PI_EXT_PROVIDER_MAX_BYTES: the most text, thinking and
 * tool-call JSON one answer may stream (UTF-8 bytes), 16 MiB: some 30 times
 * the largest answer today's models give (128k output tokens).
 */
export const DEFAULT_MAX_BYTES = 16 * 1024 * 1024;

/** @typedef {"text_delta" | "thinking_delta" | "toolcall_delta"} DeltaKind */

/**
 * What a provider stream needs of the bridge.
 * @typedef {object} StreamHost
 * @property {PiAi} ai pi's pi-ai (the event stream, cost)
 * @property {(provider: string) => Promise<{ child: import("./child.js").ChildConnection } | { why: string }>} connect
 *   the process serving `provider`, or why there is none
 * @property {(child: import("./child.js").ChildConnection, params: unknown, o: {
 *   signal?: AbortSignal, onEvents: (events: unknown) => void, onId: (id: number) => void }) => Promise<unknown>} request
 *   send `provider/stream` as a pi call (cancelled in the extension when it is given up on)
 * @property {(child: import("./child.js").ChildConnection, id: number) => void} cancel
 * @property {import("./clock.js").Clock} clock
 * @property {number | undefined} idleMs PI_EXT_PROVIDER_IDLE_MS, if set (it wins over pi's `timeoutMs` option)
 * @property {number} maxBytes PI_EXT_PROVIDER_MAX_BYTES: the most deltas one answer may stream
 * @property {import("./log.js").Log} log
 * @property {ProviderCall} [providerCall] the provider's login, refresh and model list (lib/bridge.js)
 */

/**
 * pi's `registerProvider` configuration for `p`, with a `streamSimple` that
 * streams from the extension, or, for a provider that is only
 * configuration, none: pi's own implementation of its `api` answers.
 * @param {ProviderManifest} p
 * @param {() => StreamHost} host
 * @param {string} [piVersion] the host pi's version ("" when unknown)
 */
export function providerConfig(p, host, piVersion = "") {
  const config = {
    ...(p.displayName ? { name: p.displayName } : {}),
    baseUrl: p.baseUrl,
    ...(p.apiKey ? { apiKey: hostConfigValue(p.apiKey, piVersion) } : {}),
    api: p.api,
    ...(p.headers && Object.keys(p.headers).length ? { headers: p.headers } : {}),
    ...(p.authHeader ? { authHeader: true } : {}),
    models: p.models,
    ...callbacks(p, host),
  };
  if (p.configOnly === true) return config;
  return {
    ...config,
    /**
     * @param {Model} model
     * @param {import("@mariozechner/pi-ai").Context} context
     * @param {import("@mariozechner/pi-ai").SimpleStreamOptions} [options]
     */
    streamSimple: (model, context, options) =>
      new ProviderStream(p.name, host(), model, options).start(legacyContext(context), context),
  };
}

/**
 * The parts of pi's configuration that call the extension back: `oauth`
 * (login and refresh; `getApiKey` is synchronous in pi, so it reads a field
 * of the credentials here) and `refreshModels`.
 * @param {ProviderManifest} p
 * @param {() => StreamHost} host
 */
export function callbacks(p, host) {
  /** @type {Record<string, unknown>} */
  const out = {};
  /** @type {ProviderCall} */
  const call = (provider, op, args, o) => {
    const c = host().providerCall;
    if (!c) return Promise.reject(new Error(`pi-ext provider \`${p.name}\`: no extension process to ${op}`));
    return c(provider, op, args, o);
  };
  if (p.oauth) {
    const o = p.oauth;
    const field = o.apiKeyField || "access";
    out.oauth = {
      name: o.name,
      ...(o.isSubscription ? { isSubscription: true } : {}),
      ...(o.usesCallbackServer ? { usesCallbackServer: true } : {}),
      /** @param {import("@mariozechner/pi-ai").OAuthLoginCallbacks} callbacks */
      login: (callbacks) => call(p.name, "login", null, { signal: callbacks.signal, login: callbacks }),
      /** @param {unknown} credentials @param {AbortSignal} [signal] */
      refreshToken: (credentials, signal) => call(p.name, "refreshToken", credentials, { signal }),
      /** @param {Record<string, unknown>} credentials */
      getApiKey: (credentials) => {
        const key = credentials?.[field];
        if (typeof key !== "string") throw new Error(`pi-ext provider \`${p.name}\`: the stored login has no \`${field}\` to send as the key`);
        return key;
      },
    };
  }
  if (p.refreshModels) {
    /** @param {any} context */
    out.refreshModels = async (context) => {
      const models = await call(
        p.name,
        "refreshModels",
        { allowNetwork: context?.allowNetwork !== false, force: context?.force === true, credential: context?.credential ?? null },
        { signal: context?.signal },
      );
      if (!Array.isArray(models)) throw new Error(`pi-ext provider \`${p.name}\`: refreshModels did not return a list of models`);
      return sanitizeModels(models);
    };
  }
  return out;
}

/**
 * Why pi must not register `p` under its name, if it must not: a Rust
 * stream or login under the name of one of pi's built-in providers would
 * receive (or replace) the key pi stores for that provider, unless the
 * extension says it means to (`replacesBuiltin`). A provider that is only
 * configuration keeps pi's own code sending the request.
 * @param {ProviderManifest} p
 * @param {readonly string[]} builtins pi's built-in provider names
 * @returns {string | undefined}
 */
export function builtinClash(p, builtins) {
  if (p.replacesBuiltin || !builtins.includes(p.name)) return undefined;
  // Configuration too: pi's own code would send the stored key to the base URL it names.
  const what = p.oauth
    ? "a login, which would replace the built-in's"
    : p.configOnly === true
      ? `its own base URL, where pi would send the key it stores for \`${p.name}\``
      : `a Rust stream, which would get the key pi stores for \`${p.name}\``;
  return (
    `provider \`${p.name}\` not registered: it has the name of pi's built-in provider and ${what}; ` +
    "rename it, or opt in with `ProviderDef::replaces_builtin()`"
  );
}

/**
 * pi's configuration for a provider registered at run time (`api/call`
 * `registerProvider`): only one that is configuration, whose requests pi
 * answers itself (a Rust stream needs the manifest's registration).
 * @param {unknown} p
 */
export function runtimeProviderConfig(p, piVersion = "") {
  const given = /** @type {ProviderManifest} */ (p);
  if (given === null || typeof given !== "object" || typeof given.name !== "string" || !given.name) {
    throw new Error("registerProvider needs a provider manifest with a name");
  }
  // Its display name and models' names are shown by pi (lib/manifest-text.js).
  const m = sanitizeProvider(given);
  if (m.configOnly !== true) {
    throw new Error(`provider \`${m.name}\`: only a provider without a stream is registered at run time`);
  }
  return providerConfig(
    m,
    () => {
      throw new Error("a provider without a stream has no stream host");
    },
    piVersion,
  );
}

/**
 * A config value (`apiKey`) in the host pi's syntax. The manifest uses pi
 * ≥ 0.77's (`$NAME` is an environment variable, anything else literal);
 * an older pi reads a bare name as a variable (and falls back to the text),
 * so a `$NAME` there loses its `$`. An unknown version is taken as new.
 * @param {string | undefined} value
 * @param {string} piVersion
 */
export function hostConfigValue(value, piVersion) {
  if (typeof value === "string" && /^\$[A-Za-z_][A-Za-z0-9_]*$/.test(value) && olderThan(piVersion, "0.77.0")) {
    return value.slice(1);
  }
  return value;
}

/** One answer streaming from the extension into pi. */
export class ProviderStream {
  /**
   * @param {string} provider
   * @param {StreamHost} host
   * @param {Model} model
   * @param {import("@mariozechner/pi-ai").SimpleStreamOptions | undefined} options
   */
  constructor(provider, host, model, options) {
    this.provider = provider;
    this.host = host;
    this.model = model;
    this.options = options ?? {};
    this.stream = host.ai.createAssistantMessageEventStream();
    /** @type {AssistantMessage} */
    this.output = {
      role: "assistant",
      content: [],
      api: model.api,
      provider: model.provider,
      model: model.id,
      usage: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, totalTokens: 0, cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 } },
      stopReason: "stop",
      timestamp: Date.now(),
    };
    /** @type {Map<number, { type: string, json: string, args?: StreamingJson }>} blocks started and not ended */
    this.open = new Map();
    /** bytes of deltas so far (bounded by `host.maxBytes`) */
    this.bytes = 0;
    /** @type {{ kind: DeltaKind, index: number, parts: string[] } | undefined} deltas applied, not yet pushed to pi */
    this.pending = undefined;
    /** a flush of `pending` is queued for the end of this turn of the event loop */
    this.flushQueued = false;
    /** the answer passed `host.maxBytes` */
    this.cutOff = false;
    this.ended = false;
    /** @type {import("./child.js").ChildConnection | undefined} */
    this.child = undefined;
    /** the extension handed the answer to pi's own implementation of an API (`delegate`) */
    this.delegated = false;
    /** @type {unknown} the context as pi gave it (a delegation passes it on) */
    this.given = undefined;
    /** @type {number | undefined} the provider/stream request's id */
    this.id = undefined;
    /** @type {unknown} */
    this.idleTimer = undefined;
    const timeout = Number(this.options.timeoutMs);
    this.idleMs = host.idleMs ?? (Number.isFinite(timeout) && timeout > 0 ? timeout : DEFAULT_IDLE_MS);
  }

  /**
   * Push pi's `start` at once (pi adds the message to the conversation) and
   * stream the rest from the extension.
   * @param {import("@mariozechner/pi-ai").Context} context what the extension is sent
   * @param {unknown} [given] the context as pi gave it, for a delegation (`context` if not given)
   * @returns {EventStream}
   */
  start(context, given = context) {
    this.given = given;
    this.stream.push({ type: "start", partial: this.output });
    const signal = this.options.signal;
    if (signal?.aborted) {
      this.fail("Request was aborted", true);
      return this.stream;
    }
    signal?.addEventListener("abort", () => this.fail("Request was aborted", true), { once: true });
    this.run(context).catch((err) => this.fail(this.named(messageOf(err))));
    return this.stream;
  }

  /**
   * @param {import("@mariozechner/pi-ai").Context} context
   * @private
   */
  async run(context) {
    const connected = await this.host.connect(this.provider);
    if (this.ended) return;
    if ("why" in connected) return this.fail(this.named(connected.why));
    this.child = connected.child;
    /** @type {Record<string, unknown>} */
    const options = {};
    for (const key of JSON_OPTIONS) {
      const value = /** @type {Record<string, unknown>} */ (this.options)[key];
      if (value !== undefined) options[key] = value;
    }
    const { headers: _headers, ...model } = this.model;
    this.armIdle();
    try {
      await this.host.request(
        connected.child,
        { provider: this.provider, model, context, options },
        {
          signal: this.options.signal,
          onEvents: (events) => this.onEvents(events),
          onId: (id) => {
            this.id = id;
          },
        },
      );
    } catch (err) {
      return this.fail(this.named(messageOf(err)));
    }
    if (!this.ended && !this.delegated) this.fail(this.named("the stream ended without `done`"));
  }

  /**
   * Hand the request to pi's own implementation of `to.api` (a checked
   * delegation): its events go to pi as they come, with the model's own
   * `api` in the messages, as pi-ai's implementations called directly (the
   * TypeScript way) record it. pi's `start` was pushed already.
   * @param {Delegation} to
   * @private
   */
  delegate(to) {
    this.delegated = true;
    this.host.clock.clearTimeout(this.idleTimer);
    const model = {
      ...this.model,
      api: to.api,
      ...(to.baseUrl !== undefined ? { baseUrl: to.baseUrl } : {}),
      ...(to.compat !== undefined ? { compat: { ...this.model.compat, ...to.compat } } : {}),
    };
    const options = {
      ...this.options,
      ...(to.apiKey !== undefined ? { apiKey: to.apiKey } : {}),
      ...(to.headers !== undefined ? { headers: { ...this.options.headers, ...to.headers } } : {}),
    };
    const api = this.model.api;
    const forward = async () => {
      const inner = this.host.ai.streamSimple(/** @type {Model} */ (/** @type {unknown} */ (model)), /** @type {any} */ (this.given), options);
      for await (const event of inner) {
        if (this.ended) return;
        if (event.type === "start") continue;
        const e = /** @type {any} */ (event);
        for (const message of [e.partial, e.message, e.error]) if (message && typeof message === "object") message.api = api;
        if (event.type === "done" || event.type === "error") this.end();
        this.stream.push(event);
        if (this.ended) return this.stream.end();
      }
      if (!this.ended) this.fail(this.named(`pi's \`${to.api}\` ended without an answer`));
    };
    forward().catch((err) => this.fail(this.named(`pi's \`${to.api}\`: ${messageOf(err)}`)));
  }

  /** @param {string} what @private */
  named(what) {
    return `pi-ext provider \`${this.provider}\`: ${what}`;
  }

  /** @private */
  armIdle() {
    const { clock } = this.host;
    clock.clearTimeout(this.idleTimer);
    this.idleTimer = clock.setTimeout(() => {
      this.fail(this.named(`sent nothing for ${seconds(this.idleMs)} (PI_EXT_PROVIDER_IDLE_MS, else pi's request timeout)`));
    }, this.idleMs);
  }

  /**
   * A batch of events from the extension.
   * @param {unknown} events
   */
  onEvents(events) {
    if (this.ended) return;
    if (!Array.isArray(events)) return this.malformed("`events` is not an array");
    this.armIdle();
    for (const event of events) {
      if (this.ended) {
        if (this.cutOff) return;
        this.host.log.line("warn", this.named(`an event after the end of the stream was dropped: ${JSON.stringify(event)}`));
        return;
      }
      const problem = this.apply(event);
      if (problem !== undefined) return this.malformed(problem);
    }
    // Deltas that follow in the lines read in this turn of the event loop join these.
    if (this.pending && !this.flushQueued) {
      this.flushQueued = true;
      queueMicrotask(() => {
        this.flushQueued = false;
        this.flush();
      });
    }
  }

  /** Push the merged pending deltas as one pi event. @private */
  flush() {
    const p = this.pending;
    if (!p) return;
    this.pending = undefined;
    const delta = p.parts.length === 1 ? p.parts[0] : p.parts.join("");
    this.stream.push({ type: p.kind, contentIndex: p.index, delta, partial: this.output });
  }

  /** @param {string} what @private */
  malformed(what) {
    this.fail(this.named(`sent a malformed event: ${what}`));
  }

  /**
   * Apply one event to the partial message and push pi's event for it;
   * what is wrong with it, if anything.
   * @param {unknown} event
   * @returns {string | undefined}
   * @private
   */
  apply(event) {
    if (!Array.isArray(event) || typeof event[0] !== "string") return `${JSON.stringify(event)} is not [kind, ...]`;
    const [kind, ...args] = event;
    const out = this.output;
    const index = /** @type {unknown} */ (args[0]);
    /** @param {string} type */
    const openBlock = (type) => {
      if (typeof index !== "number" || this.open.get(index)?.type !== type) {
        return `${kind} for ${JSON.stringify(index)}, which is not an open ${type} block`;
      }
      return undefined;
    };
    /** @param {string} type @param {any} block */
    const startBlock = (type, block) => {
      if (index !== out.content.length) {
        return `${kind} at index ${JSON.stringify(index)}; the next block's index is ${out.content.length}`;
      }
      out.content.push(block);
      this.open.set(index, type === "toolCall" ? { type, json: "", args: new StreamingJson() } : { type, json: "" });
      return undefined;
    };
    const partial = out;
    const isDelta = kind === "text_delta" || kind === "thinking_delta" || kind === "toolcall_delta";
    if (!isDelta) this.flush();
    switch (kind) {
      case "start": {
        const [responseId, responseModel] = args;
        if (typeof responseId === "string") out.responseId = responseId;
        if (typeof responseModel === "string") out.responseModel = responseModel;
        return undefined;
      }
      case "text_start":
      case "thinking_start": {
        const type = kind === "text_start" ? "text" : "thinking";
        const problem = startBlock(type, type === "text" ? { type, text: "" } : { type, thinking: "" });
        if (problem) return problem;
        this.stream.push({ type: kind, contentIndex: /** @type {number} */ (index), partial });
        return undefined;
      }
      case "toolcall_start": {
        const [, id, name] = args;
        if (typeof id !== "string" || typeof name !== "string") return "toolcall_start needs a string id and name";
        const problem = startBlock("toolCall", { type: "toolCall", id, name, arguments: {} });
        if (problem) return problem;
        this.stream.push({ type: "toolcall_start", contentIndex: /** @type {number} */ (index), partial });
        return undefined;
      }
      case "text_delta":
      case "thinking_delta":
      case "toolcall_delta": {
        const type = kind === "text_delta" ? "text" : kind === "thinking_delta" ? "thinking" : "toolCall";
        const problem = openBlock(type);
        if (problem) return problem;
        const delta = args[1];
        if (typeof delta !== "string") return `${kind} without a string delta`;
        const i = /** @type {number} */ (index);
        const size = Buffer.byteLength(delta, "utf8");
        const room = this.host.maxBytes - this.bytes;
        if (size <= room) {
          this.bytes += size;
          this.addDelta(kind, i, delta);
          return undefined;
        }
        // Past the limit: keep what fits, and end the answer there.
        const kept = utf8Prefix(delta, room);
        if (kept !== "") this.addDelta(kind, i, kept);
        this.cutOff = true;
        this.fail(
          this.named(
            `the answer passed the limit of ${this.host.maxBytes} bytes of text, thinking and tool-call arguments (PI_EXT_PROVIDER_MAX_BYTES); it was cut off there`,
          ),
        );
        return undefined;
      }
      case "text_end":
      case "thinking_end": {
        const type = kind === "text_end" ? "text" : "thinking";
        const problem = openBlock(type);
        if (problem) return problem;
        const i = /** @type {number} */ (index);
        const block = /** @type {any} */ (out.content[i]);
        const signature = args[1];
        if (typeof signature === "string") block[type === "text" ? "textSignature" : "thinkingSignature"] = signature;
        if (type === "thinking" && args[2] === true) block.redacted = true;
        this.open.delete(i);
        this.stream.push({ type: kind, contentIndex: i, content: type === "text" ? block.text : block.thinking, partial });
        return undefined;
      }
      case "toolcall_end": {
        const problem = openBlock("toolCall");
        if (problem) return problem;
        const i = /** @type {number} */ (index);
        const block = /** @type {any} */ (out.content[i]);
        const given = args[1];
        if (given !== null && given !== undefined) {
          if (typeof given !== "object" || Array.isArray(given)) return `toolcall_end ${i}: arguments must be a JSON object`;
          block.arguments = given;
        } else {
          const json = /** @type {{ json: string }} */ (this.open.get(i)).json;
          try {
            const parsed = json.trim() === "" ? {} : JSON.parse(json);
            if (parsed === null || typeof parsed !== "object" || Array.isArray(parsed)) throw new Error("not an object");
            block.arguments = parsed;
          } catch {
            return `toolcall_end ${i}: the tool call's arguments are not a JSON object: ${json.slice(0, 200)}`;
          }
        }
        this.open.delete(i);
        this.stream.push({ type: "toolcall_end", contentIndex: i, toolCall: block, partial });
        return undefined;
      }
      case "usage": {
        const u = /** @type {any} */ (args[0]);
        const counts = ["input", "output", "cacheRead", "cacheWrite", "reasoning"];
        if (u === null || typeof u !== "object" || !counts.every((k) => u[k] === undefined || (Number.isFinite(u[k]) && u[k] >= 0))) {
          return `usage ${JSON.stringify(u)}: token counts must be non-negative numbers`;
        }
        const usage = out.usage;
        usage.input = u.input ?? 0;
        usage.output = u.output ?? 0;
        usage.cacheRead = u.cacheRead ?? 0;
        usage.cacheWrite = u.cacheWrite ?? 0;
        usage.totalTokens = usage.input + usage.output + usage.cacheRead + usage.cacheWrite;
        // pi 1.x's reasoning count, only when the provider gives one.
        if (u.reasoning !== undefined) /** @type {any} */ (usage).reasoning = u.reasoning;
        this.host.ai.calculateCost(this.model, usage);
        return undefined;
      }
      case "raw_stop": {
        if (typeof args[0] !== "string") return `raw_stop ${JSON.stringify(args[0])}: the provider's stop reason must be a string`;
        /** @type {any} */ (out).rawStopReason = args[0];
        return undefined;
      }
      case "done": {
        const reason = args[0];
        if (reason !== "stop" && reason !== "length" && reason !== "toolUse") return `done with reason ${JSON.stringify(reason)}`;
        if (this.open.size > 0) return `done while block ${[...this.open.keys()].join(", ")} is still open (end it first)`;
        out.stopReason = reason;
        this.end();
        this.stream.push({ type: "done", reason, message: out });
        this.stream.end();
        return undefined;
      }
      case "delegate": {
        if (out.content.length > 0) return "delegate after the answer's first block (a delegation is the whole answer)";
        const problem = delegationProblem(args[0], this.host.ai);
        if (problem) return `delegate: ${problem}`;
        this.delegate(/** @type {Delegation} */ (args[0]));
        return undefined;
      }
      case "error": {
        const [message, aborted] = args;
        this.fail(typeof message === "string" && message ? message : this.named("the stream failed"), aborted === true);
        return undefined;
      }
      default:
        return `unknown event kind ${JSON.stringify(kind)}`;
    }
  }

  /**
   * Add a checked delta to its block, and to the pi event pending for it.
   * @param {DeltaKind} kind
   * @param {number} i
   * @param {string} delta
   * @private
   */
  addDelta(kind, i, delta) {
    const block = /** @type {any} */ (this.output.content[i]);
    if (kind === "text_delta") block.text += delta;
    else if (kind === "thinking_delta") block.thinking += delta;
    else {
      const open = /** @type {{ json: string, args: StreamingJson }} */ (this.open.get(i));
      open.json += delta;
      open.args.push(delta);
      block.arguments = open.args.value;
    }
    const p = this.pending;
    if (p && p.kind === kind && p.index === i) p.parts.push(delta);
    else {
      this.flush();
      this.pending = { kind, index: i, parts: [delta] };
    }
  }

  /** No more events: stop the idle timer, and the extension if it still streams. @private */
  end() {
    this.ended = true;
    this.host.clock.clearTimeout(this.idleTimer);
  }

  /**
   * End pi's stream with an error (once), and stop the extension's.
   * @param {string} message
   * @param {boolean} [aborted]
   */
  fail(message, aborted = false) {
    if (this.ended) return;
    this.flush();
    this.end();
    this.output.stopReason = aborted ? "aborted" : "error";
    this.output.errorMessage = message;
    this.stream.push({ type: "error", reason: aborted ? "aborted" : "error", error: this.output });
    this.stream.end();
    if (this.child && this.id !== undefined) this.host.cancel(this.child, this.id);
  }
}

/**
 * @typedef {object} Delegation a Rust provider's `["delegate", …]`: pi's own implementation answers
 * @property {string} api one of pi-ai's API names
 * @property {string} [baseUrl] instead of the model's
 * @property {Record<string, string>} [headers] added to pi's
 * @property {string} [apiKey] instead of the one pi resolved
 * @property {Record<string, unknown>} [compat] fields of the model's `compat`
 */

/** An HTTP header's name (RFC 9110 token). */
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

/**
 * What is wrong with a delegation, if anything: its API must be one pi has
 * (and no pi-ext one, which would call an extension again), its URL http(s),
 * its headers names and values HTTP allows.
 * @param {unknown} d
 * @param {PiAi} ai
 * @returns {string | undefined}
 */
export function delegationProblem(d, ai) {
  if (d === null || typeof d !== "object" || Array.isArray(d)) return "not an object";
  const to = /** @type {Record<string, unknown>} */ (d);
  const { api, baseUrl, headers, apiKey, compat } = to;
  const unknown = Object.keys(to).filter((k) => !["api", "baseUrl", "headers", "apiKey", "compat"].includes(k));
  if (unknown.length) return `unknown field ${JSON.stringify(unknown[0])}`;
  if (typeof api !== "string" || api === "") return "`api` must name one of pi's APIs";
  if (api.startsWith("pi-ext:")) return `\`${api}\` is an extension's, not one of pi's APIs`;
  const registry = /** @type {any} */ (ai).getApiProvider;
  if (typeof registry === "function" && !registry(api)) return `pi has no API \`${api}\``;
  if (baseUrl !== undefined) {
    let url;
    try {
      url = typeof baseUrl === "string" ? new URL(baseUrl) : undefined;
    } catch {
      url = undefined;
    }
    if (!url || (url.protocol !== "http:" && url.protocol !== "https:")) return "`baseUrl` must be an http or https URL";
  }
  if (headers !== undefined) {
    if (headers === null || typeof headers !== "object" || Array.isArray(headers)) return "`headers` must be an object";
    for (const [name, value] of Object.entries(headers)) {
      if (!HEADER_NAME.test(name)) return `header name ${JSON.stringify(name)} is not an HTTP token`;
      if (typeof value !== "string" || /[\r\n\0]/.test(value)) return `header \`${name}\` must be a string without CR, LF or NUL`;
    }
  }
  if (apiKey !== undefined && typeof apiKey !== "string") return "`apiKey` must be a string";
  if (compat !== undefined && (compat === null || typeof compat !== "object" || Array.isArray(compat))) return "`compat` must be an object";
  return undefined;
}

/**
 * The longest start of `text` that is at most `bytes` bytes of UTF-8.
 * @param {string} text
 * @param {number} bytes
 */
function utf8Prefix(text, bytes) {
  const cut = Buffer.from(text, "utf8").subarray(0, Math.max(0, bytes)).toString("utf8");
  // A character cut in two decodes as U+FFFD.
  return cut.endsWith("\uFFFD") && !text.startsWith(cut) ? cut.slice(0, -1) : cut;
}

/**
 * PI_EXT_PROVIDER_MAX_BYTES if set to a positive number, else 16 MiB.
 * @param {Record<string, string | undefined>} env
 */
export function providerMaxBytes(env) {
  const n = Number(env.PI_EXT_PROVIDER_MAX_BYTES);
  return env.PI_EXT_PROVIDER_MAX_BYTES && Number.isFinite(n) && n > 0 ? n : DEFAULT_MAX_BYTES;
}

/**
 * PI_EXT_PROVIDER_IDLE_MS, if set to a positive number.
 * @param {Record<string, string | undefined>} env
 */
export function providerIdleMs(env) {
  const n = Number(env.PI_EXT_PROVIDER_IDLE_MS);
  return env.PI_EXT_PROVIDER_IDLE_MS && Number.isFinite(n) && n > 0 ? n : undefined;
}
