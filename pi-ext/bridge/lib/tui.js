// @ts-check
// pi's terminal UI for the extension (PROTOCOL.md, "Terminal UI"): tool rows
// and custom messages rendered by the extension, custom components and
// overlays, footer, header, widgets, editor, autocomplete and the theme.
//
// pi calls renderers and components synchronously while it paints; the
// extension is another process. Everything pi calls here answers at once
// from what the extension sent earlier, and asks pi to repaint when the
// extension sends something new. Nothing here ever throws into pi's paint.

import { codes, messageOf, RpcError } from "./protocol.js";
import { rustEditorClass } from "./tui-editor.js";
import { decodeKey } from "./tui-keys.js";
import { sanitize } from "./sanitize.js";
import { UiCalls } from "./ui-calls.js";
import { loadMarkdownThemeWith } from "./tui-markdown.js";
import { plainLines, styledText, ViewComponent, wrapAnsi } from "./tui-render.js";
import { TerminalQueries, terminalQuery } from "./tui-query.js";
import { inputFilter, TerminalInputs } from "./tui-input.js";
import { ControlSet } from "./tui-controls.js";
import { ComponentOverlays } from "./tui-overlays.js";

/** @typedef {import("./child.js").ChildConnection} ChildConnection */
/** @typedef {import("./tui-render.js").WireView} WireView */
/** @typedef {import("./tui-render.js").ThemeLike} ThemeLike */
/** @typedef {import("@mariozechner/pi-coding-agent").ExtensionContext} ExtensionContext */

/** How long an Escape may go unanswered before the bridge closes the component itself. */
const ESCAPE_GRACE_MS = 1000;

/** How long pi's editor waits for the extension's suggestions before using pi's own. */
const SUGGEST_TIMEOUT_MS = 1500;

/** Views kept per tool-row slot (streamed arguments make many keys). */
const SLOT_VIEWS = 8;

/** Views sent with custom messages, kept until pi renders them (bounded). */
const MESSAGE_VIEWS = 256;

/**
 * What the TUI host needs of the bridge.
 * @typedef {object} TuiBridge
 * @property {import("@mariozechner/pi-coding-agent").ExtensionAPI} pi
 * @property {import("./log.js").Log} log
 * @property {string} name the extension's name
 * @property {import("./manifest.js").Mode} mode
 * @property {import("./clock.js").Clock} clock
 * @property {(child: ChildConnection, p: { call?: unknown, session?: unknown }) => ExtensionContext} ctxFor
 * @property {() => ExtensionContext | undefined} sessionCtx
 * @property {() => ChildConnection | Promise<ChildConnection>} acquire a live process (started if need be)
 * @property {() => Promise<any>} loadPi pi's module (CustomEditor)
 */

/**
 * One open custom component.
 * @typedef {object} OpenComponent
 * @property {ChildConnection} child
 * @property {number} id the extension's id for it
 * @property {number} request the `ui/open` request's id
 * @property {ViewComponent} view
 * @property {ControlSet} controls pi-tui controls its frame holds
 * @property {ComponentOverlays} overlays its own overlay's handle and the child overlays it opened
 * @property {((value?: unknown) => void) | undefined} done pi's `done`
 * @property {any} tui
 * @property {string | undefined} reason why it closed, if the bridge or pi closed it
 * @property {number} seq the last key's sequence number
 * @property {number} acked the last key the extension answered
 * @property {{ seq: number, view: ViewComponent } | undefined} held a control's last word (chosen,
 *   submitted, cancelled) whose repaint waits for the extension's answer to key `seq`
 * @property {boolean} paintedSinceKey pi repainted after the last key (a later frame skips pi's render interval)
 * @property {string} size width × rows last told to the extension
 * @property {unknown} escapeTimer
 * @property {(() => void) | undefined} resume resumes the opening call's deadline
 */

/**
 * Per tool-row slot (call or result): what it shows and what it asked for.
 * @typedef {object} RowSlot
 * @property {ViewComponent} component the same instance every time (pi's `lastComponent`)
 * @property {Map<string, WireView | null>} views by input key (null: the renderer failed)
 * @property {{ key: string, id: number, child: ChildConnection } | undefined} inflight
 * @property {() => void} invalidate pi's `context.invalidate` of the row
 * @property {any} [lastResult] the result pi rendered last (pi's fallback shows its text)
 * @property {{ renderers: any, slot: "call" | "result", input: any, theme: any, context: any, last: any }} [base]
 *   the tool's own renderers (another tool's rows) and what pi gave last: a `builtin` view shows them
 */

/**
 * Has pi's TUI draw again, if there is one and its terminal still runs.
 * @param {any} tui
 */
function requestRenderOf(tui) {
  try {
    tui?.requestRender();
  } catch {
    // pi's terminal stopped.
  }
}

/**
 * A footer, header, widget or editor the extension set.
 * @typedef {object} SetItem
 * @property {ChildConnection} child
 * @property {"footer" | "header" | "widget" | "editor"} target
 * @property {string} [key] a widget's key
 * @property {ViewComponent} [view]
 * @property {any} [editor]
 * @property {any} [tui]
 * @property {boolean} restoring
 * @property {ExtensionContext} ctx
 * @property {unknown} [component] the extension's id for it
 */

export class TuiHost {
  /** @param {TuiBridge} b */
  constructor(b) {
    this.b = b;
    // pi's getMarkdownTheme, from pi's module when a view first draws Markdown.
    loadMarkdownThemeWith(() => this.b.loadPi());
    /** @type {any} pi's theme (a proxy onto the current one), from whatever pi handed the bridge */
    this.theme = undefined;
    /** @type {any} pi's TUI, from whatever factory pi called */
    this.tui = undefined;
    /** @type {Map<ChildConnection, Map<number, OpenComponent>>} */
    this.components = new Map();
    /** @type {WeakMap<object, { call?: RowSlot, result?: RowSlot }>} tool rows by pi's per-row `state` */
    this.rows = new WeakMap();
    /** @type {Map<string, { isError: boolean, collapsed: WireView, expanded: WireView }>} final result views by toolCallId */
    this.resultViews = new Map();
    /** @type {WeakMap<object, number>} identity numbers of result content arrays */
    this.contentIds = new WeakMap();
    this.nextContentId = 1;
    /** @type {WeakMap<object, { component: ViewComponent, views?: { collapsed: WireView, expanded: WireView } | null, asked: boolean }>} */
    this.messages = new WeakMap();
    /** @type {Map<string, { collapsed: WireView, expanded: WireView }>} views sent with messages, by content */
    this.messageViews = new Map();
    /** @type {Map<string, SetItem>} footer/header/editor/widget:<key> → what the extension set */
    this.items = new Map();
    /** @type {Map<ChildConnection, Set<number>>} autocomplete providers that still answer */
    this.providers = new Map();
    /** `ui/call`s, and the statuses and text widgets they set. */
    this.ui = new UiCalls();
    /** Terminal queries waiting for their replies. */
    this.queries = new TerminalQueries(this.b.clock);
    /** @type {TerminalInputs<ChildConnection>} the extension's key subscriptions */
    this.inputs = new TerminalInputs();
  }

