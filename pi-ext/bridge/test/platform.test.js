// @ts-check
// Finding the binary: next to the bridge, or in the npm package for this platform.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { test } from "node:test";

import { activate } from "../lib/main.js";
import { locateBinary } from "../lib/platform.js";
import { fakeCtx, fakePi, manifestWith, tempDir, toolManifest } from "./helpers.js";

/** @type {Record<string, import("../lib/platform.js").PlatformBinary>} */
const platforms = {
  "darwin-arm64": { package: "ext-darwin-arm64", bin: "bin/ext", os: "darwin", cpu: "arm64", size: 10 },
  "linux-x64-gnu": { package: "ext-linux-x64-gnu", bin: "bin/ext", os: "linux", cpu: "x64", libc: "glibc", size: 20 },
  "linux-x64-musl": { package: "@me/ext-linux-x64-musl", bin: "bin/ext", os: "linux", cpu: "x64", libc: "musl", size: 30 },
};

/**
 * A platform package `name` at `version` in the node_modules directory `modules`.
 * @param {string} modules
 * @param {string} name
 * @param {string} [version]
 */
function plant(modules, name, version = "1.0.0") {
  const dir = path.join(modules, name);
  fs.mkdirSync(path.join(dir, "bin"), { recursive: true });
  fs.writeFileSync(path.join(dir, "package.json"), JSON.stringify({ name, version }));
  fs.writeFileSync(path.join(dir, "bin", "ext"), "binary");
  return dir;
}

/**
 * An npm layout: `<modules>/ext/index.js` (the bridge's place, with the main
 * package's package.json as `pack --npm` writes it) and the given platform
 * packages installed as npm puts them; returns the bridge's directory.
 * @param {string[]} installed package names
 * @param {"hoisted" | "nested"} layout hoisted (`npm install --prefix`, a project's node_modules) or nested (npm install -g)
 * @param {string} [modules] the node_modules directory the main package is in
 */
function npmLayout(installed, layout = "hoisted", modules = path.join(tempDir(), "node_modules")) {
  const main = path.join(modules, "ext");
  fs.mkdirSync(main, { recursive: true });
  const optionalDependencies = Object.fromEntries(Object.values(platforms).map((p) => [p.package, "1.0.0"]));
  fs.writeFileSync(path.join(main, "package.json"), JSON.stringify({ name: "ext", version: "1.0.0", optionalDependencies }));
  for (const name of installed) plant(layout === "hoisted" ? modules : path.join(main, "node_modules"), name);
  return main;
}

/** The problem when the platform package for linux-x64-gnu is not installed. */
const notInstalled = /^the binary for this platform \(linux-x64-gnu\) is in the npm package ext-linux-x64-gnu or @me\/ext-linux-x64-musl, which is not installed/;
/** @type {import("../lib/platform.js").Host} */
const linuxGnu = { platform: "linux", arch: "x64", libc: () => "glibc" };

test("a binary named in CONFIG is next to the bridge, relative or absolute", () => {
  assert.deepEqual(locateBinary({ name: "ext", binary: "./bin/ext" }, "/pkg"), { binary: path.resolve("/pkg/bin/ext") });
  assert.deepEqual(locateBinary({ name: "ext", binary: "/opt/ext" }, "/pkg"), { binary: "/opt/ext" });
  assert.match(String(locateBinary({ name: "ext" }, "/pkg").problem), /names no binary/);
});

for (const layout of /** @type {const} */ (["hoisted", "nested"])) {
  test(`the installed package for this platform is found (${layout}, as npm lays it out)`, () => {
    const here = npmLayout(["ext-linux-x64-gnu"], layout);
    // One installed package: the libc is not asked (Node's report costs milliseconds).
    const libc = () => assert.fail("the libc was asked");
    const found = locateBinary({ name: "ext", platforms }, here, { platform: "linux", arch: "x64", libc });
    assert.equal(found.binary, path.join(path.dirname(here), layout === "nested" ? "ext/node_modules" : "", "ext-linux-x64-gnu", "bin", "ext"));
    assert.equal(found.size, 20);
  });
}

test("with both a glibc and a musl package installed, this machine's libc decides", () => {
  const here = npmLayout(["ext-linux-x64-gnu", "@me/ext-linux-x64-musl"]);
  const musl = locateBinary({ name: "ext", platforms }, here, { platform: "linux", arch: "x64", libc: () => "musl" });
  assert.match(String(musl.binary), /@me\/ext-linux-x64-musl\/bin\/ext$/);
  assert.equal(musl.size, 30);
  const glibc = locateBinary({ name: "ext", platforms }, here, { platform: "linux", arch: "x64", libc: () => "glibc" });
  assert.match(String(glibc.binary), /ext-linux-x64-gnu\/bin\/ext$/);
});

test("no binary for this platform: the problem names it and what there is", () => {
  const here = npmLayout(["ext-darwin-arm64"]);
  const found = locateBinary({ name: "ext", platforms }, here, { platform: "win32", arch: "x64" });
  assert.equal(found.binary, undefined);
  assert.equal(
    found.problem,
    "no binary for this platform (win32-x64): the package has binaries for darwin-arm64, linux-x64-gnu, linux-x64-musl only. " +
      "Ask its author for a build for your platform, or build the extension from source with cargo.",
  );
  const arm = locateBinary({ name: "ext", platforms }, here, { platform: "linux", arch: "arm64", libc: () => "musl" });
  assert.match(String(arm.problem), /^no binary for this platform \(linux-arm64-musl\)/);
});

