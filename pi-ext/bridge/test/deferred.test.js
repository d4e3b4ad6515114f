// @ts-check
// An extension of tools, commands and flags registered without its bridge
// (lib/deferred.js): when index.js may, that pi gets the same definitions
// as from the bridge, and that the bridge attached at the first call runs
// the calls in the session under way.
import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { test } from "node:test";
import { fileURLToPath, pathToFileURL } from "node:url";

import { deferredManifest, registerDeferred } from "../lib/deferred.js";
import { attach } from "../lib/main.js";
import { REGISTRY_KEY, bridgesOf } from "../lib/shared.js";
import { DialogQueue } from "../lib/dialogs.js";
import { FakeClock, FakeExtension, fakeCtx, fakePi, installSources, manifestWith, settle, startBridge, tempDir, toolManifest } from "./helpers.js";

const bridgeDir = path.dirname(path.dirname(fileURLToPath(import.meta.url)));

/** A manifest with a bit of everything an onDemand extension registers. */
function plainManifest() {
  return manifestWith({
    onDemand: true,
    tools: [
      toolManifest("echo", { promptSnippet: "echoes", promptGuidelines: ["use it"], executionMode: "sequential", timeoutMs: 5000 }),
      toolManifest("other"),
    ],
    commands: [
      { name: "fixed", description: "fixed list", completions: ["alpha", "beta"] },
      { name: "dyn", description: "computed", dynamicCompletions: true, shortcut: "ctrl+shift+d" },
      { name: "key-only", description: "a key", shortcut: "ctrl+shift+k", shortcutOnly: true },
    ],
    flags: [{ name: "loud", description: "louder", type: "boolean", default: false }],
  });
}

/**
 * A binary file and the CONFIG `install` would write for it.
 * @param {object} manifest
 * @param {object} [extra] more CONFIG
 */
function installed(manifest, extra = {}) {
  const dir = tempDir();
  const binary = path.join(dir, "ext");
  fs.writeFileSync(binary, "12345");
  const stat = fs.statSync(binary);
  return { dir, binary, config: { name: "fake", binary, cache: { size: 5, mtimeMs: Math.floor(stat.mtimeMs), manifest }, ...extra } };
}

/** What pi was given, without the functions (compared by what they do, below). */
function definitions(/** @type {ReturnType<typeof fakePi>} */ fake) {
  const plain = (/** @type {Map<string, any>} */ m) =>
    Object.fromEntries([...m].map(([k, v]) => [k, Object.fromEntries(Object.entries(v).map(([f, x]) => [f, typeof x === "function" ? "function" : x]))]));
  return { tools: plain(fake.tools), commands: plain(fake.commands), flags: plain(fake.flags), shortcuts: plain(fake.shortcuts) };
}

test("an onDemand manifest of plain tools, commands and flags is registered without a bridge", () => {
  const { dir, config } = installed(plainManifest());
  const m = deferredManifest(config, dir, 2, {});
  assert.deepEqual(m?.tools?.map((t) => t.name), ["echo", "other"]);
});

test("anything the bridge must see at load keeps the bridge", () => {
  const { dir, binary, config } = installed(plainManifest());
  const m = plainManifest();
  /** @type {Array<[string, any, NodeJS.ProcessEnv?]>} */
  const cases = [
    ["not onDemand", { ...config, cache: { ...config.cache, manifest: { ...m, onDemand: false } } }],
    ["another protocol", { ...config, cache: { ...config.cache, manifest: { ...m, protocol: 3 } } }],
    ["dev mode", { ...config, dev: true }],
    ["PI_EXT_DEV", config, { PI_EXT_DEV: "1" }],
    ["a binary per platform", { ...config, platforms: {} }],
    ["a hook", { ...config, cache: { ...config.cache, manifest: { ...m, hooks: [{ id: "h", event: "turn_end" }] } } }],
    ["a built-in tool", { ...config, cache: { ...config.cache, manifest: { ...m, builtinTools: [{ tool: "read" }] } } }],
    ["a problem to show", { ...config, cache: { ...config.cache, manifest: { ...m, problems: ["p"] } } }],
    ["a field of a newer pi", { ...config, cache: { ...config.cache, manifest: { ...m, tools: [toolManifest("t", { outputSchema: {} })] } } }],
    ["prepareArguments", { ...config, cache: { ...config.cache, manifest: { ...m, tools: [toolManifest("t", { prepareArguments: true })] } } }],
    ["another size", { ...config, cache: { ...config.cache, size: 6 } }],
    ["another mtime", { ...config, cache: { ...config.cache, mtimeMs: config.cache.mtimeMs - 1000 } }],
    ["no binary", { ...config, binary: path.join(dir, "missing") }],
    ["no recorded manifest", { name: "fake", binary }],
  ];
  for (const [what, c, env] of cases) assert.equal(deferredManifest(c, dir, 2, env ?? {}), undefined, what);
});

