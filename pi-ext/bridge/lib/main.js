// @ts-check
// The bridge's factory: what pi runs when it loads index.js. It registers
// the extension's tools, flags, hooks and commands, starts the process (at
// once, or at session_start when `install` recorded the manifest), and in
// dev mode follows a rebuilt binary.
//
// Rules the bridge keeps:
// - pi must never exit or hang because of the extension: the factory never
//   throws, every handler catches, every wait has an end.
// - stdout of the child is the protocol, split on "\n" only; its stderr goes
//   to a log file.

import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";

import { Bridge } from "./bridge.js";
import { launchProcess } from "./child.js";
import { systemClock } from "./clock.js";
import { NO_QUEUE, sharedDialogQueue } from "./dialogs.js";
import { Log } from "./log.js";
import { EVENT_SINCE, missingApi, missingEvents, olderThan, versionNotice } from "./features.js";
import { Registrations } from "./tui-registrations.js";
import { cachedManifest, detectMode, detectPiDir, detectPiVersion, piCommand } from "./manifest.js";
import { limitsFrom } from "./options.js";
import { builtinClash, providerConfig } from "./provider.js";
import { virtualModelDefinition } from "./virtual-models.js";
import { builtinToolDefinition } from "./builtin-tools.js";
import { locateBinary } from "./platform.js";
import { messageOf } from "./protocol.js";
import { flagOptions, registerCommand } from "./definitions.js";
import { sanitizeManifest } from "./manifest-text.js";

/** @typedef {import("@mariozechner/pi-coding-agent").ExtensionAPI} ExtensionAPI */
/** @typedef {import("@mariozechner/pi-coding-agent").ExtensionContext} ExtensionContext */
/** @typedef {import("./manifest.js").Manifest} Manifest */
/** @typedef {import("./manifest.js").HookManifest} HookManifest */

/**
 * @typedef {object} ActivateOptions
 * @property {import("./manifest.js").Config} config the CONFIG `install` wrote
 * @property {number} protocol the protocol version this bridge speaks
 * @property {string} here index.js's directory: relative paths in `config` start there
 * @property {NodeJS.ProcessEnv} [env]
 * @property {readonly string[]} [argv] pi's command line
 * @property {string} [execPath] the runtime running pi (default: `process.execPath`)
 * @property {boolean} [stdinIsTTY]
 * @property {import("./clock.js").Clock} [clock]
 * @property {import("./child.js").Launcher} [launch]
 * @property {import("./dialogs.js").Queue} [dialogQueue]
 * @property {() => Promise<import("./dialogs.js").PiModule>} [loadPi] pi's own module (dialog components)
 * @property {() => Promise<import("./models.js").PiAi>} [loadAi] pi's own pi-ai module (model calls)
 * @property {() => string} [piVersion] pi's version (default: read from pi's package.json)
 * @property {() => string} [piDir] pi's package directory (default: found from pi's command line; "" when unknown)
 * @property {import("./terminal-notify.js").TerminalOutput} [terminal] where terminal notifications go (default: pi's stdout, PowerShell)
 */

/**
 * The log file: `$PI_EXT_LOG_DIR/<name>.log`, else the one `install` chose.
 * @param {import("./manifest.js").Config} config
 * @param {string} here
 * @param {NodeJS.ProcessEnv} env
 */
function logFile(config, here, env) {
  if (env.PI_EXT_LOG_DIR) return path.join(env.PI_EXT_LOG_DIR, `${config.name}.log`);
  if (config.log) return path.resolve(here, config.log);
  return path.join(os.tmpdir(), `pi-ext-${config.name}.log`);
}

/**
 * An extension's bridge, not registered with pi yet, and its log.
 * @param {ExtensionAPI} pi
 * @param {ActivateOptions} options
 * @param {string} binary
 */
