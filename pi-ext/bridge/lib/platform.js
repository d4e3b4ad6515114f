// @ts-check
// Where the extension's binary is. `install` and `pack` put its path in
// CONFIG.binary. The npm packages of `pack --npm` keep one binary per
// platform, each in its own package that npm installs only where it runs
// (optionalDependencies with os/cpu/libc); CONFIG.platforms lists them and
// the bridge finds the one npm installed for its own package: only where
// npm puts a dependency (the package's own node_modules, or a node_modules
// it was hoisted to within the same install tree), never through Node's
// global paths (NODE_PATH, ~/.node_modules, a parent's node_modules), and
// only at the main package's version.

import * as fs from "node:fs";
import * as path from "node:path";

/**
 * One platform's binary in CONFIG.platforms (keyed by npm's platform name,
 * e.g. "linux-x64-gnu").
 * @typedef {object} PlatformBinary
 * @property {string} package the npm package that holds it
 * @property {string} bin its path inside that package
 * @property {string} os Node's `process.platform`
 * @property {string} cpu Node's `process.arch`
 * @property {string} [libc] "glibc" or "musl" (Linux)
 * @property {number} [size] its size, which the recorded manifest belongs to
 */

/**
 * The machine the bridge runs on, and how it finds packages (tests give their own).
 * @typedef {object} Host
 * @property {string} [platform]
 * @property {string} [arch]
 * @property {() => string | undefined} [libc] "glibc", "musl" or undefined
 */

/**
 * The binary to run: `{ binary, size }` (size: what the recorded manifest
 * belongs to, when the package recorded one per platform), or `{ problem }`
 * saying why there is none for this machine, naming its platform.
 * @param {import("./manifest.js").Config} config
 * @param {string} here the bridge's directory
 * @param {Host} [host]
 * @returns {{ binary: string, size?: number, problem?: undefined } | { problem: string, binary?: undefined, size?: undefined }}
 */
export function locateBinary(config, here, host = {}) {
  if (!config.platforms) {
    if (typeof config.binary !== "string") return { problem: "its CONFIG names no binary: run `<binary> install` again" };
    return { binary: path.resolve(here, config.binary) };
  }
  const platform = host.platform ?? process.platform;
  const arch = host.arch ?? process.arch;
  const libc = host.libc ?? hostLibc;
  const entries = Object.entries(config.platforms);
  const matching = entries.filter(([, p]) => p.os === platform && p.cpu === arch);
  // Only for the messages: asking Node for the libc costs 2-4 ms (its diagnostic report).
  const name = () => platformName(platform, arch, platform === "linux" ? libc() : undefined);
  const built = entries.map(([key]) => key).join(", ") || "none";
  if (matching.length === 0) {
    return {
      problem:
        `no binary for this platform (${name()}): the package has binaries for ${built} only. ` +
        "Ask its author for a build for your platform, or build the extension from source with cargo.",
    };
  }
  const main = readPackage(here);
  if (!main || typeof main.version !== "string") {
    return { problem: `its package.json (${path.join(here, "package.json")}) cannot be read or names no version: install the extension again` };
  }
  const version = main.version;
  const dependencies = main.optionalDependencies ?? {};
  /** @type {Array<{ entry: PlatformBinary, dir: string }>} */
  const installed = [];
  /** @type {Array<{ entry: PlatformBinary, dir: string, version: unknown }>} */
  const mismatched = [];
  for (const [, entry] of matching) {
    // Only a platform package the main package depends on, found as npm lays it out.
    if (!Object.hasOwn(dependencies, entry.package)) continue;
    const found = installedPackage(here, entry.package);
    if (!found) continue; // npm skipped it (another libc) or optional dependencies were omitted
    if (found.version === version) installed.push({ entry, dir: found.dir });
    else mismatched.push({ entry, ...found });
  }
  // Both a glibc and a musl package installed (an npm that ignores `libc`): take this machine's.
  const chosen = installed.length > 1 ? (installed.find((i) => i.entry.libc === libc()) ?? installed[0]) : installed[0];
  if (chosen) return { binary: path.join(chosen.dir, chosen.entry.bin), size: chosen.entry.size };

  const again = `install ${String(main.name ?? config.name)}@${version} again`;
  const wrong = mismatched[0];
  if (wrong) {
    const wanted = `${wrong.entry.package}@${version}`;
    return {
      problem:
        `the binary for this platform (${name()}) is in the npm package ${wanted}, but the one installed ` +
        `(${wrong.dir}) is version ${String(wrong.version)}, so it is not run: ${again}, which installs ${wanted}.`,
    };
  }
  const packages = matching.map(([, p]) => p.package).join(" or ");
  const wanted = matching.map(([, p]) => `${p.package}@${version}`).join(" or ");
  return {
    problem:
      `the binary for this platform (${name()}) is in the npm package ${packages}, which is not installed ` +
      `(the package has binaries for ${built}). npm leaves it out when optional dependencies are omitted ` +
      `(--omit=optional) or when it was not published for this version: ${again} with optional dependencies, which installs ${wanted}.`,
  };
}

