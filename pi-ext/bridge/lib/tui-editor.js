// @ts-check
// A custom editor the extension describes instead of codes: per-mode keymaps
// and border decorations (PROTOCOL.md, "Editor"). The bridge's editor class
// extends pi's CustomEditor, so pi's text, history, submit and app keys stay
// pi's; keys are decided here, synchronously, from the table.

import { decodeKey, keyBytes } from "./tui-keys.js";
import { sanitize } from "./sanitize.js";
import { cut, lineAnsi, styleAnsi, widthOf } from "./tui-render.js";

/**
 * One action: `"pass"` (pi's editor handles the key), `"swallow"`,
 * `"swallowText"` (swallow printable keys, pass control keys),
 * `{send: keyName}`, `{insert: text}`, `{mode: name}`.
 * @typedef {"pass" | "swallow" | "swallowText" | { send: string } | { insert: string } | { mode: string }} EditorAction
 */
/**
 * @typedef {object} EditorMode
 * @property {Record<string, EditorAction[]>} [keys] key id → actions
 * @property {EditorAction} [otherwise] for keys not in `keys` (default "pass")
 * @property {{ bottomRight?: WireLine, topRight?: WireLine, bottomLeft?: WireLine, topLeft?: WireLine }} [decor]
 */
/**
 * @typedef {import("./tui-render.js").WireLine} WireLine
 */
/**
 * @typedef {object} EditorSpec
 * @property {string} [mode] the mode at first
 * @property {Record<string, EditorMode>} [modes]
 * @property {import("./tui-render.js").WireStyle[]} [styles] style table of the decorations
 * @property {number} [paddingX] columns left and right of the text (pi-tui's option)
 * @property {Highlight[]} [highlights] words styled wherever they show in the editor
 */
/**
 * A word coloured character by character wherever it shows in the editor's
 * rendered lines (rainbow-editor.ts), optionally with a shine sweeping over
 * it: a literal, never a pattern, since it runs in pi's render.
 * @typedef {object} Highlight
 * @property {string} word
 * @property {boolean} [ignoreCase]
 * @property {[number, number, number][]} colors one per character, cycling
 * @property {{ everyMs: number, steps: number, pause: number, falloff: number[] }} [shine]
 */

/**
 * Normalized key id (the extension's `Key::is` rules): modifiers in pi's
 * order, lower case but a single character.
 * @param {string} id
 */
export function normalizeKeyId(id) {
  const parts = id.split("+");
  let base = parts.pop() ?? "";
  if (base === "" && id.endsWith("+")) {
    parts.pop();
    base = "+";
  }
  const mods = parts.map((m) => m.toLowerCase());
  let out = "";
  for (const m of ["ctrl", "shift", "alt", "super"]) if (mods.includes(m)) out += `${m}+`;
  if ([...base].length === 1 && mods.length === 0) return out + base;
  const b = base.toLowerCase();
  return out + (b === "esc" ? "escape" : b === "return" ? "enter" : b);
}

/**
 * The actions for input `data` in mode `mode` of `spec`.
 * @param {EditorSpec} spec
 * @param {string} mode
 * @param {string} data
 * @returns {EditorAction[]}
 */
export function editorActions(spec, mode, data) {
  const m = spec.modes?.[mode];
  if (!m) return ["pass"];
  const { key, aliases } = decodeKey(data);
  const keys = m.keys ?? {};
  /** @type {Map<string, EditorAction[]>} */
  const table = new Map();
  for (const [id, acts] of Object.entries(keys)) table.set(normalizeKeyId(id), acts);
  for (const name of [key, ...aliases]) {
    if (name === undefined) continue;
    const acts = table.get(normalizeKeyId(name));
    if (Array.isArray(acts)) return acts;
  }
  return [m.otherwise ?? "pass"];
}

/**
 * Whether `data` types text (a printable key), for `swallowText`.
 * @param {string} data
 */
function isText(data) {
  return data.length === 1 && data.charCodeAt(0) >= 32 && data.charCodeAt(0) !== 0x7f;
}

