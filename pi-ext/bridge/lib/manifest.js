// @ts-check
// What the bridge knows before the extension runs: its configuration (written
// by `install`), the manifest `install` recorded, and how pi was started.

import * as fs from "node:fs";
import * as path from "node:path";

import { sanitize } from "./sanitize.js";

/**
 * @typedef {object} ToolManifest
 * @property {string} name
 * @property {string} [label]
 * @property {string} [description]
 * @property {any} [parameters] JSON Schema
 * @property {string} [promptSnippet]
 * @property {string[]} [promptGuidelines]
 * @property {number} [timeoutMs] the bridge fails a call that takes longer
 * @property {{ call?: boolean, result?: boolean, shell?: "default" | "self" }} [render] which rows the extension renders
 * @property {"sequential"} [executionMode] pi runs a batch with this tool one call at a time
 * @property {any} [outputSchema] JSON Schema of `structuredContent` (pi ≥ 0.99.0)
 * @property {Record<string, boolean>} [annotations] MCP-style hints (pi ≥ 0.99.0)
 * @property {boolean} [defaultActive] registering it activates it (pi ≥ 1.4.0)
 * @property {string} [exposure] how the model reaches it (pi ≥ 0.99.0)
 * @property {Record<string, unknown>} [namespace] its group of tools (pi ≥ 0.99.0)
 * @property {unknown} [constrainedSampling] provider-side constrained sampling (pi ≥ 0.82.0)
 * @property {"all"} [reachesTools] a call may reach every tool (pi ≥ 1.2.0)
 * @property {boolean} [prepareArguments] the extension rewrites raw arguments (`--pi-prepare-arguments`)
 */

/**
 * @typedef {object} HookManifest
 * @property {string} id
 * @property {string} event
 * @property {number} [timeoutMs] default: PI_EXT_HOOK_TIMEOUT_MS, else 30 s
 */

/**
 * @typedef {object} CommandManifest
 * @property {string} name
 * @property {string} [description]
 * @property {string[]} [completions]
 * @property {boolean} [dynamicCompletions] computed by the extension (`command/complete`)
 * @property {string} [shortcut]
 * @property {boolean} [shortcutOnly] `#[shortcut]`: pi gets the key, no command (`name` is the wire name)
 */

/**
 * @typedef {object} FlagManifest
 * @property {string} name
 * @property {string} [description]
 * @property {"boolean" | "string"} type
 * @property {boolean | string} [default]
 */

/**
 * @typedef {object} Manifest
 * @property {string} [name]
 * @property {number} [protocol] the protocol the binary speaks
 * @property {ToolManifest[]} [tools]
 * @property {HookManifest[]} [hooks]
 * @property {CommandManifest[]} [commands]
 * @property {FlagManifest[]} [flags]
 * @property {string[]} [messageRenderers] custom message types the extension renders
 * @property {string[]} [entryRenderers] custom entry types the extension renders (pi ≥ 0.80.4)
 * @property {string[]} [toolRenderers] other tools whose rows the extension draws (pi ≥ 1.0.1)
 * @property {string[]} [markdownTransformer] the surfaces of its Markdown transformer (pi ≥ 0.84)
 * @property {import("./provider.js").ProviderManifest[]} [providers]
 * @property {import("./virtual-models.js").VirtualModelManifest[]} [virtualModels] routed in the extension (pi ≥ 0.99)
 * @property {import("./builtin-tools.js").BuiltinToolManifest[]} [builtinTools]
 * @property {string[]} [problems]
 * @property {boolean} [onDemand] nothing runs unless pi calls it: start the process at the first call
 */

/**
 * The `CONFIG` line `install` writes into index.js.
 * @typedef {object} Config
 * @property {string} name the extension's name
 * @property {string} [binary] absolute, or relative to index.js (`install`, `pack`)
 * @property {Record<string, import("./platform.js").PlatformBinary>} [platforms] instead of
 *   `binary`: one binary per platform, each in an npm package of its own (`pack --npm`)
 * @property {string} [log] the log file, absolute or relative to index.js
 * @property {boolean} [dev] hot reload: watch the binary
 * @property {{ size?: number, mtimeMs?: number, manifest: Manifest }} [cache] the manifest
 *   `install` recorded and what identifies the binary it came from (with `platforms`: each
 *   platform's size)
 */

// What pi shows of a manifest (tool rows, autocomplete, `/help`-like lists,
// the model selector, `/login`) is the extension's text: sanitized once, when
// the bridge reads a manifest or an item registered at run time, so no
// control character of the extension's reaches pi's terminal. Labels and
// names are one line; text the model reads keeps its newlines and tabs;
// descriptions pi lists keep their lines (pi joins them).

