// @ts-check
// Views and frames from the extension (PROTOCOL.md, "Views and frames") as
// the lines pi paints: styles resolved with the theme pi paints with, laid
// out with pi-tui's own width functions, and never a line wider than the
// width pi asked for (pi's terminal stops with an error when one is).
// Pure: no process, no pi; what pi calls synchronously is answered from here.

import { CURSOR_MARKER, truncateToWidth, visibleWidth, wrapTextWithAnsi } from "@mariozechner/pi-tui";

import { sanitize } from "./sanitize.js";
import { hasPiMarkdownTheme, markdownGeneration, markdownLines, markdownPlain, repaintWithPiTheme } from "./tui-markdown.js";
import { controlPlain } from "./tui-controls.js";

/**
 * @typedef {object} WireStyle
 * @property {string | number} [fg] a theme token, `#rrggbb` or a 256-colour index
 * @property {string | number} [bg]
 * @property {boolean} [bold]
 * @property {boolean} [dim]
 * @property {boolean} [italic]
 * @property {boolean} [underline]
 * @property {boolean} [inverse]
 * @property {boolean} [strike]
 * @property {string} [link] a URL: the text is an OSC 8 hyperlink to it (see `linkUrl`)
 */
/** @typedef {string | [string, number]} WireSpan plain text, or text and an index into `styles` */
/** @typedef {WireSpan[]} WireLine */
/**
 * @typedef {{ text: WireLine[], wrap?: boolean }
 *   | { spacer: number }
 *   | { box: { padX?: number, padY?: number, bg?: string | number }, blocks: WireBlock[] }
 *   | { line: { left: WireLine, right: WireLine } }
 *   | { center: WireLine }
 *   | { rule: { fill: WireLine, title?: WireLine } }
 *   | { markdown: string, more?: number }
 *   | { control: object }
 *   | { builtin: true }} WireBlock
 */
/**
 * A view (width-independent) or, with `width`, a frame rendered for one width.
 * @typedef {object} WireView
 * @property {WireStyle[]} [styles]
 * @property {WireBlock[]} [blocks]
 * @property {number} [width]
 * @property {{ line: number, col: number }} [cursor]
 */
/**
 * What of pi's `Theme` the renderer uses.
 * @typedef {object} ThemeLike
 * @property {(token: any) => string} getFgAnsi
 * @property {(token: any) => string} getBgAnsi
 * @property {() => string} getColorMode
 */

/**
 * Most lines a view or frame paints (the runtime's `MAX_VIEW_LINES`): past
 * it, the first `MAX_LINES - 1` and a line saying how many more there were.
 * pi repaints its whole chat on every frame; 100,000 lines froze it for seconds.
 */
export const MAX_LINES = 2000;

/**
 * Deepest nesting of boxes a view lays out (the runtime's `MAX_VIEW_DEPTH`):
 * a deeper box paints as one line saying so. Laying out 5,000 levels ran out
 * of stack, and the view showed nothing.
 */
export const MAX_DEPTH = 64;

/** What a box nested deeper than MAX_DEPTH paints as. */
export const DEPTH_NOTE = `… more nested boxes not shown (pi-ext caps a view's nesting at ${MAX_DEPTH})`;

/**
 * The line saying how many lines a view or frame (`what`) did not show.
 * @param {number} more
 * @param {string} what
 */
export function linesNote(more, what) {
  const n = (/** @type {number} */ x) => x.toLocaleString("en-US");
  return `… ${n(more)} more line${more === 1 ? "" : "s"} (pi-ext caps a ${what} at ${n(MAX_LINES)})`;
}

/** @param {string} text dim, as the runtime's notes are */
const dim = (text) => `\x1b[2m${text}\x1b[22m`;

/**
 * `lines` held to MAX_LINES (and `extra` lines pi drew itself), counting
 * `more` lines already left out.
 * @param {string[]} lines
 * @param {number} more
 * @param {string} what "view" or "frame"
 * @param {(text: string) => string} style how the note shows
 * @param {number} [extra]
 */
