// @ts-check
// What the extension may call in pi: `api/call` methods (pi.* and ctx.*)
// and `ui/call` methods (ctx.ui.*). Lookups go through a Map and a Set, so
// a method name such as "constructor" or "__proto__" finds nothing.

import { MODEL_API } from "./api-models.js";
import { needsPi, olderThan } from "./features.js";
import { sanitize } from "./sanitize.js";
import { listSessions, openSession } from "./sessions.js";

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
 * @property {(handle: number, fresh: ExtensionContext) => Promise<unknown>} withSession run the
 *   extension's `withSession` closure kept under `handle`, as a call bound to the new session
 * @property {() => Promise<{ copyToClipboard: (text: string) => Promise<void> } & import("./sessions.js").SessionsModule>} loadPi pi's own module
 * @property {string} mode how pi was started ("interactive", "rpc", "print", "json")
 * @property {string} piVersion the host pi's version ("" when unknown)
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

/**
 * pi's options of a session change, from the extension's: `parentSession`,
 * `position`, and `withSession` (the number of the extension's closure),
 * which runs after the call is rebound to the new session.
 * @param {ApiCall} c
 * @param {unknown} options
 */
function sessionOptions(c, options) {
  const o = /** @type {{ parentSession?: unknown, position?: unknown, withSession?: unknown }} */ (options ?? {});
  /** @type {"before" | "at" | undefined} */
  const position = o.position === "before" || o.position === "at" ? o.position : undefined;
  return {
    ...(typeof o.parentSession === "string" ? { parentSession: o.parentSession } : {}),
    ...(position ? { position } : {}),
    withSession: async (/** @type {ExtensionContext} */ fresh) => {
      c.rebind(fresh);
      if (typeof o.withSession === "number") await c.withSession(o.withSession, fresh);
    },
  };
}

/**
 * `navigateTree`'s options, from the extension's: only pi's four, each of
 * its type (pi rejects `summarize` without a model itself).
 * @param {unknown} options
 */
export function treeOptions(options) {
  const o = /** @type {Record<string, unknown>} */ (options ?? {});
  return {
    ...(typeof o.summarize === "boolean" ? { summarize: o.summarize } : {}),
    ...(typeof o.customInstructions === "string" ? { customInstructions: o.customInstructions } : {}),
    ...(typeof o.replaceInstructions === "boolean" ? { replaceInstructions: o.replaceInstructions } : {}),
    ...(typeof o.label === "string" ? { label: sanitize(o.label, "line") } : {}),
  };
}

/**
 * The call's context when it is a replacement session's (inside
 * `withSession`): its `sendMessage`/`sendUserMessage` are bound to the new
 * session, where the old `pi.*` is stale.
 * @param {ApiCall} c
 * @returns {any}
 */
function replaced(c) {
  try {
    const ctx = /** @type {any} */ (c.ctx());
    return typeof ctx.sendMessage === "function" ? ctx : undefined;
  } catch {
    return undefined;
  }
}

/**
 * `sendUserMessage`'s options. Without a delivery while pi is busy (a run
 * streams, or, on pi ≥ 1.2, starts: inside `before_agent_start`) pi
 * rejects the message in an `extension_error` the caller never sees, so it
 * is queued as a follow-up instead (after the run, as a message sent when
 * idle would come after it). pi ignores the delivery when it does not stream.
 * @param {ApiCall} c
 */
function userMessageOptions(c) {
  const options = c.args[1];
  if (options?.deliverAs !== undefined) return options;
  let idle = true;
  try {
    const ctx = /** @type {any} */ (c.ctx());
    idle = typeof ctx.isIdle !== "function" || ctx.isIdle() !== false;
  } catch {
    // No session: pi answers as it does.
  }
  return idle ? options : { ...(options ?? {}), deliverAs: "followUp" };
}

/**
 * pi's API with its MCP methods (pi ≥ 0.99), or a clear error naming the
 * pi version that has them.
 * @param {ApiCall} c
 * @param {string} method
 * @returns {any}
 */
function mcp(c, method) {
  const pi = /** @type {any} */ (c.pi);
  if (typeof pi[method] !== "function") throw needsPi(c, `pi.${method}`, "0.99.0");
  return pi;
}

/**
 * `sendUserMessage`'s options with `expandPromptTemplates` checked: a pi
 * before 0.84.2 would send a command's text to the model as a plain
 * message, so the message is refused instead.
 * @param {ApiCall} c
 */
function checkedUserMessageOptions(c) {
  const options = userMessageOptions(c);
  if (options?.expandPromptTemplates === true && c.piVersion && olderThan(c.piVersion, "0.84.2")) {
    throw new Error(`${needsPi(c, "sendUserMessage's expandPromptTemplates", "0.84.2").message}: the message was not sent`);
  }
  return options;
}

