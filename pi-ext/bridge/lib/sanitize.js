// @ts-check
// Text from the extension made safe for pi's terminal. Every path that shows
// extension text goes through `sanitize`, with or without the terminal UI.

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
