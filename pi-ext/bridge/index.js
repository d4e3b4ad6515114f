// @ts-check
// pi-ext bridge: loads a Rust extension binary (built with the pi-ext crate) into pi.
// Written by `<binary> install`; run that again instead of editing this file.
// The protocol is documented in PROTOCOL.md of the pi-ext crate. This file is
// the extension's entry: its CONFIG and the choice of bridge (lib/shared.js,
// which `install` inlines here). The bridge itself is bridge.js beside it,
// loaded only when no other pi-ext extension in this pi has loaded one that
// serves this extension: one bridge for all of them keeps pi's startup short.
import * as path from "node:path";
import { fileURLToPath } from "node:url";

import { PROTOCOL, sharedBridge } from "./lib/shared.js";

const CONFIG = null; // @pi-ext-config
/** CONFIG as its type (`install` replaces the line above). */
const config = /** @type {import("./lib/manifest.js").Config} */ (/** @type {unknown} */ (CONFIG));

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
  const bridge = await sharedBridge(() => import("./bridge.js"));
  await bridge.activate(pi, { config, protocol: PROTOCOL, here: HERE });
}
