// @ts-check
// pi-ext bridge: loads a Rust extension binary (built with the pi-ext crate) into pi.
// Written by `<binary> install`; run that again instead of editing this file.
// The protocol is documented in PROTOCOL.md of the pi-ext crate; the bridge's
// modules are in the directory CONFIG.modules names (default ./pi-ext-bridge).
import * as path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const CONFIG = null; // @pi-ext-config
/** CONFIG as its type (`install` replaces the line above). */
const config = /** @type {import("./lib/manifest.js").Config} */ (/** @type {unknown} */ (CONFIG));

/** The protocol version this bridge speaks; with CONFIG, it says what this install is. */
const PROTOCOL = 1;

/** This file's directory: relative paths in CONFIG start here. */
const HERE = (() => {
  try {
    return path.dirname(fileURLToPath(import.meta.url));
  } catch {
    return typeof __dirname === "string" ? __dirname : process.cwd();
  }
})();

/** @param {import("@mariozechner/pi-coding-agent").ExtensionAPI} pi */
export default async function piExtBridge(pi) {
  const modules = path.resolve(HERE, config.modules ?? "./pi-ext-bridge");
  /** @type {typeof import("./lib/main.js")} */
  const main = await import(pathToFileURL(path.join(modules, "main.js")).href);
  await main.activate(pi, { config, protocol: PROTOCOL, here: HERE });
}
