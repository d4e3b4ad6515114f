// @ts-check
// The terminal UI's host without the terminal UI (pi-ext built without its
// `tui` feature): `ctx.ui`'s JSON calls with plain text only, and nothing
// to draw.

import { UiCalls } from "../ui-calls.js";

/** @typedef {import("@mariozechner/pi-coding-agent").ExtensionContext} ExtensionContext */

export class TuiHost {
  /** @param {unknown} _o what the real one is built with */
  constructor(_o) {
    /** `ui/call`s, and the statuses and text widgets they set. */
    this.ui = new UiCalls();
  }

  /** @param {unknown} child a process is gone: what it set is cleared */
  retire(child) {
    this.ui.restore(child);
  }

  sessionEnded() {
    this.ui.clear();
  }

  /** @param {ExtensionContext} _ctx @param {unknown} _manifest */
  sessionStarted(_ctx, _manifest) {}

  /** @param {unknown} _tool a tool's renderers: none */
  toolRenderers(_tool) {
    return {};
  }

  /** @param {string} _toolCallId @param {unknown} _views @param {boolean} _isError */
  toolViews(_toolCallId, _views, _isError) {}

  /** @param {string} _method no terminal UI message is served */
  handles(_method) {
    return false;
  }

  /** @param {unknown} _child @param {unknown} _id @param {string} method @param {unknown} _params */
  onMessage(_child, _id, method, _params) {
    throw new Error(`${method}: this extension was built without pi-ext's \`tui\` feature`);
  }

  /** @param {unknown} _message @param {unknown} _views */
  rememberMessageViews(_message, _views) {}

  /**
   * @param {unknown} child
   * @param {ExtensionContext} ctx
   * @param {string} method
   * @param {unknown[]} args
   */
  uiCall(child, ctx, method, args) {
    return this.ui.call(child, ctx, method, args);
  }
}
