// @ts-check
// Hook events on their way to the extension and hook results on their way
// back into pi.

import { assignOwnKeys } from "./json.js";
import { applyChanges } from "./mirror.js";

/** Events pi emits once per streamed delta: their hooks are notifications. */
export const STREAMING_EVENTS = new Set(["message_update", "tool_execution_update"]);

/**
 * A `message_update` without the partial message's content (and the
 * streaming event's copy of it): sending the whole message again with every
 * delta would make a streamed answer cost O(n²) bytes. The delta is kept.
 * @param {any} event
 */
export function slimUpdate(event) {
  const { content: _content, ...message } = event?.message ?? {};
  const { partial: _partial, ...assistantMessageEvent } = event?.assistantMessageEvent ?? {};
  return { ...event, message, assistantMessageEvent };
}

/** The short form of the streamed deltas (`[code, contentIndex, delta]`), by type. */
const DELTA_CODES = new Map([
  ["text_delta", 0],
  ["thinking_delta", 1],
  ["toolcall_delta", 2],
]);

/**
 * A streamed event as `hook/updates` carries it: a delta as
 * `[code, contentIndex, delta]`, anything else as its object without the
 * `partial` message.
 * @param {any} a pi's `assistantMessageEvent`
 * @returns {unknown}
 */
export function shortUpdate(a) {
  const code = DELTA_CODES.get(a?.type);
  if (code !== undefined && typeof a.delta === "string") return [code, typeof a.contentIndex === "number" ? a.contentIndex : 0, a.delta];
  const { partial: _partial, ...rest } = a ?? {};
  return rest;
}

/**
 * Whether two streamed copies of a message have the same metadata: pi
 * copies the message shallowly for every delta, so the fields other than
 * `content` are the same values (or objects) until one changes.
 * @param {any} a
 * @param {any} b
 */
export function sameMeta(a, b) {
  if (a === b) return true;
  if (a === null || b === null || typeof a !== "object" || typeof b !== "object") return false;
  let n = 0;
  for (const k in a) {
    if (k === "content") continue;
    if (a[k] !== b[k]) return false;
    n++;
  }
  for (const k in b) if (k !== "content") n--;
  return n === 0;
}

/**
 * The message without its content: what a `message_update` hook gets.
 * @param {any} m
 */
export function slimMeta(m) {
  const { content: _content, ...meta } = m ?? {};
  return meta;
}

/**
 * @param {unknown} v
 * @returns {v is Record<string, unknown>}
 */
function isObject(v) {
  return v !== null && typeof v === "object" && !Array.isArray(v);
}

/**
 * What pi's handler returns for a hook's answer `out` to `event` (throws
 * when mirrored edits are not well formed: the hook failed).
 * @param {string} eventName
 * @param {any} event pi's event (a `tool_call`'s input is changed in place)
 * @param {unknown} out the extension's answer
 * @returns {unknown}
 */
export function hookResult(eventName, event, out) {
  // pi reads `trusted` from every project_trust handler's answer.
  if (eventName === "project_trust") return trustResult(out);
  if (out === null || out === undefined) return undefined;
  switch (eventName) {
    case "tool_call": {
      if (!isObject(out)) return undefined;
      // pi changes a call's arguments only by mutation of event.input.
      if (isObject(out.input) && isObject(event?.input)) {
        for (const key of Object.keys(event.input)) delete event.input[key];
        assignOwnKeys(event.input, out.input);
      }
      if (!out.block) return undefined;
      // pi ≥ 0.84.1 stops after a batch whose every result terminates.
      return out.terminate === true ? { block: true, reason: out.reason, terminate: true } : { block: true, reason: out.reason };
    }
    case "before_provider_headers": {
      // pi reads the headers back, not the result: they change in place
      // (`null` removes one).
      if (!isObject(out) || !isObject(out.headers) || !isObject(event?.headers)) return undefined;
      for (const [name, value] of Object.entries(out.headers)) {
        if (typeof value === "string" || value === null) event.headers[name] = value;
      }
      return undefined;
    }
    case "before_provider_request":
      if (!isObject(out)) return undefined;
      // Mirrored: the changes to this call's input; otherwise the whole body.
      if ("changes" in out) return applyChanges(isObject(event?.payload) ? event.payload : {}, out.changes);
      return out.payload;
    case "before_agent_start": {
      if (!isObject(out)) return out;
      // pi 1.x renders the prompt from the options it passed, changed in place.
      const { systemPromptOptions: changes, ...rest } = out;
      if (isObject(changes) && isObject(event?.systemPromptOptions)) applyPromptChanges(event.systemPromptOptions, changes);
      return Object.keys(rest).length ? rest : undefined;
    }
    default:
      return out;
  }
}