  /** The theme pi paints with. */
  currentTheme() {
    if (this.theme) return /** @type {ThemeLike} */ (this.theme);
    try {
      return /** @type {ThemeLike | undefined} */ (this.b.sessionCtx()?.ui.theme);
    } catch {
      return undefined;
    }
  }

  /** @param {any} tui @param {any} [theme] */
  capture(tui, theme) {
    if (tui) this.tui = tui;
    if (theme) this.theme = theme;
  }

  requestRender() {
    requestRenderOf(this.tui);
  }

  // --- messages from the extension ----------------------------------------------

  /**
   * Whether `method` is one of the terminal UI's.
   * @param {string} method
   */
  handles(method) {
    return /^(ui\/(open|frame|ack|close|overlay|set|view|theme|autocomplete|query-terminal|input-subscribe|input-unsubscribe)|editor\/spec)$/.test(method);
  }

  /**
   * A request or notification of the terminal UI. Never throws.
   * @param {ChildConnection} child
   * @param {number | undefined} id
   * @param {string} method
   * @param {any} p
   */
  onMessage(child, id, method, p) {
    /** @param {unknown} err */
    const failed = (err) => {
      const code = err instanceof RpcError && err.code !== undefined ? err.code : codes.INTERNAL_ERROR;
      if (id !== undefined) child.respondError(id, code, messageOf(err));
      else this.b.log.line("warn", `${method}: ${messageOf(err)}`);
    };
    try {
      switch (method) {
        case "ui/open":
          if (id === undefined) throw new RpcError(codes.INVALID_REQUEST, "ui/open must be a request");
          return this.open(child, id, p);
        case "ui/frame":
          return this.frame(child, p);
        case "ui/ack": {
          const c = this.components.get(child)?.get(p.component);
          if (c && typeof p.seq === "number") {
            c.acked = Math.max(c.acked, p.seq);
            this.release(c);
          }
          return;
        }
        case "ui/close":
          return this.closeFromExtension(child, p);
        case "ui/overlay": {
          const c = this.components.get(child)?.get(p.component);
          if (c && !c.reason) c.overlays.apply(p.ops);
          return;
        }
        case "ui/set":
          if (id === undefined) throw new RpcError(codes.INVALID_REQUEST, "ui/set must be a request");
          this.set(child, p).then((r) => child.respond(id, r ?? null), failed);
          return;
        case "ui/view":
          return this.updateView(child, p);
        case "editor/spec":
          return this.updateEditor(child, p);
        case "ui/theme":
          if (id === undefined) throw new RpcError(codes.INVALID_REQUEST, "ui/theme must be a request");
          return child.respond(id, this.themeInfo(child, p));
        case "ui/query-terminal":
          if (id === undefined) throw new RpcError(codes.INVALID_REQUEST, "ui/query-terminal must be a request");
          this.queryTerminal(child, p).then((reply) => child.respond(id, { reply }), failed);
          return;
        case "ui/input-subscribe":
          if (id === undefined) throw new RpcError(codes.INVALID_REQUEST, "ui/input-subscribe must be a request");
          this.subscribeInput(child, p);
          return child.respond(id, null);
        case "ui/input-unsubscribe":
          return this.inputs.remove(child, Number(p?.subscription));
        case "ui/autocomplete":
          if (id === undefined) throw new RpcError(codes.INVALID_REQUEST, "ui/autocomplete must be a request");
          this.addAutocomplete(child, p);
          return child.respond(id, null);
        default:
          throw new RpcError(codes.METHOD_NOT_FOUND, `the bridge has no method ${method}`);
      }
    } catch (err) {
      failed(err);
    }
  }

  // --- custom components -----------------------------------------------------------

  /**
   * `ui/open`: show a component; answered when it closes.
   * @param {ChildConnection} child
   * @param {number} request
   * @param {any} p
   */
  open(child, request, p) {
    const ctx = this.b.ctxFor(child, p);
    if (this.b.mode !== "interactive" || !ctx.hasUI) {
      return child.respondError(request, codes.NO_UI, "custom components need pi's terminal UI");
    }
    const id = Number(p.component);
    // What controls report while drawn (a Markdown panel's line count) answers no key: the last one's seq.
    const controls = this.controlsFor(() => c, {}, () => c.view);
    /** @type {OpenComponent} */
    const c = {
      child,
      id,
      request,
      view: new ViewComponent(() => this.currentTheme(), undefined, {
        repaint: () => (c.tui ?? this.tui)?.requestRender(),
        control: (w, width, focused) => controls.render(w, width, focused),
      }),
      controls,
      overlays: new ComponentOverlays({
        tui: () => c.tui,
        makeChild: (childId, options) => this.childFor(c, childId, options),
        overlayOptions: (o) => this.overlayOptions(o),
        warn: (message) => this.b.log.line("warn", `component ${id}: ${message}`),
      }),
      done: undefined,
      tui: undefined,
      reason: undefined,
      seq: 0,
      acked: 0,
      held: undefined,
      paintedSinceKey: false,
      size: "",
      escapeTimer: undefined,
      resume: undefined,
    };
    let byId = this.components.get(child);
    if (!byId) this.components.set(child, (byId = new Map()));
    byId.set(id, c);
    // A hook's deadline does not run while its component waits for the user.
    const call = typeof p.call === "number" ? child.calls.get(p.call) : undefined;
    if (call?.pausable) {
      call.pausable.pause();
      const deadline = call.pausable;
      c.resume = () => deadline.resume();
    }
    const overlay = p.overlay && typeof p.overlay === "object" ? this.overlayOptions(p.overlay) : undefined;
    const factory = (/** @type {any} */ tui, /** @type {any} */ theme, /** @type {any} */ _kb, /** @type {any} */ done) => {
      this.capture(tui, theme);
      c.tui = tui;
      c.done = done;
      this.tellSize(c, this.expectedWidth(tui, overlay, p.width));
      const component = this.componentFor(c, p);
      // Overlays it opened in on_open: shown now, below it (pi's examples open them in the constructor).
      c.overlays.apply(p.ops);
      c.overlays.flush();
      return component;
    };
    /** @type {any} */
    // No options: pi uses the component's `width` (as for a TypeScript component).
    const options = overlay ? (Object.keys(overlay).length > 0 ? { overlay: true, overlayOptions: overlay } : { overlay: true }) : {};
    if (overlay) options.onHandle = (/** @type {any} */ handle) => c.overlays.setHandle(handle);
    Promise.resolve()
      .then(() => ctx.ui.custom(factory, options))
      .then(
        () => this.closed(c, { outcome: c.reason ? "closed" : "done", reason: c.reason ?? "done" }),
        (err) => {
          this.closed(c, undefined);
          child.respondError(request, codes.INTERNAL_ERROR, `pi could not show the component: ${messageOf(err)}`);
        },
      );
  }

