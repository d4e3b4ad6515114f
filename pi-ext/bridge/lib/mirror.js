// @ts-check
// Mirrored lists: what a `context` or `before_provider_request` hook was
// sent last, so that the next call sends only what changed.
//
// pi hands every `context` handler a fresh structuredClone of the messages,
// and any handler may change it in place: no object survives from one call
// to the next. What is stable is content, so each element of the new list is
// compared with the list sent last (a deep comparison, cheap next to
// writing and parsing the JSON), and the call carries `[0, start, len]`
// (keep `len` elements of the previous list from `start`) and `[1, element]`
// (a new element). The extension keeps the same list and answers with edits
// of this call's input in the same form. See PROTOCOL.md, "Mirrored payloads".
//
// The comparison is of JSON values: key order aside (JSON objects are
// unordered, and checking the order took 40 % of a 5,000-message
// comparison), so a message whose keys an earlier handler only reordered
// keeps the extension's copy, in its old order. PI_EXT_MIRROR_CHECK compares
// texts, so it compares key order too.
//
// What stays inexact: an element kept by the hook goes on to the handlers
// after it, which may change it in place; if pi's own copy of that message
// then changes to exactly the same content, the next comparison finds no
// change although the extension has the old content. PI_EXT_MIRROR_CHECK=1
// sends the whole list along and the extension checks its copy against it.

import { setJsonKey } from "./json.js";

/**
 * Keys of the objects `same` compares with key order, one stack for the
 * whole recursion: each level pushes its keys above the ones below it and
 * pops them when done, so a comparison allocates nothing (a 5,000-message
 * conversation has some 30,000 objects, and `Object.keys` for each side was
 * a third of the comparison's time in pi's profile, and garbage).
 * @type {string[]}
 */
const keyStack = [];

/** Whether the comparison `equality` set up counts key order. */
let keyOrder = false;

/**
 * Whether `a` and `b` are the same JSON value (with `ordered`: write the same
 * JSON text, key order included). Conservative: objects other than plain
 * objects and arrays are equal only if they are the same object (a Date's
 * JSON is not in its own keys), so "equal" is always right and "different"
 * may only cost a few bytes.
 * @param {unknown} a
 * @param {unknown} b
 * @param {boolean} [ordered]
 * @returns {boolean}
 */
export function deepEqual(a, b, ordered = false) {
  return equality(ordered)(a, b);
}

/**
 * The comparison to use for a while (one diff): `same`, with or without
 * key order, unless `for…in` would see inherited keys (an enumerable key on
 * Object.prototype: someone polluted it), then `sameOwn`.
 * @param {boolean} ordered
 * @returns {(a: unknown, b: unknown) => boolean}
 */
function equality(ordered) {
  // What a comparison that threw (a getter) left behind.
  keyStack.length = 0;
  keyOrder = ordered;
  for (const _ in Object.prototype) return sameOwn;
  return same;
}

/**
 * `deepEqual` on plain data. Without key order, each key of `a` is looked
 * up in `b`, and `b` has as many keys; with it (`keyOrder`), the keys come
 * in the same `for…in` order, which for a plain object is its own keys'
 * order (`Object.keys`, JSON's order).
 * @param {unknown} a
 * @param {unknown} b
 * @returns {boolean}
 */
function same(a, b) {
  if (a === b) return true;
  if (typeof a !== "object" || typeof b !== "object" || a === null || b === null) return false;
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) {
      // Leaves (nearly every value) without a call.
      const x = a[i];
      const y = b[i];
      if (x !== y && (typeof x !== "object" || !same(x, y))) return false;
    }
    return true;
  }
  if (Array.isArray(b)) return false;
  // Both plain, by one look-up each (a null prototype and Object's count
  // as different: "different" only costs bytes).
  const proto = Object.getPrototypeOf(a);
  if (proto !== Object.getPrototypeOf(b) || (proto !== Object.prototype && proto !== null)) return false;
  const ra = /** @type {Record<string, unknown>} */ (a);
  const rb = /** @type {Record<string, unknown>} */ (b);
  if (keyOrder) return sameInOrder(ra, rb);
  let keys = 0;
  for (const k in ra) {
    keys++;
    const x = ra[k];
    const y = rb[k];
    if (x !== y) {
      if (typeof x !== "object" || !same(x, y)) return false;
    } else if (x === undefined && !Object.prototype.hasOwnProperty.call(rb, k)) {
      // `{a: undefined}` and `{b: 1}` have as many keys.
      return false;
    }
  }
  for (const _ in rb) keys--;
  return keys === 0;
}