function capLines(lines, more, what, style, extra = 0) {
  const limit = MAX_LINES + extra;
  if (lines.length <= limit && more === 0) return lines;
  const keep = Math.min(lines.length, limit - 1);
  const out = lines.slice(0, keep);
  out.push(style(linesNote(more + lines.length - keep, what)));
  return out;
}

/**
 * How many empty lines a spacer block shows (at most 1,000).
 * @param {unknown} n
 */
const spacerLines = (n) => Math.max(0, Math.min(Math.floor(Number(n)) || 0, 1000));

/**
 * Lines collected up to MAX_LINES; past it only counted.
 * @typedef {{ lines: string[], more: number }} Collected
 */

/**
 * Add `items` (as `f` shows them) to `into`, as many as there is room for.
 * @template T
 * @param {Collected} into
 * @param {T[]} items
 * @param {(item: T) => string} f
 */
function collect(into, items, f) {
  const room = Math.max(0, MAX_LINES - into.lines.length);
  for (const item of items.slice(0, room)) into.lines.push(f(item));
  into.more += Math.max(0, items.length - room);
}

/**
 * Lines still laid out, how many were not, and how many pi drew itself
 * (`builtin` blocks: pi's own rendering is not held to pi-ext's limit).
 * @typedef {{ left: number, more: number, builtin: number }} Budget
 */

/**
 * How many of `n` lines are laid out (the rest are counted as not).
 * @param {Budget} budget
 * @param {number} n
 */
function take(budget, n) {
  const shown = Math.min(n, budget.left);
  budget.left -= shown;
  budget.more += n - shown;
  return shown;
}

/** pi-tui's `wrapTextWithAnsi`, for the bridge's other modules. */
export const wrapAnsi = wrapTextWithAnsi;

/** pi-tui's `visibleWidth`, for the bridge's other modules. */
export const widthOf = visibleWidth;

/**
 * `text` cut to `width` columns without an ellipsis (pi-tui's `truncateToWidth`).
 * @param {string} text
 * @param {number} width
 */
export function cut(text, width) {
  return truncateToWidth(text, width, "");
}

/** SGR codes to switch an attribute on and off. */
const ATTRIBUTES = /** @type {const} */ ([
  ["bold", 1, 22],
  ["dim", 2, 22],
  ["italic", 3, 23],
  ["underline", 4, 24],
  ["inverse", 7, 27],
  ["strike", 9, 29],
]);

/** The longest URL a link span may have. */
const MAX_URL = 2048;

/**
 * `url` if it can go into an OSC 8 hyperlink as it is: a scheme and
 * printable ASCII only (no control character, space or non-ASCII: a URI
 * percent-encodes those), at most 2,048 characters; else undefined.
 * @param {unknown} url
 */
export function linkUrl(url) {
  return typeof url === "string" && url.length <= MAX_URL && /^[A-Za-z][A-Za-z0-9+.-]*:[\x21-\x7e]+$/.test(url) ? url : undefined;
}

/** The 6×6×6 colour cube's channel values, as pi's theme converts colours. */
const CUBE = [0, 95, 135, 175, 215, 255];

/**
 * The 256-colour index pi's theme gives an RGB colour (theme.js `rgbTo256`):
 * the nearest cube colour, or a gray for a nearly neutral colour a gray is nearer to.
 * @param {number} r
 * @param {number} g
 * @param {number} b
 */
export function rgbTo256(r, g, b) {
  const nearest = (/** @type {number[]} */ values, /** @type {number} */ v) =>
    values.reduce((best, x, i) => (Math.abs(v - x) < Math.abs(v - values[best]) ? i : best), 0);
  const distance = (/** @type {number} */ r2, /** @type {number} */ g2, /** @type {number} */ b2) =>
    (r - r2) ** 2 * 0.299 + (g - g2) ** 2 * 0.587 + (b - b2) ** 2 * 0.114;
  const [ri, gi, bi] = [nearest(CUBE, r), nearest(CUBE, g), nearest(CUBE, b)];
  const grays = Array.from({ length: 24 }, (_, i) => 8 + i * 10);
  const gi2 = nearest(grays, Math.round(0.299 * r + 0.587 * g + 0.114 * b));
  const gray = grays[gi2];
  const neutral = Math.max(r, g, b) - Math.min(r, g, b) < 10;
  if (neutral && distance(gray, gray, gray) < distance(CUBE[ri], CUBE[gi], CUBE[bi])) return 232 + gi2;
  return 16 + 36 * ri + 6 * gi + bi;
}