  /**
   * The component object pi gets.
   * @param {OpenComponent} c
   * @param {any} p
   */
  componentFor(c, p) {
    const host = this;
    return {
      wantsKeyRelease: p.wantsKeyRelease === true,
      // PageUp/PageDown to the component, not pi's transcript scroll.
      ...(p.capturesViewportInput === true ? { capturesViewportInput: true } : {}),
      ...(typeof p.width === "number" ? { width: p.width } : {}),
      get focused() {
        return c.view.focused;
      },
      set focused(value) {
        const focused = value === true;
        if (focused === c.view.focused) return;
        c.view.setFocused(focused);
        c.child.notify("ui/focus", { component: c.id, focused });
      },
      /** @param {number} width */
      render(width) {
        c.paintedSinceKey = true;
        if (c.view.view?.width !== width) host.tellSize(c, width);
        return c.view.render(width);
      },
      invalidate() {
        c.view.invalidate();
      },
      /** @param {string} data */
      handleInput(data) {
        host.key(c, data);
      },
      dispose() {
        host.b.clock.clearTimeout(c.escapeTimer);
        c.overlays.closeAll();
      },
    };
  }

  /**
   * The object pi-tui shows for child overlay `childId` of `c`.
   * @param {OpenComponent} c
   * @param {number} childId
   * @param {any} options its overlay options
   */
  childFor(c, childId, options) {
    const host = this;
    const controls = this.controlsFor(() => c, { child: childId }, () => target.view);
    const target = {
      child: childId,
      size: "",
      controls,
      view: new ViewComponent(() => this.currentTheme(), undefined, {
        repaint: () => (c.tui ?? this.tui)?.requestRender(),
        control: (/** @type {any} */ w, /** @type {number} */ width, /** @type {boolean} */ focused) => controls.render(w, width, focused),
      }),
    };
    this.tellSize(c, this.expectedWidth(c.tui, options, undefined), target);
    return {
      target,
      get focused() {
        return target.view.focused;
      },
      set focused(value) {
        const focused = value === true;
        if (focused === target.view.focused) return;
        target.view.setFocused(focused);
        if (!c.reason) c.child.notify("ui/focus", { component: c.id, child: childId, focused });
      },
      /** @param {number} width */
      render(width) {
        c.paintedSinceKey = true;
        if (target.view.view?.width !== width) host.tellSize(c, width, target);
        return target.view.render(width);
      },
      invalidate() {
        target.view.invalidate();
      },
      /** @param {string} data */
      handleInput(data) {
        host.key(c, data, target);
      },
      /** Closed: its controls stop (a loader's timer). */
      dispose() {
        controls.dispose();
      },
    };
  }

  /**
   * A component's (or a child overlay's) pi-tui controls: what they report
   * goes to the extension as `ui/control` (the last key's seq); a loader's
   * frame draws its view anew and repaints pi, with no round trip.
   * @param {() => OpenComponent} comp the component (a getter: made before it)
   * @param {{ child?: number }} where which of its overlays
   * @param {() => ViewComponent | undefined} view
   */
  controlsFor(comp, where, view) {
    const tui = () => comp().tui ?? this.tui;
    return new ControlSet(
      () => this.currentTheme(),
      (events) => {
        const c = comp();
        if (c.reason) return;
        for (const e of events) c.child.notify("ui/control", { component: c.id, ...where, seq: c.seq, ...e });
      },
      () => {
        if (comp().reason) return;
        view()?.invalidate();
        requestRenderOf(tui());
      },
      () => {
        const rows = Number(tui()?.terminal?.rows);
        return Number.isFinite(rows) && rows > 0 ? rows : 24;
      },
    );
  }

  /**
   * Tell the extension where its component (or one of its child overlays) is drawn, once per size.
   * @param {OpenComponent} c
   * @param {number} width
   * @param {{ child: number, size: string }} [target] a child overlay
   */
  tellSize(c, width, target) {
    let rows = 24;
    try {
      rows = Number(c.tui?.terminal?.rows) || 24;
    } catch {
      // A terminal without rows: a guess.
    }
    const size = `${width}x${rows}`;
    const at = target ?? c;
    if (size === at.size || !(width > 0) || c.reason) return;
    at.size = size;
    c.child.notify("ui/resize", target ? { component: c.id, child: target.child, width, rows } : { component: c.id, width, rows });
  }

  /**
   * The width pi will render a component at (pi-tui's overlay layout, roughly;
   * the first render corrects it).
   * @param {any} tui
   * @param {any} overlay
   * @param {unknown} preferred the component's width
   */
  expectedWidth(tui, overlay, preferred) {
    const cols = Number(tui?.terminal?.columns) || 80;
    if (!overlay) return cols;
    const m = overlay.margin;
    const margins = typeof m === "number" ? 2 * m : (Number(m?.left) || 0) + (Number(m?.right) || 0);
    const available = Math.max(1, cols - margins);
    let w = overlay.width ?? preferred;
    if (typeof w === "string" && w.endsWith("%")) w = Math.floor((cols * parseFloat(w)) / 100);
    if (typeof w !== "number") w = Math.min(80, available);
    if (typeof overlay.minWidth === "number") w = Math.max(w, overlay.minWidth);
    return Math.max(1, Math.min(w, available));
  }

  /**
   * pi-tui's OverlayOptions from the wire's (`visible` is a minimum size).
   * @param {any} o
   */
  overlayOptions(o) {
    const { visible, ...rest } = o;
    if (visible && typeof visible === "object") {
      const minWidth = Number(visible.minWidth) || 0;
      const minHeight = Number(visible.minHeight) || 0;
      return { ...rest, visible: (/** @type {number} */ w, /** @type {number} */ h) => w >= minWidth && h >= minHeight };
    }
    return rest;
  }

  /**
   * A key for a component (or one of its child overlays): to the extension at once, not batched.
   * @param {OpenComponent} c
   * @param {string} data
   * @param {{ child: number, controls: ControlSet, view: ViewComponent }} [target] the child overlay it went to
   */
  key(c, data, target) {
    if (c.reason) return;
    const { key, aliases, text, kind } = decodeKey(data);
    c.seq++;
    c.paintedSinceKey = false;
    const to = target ? { child: target.child } : {};
    // A key the frame's focused pi-tui control uses: handled here, its events to the extension.
    const events = kind === "release" ? undefined : (target ?? c).controls.key(data);
    if (events) {
      for (const e of events) c.child.notify("ui/control", { component: c.id, ...to, seq: c.seq, ...e });
      // A control's last word usually changes the component (a TypeScript
      // component's onSubmit redraws in the same tick): pi repaints with the
      // extension's answer to this key, not with the control's state in
      // between (an editor emptied by its Enter under the old frame).
      const view = (target ?? c).view;
      if (events.some((e) => e.event === "chosen" || e.event === "submitted" || e.event === "cancelled")) {
        c.held = { seq: c.seq, view };
      } else {
        view.invalidate();
        requestRenderOf(c.tui);
      }
    } else
      c.child.notify("ui/key", {
        component: c.id,
        ...to,
        seq: c.seq,
        key: key ?? null,
        aliases,
        data,
        text: text ?? null,
        kind,
      });
    if (key === "escape" || aliases.includes("escape")) {
      // The user's way out of a component whose process does not answer.
      const seq = c.seq;
      this.b.clock.clearTimeout(c.escapeTimer);
      c.escapeTimer = this.b.clock.setTimeout(() => {
        if (c.acked < seq && !c.reason) this.close(c, "unresponsive");
      }, ESCAPE_GRACE_MS);
    }
  }

