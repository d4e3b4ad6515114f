// @ts-check
// Keys of pi's terminal for the extension (`ui/input-subscribe`, pi's
// `ctx.ui.onTerminalInput`). pi calls input listeners synchronously, before
// its editor, and the extension is another process: so a subscription is a
// filter the bridge applies at once (which keys to consume, which to report
// and pass on), and the keys it matched go to the extension afterwards, as
// parsed keys (names and typed text, never a key's escape sequence).

import { decodeKey } from "./tui-keys.js";

/** Subscriptions one process may hold (each is a listener pi calls on every input). */
export const MAX_SUBSCRIPTIONS = 16;
/** Key ids one filter may name (consume and observe together). */
export const MAX_KEY_IDS = 64;
/** The longest key id (`ctrl+shift+alt+super+pageDown` is 30). */
const MAX_ID_LENGTH = 40;
/** A paste is reported cut to this many UTF-16 units (it is data, and can be megabytes). */
export const MAX_PASTE = 16384;

const MODIFIERS = ["ctrl", "shift", "alt", "super"];

/**
 * A key id in one spelling, as pi-ext's `Key::is` compares them: modifiers
 * in pi's order, lower case except a lone character (`Q` is not `q`), `esc`
 * is `escape`, `return` is `enter`. Undefined for an id of no key.
 * @param {unknown} id
 * @returns {string | undefined}
 */
export function filterKeyId(id) {
  if (typeof id !== "string" || id.length === 0 || id.length > MAX_ID_LENGTH) return undefined;
  // eslint-disable-next-line no-control-regex
  if (/[\x00-\x20\x7f-\x9f]/.test(id)) return undefined;
  const parts = id.split("+");
  /** @type {string[]} */
  let mods;
  let base;
  // `+` itself is a key: "+" or "ctrl++".
  if (id === "+") [mods, base] = [[], "+"];
  else if (id.endsWith("++")) [mods, base] = [parts.slice(0, -2), "+"];
  else [mods, base] = [parts.slice(0, -1), parts[parts.length - 1]];
  const lower = mods.map((m) => m.toLowerCase());
  if (base.length === 0 || lower.some((m) => !MODIFIERS.includes(m))) return undefined;
  let out = "";
  for (const m of MODIFIERS) if (lower.includes(m)) out += `${m}+`;
  if ([...base].length === 1 && lower.length === 0) return out + base;
  const b = base.toLowerCase();
  return out + (b === "esc" ? "escape" : b === "return" ? "enter" : b);
}

/**
 * @typedef {object} InputFilter
 * @property {Set<string>} consume normalized ids: taken, pi's editor never sees them
 * @property {Set<string>} observe normalized ids: reported and passed on
 * @property {boolean} all every key is reported (the unnamed ones passed on)
 */

/**
 * The filter of a `ui/input-subscribe`; throws with the reason for a bad one.
 * @param {any} p
 * @returns {InputFilter}
 */
export function inputFilter(p) {
  /** @param {string} field */
  const ids = (field) => {
    const list = p?.[field] ?? [];
    if (!Array.isArray(list)) throw new Error(`${field} must be a list of key ids`);
    return list.map((id) => {
      const n = filterKeyId(id);
      if (n === undefined) throw new Error(`${JSON.stringify(id)} in ${field} is not a key id (like "f2", "ctrl+shift+r", "q")`);
      return n;
    });
  };
  const consume = ids("consume");
  const observe = ids("observe");
  if (consume.length + observe.length > MAX_KEY_IDS) {
    throw new Error(`a filter names at most ${MAX_KEY_IDS} keys, not ${consume.length + observe.length}`);
  }
  const all = p?.all === true;
  if (consume.length + observe.length === 0 && !all) throw new Error("the filter names no key and does not observe all");
  return { consume: new Set(consume), observe: new Set(observe), all };
}

/**
 * What the extension gets of an input: pi's name for it, the other names
 * pi-tui accepts, the text it types; `data` only as the text it types or a
 * paste (cut to MAX_PASTE), never a key's escape sequence. Undefined for
 * input that is no key (a terminal's reply, a sequence pi-tui cannot name).
 * @param {string} data
 * @returns {{ key: string | undefined, aliases: string[], text: string | undefined, kind: string, data: string } | undefined}
 */
