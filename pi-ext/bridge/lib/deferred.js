// @ts-check
// An extension that only answers pi (`onDemand`: tools, commands and flags;
// no hook, renderer, provider or on_load) registered from the manifest
// `install` recorded, without loading a bridge: pi's startup pays for its
// definitions only, as for a TypeScript extension. The bridge (bridge.cjs,
// or one another extension loaded) is loaded at the first call and runs
// every call from then on; until then nothing of the extension runs.
// entry.cjs inlines this module (entry.js).

import { resolve } from "node:path";

import { flagOptions, registerCommand, toolDefinition } from "./definitions.js";
import { cachedManifest } from "./manifest.js";

/** @typedef {import("@mariozechner/pi-coding-agent").ExtensionAPI} DeferredPi */
/** @typedef {import("./manifest.js").Manifest} DeferredManifest */
/** @typedef {import("./shared.js").Attached} Attached */

/**
 * The fields of a tool's manifest that {@link toolDefinition} gives pi as
 * they are (and `timeoutMs`, the bridge's). A tool with any other (a field
 * of a newer pi, `prepareArguments`) is registered by the bridge, which
 * tells the user what their pi ignores.
 */
const PLAIN_TOOL_FIELDS = new Set(["name", "label", "description", "parameters", "promptSnippet", "promptGuidelines", "executionMode", "timeoutMs"]);

/** Parts of a manifest only the bridge registers; `onDemand` rules all of them out but built-in tools. */
const BRIDGE_PARTS = ["hooks", "builtinTools", "messageRenderers", "entryRenderers", "toolRenderers", "markdownTransformer", "providers", "virtualModels", "problems"];

/**
 * The recorded manifest, sanitized, if the extension can be registered
 * without its bridge: `onDemand`, this protocol, not in dev mode, nothing
 * but plain tools, commands and flags, and the binary still the one
 * `install` recorded it from. A package with a binary per platform finds
 * it through npm's packages (lib/platform.js): the bridge does that.
 * @param {import("./manifest.js").Config} config
 * @param {string} here index.js's directory
 * @param {number} protocol
 * @param {NodeJS.ProcessEnv} env
 * @returns {DeferredManifest | undefined}
 */
export function deferredManifest(config, here, protocol, env) {
  const m = config?.cache?.manifest;
  if (!m || m.onDemand !== true || m.protocol !== protocol) return undefined;
  if (config.dev === true || env.PI_EXT_DEV === "1" || config.platforms || typeof config.binary !== "string") return undefined;
  const record = /** @type {Record<string, unknown>} */ (/** @type {unknown} */ (m));
  if (BRIDGE_PARTS.some((part) => Array.isArray(record[part]) ? record[part].length > 0 : record[part] != null)) return undefined;
  const lists = [m.tools, m.commands, m.flags];
  if (!lists.every((l) => l === undefined || Array.isArray(l))) return undefined;
  if (!(m.tools ?? []).every((t) => t !== null && typeof t === "object" && Object.keys(t).every((k) => PLAIN_TOOL_FIELDS.has(k)))) return undefined;
  // A changed or missing binary: the bridge logs it, or says so at session start.
  return cachedManifest(config, resolve(here, config.binary));
}

/**
 * Registers `manifest`'s tools, commands and flags with pi; `load` gives
 * the bridge their calls run on, at the first call (again after a failed
 * load). pi's session_start is replayed to it for the session under way.
 * Never throws: what pi refuses is told at session start.
 * @param {DeferredPi} pi
 * @param {DeferredManifest} manifest
 * @param {() => Promise<Attached>} load
 */
export function registerDeferred(pi, manifest, load) {
  const label = `pi-ext extension "${String(manifest.name ?? "")}"`;
  /** @type {Attached | undefined} */
  let attached;
  /** @type {Promise<Attached> | undefined} */
  let loading;
  /** @type {{ event: unknown, ctx: any } | undefined} the session under way */
  let session;
  const ready = () => {
    if (attached) return Promise.resolve(attached);
    loading ??= load().then(
      (a) => {
        attached = a;
        try {
          if (session) a.sessionStarted(session.event, session.ctx);
        } catch {
          // The call goes on; the bridge logs its own problems.
        }
        return a;
      },
      (err) => {
        loading = undefined;
        throw err;
      },
    );
    return loading;
  };
  /** @type {string[]} what pi refused, shown at the next session start */
  const problems = [];
  /**
   * @param {string} what
   * @param {() => void} register
   */
  const attempt = (what, register) => {
    try {
      register();
    } catch (err) {
      problems.push(`${label}: could not register ${what}: ${err instanceof Error ? err.message : String(err)}`);
    }
  };
  attempt("its session handlers", () => {
    pi.on("session_start", (event, ctx) => {
      session = { event, ctx };
      for (const p of problems.splice(0)) {
        try {
          ctx.ui.notify(p, "error");
        } catch {
          // Showing a problem must never become one.
        }
      }
      attached?.sessionStarted(event, ctx);
    });
    pi.on("session_shutdown", () => {
      session = undefined;
      attached?.stop();
    });
  });
  for (const tool of manifest.tools ?? []) {
    attempt(`tool ${tool.name}`, () =>
      pi.registerTool(
        toolDefinition(tool, async (toolCallId, params, signal, onUpdate, ctx) =>
          (await ready()).callTool(tool.name, toolCallId, params, signal, onUpdate, ctx),
        ),
      ),
    );
  }
  /** @type {import("./definitions.js").CommandCalls} */
  const calls = {
    run: async (name, args, ctx) => (await ready()).callCommand(name, args, ctx),
    // No list when the bridge cannot load (the bridge's own answer when the extension cannot).
    complete: (name, prefix) => ready().then((a) => a.completeCommand(name, prefix), () => null),
    // The shortcut's notice tells the user; the log is the bridge's, not loaded.
    warn: () => {},
  };
  for (const command of manifest.commands ?? []) {
    attempt(command.shortcutOnly ? `shortcut ${command.shortcut}` : `command /${command.name}`, () => registerCommand(pi, command, calls));
  }
  for (const flag of manifest.flags ?? []) attempt(`flag --${flag.name}`, () => pi.registerFlag(flag.name, flagOptions(flag)));
}
