// @ts-check
// Dialogs the extension asks for (`ui/dialog`): queued one at a time in pi's
// terminal, timed by the bridge itself, dismissed when their call, process or
// session goes away.

import { sanitize } from "./sanitize.js";
import { messageOf } from "./protocol.js";

/** @typedef {import("@mariozechner/pi-coding-agent").ExtensionUIContext} ExtensionUIContext */
/** @typedef {import("./child.js").ChildConnection} ChildConnection */
/** @typedef {typeof import("@mariozechner/pi-coding-agent")} PiModule */

/**
 * @typedef {{ outcome: "value", value: string | boolean } | { outcome: "cancelled" } | { outcome: "timeout" }} DialogOutcome
 */

/**
 * `ui/dialog` params (PROTOCOL.md).
 * @typedef {object} DialogParams
 * @property {unknown} method "select" | "confirm" | "input" | "editor" | "loader"
 * @property {unknown} [title]
 * @property {unknown} [options] select
 * @property {unknown} [initial] select: the index selected at first
 * @property {unknown} [message] confirm
 * @property {unknown} [placeholder] input
 * @property {unknown} [prefill] input, editor
 * @property {unknown} [timeout] ms from when it is shown
 */

/** Where dialogs wait for their turn. */
/** @typedef {{ add(show: () => Promise<void>): () => boolean }} Queue */

/**
 * One dialog at a time: pi's terminal shows only the newest dialog and
 * leaves an earlier one waiting for ever. Every pi-ext bridge in the pi
 * process shares one (see `sharedDialogQueue`).
 * @implements {Queue}
 */
export class DialogQueue {
  constructor() {
    /** @type {Array<() => Promise<void>>} */
    this.waiting = [];
    this.busy = false;
  }

  /**
   * Show a dialog when its turn comes: `show` resolves when it closed.
   * @param {() => Promise<void>} show
   * @returns {() => boolean} removes it if it has not been shown yet (true)
   */
  add(show) {
    this.waiting.push(show);
    this.next();
    return () => {
      const i = this.waiting.indexOf(show);
      if (i === -1) return false;
      this.waiting.splice(i, 1);
      return true;
    };
  }

  /** @private */
  next() {
    if (this.busy) return;
    const show = this.waiting.shift();
    if (!show) return;
    this.busy = true;
    const done = () => {
      this.busy = false;
      this.next();
    };
    show().then(done, done);
  }
}

/**
 * Every dialog at once: RPC mode (the client tells dialogs apart by id).
 * @type {Queue}
 */
export const NO_QUEUE = {
  add(show) {
    void show();
    return () => false;
  },
};

/** The queue of this pi process, shared by every pi-ext bridge in it. */
export function sharedDialogQueue() {
  const key = Symbol.for("pi-ext.dialog-queue.v1");
  const global = /** @type {Record<symbol, Queue | undefined>} */ (/** @type {unknown} */ (globalThis));
  return (global[key] ??= new DialogQueue());
}

/**
 * @typedef {object} Entry
 * @property {ChildConnection} child
 * @property {number} id the extension's request id
 * @property {number | null} call the bridge's request id the dialog belongs to
 * @property {"queued" | "shown" | "closed"} state
 * @property {AbortController} dismiss aborts a shown dialog
 * @property {() => boolean} unqueue
 * @property {(outcome: DialogOutcome) => void} close
 */

/**
 * @typedef {object} DialogsOptions
 * @property {Queue} queue
 * @property {import("./clock.js").Clock} clock
 * @property {boolean} interactive pi's terminal UI: pi's own dialog components can be used
 *   for what its `ctx.ui` methods cannot do (an initial selection, a prefilled input)
 * @property {() => Promise<PiModule>} loadPi
 * @property {(child: ChildConnection, call: number | null, delta: 1 | -1) => void} onCount
 *   a dialog of `call` opened (queued) or closed
 * @property {import("./log.js").Log} log
 */

export class Dialogs {
  /** @param {DialogsOptions} o */
  constructor(o) {
    this.o = o;
    /** @type {Set<Entry>} dialogs queued or shown */
    this.open = new Set();
  }

