// @ts-check
// pi-ext bridge: loads a Rust extension binary (built with the pi-ext crate) into pi.
// Written by `<binary> install`; run that again instead of editing this file.
// The protocol is documented in PROTOCOL.md of the pi-ext crate. This file is
// the extension's entry: its CONFIG, the choice of bridge (lib/shared.js),
// how its file loads (lib/bridge-file.js) and the registration of an
// extension that only answers pi (lib/deferred.js), which `install` inlines
// here. The bridge itself is bridge.cjs beside it, loaded only when no other
// pi-ext extension in this pi has loaded one that serves this extension (one
// bridge for all of them keeps pi's startup short), and for an extension of
// tools and commands only at its first call.
import { dirname } from "node:path";
import { fileURLToPath } from "node:url";

import { loadBridgeFile } from "./lib/bridge-file.js";
import { deferredManifest, registerDeferred } from "./lib/deferred.js";
import { build, PROTOCOL, sharedBridge } from "./lib/shared.js";

const CONFIG = null; // @pi-ext-config
/** bridge.cjs's content id, for its code cache (`install` replaces the line; null: no cache). */
const BRIDGE_ID = /** @type {string | null} */ (null); // @pi-ext-bridge-id
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
 * @param {unknown} piTui
 * @returns {import("./lib/shared.js").PiPackages}
 */
const piPackages = (piTui) => ({
  module(name) {
    if (name === "@mariozechner/pi-tui") return piTui;
    throw missing(name);
  },
  load(name) {
    if (name === "@mariozechner/pi-coding-agent") return import("@mariozechner/pi-coding-agent");
    if (name === "@mariozechner/pi-ai") return import("@mariozechner/pi-ai");
    return Promise.reject(missing(name));
  },
});

/** @param {string} name */
function missing(name) {
  return new Error(`pi-ext: index.js does not give its bridge ${name}; run \`<binary> install\` again`);
}

/** Writes bridge.cjs's code cache once this extension has activated (when it loaded its own). */
let saveCodeCache = () => {};

/** @returns {Promise<{ bridge: import("./lib/shared.js").SharedBridge }>} this extension's own bridge.cjs */
async function ownBridge() {
  const file = loadBridgeFile(HERE, BRIDGE_ID);
  saveCodeCache = file.save;
  const load = /** @type {import("./lib/shared.js").BridgeModule} */ (file.exports);
  return await load(piPackages(await import("@mariozechner/pi-tui")));
}

/** @param {import("@mariozechner/pi-coding-agent").ExtensionAPI} pi */
export default async function piExtBridge(pi) {
  const options = { config, protocol: PROTOCOL, here: HERE };
  const deferred = deferredManifest(config, HERE, PROTOCOL, process.env);
  if (deferred) {
    return registerDeferred(pi, deferred, async () => {
      const bridge = await sharedBridge(ownBridge, undefined, { protocol: PROTOCOL, ...build, attach: true });
      const attached = await /** @type {NonNullable<typeof bridge.attach>} */ (bridge.attach)(pi, options);
      saveCodeCache();
      return attached;
    });
  }
  const bridge = await sharedBridge(ownBridge);
  await bridge.activate(pi, options);
  saveCodeCache();
}
