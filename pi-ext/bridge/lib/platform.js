// @ts-check
// Where the extension's binary is. `install` and `pack` put its path in
// CONFIG.binary. The npm packages of `pack --npm` keep one binary per
// platform, each in its own package that npm installs only where it runs
// (optionalDependencies with os/cpu/libc); CONFIG.platforms lists them and
// the bridge finds the one installed next to it.

import { createRequire } from "node:module";
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
 * @property {(request: string) => string} [resolve] require.resolve from the bridge's directory
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
  const resolve = host.resolve ?? createRequire(path.join(here, "index.js")).resolve;
  const libc = host.libc ?? hostLibc;
  const entries = Object.entries(config.platforms);
  const matching = entries.filter(([, p]) => p.os === platform && p.cpu === arch);
  /** @type {Array<{ key: string, entry: PlatformBinary, dir: string }>} */
  const installed = [];
  for (const [key, entry] of matching) {
    try {
      installed.push({ key, entry, dir: path.dirname(resolve(`${entry.package}/package.json`)) });
    } catch {
      // Not installed: npm skipped it (another libc) or optional dependencies were omitted.
    }
  }
  // Both a glibc and a musl package installed (an npm that ignores `libc`): take this machine's.
  const chosen = installed.length > 1 ? (installed.find((i) => i.entry.libc === libc()) ?? installed[0]) : installed[0];
  if (chosen) return { binary: path.join(chosen.dir, chosen.entry.bin), size: chosen.entry.size };

  const name = platformName(platform, arch, platform === "linux" ? libc() : undefined);
  const built = entries.map(([key]) => key).join(", ") || "none";
  if (matching.length === 0) {
    return {
      problem:
        `no binary for this platform (${name}): the package has binaries for ${built} only. ` +
        "Ask its author for a build for your platform, or build the extension from source with cargo.",
    };
  }
  const packages = matching.map(([, p]) => p.package).join(" or ");
  return {
    problem:
      `the binary for this platform (${name}) is in the npm package ${packages}, which is not installed ` +
      `(the package has binaries for ${built}). npm leaves it out when optional dependencies are omitted ` +
      "(--omit=optional) or when it was not published for this version: install the extension again with optional dependencies.",
  };
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

/** This machine's C library on Linux: "glibc", "musl", or undefined if unknown. */
function hostLibc() {
  try {
    // Node's diagnostic report names the glibc it runs on; musl builds have none.
    const report = /** @type {any} */ (process.report?.getReport());
    if (!report?.header) return undefined;
    return report.header.glibcVersionRuntime ? "glibc" : "musl";
  } catch {
    return undefined;
  }
}
