// @ts-check
// Finding the binary: next to the bridge, or in the npm package for this platform.
import assert from "node:assert/strict";
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
 * An npm layout: `<root>/node_modules/ext/index.js` (the bridge's place) and
 * the given platform packages installed beside it; returns the bridge's directory.
 * @param {string[]} installed package names
 * @param {"hoisted" | "nested"} layout hoisted (a project's node_modules) or nested (npm install -g)
 */
function npmLayout(installed, layout = "hoisted") {
  const root = tempDir();
  const main = path.join(root, "node_modules", "ext");
  fs.mkdirSync(main, { recursive: true });
  for (const name of installed) {
    const dir = layout === "hoisted" ? path.join(root, "node_modules", name) : path.join(main, "node_modules", name);
    fs.mkdirSync(path.join(dir, "bin"), { recursive: true });
    fs.writeFileSync(path.join(dir, "package.json"), JSON.stringify({ name, version: "1.0.0" }));
    fs.writeFileSync(path.join(dir, "bin", "ext"), "binary");
  }
  return main;
}

test("a binary named in CONFIG is next to the bridge, relative or absolute", () => {
  assert.deepEqual(locateBinary({ name: "ext", binary: "./bin/ext" }, "/pkg"), { binary: path.resolve("/pkg/bin/ext") });
  assert.deepEqual(locateBinary({ name: "ext", binary: "/opt/ext" }, "/pkg"), { binary: "/opt/ext" });
  assert.match(String(locateBinary({ name: "ext" }, "/pkg").problem), /names no binary/);
});

for (const layout of /** @type {const} */ (["hoisted", "nested"])) {
  test(`the installed package for this platform is found (${layout}, as npm lays it out)`, () => {
    const here = npmLayout(["ext-linux-x64-gnu"], layout);
    const found = locateBinary({ name: "ext", platforms }, here, { platform: "linux", arch: "x64" });
    assert.equal(found.binary, path.join(fs.realpathSync(path.dirname(here)), layout === "nested" ? "ext/node_modules" : "", "ext-linux-x64-gnu", "bin", "ext"));
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
  assert.match(String(found.problem), /--omit=optional/);
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