/**
 * The escape sequence that sets a colour; "" for one it does not know (never a throw while pi paints).
 * @param {unknown} color
 * @param {boolean} isBg
 * @param {ThemeLike | undefined} theme
 */
export function colorAnsi(color, isBg, theme) {
  const base = isBg ? 48 : 38;
  if (typeof color === "number" && Number.isInteger(color) && color >= 0 && color <= 255) return `\x1b[${base};5;${color}m`;
  if (typeof color !== "string") return "";
  if (/^#[0-9a-fA-F]{6}$/.test(color)) {
    const n = parseInt(color.slice(1), 16);
    const [r, g, b] = [(n >> 16) & 255, (n >> 8) & 255, n & 255];
    let mode = "truecolor";
    try {
      mode = theme?.getColorMode() ?? "truecolor";
    } catch {
      // A theme without a mode: truecolor.
    }
    return mode === "truecolor" ? `\x1b[${base};2;${r};${g};${b}m` : `\x1b[${base};5;${rgbTo256(r, g, b)}m`;
  }
  if (!theme) return "";
  try {
    return isBg ? theme.getBgAnsi(color) : theme.getFgAnsi(color);
  } catch {
    return ""; // an unknown token: plain text
  }
}

/**
 * The [open, close] escape sequences of a style.
 * @param {WireStyle | undefined} style
 * @param {ThemeLike | undefined} theme
 * @returns {[string, string]}
 */
export function styleAnsi(style, theme) {
  if (!style || typeof style !== "object") return ["", ""];
  let open = "";
  let close = "";
  if (style.fg !== undefined) {
    const fg = colorAnsi(style.fg, false, theme);
    if (fg) {
      open += fg;
      close = `\x1b[39m${close}`;
    }
  }
  if (style.bg !== undefined) {
    const bg = colorAnsi(style.bg, true, theme);
    if (bg) {
      open += bg;
      close = `\x1b[49m${close}`;
    }
  }
  for (const [name, on, off] of ATTRIBUTES) {
    if (style[name] === true) {
      open += `\x1b[${on}m`;
      close = `\x1b[${off}m${close}`;
    }
  }
  // BEL-terminated, as pi-tui writes links (some terminals only make those clickable).
  const url = linkUrl(style.link);
  if (url) {
    open = `\x1b]8;;${url}\x07${open}`;
    close += "\x1b]8;;\x07";
  }
  return [open, close];
}

/** Grapheme segmenter for splitting text at a column. */
const graphemes = new Intl.Segmenter(undefined, { granularity: "grapheme" });

/**
 * `text` split before visible column `col`.
 * @param {string} text
 * @param {number} col
 * @returns {[string, string]}
 */
export function splitAtColumn(text, col) {
  let width = 0;
  let at = 0;
  for (const { segment, index } of graphemes.segment(text)) {
    if (width >= col) return [text.slice(0, index), text.slice(index)];
    width += visibleWidth(segment);
    at = index + segment.length;
  }
  return [text.slice(0, at), text.slice(at)];
}

/**
 * A wire line as one ANSI string. With `cursorCol`, CURSOR_MARKER goes before that column.
 * @param {unknown} line
 * @param {Array<[string, string]>} styles resolved style table
 * @param {number} [cursorCol]
 */