/**
 * The object half of `same` with key order: the same keys in the same
 * order, and the same values.
 * @param {Record<string, unknown>} ra
 * @param {Record<string, unknown>} rb
 * @returns {boolean}
 */
function sameInOrder(ra, rb) {
  const base = keyStack.length;
  for (const k in ra) keyStack.push(k);
  const end = keyStack.length;
  let i = base;
  let equal = true;
  for (const k in rb) {
    if (i === end || keyStack[i] !== k) {
      equal = false;
      break;
    }
    const x = ra[k];
    const y = rb[k];
    if (x !== y && (typeof x !== "object" || !same(x, y))) {
      equal = false;
      break;
    }
    i++;
  }
  keyStack.length = base;
  return equal && i === end;
}

/**
 * `deepEqual` by own keys (`Object.keys`), for when `for…in` would see
 * inherited keys; key order counts (conservative).
 * @param {unknown} a
 * @param {unknown} b
 * @returns {boolean}
 */
function sameOwn(a, b) {
  if (a === b) return true;
  if (typeof a !== "object" || typeof b !== "object" || a === null || b === null) return false;
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!sameOwn(a[i], b[i])) return false;
    return true;
  }
  if (Array.isArray(b) || !isPlain(a) || !isPlain(b)) return false;
  const ra = /** @type {Record<string, unknown>} */ (a);
  const rb = /** @type {Record<string, unknown>} */ (b);
  const ka = Object.keys(ra);
  const kb = Object.keys(rb);
  if (ka.length !== kb.length) return false;
  for (let i = 0; i < ka.length; i++) if (ka[i] !== kb[i]) return false;
  for (let i = 0; i < ka.length; i++) if (!sameOwn(ra[ka[i]], rb[ka[i]])) return false;
  return true;
}

/** @param {object} o */
function isPlain(o) {
  const proto = Object.getPrototypeOf(o);
  return proto === Object.prototype || proto === null;
}

/**
 * A string that is likely different for different messages: what lines
 * an element of the new list up with the previous one when they are not at
 * the same index (the comparison itself is always deep).
 * @param {unknown} m
 */
function keyOf(m) {
  if (m === null || typeof m !== "object" || Array.isArray(m)) return "\0json";
  const r = /** @type {Record<string, unknown>} */ (m);
  return `${String(r.role ?? r.type ?? "")}\0${String(r.timestamp ?? "")}\0${String(r.toolCallId ?? r.tool_call_id ?? r.name ?? "")}`;
}

/** @typedef {[0, number, number] | [1, unknown]} Op */

/**
 * @typedef {object} ListUpdate
 * @property {number | null} base the generation the ops apply to (null: none)
 * @property {number} gen the generation they make
 * @property {number} len
 * @property {Op[]} ops
 * @property {string} [check] PI_EXT_MIRROR_CHECK: the whole list as JSON
 * @property {number} [prior] `context`: the generation of the hook's answer
 *   whose new elements the bridge holds (see AnswerMemory)
 */

/** The list one hook was sent last, and its generation. */
export class ListMirror {
  constructor() {
    /** @type {unknown[] | null} */
    this.prev = null;
    this.gen = 0;
    /** @type {Map<string, number[]> | null} positions in `prev` by key */
    this.byKey = null;
  }

  /** Forget the list: the next update carries every element. */
  reset() {
    this.prev = null;
    this.byKey = null;
  }

