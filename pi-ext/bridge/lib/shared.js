// @ts-check
// One bridge for every pi-ext extension in a pi. An extension's entry
// (index.js, and entry.cjs with this module) is small; the bridge itself is
// bridge.cjs beside it. The first extension that loads a bridge loads its
// own bridge.cjs and registers it on globalThis; the next ones use a
// registered bridge that serves them, so Node compiles and evaluates the
// bridge once instead of once per extension.
//
// Which bridge serves an extension is decided by the protocol (the wire
// protocol with the binary, PROTOCOL.md, and the CONFIG `install` writes),
// then by pi-ext's version: a bridge serves the protocols from `oldest` to
// `protocol` and carries some optional parts (`features`). An extension uses
// the newest registered bridge that serves its protocol with every part it
// needs, unless its own bridge is newer: then it loads its own and registers
// it for the extensions after it. Nothing is mixed inside an extension: all
// of it runs on the one bridge chosen.

import { messageOf } from "./protocol.js";

/** The protocol version this bridge speaks. */
export const PROTOCOL = 2;

/** The oldest protocol this bridge serves (an extension binary and its CONFIG). */
export const OLDEST_PROTOCOL = 2;

const BUILD = null; // @pi-ext-build

/**
 * What `install` wrote this bridge with: pi-ext's version and the optional
 * parts (Cargo features of the binary) its JavaScript carries.
 * @typedef {{ version: string, features: string[] }} Build
 */

/** The optional parts the sources carry (all of them). */
const ALL_FEATURES = ["builtin-tools", "models", "tui"];

/** This bridge's build (the sources, unbuilt: version 0.0.0, every part). */
export const build = /** @type {Build} */ (/** @type {unknown} */ (BUILD)) ?? { version: "0.0.0", features: ALL_FEATURES };

/**
 * A bridge as it registers itself.
 * @typedef {object} SharedBridge
 * @property {number} protocol the newest protocol it speaks
 * @property {number} oldest the oldest protocol it serves
 * @property {string} version pi-ext's version
 * @property {string[]} features its optional parts
 * @property {(pi: any, options: import("./main.js").ActivateOptions) => Promise<unknown>} activate what an extension's factory runs
 * @property {(pi: any, options: import("./main.js").ActivateOptions) => Promise<Attached>} [attach] what an
 *   extension registered without a bridge (lib/deferred.js) runs at its first call (older bridges have none)
 */

/**
 * What an extension registered without a bridge runs its calls on, once one
 * is loaded: an interface between pi-ext versions, like the rest of a
 * {@link SharedBridge}.
 * @typedef {object} Attached
 * @property {(tool: string, toolCallId: string, args: unknown, signal: AbortSignal | undefined, onUpdate: any, ctx: any) => Promise<any>} callTool
 * @property {(name: string, args: string, ctx: any) => Promise<void>} callCommand
 * @property {(name: string, prefix: string) => Promise<{ value: string, label: string, description?: string }[] | null>} completeCommand
 * @property {(event: unknown, ctx: any) => void} sessionStarted pi's session_start, replayed for the session under way when it attached
 * @property {() => void} stop pi's session_shutdown
 */

/**
 * pi's packages as an extension's index.js gives them to its bridge.cjs
 * (which Node loads itself, where only pi's loader resolves them).
 * @typedef {object} PiPackages
 * @property {(name: string) => any} module a package the bridge imports when it loads (`import ... from`)
 * @property {(name: string) => Promise<any>} load a package the bridge imports when it needs it (`import()`)
 */

/**
 * What bridge.cjs exports: the bridge, made over pi's packages.
 * @typedef {(pi: PiPackages) => { bridge: SharedBridge } | Promise<{ bridge: SharedBridge }>} BridgeModule
 */

/**
 * What an extension needs of a bridge (`attach`: registered without one, lib/deferred.js).
 * @typedef {{ protocol: number, version: string, features: string[], attach?: boolean }} Need
 */

/** Where bridges register: one list per pi process (the key names its shape). */
export const REGISTRY_KEY = Symbol.for("pi-ext.bridges/1");

/**
 * The registered bridges of `global` (created empty on first use).
 * @param {object} global
 * @returns {SharedBridge[]}
 */
export function bridgesOf(global) {
  const g = /** @type {Record<symbol, SharedBridge[] | undefined>} */ (global);
  let list = g[REGISTRY_KEY];
  if (!Array.isArray(list)) {
    list = [];
    Object.defineProperty(global, REGISTRY_KEY, { value: list, configurable: true });
  }
  return list;
}

/**
 * `a` compared with `b` as versions `x.y.z` (a pre-release counts as its release).
 * @param {string} a
 * @param {string} b
 */
export function compareVersions(a, b) {
  const parts = (/** @type {string} */ v) => v.split(/[-+]/)[0].split(".").map((p) => Number(p) || 0);
  const x = parts(a);
  const y = parts(b);
  for (let i = 0; i < Math.max(x.length, y.length); i++) {
    const d = (x[i] ?? 0) - (y[i] ?? 0);
    if (d !== 0) return Math.sign(d);
  }
  return 0;
}

/**
 * Whether `a` is newer than `b`: a newer protocol, or the same one in a newer pi-ext.
 * @param {{ protocol: number, version: string }} a
 * @param {{ protocol: number, version: string }} b
 */
function newer(a, b) {
  return a.protocol !== b.protocol ? a.protocol > b.protocol : compareVersions(a.version, b.version) > 0;
}

/**
 * Whether `bridge` can serve an extension that needs `need`.
 * @param {SharedBridge} bridge
 * @param {Need} need
 */
export function serves(bridge, need) {
  return (
    typeof bridge?.activate === "function" &&
    bridge.oldest <= need.protocol &&
    need.protocol <= bridge.protocol &&
    need.features.every((f) => Array.isArray(bridge.features) && bridge.features.includes(f)) &&
    (need.attach !== true || typeof bridge.attach === "function")
  );
}

/**
 * The newest of `registered` that serves `need`, if any.
 * @param {readonly SharedBridge[]} registered
 * @param {Need} need
 * @returns {SharedBridge | undefined}
 */
export function chooseBridge(registered, need) {
  /** @type {SharedBridge | undefined} */
  let best;
  for (const b of registered) if (serves(b, need) && (!best || newer(b, best))) best = b;
  return best;
}

/**
 * The bridge for an extension with this module's build: a registered one
 * that serves it, or its own (`load`: its bridge.cjs), registered for
 * the next extensions.
 * @param {() => Promise<{ bridge: SharedBridge }>} load
 * @param {SharedBridge[]} [registered]
 * @param {Need} [need]
 * @returns {Promise<SharedBridge>}
 */
export async function sharedBridge(load, registered = bridgesOf(globalThis), need = { protocol: PROTOCOL, ...build }) {
  const best = chooseBridge(registered, need);
  if (best && !newer(need, best)) return best;
  let own;
  try {
    own = (await load()).bridge;
  } catch (err) {
    // A registered bridge that serves it still does (an older pi-ext's).
    if (best) return best;
    throw new Error(`pi-ext: could not load bridge.cjs beside this extension's index.js (${messageOf(err)}); run \`<binary> install\` again`);
  }
  if (!registered.includes(own)) registered.push(own);
  return own;
}