function makeBridge(pi, options, binary) {
  const { config, here } = options;
  const env = options.env ?? process.env;
  const argv = options.argv ?? process.argv;
  const limits = limitsFrom(env);
  const log = new Log(logFile(config, here, env), { maxBytes: limits.logMaxBytes });
  const mode = detectMode(argv, options.stdinIsTTY ?? process.stdin.isTTY === true);
  /** @type {string | undefined} read at the first start */
  let piVersion;
  /** @type {string | undefined} */
  let piDir;
  const bridge = new Bridge({
    pi,
    name: config.name,
    protocol: options.protocol,
    binary,
    log,
    limits,
    clock: options.clock ?? systemClock,
    launch: options.launch ?? launchProcess,
    here,
    mode,
    piVersion: () => (piVersion ??= options.piVersion?.() ?? detectPiVersion(argv[1])),
    piDir: () => (piDir ??= options.piDir?.() ?? detectPiDir(argv[1])),
    piCommand: () => piCommand(options.execPath ?? process.execPath, argv[1]),
    env,
    // One dialog at a time where pi's terminal shows only one.
    dialogQueue: options.dialogQueue ?? (mode === "interactive" ? sharedDialogQueue() : NO_QUEUE),
    loadPi: options.loadPi ?? (() => import("@mariozechner/pi-coding-agent")),
    loadAi: options.loadAi ?? (() => import("@mariozechner/pi-ai")),
    mirrorCheck: env.PI_EXT_MIRROR_CHECK === "1",
    terminal: options.terminal,
  });
  return { bridge, log };
}

/**
 * @param {ExtensionAPI} pi
 * @param {ActivateOptions} options
 * @returns {Promise<Bridge>}
 */
