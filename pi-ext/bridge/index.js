// @ts-check
// pi-ext bridge: loads a Rust extension binary (built with the pi-ext crate) into pi.
// Written by `<binary> install`; run that again instead of editing this file.
// The protocol is documented in PROTOCOL.md of the pi-ext crate. The bridge's
// sources are modules (pi-ext/bridge/lib/); `install` writes them into this one
// file, in dependency order, because pi loads one file much faster than many.
import * as path from "node:path";
import { fileURLToPath } from "node:url";

import { activate } from "./lib/main.js";

const CONFIG = null; // @pi-ext-config
/** CONFIG as its type (`install` replaces the line above). */
const config = /** @type {import("./lib/manifest.js").Config} */ (/** @type {unknown} */ (CONFIG));

/** The protocol version this bridge speaks. */
const PROTOCOL = 2;

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
  await activate(pi, { config, protocol: PROTOCOL, here: HERE });
}
