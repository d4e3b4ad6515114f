// @ts-check
// One bridge for every pi-ext extension in a pi (lib/shared.js): which
// registered bridge serves an extension, and two installed extensions in
// one Node process sharing the first one's bridge.cjs.
import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { test } from "node:test";
import { fileURLToPath, pathToFileURL } from "node:url";

import { build, chooseBridge, compareVersions, OLDEST_PROTOCOL, PROTOCOL, REGISTRY_KEY, bridgesOf, sharedBridge } from "../lib/shared.js";
import { fakeCtx, fakePi, installSources, tempDir } from "./helpers.js";

const bridgeDir = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
const extension = path.join(bridgeDir, "fixtures", "extension.js");

/**
 * A registered bridge.
 * @param {number} protocol
 * @param {string} version
 * @param {{ oldest?: number, features?: string[] }} [o]
 * @returns {import("../lib/shared.js").SharedBridge}
 */
function bridgeOf(protocol, version, o = {}) {
  return { protocol, oldest: o.oldest ?? protocol, version, features: o.features ?? ["builtin-tools", "models", "tui"], activate: async () => undefined };
}

/** @param {import("../lib/shared.js").SharedBridge} own */
function loader(own) {
  const calls = { n: 0 };
  return { calls, load: async () => (calls.n++, { bridge: own }) };
}

test("versions compare by number, a pre-release as its release", () => {
  assert.equal(compareVersions("0.1.10", "0.1.9"), 1);
  assert.equal(compareVersions("0.1.0", "0.1.0-rc.1"), 0);
  assert.equal(compareVersions("1.0.0", "1.0"), 0);
  assert.equal(compareVersions("0.9.0", "1.0.0"), -1);
});

test("the newest bridge that serves the protocol and every part is chosen", () => {
  const old = bridgeOf(2, "0.1.0");
  const newer = bridgeOf(2, "0.2.0");
  const lean = bridgeOf(2, "0.3.0", { features: [] });
  const next = bridgeOf(3, "0.4.0", { oldest: 2 });
  const only3 = bridgeOf(3, "0.5.0");
  const need = { protocol: 2, version: "0.1.0", features: ["tui"] };
  assert.equal(chooseBridge([old, newer, lean], need), newer, "the lean one lacks tui");
  assert.equal(chooseBridge([old, newer, lean], { ...need, features: [] }), lean);
  assert.equal(chooseBridge([old, next, newer], need), next, "protocol 3 declares it serves 2");
  assert.equal(chooseBridge([only3], need), undefined, "protocol 3 alone does not serve 2");
  assert.equal(chooseBridge([old], { ...need, protocol: 3 }), undefined, "an older protocol never serves a newer one");
});

test("an extension registered without a bridge is served only by one that can attach it", () => {
  const old = bridgeOf(2, "0.1.0");
  const attaching = { ...bridgeOf(2, "0.1.0"), attach: async () => /** @type {any} */ (undefined) };
  const need = { protocol: 2, version: "0.1.0", features: [], attach: true };
  assert.equal(chooseBridge([old], need), undefined, "an older bridge has no attach");
  assert.equal(chooseBridge([old, attaching], need), attaching);
  assert.equal(chooseBridge([old], { ...need, attach: false }), old);
});

test("the first extension loads and registers its bridge; the next ones use it", async () => {
  /** @type {import("../lib/shared.js").SharedBridge[]} */
  const registered = [];
  const mine = bridgeOf(2, "0.1.0");
  const first = loader(mine);
  assert.equal(await sharedBridge(first.load, registered, { protocol: 2, version: "0.1.0", features: ["tui"] }), mine);
  assert.deepEqual(registered, [mine]);
  const second = loader(bridgeOf(2, "0.1.0"));
  assert.equal(await sharedBridge(second.load, registered, { protocol: 2, version: "0.1.0", features: [] }), mine);
  assert.equal(second.calls.n, 0, "the second extension's bridge.cjs is never loaded");
  assert.equal(registered.length, 1);
});

test("two pi-ext versions: the newer bridge wins when it serves the older, else each keeps its own", async () => {
  /** @type {import("../lib/shared.js").SharedBridge[]} */
  const registered = [bridgeOf(2, "0.1.0")];
  // A newer pi-ext, same protocol: it loads its own and registers it...
  const newer = bridgeOf(3, "0.2.0", { oldest: 2 });
  assert.equal(await sharedBridge(loader(newer).load, registered, { protocol: 3, version: "0.2.0", features: [] }), newer);
  assert.equal(registered.length, 2);
  // ...and it serves an older extension loaded after it.
  const later = loader(bridgeOf(2, "0.1.0"));
  assert.equal(await sharedBridge(later.load, registered, { protocol: 2, version: "0.1.0", features: [] }), newer);
  assert.equal(later.calls.n, 0);
  // A protocol the registered ones do not serve: its own bridge, never theirs.
  const apart = bridgeOf(4, "0.3.0");
  assert.equal(await sharedBridge(loader(apart).load, registered, { protocol: 4, version: "0.3.0", features: [] }), apart);
  const older = bridgeOf(1, "0.0.5");
  assert.equal(await sharedBridge(loader(older).load, registered, { protocol: 1, version: "0.0.5", features: [] }), older);
  assert.equal(registered.length, 4);
});