  /**
   * Show a dialog in its turn and resolve to what happened.
   * @param {{ child: ChildConnection, id: number, call: number | null, params: DialogParams, ui: ExtensionUIContext }} request
   * @returns {Promise<DialogOutcome>}
   */
  show({ child, id, call, params, ui }) {
    return new Promise((resolve, reject) => {
      /** @type {Entry} */
      const entry = {
        child,
        id,
        call,
        state: "queued",
        dismiss: new AbortController(),
        unqueue: () => false,
        close: (outcome) => finish(() => resolve(outcome)),
      };
      /** @param {() => void} settle */
      const finish = (settle) => {
        if (entry.state === "closed") return;
        entry.state = "closed";
        this.open.delete(entry);
        this.o.onCount(child, call, -1);
        settle();
      };
      this.open.add(entry);
      this.o.onCount(child, call, 1);
      entry.unqueue = this.o.queue.add(async () => {
        if (entry.state !== "queued") return;
        entry.state = "shown";
        try {
          entry.close(await present(ui, params, entry.dismiss.signal, this.o));
        } catch (err) {
          finish(() => reject(err));
        }
      });
    });
  }

  /**
   * Dismiss one dialog: a queued one leaves the queue, a shown one closes;
   * it answers "cancelled".
   * @param {Entry} entry
   * @private
   */
  dismissEntry(entry) {
    if (entry.state === "queued" && entry.unqueue()) entry.close({ outcome: "cancelled" });
    else entry.dismiss.abort();
  }

  /**
   * The extension cancelled its request `id`. False if it is no dialog.
   * @param {ChildConnection} child
   * @param {number} id
   */
  cancel(child, id) {
    for (const entry of this.open) {
      if (entry.child === child && entry.id === id) {
        this.dismissEntry(entry);
        return true;
      }
    }
    return false;
  }

  /**
   * Dismiss the dialogs of one call (it was aborted or timed out), or of a
   * whole process (`call` undefined: it died or was replaced).
   * @param {ChildConnection} child
   * @param {number} [call]
   */
  dismiss(child, call) {
    for (const entry of [...this.open]) {
      if (entry.child === child && (call === undefined || entry.call === call)) this.dismissEntry(entry);
    }
  }
}

/**
 * @param {unknown} v
 * @returns {number | undefined}
 */
function positiveInt(v) {
  return typeof v === "number" && Number.isFinite(v) && v > 0 ? Math.floor(v) : undefined;
}

/**
 * Show one dialog now; resolve to its outcome. The bridge runs the timeout
 * itself (and passes it to pi too, for pi's countdown): "timeout" means its
 * timer fired, or the deadline had passed when the dialog closed unanswered;
 * a dialog dismissed before its deadline is "cancelled", however close to it.
 * @param {ExtensionUIContext} ui
 * @param {DialogParams} p
 * @param {AbortSignal} dismissed
 * @param {DialogsOptions} o
 * @returns {Promise<DialogOutcome>}
 */
export async function present(ui, p, dismissed, o) {
  const timeout = positiveInt(p.timeout);
  const own = new AbortController();
  let expired = false;
  const shownAt = o.clock.now();
  const timer =
    timeout === undefined
      ? undefined
      : o.clock.setTimeout(() => {
          expired = true;
          own.abort();
        }, timeout);
  const forward = () => own.abort();
  dismissed.addEventListener("abort", forward, { once: true });
  if (dismissed.aborted) own.abort();
  /** @type {unknown} */
  let value;
  try {
    value = await ask(ui, p, { signal: own.signal, ...(timeout === undefined ? {} : { timeout }) }, o);
  } finally {
    o.clock.clearTimeout(timer);
    dismissed.removeEventListener("abort", forward);
  }
  // pi resolves a dialog that closed unanswered to undefined (false for confirm).
  if (p.method === "confirm" ? value === true : value !== undefined && value !== null) {
    return { outcome: "value", value: p.method === "confirm" ? true : String(value) };
  }
  if (dismissed.aborted) return { outcome: "cancelled" };
  if (expired || (timeout !== undefined && o.clock.now() - shownAt >= timeout)) return { outcome: "timeout" };
  if (p.method === "confirm") return { outcome: "value", value: false };
  return { outcome: "cancelled" };
}

/**
 * @param {ExtensionUIContext} ui
 * @param {DialogParams} p
 * @param {{ signal: AbortSignal, timeout?: number }} opts
 * @param {DialogsOptions} o
 * @returns {Promise<unknown>}
 */
