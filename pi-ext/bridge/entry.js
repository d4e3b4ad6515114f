// @ts-check
// pi-ext's entry code: what an extension's index.js runs when pi calls its
// factory. `install` writes it beside index.js as entry.cjs (this file with
// lib/ inlined, CommonJS, which Node compiles from its compile cache), and
// index.js keeps only what is the extension's own (its CONFIG, pi's
// packages as pi's loader resolves them for it). Extensions whose entry.cjs
// is the same file (the same content id) run one copy of it, registered on
// globalThis by the first: with many extensions, pi's loader (jiti) compiles
// a few lines for each instead of this code (a profile of 20 extensions).
import { loadBridgeFile } from "./lib/bridge-file.js";
import { deferredManifest, registerDeferred } from "./lib/deferred.js";
import { build, PROTOCOL, sharedBridge } from "./lib/shared.js";

/**
 * What an extension's index.js gives its entry.
 * @typedef {object} EntryOptions
 * @property {import("./lib/manifest.js").Config} config its CONFIG
 * @property {string | null} bridgeId bridge.cjs's content id, for its code cache (null: no cache)
 * @property {string} here index.js's directory: relative paths in `config` start there
 * @property {() => Promise<import("./lib/shared.js").PiPackages>} packages pi's packages for its bridge.cjs
 */

/**
 * What entry.cjs exports.
 * @typedef {{ factory: typeof factory }} Entry
 */

/**
 * An extension's factory: registers it with pi from its recorded manifest
 * when it only answers pi (lib/deferred.js, the bridge loaded at its first
 * call), else on the bridge that serves it (lib/shared.js).
 * @param {import("@mariozechner/pi-coding-agent").ExtensionAPI} pi
 * @param {EntryOptions} o
 */
export async function factory(pi, o) {
  /** Writes bridge.cjs's code cache once the extension has activated (when it loaded its own). */
  let saveCodeCache = () => {};
  /** @returns {Promise<{ bridge: import("./lib/shared.js").SharedBridge }>} this extension's own bridge.cjs */
  const ownBridge = async () => {
    const file = loadBridgeFile(o.here, o.bridgeId);
    saveCodeCache = file.save;
    const load = /** @type {import("./lib/shared.js").BridgeModule} */ (file.exports);
    return await load(await o.packages());
  };
  const options = { config: o.config, protocol: PROTOCOL, here: o.here };
  const deferred = deferredManifest(o.config, o.here, PROTOCOL, process.env);
  if (deferred) {
    registerDeferred(pi, deferred, async () => {
      const bridge = await sharedBridge(ownBridge, undefined, { protocol: PROTOCOL, ...build, attach: true });
      const attached = await /** @type {NonNullable<typeof bridge.attach>} */ (bridge.attach)(pi, options);
      saveCodeCache();
      return attached;
    });
    return;
  }
  const bridge = await sharedBridge(ownBridge);
  await bridge.activate(pi, options);
  saveCodeCache();
}
