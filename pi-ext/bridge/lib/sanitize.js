// @ts-check
// Text from the extension made safe for pi's terminal. Every path that shows
// extension text goes through `sanitize`, with or without the terminal UI.
// Also the bounds of what the extension sends for a control: its texts'
// lengths and its numbers' ranges.

/** Control characters: C0, DEL and C1 (ESC and the one-byte CSI 0x9b among them). */
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;
const CONTROLS = new RegExp(CONTROL.source, "g");

/**
 * Which whitespace a path keeps (`sanitize`):
 * - "line": one line (spans, titles, labels, options, the working message):
 *   newlines dropped, tabs as 3 spaces (pi-tui's width of a tab);
 * - "lines": text of several lines (notifications, dialog titles and
 *   messages, widget lines): `\n` kept (`\r\n` and `\r` as `\n`), tabs as 3 spaces;
 * - "text": text pi lays out itself (the editor's text, statuses: pi turns
 *   their newlines and tabs into what it shows): `\n` and tabs kept.
 * @typedef {"line" | "lines" | "text"} Keep
 */

/**
 * Text from the extension made safe for pi's terminal, on every path that
 * shows it: every other control character (C0, DEL, C1: ESC included) is
 * dropped, so no escape sequence can be written through it.
 * @param {unknown} text
 * @param {Keep} [keep]
 */
export function sanitize(text, keep = "line") {
  const s = typeof text === "string" ? text : String(text ?? "");
  if (!CONTROL.test(s)) return s;
  const t = keep === "line" ? s : s.replace(/\r\n?/g, "\n");
  return t.replace(CONTROLS, (c) => {
    if (c === "\t") return keep === "text" ? c : "   ";
    return c === "\n" && keep !== "line" ? c : "";
  });
}

/**
 * `text` as a control shows it: a string (anything else is ""), sanitized,
 * at most `max` characters.
 * @param {unknown} text
 * @param {number} max
 * @param {Keep} [keep]
 */
export function boundedText(text, max, keep = "line") {
  const s = sanitize(typeof text === "string" ? text : "", keep);
  return s.length > max ? s.slice(0, max) : s;
}

/**
 * `value` as a whole number from `min` to `max`, or `fallback` when it is no number.
 * @template F
 * @param {unknown} value
 * @param {number} min
 * @param {number} max
 * @param {F} fallback
 * @returns {number | F}
 */
export function boundedInt(value, min, max, fallback) {
  const n = Math.floor(Number(value));
  return Number.isFinite(n) ? Math.max(min, Math.min(n, max)) : fallback;
}
