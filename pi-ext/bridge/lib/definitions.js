// @ts-check
// What pi is given for a manifest's tool, command and flag. The bridge
// (lib/main.js, lib/bridge.js) and an extension registered before its bridge
// loads (lib/deferred.js, in entry.cjs) give pi the same definitions.

import { messageOf } from "./protocol.js";

/** @typedef {import("@mariozechner/pi-coding-agent").ExtensionAPI} PiApi */
/** @typedef {import("@mariozechner/pi-coding-agent").ExtensionContext} PiContext */
/** @typedef {import("./manifest.js").ToolManifest} ToolManifest */
/** @typedef {import("./manifest.js").CommandManifest} CommandManifest */
/** @typedef {import("./manifest.js").FlagManifest} FlagManifest */

/**
 * A tool's definition without what only the bridge adds (renderers, the
 * fields of newer pis, `prepareArguments`).
 * @param {ToolManifest} tool
 * @param {(toolCallId: string, params: any, signal: AbortSignal | undefined, onUpdate: any, ctx: any) => Promise<any>} execute
 */
export function toolDefinition(tool, execute) {
  return {
    name: tool.name,
    label: tool.label ?? tool.name,
    description: tool.description ?? "",
    parameters: tool.parameters,
    ...(tool.promptSnippet ? { promptSnippet: tool.promptSnippet } : {}),
    ...(tool.promptGuidelines?.length ? { promptGuidelines: tool.promptGuidelines } : {}),
    ...(tool.executionMode === "sequential" ? { executionMode: /** @type {const} */ ("sequential") } : {}),
    execute,
  };
}

/**
 * What a command and its shortcut run.
 * @typedef {object} CommandCalls
 * @property {(name: string, args: string, ctx: PiContext) => Promise<void>} run
 * @property {(name: string, prefix: string) => Promise<{ value: string, label: string, description?: string }[] | null>} complete
 * @property {(message: string) => void} warn a shortcut's failure, for the log
 */

/**
 * Registers `command` with pi: the command, its shortcut, or both
 * (`#[shortcut]` registers the key alone; the name is what the bridge runs it by).
 * @param {PiApi} pi
 * @param {CommandManifest} command
 * @param {CommandCalls} calls
 */
export function registerCommand(pi, command, calls) {
  const completions = command.completions ?? [];
  if (!command.shortcutOnly) {
    pi.registerCommand(command.name, {
      description: command.description,
      ...(command.dynamicCompletions
        ? { getArgumentCompletions: (/** @type {string} */ prefix) => calls.complete(command.name, prefix ?? "") }
        : completions.length
          ? {
              getArgumentCompletions: (/** @type {string} */ prefix) =>
                completions.filter((c) => c.startsWith(prefix ?? "")).map((c) => ({ value: c, label: c })),
            }
          : {}),
      handler: (args, ctx) => calls.run(command.name, args, ctx),
    });
  }
  if (command.shortcut) {
    // Terminal UI only: pi ignores shortcuts in RPC and print mode.
    pi.registerShortcut(/** @type {import("@mariozechner/pi-tui").KeyId} */ (command.shortcut), {
      description: command.description,
      handler: (ctx) =>
        calls.run(command.name, "", /** @type {PiContext} */ (ctx)).catch((err) => {
          const why = messageOf(err);
          calls.warn(`shortcut ${command.shortcut}: ${why}`);
          const what = command.shortcutOnly ? command.shortcut : `/${command.name}`;
          ctx?.ui?.notify?.(`${what} failed: ${why}`, "error");
        }),
    });
  }
}

/**
 * A flag's options as pi takes them (pi 1.x types them as a union on
 * `type`; the manifest pairs type and default already).
 * @param {FlagManifest} flag
 */
export function flagOptions(flag) {
  return /** @type {Parameters<PiApi["registerFlag"]>[1]} */ ({
    description: flag.description,
    type: flag.type,
    ...(flag.default !== undefined ? { default: flag.default } : {}),
  });
}