/**
 * Changes to `before_agent_start`'s `systemPromptOptions`, made in place:
 * sections set (a string) or deleted (`null`), the selected tools and the
 * prompt guidelines replaced (lists of strings only).
 * @param {Record<string, any>} options pi's options
 * @param {Record<string, unknown>} changes
 */
export function applyPromptChanges(options, changes) {
  if (isObject(changes.sections)) {
    if (!isObject(options.sections)) options.sections = {};
    for (const [name, text] of Object.entries(changes.sections)) {
      // An assignment to `__proto__` would change the object's prototype.
      if (name === "__proto__") continue;
      if (typeof text === "string") options.sections[name] = text;
      else if (text === null) delete options.sections[name];
    }
  }
  /** @param {unknown} v */
  const strings = (v) => Array.isArray(v) && v.every((x) => typeof x === "string");
  if (strings(changes.selectedTools)) options.selectedTools = [.../** @type {string[]} */ (changes.selectedTools)];
  if (strings(changes.promptGuidelines)) options.promptGuidelines = [.../** @type {string[]} */ (changes.promptGuidelines)];
}

/** pi's `ProjectTrustEventDecision`s. */
const TRUST_DECISIONS = new Set(["yes", "no", "undecided"]);

/**
 * A `project_trust` answer as pi reads it: `{trusted, remember?}`, and
 * "undecided" (the next handler or pi's own flow decides) for an answer
 * that is not one.
 * @param {unknown} out
 * @returns {{ trusted: string, remember?: boolean }}
 */
export function trustResult(out) {
  if (!isObject(out) || typeof out.trusted !== "string" || !TRUST_DECISIONS.has(out.trusted)) return { trusted: "undecided" };
  return out.remember === true ? { trusted: out.trusted, remember: true } : { trusted: out.trusted };
}

/** What pi's `project_trust` context offers (pi's `ProjectTrustContext`). */
const TRUST_CTX = new Set(["cwd", "mode", "hasUI", "ui"]);
const TRUST_UI = new Set(["select", "confirm", "input", "notify"]);

/**
 * pi's limited `project_trust` context, as one whose other members fail
 * with an error that says what this context offers (instead of pi's
 * "undefined is not a function").
 * @template {object} T
 * @param {T} ctx
 * @returns {T}
 */
export function trustContext(ctx) {
  /** @param {string} name */
  const refuse = (name) => {
    throw new Error(`${name} is not available in a project_trust hook: pi gives it only cwd, mode, hasUI and ui.select/confirm/input/notify`);
  };
  /**
   * @param {any} target
   * @param {Set<string>} allowed
   * @param {string} prefix
   */
  const limit = (target, allowed, prefix) =>
    new Proxy(target, {
      get(t, key, receiver) {
        // Symbols and `then` are what JavaScript itself looks up (await, inspection).
        if (typeof key === "symbol" || key === "then" || allowed.has(key)) {
          const value = Reflect.get(t, key, receiver);
          if (key === "ui" && prefix === "ctx." && value && typeof value === "object") return limit(value, TRUST_UI, "ctx.ui.");
          return value;
        }
        return refuse(`${prefix}${key}`);
      },
    });
  return limit(ctx, TRUST_CTX, "ctx.");
}