  /**
   * The update that turns the previous list into `cur`, and what to do once
   * it is sent (`commit`: a list equal to `cur` is then the previous list).
   * @param {unknown[]} cur
   * @param {boolean} [check] add the whole list as JSON
   * @param {boolean} [ordered] keep an element only when key order is the
   *   same too (what `check` compares)
   * @returns {{ update: ListUpdate, commit: () => void }}
   */
  diff(cur, check = false, ordered = check) {
    const prev = this.prev;
    this.byKey = null; // built from this diff's first look-up on
    /** @type {Op[]} */
    const ops = [];
    /** @param {number} k */
    const keep = (k) => {
      const last = ops[ops.length - 1];
      if (last && last[0] === 0 && last[1] + last[2] === k) last[2]++;
      else ops.push([0, k, 1]);
    };
    // The list to hold for the next diff: the held element wherever `cur`'s
    // equals it, `cur`'s own only where it is new. pi passes every handler a
    // fresh copy, so holding `cur` would keep that whole copy alive until the
    // next call (the garbage collector then promotes and later sweeps it);
    // this way the copy dies young, and the held list stays the same objects.
    let held = cur;
    let i = 0;
    if (prev) {
      const eq = equality(ordered);
      // The common prefix: nearly everything, nearly always.
      while (i < cur.length && i < prev.length && eq(cur[i], prev[i])) i++;
      if (i > 0) ops.push([0, 0, i]);
      held = prev.slice(0, i);
      let j = i;
      for (; i < cur.length; i++) {
        const m = cur[i];
        let k = -1;
        if (j < prev.length && eq(m, prev[j])) k = j;
        else if (j + 1 < prev.length) {
          const candidates = this.index(j + 1).get(keyOf(m));
          if (candidates) for (const x of candidates) if (x > j && eq(m, prev[x])) { k = x; break; }
        }
        if (k === -1) {
          ops.push([1, m]);
          held.push(m);
        } else {
          keep(k);
          held.push(prev[k]);
          j = k + 1;
        }
      }
    } else {
      for (const m of cur) ops.push([1, m]);
    }
    const gen = this.gen + 1;
    /** @type {ListUpdate} */
    const update = { base: prev ? this.gen : null, gen, len: cur.length, ops };
    if (check) update.check = JSON.stringify(cur);
    return {
      update,
      commit: () => {
        this.prev = held;
        this.gen = gen;
        this.byKey = null;
      },
    };
  }

  /**
   * Positions in `prev` by key, from `from` on: where an element can still
   * be found (the diff only looks ahead of what it kept, so the part before
   * the first look-up is never needed; a new message at the end of a long
   * conversation used to index all of it, a third of the diff's time in
   * pi's profile).
   * @param {number} from
   * @private
   */
  index(from) {
    if (this.byKey) return this.byKey;
    /** @type {Map<string, number[]>} */
    const byKey = new Map();
    const prev = this.prev ?? [];
    for (let i = from; i < prev.length; i++) {
      const key = keyOf(prev[i]);
      const list = byKey.get(key);
      if (list) list.push(i);
      else byKey.set(key, [i]);
    }
    this.byKey = byKey;
    return byKey;
  }
}

/**
 * The new elements of a hook's last answer, kept for the next answer to
 * name (`[2, start, len]`) instead of sending them again.
 * @typedef {object} AnswerRefs
 * @property {readonly unknown[]} prior the previous answer's, untouched copies
 * @property {unknown[] | null} kept where this answer's go (null: not kept)
 */

/**
 * The list an answer's edits describe: runs of `input`, new elements, and
 * (with `refs`) runs of the previous answer's new elements, as copies.
 * @param {unknown[]} input the call's input
 * @param {unknown} ops
 * @param {AnswerRefs} [refs]
 * @returns {unknown[]}
 * @throws {Error} when the edits are not well formed
 */
export function applyOps(input, ops, refs) {
  if (!Array.isArray(ops)) throw new Error("the answer's ops are not a list");
  const kept = refs?.kept ?? null;
  /** @type {unknown[]} */
  const out = [];
  for (const op of ops) {
    if (!Array.isArray(op)) throw new Error("an op is not a list");
    if (op[0] === 0 && op.length === 3) {
      const [, start, len] = op;
      checkRun(start, len, input.length, "the input");
      for (let k = start; k < start + len; k++) out.push(input[k]);
    } else if (op[0] === 1 && op.length === 2) {
      out.push(op[1]);
      // pi and the handlers after this one may change what they get in
      // place: what is kept is a copy of its own.
      kept?.push(copyJson(op[1]));
    } else if (op[0] === 2 && op.length === 3 && refs) {
      const [, start, len] = op;
      checkRun(start, len, refs.prior.length, "the previous answer");
      for (let k = start; k < start + len; k++) {
        const element = refs.prior[k];
        out.push(copyJson(element));
        kept?.push(element);
      }
    } else {
      throw new Error(`unknown op ${JSON.stringify(op).slice(0, 40)}`);
    }
  }
  return out;
}