test("what pi shows of the recorded manifest is sanitized, as the bridge does", () => {
  const m = manifestWith({ onDemand: true, tools: [toolManifest("t", { label: "a\u001b[31mred" })], commands: [{ name: "c", description: "x\u009b2J" }] });
  const { dir, config } = installed(m);
  const got = deferredManifest(config, dir, 2, {});
  assert.equal(got?.tools?.[0].label, "a[31mred");
  assert.equal(got?.commands?.[0].description, "x2J");
});

test("pi gets the same tools, commands, flags and shortcuts as from the bridge", async () => {
  const m = plainManifest();
  const { config } = installed(m);
  const h = await startBridge(m, { config });
  const deferred = fakePi();
  registerDeferred(deferred.pi, m, async () => assert.fail("nothing loads while registering"));
  assert.deepEqual(definitions(deferred), definitions(h.fake));
  // Fixed completions are computed where they are registered, the same way.
  const prefix = "al";
  assert.deepEqual(deferred.commands.get("fixed").getArgumentCompletions(prefix), h.fake.commands.get("fixed").getArgumentCompletions(prefix));
});

/**
 * The bridge's `attach` over scripted processes, as index.js would call it.
 * @param {ReturnType<typeof fakePi>} fake
 * @param {object} manifest
 * @param {ReturnType<typeof installed>} at
 * @param {FakeExtension[]} spawned
 */
function attachOver(fake, manifest, at, spawned) {
  return attach(fake.pi, {
    config: /** @type {any} */ (at.config),
    protocol: 2,
    here: at.dir,
    env: { PI_EXT_LOG_DIR: at.dir },
    argv: ["node", "pi", "--mode", "rpc"],
    stdinIsTTY: false,
    clock: new FakeClock(),
    launch: () => {
      const ext = new FakeExtension(manifest);
      ext.handle("tool/call", (p) => ({ content: [{ type: "text", text: `${p.tool} ${JSON.stringify(p.args)}` }] }));
      ext.handle("command/call", () => null);
      ext.handle("command/complete", (p) => [{ value: `${p.prefix}!`, label: `${p.prefix}!` }]);
      spawned.push(ext);
      return ext;
    },
    dialogQueue: new DialogQueue(),
    piVersion: () => "1.6.0",
  });
}

/**
 * A pi, the plain manifest installed, and the bridge's `attach` over
 * scripted processes (`spawned`), for a test's own `load`.
 */
function deferredFixture() {
  const m = plainManifest();
  const at = installed(m);
  const fake = fakePi();
  /** @type {FakeExtension[]} */
  const spawned = [];
  return { m, fake, spawned, attachNow: () => attachOver(fake, m, at, spawned) };
}

