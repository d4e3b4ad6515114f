// @ts-check
// Keys as pi names them: the terminal's bytes decoded with pi-tui's own
// parseKey, plus the other names its matchesKey accepts for the same bytes,
// so that the extension's `Key::is(id)` agrees with `matchesKey(data, id)`.
// And the other way round: the bytes of a key name (editor `send` actions).

import { decodeKittyPrintable, isKeyRelease, isKeyRepeat, isKittyProtocolActive, matchesKey, parseKey } from "@mariozechner/pi-tui";

/**
 * Ids `matchesKey` accepts for some input although `parseKey` names it
 * otherwise (measured over legacy, CSI-u, modifyOtherKeys and xterm inputs,
 * kitty mode on and off): `\r` is also ctrl+m, `\x1bb` alt+left and alt+b, …
 */
const CANDIDATES = [
  "ctrl+h",
  "ctrl+i",
  "ctrl+j",
  "ctrl+m",
  "ctrl+[",
  "ctrl+_",
  "ctrl+alt+h",
  "ctrl+alt+m",
  "ctrl+alt+_",
  "alt+b",
  "alt+f",
  "alt+n",
  "alt+p",
  "home",
  "end",
  "shift+enter",
  "enter",
  "backspace",
  "ctrl+backspace",
];

/**
 * @typedef {object} DecodedKey
 * @property {string | undefined} key pi-tui's name for the input
 * @property {string[]} aliases other names matchesKey accepts
 * @property {string | undefined} text the text it types, if printable
 * @property {"press" | "repeat" | "release"} kind
 */

/** Decoded inputs, by kitty state and data (bounded). */
const cache = new Map();
const CACHE_SIZE = 512;

/**
 * Whether `data` is text a user typed (or pasted without brackets).
 * @param {string} data
 */
function printable(data) {
  if (data.length === 0 || data.startsWith("\x1b")) return false;
  for (let i = 0; i < data.length; i++) {
    const c = data.charCodeAt(i);
    if (c < 0x20 || c === 0x7f || (c >= 0x80 && c < 0xa0)) return false;
  }
  return true;
}

/**
 * @param {string} data
 * @returns {DecodedKey}
 */
function decodeUncached(data) {
  /** @type {string | undefined} */
  let key;
  try {
    key = parseKey(data);
  } catch {
    key = undefined;
  }
  /** @type {string[]} */
  const aliases = [];
  if (data.length === 1 && data >= "A" && data <= "Z") aliases.push(`shift+${data.toLowerCase()}`);
  for (const id of CANDIDATES) {
    try {
      if (id !== key && matchesKey(data, /** @type {any} */ (id))) aliases.push(id);
    } catch {
      // An id this pi-tui does not know.
    }
  }
  if (key === undefined && aliases.length > 0) key = aliases.shift();
  let text;
  try {
    text = decodeKittyPrintable(data);
  } catch {
    text = undefined;
  }
  if (text === undefined && printable(data)) text = data;
  const kind = isKeyRelease(data) ? "release" : isKeyRepeat(data) ? "repeat" : "press";
  return { key, aliases, text, kind };
}

/**
 * The key the terminal's input `data` is.
 * @param {string} data
 * @returns {DecodedKey}
 */
export function decodeKey(data) {
  let kitty = false;
  try {
    kitty = isKittyProtocolActive();
  } catch {
    // An older pi-tui: legacy decoding.
  }
  const id = (kitty ? "k" : "l") + data;
  const hit = cache.get(id);
  if (hit) return hit;
  const decoded = decodeUncached(data);
  if (cache.size >= CACHE_SIZE) cache.delete(cache.keys().next().value);
  cache.set(id, decoded);
  return decoded;
}

/**
 * The bytes a legacy terminal sends for a key name (for the editor's `send`
 * actions): what pi's editor reads back as that key.
 */
const NAMED = new Map([
  ["enter", "\r"],
  ["tab", "\t"],
  ["escape", "\x1b"],
  ["backspace", "\x7f"],
  ["delete", "\x1b[3~"],
  ["insert", "\x1b[2~"],
  ["space", " "],
  ["up", "\x1b[A"],
  ["down", "\x1b[B"],
  ["right", "\x1b[C"],
  ["left", "\x1b[D"],
  ["home", "\x1b[H"],
  ["end", "\x1b[F"],
  ["pageup", "\x1b[5~"],
  ["pagedown", "\x1b[6~"],
  ["shift+tab", "\x1b[Z"],
  ["alt+left", "\x1bb"],
  ["alt+right", "\x1bf"],
  ["alt+backspace", "\x1b\x7f"],
]);

/**
 * The bytes for key `name`, or undefined for a name without them.
 * @param {string} name
 */
export function keyBytes(name) {
  if (typeof name !== "string" || name.length === 0) return undefined;
  if ([...name].length === 1) return name;
  const id = name.toLowerCase();
  const named = NAMED.get(id === "esc" ? "escape" : id === "return" ? "enter" : id);
  if (named) return named;
  const ctrl = /^ctrl\+([a-z])$/.exec(id);
  if (ctrl) return String.fromCharCode(ctrl[1].charCodeAt(0) & 0x1f);
  const alt = /^alt\+(.)$/.exec(name);
  if (alt) return `\x1b${alt[1]}`;
  return undefined;
}