/**
 * @param {unknown} start
 * @param {unknown} len
 * @param {number} size
 * @param {string} what
 * @returns {asserts start is number}
 */
function checkRun(start, len, size, what) {
  if (!Number.isInteger(start) || !Number.isInteger(len) || Number(start) < 0 || Number(len) < 0 || Number(start) + Number(len) > size) {
    throw new Error(`keep ${start}+${len} is outside ${what} of ${size}`);
  }
}

/**
 * A copy of JSON data (what `JSON.parse` makes: plain objects, arrays,
 * primitives), keys in the same order. An own `__proto__` key stays a key.
 * A copy per element is a few hundred nanoseconds; parsing the element's
 * JSON again costs several times that (a pruning hook's 2,500 placeholders:
 * 0.4 ms against 2.5).
 * @param {unknown} v
 * @returns {unknown}
 */
export function copyJson(v) {
  if (typeof v !== "object" || v === null) return v;
  if (Array.isArray(v)) {
    const a = new Array(v.length);
    for (let i = 0; i < v.length; i++) a[i] = copyJson(v[i]);
    return a;
  }
  const r = /** @type {Record<string, unknown>} */ (v);
  /** @type {Record<string, unknown>} */
  const o = {};
  for (const k of Object.keys(r)) {
    setJsonKey(o, k, copyJson(r[k]));
  }
  return o;
}

/** An answer names a previous answer the bridge no longer holds. */
export class StaleAnswer extends Error {}

/**
 * What a `context` hook answered last: the new elements of that answer
 * (copies no one else has) and the generation the extension gave it. The
 * next call tells the extension which generation is held (`prior`), and an
 * answer may name its elements with `[2, start, len]`.
 */
export class AnswerMemory {
  constructor() {
    /** @type {number | null} */
    this.gen = null;
    /** @type {unknown[]} */
    this.items = [];
  }

  reset() {
    this.gen = null;
    this.items = [];
  }

  /**
   * pi's list for an answer `{ops, gen?, prior?}` to `input`; the answer's
   * new elements are held next when it has a generation.
   * @param {unknown[]} input
   * @param {{ ops?: unknown, gen?: unknown, prior?: unknown }} answer
   * @returns {unknown[]}
   * @throws {StaleAnswer} when it names an answer that is not the one held
   * @throws {Error} when its edits are not well formed
   */
  apply(input, answer) {
    const ops = answer.ops;
    if (Array.isArray(ops) && ops.some((op) => Array.isArray(op) && op[0] === 2) && (this.gen === null || answer.prior !== this.gen)) {
      throw new StaleAnswer(`the answer refers to answer ${String(answer.prior)}, the bridge holds ${String(this.gen)}`);
    }
    const gen = Number.isSafeInteger(answer.gen) ? /** @type {number} */ (answer.gen) : null;
    /** @type {unknown[] | null} */
    const kept = gen === null ? null : [];
    try {
      const out = applyOps(input, ops, { prior: this.items, kept });
      this.items = kept ?? [];
      this.gen = gen;
      return out;
    } catch (err) {
      this.reset();
      throw err;
    }
  }
}

/**
 * @typedef {object} PayloadUpdate
 * @property {number | null} base
 * @property {number} gen
 * @property {Record<string, unknown>} fields new or changed fields (all of them without a base)
 * @property {string[]} removed fields and lists that are gone
 * @property {Record<string, ListUpdate>} lists every list of the request
 * @property {string} [check]
 */

/** The provider request one hook was sent last: its fields and lists. */
export class PayloadMirror {
  constructor() {
    /** @type {Record<string, unknown> | null} */
    this.prev = null;
    this.gen = 0;
    /** @type {Map<string, ListMirror>} */
    this.lists = new Map();
  }