export function lineAnsi(line, styles, cursorCol) {
  if (!Array.isArray(line)) return cursorCol === undefined ? "" : " ".repeat(cursorCol) + CURSOR_MARKER;
  let out = "";
  let col = 0;
  let pending = cursorCol !== undefined;
  for (const span of line) {
    const [raw, index] = typeof span === "string" ? [span, undefined] : Array.isArray(span) ? span : ["", undefined];
    const text = sanitize(raw);
    if (text === "") continue;
    const [open, close] = typeof index === "number" && styles[index] ? styles[index] : ["", ""];
    const w = pending ? visibleWidth(text) : 0;
    if (pending && col + w > /** @type {number} */ (cursorCol)) {
      const [before, after] = splitAtColumn(text, /** @type {number} */ (cursorCol) - col);
      out += open + before + CURSOR_MARKER + after + close;
      pending = false;
      continue;
    }
    col += w;
    out += open + text + close;
  }
  if (pending) out += " ".repeat(Math.max(0, /** @type {number} */ (cursorCol) - col)) + CURSOR_MARKER;
  return out;
}

/**
 * `line` cut to `width` if wider, ending in pi-tui's `...` as pi-tui's
 * `truncateToWidth(line, width)` cuts (a TypeScript component's way to fit).
 * @param {string} line
 * @param {number} width
 */
export function fit(line, width) {
  return visibleWidth(line) > width ? truncateToWidth(line, width) : line;
}

/**
 * `line` on a background: padded to `width`, with the background kept across
 * the line's own resets.
 * @param {string} line
 * @param {number} width
 * @param {string} bgOpen
 */