/**
 * `s` sanitized if it is a string; otherwise as it is (pi or the checks decide).
 * @template T
 * @param {T} s
 * @param {import("./sanitize.js").Keep} [keep]
 * @returns {T}
 */
const clean = (s, keep) => /** @type {T} */ (typeof s === "string" ? sanitize(s, keep) : s);

/**
 * A tool as pi gets it: its label one line, its description and prompt
 * texts (the model reads them) without control characters but `\n` and tab.
 * @template {Partial<ToolManifest>} T
 * @param {T} tool
 * @returns {T}
 */
export function sanitizeTool(tool) {
  if (tool === null || typeof tool !== "object") return tool;
  const out = { ...tool };
  if ("label" in tool) out.label = clean(tool.label);
  if ("description" in tool) out.description = clean(tool.description, "text");
  if ("promptSnippet" in tool) out.promptSnippet = clean(tool.promptSnippet, "text");
  if (Array.isArray(tool.promptGuidelines)) out.promptGuidelines = tool.promptGuidelines.map((g) => clean(g, "text"));
  return out;
}

/**
 * A command (and its shortcut): its description as pi lists it, its fixed completions one line each.
 * @param {CommandManifest} command
 * @returns {CommandManifest}
 */
export function sanitizeCommand(command) {
  if (command === null || typeof command !== "object") return command;
  const out = { ...command };
  if ("description" in command) out.description = clean(command.description, "lines");
  if (Array.isArray(command.completions)) out.completions = command.completions.map((c) => clean(c));
  return out;
}

/**
 * Argument completions the extension computed (`command/complete`): those
 * with a value and a label, each field one line (the value goes into pi's editor).
 * @param {unknown} items
 * @returns {Array<{ value: string, label: string, description?: string }> | null}
 */
export function sanitizeCompletions(items) {
  if (!Array.isArray(items)) return null;
  const valid = items
    .filter((/** @type {any} */ i) => typeof i?.value === "string" && typeof i?.label === "string")
    .map((/** @type {any} */ i) => {
      const out = { ...i, value: sanitize(i.value), label: sanitize(i.label) };
      if (typeof i.description === "string") out.description = sanitize(i.description);
      else delete out.description;
      return out;
    });
  return valid.length ? valid : null;
}

/**
 * Models as pi lists them (the model selector, `--list-models`): each name one line.
 * @param {unknown} models
 */
export function sanitizeModels(models) {
  if (!Array.isArray(models)) return models;
  return models.map((m) => (m !== null && typeof m === "object" && "name" in m ? { ...m, name: clean(m.name) } : m));
}

/**
 * A provider: its display name, its login's name (`/login`) and its models' names one line.
 * @param {import("./provider.js").ProviderManifest} p
 * @returns {import("./provider.js").ProviderManifest}
 */
export function sanitizeProvider(p) {
  if (p === null || typeof p !== "object") return p;
  const out = { ...p };
  if ("displayName" in p) out.displayName = clean(p.displayName);
  if ("models" in p) out.models = /** @type {any[]} */ (sanitizeModels(p.models));
  if (p.oauth && typeof p.oauth === "object") out.oauth = { ...p.oauth, name: clean(p.oauth.name) };
  return out;
}

/**
 * The manifest with every text pi shows sanitized (see above); what pi
 * does not show (names, schemas) as it is: the checks still see it.
 * @param {Manifest} m
 * @returns {Manifest}
 */
export function sanitizeManifest(m) {
  if (m === null || typeof m !== "object") return m;
  /** @type {(list: any, f: (x: any) => any) => any} */
  const each = (list, f) => (Array.isArray(list) ? list.map(f) : list);
  return {
    ...m,
    ...("tools" in m ? { tools: each(m.tools, sanitizeTool) } : {}),
    ...("builtinTools" in m ? { builtinTools: each(m.builtinTools, sanitizeTool) } : {}),
    ...("commands" in m ? { commands: each(m.commands, sanitizeCommand) } : {}),
    ...("flags" in m ? { flags: each(m.flags, (f) => (f && typeof f === "object" ? { ...f, description: clean(f.description, "lines") } : f)) } : {}),
    ...("providers" in m ? { providers: each(m.providers, sanitizeProvider) } : {}),
    ...("virtualModels" in m ? { virtualModels: each(m.virtualModels, (v) => (v && typeof v === "object" ? { ...v, name: clean(v.name) } : v)) } : {}),
  };
}

/**
 * The manifest `install` recorded, if the binary is still the one it was
 * recorded from (same size and modification time); otherwise undefined and
 * the binary is asked at startup.
 * @param {Config} config
 * @param {string} binary
 * @param {import("./log.js").Log} log
 * @returns {Manifest | undefined}
 */