test("the first call loads the bridge once, replays the session to it, and runs every call on it", async () => {
  const { m, fake, spawned, attachNow } = deferredFixture();
  let loads = 0;
  registerDeferred(fake.pi, m, () => (loads++, attachNow()));
  const { ctx } = fakeCtx();
  await fake.emit("session_start", { type: "session_start", reason: "startup" }, ctx);
  await settle();
  assert.equal(loads, 0, "session_start loads nothing");
  const [a, b] = await Promise.all([
    fake.tools.get("echo").execute("c1", { n: 1 }, undefined, undefined, ctx),
    fake.tools.get("other").execute("c2", { n: 2 }, undefined, undefined, ctx),
  ]);
  assert.deepEqual([a.content[0].text, b.content[0].text], ['echo {"n":1}', 'other {"n":2}']);
  assert.equal(loads, 1, "two calls at once load one bridge");
  assert.equal(spawned.length, 1, "and start one process");
  // The session the bridge was given is the one under way: the call's session is its first.
  assert.equal(spawned[0].sent("tool/call")[0].params.session, 1);
  await fake.commands.get("fixed").handler("x", ctx);
  assert.deepEqual(spawned[0].sent("command/call").map((c) => [c.params.command, c.params.args]), [["fixed", "x"]]);
  assert.deepEqual(await fake.commands.get("dyn").getArgumentCompletions("ab"), [{ value: "ab!", label: "ab!" }]);
  // A new session reaches the attached bridge; shutdown stops its process.
  await fake.emit("session_shutdown", { type: "session_shutdown" }, ctx);
  await settle();
  assert.equal(spawned[0].sent("shutdown").length, 1, "the process was told to stop");
  await fake.emit("session_start", { type: "session_start", reason: "new" }, ctx);
  await fake.tools.get("echo").execute("c3", {}, undefined, undefined, ctx);
  assert.equal(spawned[spawned.length - 1].sent("tool/call").at(-1)?.params.session, 2);
  assert.equal(loads, 1);
  await fake.emit("session_shutdown", { type: "session_shutdown" }, ctx);
});

test("a bridge that fails to load fails the call with the reason, and the next call tries again", async () => {
  const { m, fake, attachNow } = deferredFixture();
  let loads = 0;
  registerDeferred(fake.pi, m, async () => {
    if (loads++ < 2) throw new Error("pi-ext: could not load bridge.cjs");
    return attachNow();
  });
  const { ctx } = fakeCtx();
  await fake.emit("session_start", { type: "session_start", reason: "startup" }, ctx);
  await assert.rejects(fake.tools.get("echo").execute("c1", {}, undefined, undefined, ctx), /could not load bridge\.cjs/);
  assert.equal(await fake.commands.get("dyn").getArgumentCompletions("a"), null, "no list, no error, and a second try");
  const out = await fake.tools.get("echo").execute("c2", {}, undefined, undefined, ctx);
  assert.equal(out.content[0].text, "echo {}");
  assert.equal(loads, 3);
  await fake.emit("session_shutdown", { type: "session_shutdown" }, ctx);
});

test("what pi refuses is told at session start, and the rest is registered", async () => {
  const fake = fakePi();
  fake.pi.registerTool = (/** @type {any} */ t) => {
    if (t.name === "echo") throw new Error("a tool named echo exists");
    fake.tools.set(t.name, t);
  };
  registerDeferred(fake.pi, plainManifest(), async () => assert.fail("not called"));
  assert.deepEqual([...fake.tools.keys()], ["other"]);
  const { ctx, notes } = fakeCtx();
  await fake.emit("session_start", { type: "session_start", reason: "startup" }, ctx);
  assert.deepEqual(notes, [{ message: 'pi-ext extension "fake": could not register tool echo: a tool named echo exists', type: "error" }]);
});

test("an installed onDemand extension loads no bridge until its first call, then its own bridge.cjs", { timeout: 60_000 }, async () => {
  delete (/** @type {any} */ (globalThis))[REGISTRY_KEY];
  const binary = path.join(bridgeDir, "fixtures", "extension.js");
  const stat = fs.statSync(binary);
  const manifest = manifestWith({ name: "probe", onDemand: true, tools: [toolManifest("echo")] });
  const dir = tempDir();
  const config = { name: "probe", binary, log: path.join(dir, "probe.log"), cache: { size: stat.size, mtimeMs: Math.floor(stat.mtimeMs), manifest } };
  const fake = fakePi();
  await (await import(pathToFileURL(installSources(dir, config)).href)).default(fake.pi);
  assert.equal(bridgesOf(globalThis).length, 0, "no bridge loaded while pi loads");
  const { ctx } = fakeCtx({ hasUI: false });
  await fake.emit("session_start", { type: "session_start", reason: "startup" }, ctx);
  assert.equal(bridgesOf(globalThis).length, 0, "nor at session start");
  const out = await fake.tools.get("echo").execute("c1", { n: 1 }, undefined, undefined, ctx);
  assert.equal(out.content[0].text, '{"n":1}');
  assert.equal(bridgesOf(globalThis).length, 1, "the first call loaded and registered it");
  await fake.emit("session_shutdown", { type: "session_shutdown" }, ctx);
  delete (/** @type {any} */ (globalThis))[REGISTRY_KEY];
});