/**
 * pi's `ctx.executeTool` outcome as JSON: the nested call's id, name and
 * arguments, its result (content, details, structuredContent, isError) and duration.
 * @param {any} outcome
 */
function toolOutcome(outcome) {
  const call = outcome?.toolCall ?? {};
  const result = outcome?.result ?? {};
  return {
    toolCall: { id: String(call.id ?? ""), name: String(call.name ?? ""), arguments: call.arguments ?? {} },
    content: Array.isArray(result.content) ? result.content : [],
    details: result.details ?? null,
    ...(result.structuredContent !== undefined ? { structuredContent: result.structuredContent } : {}),
    isError: outcome?.isError === true,
    ...(result.terminate === true ? { terminate: true } : {}),
    ...(typeof outcome?.durationMs === "number" ? { durationMs: outcome.durationMs } : {}),
  };
}

/**
 * A tool call's context with `executeTool` (pi ≥ 0.99.0, tools only).
 * @param {ApiCall} c
 * @param {string} what
 * @returns {any}
 */
function toolCtx(c, what) {
  const ctx = /** @type {any} */ (c.ctx());
  if (typeof ctx.executeTool === "function") return ctx;
  if (c.piVersion && olderThan(c.piVersion, "0.99.0")) throw needsPi(c, what, "0.99.0");
  throw new Error(`${what} is only available to tools (inside a tool call)`);
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
      return (replaced(c) ?? c.pi).sendMessage(c.args[0], options);
    },
  ],
  ["sendUserMessage", (c) => (replaced(c) ?? c.pi).sendUserMessage(c.args[0], checkedUserMessageOptions(c))],
  ["appendEntry", (c) => c.pi.appendEntry(c.args[0], c.args[1])],
  ["getSessionName", (c) => c.pi.getSessionName() ?? null],
  // pi shows both (the name in its footer and the terminal's title, labels in /tree).
  ["setSessionName", (c) => c.pi.setSessionName(sanitize(c.args[0]))],
  ["setLabel", (c) => c.pi.setLabel(c.args[0], c.args[1] === undefined ? undefined : sanitize(c.args[1]))],
  ["exec", (c) => c.pi.exec(c.args[0], c.args[1] ?? [], { ...(c.args[2] ?? {}), signal: c.signal })],
  ["getActiveTools", (c) => c.pi.getActiveTools()],
  ["setActiveTools", (c) => c.pi.setActiveTools(c.args[0] ?? [])],
  [
    "getAllTools",
    (c) =>
      c.pi.getAllTools().map((/** @type {any} */ { name, description, parameters, sourceInfo, exposure, namespace, annotations, reachesTools }) => ({
        name,
        description,
        parameters,
        sourceInfo,
        // pi ≥ 0.99.0 (reachesTools: whether the tool declares it).
        ...(exposure !== undefined ? { exposure } : {}),
        ...(namespace !== undefined ? { namespace } : {}),
        ...(annotations !== undefined ? { annotations } : {}),
        ...(typeof reachesTools === "function" ? { reachesTools: true } : {}),
      })),
  ],
  [
    "getCommands",
    (c) => c.pi.getCommands().map(({ name, description, source, sourceInfo }) => ({ name, description, source, sourceInfo })),
  ],
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
  [
    "getSettings",
    (c) => {
      const pi = /** @type {any} */ (c.pi);
      if (typeof pi.getSettings !== "function") throw new Error(`pi.getSettings() needs a newer pi (1.6.0 has it); ${c.piVersion ? `this pi is ${c.piVersion}` : "this pi does not have it"}`);
      return pi.getSettings();
    },
  ],
  ["emit", (c) => c.pi.events.emit(String(c.args[0]), c.args[1])],
  ["subscribe", (c) => c.subscribe(String(c.args[0]))],
  [
    "copyToClipboard",
    async (c) => {
      // pi's copyToClipboard may write an OSC 52 sequence to pi's stdout,
      // which in RPC, print and json mode is pi's output stream.
      if (c.mode !== "interactive") {
        throw new Error(`copying to the clipboard needs pi's terminal UI (pi runs in ${c.mode} mode)`);
      }
      await (await c.loadPi()).copyToClipboard(String(c.args[0] ?? ""));
    },
  ],
  ["unsubscribe", (c) => c.unsubscribe(String(c.args[0]))],
  ["registerTool", (c) => c.registerTool(c.args[0] ?? {})],
  // pi ≥ 0.99: MCP servers (pi checks the configuration and throws its reason).
  ["registerMcpServer", (c) => mcp(c, "registerMcpServer").registerMcpServer(String(c.args[0]), c.args[1] ?? {})],
  ["unregisterMcpServer", (c) => mcp(c, "unregisterMcpServer").unregisterMcpServer(String(c.args[0]))],
  ["getMcpServers", (c) => mcp(c, "getMcpServers").getMcpServers()],
  // ctx.* (ExtensionContext)
  ["getEntries", (c) => c.ctx().sessionManager.getEntries()],
  ["getBranch", (c) => c.ctx().sessionManager.getBranch(c.args[0])],
  ["getLeafId", (c) => c.ctx().sessionManager.getLeafId() ?? null],
  ["getLabel", (c) => c.ctx().sessionManager.getLabel(c.args[0]) ?? null],
  ["getSessionFile", (c) => c.ctx().sessionManager.getSessionFile() ?? null],
  ["getSessionId", (c) => c.ctx().sessionManager.getSessionId()],
  ["getSessionHeader", (c) => c.ctx().sessionManager.getHeader() ?? null],
  // Other sessions (pi's SessionManager statics; sessions.js).
  ["listSessions", async (c) => listSessions(await c.loadPi(), c.ctx().sessionManager, c.args[0] === true, c.signal)],
  ["openSession", async (c) => openSession(await c.loadPi(), c.args[0])],
  ["getModel", (c) => c.ctx().model ?? null],
  ["isIdle", (c) => c.ctx().isIdle()],
  ["abort", (c) => c.ctx().abort()],
  ["hasPendingMessages", (c) => c.ctx().hasPendingMessages()],
  ["shutdown", (c) => c.ctx().shutdown()],
  ["getContextUsage", (c) => c.ctx().getContextUsage() ?? null],
  ["compact", (c) => c.ctx().compact({ customInstructions: c.args[0] })],
  // pi always ends a compaction with exactly one of its callbacks.
  [
    "compactAndWait",
    (c) =>
      new Promise((resolve, reject) =>
        c.ctx().compact({ customInstructions: c.args[0], onComplete: resolve, onError: reject }),
      ),
  ],
  ["getSystemPrompt", (c) => c.ctx().getSystemPrompt()],
  ["getCtxThinkingLevel", (c) => /** @type {any} */ (c.ctx()).thinkingLevel ?? null],
  [
    "isProjectTrusted",
    (c) => {
      const ctx = /** @type {any} */ (c.ctx());
      if (typeof ctx.isProjectTrusted !== "function") throw needsPi(c, "ctx.isProjectTrusted()", "0.79.1");
      return ctx.isProjectTrusted();
    },
  ],
  // ExtensionToolContext (tools only)
  [
    "getTools",
    (c) =>
      (toolCtx(c, "ctx.tools").tools ?? []).map((/** @type {any} */ { name, label, description, parameters }) => ({
        name,
        label,
        description,
        parameters,
      })),
  ],
  [
    "executeTool",
    async (c) => {
      const ctx = toolCtx(c, "ctx.executeTool()");
      return toolOutcome(await ctx.executeTool(String(c.args[0] ?? ""), c.args[1] ?? {}, { signal: c.signal }));
    },
  ],
  // ExtensionCommandContext (commands only)
  [
    "getSystemPromptOptions",
    (c) => {
      const ctx = /** @type {any} */ (c.ctx());
      if (typeof ctx.getSystemPromptOptions !== "function" && c.piVersion && olderThan(c.piVersion, "0.78.1")) {
        throw needsPi(c, "ctx.getSystemPromptOptions()", "0.78.1");
      }
      return /** @type {any} */ (commandCtx(ctx, "getSystemPromptOptions")).getSystemPromptOptions();
    },
  ],
  ["waitForIdle", (c) => commandCtx(c.ctx(), "waitForIdle").waitForIdle()],
  ["newSession", (c) => commandCtx(c.ctx(), "newSession").newSession(sessionOptions(c, c.args[0]))],
  ["fork", (c) => commandCtx(c.ctx(), "fork").fork(c.args[0], sessionOptions(c, c.args[1]))],
  ["navigateTree", (c) => commandCtx(c.ctx(), "navigateTree").navigateTree(c.args[0], treeOptions(c.args[1]))],
  [
    "switchSession",
    (c) => commandCtx(c.ctx(), "switchSession").switchSession(c.args[0], sessionOptions(c, c.args[1])),
  ],
  ["reload", (c) => commandCtx(c.ctx(), "reload").reload()],
  ...MODEL_API,
]);

/** `ctx.ui` methods the extension may call with JSON arguments, and the bridge's own `notifyTerminal` (terminal-notify.js) and `runOnTerminal` (terminal-handover.js). */
export const UI_CALLS = new Set([
  "notify",
  "notifyTerminal",
  "runOnTerminal",
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
