// @ts-check
// JSON for the wire: pi's events and return values hold functions,
// AbortSignals and sometimes cycles, which are left out; what JSON cannot say
// (a BigInt, nesting too deep for JSON.stringify) is an error that names what
// was being sent, never a silent "null".

import { messageOf } from "./protocol.js";

/** A value that cannot be sent as JSON. */
export class EncodeError extends Error {
  /** @param {string} message */
  constructor(message) {
    super(message);
    this.name = "EncodeError";
  }
}

/**
 * The JSON text of `value`, or undefined for `undefined` (or a function).
 * @param {unknown} value
 * @param {string} what what is being sent, for the error: "the arguments of tool `x`"
 * @returns {string | undefined}
 * @throws {EncodeError}
 */
export function jsonText(value, what) {
  if (value === undefined) return undefined;
  try {
    // Plain data (nearly every event) needs no replacer, which costs a call per key.
    return JSON.stringify(value);
  } catch (err) {
    if (err instanceof RangeError) throw tooDeep(what);
    // A cycle or a BigInt: the careful way below tells which.
  }
  /** @type {unknown[]} the objects from the root to the one being written */
  const ancestors = [];
  try {
    return JSON.stringify(value, function (key, v) {
      if (typeof v === "function" || typeof v === "symbol") return undefined;
      if (typeof v === "bigint") {
        throw new EncodeError(`cannot send ${what}: ${key ? `\`${key}\` is` : "it is"} a BigInt, which JSON cannot represent`);
      }
      if (v !== null && typeof v === "object") {
        if (typeof AbortSignal !== "undefined" && v instanceof AbortSignal) return undefined;
        // `this` holds `key`: whatever is deeper than it was written already.
        while (ancestors.length > 0 && ancestors[ancestors.length - 1] !== this) ancestors.pop();
        if (ancestors.includes(v)) return undefined; // a cycle: left out
        ancestors.push(v);
      }
      return v;
    });
  } catch (err) {
    if (err instanceof EncodeError) throw err;
    if (err instanceof RangeError) throw tooDeep(what);
    throw new EncodeError(`cannot send ${what}: ${messageOf(err)}`);
  }
}

/** @param {string} what */
function tooDeep(what) {
  return new EncodeError(`cannot send ${what}: it is nested too deeply to be written as JSON`);
}

/**
 * Set `key` of `container` as JSON.parse would: a `__proto__` key is an own
 * property (an assignment would set the prototype instead).
 * @param {any} container
 * @param {string | number} key
 * @param {unknown} value
 */
export function setJsonKey(container, key, value) {
  if (key === "__proto__") Object.defineProperty(container, key, { value, writable: true, enumerable: true, configurable: true });
  else container[key] = value;
}

/** Keys a value from the model or the extension must never set on an object. */
const UNSAFE_KEYS = new Set(["__proto__", "constructor", "prototype"]);

/**
 * Copy the own keys of `source` onto `target`, skipping `__proto__`,
 * `constructor` and `prototype` (JSON.parse makes `"__proto__"` an own key;
 * `Object.assign` would set the prototype with it).
 * @param {Record<string, unknown>} target
 * @param {Record<string, unknown>} source
 */
export function assignOwnKeys(target, source) {
  for (const key of Object.keys(source)) {
    if (!UNSAFE_KEYS.has(key)) target[key] = source[key];
  }
}