/**
 * The package `name` as npm installs a dependency of the package in `here`:
 * the nearest of `here/node_modules/<name>` and the node_modules directories
 * `here` itself sits in (npm hoists a dependency up to the top of the install
 * tree; pnpm keeps it beside the package). The walk stops where the tree of
 * node_modules ends, so nothing outside the install (a project's or a home's
 * node_modules, NODE_PATH) is looked at. Its directory and version, or
 * undefined when none of those places has a package of that name.
 * @param {string} here the main package's directory
 * @param {string} name
 * @returns {{ dir: string, version: unknown } | undefined}
 */
export function installedPackage(here, name) {
  const places = [path.join(here, "node_modules")];
  let dir = path.resolve(here);
  // Each step leaves one package (`node_modules/<pkg>` or `node_modules/@scope/<pkg>`).
  for (let depth = 0; depth < 64; depth++) {
    let parent = path.dirname(dir);
    if (path.basename(parent).startsWith("@")) parent = path.dirname(parent);
    if (path.basename(parent) !== "node_modules") break;
    places.push(parent);
    dir = path.dirname(parent);
  }
  for (const place of places) {
    const dir = path.join(place, name);
    const pkg = readPackage(dir);
    if (pkg?.name === name) return { dir, version: pkg.version };
  }
  return undefined;
}

/**
 * The package.json in `dir`, or undefined when there is none or it is not JSON.
 * @param {string} dir
 * @returns {{ name?: unknown, version?: unknown, optionalDependencies?: Record<string, unknown> } | undefined}
 */
function readPackage(dir) {
  try {
    const pkg = JSON.parse(fs.readFileSync(path.join(dir, "package.json"), "utf8"));
    return pkg !== null && typeof pkg === "object" ? pkg : undefined;
  } catch {
    return undefined;
  }
}

/**
 * npm's name for a platform: "linux-x64-gnu", "darwin-arm64", "win32-x64".
 * @param {string} platform
 * @param {string} arch
 * @param {string | undefined} libc
 */
function platformName(platform, arch, libc) {
  const suffix = libc === "glibc" ? "-gnu" : libc === "musl" ? "-musl" : "";
  return `${platform}-${arch}${suffix}`;
}

/** What {@link hostLibc} found: once per pi process (null: not asked yet). */
let libcFound = /** @type {string | undefined | null} */ (null);

/** This machine's C library on Linux: "glibc", "musl", or undefined if unknown. */
function hostLibc() {
  if (libcFound !== null) return libcFound;
  try {
    // Node's diagnostic report names the glibc it runs on; musl builds have none.
    const report = /** @type {any} */ (process.report?.getReport());
    libcFound = !report?.header ? undefined : report.header.glibcVersionRuntime ? "glibc" : "musl";
  } catch {
    libcFound = undefined;
  }
  return libcFound;
}