  /**
   * The extension answered the key a control's last word held the repaint
   * for: the control's state is drawn (the answer's frame, if any, too).
   * @param {OpenComponent} c
   */
  release(c) {
    if (!c.held || c.acked < c.held.seq) return;
    c.held.view.invalidate();
    c.held = undefined;
    requestRenderOf(c.tui);
  }

  /**
   * `ui/frame`: the component's new frame.
   * @param {ChildConnection} child
   * @param {any} p
   */
  frame(child, p) {
    const c = this.components.get(child)?.get(p.component);
    if (!c || c.reason) return; // closed: dropped
    const { component: _id, child: childId, forKey, ...view } = p;
    // A child overlay's frame; one of a child that closed meanwhile only answers its key.
    const target = childId === undefined ? c : c.overlays.child(childId)?.component.target;
    if (target) {
      target.controls.sync(view.blocks);
      target.view.setView(view);
    }
    if (typeof forKey === "number") {
      c.acked = Math.max(c.acked, forKey);
      this.release(c);
      // pi repainted for the key already: this frame need not wait out
      // pi's 16 ms render interval (pi-tui's `lastRenderAt`, guarded).
      if (forKey === c.seq && c.paintedSinceKey && typeof c.tui?.lastRenderAt === "number") c.tui.lastRenderAt = -Infinity;
    }
    requestRenderOf(c.tui);
  }

  /**
   * `ui/close`: the extension ended the component (done, dropped, failed).
   * @param {ChildConnection} child
   * @param {any} p
   */
  closeFromExtension(child, p) {
    const c = this.components.get(child)?.get(p.component);
    if (!c) return;
    if (typeof p.error === "string") {
      this.b.log.line("warn", `component ${c.id}: ${p.error}`);
      this.notify(`pi-ext "${this.b.name}": ${sanitize(p.error, "lines")}`, "error");
    }
    this.close(c, p.reason === "done" ? undefined : String(p.reason ?? "closed"));
  }

  /**
   * Close a component in pi (pi's `done`).
   * @param {OpenComponent} c
   * @param {string | undefined} reason undefined: the extension's `done`
   */
  close(c, reason) {
    if (c.reason) return;
    c.reason = reason ?? "done";
    // Its child overlays close with it (before it, as pi's examples hide their panels first).
    c.overlays.closeAll();
    try {
      c.done?.(undefined);
    } catch (err) {
      this.b.log.line("warn", `closing component ${c.id}: ${messageOf(err)}`);
    }
  }

  /**
   * pi closed the component: answer `ui/open` and forget it.
   * @param {OpenComponent} c
   * @param {{ outcome: string, reason: string } | undefined} answer
   */
  closed(c, answer) {
    this.b.clock.clearTimeout(c.escapeTimer);
    c.overlays.closeAll();
    c.controls.dispose();
    c.resume?.();
    c.resume = undefined;
    this.components.get(c.child)?.delete(c.id);
    if (answer) c.child.respond(c.request, answer.reason === "done" ? { outcome: "done" } : answer);
  }

  // --- tool rows ------------------------------------------------------------------------

  /**
   * `renderCall` / `renderResult` for a tool whose manifest says it renders them.
   * @param {Pick<import("./manifest.js").ToolManifest, "name" | "render">} tool
   * @param {any} [base] the renderers the tool has without the extension's
   *   (`registerToolRenderer`'s `next()`): what a `builtin` view shows
   * @returns {Record<string, unknown>}
   */
  toolRenderers(tool, base) {
    const r = tool.render;
    if (!r || typeof r !== "object" || this.b.mode !== "interactive") return {};
    /** @type {Record<string, unknown>} */
    const out = {};
    if (r.call) {
      out.renderCall = (/** @type {any} */ args, /** @type {any} */ theme, /** @type {any} */ context) =>
        this.row(tool.name, "call", { args, base }, theme, context);
    }
    if (r.result) {
      out.renderResult = (/** @type {any} */ result, /** @type {any} */ options, /** @type {any} */ theme, /** @type {any} */ context) =>
        this.row(tool.name, "result", { result, options, base }, theme, context);
    }
    // "default" only matters for a built-in definition that says "self" (edit).
    if (r.shell === "self" || r.shell === "default") out.renderShell = r.shell;
    return out;
  }

  /**
   * The final result's views the extension computed with its answer.
   * @param {string} toolCallId
   * @param {any} views
   * @param {boolean} isError
   */
  toolViews(toolCallId, views, isError) {
    if (!views || typeof views !== "object" || !views.collapsed || !views.expanded) return;
    if (this.resultViews.size >= MESSAGE_VIEWS) this.resultViews.delete(/** @type {string} */ (this.resultViews.keys().next().value));
    this.resultViews.set(toolCallId, { isError, collapsed: views.collapsed, expanded: views.expanded });
  }

