// @ts-check
// What the host pi offers: its version under either package name, and a
// notice, once per event, for hooks on events this pi is too old to fire.
import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { test } from "node:test";

import { EVENT_SINCE, PI_TESTED, TOOL_FIELD_SINCE, ignoredToolFields, missingEvents, olderThan, passedToolFields, versionNotice } from "../lib/features.js";
import { detectPiVersion } from "../lib/manifest.js";
import { fakeCtx, manifestWith, startBridge, tempDir, toolManifest } from "./helpers.js";

/** A pi package with its CLI script, as npm installs it; the script's path. @param {string} name @param {string} version */
function piPackage(name, version) {
  const dir = path.join(tempDir(), "node_modules", ...name.split("/"));
  fs.mkdirSync(path.join(dir, "dist", "bundle"), { recursive: true });
  fs.writeFileSync(path.join(dir, "package.json"), JSON.stringify({ name, version }));
  const cli = path.join(dir, "dist", "bundle", "cli.js");
  fs.writeFileSync(cli, "");
  return cli;
}

test("pi's version is read under its old and its new package name (was: \"\" on pi ≥ 1.0)", () => {
  assert.equal(detectPiVersion(piPackage("@mariozechner/pi-coding-agent", "0.73.1")), "0.73.1");
  assert.equal(detectPiVersion(piPackage("@earendil-works/pi-coding-agent", "1.6.0")), "1.6.0");
  assert.equal(detectPiVersion(piPackage("some-other-cli", "9.9.9")), "");
});

test("versions compare by number; an unknown version is never older", () => {
  assert.equal(olderThan("0.73.1", "0.80.4"), true);
  assert.equal(olderThan("0.80.4", "0.80.4"), false);
  assert.equal(olderThan("0.100.0", "0.99.0"), false);
  assert.equal(olderThan("1.6.0", "0.87.0"), false);
  assert.equal(olderThan("0.87.0-beta.1", "0.87.0"), false);
  assert.equal(olderThan("", "0.87.0"), false);
});

test("an event this pi is too old for is named once, with the version it needs", () => {
  const told = new Set();
  assert.deepEqual(missingEvents(["agent_settled", "tool_call", "agent_settled", "agent_before_settle"], "0.73.1", told), [
    "`agent_settled` needs pi ≥ 0.80.4; this pi is 0.73.1: its hooks never run",
    "`agent_before_settle` needs pi ≥ 0.87.0; this pi is 0.73.1: its hooks never run",
  ]);
  assert.deepEqual(missingEvents(["agent_settled"], "0.73.1", told), []);
  assert.deepEqual(missingEvents([...EVENT_SINCE.keys()], "1.6.0", new Set()), []);
  assert.deepEqual(missingEvents(["agent_settled"], "", new Set()), []);
});

test("hooks on events the host pi never fires are told at session start, once per event", async () => {
  const hooks = [
    { id: "a::settled", event: "agent_settled" },
    { id: "b::settled", event: "agent_settled" },
    { id: "c::end", event: "agent_end" },
  ];
  const old = await startBridge(manifestWith({ hooks }), { piVersion: "0.73.1" });
  const { ctx, notes } = fakeCtx();
  await old.startSession(ctx);
  assert.deepEqual(notes, [{ message: 'pi-ext extension "fake": `agent_settled` needs pi ≥ 0.80.4; this pi is 0.73.1: its hooks never run', type: "warning" }]);
  assert.match(fs.readFileSync(old.logFile, "utf8"), /`agent_settled` needs pi ≥ 0\.80\.4/);
  // Still subscribed: a pi that fires it runs the hook.
  assert.ok(old.fake.handlers.has("agent_settled"));
  const current = await startBridge(manifestWith({ hooks }), { piVersion: "1.6.0" });
  const quiet = fakeCtx();
  await current.startSession(quiet.ctx);
  assert.deepEqual(quiet.notes, []);
});

test("a pi outside the tested range gets one notice naming both versions; a tested or unknown pi none", () => {
  assert.equal(
    versionNotice("0.70.0"),
    `pi 0.70.0 is older than ${PI_TESTED.oldest}, the oldest pi pi-ext supports: update pi (some tools, hooks or commands may fail to register)`,
  );
  assert.match(/** @type {string} */ (versionNotice("2.0.0")), new RegExp(`^pi 2\\.0\\.0 is newer than ${PI_TESTED.newest.replaceAll(".", "\\.")}, `));
  for (const v of [PI_TESTED.oldest, PI_TESTED.newest, "1.99.3", "0.99.0", "", "garbage"]) assert.equal(versionNotice(v), undefined, v);
});

test("a pi older than the oldest supported is told once at session start, and the tools still register", async () => {
  const tools = [toolManifest("t1")];
  const old = await startBridge(manifestWith({ tools }), { piVersion: "0.60.0" });
  const { ctx, notes } = fakeCtx();
  await old.startSession(ctx);
  await old.startSession(ctx);
  assert.deepEqual(notes, [{ message: `pi-ext extension "fake": ${versionNotice("0.60.0")}`, type: "warning" }]);
  assert.match(notes[0].message, /0\.60\.0.*0\.73\.1/);
  assert.match(fs.readFileSync(old.logFile, "utf8"), /pi 0\.60\.0 is older than 0\.73\.1/);
  assert.ok(old.fake.tools.has("t1"));
});