  reset() {
    this.prev = null;
    this.lists = new Map();
  }

  /**
   * @param {Record<string, unknown>} cur
   * @param {boolean} [check]
   * @returns {{ update: PayloadUpdate, commit: () => void }}
   */
  diff(cur, check = false) {
    const prev = this.prev;
    /** @type {Record<string, unknown>} */
    const fields = {};
    /** @type {string[]} */
    const removed = [];
    /** @type {Record<string, ListUpdate>} */
    const lists = {};
    /** @type {Array<() => void>} */
    const commits = [];
    /** @type {Map<string, ListMirror>} */
    const nextLists = new Map();
    // What to hold, as ListMirror holds its list: the held value of each
    // unchanged field, `cur`'s only where it changed (a list: its mirror's
    // own list, set at commit).
    /** @type {Record<string, unknown>} */
    const held = {};
    for (const key of Object.keys(cur)) {
      const v = cur[key];
      if (Array.isArray(v)) {
        const mirror = (prev && this.lists.get(key)) || new ListMirror();
        const { update, commit } = mirror.diff(v, false, check);
        lists[key] = update;
        commits.push(commit);
        nextLists.set(key, mirror);
        setJsonKey(held, key, v);
      } else if (v !== undefined && (!prev || !Object.prototype.hasOwnProperty.call(prev, key) || Array.isArray(prev[key]) || !deepEqual(prev[key], v, check))) {
        setJsonKey(fields, key, v);
        setJsonKey(held, key, v);
      } else {
        setJsonKey(held, key, v === undefined ? v : /** @type {Record<string, unknown>} */ (prev)[key]);
      }
    }
    if (prev) {
      for (const key of Object.keys(prev)) {
        if (prev[key] !== undefined && (!Object.prototype.hasOwnProperty.call(cur, key) || cur[key] === undefined)) removed.push(key);
      }
    }
    const gen = this.gen + 1;
    /** @type {PayloadUpdate} */
    const update = { base: prev ? this.gen : null, gen, fields, removed, lists };
    if (check) update.check = JSON.stringify(cur);
    return {
      update,
      commit: () => {
        for (const c of commits) c();
        for (const [key, mirror] of nextLists) setJsonKey(held, key, mirror.prev);
        this.prev = held;
        this.gen = gen;
        this.lists = nextLists;
      },
    };
  }
}

/**
 * The request body an answer's changes describe: `input` with changed
 * fields, without removed ones, with lists rebuilt from edits of `input`'s
 * lists; key order as in `input`, new keys last.
 * @param {Record<string, unknown>} input
 * @param {unknown} changes
 * @returns {Record<string, unknown>}
 */
export function applyChanges(input, changes) {
  if (changes === null || typeof changes !== "object" || Array.isArray(changes)) throw new Error("the answer's changes are not an object");
  const c = /** @type {{ fields?: unknown, removed?: unknown, lists?: unknown }} */ (changes);
  const fields = /** @type {Record<string, unknown>} */ (isRecord(c.fields) ? c.fields : {});
  const lists = /** @type {Record<string, { ops?: unknown }>} */ (isRecord(c.lists) ? c.lists : {});
  const removed = new Set(Array.isArray(c.removed) ? c.removed.map(String) : []);
  /** @type {Record<string, unknown>} */
  const out = {};
  const keys = [...Object.keys(input), ...Object.keys(fields), ...Object.keys(lists)];
  for (const key of new Set(keys)) {
    if (removed.has(key)) continue;
    if (Object.prototype.hasOwnProperty.call(lists, key)) {
      const before = Array.isArray(input[key]) ? /** @type {unknown[]} */ (input[key]) : [];
      setJsonKey(out, key, applyOps(before, lists[key]?.ops));
    } else if (Object.prototype.hasOwnProperty.call(fields, key)) {
      setJsonKey(out, key, fields[key]);
    } else if (Object.prototype.hasOwnProperty.call(input, key)) {
      setJsonKey(out, key, input[key]);
    }
  }
  return out;
}

/**
 * @param {unknown} v
 * @returns {v is Record<string, unknown>}
 */
function isRecord(v) {
  return v !== null && typeof v === "object" && !Array.isArray(v);
}
