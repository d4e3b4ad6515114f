// @ts-check
// The extension's model calls (`models/*` requests): pi's model registry and
// pi-ai's stream functions, run here, in pi's process, with the key and
// headers pi resolves. Credentials go to the extension only when it asks
// (`models/auth`). The bridge imports pi-ai and pi through pi's own loader,
// so the registry of API providers is pi's (extension providers included).

import { shortUpdate } from "./hooks.js";
import { codes, messageOf, RpcError } from "./protocol.js";

/** @typedef {import("@mariozechner/pi-coding-agent").ExtensionContext} ExtensionContext */
/** @typedef {typeof import("@mariozechner/pi-ai")} PiAi */
/** @typedef {typeof import("@mariozechner/pi-coding-agent")} PiModule */
/** @typedef {import("@mariozechner/pi-ai").Model<any>} Model */

/**
 * One `models/*` request.
 * @typedef {object} ModelRequest
 * @property {string} method
 * @property {any} params
 * @property {() => ExtensionContext} ctx the request's pi context; throws when there is none
 * @property {number} id the request's id (its streamed events name it)
 * @property {AbortSignal} signal aborted by the extension's `cancel` (or the session's end)
 * @property {(line: string) => void} send a notification line, sent with the next batch
 */

/**
 * A model as the extension sees it: without `headers`, which may hold
 * credentials (pi adds them when it calls the model).
 * @param {Model | undefined} model
 */
export function modelInfo(model) {
  if (!model) return null;
  const { headers: _headers, ...info } = model;
  return info;
}

/**
 * The stream options an extension may set: sampling, limits, reasoning,
 * caching, retries and headers it adds. Nothing else reaches pi-ai, because
 * some provider options change where the request goes (`azureBaseUrl`,
 * `azureResourceName`, google-vertex's `project`/`location`, bedrock's
 * `region`/`profile`), and the request carries pi's key there. The key
 * itself goes to the extension only through `models/auth`.
 */
export const EXTENSION_OPTIONS = Object.freeze([
  "temperature",
  "maxTokens",
  "timeoutMs",
  "maxRetries",
  "maxRetryDelayMs",
  "transport",
  "cacheRetention",
  "sessionId",
  "metadata",
  "headers",
  "toolChoice",
  "reasoning",
  "thinkingBudgets",
  "reasoningEffort",
  "reasoningSummary",
  "serviceTier",
  "textVerbosity",
  "thinking",
  "thinkingEnabled",
  "thinkingBudgetTokens",
  "effort",
  "interleavedThinking",
  "thinkingDisplay",
  "promptMode",
]);
const ALLOWED = new Set(EXTENSION_OPTIONS);

/**
 * The extension's options, checked: an option off the list, or headers that
 * are not a map of strings, is refused with the reason (never dropped
 * silently: the caller would not know its option had no effect).
 * @param {unknown} given
 * @returns {Record<string, unknown>}
 */
export function extensionOptions(given) {
  if (given === undefined || given === null) return {};
  if (typeof given !== "object" || Array.isArray(given)) throw new RpcError(codes.INVALID_PARAMS, "options must be an object");
  /** @type {Record<string, unknown>} */
  const options = {};
  for (const [key, value] of Object.entries(given)) {
    if (!ALLOWED.has(key)) {
      throw new RpcError(
        codes.INVALID_PARAMS,
        `the model option ${JSON.stringify(key)} cannot be set by an extension: pi supplies the key, the address and the account of a model call ` +
          `(options an extension may set: ${EXTENSION_OPTIONS.join(", ")})`,
      );
    }
    options[key] = value;
  }
  const headers = options.headers;
  if (headers !== undefined) {
    if (typeof headers !== "object" || headers === null || Array.isArray(headers) || Object.values(headers).some((v) => typeof v !== "string")) {
      throw new RpcError(codes.INVALID_PARAMS, "options.headers must be an object of strings");
    }
  }
  return options;
}

export class ModelCalls {
  /**
   * @param {{ loadAi: () => Promise<PiAi>, loadPi: () => Promise<PiModule> }} o
   */
  constructor(o) {
    this.o = o;
  }