test("a platform package npm did not install: the problem names the platform and the package", () => {
  const here = npmLayout([]);
  const found = locateBinary({ name: "ext", platforms }, here, { platform: "linux", arch: "x64", libc: () => "glibc" });
  assert.match(
    String(found.problem),
    /^the binary for this platform \(linux-x64-gnu\) is in the npm package ext-linux-x64-gnu or @me\/ext-linux-x64-musl, which is not installed/,
  );
  assert.match(String(found.problem), /--omit=optional\) or when it was not published for this version: install ext@1\.0\.0 again with optional dependencies, which installs ext-linux-x64-gnu@1\.0\.0 or @me\/ext-linux-x64-musl@1\.0\.0\.$/);
});

test("npm hoisted the platform package to the top of the install tree, or the main package is scoped: found", () => {
  const root = tempDir();
  // `root/node_modules/foo/node_modules/ext`, its platform package hoisted to `root/node_modules`.
  const here = npmLayout([], "hoisted", path.join(root, "node_modules", "foo", "node_modules"));
  const top = plant(path.join(root, "node_modules"), "ext-linux-x64-gnu");
  assert.equal(locateBinary({ name: "ext", platforms }, here, linuxGnu).binary, path.join(top, "bin", "ext"));
  // A scoped main package beside its platform package (`node_modules/@me/ext`).
  const scoped = path.join(tempDir(), "node_modules");
  const main = path.join(scoped, "@me", "ext");
  fs.mkdirSync(main, { recursive: true });
  fs.writeFileSync(path.join(main, "package.json"), JSON.stringify({ name: "@me/ext", version: "1.0.0", optionalDependencies: { "@me/ext-linux-x64-musl": "1.0.0" } }));
  const musl = plant(scoped, "@me/ext-linux-x64-musl");
  assert.equal(locateBinary({ name: "ext", platforms }, main, { ...linuxGnu, libc: () => "musl" }).binary, path.join(musl, "bin", "ext"));
});

test("a look-alike outside the install tree (a parent's or the project's node_modules) is not run", () => {
  const parent = tempDir();
  const project = path.join(parent, "project");
  // `pi install -l`: the extension in the project's .pi/npm, look-alikes above it.
  const here = npmLayout([], "hoisted", path.join(project, ".pi", "npm", "node_modules"));
  plant(path.join(project, "node_modules"), "ext-linux-x64-gnu");
  plant(path.join(parent, "node_modules"), "ext-linux-x64-gnu");
  const found = locateBinary({ name: "ext", platforms }, here, linuxGnu);
  assert.equal(found.binary, undefined);
  assert.match(String(found.problem), notInstalled);
});

test("a look-alike in NODE_PATH, ~/.node_modules or ~/.node_libraries is not run", () => {
  const home = tempDir();
  const nodePath = tempDir();
  for (const dir of [nodePath, path.join(home, ".node_modules"), path.join(home, ".node_libraries")]) plant(dir, "ext-linux-x64-gnu");
  const here = npmLayout([]);
  // Node reads NODE_PATH and HOME when it starts: a fresh one, with the bridge's module.
  const script =
    `import { locateBinary } from ${JSON.stringify(new URL("../lib/platform.js", import.meta.url).href)};\n` +
    `const host = { platform: "linux", arch: "x64", libc: () => "glibc" };\n` +
    `console.log(JSON.stringify(locateBinary({ name: "ext", platforms: ${JSON.stringify(platforms)} }, ${JSON.stringify(here)}, host)));`;
  const run = spawnSync(process.execPath, ["--input-type=module", "-e", script], { env: { ...process.env, HOME: home, NODE_PATH: nodePath }, encoding: "utf8" });
  assert.equal(run.status, 0, run.stderr);
  const found = JSON.parse(run.stdout);
  assert.equal(found.binary, undefined, `ran ${found.binary}`);
  assert.match(String(found.problem), notInstalled);
});

test("a platform package of another version is not run, and the problem names what to install", () => {
  const modules = path.join(tempDir(), "node_modules");
  const here = npmLayout([], "hoisted", modules);
  const planted = plant(modules, "ext-linux-x64-gnu", "6.6.6");
  const found = locateBinary({ name: "ext", platforms }, here, linuxGnu);
  assert.equal(found.binary, undefined);
  assert.equal(
    found.problem,
    `the binary for this platform (linux-x64-gnu) is in the npm package ext-linux-x64-gnu@1.0.0, but the one installed (${planted}) ` +
      "is version 6.6.6, so it is not run: install ext@1.0.0 again, which installs ext-linux-x64-gnu@1.0.0.",
  );
});

test("a package without this platform's binary: pi is told why at session start, nothing is registered, nothing runs", async () => {
  const fake = fakePi();
  const dir = tempDir();
  /** @type {Record<string, import("../lib/platform.js").PlatformBinary>} */
  const foreign = process.platform === "darwin" ? { "win32-x64-msvc": { package: "ext-win32-x64-msvc", bin: "bin/ext.exe", os: "win32", cpu: "x64" } } : { "darwin-arm64": platforms["darwin-arm64"] };
  let launched = 0;
  await activate(fake.pi, {
    config: { name: "ext", platforms: foreign, cache: { manifest: manifestWith({ tools: [toolManifest("greet")] }) } },
    protocol: 1,
    here: dir,
    env: { PI_EXT_LOG_DIR: dir },
    argv: ["node", "pi", "--mode", "rpc"],
    launch: () => {
      launched++;
      throw new Error("must not start");
    },
  });
  assert.equal(fake.tools.size, 0);
  const { ctx, notes } = fakeCtx();
  await fake.emit("session_start", { type: "session_start", reason: "startup" }, ctx);
  assert.equal(launched, 0);
  assert.equal(notes.length, 1);
  assert.equal(notes[0].type, "error");
  assert.match(notes[0].message, new RegExp(`^pi-ext extension "ext": no binary for this platform \\(${process.platform}-${process.arch}`));
});