test("a bridge.cjs that fails to load: a registered bridge that serves it, else a clear error", async () => {
  const failing = async () => {
    throw new Error("Cannot find module './bridge.cjs'");
  };
  await assert.rejects(sharedBridge(failing, [], { protocol: 2, version: "0.2.0", features: [] }), /could not load bridge\.cjs beside this extension's index\.js \(Cannot find module/);
  const old = bridgeOf(2, "0.1.0");
  assert.equal(await sharedBridge(failing, [old], { protocol: 2, version: "0.2.0", features: [] }), old);
});

test("the sources' bridge speaks and serves this protocol with every part", async () => {
  const { bridge } = await import("../bridge.js");
  assert.equal(bridge.protocol, PROTOCOL);
  assert.equal(bridge.oldest, OLDEST_PROTOCOL);
  assert.deepEqual(bridge.features, build.features);
  assert.deepEqual([...build.features].sort(), ["builtin-tools", "models", "tui"]);
});

/**
 * The fixture extension installed from the sources as `name` (its log beside it).
 * @param {string} name
 * @param {Parameters<typeof installSources>[2]} o
 */
function install(name, o) {
  const dir = tempDir();
  return installSources(dir, { name, binary: extension, log: path.join(dir, `${name}.log`) }, o);
}

test("two installed extensions in one process: the second runs on the first one's bridge.cjs", { timeout: 60_000 }, async () => {
  delete (/** @type {any} */ (globalThis))[REGISTRY_KEY];
  const first = install("first", { bridgeCjs: fs.readFileSync(path.join(bridgeDir, "bridge.cjs"), "utf8") });
  // Loading this one would fail the test: the second extension must not need it.
  const second = install("second", { bridgeCjs: 'throw new Error("the second bridge.cjs was loaded");\n' });
  const fake = fakePi();
  for (const file of [first, second]) await (await import(pathToFileURL(file).href)).default(fake.pi);
  assert.equal(bridgesOf(globalThis).length, 1, "one bridge registered");
  const { ctx } = fakeCtx({ hasUI: false });
  await fake.emit("session_start", { type: "session_start", reason: "startup" }, ctx);
  // Both extensions register the fixture's tools: the second's replace the first's.
  const out = await fake.tools.get("echo").execute("c1", { n: 1 }, undefined, undefined, ctx);
  assert.equal(out.content[0].text, '{"n":1}');
  await fake.emit("session_shutdown", { type: "session_shutdown" }, ctx);
  delete (/** @type {any} */ (globalThis))[REGISTRY_KEY];
});

test("extensions with the same entry.cjs run the first one's copy; another entry.cjs runs its own", { timeout: 60_000 }, async () => {
  delete (/** @type {any} */ (globalThis))[REGISTRY_KEY];
  const id = `test-${process.pid}-${Date.now()}`;
  const first = install("first", { entryId: id });
  // Loading either would fail the test: the second uses the first's entry, the third its own.
  const thrown = 'throw new Error("this entry.cjs was loaded");\n';
  const second = install("second", { entryId: id, entryCjs: thrown });
  const third = install("third", { entryId: `${id}-other`, entryCjs: thrown });
  const fake = fakePi();
  for (const file of [first, second]) await (await import(pathToFileURL(file).href)).default(fake.pi);
  assert.ok(Object.getOwnPropertySymbols(globalThis).includes(Symbol.for(`pi-ext.entry/${id}`)), "the first registered its entry");
  await assert.rejects((await import(pathToFileURL(third).href)).default(fake.pi), /could not load entry\.cjs beside this extension's index\.js \(this entry\.cjs was loaded\); run `<binary> install` again/);
  const { ctx } = fakeCtx({ hasUI: false });
  await fake.emit("session_start", { type: "session_start", reason: "startup" }, ctx);
  const out = await fake.tools.get("echo").execute("c1", { n: 2 }, undefined, undefined, ctx);
  assert.equal(out.content[0].text, '{"n":2}');
  await fake.emit("session_shutdown", { type: "session_shutdown" }, ctx);
  delete (/** @type {any} */ (globalThis))[REGISTRY_KEY];
  delete (/** @type {any} */ (globalThis))[Symbol.for(`pi-ext.entry/${id}`)];
});
