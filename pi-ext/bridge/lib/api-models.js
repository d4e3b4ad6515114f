// @ts-check
// The `api/call` methods of models and providers (feature `models`):
// providers registered at run time, virtual models, pi's scoped models.

import { needsPi } from "./features.js";
import { modelInfo } from "./models.js";
import { builtinClash, runtimeProviderConfig } from "./provider.js";

/** @typedef {import("./api.js").ApiMethod} ApiMethod */

/** @type {Array<[string, ApiMethod]>} */
export const MODEL_API = [
  [
    "registerProvider",
    async (c) => {
      const p = /** @type {any} */ (c.args[0]);
      // The same guard as for the manifest's providers (main.js): pi's
      // built-in provider names need the extension's opt-in.
      const ai = /** @type {any} */ (await import("@mariozechner/pi-ai").catch(() => undefined));
      const clash = p && typeof p === "object" ? builtinClash(p, typeof ai?.getProviders === "function" ? ai.getProviders() : []) : undefined;
      if (clash) throw new Error(clash);
      c.pi.registerProvider(p?.name, runtimeProviderConfig(p, c.piVersion));
    },
  ],
  ["unregisterProvider", (c) => c.pi.unregisterProvider(String(c.args[0]))],
  [
    "unregisterVirtualModel",
    (c) => {
      const pi = /** @type {any} */ (c.pi);
      if (typeof pi.unregisterVirtualModel !== "function") throw needsPi(c, "pi.unregisterVirtualModel", "0.99.0");
      pi.unregisterVirtualModel(String(c.args[0]), String(c.args[1]));
    },
  ],
  [
    "getScopedModels",
    (c) => {
      const scoped = /** @type {any} */ (c.ctx()).scopedModels;
      if (!Array.isArray(scoped)) throw needsPi(c, "ctx.scopedModels", "0.83.0");
      // Without the models' headers, which may hold credentials.
      return scoped.map((s) => ({ model: modelInfo(s?.model), ...(s?.thinkingLevel ? { thinkingLevel: s.thinkingLevel } : {}) }));
    },
  ],
];
