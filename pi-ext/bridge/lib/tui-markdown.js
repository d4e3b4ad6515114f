// @ts-check
// Markdown blocks of views (PROTOCOL.md, "Views and frames"): drawn by pi-tui's
// own `Markdown` with pi's `getMarkdownTheme()`, after the text is bounded so
// that no extension's Markdown can stall pi's thread. pi-tui's Markdown
// (marked) is quadratic on unmatched inline delimiters (16 KiB of `*a ` took
// 14 s) and explodes on deep nesting (a list of quotes 256 deep drew 26,797
// lines in 40 s; 3,000 deep ran Node out of stack). The bounds are counts, so
// the same text is always drawn the same way.

import { Markdown } from "@mariozechner/pi-tui";

import { sanitize } from "./sanitize.js";

/** @typedef {import("./tui-render.js").ThemeLike} ThemeLike */
/** @typedef {import("@mariozechner/pi-tui").MarkdownTheme} MarkdownTheme */

/**
 * Most UTF-8 bytes of a Markdown block drawn (the runtime's `MAX_MARKDOWN`):
 * past it the text is cut and a line says how many bytes were not shown.
 */
export const MAX_MARKDOWN = 4 * 1024;

/**
 * Most lines of a Markdown block drawn (the runtime's `MAX_MARKDOWN_LINES`):
 * the lines after them are cut as the bytes past MAX_MARKDOWN are (pi-tui's
 * cost grows with lines: 1,000 list items took 30 ms).
 */
export const MAX_MARKDOWN_LINES = 512;

/**
 * Deepest nesting of lists and quotes drawn: a line that opens deeper
 * containers (counted as its `>` and list markers, and two columns of
 * indentation each) keeps the first ones and its text; the others are dropped.
 */
export const MAX_MARKDOWN_NESTING = 8;

/**
 * Most inline delimiters (`*` `_` `~` `` ` `` `$` `]`) one block may have
 * and be read as Markdown: a block with more has them all escaped, and they
 * show as they are. A block here is what marked reads inline text of at
 * once, or more: lines up to a blank one, a list item or a heading.
 */
export const MAX_MARKDOWN_DELIMITERS = 64;

/** Characters marked scans ahead from for a closer: each unmatched one costs the paragraph's length. */
const DELIMITERS = new Set(["*", "_", "~", "`", "$", "]"]);

/**
 * A line that starts a block of its own even right after a paragraph's line
 * (in a quote too): a bullet, `1.`, or a heading, indented at most 3 columns
 * (marked's paragraph interruptions; a line indented more may continue the
 * paragraph, so it counts against the same budget).
 */
const BLOCK_START = /^(?: {0,3}>)* {0,3}([-+*]|1[.)]|#{1,6})(?:[ \t]|$)/;

/** A line's container markers: `>` or a list marker, with the spaces after it. */
const MARKER = /(?:>|(?:[-+*]|\d{1,9}[.)])(?= |$)) */y;

/**
 * The line saying how many bytes of a Markdown block were not shown.
 * @param {number} more
 */
export function markdownNote(more) {
  const n = (/** @type {number} */ x) => x.toLocaleString("en-US");
  return `… ${n(more)} more byte${more === 1 ? "" : "s"} (pi-ext caps a Markdown view at ${n(MAX_MARKDOWN)})`;
}

/**
 * `text` cut to at most `max` UTF-8 bytes at a character boundary, and how
 * many bytes were left out. Reads at most `max` characters of a long text.
 * @param {string} text
 * @param {number} max
 * @returns {[string, number]}
 */
export function cutBytes(text, max) {
  if (text.length * 3 <= max) return [text, 0];
  let bytes = 0;
  let i = 0;
  while (i < text.length) {
    const c = /** @type {number} */ (text.codePointAt(i));
    const n = c < 0x80 ? 1 : c < 0x800 ? 2 : c < 0x10000 ? 3 : 4;
    if (bytes + n > max) break;
    bytes += n;
    i += c >= 0x10000 ? 2 : 1;
  }
  if (i === text.length) return [text, 0];
  return [text.slice(0, i), Buffer.byteLength(text) - bytes];
}

