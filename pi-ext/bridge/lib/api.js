// @ts-check
// What the extension may call in pi: `api/call` methods (pi.* and ctx.*)
// and `ui/call` methods (ctx.ui.*). Lookups go through a Map and a Set, so
// a method name such as "constructor" or "__proto__" finds nothing.

/** @typedef {import("@mariozechner/pi-coding-agent").ExtensionAPI} ExtensionAPI */
/** @typedef {import("@mariozechner/pi-coding-agent").ExtensionContext} ExtensionContext */
/** @typedef {import("@mariozechner/pi-coding-agent").ExtensionCommandContext} ExtensionCommandContext */

/**
 * One `api/call`, as a method of the table sees it.
 * @typedef {object} ApiCall
 * @property {ExtensionAPI} pi
 * @property {() => ExtensionContext} ctx the call's pi context; throws when there is none
 * @property {any[]} args JSON arguments (`null` → `undefined`); pi checks them
 * @property {AbortSignal} signal aborted by the extension's `cancel`
 * @property {(fresh: ExtensionContext) => void} rebind the session was replaced: the call's ctx is `fresh`
 * @property {(channel: string) => void} subscribe
 * @property {(channel: string) => void} unsubscribe
 * @property {(tool: unknown) => void} registerTool
 * @property {(message: unknown, views: unknown) => void} messageViews views the extension rendered for a message it sends
 */

/** @typedef {(call: ApiCall) => unknown} ApiMethod */

/**
 * A command's context, for the methods only commands have.
 * @param {ExtensionContext} ctx
 * @param {string} method
 * @returns {ExtensionCommandContext}
 */
function commandCtx(ctx, method) {
  const c = /** @type {Partial<Record<string, unknown>>} */ (/** @type {unknown} */ (ctx));
  if (typeof c[method] !== "function") throw new Error(`${method} is only available to commands`);
  return /** @type {ExtensionCommandContext} */ (ctx);
}

/** @type {Map<string, ApiMethod>} */
export const API = new Map([
  // pi.* (ExtensionAPI)
  [
    "sendMessage",
    (c) => {
      // The extension's views of the message (terminal UI) are the bridge's, not pi's.
      const { views, ...options } = c.args[1] ?? {};
      if (views) c.messageViews(c.args[0], views);
      return c.pi.sendMessage(c.args[0], options);
    },
  ],
  ["sendUserMessage", (c) => c.pi.sendUserMessage(c.args[0], c.args[1])],
  ["appendEntry", (c) => c.pi.appendEntry(c.args[0], c.args[1])],
  ["getSessionName", (c) => c.pi.getSessionName() ?? null],
  ["setSessionName", (c) => c.pi.setSessionName(c.args[0])],
  ["setLabel", (c) => c.pi.setLabel(c.args[0], c.args[1])],
  ["exec", (c) => c.pi.exec(c.args[0], c.args[1] ?? [], { ...(c.args[2] ?? {}), signal: c.signal })],
  ["getActiveTools", (c) => c.pi.getActiveTools()],
  ["setActiveTools", (c) => c.pi.setActiveTools(c.args[0] ?? [])],
  ["getAllTools", (c) => c.pi.getAllTools().map(({ name, description, parameters }) => ({ name, description, parameters }))],
  ["getCommands", (c) => c.pi.getCommands().map(({ name, description, source }) => ({ name, description, source }))],
  [
    "setModel",
    async (c) => {
      const [provider, modelId] = c.args;
      const model = c.ctx().modelRegistry.find(provider, modelId);
      if (!model) throw new Error(`Model not found: ${provider}/${modelId}`);
      return await c.pi.setModel(model);
    },
  ],
  ["getThinkingLevel", (c) => c.pi.getThinkingLevel()],
  ["setThinkingLevel", (c) => c.pi.setThinkingLevel(c.args[0])],
  ["getFlag", (c) => c.pi.getFlag(c.args[0]) ?? null],
  ["emit", (c) => c.pi.events.emit(String(c.args[0]), c.args[1])],
  ["subscribe", (c) => c.subscribe(String(c.args[0]))],
  ["unsubscribe", (c) => c.unsubscribe(String(c.args[0]))],
  ["registerTool", (c) => c.registerTool(c.args[0] ?? {})],
  // ctx.* (ExtensionContext)
  ["getEntries", (c) => c.ctx().sessionManager.getEntries()],
  ["getBranch", (c) => c.ctx().sessionManager.getBranch(c.args[0])],
  ["getLeafId", (c) => c.ctx().sessionManager.getLeafId() ?? null],
  ["getLabel", (c) => c.ctx().sessionManager.getLabel(c.args[0]) ?? null],
  ["getSessionFile", (c) => c.ctx().sessionManager.getSessionFile() ?? null],
  ["getSessionId", (c) => c.ctx().sessionManager.getSessionId()],
  ["getModel", (c) => c.ctx().model ?? null],
  ["isIdle", (c) => c.ctx().isIdle()],
  ["abort", (c) => c.ctx().abort()],
  ["hasPendingMessages", (c) => c.ctx().hasPendingMessages()],
  ["shutdown", (c) => c.ctx().shutdown()],
  ["getContextUsage", (c) => c.ctx().getContextUsage() ?? null],
  ["compact", (c) => c.ctx().compact({ customInstructions: c.args[0] })],
  ["getSystemPrompt", (c) => c.ctx().getSystemPrompt()],
  // ExtensionCommandContext (commands only)
  ["waitForIdle", (c) => commandCtx(c.ctx(), "waitForIdle").waitForIdle()],
  ["newSession", (c) => commandCtx(c.ctx(), "newSession").newSession({ withSession: async (fresh) => c.rebind(fresh) })],
  ["fork", (c) => commandCtx(c.ctx(), "fork").fork(c.args[0], { withSession: async (fresh) => c.rebind(fresh) })],
  ["navigateTree", (c) => commandCtx(c.ctx(), "navigateTree").navigateTree(c.args[0])],
  [
    "switchSession",
    (c) => commandCtx(c.ctx(), "switchSession").switchSession(c.args[0], { withSession: async (fresh) => c.rebind(fresh) }),
  ],
  ["reload", (c) => commandCtx(c.ctx(), "reload").reload()],
]);

/** `ctx.ui` methods the extension may call with JSON arguments. */
export const UI_CALLS = new Set([
  "notify",
  "setStatus",
  "setWidget",
  "setTitle",
  "setEditorText",
  "pasteToEditor",
  "getEditorText",
  "setWorkingMessage",
  "setWorkingVisible",
  "setWorkingIndicator",
  "setHiddenThinkingLabel",
  "getToolsExpanded",
  "setToolsExpanded",
  "getAllThemes",
  "setTheme",
]);

/**
 * JSON has no `undefined`: a null argument means "not given" (clearing a
 * status or widget, resetting a label).
 * @param {unknown} args
 * @returns {any[]}
 */
export function wireArgs(args) {
  return (Array.isArray(args) ? args : []).map((a) => (a === null ? undefined : a));
}
