// @ts-check
// Hook events on their way to the extension and hook results on their way
// back into pi.

import { assignOwnKeys } from "./json.js";

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

/**
 * @param {unknown} v
 * @returns {v is Record<string, unknown>}
 */
function isObject(v) {
  return v !== null && typeof v === "object" && !Array.isArray(v);
}

/**
 * What pi's handler returns for a hook's answer `out` to `event`.
 * @param {string} eventName
 * @param {any} event pi's event (a `tool_call`'s input is changed in place)
 * @param {unknown} out the extension's answer
 * @returns {unknown}
 */
export function hookResult(eventName, event, out) {
  if (out === null || out === undefined) return undefined;
  switch (eventName) {
    case "tool_call": {
      if (!isObject(out)) return undefined;
      // pi changes a call's arguments only by mutation of event.input.
      if (isObject(out.input) && isObject(event?.input)) {
        for (const key of Object.keys(event.input)) delete event.input[key];
        assignOwnKeys(event.input, out.input);
      }
      return out.block ? { block: true, reason: out.reason } : undefined;
    }
    case "before_provider_request":
      return isObject(out) ? out.payload : undefined;
    default:
      return out;
  }
}