  /**
   * One slot of a tool row: answered from a cache, never waiting.
   * @param {string} tool
   * @param {"call" | "result"} slot
   * @param {{ args?: any, result?: any, options?: any, base?: any }} input
   * @param {any} theme
   * @param {any} context pi's ToolRenderContext
   */
  row(tool, slot, input, theme, context) {
    this.capture(undefined, theme);
    const state = context?.state && typeof context.state === "object" ? context.state : {};
    let row = this.rows.get(state);
    if (!row) this.rows.set(state, (row = {}));
    let s = row[slot];
    if (!s) {
      const fallback =
        slot === "call"
          ? (/** @type {number} */ w) => baseLines(s, w) ?? callFallback(tool, theme)
          : (/** @type {number} */ w) => baseLines(s, w) ?? resultFallback(s?.lastResult, theme, w);
      /** @type {RowSlot} */
      const fresh = {
        component: new ViewComponent(
          () => this.currentTheme(),
          { blocks: [{ builtin: true }] },
          { builtin: fallback, repaint: () => (fresh.invalidate(), this.requestRender()) },
        ),
        views: new Map(),
        inflight: undefined,
        invalidate: () => {},
      };
      s = row[slot] = fresh;
    }
    const slotState = s;
    if (typeof context?.invalidate === "function") slotState.invalidate = context.invalidate;
    if (input.base) slotState.base = { renderers: input.base, slot, input, theme, context, last: slotState.base?.last };
    const expanded = context?.expanded === true || input.options?.expanded === true;
    const isPartial = context?.isPartial === true || input.options?.isPartial === true;
    const isError = context?.isError === true;
    /** @type {string} */
    let key;
    if (slot === "call") {
      let args;
      try {
        args = JSON.stringify(input.args ?? null);
      } catch {
        args = "?";
      }
      key = `${args}|${context?.argsComplete === true}|${context?.executionStarted === true}|${expanded}`;
    } else {
      slotState.lastResult = input.result;
      const content = input.result?.content;
      key = `${this.contentId(content)}|${isPartial}|${expanded}|${isError}`;
      const final = typeof context?.toolCallId === "string" ? this.resultViews.get(context.toolCallId) : undefined;
      if (!isPartial && final && final.isError === isError) {
        slotState.component.setView(expanded ? final.expanded : final.collapsed);
        return slotState.component;
      }
    }
    const known = slotState.views.get(key);
    if (known !== undefined) {
      if (slotState.component.view !== (known ?? FALLBACK)) slotState.component.setView(known ?? FALLBACK);
      return slotState.component;
    }
    // Not known yet: keep showing what it showed, ask the extension.
    this.askRow(slotState, key, {
      tool,
      toolCallId: context?.toolCallId ?? null,
      slot,
      args: (slot === "call" ? input.args : context?.args) ?? null,
      argsComplete: context?.argsComplete === true,
      executionStarted: context?.executionStarted === true,
      expanded,
      partial: isPartial,
      isError,
      ...(slot === "result" ? { result: { content: input.result?.content ?? [], details: input.result?.details ?? null } } : {}),
    });
    return slotState.component;
  }

  /**
   * An identity number for a result's content array (pi keeps one per update).
   * @param {unknown} content
   */
  contentId(content) {
    if (!content || typeof content !== "object") return 0;
    let id = this.contentIds.get(content);
    if (id === undefined) this.contentIds.set(content, (id = this.nextContentId++));
    return id;
  }

  /**
   * Ask the extension for a slot's view (one request in flight per slot; a
   * newer input cancels the older request). The answer updates the cache and
   * re-runs pi's renderers for the row, which then find it.
   * @param {RowSlot} s
   * @param {string} key
   * @param {unknown} params
   */
  askRow(s, key, params) {
    if (s.inflight?.key === key) return;
    if (s.inflight) {
      const { child, id } = s.inflight;
      if (child.fail(id, new Error("stale"))) child.cancel(id);
      s.inflight = undefined;
    }
    const start = async () => {
      const acquired = this.b.acquire();
      const child = acquired instanceof Promise ? await acquired : acquired;
      const { id, promise } = child.request("render/tool", params, { what: "the tool row" });
      s.inflight = { key, id, child };
      return promise;
    };
    const marker = { key, id: -1, child: /** @type {any} */ (undefined) };
    s.inflight = marker;
    start().then(
      (view) => this.rowAnswered(s, key, view ?? null),
      (err) => {
        if (messageOf(err) === "stale") return;
        this.b.log.line("warn", `render/tool: ${messageOf(err)}`);
        this.rowAnswered(s, key, null);
      },
    );
  }

  /**
   * @param {RowSlot} s
   * @param {string} key
   * @param {WireView | null} view
   */
  rowAnswered(s, key, view) {
    if (s.inflight && s.inflight.key !== key) return; // a newer input is being rendered
    s.inflight = undefined;
    if (s.views.size >= SLOT_VIEWS) s.views.delete(/** @type {string} */ (s.views.keys().next().value));
    s.views.set(key, view);
    try {
      s.invalidate(); // pi re-runs the row's renderers; they find the view now
    } catch {
      // The row is gone.
    }
  }

  // --- custom messages -----------------------------------------------------------------

  /**
   * Register pi message renderers for the manifest's custom types.
   * @param {string[] | undefined} types
   * @param {Set<string>} registered
   */
  registerMessageRenderers(types, registered) {
    if (this.b.mode !== "interactive") return;
    for (const type of types ?? []) {
      if (typeof type !== "string" || registered.has(type)) continue;
      registered.add(type);
      this.b.pi.registerMessageRenderer(type, (message, options, theme) =>
        /** @type {any} */ (this.message(type, message, options?.expanded === true, theme)),
      );
    }
  }

  /**
   * The key of a message's content (views sent with a message are found by it).
   * @param {any} message
   */
  messageKey(message) {
    try {
      return JSON.stringify([message?.customType ?? null, message?.content ?? null, message?.details ?? null]);
    } catch {
      return "";
    }
  }

  /**
   * Views the extension sent with a message it sends (`sendMessage`'s `views`).
   * @param {any} message
   * @param {any} views
   */
  rememberMessageViews(message, views) {
    if (!views || typeof views !== "object" || !views.collapsed || !views.expanded) return;
    const key = this.messageKey({ customType: message?.customType, content: message?.content, details: message?.details });
    if (this.messageViews.size >= MESSAGE_VIEWS) this.messageViews.delete(/** @type {string} */ (this.messageViews.keys().next().value));
    this.messageViews.set(key, { collapsed: views.collapsed, expanded: views.expanded });
  }

  /**
   * pi's message renderer: always a component the bridge keeps (pi gives no
   * `invalidate`), showing the extension's view or, until it arrives, pi's
   * default look.
   * @param {string} type
   * @param {any} message
   * @param {boolean} expanded
   * @param {any} theme
   */
  message(type, message, expanded, theme) {
    this.capture(undefined, theme);
    if (!message || typeof message !== "object") return undefined;
    let m = this.messages.get(message);
    if (!m) {
      const sent = this.messageViews.get(this.messageKey(message));
      const repaint = () => this.requestRender();
      m = { component: new ViewComponent(() => this.currentTheme(), defaultMessageView(message), { repaint }), views: sent, asked: false };
      this.messages.set(message, m);
    }
    if (m.views) m.component.setView(expanded ? m.views.expanded : m.views.collapsed);
    else if (m.views === undefined && !m.asked) {
      m.asked = true;
      const entry = m;
      this.askMessage(type, message, (views) => {
        entry.views = views;
        if (views) {
          entry.component.setView(expanded ? views.expanded : views.collapsed);
          this.requestRender();
        }
      });
    }
    return m.component;
  }

  /**
   * @param {string} type
   * @param {any} message
   * @param {(views: { collapsed: WireView, expanded: WireView } | null) => void} then
   */
  askMessage(type, message, then) {
    (async () => {
      const acquired = this.b.acquire();
      const child = acquired instanceof Promise ? await acquired : acquired;
      return child.request("render/message", { customType: type, message }, { what: "the custom message" }).promise;
    })().then(
      (answer) => {
        const a = /** @type {any} */ (answer);
        then(a && a.collapsed && a.expanded ? a : null);
      },
      (err) => {
        this.b.log.line("warn", `render/message: ${messageOf(err)}`);
        then(null);
      },
    );
  }