function onBackground(line, width, bgOpen) {
  const padded = line + " ".repeat(Math.max(0, width - visibleWidth(line)));
  if (!bgOpen) return padded;
  return `${bgOpen}${padded.replaceAll("\x1b[0m", `\x1b[0m${bgOpen}`).replaceAll("\x1b[49m", bgOpen)}\x1b[49m`;
}

/**
 * `line` in the middle of `width` columns, as pi's examples' `centerPad`
 * does: the spare columns split with the odd one after; a line too wide is
 * cut with pi-tui's ellipsis.
 * @param {string} line
 * @param {number} width
 */
function centered(line, width) {
  const w = visibleWidth(line);
  if (w >= width) return truncateToWidth(line, width);
  const left = Math.floor((width - w) / 2);
  return " ".repeat(left) + line + " ".repeat(width - w - left);
}

/**
 * The wire line `fill` repeated over `n` columns and cut at the last one,
 * neighbouring spans of one style merged (so a rule of `─` is one styled
 * run, not one per column); an empty fill gives spaces.
 * @param {unknown} fill
 * @param {number} n
 * @param {Array<[string, string]>} styles
 */
function filled(fill, n, styles) {
  if (n <= 0) return "";
  const spans = Array.isArray(fill) ? fill : [];
  const w = visibleWidth(lineAnsi(spans, styles));
  if (w <= 0) return " ".repeat(n);
  /** @type {Array<[string, number | undefined]>} */
  const merged = [];
  for (let i = 0; i < Math.ceil(n / w); i++) {
    for (const span of spans) {
      const [text, style] = typeof span === "string" ? [span, undefined] : Array.isArray(span) ? [String(span[0]), span[1]] : ["", undefined];
      const last = merged[merged.length - 1];
      if (last && last[1] === style) last[0] += text;
      else merged.push([text, style]);
    }
  }
  const line = merged.map(([text, style]) => (style === undefined ? text : [text, style]));
  return cut(lineAnsi(line, styles), n);
}

/**
 * A rule across `width` columns: `fill` repeated, with `title` (if any) in
 * the middle, the spare columns split with the odd one after.
 * @param {unknown} fill a wire line
 * @param {string | undefined} title
 * @param {number} width
 * @param {Array<[string, string]>} styles
 */
function rule(fill, title, width, styles) {
  if (title === undefined) return filled(fill, width, styles);
  const w = visibleWidth(title);
  if (w >= width) return truncateToWidth(title, width);
  const left = Math.floor((width - w) / 2);
  return filled(fill, left, styles) + title + filled(fill, width - w - left, styles);
}

/**
 * A rule where there is no width (RPC mode's text, one-line slots): its fill
 * three times, or twice on each side of its title.
 * @param {string} fill
 * @param {string | undefined | false | null} title
 */
function ruleText(fill, title) {
  return typeof title === "string" ? `${fill.repeat(2)}${title}${fill.repeat(2)}` : fill.repeat(3);
}

/**
 * How a `builtin` block is rendered (tool rows give pi's own rendering).
 * @typedef {(width: number) => string[]} BuiltinRenderer
 */

/**
 * How a frame's `control` block is drawn (a component's live pi-tui control, tui-controls.js).
 * @typedef {(control: object, width: number) => string[]} ControlRenderer
 */

/**
 * @typedef {object} LayoutContext
 * @property {Array<[string, string]>} styles
 * @property {ThemeLike | undefined} theme
 * @property {BuiltinRenderer | undefined} builtin
 * @property {{ line: number, col: number } | undefined} cursor frames: where CURSOR_MARKER goes
 * @property {{ n: number }} rows unwrapped text lines laid out so far (the cursor's line counts these: controls' lines are not the frame's)
 * @property {ControlRenderer | undefined} control
 * @property {Budget} budget text and spacer lines still laid out
 */

/**
 * @param {unknown} blocks
 * @param {number} width
 * @param {LayoutContext} c
 * @param {number} depth how many boxes these blocks are in
 * @returns {string[]}
 */
function layout(blocks, width, c, depth) {
  /** @type {string[]} */
  const out = [];
  if (!Array.isArray(blocks) || width <= 0) return out;
  for (const block of blocks) {
    if (!block || typeof block !== "object") continue;
    const b = /** @type {any} */ (block);
    if (Array.isArray(b.text)) {
      const shown = b.text.slice(0, take(c.budget, b.text.length));
      if (b.wrap === false) {
        for (const line of shown) {
          const cursorCol = c.cursor && c.cursor.line === c.rows.n ? c.cursor.col : undefined;
          c.rows.n++;
          out.push(lineAnsi(line, c.styles, cursorCol));
        }
        continue;
      }
      // pi's Text(…, 0, 0): wrapped, padded to the width; blank text shows nothing.
      const text = shown.map((/** @type {unknown} */ l) => lineAnsi(l, c.styles)).join("\n");
      if (text.replace(/\x1b\[[0-9;]*m/g, "").trim() === "") continue;
      for (const l of wrapTextWithAnsi(text, width)) out.push(l + " ".repeat(Math.max(0, width - visibleWidth(l))));
    } else if (typeof b.spacer === "number") {
      const n = take(c.budget, spacerLines(b.spacer));
      for (let i = 0; i < n; i++) out.push("");
    } else if (b.box && typeof b.box === "object" && depth >= MAX_DEPTH) {
      if (take(c.budget, 1) === 1) out.push(dim(DEPTH_NOTE));
    } else if (b.box && typeof b.box === "object") {
      const padX = Math.max(0, Math.min(Number(b.box.padX) || 0, Math.floor((width - 1) / 2)));
      const padY = Math.max(0, Math.min(Number(b.box.padY) || 0, 100));
      const bgOpen = b.box.bg === undefined ? "" : colorAnsi(b.box.bg, true, c.theme);
      const inner = layout(b.blocks, width - 2 * padX, { ...c, cursor: undefined }, depth + 1);
      if (inner.length === 0) continue; // pi's Box with no content renders nothing
      const margin = " ".repeat(padX);
      for (let i = 0; i < padY; i++) out.push(onBackground("", width, bgOpen));
      for (const l of inner) out.push(onBackground(margin + fit(l, width - 2 * padX) + margin, width, bgOpen));
      for (let i = 0; i < padY; i++) out.push(onBackground("", width, bgOpen));
    } else if (b.line && typeof b.line === "object") {
      const left = lineAnsi(b.line.left, c.styles);
      const right = lineAnsi(b.line.right, c.styles);
      const pad = " ".repeat(Math.max(1, width - visibleWidth(left) - visibleWidth(right)));
      out.push(left + pad + right);
    } else if (Array.isArray(b.center)) {
      if (take(c.budget, 1) === 1) out.push(centered(lineAnsi(b.center, c.styles), width));
    } else if (b.rule && typeof b.rule === "object") {
      const title = Array.isArray(b.rule.title) ? lineAnsi(b.rule.title, c.styles) : undefined;
      if (take(c.budget, 1) === 1) out.push(rule(b.rule.fill, title, width, c.styles));
    } else if (typeof b.markdown === "string") {
      // pi-tui's Markdown with pi's theme (tui-markdown.js bounds the text first).
      const lines = markdownLines(b.markdown, b.more, width, c.theme, dim);
      out.push(...lines.slice(0, take(c.budget, lines.length)));
    } else if (b.control && typeof b.control === "object") {
      // pi-tui's own SelectList, Input or Markdown, live in the component (tui-controls.js).
      const lines = c.control ? c.control(b.control, width) : controlPlain(b.control);
      out.push(...lines.slice(0, take(c.budget, lines.length)));
    } else if (b.builtin === true && c.builtin) {
      const own = c.builtin(width);
      c.budget.builtin += own.length;
      out.push(...own);
    }
  }
  return out;
}

/**
 * A view's or frame's lines at `width`: every line at most `width` wide, at
 * most MAX_LINES lines, boxes down to MAX_DEPTH.
 * @param {WireView | undefined} view
 * @param {number} width
 * @param {ThemeLike | undefined} theme
 * @param {{ focused?: boolean, builtin?: BuiltinRenderer, control?: ControlRenderer }} [options]
 * @returns {string[]}
 */
export function renderView(view, width, theme, options = {}) {
  if (!view || typeof view !== "object" || !(width > 0)) return [];
  const styles = (Array.isArray(view.styles) ? view.styles : []).map((s) => styleAnsi(s, theme));
  const cursor =
    options.focused && view.cursor && typeof view.cursor.line === "number" && typeof view.cursor.col === "number"
      ? view.cursor
      : undefined;
  /** @type {Budget} */
  const budget = { left: MAX_LINES, more: 0, builtin: 0 };
  const context = { styles, theme, builtin: options.builtin, control: options.control, cursor, budget, rows: { n: 0 } };
  const lines = layout(view.blocks, width, context, 0);
  const what = typeof view.width === "number" ? "frame" : "view";
  return capLines(lines, budget.more, what, dim, budget.builtin).map((l) => fit(l, width));
}

/**
 * The text of a view without styles (RPC mode's widgets, messages, logs).
 * @param {WireView | undefined} view
 * @returns {string[]}
 */
export function plainLines(view) {
  /** @type {Collected} */
  const out = { lines: [], more: 0 };
  /** @param {unknown} line */
  const text = (line) =>
    (Array.isArray(line) ? line : []).map((s) => sanitize(typeof s === "string" ? s : Array.isArray(s) ? s[0] : "")).join("");
  /** @param {unknown} blocks @param {number} depth */
  const walk = (blocks, depth) => {
    for (const b of /** @type {any[]} */ (Array.isArray(blocks) ? blocks : [])) {
      if (!b || typeof b !== "object") continue;
      if (Array.isArray(b.text)) collect(out, b.text, text);
      else if (typeof b.spacer === "number") collect(out, Array(spacerLines(b.spacer)).fill(""), String);
      else if (b.box && depth >= MAX_DEPTH) collect(out, [DEPTH_NOTE], String);
      else if (b.box) walk(b.blocks, depth + 1);
      else if (b.line) collect(out, [b.line], (l) => `${text(l.left)} ${text(l.right)}`);
      else if (Array.isArray(b.center)) collect(out, [b.center], text);
      else if (b.rule) collect(out, [b.rule], (r) => ruleText(text(r.fill), r.title && text(r.title)));
      else if (typeof b.markdown === "string") collect(out, markdownPlain(b.markdown, b.more), String);
      else if (b.control) collect(out, controlPlain(b.control), String);
    }
  };
  walk(view?.blocks, 0);
  return capLines(out.lines, out.more, "view", String);
}

/**
 * A view as one string with the theme's escape sequences (for the strings
 * pi keeps: statuses, notifications, working-indicator frames).
 * @param {WireView | undefined} view
 * @param {ThemeLike | undefined} theme
 */
export function styledText(view, theme) {
  const styles = (Array.isArray(view?.styles) ? view.styles : []).map((s) => styleAnsi(s, theme));
  /** @type {Collected} */
  const out = { lines: [], more: 0 };
  /** @param {unknown} blocks @param {number} depth */
  const walk = (blocks, depth) => {
    for (const b of /** @type {any[]} */ (Array.isArray(blocks) ? blocks : [])) {
      if (!b || typeof b !== "object") continue;
      if (Array.isArray(b.text)) collect(out, b.text, (l) => lineAnsi(l, styles));
      else if (b.box && depth >= MAX_DEPTH) collect(out, [DEPTH_NOTE], dim);
      else if (b.box) walk(b.blocks, depth + 1);
      else if (b.line) collect(out, [b.line], (l) => `${lineAnsi(l.left, styles)} ${lineAnsi(l.right, styles)}`);
      else if (Array.isArray(b.center)) collect(out, [b.center], (l) => lineAnsi(l, styles));
      else if (b.rule) collect(out, [b.rule], (r) => ruleText(lineAnsi(r.fill, styles), r.title && lineAnsi(r.title, styles)));
      else if (typeof b.markdown === "string") collect(out, markdownPlain(b.markdown, b.more), String);
      else if (b.control) collect(out, controlPlain(b.control), String);
    }
  };
  walk(view?.blocks, 0);
  return capLines(out.lines, out.more, "view", dim).join("\n");
}

/**
 * Whether `blocks` hold a Markdown block.
 * @param {unknown} blocks
 * @param {number} depth
 * @returns {boolean}
 */
function hasMarkdown(blocks, depth) {
  if (!Array.isArray(blocks) || depth > MAX_DEPTH) return false;
  return blocks.some(
    (b) => b && typeof b === "object" && (typeof b.markdown === "string" || b.control?.kind === "markdown" || hasMarkdown(b.blocks, depth + 1)),
  );
}

/**
 * A pi-tui component showing a view: what pi gets for a Rust tool row,
 * message, footer, header, widget or component. `render` answers from a
 * cache per width; `invalidate` (pi calls it on a theme switch) drops it, as
 * pi's Markdown theme does when it arrives.
 */
export class ViewComponent {
  /**
   * @param {() => ThemeLike | undefined} getTheme
   * @param {WireView | undefined} [view]
   * @param {{ builtin?: BuiltinRenderer, repaint?: () => void, control?: (control: object, width: number, focused: boolean) => string[] }} [options]
   *   `repaint`: have pi draw it again; `control`: draws a frame's control blocks
   */
  constructor(getTheme, view, options = {}) {
    this.getTheme = getTheme;
    /** @type {WireView | undefined} */
    this.view = view;
    this.builtin = options.builtin;
    this.control = options.control;
    this.repaint = options.repaint;
    this.focused = false;
    /** @type {string[] | undefined} */
    this.cache = undefined;
    this.cacheWidth = -1;
    /** The Markdown theme the cache was drawn with (pi's arrives after pi starts). */
    this.cacheMarkdown = -1;
    /** Renders that built lines (not from the cache). */
    this.builds = 0;
  }

  /** @param {WireView | undefined} view */
  setView(view) {
    this.view = view;
    this.cache = undefined;
  }

  /** @param {boolean} focused */
  setFocused(focused) {
    if (this.focused === focused) return;
    this.focused = focused;
    this.cache = undefined;
  }

  /** @param {number} width */
  render(width) {
    if (this.cache && this.cacheWidth === width && this.cacheMarkdown === markdownGeneration()) return this.cache;
    this.builds++;
    /** @type {string[]} */
    let lines;
    try {
      const draw = this.control;
      const control = draw && ((/** @type {object} */ w, /** @type {number} */ n) => draw(w, n, this.focused));
      lines = renderView(this.view, width, this.getTheme(), { focused: this.focused, builtin: this.builtin, control });
    } catch {
      lines = []; // never a throw while pi paints
    }
    this.cache = lines;
    this.cacheWidth = width;
    this.cacheMarkdown = markdownGeneration();
    const repaint = this.repaint;
    if (repaint && !hasPiMarkdownTheme() && hasMarkdown(this.view?.blocks, 0)) repaintWithPiTheme(repaint);
    return lines;
  }

  invalidate() {
    this.cache = undefined;
  }
}