export async function activate(pi, options) {
  const { config, here } = options;
  const env = options.env ?? process.env;
  // Next to the bridge, or in the npm package installed for this platform.
  const located = locateBinary(config, here);
  const binary = located.binary ?? "";
  const dev = config.dev === true || env.PI_EXT_DEV === "1";
  const { bridge, log } = makeBridge(pi, options, binary);
  const label = `pi-ext extension "${config.name}"`;
  /** @type {string[]} */
  const problems = [];
  /** @param {unknown} err */
  const startFailed = (err) => {
    const message = `${label} failed to start: ${messageOf(err)}`;
    log.line("error", message);
    return message;
  };
  /**
   * @param {string} what
   * @param {() => void} register
   */
  const attempt = (what, register) => {
    try {
      register();
    } catch (err) {
      problems.push(`${label}: could not register ${what}: ${messageOf(err)}`);
    }
  };

  // With the manifest install recorded (and a binary that still matches it),
  // register at once and start the process when the session starts: pi's
  // startup does not wait for it.
  // A package with a binary per platform records each one's size.
  const recorded = located.size === undefined || !config.cache ? config : { ...config, cache: { ...config.cache, size: located.size } };
  let manifest = dev || located.problem ? undefined : cachedManifest(recorded, binary, log);
  const lazy = manifest !== undefined;
  // Only a binary that speaks this bridge's protocol may wait for its first
  // call: a mismatch is told at session start, not when the tool is used.
  const onDemand = manifest?.onDemand === true && manifest.protocol === options.protocol;
  if (manifest) {
    bridge.cached = manifest;
    bridge.manifest = manifest;
  } else if (located.problem) {
    // Nothing to run here: say why at session start; pi goes on without it.
    problems.push(`${label}: ${located.problem}`);
  } else {
    try {
      manifest = await bridge.start();
    } catch (err) {
      problems.push(startFailed(err));
    }
  }

  // Before the hooks' handlers: a session_start hook's call belongs to the new session.
  const warningsOf = (/** @type {Manifest | undefined} */ m) => (m?.problems ?? []).map((p) => `${label}: ${p}`);
  /** @type {Set<string>} */
  const shown = new Set();
  /** @type {Set<string>} events already told to be missing from this pi */
  const missingTold = new Set();
  /** @type {string[]} those notices, until a session shows them */
  const missingUnshown = [];
  // A pi outside the tested range: told once, at session start; loading goes on.
  const outside = versionNotice(bridge.o.piVersion());
  if (outside) {
    log.line("warn", `${label}: ${outside}`);
    missingUnshown.push(`${label}: ${outside}`);
  }
  pi.on("session_start", (event, ctx) => {
    bridge.sessionStarted(event, ctx);
    /**
     * @param {string[]} list
     * @param {"warning" | "error"} level
     */
    const show = (list, level) => {
      try {
        for (const p of list) ctx.ui.notify(p, level);
      } catch {
        // Showing a problem must never become one.
      }
    };
    show(problems, "error");
    show(missingUnshown.splice(0), "warning");
    show(bridge.takeNotices(), "warning");
    const warn = (/** @type {Manifest | undefined} */ m) => {
      const fresh = warningsOf(m).filter((p) => !shown.has(p));
      for (const p of fresh) {
        shown.add(p);
        log.line("warn", p);
      }
      show(fresh, "warning");
    };
    // Problems known without running the binary (a dependency cycle, a
    // schema) at once; a lazy start adds those of loading (a failed
    // on_load, invalid settings) when the process has started.
    warn(manifest);
    // An extension that only answers pi (`onDemand`: tools and commands, no
    // hook, on_load or renderer) starts at its first call: a session that
    // never uses it pays neither the spawn (a synchronous fork in pi's
    // thread) nor the process's memory.
    if (!lazy || onDemand) return;
    bridge.start().then(warn, (err) => show([startFailed(err)], "error"));
  });
  pi.on("session_shutdown", () => {
    if (dev) fs.unwatchFile(binary);
    bridge.stop();
  });

  for (const tool of manifest?.tools ?? []) attempt(`tool ${tool.name}`, () => bridge.registerTool(tool));
  // pi's built-in tools with Rust operations: pi's own definitions (its
  // module is loaded only when there are any).
  if (manifest?.builtinTools?.length) {
    try {
      const piModule = await bridge.o.loadPi();
      bridge.piModule = piModule;
      for (const t of manifest.builtinTools) {
        attempt(`built-in tool ${t.tool}`, () =>
          pi.registerTool({
            ...builtinToolDefinition(t, piModule, bridge.opsHost()),
            ...bridge.tui.toolRenderers({ name: t.tool, render: t.render }),
          }),
        );
      }
    } catch (err) {
      problems.push(`${label}: could not load pi's tools for its built-in tool overrides: ${messageOf(err)}`);
    }
  }
  // Providers while pi starts (pi applies them before --model is resolved);
  // their streams need pi's pi-ai, loaded only when there are any.
  if (manifest?.providers?.length) {
    try {
      bridge.ai = await (options.loadAi ?? (() => import("@mariozechner/pi-ai")))();
      const ai = /** @type {any} */ (bridge.ai);
      /** @type {string[]} */
      const builtins = typeof ai.getProviders === "function" ? ai.getProviders() : [];
      const piVersion = bridge.o.piVersion();
      for (const p of manifest.providers) {
        const clash = builtinClash(p, builtins);
        if (clash) {
          problems.push(`${label}: ${clash}`);
          continue;
        }
        // pi < 0.99 has chat models only and no refreshModels: told once, the rest registered.
        const old = olderThan(piVersion, "0.99.0");
        const kinds = p.models.some((m) => m.type !== undefined && m.type !== "chat");
        for (const [feature, needed] of /** @type {[string, boolean][]} */ ([["refreshModels", !!p.refreshModels], ["classifier and image models", kinds]])) {
          const notice = needed ? missingApi(feature, `provider ${p.name}`, piVersion, missingTold) : undefined;
          if (notice) {
            log.line("warn", `${label}: ${notice}`);
            missingUnshown.push(`${label}: ${notice}`);
          }
        }
        const given = old ? { ...p, refreshModels: false, models: p.models.filter((m) => m.type === undefined || m.type === "chat") } : p;
        attempt(`provider ${p.name}`, () => pi.registerProvider(p.name, providerConfig(given, () => bridge.providerHost(), piVersion)));
      }
    } catch (err) {
      problems.push(`${label}: could not load pi-ai for its providers: ${messageOf(err)}`);
    }
  }
  // Virtual models (pi ≥ 0.99): routed in the extension.
  for (const vm of manifest?.virtualModels ?? []) {
    const register = /** @type {any} */ (pi).registerVirtualModel;
    if (typeof register !== "function") {
      const notice = missingApi("registerVirtualModel", `virtual model ${vm.provider}/${vm.id}`, bridge.o.piVersion(), missingTold);
      if (notice) {
        log.line("warn", `${label}: ${notice}`);
        missingUnshown.push(`${label}: ${notice}`);
      }
      continue;
    }
    attempt(`virtual model ${vm.provider}/${vm.id}`, () => register.call(pi, virtualModelDefinition(vm, () => bridge.routeCall())));
  }
  for (const flag of manifest?.flags ?? []) {
    attempt(`flag --${flag.name}`, () => pi.registerFlag(flag.name, flagOptions(flag)));
  }
  /** @type {Set<string>} hook ids with a pi handler */
  const subscribed = new Set();
  /** @type {Set<string>} command names registered with pi */
  const commands = new Set();
  /** @type {Set<string>} custom message types with a renderer registered */
  const renderers = new Set();
  /** Entry renderers, other tools' rows and the Markdown transformer (pi ≥ 0.80.4). */
  const registrations = new Registrations(bridge.tui, label, () => bridge.o.piVersion());
  /** @type {import("./definitions.js").CommandCalls} */
  const commandCalls = {
    run: (name, args, ctx) => bridge.callCommand(name, args, ctx),
    complete: (name, prefix) => bridge.completeCommand(name, prefix),
    warn: (message) => log.line("warn", message),
  };
  /** pi's `on`, for an event named at run time. */
  const on = /** @type {(event: string, handler: (event: any, ctx: ExtensionContext) => unknown) => void} */ (
    /** @type {unknown} */ (pi.on.bind(pi))
  );
  /** Whether pi runs bridge.onMessageUpdate (one handler for every message_update hook). */
  let updates = false;
  const registerHandlers = (/** @type {Manifest | undefined} */ m) => {
    attempt("message renderers", () => bridge.tui.registerMessageRenderers(m?.messageRenderers, renderers));
    /** @type {string[]} */
    let lacks = [];
    attempt("renderers", () => (lacks = registrations.register(m)));
    // pi's version is read only for a hook on a newer event.
    const newer = (m?.hooks ?? []).map((h) => h.event).filter((e) => EVENT_SINCE.has(e));
    const missing = newer.length ? missingEvents(newer, bridge.o.piVersion(), missingTold).map((n) => `${label}: ${n}`) : [];
    for (const line of [...lacks, ...missing]) {
      log.line("warn", line);
      if (!bridge.session.ctx) {
        missingUnshown.push(line);
        continue;
      }
      // A hot reload's new hook: the session is there to show it.
      try {
        bridge.session.ctx.ui.notify(line, "warning");
      } catch {
        // Showing a problem must never become one.
      }
    }
    for (const hook of m?.hooks ?? []) {
      if (subscribed.has(hook.id)) continue;
      if (hook.event === "message_update") {
        // Once per token: one handler for all of them, which only queues.
        if (!updates) attempt(`hook ${hook.id}`, () => {
          on("message_update", (event) => bridge.onMessageUpdate(event));
          updates = true;
        });
        subscribed.add(hook.id);
        continue;
      }
      attempt(`hook ${hook.id}`, () => {
        on(hook.event, (event, ctx) => bridge.callHook(hook, event, ctx));
        subscribed.add(hook.id);
      });
    }
    for (const command of m?.commands ?? []) {
      if (commands.has(command.name)) continue;
      attempt(command.shortcutOnly ? `shortcut ${command.shortcut}` : `command /${command.name}`, () => registerCommand(pi, command, commandCalls));
      commands.add(command.name);
    }
  };
  registerHandlers(manifest);
  for (const p of problems) log.line("warn", p);

  if (dev && manifest) watchBinary(bridge, binary, config.name, registerHandlers);
  return bridge;
}

