// @ts-check
// `ui/call`: the JSON methods of `ctx.ui` (notify, setStatus, setWidget, …)
// with the extension's text sanitized as each method shows it, and the
// statuses and text widgets it set remembered, so that they are cleared
// when its process goes. With or without the terminal UI (tui.js adds
// styled text).

import { sanitize } from "./sanitize.js";

/** @typedef {import("@mariozechner/pi-coding-agent").ExtensionContext} ExtensionContext */

/**
 * What each `ui/call`'s arguments are, by position: text and which
 * whitespace it keeps (`sanitize`), `"lines[]"` (a widget's lines) or
 * `"frames"` (the working indicator's options); null: not text pi shows (a
 * status's or widget's key, a flag). Methods not listed take no text.
 * @type {Record<string, Array<import("./sanitize.js").Keep | "lines[]" | "frames" | null>>}
 */
const UI_TEXT = {
  notify: ["lines"],
  setStatus: [null, "text"],
  setWidget: [null, "lines[]"],
  setTitle: ["line"],
  setEditorText: ["text"],
  pasteToEditor: ["text"],
  setWorkingMessage: ["line"],
  setWorkingIndicator: ["frames"],
  setHiddenThinkingLabel: ["line"],
};

export class UiCalls {
  constructor() {
    /**
     * Statuses and text widgets the extension set, by `setStatus:<key>` or
     * `setWidget:<key>`, with the process (`child`) that set them.
     * @type {Map<string, { child: unknown, ctx: ExtensionContext, method: string, key: string }>}
     */
    this.keyed = new Map();
  }

  /**
   * `ctx.ui.<method>(...args)` in `ctx`, its text sanitized (`UI_TEXT`);
   * styled text (`{styled: view}`) becomes what `styled` makes of the view
   * (the terminal UI's), else its plain string. Returns pi's answer.
   * @param {unknown} child the process that called
   * @param {ExtensionContext} ctx
   * @param {string} method one of `UI_CALLS` (api.js)
   * @param {unknown[]} args
   * @param {(view: unknown) => string} [styled]
   */
  call(child, ctx, method, args, styled) {
    /** @param {unknown} a @param {import("./sanitize.js").Keep} keep */
    const text = (a, keep) => {
      if (a === undefined) return undefined;
      const v = /** @type {any} */ (a);
      if (styled && v && typeof v === "object" && !Array.isArray(v) && v.styled) return styled(v.styled);
      return sanitize(a, keep);
    };
    const kinds = UI_TEXT[method] ?? [];
    const clean = args.map((a, i) => {
      const kind = kinds[i];
      if (kind === undefined || kind === null || a === undefined) return a;
      if (kind === "lines[]") return Array.isArray(a) ? a.map((l) => text(l, "lines")) : text(a, "lines");
      if (kind === "frames") {
        const o = /** @type {any} */ (a);
        return o && typeof o === "object" && Array.isArray(o.frames) ? { ...o, frames: o.frames.map((/** @type {unknown} */ f) => text(f, "line")) } : a;
      }
      return text(a, kind);
    });
    const ui = /** @type {Record<string, (...args: unknown[]) => unknown>} */ (/** @type {unknown} */ (ctx.ui));
    const result = ui[method](...clean);
    if (method === "setStatus" || method === "setWidget") {
      const key = String(clean[0]);
      if (clean[1] === undefined) this.keyed.delete(`${method}:${key}`);
      else this.keyed.set(`${method}:${key}`, { child, ctx, method, key });
    }
    return result;
  }

  /**
   * Clear the statuses and widgets `child` set (its process is gone).
   * Returns how many were cleared.
   * @param {unknown} child
   */
  restore(child) {
    let restored = 0;
    for (const [id, set] of [...this.keyed]) {
      if (set.child !== child) continue;
      this.keyed.delete(id);
      try {
        const ui = /** @type {Record<string, (...args: unknown[]) => unknown>} */ (/** @type {unknown} */ (set.ctx.ui));
        ui[set.method](set.key, undefined);
        restored++;
      } catch {
        // The session is gone: pi cleared them itself.
      }
    }
    return restored;
  }

  /** The session ended: pi cleared them. */
  clear() {
    this.keyed.clear();
  }
}