  // --- footer, header, widgets, editor ----------------------------------------------------

  /**
   * `ui/set`: set or restore a footer, header, widget or editor.
   * @param {ChildConnection} child
   * @param {any} p
   */
  async set(child, p) {
    const ctx = this.b.ctxFor(child, p);
    const target = p.target;
    if (!["footer", "header", "widget", "editor"].includes(target)) {
      throw new RpcError(codes.INVALID_PARAMS, `ui/set: unknown target ${JSON.stringify(target)}`);
    }
    const itemKey = target === "widget" ? `widget:${String(p.key)}` : target;
    const ui = /** @type {any} */ (ctx.ui);
    if (this.b.mode !== "interactive") {
      // RPC mode: pi shows widgets as text and ignores the rest; print mode: nothing.
      if (target === "widget" && this.b.mode === "rpc") {
        ui.setWidget(String(p.key), p.restore ? undefined : plainLines(p.view), placementOf(p.placement));
        return null;
      }
      throw new RpcError(codes.NO_UI, `${target}s need pi's terminal UI`);
    }
    const before = this.items.get(itemKey);
    if (before) before.restoring = true;
    if (p.restore === true) {
      this.items.delete(itemKey);
      this.unset(ui, target, p.key);
      return null;
    }
    /** @type {SetItem} */
    const item = { child, target, key: p.key, restoring: false, ctx };
    const onDispose = () => {
      if (item.restoring) return;
      if (this.items.get(itemKey) === item) this.items.delete(itemKey);
      child.notify("ui/closed", { component: p.component, reason: "replaced" });
    };
    const view = () => {
      const v = new ViewComponent(() => this.currentTheme(), p.view, { repaint: () => (item.tui ?? this.tui)?.requestRender() });
      item.view = v;
      /** @type {any} */ (v).dispose = onDispose;
      return v;
    };
    this.items.set(itemKey, item);
    item.component = p.component;
    if (target === "footer") {
      ui.setFooter((/** @type {any} */ tui, /** @type {any} */ theme, /** @type {any} */ data) => {
        this.capture(tui, theme);
        item.tui = tui;
        const v = view();
        let last = "";
        const sendData = () => {
          const statuses = Object.fromEntries(data?.getExtensionStatuses?.() ?? []);
          const facts = {
            gitBranch: data?.getGitBranch?.() ?? null,
            statuses,
            providerCount: data?.getAvailableProviderCount?.() ?? 0,
          };
          const text = JSON.stringify(facts);
          if (text === last) return;
          last = text;
          child.notify("footer/data", { component: p.component, ...facts });
        };
        sendData();
        const unsubscribe = data?.onBranchChange?.(() => sendData());
        const render = v.render.bind(v);
        // pi has no event for statuses: its own footer reads them every repaint too.
        v.render = (/** @type {number} */ width) => {
          sendData();
          return render(width);
        };
        /** @type {any} */ (v).dispose = () => {
          unsubscribe?.();
          onDispose();
        };
        return v;
      });
    } else if (target === "header") {
      ui.setHeader((/** @type {any} */ tui, /** @type {any} */ theme) => {
        this.capture(tui, theme);
        item.tui = tui;
        return view();
      });
    } else if (target === "widget") {
      ui.setWidget(
        String(p.key),
        (/** @type {any} */ tui, /** @type {any} */ theme) => {
          this.capture(tui, theme);
          item.tui = tui;
          return view();
        },
        placementOf(p.placement),
      );
    } else {
      const pi = await this.b.loadPi();
      const RustEditor = rustEditorClass(pi.CustomEditor);
      ui.setEditorComponent((/** @type {any} */ tui, /** @type {any} */ theme, /** @type {any} */ kb) => {
        this.capture(tui, undefined);
        item.tui = tui;
        item.editor = new RustEditor(tui, theme, kb, { spec: p.editor ?? {}, getTheme: () => this.currentTheme(), onDispose });
        return item.editor;
      });
    }
    return null;
  }

  /**
   * Give pi its own footer, header, editor back, or remove a widget.
   * @param {any} ui
   * @param {string} target
   * @param {unknown} key
   */
  unset(ui, target, key) {
    if (target === "footer") ui.setFooter(undefined);
    else if (target === "header") ui.setHeader(undefined);
    else if (target === "widget") ui.setWidget(String(key), undefined);
    else ui.setEditorComponent(undefined);
  }

  /**
   * `ui/view`: a new view for a footer, header or widget.
   * @param {ChildConnection} child
   * @param {any} p
   */
  updateView(child, p) {
    for (const item of this.items.values()) {
      if (item.child !== child || item.component !== p.component || !item.view) continue;
      const { component: _id, ...view } = p;
      item.view.setView(view);
      requestRenderOf(item.tui ?? this.tui);
    }
  }

  /**
   * `editor/spec`: a new keymap or decorations for the editor.
   * @param {ChildConnection} child
   * @param {any} p
   */
  updateEditor(child, p) {
    const item = this.items.get("editor");
    if (!item || item.child !== child || item.component !== p.component || !item.editor) return;
    item.editor.setSpec(p.editor ?? {});
  }

  // --- autocomplete ----------------------------------------------------------------------

