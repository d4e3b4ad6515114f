// @ts-check
// The bridge with a real extension process: the entry module as `install`
// lays it out, and a stopped (SIGSTOP) process.
import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { test } from "node:test";
import { fileURLToPath, pathToFileURL } from "node:url";

import { activate } from "../lib/main.js";
import { REGISTRY_KEY } from "../lib/shared.js";
import { FakeClock, fakeCtx, fakePi, installSources, tempDir, until } from "./helpers.js";

const bridgeDir = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
const extension = path.join(bridgeDir, "fixtures", "extension.js");

/**
 * The bridge's entry with its CONFIG and the shared bridge beside it, as
 * `install` writes them (with the modules beside them, where `install`
 * inlines them).
 * @param {string} dir
 * @param {Record<string, unknown>} config
 */
function install(dir, config) {
  installSources(dir, config);
}

/** @param {string} indexJs */
async function load(indexJs) {
  const fake = fakePi();
  // A fresh list of bridges: each test here loads the bridge beside its index.js.
  delete (/** @type {any} */ (globalThis))[REGISTRY_KEY];
  const { default: factory } = await import(pathToFileURL(indexJs).href);
  await factory(fake.pi);
  return fake;
}

for (const layout of ["packed: paths relative to index.js", "installed: absolute paths"]) {
  test(`the entry module serves a real process (${layout})`, { timeout: 60_000 }, async () => {
    const dir = tempDir();
    const packed = layout.startsWith("packed");
    if (packed) fs.copyFileSync(extension, path.join(dir, "ext.js"));
    install(dir, {
      name: "probe",
      binary: packed ? "./ext.js" : extension,
      log: packed ? "./probe.log" : path.join(dir, "probe.log"),
    });
    const fake = await load(path.join(dir, "index.js"));
    const { ctx } = fakeCtx({ hasUI: false });
    await fake.emit("session_start", { type: "session_start", reason: "startup" }, ctx);
    const out = await fake.tools.get("echo").execute("c1", { hi: "\u2028 there" }, undefined, undefined, ctx);
    assert.equal(out.content[0].text, '{"hi":"\u2028 there"}');
    await assert.rejects(fake.tools.get("crash").execute("c2", {}, undefined, undefined, ctx), /extension process exited \(code 3\)/);
    const again = await fake.tools.get("echo").execute("c3", { n: 3 }, undefined, undefined, ctx);
    assert.equal(again.content[0].text, '{"n":3}');
    await fake.emit("session_shutdown", { type: "session_shutdown" }, ctx);
    const log = path.join(dir, "probe.log");
    await until(() => fs.existsSync(log) && fs.readFileSync(log, "utf8").includes("probe extension started"), "the child's stderr in the log");
    assert.equal(fs.statSync(log).mode & 0o777, 0o600);
  });
}

test("a real process stopped with SIGSTOP is noticed by the liveness check, killed, and replaced (defect 16)", { timeout: 60_000 }, async () => {
  const fake = fakePi();
  const clock = new FakeClock();
  const dir = tempDir();
  const bridge = await activate(fake.pi, {
    config: { name: "probe", binary: extension },
    protocol: 2,
    here: dir,
    env: { ...process.env, PI_EXT_LOG_DIR: dir },
    argv: ["node", "pi", "-p"],
    clock,
  });
  const { ctx } = fakeCtx({ hasUI: false });
  await fake.emit("session_start", { type: "session_start", reason: "startup" }, ctx);
  const tool = (/** @type {string} */ name) => fake.tools.get(name).execute("c", {}, undefined, undefined, ctx);
  const pid = Number((await tool("pid")).content[0].text);
  process.kill(pid, "SIGSTOP");
  const stuck = tool("echo");
  let failed = /** @type {unknown} */ (undefined);
  stuck.catch((/** @type {unknown} */ err) => (failed = err));
  await clock.advance(5000); // a ping goes out, unread
  await clock.advance(10_000); // no answer
  await until(() => failed !== undefined, "the call failed");
  assert.match(String(failed), /extension process stopped responding/);
  const next = Number((await tool("pid")).content[0].text);
  assert.notEqual(next, pid, "a new process serves the next call");
  await until(() => {
    try {
      process.kill(pid, 0);
      return false;
    } catch {
      return true;
    }
  }, "the stopped process is gone");
  bridge.stop();
});
