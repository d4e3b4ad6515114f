// @ts-check
// A custom component's overlay handles (PROTOCOL.md, "Overlay handles"):
// its own overlay's pi-tui `OverlayHandle` (from `onHandle`) and the child
// overlays it opens with `tui.showOverlay`, driven by the extension's ops
// (`hidden`, `focus`, `unfocus`, `open`, `close`) in the order it sent them.

import { messageOf } from "./protocol.js";

/** Most child overlays one component has open (the runtime enforces it too). */
export const MAX_CHILD_OVERLAYS = 16;

/** Most ops one message carries; the rest are dropped (logged). */
export const MAX_OPS = 256;

/**
 * A child overlay: what pi-tui shows, and its handle.
 * @typedef {object} ChildOverlay
 * @property {number} id the extension's id for it
 * @property {any} component the object pi-tui renders
 * @property {any} handle pi-tui's OverlayHandle
 */

/**
 * What the component's overlays need of the TUI host.
 * @typedef {object} OverlayDeps
 * @property {() => any} tui pi's TUI, once pi called the factory (undefined before)
 * @property {(id: number, options: any) => any} makeChild the object pi-tui shows for child `id`
 * @property {(o: any) => any} overlayOptions pi-tui's OverlayOptions from the wire's
 * @property {(message: string) => void} warn
 */

export class ComponentOverlays {
  /** @param {OverlayDeps} deps */
  constructor(deps) {
    this.deps = deps;
    /** @type {Map<number, ChildOverlay>} */
    this.children = new Map();
    /** @type {any} the component's own OverlayHandle (pi's `onHandle`) */
    this.handle = undefined;
    /** @type {any[]} own ops sent before pi showed the overlay */
    this.ownPending = [];
    /** @type {any[]} ops sent before pi's TUI was known */
    this.pending = [];
    this.closed = false;
  }

  /**
   * pi showed the component's overlay: apply what waited for it.
   * @param {any} handle
   */
  setHandle(handle) {
    if (this.closed) return;
    this.handle = handle;
    const ops = this.ownPending;
    this.ownPending = [];
    for (const op of ops) this.own(op);
  }

  /**
   * Apply the extension's ops in order (bad ones are skipped and logged).
   * @param {unknown} ops
   */
  apply(ops) {
    if (this.closed || !Array.isArray(ops)) return;
    if (ops.length > MAX_OPS) this.deps.warn(`overlay: ${ops.length - MAX_OPS} ops past ${MAX_OPS} dropped`);
    for (const op of ops.slice(0, MAX_OPS)) {
      if (!this.deps.tui()) {
        this.pending.push(op);
        continue;
      }
      try {
        this.one(op);
      } catch (err) {
        this.deps.warn(`overlay op ${safeJson(op)}: ${messageOf(err)}`);
      }
    }
  }

  /** pi's TUI is known now: apply what waited for it. */
  flush() {
    const ops = this.pending;
    this.pending = [];
    this.apply(ops);
  }

  /** @param {any} op */
  one(op) {
    if (!op || typeof op !== "object") return this.deps.warn(`overlay: not an op: ${safeJson(op)}`);
    const kind = op.op;
    if (op.child === undefined) {
      if (kind === "hidden" || kind === "focus" || kind === "unfocus") {
        if (this.handle) this.own(op);
        else this.ownPending.push(op);
        return;
      }
      return this.deps.warn(`overlay: unknown op ${safeJson(op)}`);
    }
    const id = op.child;
    if (!Number.isSafeInteger(id) || id <= 0) return this.deps.warn(`overlay: bad child id ${safeJson(id)}`);
    if (kind === "open") return this.open(id, op.overlay);
    const child = this.children.get(id);
    if (!child) return; // closed already: a late op does nothing
    switch (kind) {
      case "close":
        this.children.delete(id);
        return hideChild(child);
      case "hidden":
        return child.handle.setHidden(op.hidden === true);
      case "focus":
        return child.handle.focus();
      case "unfocus":
        return child.handle.unfocus();
      default:
        return this.deps.warn(`overlay: unknown op ${safeJson(op)}`);
    }
  }

  /** @param {any} op an own op */
  own(op) {
    const h = this.handle;
    if (op.op === "hidden") h.setHidden(op.hidden === true);
    else if (op.op === "focus") h.focus();
    else if (op.op === "unfocus") h.unfocus();
  }

  /**
   * @param {number} id
   * @param {unknown} overlay the wire's overlay options
   */
  open(id, overlay) {
    if (this.children.has(id)) return this.deps.warn(`overlay: child ${id} is open already`);
    if (this.children.size >= MAX_CHILD_OVERLAYS) {
      return this.deps.warn(`overlay: child ${id} not opened: at most ${MAX_CHILD_OVERLAYS} are open at once`);
    }
    const options = overlay && typeof overlay === "object" ? this.deps.overlayOptions(overlay) : {};
    const component = this.deps.makeChild(id, options);
    const handle = this.deps.tui().showOverlay(component, options);
    this.children.set(id, { id, component, handle });
  }

  /**
   * Whether child `id` is open.
   * @param {number} id
   */
  child(id) {
    return this.children.get(id);
  }

  /** The component closed: its children close, later ops do nothing. */
  closeAll() {
    this.closed = true;
    this.pending = [];
    this.ownPending = [];
    for (const child of this.children.values()) {
      try {
        hideChild(child);
      } catch (err) {
        this.deps.warn(`overlay: closing child ${child.id}: ${messageOf(err)}`);
      }
    }
    this.children.clear();
  }
}

/**
 * A child overlay closed: its controls stop (a loader's timer), pi-tui hides it.
 * @param {ChildOverlay} child
 */
function hideChild(child) {
  child.component.dispose?.();
  child.handle.hide();
}

/** @param {unknown} v */
function safeJson(v) {
  try {
    return String(JSON.stringify(v)).slice(0, 200);
  } catch {
    return "?";
  }
}