export function cachedManifest(config, binary, log) {
  const cache = config.cache;
  if (!cache?.manifest) return undefined;
  try {
    // Not { bigint: true }: its first use costs milliseconds.
    const stat = fs.statSync(binary);
    if (stat.size === cache.size && (cache.mtimeMs === undefined || Math.floor(stat.mtimeMs) === cache.mtimeMs)) {
      return sanitizeManifest(cache.manifest);
    }
    log.line("info", `${binary} changed since it was installed: asking it for its manifest (run \`${binary} install\` again to start faster)`);
  } catch {
    // Missing binary: the start reports it.
  }
  return undefined;
}

/** @typedef {"interactive" | "rpc" | "json" | "print"} Mode */

/**
 * pi's own mode resolution (main.js resolveAppMode), from its command line.
 * @param {readonly string[]} argv
 * @param {boolean} stdinIsTTY
 * @returns {Mode}
 */
export function detectMode(argv, stdinIsTTY) {
  /** @type {string | undefined} */
  let mode;
  let print = false;
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === "--mode" && i + 1 < argv.length) mode = argv[++i];
    else if (argv[i] === "--print" || argv[i] === "-p") print = true;
  }
  if (mode === "rpc") return "rpc";
  if (mode === "json") return "json";
  if (print || !stdinIsTTY) return "print";
  return "interactive";
}

/** pi's package, before and after its rename (0.73.1 was the last `@mariozechner` one). */
const PI_PACKAGES = new Set(["@mariozechner/pi-coding-agent", "@earendil-works/pi-coding-agent"]);

/**
 * What `detectPiDir` and `detectPiVersion` found, by CLI script: once per
 * pi process, not once per extension (pi does not move while it runs).
 * @type {Map<string, { dir: string, version?: string }>}
 */
const piFound = new Map();

/**
 * pi's version, from the package.json above pi's CLI script (cheap: no import).
 * @param {string | undefined} cliScript process.argv[1]
 */
export function detectPiVersion(cliScript) {
  detectPiDir(cliScript);
  const found = /** @type {{ dir: string, version?: string }} */ (piFound.get(cliScript ?? ""));
  if (found.version === undefined) {
    found.version = "";
    try {
      if (found.dir) found.version = String(JSON.parse(fs.readFileSync(path.join(found.dir, "package.json"), "utf8")).version ?? "");
    } catch {
      // Unknown version: the handshake carries "".
    }
  }
  return found.version;
}

/**
 * The directory of the pi package that runs `cliScript` (its README.md,
 * CHANGELOG.md, docs/ and examples/: pi's `getPackageDir()`), or "" when
 * it is not found.
 * @param {string | undefined} cliScript
 */
export function detectPiDir(cliScript) {
  let found = piFound.get(cliScript ?? "");
  if (!found) {
    found = { dir: findPiDir(cliScript) };
    piFound.set(cliScript ?? "", found);
  }
  return found.dir;
}

/** @param {string | undefined} cliScript */
function findPiDir(cliScript) {
  try {
    let dir = path.dirname(fs.realpathSync(cliScript ?? ""));
    for (let i = 0; i < 4; i++, dir = path.dirname(dir)) {
      const file = path.join(dir, "package.json");
      if (!fs.existsSync(file)) continue;
      const pkg = JSON.parse(fs.readFileSync(file, "utf8"));
      if (PI_PACKAGES.has(pkg.name)) return dir;
    }
  } catch {
    // Not found: the handshake leaves it out.
  }
  return "";
}

/**
 * How to start pi as the running pi was started, without arguments (what
 * pi's subagent example's `getPiInvocation` computes): the runtime and the
 * CLI script when the script is a file, the executable alone for a
 * compiled pi (not a generic `node`/`bun`), else `pi` from PATH.
 * @param {string} execPath the runtime (`process.execPath`)
 * @param {string | undefined} cliScript pi's script (`process.argv[1]`)
 * @param {(file: string) => boolean} [exists]
 * @returns {{ command: string, args: string[] }}
 */
export function piCommand(execPath, cliScript, exists = fs.existsSync) {
  // Bun-compiled binaries name their embedded entry, which is no file on disk.
  const virtual = cliScript !== undefined && (cliScript.startsWith("/$bunfs/root/") || /^[A-Za-z]:[\\/]~BUN[\\/]root[\\/]/.test(cliScript));
  if (cliScript && !virtual && exists(cliScript)) return { command: execPath, args: [cliScript] };
  if (!/^(node|bun)(\.exe)?$/.test(path.basename(execPath).toLowerCase())) return { command: execPath, args: [] };
  return { command: "pi", args: [] };
}