/**
 * The bridge of an extension whose entry registered it with pi without
 * loading a bridge (lib/deferred.js: an `onDemand` manifest recorded from
 * the binary it found), made at its first call: it registers nothing, and
 * its process starts at that call.
 * @param {ExtensionAPI} pi
 * @param {ActivateOptions} options
 * @returns {Promise<import("./shared.js").Attached>}
 */
export async function attach(pi, options) {
  const { config, here } = options;
  const label = `pi-ext extension "${config.name}"`;
  const located = locateBinary(config, here);
  if (located.binary === undefined || config.cache?.manifest === undefined) {
    throw new Error(`${label}: ${located.problem ?? "its CONFIG records no manifest"}; run \`<binary> install\` again`);
  }
  const { bridge, log } = makeBridge(pi, options, located.binary);
  // What pi was given: tools the process no longer serves (a binary rebuilt
  // since pi loaded) answer with the reason (Bridge.setManifest).
  const manifest = sanitizeManifest(config.cache.manifest);
  bridge.cached = manifest;
  bridge.manifest = manifest;
  for (const tool of manifest.tools ?? []) bridge.tools.set(tool.name, tool);
  /** @type {string[]} shown at the session's (re)start */
  const notices = [];
  const outside = versionNotice(bridge.o.piVersion());
  if (outside) {
    log.line("warn", `${label}: ${outside}`);
    notices.push(`${label}: ${outside}`);
  }
  return {
    callTool: (name, toolCallId, args, signal, onUpdate, ctx) => bridge.callTool(name, toolCallId, args, signal, onUpdate, ctx),
    callCommand: (name, args, ctx) => bridge.callCommand(name, args, ctx),
    completeCommand: (name, prefix) => bridge.completeCommand(name, prefix),
    sessionStarted(event, ctx) {
      bridge.sessionStarted(event, ctx);
      for (const line of notices.splice(0)) {
        try {
          ctx.ui.notify(line, "warning");
        } catch {
          // Showing a problem must never become one.
        }
      }
    },
    stop: () => bridge.stop(),
  };
}

