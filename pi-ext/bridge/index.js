// @ts-check
// pi-ext bridge: loads a Rust extension binary (built with the pi-ext crate) into pi.
// Written by `<binary> install`; run that again instead of editing this file.
// The protocol is documented in PROTOCOL.md of the pi-ext crate. This file is
// the extension's entry: its CONFIG and pi's packages, as pi's loader
// resolves them for it. The rest is shared: entry.cjs beside it (entry.js:
// one copy for every extension with the same file), and the bridge,
// bridge.cjs, loaded only when no other pi-ext extension in this pi has
// loaded one that serves this extension, and for an extension of tools and
// commands only at its first call.
// Named imports only: pi's loader (jiti) makes `import * as` a copy of every
// export of the module, for every extension.
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const CONFIG = null; // @pi-ext-config
/** bridge.cjs's content id, for its code cache (`install` replaces the line; null: no cache). */
const BRIDGE_ID = /** @type {string | null} */ (null); // @pi-ext-bridge-id
/** entry.cjs's content id: extensions with the same one share it (`install` replaces the line; null: not shared). */
const ENTRY_ID = /** @type {string | null} */ (null); // @pi-ext-entry-id
/** CONFIG as its type (`install` replaces the line above). */
const config = /** @type {import("./lib/manifest.js").Config} */ (/** @type {unknown} */ (CONFIG));

/** This file's directory: relative paths in CONFIG start here. */
const HERE = (() => {
  try {
    return dirname(fileURLToPath(import.meta.url));
  } catch {
    return typeof __dirname === "string" ? __dirname : process.cwd();
  }
})();

/**
 * pi's packages for the bridge. pi's loader (jiti) resolves them for this
 * file; bridge.cjs is loaded by Node itself (compiled lazily and from Node's
 * compile cache instead of transformed by jiti), where they do not resolve.
 * Imported only by the extension whose bridge is loaded: the static import
 * of a namespace costs every extension a copy of pi-tui's exports in jiti.
 * @returns {Promise<import("./lib/shared.js").PiPackages>}
 */
async function piPackages() {
  const piTui = await import("@mariozechner/pi-tui");
  return {
    module(name) {
      if (name === "@mariozechner/pi-tui") return piTui;
      throw missing(name);
    },
    load(name) {
      if (name === "@mariozechner/pi-coding-agent") return import("@mariozechner/pi-coding-agent");
      if (name === "@mariozechner/pi-ai") return import("@mariozechner/pi-ai");
      return Promise.reject(missing(name));
    },
  };
}

/** @param {string} name */
function missing(name) {
  return new Error(`pi-ext: index.js does not give its bridge ${name}; run \`<binary> install\` again`);
}

/** @returns {import("./entry.js").Entry} entry.cjs: the one registered for ENTRY_ID, else this extension's own */
function entry() {
  const load = () => {
    try {
      return /** @type {import("./entry.js").Entry} */ (createRequire(join(HERE, "index.js"))("./entry.cjs"));
    } catch (err) {
      const why = err instanceof Error ? err.message : String(err);
      throw new Error(`pi-ext: could not load entry.cjs beside this extension's index.js (${why}); run \`<binary> install\` again`);
    }
  };
  if (ENTRY_ID === null) return load();
  const key = Symbol.for(`pi-ext.entry/${ENTRY_ID}`);
  const registered = /** @type {Record<symbol, import("./entry.js").Entry | undefined>} */ (/** @type {unknown} */ (globalThis))[key];
  if (registered) return registered;
  const own = load();
  Object.defineProperty(globalThis, key, { value: own, configurable: true });
  return own;
}

/** @param {import("@mariozechner/pi-coding-agent").ExtensionAPI} pi */
export default async function piExtBridge(pi) {
  await entry().factory(pi, { config, bridgeId: BRIDGE_ID, here: HERE, packages: piPackages });
}