/**
 * Apply actions: `pass(data)` hands bytes to pi's editor.
 * @param {EditorAction[]} actions
 * @param {string} data
 * @param {{ pass: (data: string) => void, setMode: (mode: string) => void }} target
 */
export function applyActions(actions, data, target) {
  for (const a of actions) {
    if (a === "pass") target.pass(data);
    else if (a === "swallow") continue;
    else if (a === "swallowText") {
      if (!isText(data)) target.pass(data);
    } else if (a && typeof a === "object") {
      if ("mode" in a && typeof a.mode === "string") target.setMode(a.mode);
      else if ("send" in a) {
        const bytes = keyBytes(a.send);
        if (bytes !== undefined) target.pass(bytes);
      } else if ("insert" in a && typeof a.insert === "string") {
        // As a paste: pi's editor inserts it whole.
        // Sanitized: an ESC in it would end the paste and type the rest as keys.
        target.pass(`\x1b[200~${sanitize(a.insert, "text")}\x1b[201~`);
      }
    }
  }
}

/**
 * A border `─left───right─` in `width` columns (border-status-editor.ts's
 * `fitBorder`): the right label is cut first, then the left, until a gap
 * of three is left.
 * @param {string} left
 * @param {string} right
 * @param {number} width
 * @param {(text: string) => string} border
 */
export function fitBorder(left, right, width, border) {
  if (width <= 0) return "";
  if (width === 1) return border("─");
  const room = () => 2 + widthOf(left) + widthOf(right) + 3 > width;
  while (room() && widthOf(right) > 0) right = cut(right, Math.max(0, widthOf(right) - 1));
  while (room() && widthOf(left) > 0) left = cut(left, Math.max(0, widthOf(left) - 1));
  const gap = Math.max(0, width - 2 - widthOf(left) - widthOf(right));
  return `${border("─")}${left}${border("─".repeat(gap))}${right}${border("─")}`;
}

/**
 * Draw a mode's decorations on the editor's rendered lines (the bottom and
 * top border). A border with a left label is drawn anew with `fitBorder`
 * in the border's colour; otherwise a right label replaces the border's
 * end, as modal-editor.ts does.
 * @param {string[]} lines
 * @param {number} width
 * @param {EditorSpec} spec
 * @param {string} mode
 * @param {import("./tui-render.js").ThemeLike | undefined} theme
 * @param {(text: string) => string} [border] the editor's border colour
 */
export function decorate(lines, width, spec, mode, theme, border = (t) => t) {
  const decor = spec.modes?.[mode]?.decor;
  if (!decor || lines.length === 0) return lines;
  const styles = (spec.styles ?? []).map((s) => styleAnsi(s, theme));
  /** @param {number} i @param {unknown} left @param {unknown} right */
  const edge = (i, left, right) => {
    if (left) {
      lines[i] = fitBorder(lineAnsi(left, styles), right ? lineAnsi(right, styles) : "", width, border);
      return;
    }
    if (!right) return;
    const label = lineAnsi(right, styles);
    const w = widthOf(label);
    if (widthOf(lines[i]) >= w && w <= width) lines[i] = cut(lines[i], width - w) + label;
  };
  edge(lines.length - 1, decor.bottomLeft, decor.bottomRight);
  // One line: the top is the bottom, drawn already.
  if (lines.length > 1) edge(0, decor.topLeft, decor.topRight);
  return lines;
}

// Bounds on what an extension's spec can make pi do at every render.
const MAX_HIGHLIGHTS = 16;
const MAX_WORD = 200;
const MAX_COLORS = 64;
const MAX_FALLOFF = 16;
const MIN_SHINE_MS = 16;

/** @param {unknown} n @param {number} lo @param {number} hi @param {number} dflt */
function clampInt(n, lo, hi, dflt) {
  return typeof n === "number" && Number.isFinite(n) ? Math.min(hi, Math.max(lo, Math.floor(n))) : dflt;
}

