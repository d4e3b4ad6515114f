// @ts-check
// pi ≥ 0.80's renderer registrations for the extension (PROTOCOL.md,
// "Terminal UI"): custom entries (`registerEntryRenderer`), other tools'
// rows (`registerToolRenderer`) and Markdown (`registerMarkdownTransformer`).
// As everywhere in the terminal UI, pi calls these synchronously while it
// paints: each answers at once from what the extension sent, asks the
// extension otherwise, and repaints when the answer comes.

import * as piTui from "@mariozechner/pi-tui";
import { API_SINCE, olderThan } from "./features.js";
import { messageOf } from "./protocol.js";
import { sanitize } from "./sanitize.js";
import { ViewComponent } from "./tui-render.js";

/** @typedef {import("./tui.js").TuiHost} TuiHost */
/** @typedef {import("./tui-render.js").WireView} WireView */

/** pi's default Markdown surfaces; others need pi ≥ 1.5.1. */
const DEFAULT_SURFACES = ["user", "assistant", "assistant-thinking"];

/** Answers of the Markdown transformer kept (by text, surface and width). */
const MARKDOWN_ANSWERS = 512;

/** Entries' views kept by entry id, for entries pi draws again. */
const ENTRY_VIEWS = 256;

/** Keybindings named when pi's list of them cannot be read. */
const FALLBACK_KEYBINDINGS = ["app.tools.expand", "app.interrupt", "app.clear", "app.exit", "tui.select.confirm", "tui.select.cancel"];

/**
 * The notice for a registration the host pi lacks.
 * @param {string} label the extension's name
 * @param {string} api pi's method
 * @param {string} piVersion
 */
function lacking(label, api, piVersion) {
  const since = API_SINCE.get(api) ?? "?";
  return `${label}: \`pi.${api}\` needs pi ≥ ${since}; this pi is ${piVersion || "older"}: pi draws these its own way`;
}

export class Registrations {
  /**
   * @param {TuiHost} host
   * @param {string} label the extension's name, for notices
   * @param {() => string} piVersion
   */
  constructor(host, label, piVersion) {
    this.host = host;
    this.label = label;
    this.piVersion = piVersion;
    /** @type {Set<string>} entry types and tools registered with pi (pi keeps them for the process) */
    this.registered = new Set();
    /** @type {WeakMap<object, { component: ViewComponent, views?: { collapsed: WireView, expanded: WireView } | null, expanded: boolean }>} */
    this.entries = new WeakMap();
    /** @type {Map<string, { collapsed: WireView, expanded: WireView } | null>} by entry id */
    this.entryViews = new Map();
    /** @type {Set<string>} tools whose rows the extension draws (another process's manifest may change them) */
    this.tools = new Set();
    this.toolResolver = false;
    /** @type {Map<string, string>} transformed Markdown by key */
    this.markdown = new Map();
    /** @type {Set<string>} keys asked and not answered */
    this.asking = new Set();
    this.markdownRegistered = false;
    this.repaintQueued = false;
  }