export function inputKey(data) {
  const PASTE = "\x1b[200~";
  if (data.startsWith(PASTE)) {
    let body = data.slice(PASTE.length);
    if (body.endsWith("\x1b[201~")) body = body.slice(0, -6);
    if (body.length > MAX_PASTE) {
      body = body.slice(0, MAX_PASTE);
      // Not half a surrogate pair.
      const last = body.charCodeAt(body.length - 1);
      if (last >= 0xd800 && last <= 0xdbff) body = body.slice(0, -1);
    }
    return { key: undefined, aliases: [], text: undefined, kind: "press", data: `${PASTE}${body}\x1b[201~` };
  }
  const d = decodeKey(data);
  if (d.key === undefined && d.text === undefined) return undefined;
  return { key: d.key, aliases: d.aliases, text: d.text, kind: d.kind, data: d.text ?? "" };
}

/**
 * One subscription.
 * @typedef {object} Subscription
 * @property {InputFilter} filter
 * @property {(key: object) => void} send reports a key to the extension
 * @property {(reason: string) => void} end tells the extension it ended
 * @property {(() => void) | undefined} unsubscribe pi's
 */

/**
 * The subscriptions of every process: one pi input listener each (pi calls
 * them in order; the first to consume a key ends it), by process and the
 * extension's id.
 * @template Child
 */
export class TerminalInputs {
  constructor() {
    /** @type {Map<Child, Map<number, Subscription>>} */
    this.subs = new Map();
  }

  /**
   * Subscribe: `listen` is pi's `onTerminalInput`. Throws when the process
   * holds too many or the id is taken.
   * @param {Child} child
   * @param {number} id
   * @param {InputFilter} filter
   * @param {{ listen: (handler: (data: string) => { consume: true } | undefined) => () => void, send: (key: object) => void, end: (reason: string) => void }} io
   */
  add(child, id, filter, io) {
    let byId = this.subs.get(child);
    if (byId?.has(id)) throw new Error(`terminal input subscription ${id} exists`);
    if ((byId?.size ?? 0) >= MAX_SUBSCRIPTIONS) {
      throw new Error(`an extension holds at most ${MAX_SUBSCRIPTIONS} terminal input subscriptions`);
    }
    /** @type {Subscription} */
    const sub = { filter, send: io.send, end: io.end, unsubscribe: undefined };
    sub.unsubscribe = io.listen((data) => this.input(sub, data));
    if (!byId) this.subs.set(child, (byId = new Map()));
    byId.set(id, sub);
  }

  /**
   * pi's input, for one subscription: synchronous, never throws into pi.
   * Releases pass on unreported (pi's editor ignores them).
   * @param {Subscription} sub
   * @param {string} data
   * @returns {{ consume: true } | undefined}
   */
  input(sub, data) {
    try {
      const key = inputKey(data);
      if (!key || key.kind === "release") return undefined;
      const names = [key.key, ...key.aliases].flatMap((n) => filterKeyId(n) ?? []);
      const consumed = names.some((n) => sub.filter.consume.has(n));
      if (consumed || sub.filter.all || names.some((n) => sub.filter.observe.has(n))) {
        try {
          sub.send({ ...key, consumed });
        } catch {
          // The process is gone: retire() ends it.
        }
      }
      return consumed ? { consume: true } : undefined;
    } catch {
      return undefined;
    }
  }

  /**
   * The extension dropped subscription `id`.
   * @param {Child} child
   * @param {number} id
   */
  remove(child, id) {
    const byId = this.subs.get(child);
    const sub = byId?.get(id);
    if (!byId || !sub) return;
    byId.delete(id);
    if (byId.size === 0) this.subs.delete(child);
    stopListening(sub);
  }

  /**
   * A process is gone: its listeners go, nothing is told.
   * @param {Child} child
   */
  retire(child) {
    const byId = this.subs.get(child);
    this.subs.delete(child);
    for (const sub of byId?.values() ?? []) stopListening(sub);
  }

  /** pi's session ended (pi dropped the listeners itself): every subscription ends, and says so. */
  sessionEnded() {
    const all = [...this.subs.values()].flatMap((byId) => [...byId.values()]);
    this.subs.clear();
    for (const sub of all) {
      stopListening(sub);
      try {
        sub.end("session");
      } catch {
        // The process is gone.
      }
    }
  }

  /** How many subscriptions there are (for tests). */
  get size() {
    let n = 0;
    for (const byId of this.subs.values()) n += byId.size;
    return n;
  }
}

/** @param {Subscription} sub */
function stopListening(sub) {
  const unsubscribe = sub.unsubscribe;
  sub.unsubscribe = undefined;
  try {
    unsubscribe?.();
  } catch {
    // pi's terminal stopped.
  }
}