/**
 * The spec's highlights, checked and bounded, each with its matcher. A word
 * that is empty, or holds a control character (it could never match a
 * rendered character), is dropped; so is one without colours.
 * @param {EditorSpec | undefined} spec
 * @returns {{ re: RegExp, colors: [number, number, number][], shine?: { everyMs: number, steps: number, pause: number, falloff: number[] } }[]}
 */
export function highlightsOf(spec) {
  const list = Array.isArray(spec?.highlights) ? spec.highlights.slice(0, MAX_HIGHLIGHTS) : [];
  /** @type {ReturnType<typeof highlightsOf>} */
  const out = [];
  for (const h of list) {
    if (!h || typeof h.word !== "string" || h.word === "" || h.word.length > MAX_WORD) continue;
    if (/[\x00-\x1f\x7f-\x9f]/.test(h.word)) continue;
    const colors = (Array.isArray(h.colors) ? h.colors.slice(0, MAX_COLORS) : [])
      .filter((c) => Array.isArray(c) && c.length === 3)
      .map((c) => /** @type {[number, number, number]} */ (c.map((v) => clampInt(v, 0, 255, 0))));
    if (colors.length === 0) continue;
    const escaped = h.word.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
    const re = new RegExp(escaped, h.ignoreCase ? "gi" : "g");
    const sh = h.shine;
    const shine =
      sh && typeof sh === "object"
        ? {
            everyMs: clampInt(sh.everyMs, MIN_SHINE_MS, 60_000, 60),
            steps: clampInt(sh.steps, 1, 1000, 10),
            pause: clampInt(sh.pause, 0, 1000, 0),
            falloff: (Array.isArray(sh.falloff) ? sh.falloff.slice(0, MAX_FALLOFF) : []).map((f) =>
              typeof f === "number" && Number.isFinite(f) ? Math.min(1, Math.max(0, f)) : 0,
            ),
          }
        : undefined;
    out.push({ re, colors, shine });
  }
  return out;
}

/**
 * `text` with each character in its colour (brightened near the shine's
 * position `pos`; -1 for none), then a reset: rainbow-editor.ts's
 * `colorize`, byte for byte.
 * @param {string} text
 * @param {[number, number, number][]} colors
 * @param {number} pos
 * @param {number[]} falloff brightening at distance 0, 1, …
 */
export function colorize(text, colors, pos, falloff) {
  return (
    [...text]
      .map((c, i) => {
        const base = colors[i % colors.length];
        const dist = Math.abs(i - pos);
        const factor = pos >= 0 && dist < falloff.length ? falloff[dist] : 0;
        const [r, g, b] = base.map((v) => Math.round(v + (255 - v) * factor));
        return `\x1b[38;2;${r};${g};${b}m${c}`;
      })
      .join("") + "\x1b[0m"
  );
}

/**
 * The editor's lines with every highlight applied at animation frame `frame`.
 * @param {string[]} lines
 * @param {ReturnType<typeof highlightsOf>} highlights
 * @param {number} frame
 */
export function highlight(lines, highlights, frame) {
  if (highlights.length === 0) return lines;
  return lines.map((line) => {
    for (const h of highlights) {
      let pos = -1;
      if (h.shine) {
        const cycle = frame % (h.shine.steps + h.shine.pause);
        pos = cycle < h.shine.steps ? cycle : -1;
      }
      const paint = (/** @type {string} */ m) => colorize(m, h.colors, pos, h.shine?.falloff ?? []);
      // Only the text between escape sequences: a word such as "2" must not
      // match inside pi's own "\x1b[2m" and break it.
      line = line
        .split(ESCAPE_SEQUENCES)
        .map((part, i) => (i % 2 === 1 ? part : part.replace(h.re, paint)))
        .join("");
    }
    return line;
  });
}

/**
 * The escape sequences in a rendered line (CSI; OSC, APC, DCS strings such as
 * OSC 8 links and pi-tui's cursor marker; two-byte escapes), captured, so
 * that `split` puts them at the odd indices.
 */
