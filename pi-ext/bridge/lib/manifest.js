// @ts-check
// What the bridge knows before the extension runs: its configuration (written
// by `install`), the manifest `install` recorded, and how pi was started.

import * as fs from "node:fs";
import * as path from "node:path";

import { sanitizeManifest } from "./manifest-text.js";

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

/**
 * The manifest `install` recorded, if the binary is still the one it was
 * recorded from (same size and modification time); otherwise undefined and
 * the binary is asked at startup.
 * @param {Config} config
 * @param {string} binary
 * @param {import("./log.js").Log} [log] where a changed binary is told (none: the
 *   caller falls back to a path that tells it)
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
    log?.line("info", `${binary} changed since it was installed: asking it for its manifest (run \`${binary} install\` again to start faster)`);
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