  /**
   * Register what the manifest names that pi does not have yet. Returns
   * the notices for what this pi lacks (shown once by the caller).
   * @param {import("./manifest.js").Manifest | undefined} m
   * @returns {string[]}
   */
  register(m) {
    const host = this.host;
    if (host.b.mode !== "interactive" || !m) return [];
    const pi = /** @type {any} */ (host.b.pi);
    /** @type {string[]} */
    const notices = [];
    const need = (/** @type {string} */ api) => {
      if (typeof pi[api] === "function") return true;
      if (!this.registered.has(`lacks:${api}`)) {
        this.registered.add(`lacks:${api}`);
        notices.push(lacking(this.label, api, this.piVersion()));
      }
      return false;
    };
    const types = (m.entryRenderers ?? []).filter((t) => typeof t === "string" && !this.registered.has(`entry:${t}`));
    if (types.length && need("registerEntryRenderer")) {
      for (const type of types) {
        this.registered.add(`entry:${type}`);
        pi.registerEntryRenderer(type, (/** @type {any} */ entry, /** @type {any} */ options, /** @type {any} */ theme) =>
          this.entry(type, entry, options, theme),
        );
      }
    }
    const tools = (m.toolRenderers ?? []).filter((t) => typeof t === "string");
    for (const t of tools) this.tools.add(t);
    if (tools.length && !this.toolResolver && need("registerToolRenderer")) {
      this.toolResolver = true;
      pi.registerToolRenderer((/** @type {string} */ name, /** @type {() => any} */ next) => this.resolveTool(name, next));
    }
    const surfaces = m.markdownTransformer;
    if (Array.isArray(surfaces) && !this.markdownRegistered && need("registerMarkdownTransformer")) {
      this.markdownRegistered = true;
      const types = surfaces.filter((s) => typeof s === "string");
      if (types.some((s) => !DEFAULT_SURFACES.includes(s)) && olderThan(this.piVersion(), "1.5.1")) {
        notices.push(
          `${this.label}: the Markdown transformer's surfaces ${types.join(", ")} need pi ≥ 1.5.1; this pi is ${this.piVersion()}: it runs on ${DEFAULT_SURFACES.join(", ")}`,
        );
      }
      pi.registerMarkdownTransformer((/** @type {string} */ md, /** @type {any} */ context) => this.transform(md, context), {
        messageTypes: types,
      });
    }
    return notices;
  }

  // --- custom entries ------------------------------------------------------------------

  /**
   * pi's entry renderer: always a component (pi leaves out an entry whose
   * renderer returns nothing, and asks once), empty until the extension's
   * views arrive.
   * @param {string} type
   * @param {any} entry
   * @param {any} options pi's EntryRenderOptions (`expanded`, `keyText`)
   * @param {any} theme
   */
  entry(type, entry, options, theme) {
    this.host.capture(undefined, theme);
    if (!entry || typeof entry !== "object") return undefined;
    const expanded = options?.expanded === true;
    let e = this.entries.get(entry);
    if (!e) {
      const id = typeof entry.id === "string" ? entry.id : undefined;
      e = {
        component: new ViewComponent(() => this.host.currentTheme(), { blocks: [] }, { repaint: () => this.host.requestRender() }),
        views: id !== undefined ? this.entryViews.get(id) : undefined,
        expanded,
      };
      this.entries.set(entry, e);
      if (e.views === undefined) this.askEntry(type, entry, options, e);
    }
    e.expanded = expanded;
    if (e.views) e.component.setView(expanded ? e.views.expanded : e.views.collapsed);
    return e.component;
  }

  /**
   * @param {string} type
   * @param {any} entry
   * @param {any} options
   * @param {{ component: ViewComponent, views?: { collapsed: WireView, expanded: WireView } | null, expanded: boolean }} e
   */
  askEntry(type, entry, options, e) {
    const keys = keyTexts(options);
    (async () => {
      const acquired = this.host.b.acquire();
      const child = acquired instanceof Promise ? await acquired : acquired;
      return child.request("render/entry", { customType: type, entry, keys }, { what: "the custom entry" }).promise;
    })().then(
      (answer) => this.entryAnswered(entry, e, /** @type {any} */ (answer)),
      (err) => {
        this.host.b.log.line("warn", `render/entry: ${messageOf(err)}`);
        this.entryAnswered(entry, e, null);
      },
    );
  }

  /**
   * @param {any} entry
   * @param {{ component: ViewComponent, views?: { collapsed: WireView, expanded: WireView } | null, expanded: boolean }} e
   * @param {any} answer
   */
  entryAnswered(entry, e, answer) {
    const views = answer && typeof answer === "object" && answer.collapsed && answer.expanded ? answer : null;
    e.views = views;
    if (typeof entry.id === "string") {
      if (this.entryViews.size >= ENTRY_VIEWS) this.entryViews.delete(/** @type {string} */ (this.entryViews.keys().next().value));
      this.entryViews.set(entry.id, views);
    }
    if (!views) return;
    e.component.setView(e.expanded ? views.expanded : views.collapsed);
    this.host.requestRender();
  }

  // --- other tools' rows ---------------------------------------------------------------