  /**
   * `ui/autocomplete`: layer a provider on pi's (pi's `addAutocompleteProvider`).
   * @param {ChildConnection} child
   * @param {any} p
   */
  addAutocomplete(child, p) {
    const ctx = this.b.ctxFor(child, p);
    if (this.b.mode !== "interactive") throw new RpcError(codes.NO_UI, "autocomplete needs pi's terminal UI");
    let trigger;
    try {
      trigger = new RegExp(String(p.trigger), typeof p.flags === "string" ? p.flags.replace(/[gy]/g, "") : "");
    } catch (err) {
      throw new RpcError(codes.INVALID_PARAMS, `autocomplete trigger ${JSON.stringify(p.trigger)} is not a JavaScript regular expression: ${messageOf(err)}`);
    }
    const provider = Number(p.provider);
    let live = this.providers.get(child);
    if (!live) this.providers.set(child, (live = new Set()));
    live.add(provider);
    const host = this;
    /** @type {any} */ (ctx.ui).addAutocompleteProvider((/** @type {any} */ current) => ({
      /**
       * @param {string[]} lines
       * @param {number} line
       * @param {number} col
       * @param {{ signal?: AbortSignal, force?: boolean }} options
       */
      async getSuggestions(lines, line, col, options) {
        const before = String(lines?.[line] ?? "").slice(0, col);
        const m = trigger.exec(before);
        if (!m || child.exited || !host.providers.get(child)?.has(provider)) return current.getSuggestions(lines, line, col, options);
        const { id, promise } = child.request("autocomplete/suggest", {
          provider,
          lines,
          cursorLine: line,
          cursorCol: col,
          force: options?.force === true,
          match: [...m].map((g) => g ?? null),
        });
        const signal = options?.signal;
        const onAbort = () => {
          if (child.fail(id, new Error("aborted"))) child.cancel(id);
        };
        signal?.addEventListener("abort", onAbort, { once: true });
        const timer = host.b.clock.setTimeout(() => {
          if (child.fail(id, new Error("timed out"))) child.cancel(id);
        }, SUGGEST_TIMEOUT_MS);
        try {
          const answer = /** @type {any} */ (await promise);
          if (answer && Array.isArray(answer.items) && answer.items.length > 0) {
            return {
              // The prefix is not shown: it is what pi cuts from the editor's line.
              prefix: String(answer.prefix ?? ""),
              items: answer.items.map((/** @type {any} */ i) => ({
                value: sanitize(i.value ?? ""),
                label: sanitize(i.label ?? i.value ?? ""),
                ...(i.description ? { description: sanitize(i.description) } : {}),
              })),
            };
          }
        } catch (err) {
          if (signal?.aborted) return null;
          host.b.log.line("warn", `autocomplete provider ${provider}: ${messageOf(err)}`);
        } finally {
          signal?.removeEventListener("abort", onAbort);
          host.b.clock.clearTimeout(timer);
        }
        if (signal?.aborted) return null;
        return current.getSuggestions(lines, line, col, options);
      },
      /** @param {any[]} a */
      applyCompletion: (...a) => current.applyCompletion(...a),
      /** @param {any[]} a */
      shouldTriggerFileCompletion: (...a) => current.shouldTriggerFileCompletion?.(...a) ?? true,
    }));
  }

  // --- theme and styled text ---------------------------------------------------------------

