// @ts-check
// A tool call's arguments while their JSON streams in pieces. pi shows the
// partial arguments as they arrive; pi-ai's parseStreamingJson re-reads the
// whole text at every piece (quadratic over a long call), so this reads each
// piece once and grows the partial value in place. It is lenient where pi's
// repair is (raw control characters, unknown escapes): it only feeds a view,
// and the finished text is parsed strictly at the call's end.

import { setJsonKey } from "./json.js";

// What the reader expects next.
const VALUE = 0; // a value
const FIRST_ITEM = 1; // after `[`: a value or `]`
const FIRST_KEY = 2; // after `{`: a key or `}`
const KEY = 3; // after `,` in an object: a key
const COLON = 4; // after a key
const AFTER = 5; // after a value in a container: `,` or its close
const STRING = 6; // inside a string (a key or a value)
const NUMBER = 7; // inside a number
const LITERAL = 8; // inside `true`, `false` or `null`
const END = 9; // after the top-level value: only whitespace
const BROKEN = 10; // not JSON: the view stops growing

/** @type {Record<string, string>} */
const ESCAPES = { '"': '"', "\\": "\\", "/": "/", b: "\b", f: "\f", n: "\n", r: "\r", t: "\t" };
const SPECIAL = /["\\]/g;
const HEX4 = /^[0-9a-fA-F]{4}$/;

/** @param {string} c */
const isSpace = (c) => c === " " || c === "\n" || c === "\r" || c === "\t";
/** @param {string} c */
const isNumberChar = (c) => (c >= "0" && c <= "9") || c === "-" || c === "+" || c === "." || c === "e" || c === "E";

/** The partial value of a JSON text that arrives in pieces. */
export class StreamingJson {
  constructor() {
    /** @type {Record<string, unknown>} the top-level object so far; `{}` until it starts (or if it is no object) */
    this.value = {};
    /** characters read so far: each once */
    this.scanned = 0;
    /** @private */
    this.state = VALUE;
    /** @type {Array<{ container: any, key: string | number }>} open objects and arrays, innermost last @private */
    this.stack = [];
    /** the string, number or literal being read @private */
    this.token = "";
    /** an escape read in part (`\`, `\u12`), or "" @private */
    this.escape = "";
    /** the string being read is a key @private */
    this.isKey = false;
    /** @type {{ container: any, key: string | number } | undefined} where the string being read goes @private */
    this.slot = undefined;
  }

  /** The text is not JSON (what was read before stays in `value`). */
  get broken() {
    return this.state === BROKEN;
  }

  /**
   * Read the next piece of the text.
   * @param {string} chunk
   */
  push(chunk) {
    let i = 0;
    const n = chunk.length;
    while (i < n && this.state !== BROKEN) {
      if (this.state === STRING) {
        i = this.string(chunk, i);
        continue;
      }
      const c = chunk[i];
      if (this.state === NUMBER || this.state === LITERAL) {
        if (this.state === NUMBER ? isNumberChar(c) : c >= "a" && c <= "z") {
          this.token += c;
          i++;
        } else {
          this.endToken(); // `c` is read again in the state after the token
        }
        continue;
      }
      i++;
      if (isSpace(c)) continue;
      this.structural(c);
    }
    this.scanned += i;
    if (this.state === NUMBER || this.state === LITERAL) this.showToken();
  }

  /**
   * A character outside strings, numbers and literals.
   * @param {string} c
   * @private
   */
  structural(c) {
    const top = this.stack[this.stack.length - 1];
    switch (this.state) {
      case FIRST_ITEM:
        if (c === "]") return this.close(false);
      // fall through: a value
      case VALUE:
        return this.startValue(c);
      case FIRST_KEY:
        if (c === "}") return this.close(true);
      // fall through: a key
      case KEY:
        if (c !== '"') return this.fail();
        this.state = STRING;
        this.isKey = true;
        this.token = "";
        return;
      case COLON:
        if (c !== ":") return this.fail();
        this.state = VALUE;
        return;
      case AFTER: {
        const inObject = !Array.isArray(top.container);
        if (c === ",") this.state = inObject ? KEY : VALUE;
        else if (c === (inObject ? "}" : "]")) this.close(inObject);
        else this.fail();
        return;
      }
      default:
        return this.fail(); // END: something after the value
    }
  }

  /** @param {string} c @private */
  startValue(c) {
    this.slot = this.nextSlot();
    if (c === "{" || c === "[") {
      const container = c === "{" ? {} : [];
      if (this.stack.length === 0 && c === "{") this.value = /** @type {Record<string, unknown>} */ (container);
      else this.set(container);
      this.stack.push({ container, key: 0 });
      this.state = c === "{" ? FIRST_KEY : FIRST_ITEM;
    } else if (c === '"') {
      this.state = STRING;
      this.isKey = false;
      this.token = "";
      this.set("");
    } else if (c === "-" || (c >= "0" && c <= "9")) {
      this.state = NUMBER;
      this.token = c;
    } else if (c === "t" || c === "f" || c === "n") {
      this.state = LITERAL;
      this.token = c;
    } else {
      this.fail();
    }
  }

  /**
   * Where the next value of the innermost container goes (none at the top
   * level: a top-level value that is no object has no view).
   * @private
   */
  nextSlot() {
    const top = this.stack[this.stack.length - 1];
    if (!top) return undefined;
    return { container: top.container, key: Array.isArray(top.container) ? top.container.length : top.key };
  }

  /** @param {unknown} value the value being read, as far as it goes @private */
  set(value) {
    if (this.slot) setJsonKey(this.slot.container, this.slot.key, value);
  }

  /**
   * Read string text from `chunk[i]` on; where the reading stopped.
   * @param {string} chunk
   * @param {number} i
   * @private
   */
  string(chunk, i) {
    if (this.escape !== "") return this.escaped(chunk, i);
    SPECIAL.lastIndex = i;
    const m = SPECIAL.exec(chunk);
    const stop = m ? m.index : chunk.length;
    if (stop > i) this.token += chunk.slice(i, stop);
    if (!m || chunk[stop] === "\\") {
      this.show();
      if (!m) return stop;
      this.escape = "\\";
      return stop + 1;
    }
    // The closing quote.
    if (this.isKey) {
      this.stack[this.stack.length - 1].key = this.token;
      this.state = COLON;
    } else {
      this.show();
      this.ended();
    }
    this.token = "";
    return stop + 1;
  }

  /**
   * Read an escape (it may be split across pieces).
   * @param {string} chunk
   * @param {number} i
   * @private
   */
  escaped(chunk, i) {
    this.escape += chunk[i];
    const kind = this.escape[1];
    if (kind === "u" && this.escape.length < 6) return i + 1;
    if (kind === "u") {
      const hex = this.escape.slice(2);
      this.token += HEX4.test(hex) ? String.fromCharCode(parseInt(hex, 16)) : this.escape;
    } else {
      this.token += ESCAPES[kind] ?? this.escape;
    }
    this.escape = "";
    this.show();
    return i + 1;
  }

  /** Show the string being read, as far as it goes, in the value. @private */
  show() {
    if (!this.isKey) this.set(this.token);
  }

  /**
   * Show the number or literal being read as pi-ai's partial parser would:
   * `1e` as 1, `tr` as true.
   * @private
   */
  showToken() {
    const t = this.token;
    if (this.state === LITERAL) {
      const literal = ["true", "false", "null"].find((l) => l.startsWith(t));
      if (literal) this.set(JSON.parse(literal));
      return;
    }
    const digits = t.replace(/[eE+\-.]+$/, "");
    try {
      if (digits !== "") this.set(JSON.parse(digits));
    } catch {
      // not a number yet (`-`, `01`): nothing to show
    }
  }

  /** A number or literal ended: its value goes in place. @private */
  endToken() {
    /** @type {unknown} */
    let value;
    try {
      value = JSON.parse(this.token);
    } catch {
      return this.fail();
    }
    this.token = "";
    this.set(value);
    this.ended();
  }

  /** @param {boolean} object the container is an object @private */
  close(object) {
    const top = this.stack[this.stack.length - 1];
    if (!top || Array.isArray(top.container) === object) return this.fail();
    this.stack.pop();
    this.ended();
  }

  /** A value ended: what may follow it. @private */
  ended() {
    this.state = this.stack.length === 0 ? END : AFTER;
  }

  /** @private */
  fail() {
    this.state = BROKEN;
  }
}
