// @ts-check
// pi's version, read from the package.json above its CLI script, under either package name.
import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";

import { detectPiVersion, piCommand } from "../lib/manifest.js";
import { tempDir } from "./helpers.js";

/**
 * `<root>/<name>/package.json` with `bin` at `dist/bundle/cli.js` (pi 1.x's place); returns the script.
 * @param {string} name
 * @param {string} version
 */
function piPackage(name, version) {
  const dir = path.join(tempDir(), name);
  fs.mkdirSync(path.join(dir, "dist", "bundle"), { recursive: true });
  fs.writeFileSync(path.join(dir, "package.json"), JSON.stringify({ name, version, bin: { pi: "dist/bundle/cli.js" } }));
  const cli = path.join(dir, "dist", "bundle", "cli.js");
  fs.writeFileSync(cli, "");
  return cli;
}

test("pi's version under its old and its new package name; another package's is not pi's", () => {
  assert.equal(detectPiVersion(piPackage("@mariozechner/pi-coding-agent", "0.73.1")), "0.73.1");
  assert.equal(detectPiVersion(piPackage("@earendil-works/pi-coding-agent", "1.6.0")), "1.6.0");
  assert.equal(detectPiVersion(piPackage("not-pi", "9.9.9")), "");
  assert.equal(detectPiVersion(undefined), "");
});

test("the installed pi's CLI gives its version", () => {
  const modules = fileURLToPath(new URL("../../../node_modules/", import.meta.url));
  const file = ["@earendil-works/pi-coding-agent", "@mariozechner/pi-coding-agent"]
    .map((name) => path.join(modules, name, "package.json"))
    .find((f) => fs.existsSync(f));
  assert.ok(file, `pi is installed in ${modules}`);
  const pkg = JSON.parse(fs.readFileSync(file, "utf8"));
  const cli = path.join(path.dirname(file), typeof pkg.bin === "string" ? pkg.bin : pkg.bin.pi);
  assert.notEqual(pkg.version, "");
  assert.equal(detectPiVersion(cli), pkg.version);
});

test("pi's command line: the runtime and pi's script, a compiled pi alone, else `pi` from PATH (as pi's subagent example starts pi)", () => {
  const script = "/opt/pi/dist/cli.js";
  const exists = (/** @type {string} */ f) => f === script;
  assert.deepEqual(piCommand("/usr/bin/node", script, exists), { command: "/usr/bin/node", args: [script] });
  // A script that is not there, or a Bun binary's embedded entry.
  assert.deepEqual(piCommand("/usr/bin/node", "/gone.js", exists), { command: "pi", args: [] });
  assert.deepEqual(piCommand("/usr/local/bin/pi", "/$bunfs/root/pi", () => true), { command: "/usr/local/bin/pi", args: [] });
  assert.deepEqual(piCommand("C:\\pi\\pi.exe", "B:/~BUN/root/pi.js", () => true), { command: "C:\\pi\\pi.exe", args: [] });
  assert.deepEqual(piCommand("/usr/bin/bun", undefined, exists), { command: "pi", args: [] });
});