async function ask(ui, p, opts, o) {
  // Everything shown is sanitized; a title, like a message, may have several lines.
  const title = sanitize(p.title ?? "", p.method === "loader" ? "line" : "lines");
  switch (p.method) {
    case "select": {
      const options = Array.isArray(p.options) ? p.options.map(String) : [];
      const shown = options.map((option) => sanitize(option));
      // pi answers with the option shown; the extension gets its own back.
      const own = (/** @type {unknown} */ answer) => {
        const i = typeof answer === "string" ? shown.indexOf(answer) : -1;
        return i === -1 ? answer : options[i];
      };
      const initial = positiveInt(p.initial);
      if (o.interactive && initial !== undefined && initial < options.length) {
        const pi = await components(o);
        if (pi) {
          return own(
            await custom(ui, opts.signal, (tui, _keys, done) => {
              const c = new pi.ExtensionSelectorComponent(title, shown, done, () => done(undefined), { tui, timeout: opts.timeout });
              // "j" moves the selection down in pi's selector whatever the key bindings.
              for (let i = 0; i < initial; i++) c.handleInput("j");
              return c;
            }),
          );
        }
      }
      return own(await ui.select(title, shown, opts));
    }
    case "confirm":
      return ui.confirm(title, sanitize(p.message ?? "", "lines"), opts);
    case "input": {
      const placeholder = typeof p.placeholder === "string" ? sanitize(p.placeholder) : undefined;
      // Sanitized: an ESC in it would end the paste and type the rest as keys.
      const prefill = typeof p.prefill === "string" ? sanitize(p.prefill, "text") : "";
      if (o.interactive && prefill !== "") {
        const pi = await components(o);
        if (pi) {
          return custom(ui, opts.signal, (tui, _keys, done) => {
            const c = new pi.ExtensionInputComponent(title, placeholder, done, () => done(undefined), { tui, timeout: opts.timeout });
            // A bracketed paste: how pi's own pasteToEditor puts text in.
            c.handleInput(`\x1b[200~${prefill}\x1b[201~`);
            return c;
          });
        }
      }
      return ui.input(title, placeholder, opts);
    }
    case "loader": {
      // pi's BorderedLoader (a spinner, "esc cancel") while the extension
      // works; Escape answers "cancel". Elsewhere: a select with one option.
      if (o.interactive) {
        const pi = await components(o);
        if (pi) {
          return custom(ui, opts.signal, (tui, _keys, done, theme) => {
            const loader = new pi.BorderedLoader(tui, theme, title);
            loader.onAbort = () => done("cancel");
            return loader;
          });
        }
      }
      return ui.select(title, ["Cancel"], opts);
    }
    case "editor": {
      const prefill = typeof p.prefill === "string" ? sanitize(p.prefill, "text") : undefined;
      if (o.interactive) {
        // pi's own editor dialog, shown so that it can be dismissed
        // (ctx.ui.editor takes no AbortSignal in pi 0.73.1).
        const pi = await components(o);
        if (pi) {
          return custom(ui, opts.signal, (tui, keys, done) =>
            new pi.ExtensionEditorComponent(tui, keys, title, prefill, done, () => done(undefined)),
          );
        }
      }
      // Elsewhere (RPC) it cannot be dismissed: stop waiting for it at least.
      return Promise.race([ui.editor(title, prefill), aborted(opts.signal)]);
    }
    default:
      throw new TypeError(`unknown dialog ${JSON.stringify(p.method)}`);
  }
}

/**
 * pi's dialog components (its own module, loaded once it is needed).
 * @param {DialogsOptions} o
 * @returns {Promise<PiModule | undefined>}
 */
async function components(o) {
  try {
    return await o.loadPi();
  } catch (err) {
    o.log.line("warn", `pi's dialog components are not available (${messageOf(err)}): showing a plain dialog`);
    return undefined;
  }
}

/**
 * A component of ours in the place of pi's dialog, closed by `signal` too.
 * @param {ExtensionUIContext} ui
 * @param {AbortSignal} signal
 * @param {(tui: import("@mariozechner/pi-tui").TUI, keys: import("@mariozechner/pi-coding-agent").KeybindingsManager, done: (value: string | undefined) => void, theme: import("@mariozechner/pi-coding-agent").Theme) => import("@mariozechner/pi-tui").Component} build
 * @returns {Promise<string | undefined>}
 */
function custom(ui, signal, build) {
  if (signal.aborted) return Promise.resolve(undefined);
  return ui.custom((tui, theme, keys, done) => {
    const onAbort = () => done(undefined);
    signal.addEventListener("abort", onAbort, { once: true });
    return build(
      tui,
      keys,
      (value) => {
        signal.removeEventListener("abort", onAbort);
        done(value);
      },
      theme,
    );
  });
}

/**
 * Resolves to undefined when `signal` aborts.
 * @param {AbortSignal} signal
 * @returns {Promise<undefined>}
 */
function aborted(signal) {
  return new Promise((resolve) => {
    if (signal.aborted) resolve(undefined);
    else signal.addEventListener("abort", () => resolve(undefined), { once: true });
  });
}