test("a pi of a newer major than the newest tested is warned once, naming both versions", async () => {
  const future = await startBridge(manifestWith({}), { piVersion: "2.1.0" });
  const { ctx, notes } = fakeCtx();
  await future.startSession(ctx);
  await future.startSession(ctx);
  assert.equal(notes.length, 1);
  assert.match(notes[0].message, new RegExp(`pi 2\\.1\\.0 is newer than ${PI_TESTED.newest.replaceAll(".", "\\.")}`));
  assert.equal(notes[0].type, "warning");
});

test("the README's support policy is the tested range, whose newest is the pinned pi", () => {
  const root = path.join(import.meta.dirname, "..", "..", "..");
  const pin = JSON.parse(fs.readFileSync(path.join(root, "package.json"), "utf8")).dependencies["@earendil-works/pi-coding-agent"];
  assert.equal(PI_TESTED.newest, pin);
  const readme = fs.readFileSync(path.join(root, "README.md"), "utf8");
  const policy = readme.slice(readme.indexOf("## Supported pi versions"), readme.indexOf("### Raising the pin"));
  assert.ok(policy.length > 0 && policy.startsWith("## Supported pi versions"), "README has no support policy");
  assert.ok(policy.includes(`older than ${PI_TESTED.oldest}`), policy);
  assert.ok(policy.includes(`${PI_TESTED.oldest} to `), policy);
  assert.ok(policy.includes(`every test runs on ${PI_TESTED.newest}`), policy);
  // The warning it quotes is the bridge's.
  const quoted = /`(pi 0\.70\.0 is older than [^`]*?) …`/.exec(policy);
  assert.ok(quoted && versionNotice("0.70.0")?.startsWith(quoted[1]), policy);
});

test("a tool definition field this pi ignores is named once, with the version it needs", () => {
  const told = new Set();
  assert.deepEqual(ignoredToolFields("add", ["outputSchema", "label", "outputSchema", "constrainedSampling"], "0.73.1", told), [
    "tool `add` sets `outputSchema`, which needs pi ≥ 0.99.0; this pi is 0.73.1 and ignores it",
    "tool `add` sets `constrainedSampling`, which needs pi ≥ 0.82.0; this pi is 0.73.1 and ignores it",
  ]);
  assert.deepEqual(ignoredToolFields("mul", ["outputSchema"], "0.73.1", told), []);
  assert.deepEqual(ignoredToolFields("add", [...TOOL_FIELD_SINCE.keys()], "1.6.0", new Set()), []);
  assert.deepEqual(ignoredToolFields("add", ["exposure"], "", new Set()), []);
});

test("a tool's definition fields reach pi as the manifest has them, only with the type pi reads", () => {
  const manifest = {
    name: "add",
    outputSchema: { type: "object" },
    annotations: "not an object",
    exposure: "codemode",
    namespace: null,
    defaultActive: false,
    constrainedSampling: false,
    reachesTools: "all",
  };
  assert.deepEqual(passedToolFields(manifest), {
    outputSchema: { type: "object" },
    exposure: "codemode",
    defaultActive: false,
    constrainedSampling: false,
  });
  assert.deepEqual(passedToolFields({ name: "bare" }), {});
});

test("tools with fields the host pi ignores are told at session start; pi gets the fields anyway", async () => {
  const tools = [
    { ...toolManifest("add"), outputSchema: { type: "object", properties: {} }, exposure: "codemode", reachesTools: "all" },
    { ...toolManifest("mul"), exposure: "direct" },
  ];
  const old = await startBridge(manifestWith({ tools }), { piVersion: "0.73.1" });
  const { ctx, notes } = fakeCtx();
  await old.startSession(ctx);
  assert.deepEqual(
    notes.map((n) => n.message),
    [
      'pi-ext extension "fake": tool `add` sets `outputSchema`, which needs pi ≥ 0.99.0; this pi is 0.73.1 and ignores it',
      'pi-ext extension "fake": tool `add` sets `exposure`, which needs pi ≥ 0.99.0; this pi is 0.73.1 and ignores it',
      'pi-ext extension "fake": tool `add` sets `reachesTools`, which needs pi ≥ 1.2.0; this pi is 0.73.1 and ignores it',
    ],
  );
  const add = /** @type {any} */ (old.fake.tools.get("add"));
  assert.equal(add.exposure, "codemode");
  assert.equal(add.reachesTools({}), "all");
});

test("the mode the extension is told is pi's own ctx.mode once a session is there", async () => {
  const b = await startBridge(manifestWith({}), { mode: "interactive" });
  assert.equal(b.bridge.hostMode(), "interactive");
  b.bridge.session.ctx = /** @type {any} */ ({ mode: "print" });
  assert.equal(b.bridge.hostMode(), "print");
  b.bridge.session.ctx = /** @type {any} */ ({ mode: "tui" });
  assert.equal(b.bridge.hostMode(), "interactive");
  // pi 0.73.1 has no ctx.mode: the command line's.
  b.bridge.session.ctx = /** @type {any} */ ({});
  assert.equal(b.bridge.hostMode(), "interactive");
});