  /**
   * Answer a `models/*` request.
   * @param {ModelRequest} r
   * @returns {Promise<unknown>}
   */
  async handle(r) {
    switch (r.method) {
      case "models/list": {
        const registry = registryOf(r.ctx);
        const models = r.params.which === "available" ? registry.getAvailable() : registry.getAll();
        return models.map(modelInfo);
      }
      case "models/find": {
        const ctx = live(r.ctx);
        if (r.params.current === true) return modelInfo(ctx.model);
        const registry = registryOf(r.ctx);
        const type = r.params.type;
        if (typeof type === "string" && type !== "chat") {
          // pi < 0.99 has chat models only.
          const found = typeof registry.findOfType === "function" ? registry.findOfType(/** @type {any} */ (type), String(r.params.provider), String(r.params.id)) : undefined;
          return modelInfo(/** @type {any} */ (found));
        }
        return modelInfo(registry.find(String(r.params.provider), String(r.params.id)));
      }
      case "models/classify":
      case "models/images": {
        const classify = r.method === "models/classify";
        const registry = /** @type {any} */ (registryOf(r.ctx));
        const run = classify ? registry.classify : registry.generateImages;
        if (typeof run !== "function") {
          throw new RpcError(codes.INTERNAL_ERROR, `${classify ? "classifier" : "image"} models need pi ≥ 0.99 (modelRegistry.${classify ? "classify" : "generateImages"})`);
        }
        const { provider, id } = r.params.model ?? {};
        const model = registry.findOfType(classify ? "classifier" : "image", String(provider), String(id));
        if (!model) {
          throw new RpcError(codes.UNKNOWN_MODEL, `pi has no ${classify ? "classifier" : "image"} model ${provider}/${id}`);
        }
        return await run.call(registry, model, r.params.context ?? {}, { signal: r.signal });
      }
      case "models/auth": {
        const model = resolve(r.ctx, r.params.model);
        const auth = await registryOf(r.ctx).getApiKeyAndHeaders(model);
        if (!auth.ok) throw new RpcError(codes.MODEL_AUTH, auth.error);
        return { apiKey: auth.apiKey ?? null, headers: auth.headers ?? {} };
      }
      case "models/complete":
        return this.complete(r);
      case "models/serialize": {
        const pi = await this.o.loadPi();
        return pi.serializeConversation(pi.convertToLlm(messagesOf(r.params)));
      }
      case "models/convert": {
        const pi = await this.o.loadPi();
        return pi.convertToLlm(messagesOf(r.params));
      }
      default:
        throw new RpcError(codes.METHOD_NOT_FOUND, `the bridge has no method ${r.method}`);
    }
  }

  /**
   * pi-ai's `stream` (or `streamSimple` with a thinking level), as pi calls
   * a model: the key and headers pi resolves for it, the extension's
   * options, and the request's abort signal. Resolves to the final message
   * whatever its stop reason; with `stream`, the events go first.
   * @param {ModelRequest} r
   * @private
   */
  async complete(r) {
    const p = r.params;
    const options = extensionOptions(p.options);
    const model = resolve(r.ctx, p.model);
    const auth = await registryOf(r.ctx).getApiKeyAndHeaders(model);
    if (!auth.ok) throw new RpcError(codes.MODEL_AUTH, auth.error);
    // pi's headers win: an extension adds headers, it does not replace the
    // ones pi resolved for the model.
    const headers = { ...(/** @type {Record<string, string>} */ (options.headers) ?? {}), ...(auth.headers ?? {}) };
    const ai = await this.o.loadAi();
    const run = p.simple === true ? ai.streamSimple : ai.stream;
    let stream;
    try {
      stream = run(model, p.context ?? { messages: [] }, { ...options, apiKey: auth.apiKey, headers, signal: r.signal });
    } catch (err) {
      // No provider for the model's API, or the provider refused at once.
      throw new RpcError(codes.INTERNAL_ERROR, messageOf(err));
    }
    if (p.stream !== true) return await stream.result();
    /** @type {unknown[]} */
    let batch = [];
    const flush = () => {
      if (batch.length === 0) return;
      const events = batch;
      batch = [];
      r.send(JSON.stringify({ method: "models/event", params: { id: r.id, events } }));
    };
    for await (const event of stream) {
      // `done` and `error` are left out: the answer to the request carries
      // the final message.
      if (event?.type === "done" || event?.type === "error") continue;
      // The form `hook/updates` uses (no `partial`: resending the message
      // with every delta would cost O(n²) bytes); one parser reads both.
      batch.push(shortUpdate(event));
      // One line per turn of the event loop: deltas come in bursts.
      if (batch.length === 1) setImmediate(flush);
    }
    flush();
    return await stream.result();
  }
}

/**
 * The request's pi context, or why there is none.
 * @param {() => ExtensionContext} ctx
 */
function live(ctx) {
  try {
    return ctx();
  } catch (err) {
    throw new RpcError(codes.SESSION_ENDED, `the pi session has ended; model calls are no longer possible (${messageOf(err)})`);
  }
}

/**
 * pi's model registry of the request's context. A stale context (the
 * session was replaced) throws on every getter: that is the session's end too.
 * @param {() => ExtensionContext} ctx
 */
function registryOf(ctx) {
  const c = live(ctx);
  try {
    return c.modelRegistry;
  } catch (err) {
    throw new RpcError(codes.SESSION_ENDED, `the pi session has ended; model calls are no longer possible (${messageOf(err)})`);
  }
}

/**
 * The model a request names: `{provider, id}`, or `null` for the current one.
 * @param {() => ExtensionContext} ctx
 * @param {unknown} ref
 * @returns {Model}
 */
function resolve(ctx, ref) {
  if (ref === null || ref === undefined) {
    const current = live(ctx).model;
    if (!current) throw new RpcError(codes.NO_MODEL, "no model is selected in pi");
    return current;
  }
  const { provider, id } = /** @type {{ provider?: unknown, id?: unknown }} */ (ref);
  const model = registryOf(ctx).find(String(provider), String(id));
  if (!model) {
    throw new RpcError(codes.UNKNOWN_MODEL, `pi has no model ${provider}/${id} (Models::list shows the models pi knows)`);
  }
  return model;
}

/** @param {any} params */
function messagesOf(params) {
  if (!Array.isArray(params.messages)) throw new RpcError(codes.INVALID_PARAMS, "messages must be an array");
  return params.messages;
}
