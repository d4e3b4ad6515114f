// @ts-check
// Loading the shared bridge's file (bridge.cjs) with a code cache of its own.
//
// Node's compile cache, which pi turns on, holds what V8 compiled before the
// file ran, so the functions a start calls were compiled again at every
// start: about 1.4 of `activate`'s 2 ms. A code cache made after the first
// activation holds them too. It lives beside bridge.cjs, named after the
// content id `install` wrote into index.js: V8 itself checks only the
// source's length, and runs a cache made from other code of that length. It
// is written once, when missing or rejected (another Node or V8). In a
// directory it cannot write to there is no cache.

import { readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import { Script } from "node:vm";

/**
 * What {@link loadBridgeFile} gives.
 * @typedef {object} BridgeFile
 * @property {unknown} exports bridge.cjs's `module.exports`
 * @property {boolean} cached whether a code cache was used
 * @property {() => void} save write the code cache, if there was none to use (never throws)
 */

/**
 * `dir`/bridge.cjs, compiled with the code cache of content `id`, or
 * required as any file when `id` is null (the sources, unbuilt).
 * @param {string} dir
 * @param {string | null} id
 * @returns {BridgeFile}
 */
export function loadBridgeFile(dir, id) {
  const file = join(dir, "bridge.cjs");
  const require = createRequire(file);
  if (id === null || !/^[0-9a-f]{1,32}$/.test(id)) return { exports: require(file), cached: false, save() {} };
  const cacheFile = join(dir, `bridge-${id}.v8cache`);
  // `install` writes the file in ASCII, where Latin-1 is the same text and
  // is read without UTF-8's checks: 0.9 instead of 1.4 ms for the 470 KB
  // in a fresh Node (measured).
  const source = readFileSync(file, "latin1");
  /** @type {Buffer | undefined} */
  let cachedData;
  try {
    cachedData = readFileSync(cacheFile);
  } catch {
    cachedData = undefined;
  }
  // Node's own wrapper, on the file's first line: line numbers stay the file's.
  const script = new Script(`(function (module, require) {${source}\n})`, { filename: file, cachedData });
  const module = { exports: /** @type {unknown} */ ({}) };
  script.runInThisContext()(module, require);
  const cached = cachedData !== undefined && script.cachedDataRejected !== true;
  return {
    exports: module.exports,
    cached,
    save() {
      if (cached) return;
      const tmp = `${cacheFile}.${process.pid}.tmp`;
      try {
        writeFileSync(tmp, script.createCachedData());
        renameSync(tmp, cacheFile);
      } catch {
        try {
          rmSync(tmp, { force: true });
        } catch {
          // Nothing was written.
        }
      }
    },
  };
}