/**
 * `line` with its containers held to MAX_MARKDOWN_NESTING. Only a line with
 * a marker can open a container; one without is left as it is (code keeps
 * its indentation).
 * @param {string} line
 */
function flattenNesting(line) {
  let at = 0;
  while (line[at] === " ") at++;
  const indent = at;
  /** @type {string[]} */
  const markers = [];
  MARKER.lastIndex = at;
  for (let m = MARKER.exec(line); m && m[0] !== ""; m = MARKER.exec(line)) {
    markers.push(m[0]);
    at = MARKER.lastIndex;
    if (at >= line.length) break;
  }
  if (markers.length === 0) return line;
  const spaces = indent + markers.reduce((n, m) => n + m.length - m.trimEnd().length, 0);
  if (markers.length + Math.floor(spaces / 2) <= MAX_MARKDOWN_NESTING) return line;
  // The indentation first (two columns a level), then as many markers as are left.
  const kept = Math.min(indent, 2 * (MAX_MARKDOWN_NESTING - 1));
  const room = Math.max(1, MAX_MARKDOWN_NESTING - Math.floor(kept / 2));
  const shown = markers.slice(0, room).map((m) => m.trimEnd() + " ");
  return " ".repeat(kept) + shown.join("") + line.slice(at);
}

/**
 * The inline delimiters of `line` that are not escaped already.
 * @param {string} line
 */
function countDelimiters(line) {
  let n = 0;
  for (let i = 0; i < line.length; i++) {
    if (line[i] === "\\") i++;
    else if (DELIMITERS.has(line[i])) n++;
  }
  return n;
}

/**
 * `line` with every inline delimiter escaped (each unmatched one that marked
 * reads costs a scan of its block, and so does each escaped one while one is left).
 * @param {string} line
 */
function escapeDelimiters(line) {
  let out = "";
  for (let i = 0; i < line.length; i++) {
    const c = line[i];
    if (c === "\\") {
      out += line.slice(i, i + 2);
      i++;
    } else out += DELIMITERS.has(c) ? `\\${c}` : c;
  }
  return out;
}

/**
 * Lines that may hide a fence line from marked where a line-by-line reading
 * sees one (an HTML block, a `$$`/`\[` math block, a link definition, whose
 * label and title may run over lines): with any of them, no fence is skipped.
 */