  /**
   * pi's `ToolRendererResolver`: the extension's rows for its tools, over
   * the renderers the tool has otherwise (which `builtin` views show).
   * @param {string} name
   * @param {() => any} next
   */
  resolveTool(name, next) {
    if (!this.tools.has(name)) return next();
    let base;
    try {
      base = next();
    } catch {
      base = undefined;
    }
    const own = this.host.toolRenderers({ name, render: { call: true, result: true } }, base);
    return { ...(base ?? {}), ...own };
  }

  // --- Markdown ------------------------------------------------------------------------

  /**
   * pi's Markdown transformer: the extension's text when known, otherwise
   * the text as it is while the extension is asked.
   * @param {string} markdown
   * @param {any} context pi's MarkdownTransformContext
   */
  transform(markdown, context) {
    if (typeof markdown !== "string") return markdown;
    const ctx = {
      messageType: String(context?.messageType ?? "assistant"),
      isStreaming: context?.isStreaming === true,
      availableWidth: Number(context?.availableWidth) || 0,
      ...(typeof context?.messageId === "string" ? { messageId: context.messageId } : {}),
      ...(typeof context?.timestamp === "string" ? { timestamp: context.timestamp } : {}),
    };
    const key = JSON.stringify([markdown, ctx.messageType, ctx.isStreaming, ctx.availableWidth, ctx.messageId ?? null]);
    const known = this.markdown.get(key);
    if (known !== undefined) return known;
    if (!this.asking.has(key)) this.askMarkdown(key, markdown, ctx);
    return markdown;
  }

  /**
   * @param {string} key
   * @param {string} markdown
   * @param {object} context
   */
  askMarkdown(key, markdown, context) {
    this.asking.add(key);
    (async () => {
      const acquired = this.host.b.acquire();
      const child = acquired instanceof Promise ? await acquired : acquired;
      return child.request("render/markdown", { markdown, context }, { what: "the Markdown transformer" }).promise;
    })().then(
      (answer) => {
        this.asking.delete(key);
        // pi renders Markdown itself and writes what it is given: the text is made safe first.
        this.remember(key, typeof answer === "string" ? sanitize(answer, "text") : markdown);
        if (typeof answer === "string") this.repaint();
      },
      (err) => {
        this.asking.delete(key);
        this.host.b.log.line("warn", `render/markdown: ${messageOf(err)}`);
        this.remember(key, markdown);
      },
    );
  }

  /**
   * @param {string} key
   * @param {string} text
   */
  remember(key, text) {
    if (this.markdown.size >= MARKDOWN_ANSWERS) this.markdown.delete(/** @type {string} */ (this.markdown.keys().next().value));
    this.markdown.set(key, text);
  }

  /** pi caches rendered Markdown: its components are invalidated so they ask again, once per tick. */
  repaint() {
    if (this.repaintQueued) return;
    this.repaintQueued = true;
    setImmediate(() => {
      this.repaintQueued = false;
      try {
        this.host.tui?.invalidate?.();
      } catch {
        // pi's terminal stopped.
      }
      this.host.requestRender();
    });
  }
}

/**
 * The user's keys for pi's keybindings (id → `keyText`), for the
 * extension's key hints.
 * @param {any} options pi's EntryRenderOptions
 * @returns {Record<string, string>}
 */
export function keyTexts(options) {
  /** @type {Record<string, string>} */
  const out = {};
  if (typeof options?.keyText !== "function") return out;
  // pi's keybinding ids, and the common ones of pi's app (in case the list
  // read is pi-tui's own, without them).
  const ids = new Set(FALLBACK_KEYBINDINGS);
  try {
    const resolved = /** @type {any} */ (piTui).getKeybindings?.()?.getResolvedBindings?.();
    if (resolved && typeof resolved === "object") for (const id of Object.keys(resolved)) ids.add(id);
  } catch {
    // The common ones.
  }
  for (const id of ids) {
    try {
      const text = options.keyText(id);
      if (typeof text === "string") out[id] = sanitize(text);
    } catch {
      // Not one of this pi's.
    }
  }
  return out;
}