const ESCAPE_SEQUENCES = /(\x1b\[[\x30-\x3f]*[\x20-\x2f]*[\x40-\x7e]|\x1b[\]_P^][\s\S]*?(?:\x07|\x1b\\)|\x1b[\x40-\x5f])/;

/**
 * pi-tui's editor options for a spec's padding (none: pi-tui's default).
 * @param {EditorSpec} spec
 * @returns {{ paddingX: number } | undefined}
 */
function paddingOf(spec) {
  const p = spec?.paddingX;
  return typeof p === "number" && Number.isFinite(p) && p >= 0 ? { paddingX: Math.floor(Math.min(p, 1000)) } : undefined;
}

/**
 * The editor class pi gets: `CustomEditor` (pi's, loaded at run time) with
 * the table's key handling and decorations.
 * @param {any} CustomEditor pi's class
 */
export function rustEditorClass(CustomEditor) {
  return class RustEditor extends CustomEditor {
    /**
     * @param {any} tui
     * @param {any} theme
     * @param {any} keybindings
     * @param {{ spec: EditorSpec, getTheme: () => import("./tui-render.js").ThemeLike | undefined, onDispose: () => void }} o
     */
    constructor(tui, theme, keybindings, o) {
      super(tui, theme, keybindings, paddingOf(o.spec));
      this.o = o;
      this.spec = o.spec;
      this.mode = typeof o.spec.mode === "string" ? o.spec.mode : Object.keys(o.spec.modes ?? {})[0] ?? "";
      this.highlights = highlightsOf(o.spec);
      this.frame = 0;
      /** @type {ReturnType<typeof setInterval> | undefined} */
      this.shineTimer = undefined;
    }

    /**
     * Animate while a shining highlight's word is in the text, as
     * rainbow-editor.ts does from its `handleInput`.
     */
    animate() {
      const every = this.highlights.find((h) => h.shine && h.re.test(this.getText?.() ?? ""))?.shine?.everyMs;
      for (const h of this.highlights) h.re.lastIndex = 0;
      if (every === undefined) {
        if (this.shineTimer) clearInterval(this.shineTimer);
        this.shineTimer = undefined;
      } else if (!this.shineTimer) {
        this.shineTimer = setInterval(() => {
          this.frame++;
          try {
            this.tui?.requestRender?.();
          } catch {
            // pi's terminal stopped.
          }
        }, every);
      }
    }

    /** @param {EditorSpec} spec */
    setSpec(spec) {
      this.spec = spec;
      const padding = paddingOf(spec);
      if (padding) this.setPaddingX?.(padding.paddingX);
      if (typeof spec.mode === "string") this.mode = spec.mode;
      this.highlights = highlightsOf(spec);
      if (this.shineTimer) clearInterval(this.shineTimer);
      this.shineTimer = undefined;
      this.animate();
      this.tui?.requestRender?.();
    }

    /** @param {string} data */
    handleInput(data) {
      /** @type {EditorAction[]} */
      let actions;
      try {
        actions = editorActions(this.spec, this.mode, data);
      } catch {
        actions = ["pass"];
      }
      applyActions(actions, data, {
        pass: (bytes) => super.handleInput(bytes),
        setMode: (mode) => {
          this.mode = mode;
        },
      });
      if (this.highlights.length > 0) this.animate();
    }

    /** @param {number} width */
    render(width) {
      let lines = super.render(width);
      try {
        lines = highlight(lines, this.highlights, this.frame);
        const border = typeof this.borderColor === "function" ? (/** @type {string} */ t) => this.borderColor(t) : undefined;
        return decorate(lines, width, this.spec, this.mode, this.o.getTheme(), border);
      } catch {
        return lines;
      }
    }

    dispose() {
      if (this.shineTimer) clearInterval(this.shineTimer);
      this.shineTimer = undefined;
      super.dispose?.();
      this.o.onDispose();
    }
  };
}