/**
 * Dev mode: reflect a rebuilt binary's tools, commands and hooks in pi.
 * @param {Bridge} bridge
 * @param {string} binary
 * @param {string} name
 * @param {(m: Manifest | undefined) => void} registerHandlers
 */
function watchBinary(bridge, binary, name, registerHandlers) {
  const { log, pi } = bridge;
  /**
   * @param {Manifest | undefined} fresh
   * @param {Manifest | undefined} before
   */
  const apply = (fresh, before) => {
    for (const tool of fresh?.tools ?? []) bridge.registerTool(tool);
    const gone = (before?.tools ?? []).map((t) => t.name).filter((n) => !(fresh?.tools ?? []).some((t) => t.name === n));
    if (gone.length) {
      try {
        pi.setActiveTools(pi.getActiveTools().filter((n) => !gone.includes(n)));
      } catch (err) {
        log.line("warn", `could not deactivate removed tools: ${messageOf(err)}`);
      }
    }
    registerHandlers(fresh);
  };
  /** @param {string} message @param {"info" | "error"} level */
  const notify = (message, level) => {
    try {
      bridge.session.ctx?.ui.notify(message, level);
    } catch {
      // The session may be gone.
    }
  };
  /** @type {NodeJS.Timeout | undefined} */
  let timer;
  let reloading = Promise.resolve();
  fs.watchFile(binary, { interval: 250 }, (cur, prev) => {
    if (cur.mtimeMs === prev.mtimeMs && cur.size === prev.size) return;
    if (cur.size === 0) return; // being written
    clearTimeout(timer);
    timer = setTimeout(() => {
      reloading = reloading.then(async () => {
        const before = bridge.manifest;
        try {
          apply(await bridge.hotReload(), before);
          log.line("info", "hot reload: switched to the rebuilt binary");
          notify(`pi-ext: reloaded "${name}"`, "info");
        } catch (err) {
          log.line("error", `hot reload failed: ${messageOf(err)}`);
          notify(`pi-ext: hot reload of "${name}" failed: ${messageOf(err)}`, "error");
        }
      });
    }, 300);
  });
}