const HIDES_FENCES = /^ {0,3}(?:<|\$\$|\\\[|\[)/m;

/** A fence opening at the left edge: its marker (a backtick fence's info has no backtick). */
const FENCE = /^(`{3,})[^`]*$|^(~{3,})/;

/**
 * `lines` with the delimiters of each block that has more than
 * MAX_MARKDOWN_DELIMITERS escaped. Fenced code at the left edge is left as it
 * is (marked reads no inline text there, and a backslash would show); a text
 * where a fence may be hidden from this reading is all counted.
 * @param {string[]} lines
 */
function boundDelimiters(lines) {
  /** @type {string[]} */
  const out = [];
  /** @type {string[]} */
  let block = [];
  let count = 0;
  const end = () => {
    out.push(...(count > MAX_MARKDOWN_DELIMITERS ? block.map(escapeDelimiters) : block));
    block = [];
    count = 0;
  };
  const fences = !lines.some((l) => HIDES_FENCES.test(l));
  /** @type {string | undefined} the open fence's marker */
  let fence;
  let heading = false;
  for (const line of lines) {
    if (fence !== undefined) {
      // marked closes it with the same marker or a longer one, then only spaces.
      const close = line.replace(/^ {0,3}/, "");
      if (close.startsWith(fence) && /^[`~]*[ \t]*$/.test(close.slice(fence.length))) fence = undefined;
      out.push(line);
      continue;
    }
    const open = fences ? FENCE.exec(line) : null;
    if (open) {
      end();
      fence = open[1] ?? open[2];
      out.push(line);
      continue;
    }
    const start = BLOCK_START.exec(line);
    // A heading's inline text is its own line: the next line starts afresh.
    if (line.trim() === "" || start || heading) end();
    heading = start?.[1].startsWith("#") ?? false;
    block.push(line);
    count += countDelimiters(line);
  }
  end();
  return out;
}

/**
 * An extension's Markdown as pi-tui's Markdown may read it: cut to
 * MAX_MARKDOWN bytes and MAX_MARKDOWN_LINES lines, control characters dropped (tabs as 3 spaces), nesting
 * held to MAX_MARKDOWN_NESTING and each block's delimiters to
 * MAX_MARKDOWN_DELIMITERS; `more`: the bytes not shown (with those the runtime cut).
 * @param {unknown} source
 * @param {unknown} [cut] bytes the runtime already left out
 * @returns {{ text: string, more: number }}
 */
export function boundMarkdown(source, cut) {
  const [head, left] = cutBytes(typeof source === "string" ? source : "", MAX_MARKDOWN);
  const before = typeof cut === "number" && Number.isSafeInteger(cut) && cut > 0 ? cut : 0;
  let lines = head.split("\n");
  let dropped = 0;
  if (lines.length > MAX_MARKDOWN_LINES) {
    dropped = Buffer.byteLength(lines.slice(MAX_MARKDOWN_LINES).join("\n")) + 1;
    lines = lines.slice(0, MAX_MARKDOWN_LINES);
  }
  const shown = boundDelimiters(sanitize(lines.join("\n"), "lines").split("\n").map(flattenNesting));
  return { text: shown.join("\n"), more: before + left + dropped };
}

/** pi's `getMarkdownTheme`, once the bridge has pi's module (see `useMarkdownTheme`). */
let piMarkdownTheme = /** @type {(() => MarkdownTheme) | undefined} */ (undefined);

/** Changes when pi's Markdown theme arrives: views drawn before are drawn again. */
let mdGeneration = 0;

/**
 * Draw Markdown with pi's own theme from now on (until the bridge has pi's
 * module, Markdown is drawn with the same colour tokens, without code
 * highlighting).
 * @param {unknown} getMarkdownTheme pi's `getMarkdownTheme`
 */
export function useMarkdownTheme(getMarkdownTheme) {
  if (typeof getMarkdownTheme !== "function") return;
  piMarkdownTheme = /** @type {() => MarkdownTheme} */ (getMarkdownTheme);
  mdGeneration++;
}

/** How to get pi's module, and whether that was started and has ended (see `loadMarkdownThemeWith`). */
let mdLoader = /** @type {{ load: () => Promise<any>, started: boolean, done: boolean } | undefined} */ (undefined);

/** What to repaint when pi's theme arrives: what was drawn without it. */
const mdWaiting = new Set();

/**
 * Load pi's module (for its `getMarkdownTheme`) the first time a Markdown
 * block is drawn without it: an extension that never draws Markdown never
 * loads it.
 * @param {() => Promise<any>} load pi's module
 */
export function loadMarkdownThemeWith(load) {
  if (!piMarkdownTheme && !mdLoader?.started) mdLoader = { load, started: false, done: false };
}

/**
 * Call `repaint` once pi's Markdown theme arrives, if it is still to come
 * (for what was just drawn with the tokens' theme). Nothing waits once
 * loading has ended without it (a pi without `getMarkdownTheme`).
 * @param {() => void} repaint
 */
export function repaintWithPiTheme(repaint) {
  const l = mdLoader;
  if (piMarkdownTheme || !l || l.done) return;
  mdWaiting.add(repaint);
  if (l.started) return;
  l.started = true;
  l.load()
    .then(
      (pi) => useMarkdownTheme(pi?.getMarkdownTheme),
      () => {
        // Without pi's module: the tokens' theme stays.
      },
    )
    .finally(() => {
      l.done = true;
      const all = piMarkdownTheme ? [...mdWaiting] : [];
      mdWaiting.clear();
      for (const f of all) {
        try {
          f();
        } catch {
          // A component pi dropped.
        }
      }
    });
}

/** Which Markdown theme views are drawn with (a number that changes with it). */
export const markdownGeneration = () => mdGeneration;

/**
 * pi's Markdown theme, or one made of the same tokens of `theme` (without pi's module).
 * @param {ThemeLike | undefined} theme
 * @returns {MarkdownTheme}
 */
export function markdownTheme(theme) {
  if (piMarkdownTheme) {
    try {
      return piMarkdownTheme();
    } catch {
      // pi's theme is not initialised: the tokens below.
    }
  }
  const fg = (/** @type {string} */ token) => (/** @type {string} */ text) => {
    let open = "";
    try {
      open = theme?.getFgAnsi(token) ?? "";
    } catch {
      open = "";
    }
    return open ? `${open}${text}\x1b[39m` : text;
  };
  const sgr = (/** @type {number} */ on, /** @type {number} */ off) => (/** @type {string} */ text) => `\x1b[${on}m${text}\x1b[${off}m`;
  return {
    heading: fg("mdHeading"),
    link: fg("mdLink"),
    linkUrl: fg("mdLinkUrl"),
    code: fg("mdCode"),
    codeBlock: fg("mdCodeBlock"),
    codeBlockBorder: fg("mdCodeBlockBorder"),
    quote: fg("mdQuote"),
    quoteBorder: fg("mdQuoteBorder"),
    hr: fg("mdHr"),
    listBullet: fg("mdListBullet"),
    bold: sgr(1, 22),
    italic: sgr(3, 23),
    underline: sgr(4, 24),
    strikethrough: sgr(9, 29),
  };
}

/** Whether Markdown is drawn with pi's own theme yet. */
export const hasPiMarkdownTheme = () => piMarkdownTheme !== undefined;

/**
 * A Markdown block's lines at `width`, as pi-tui's `new Markdown(text, 0, 0,
 * getMarkdownTheme())` draws them, then the note if it was cut.
 * @param {unknown} source the block's `markdown`
 * @param {unknown} cut the block's `more`
 * @param {number} width
 * @param {ThemeLike | undefined} theme
 * @param {(text: string) => string} note how the note shows
 * @returns {string[]}
 */
export function markdownLines(source, cut, width, theme, note) {
  const { text, more } = boundMarkdown(source, cut);
  const lines = text.trim() === "" ? [] : [...new Markdown(text, 0, 0, markdownTheme(theme)).render(width)];
  if (more > 0) lines.push(note(markdownNote(more)));
  return lines;
}

/**
 * pi-tui's `new Markdown(text, 0, 0, getMarkdownTheme())` over the bounded
 * text, to draw at each width (a frame's Markdown panel keeps it: pi-tui's
 * Markdown keeps its lines per width), and the bytes not shown; no
 * component for a blank text.
 * @param {unknown} source
 * @param {unknown} cut
 * @param {ThemeLike | undefined} theme
 * @param {number} [paddingX] columns left and right (pi-tui's option)
 * @param {number} [paddingY] empty rows above and below
 * @returns {{ md: Markdown | undefined, more: number }}
 */
export function markdownComponent(source, cut, theme, paddingX = 0, paddingY = 0) {
  const { text, more } = boundMarkdown(source, cut);
  return { md: text.trim() === "" ? undefined : new Markdown(text, paddingX, paddingY, markdownTheme(theme)), more };
}

/**
 * A Markdown block's plain lines (RPC mode, logs): its bounded source's lines.
 * @param {unknown} source
 * @param {unknown} cut
 */
export function markdownPlain(source, cut) {
  const { text, more } = boundMarkdown(source, cut);
  const lines = text === "" ? [] : text.split("\n");
  if (more > 0) lines.push(markdownNote(more));
  return lines;
}