  /**
   * `ui/theme`: the theme's name, colour mode and every token's colour.
   * @param {ChildConnection} child
   * @param {any} p
   */
  themeInfo(child, p) {
    const theme = /** @type {any} */ (this.b.ctxFor(child, p).ui.theme);
    /** @param {string} ansi */
    const color = (ansi) => {
      const rgb = /\x1b\[[34]8;2;(\d+);(\d+);(\d+)m/.exec(ansi);
      if (rgb) return `#${[rgb[1], rgb[2], rgb[3]].map((v) => Number(v).toString(16).padStart(2, "0")).join("")}`;
      const idx = /\x1b\[[34]8;5;(\d+)m/.exec(ansi);
      if (idx) return Number(idx[1]);
      return null;
    };
    /** @type {Record<string, string | number | null>} */
    const fg = {};
    /** @type {Record<string, string | number | null>} */
    const bg = {};
    for (const t of FG_TOKENS) {
      try {
        fg[t] = color(theme.getFgAnsi(t));
      } catch {
        // Unknown in this pi.
      }
    }
    for (const t of BG_TOKENS) {
      try {
        bg[t] = color(theme.getBgAnsi(t));
      } catch {
        // Unknown in this pi.
      }
    }
    let mode = "truecolor";
    try {
      mode = theme.getColorMode();
    } catch {
      // Default.
    }
    return { name: theme.name ?? null, mode, fg, bg };
  }

  /**
   * A `ui/call` (`ctx.ui.<method>(...args)`), with styled text
   * (`{styled: view}`) as a string with the current theme's escape
   * sequences, as TypeScript's `theme.fg` makes them (see `UiCalls`).
   * Returns pi's answer.
   * @param {ChildConnection} child
   * @param {ExtensionContext} ctx
   * @param {string} method
   * @param {unknown[]} args
   */
  uiCall(child, ctx, method, args) {
    const theme = this.currentTheme();
    return this.ui.call(child, ctx, method, args, (view) => styledText(/** @type {any} */ (view), theme));
  }

  // --- lifetimes -------------------------------------------------------------------------

  /**
   * A process is gone (or retired): its components close, what it set in pi is
   * restored (footer, header, editor, widgets, statuses), its autocomplete
   * providers hand over to pi's.
   * @param {ChildConnection} child
   */
  retire(child) {
    const open = [...(this.components.get(child)?.values() ?? [])];
    for (const c of open) this.close(c, "process");
    this.components.delete(child);
    this.providers.delete(child);
    this.inputs.retire(child);
    let restored = 0;
    for (const [key, item] of [...this.items]) {
      if (item.child !== child) continue;
      item.restoring = true;
      this.items.delete(key);
      try {
        this.unset(item.ctx.ui, item.target, item.key);
        restored++;
      } catch {
        // The session is gone: pi reset its UI itself.
      }
    }
    restored += this.ui.restore(child);
    if (child.exited && !child.stopping && (open.length > 0 || restored > 0)) {
      this.notify(
        `pi-ext "${this.b.name}": the extension process ended (${child.exitReason ?? "exited"}); its components were closed; see ${this.b.log.file}`,
        "error",
      );
    }
  }

  /**
   * pi started a session. Message renderers need pi's TUI to repaint when a
   * view arrives, and pi hands it only to factories: a widget factory pi
   * calls at once gives it.
   * @param {ExtensionContext} ctx
   * @param {import("./manifest.js").Manifest | undefined} manifest
   */
  sessionStarted(ctx, manifest) {
    const draws = manifest?.messageRenderers?.length || manifest?.entryRenderers?.length || manifest?.markdownTransformer;
    if (this.b.mode !== "interactive" || this.tui || !draws) return;
    // Without it, a message's view shows at the next repaint.
    this.probe(ctx.ui);
  }

  /**
   * `ui/query-terminal`: write a known query on pi's terminal, answer with
   * its reply taken from pi's input (null: none in time).
   * @param {ChildConnection} child
   * @param {any} p
   * @returns {Promise<string | null>}
   */
  async queryTerminal(child, p) {
    const ctx = this.b.ctxFor(child, p);
    if (this.b.mode !== "interactive" || !ctx.hasUI) throw new RpcError(codes.NO_UI, "terminal queries need pi's terminal UI");
    let query;
    try {
      query = terminalQuery(p.query);
    } catch (err) {
      throw new RpcError(codes.INVALID_PARAMS, messageOf(err));
    }
    const ui = /** @type {any} */ (ctx.ui);
    if (typeof ui.onTerminalInput !== "function") throw new Error("this pi has no terminal input for extensions");
    if (!this.tui) this.probe(ui);
    const terminal = this.tui?.terminal;
    if (typeof terminal?.write !== "function") throw new Error("pi's terminal is not reachable");
    const timeoutMs = Math.min(Math.max(Number(p.timeoutMs) || 0, 0), 10_000);
    return this.queries.ask(query, timeoutMs, {
      write: (/** @type {string} */ s) => terminal.write(s),
      listen: (handler) => ui.onTerminalInput(handler),
    });
  }

  /**
   * `ui/input-subscribe`: a pi input listener that applies the extension's
   * filter at once and reports the keys it matched (`ui/input`).
   * @param {ChildConnection} child
   * @param {any} p
   */
  subscribeInput(child, p) {
    const ctx = this.b.ctxFor(child, p);
    if (this.b.mode !== "interactive" || !ctx.hasUI) throw new RpcError(codes.NO_UI, "terminal input needs pi's terminal UI");
    const id = p?.subscription;
    if (typeof id !== "number" || !Number.isSafeInteger(id)) throw new RpcError(codes.INVALID_PARAMS, "subscription must be a number");
    let filter;
    try {
      filter = inputFilter(p);
    } catch (err) {
      throw new RpcError(codes.INVALID_PARAMS, messageOf(err));
    }
    const ui = /** @type {any} */ (ctx.ui);
    if (typeof ui.onTerminalInput !== "function") throw new Error("this pi has no terminal input for extensions");
    try {
      this.inputs.add(child, id, filter, {
        listen: (handler) => ui.onTerminalInput(handler),
        send: (key) => child.notify("ui/input", { subscription: id, ...key }),
        end: (reason) => child.notify("ui/input-end", { subscription: id, reason }),
      });
    } catch (err) {
      throw new RpcError(codes.INVALID_REQUEST, messageOf(err));
    }
  }

  /**
   * pi's TUI, which pi hands only to factories: a widget factory pi calls at once gives it.
   * @param {any} ui ctx.ui
   */
  probe(ui) {
    try {
      ui.setWidget("pi-ext-probe", (/** @type {any} */ tui, /** @type {any} */ theme) => {
        this.capture(tui, theme);
        return { render: () => [], invalidate() {} };
      });
      ui.setWidget("pi-ext-probe", undefined);
    } catch {
      // Not now.
    }
  }

  /** pi's session ends: components close (pi would leave a non-overlay one's promise pending). */
  sessionEnded() {
    this.queries.stop();
    this.inputs.sessionEnded();
    for (const byId of this.components.values()) for (const c of [...byId.values()]) this.close(c, "session");
    this.items.clear();
    this.ui.clear();
    this.resultViews.clear();
  }

  /**
   * @param {string} message
   * @param {"error" | "warning" | "info"} level
   */
  notify(message, level) {
    try {
      this.b.sessionCtx()?.ui.notify(message, level);
    } catch {
      // The session is gone.
    }
  }
}

/** The view a slot shows until the extension's arrives: pi's own rendering. */
const FALLBACK = /** @type {WireView} */ ({ blocks: [{ builtin: true }] });

/**
 * The lines the tool's own renderer draws for a slot (another tool's rows,
 * `registerToolRenderer`), or undefined when it has none or it throws. It
 * gets its own previous component as `lastComponent`, never the bridge's.
 * @param {RowSlot | undefined} s
 * @param {number} width
 * @returns {string[] | undefined}
 */
function baseLines(s, width) {
  const b = s?.base;
  if (!b) return undefined;
  const f = b.slot === "call" ? b.renderers?.renderCall : b.renderers?.renderResult;
  if (typeof f !== "function") return undefined;
  try {
    const context = Object.create(b.context ?? null, { lastComponent: { value: b.last } });
    const c = b.slot === "call" ? f(b.input.args, b.theme, context) : f(b.input.result, b.input.options, b.theme, context);
    b.last = c;
    const lines = c?.render?.(width);
    return Array.isArray(lines) ? lines : undefined;
  } catch {
    return undefined;
  }
}

/**
 * pi's fallback for a tool row's call: the tool's name, bold, in `toolTitle`.
 * @param {string} tool
 * @param {any} theme
 */
function callFallback(tool, theme) {
  try {
    return [theme.fg("toolTitle", theme.bold(sanitize(tool)))];
  } catch {
    return [sanitize(tool)];
  }
}

/**
 * pi's fallback for a tool row's result: its text output in `toolOutput`.
 * @param {any} result
 * @param {any} theme
 * @param {number} width
 */
function resultFallback(result, theme, width) {
  const text = (Array.isArray(result?.content) ? result.content : [])
    .filter((/** @type {any} */ c) => c?.type === "text")
    .map((/** @type {any} */ c) => sanitize(c.text ?? "", "lines"))
    .join("\n");
  if (!text) return [];
  let styled = text;
  try {
    styled = theme.fg("toolOutput", text);
  } catch {
    // Plain.
  }
  return wrapAnsi(styled, width);
}

/**
 * pi's default look of a custom message (label and text on customMessageBg),
 * shown until the extension's view arrives.
 * @param {any} message
 * @returns {WireView}
 */
function defaultMessageView(message) {
  const content =
    typeof message?.content === "string"
      ? message.content
      : (Array.isArray(message?.content) ? message.content : [])
          .filter((/** @type {any} */ c) => c?.type === "text")
          .map((/** @type {any} */ c) => String(c.text ?? ""))
          .join("\n");
  return {
    styles: [{ fg: "customMessageLabel", bold: true }, { fg: "customMessageText" }],
    blocks: [
      { spacer: 1 },
      {
        box: { padX: 1, padY: 1, bg: "customMessageBg" },
        blocks: [
          { text: [[[`[${String(message?.customType ?? "")}]`, 0]]], wrap: true },
          { spacer: 1 },
          { text: content.split("\n").map((/** @type {string} */ l) => [[l, 1]]), wrap: true },
        ],
      },
    ],
  };
}

/**
 * pi's widget placement option.
 * @param {unknown} placement
 */
function placementOf(placement) {
  return placement === "belowEditor" || placement === "aboveEditor" ? { placement } : undefined;
}

/** pi 0.73.1's foreground tokens (ThemeColor). */
const FG_TOKENS = [
  "accent", "border", "borderAccent", "borderMuted", "success", "error", "warning", "muted", "dim", "text",
  "thinkingText", "userMessageText", "customMessageText", "customMessageLabel", "toolTitle", "toolOutput",
  "mdHeading", "mdLink", "mdLinkUrl", "mdCode", "mdCodeBlock", "mdCodeBlockBorder", "mdQuote", "mdQuoteBorder",
  "mdHr", "mdListBullet", "toolDiffAdded", "toolDiffRemoved", "toolDiffContext", "syntaxComment", "syntaxKeyword",
  "syntaxFunction", "syntaxVariable", "syntaxString", "syntaxNumber", "syntaxType", "syntaxOperator",
  "syntaxPunctuation", "thinkingOff", "thinkingMinimal", "thinkingLow", "thinkingMedium", "thinkingHigh",
  "thinkingXhigh", "bashMode",
];

/** pi 0.73.1's background tokens (ThemeBg). */
const BG_TOKENS = ["selectedBg", "userMessageBg", "customMessageBg", "toolPendingBg", "toolSuccessBg", "toolErrorBg"];

