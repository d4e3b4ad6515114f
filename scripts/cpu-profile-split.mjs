// @ts-check
// Prints where pi's thread spent its time, from the `.cpuprofile` files that
// `node --cpu-prof` wrote (scripts/profile-pi.sh makes them for benchmark rows).
//
//   node scripts/cpu-profile-split.mjs DIR [--events N] [--top K] [--under F1,F2]
//
// One block per profile (one pi process), named by the extensions it ran: a
// pi-ext bridge is an `index.js` outside node_modules, a TypeScript extension
// a `.ts` file. Self time is split into the bridge, pi's packages, jiti (pi's
// extension loader), JSON (the native `JSON.stringify`/`parse`), other native
// code, Node's own JavaScript, garbage collection and the rest; `--events N`
// adds µs per event (N: the events the pi handled, e.g. deltas × answers);
// `--under F1,F2` adds the time with a function of that name anywhere on the
// stack (e.g. `emitContext`, `structuredClone`), by the leaf's category.

import * as fs from "node:fs";
import * as path from "node:path";

/**
 * @typedef {{ functionName: string, url: string, lineNumber: number }} CallFrame
 * @typedef {{ id: number, callFrame: CallFrame, children?: number[] }} ProfileNode
 * @typedef {{ nodes: ProfileNode[], samples: number[], timeDeltas: number[], startTime: number, endTime: number }} Profile
 */

const args = process.argv.slice(2);
const dir = args[0];
if (!dir || dir.startsWith("--")) {
  console.error("usage: node scripts/cpu-profile-split.mjs DIR [--events N] [--top K]");
  process.exit(2);
}
/** @param {string} name @param {number} fallback */
const numberArg = (name, fallback) => {
  const at = args.indexOf(name);
  if (at < 0) return fallback;
  const n = Number(args[at + 1]);
  if (!Number.isFinite(n) || n <= 0) {
    console.error(`${name} needs a positive number`);
    process.exit(2);
  }
  return n;
};
const events = numberArg("--events", 0);
const top = numberArg("--top", 12);
const underAt = args.indexOf("--under");
/** Function names whose inclusive time is printed. */
const underNames = underAt < 0 ? [] : String(args[underAt + 1] ?? "").split(",").filter(Boolean);

/** Natives that are JSON's. */
const JSON_NATIVES = new Set(["stringify", "parse", "JSONSerialize", "JSONParse"]);

/**
 * The category of a frame's self time.
 * @param {CallFrame} f
 */
function category(f) {
  const { url, functionName: name } = f;
  if (name === "(garbage collector)") return "GC";
  if (name === "(idle)") return "idle";
  if (name === "(program)" || name === "(root)") return "V8/program";
  if (url === "") return JSON_NATIVES.has(name) ? "JSON" : "native";
  if (url.startsWith("node:")) return "node";
  if (/\/jiti\//.test(url)) return "jiti";
  if (/@(earendil-works|mariozechner)\/pi-/.test(url)) return "pi";
  if (/\/pi-ext\/bridge\/lib\//.test(url)) return "bridge";
  if (url.endsWith(".ts")) return "TS extension";
  // An installed extension's entry (`index.js`) and the shared bridge beside it
  // (`bridge.cjs`; `bridge.js` in older installs).
  if (!url.includes("/node_modules/") && /\/(index\.js|bridge\.c?js)$/.test(url)) return "bridge";
  return "other packages";
}

/**
 * The extensions a profile ran (bridges by directory, TS files by name).
 * @param {Profile} p
 */
function sideOf(p) {
  /** @type {Set<string>} */
  const names = new Set();
  for (const n of p.nodes) {
    const { url } = n.callFrame;
    const c = category(n.callFrame);
    if (c === "bridge") names.add(url.includes("/pi-ext/bridge/lib/") ? "pi-ext bridge (sources)" : path.basename(path.dirname(url)));
    else if (c === "TS extension") names.add(path.basename(url));
  }
  return names.size === 0 ? "no extension" : [...names].sort().join(" + ");
}

/** @param {number} us */
const ms = (us) => (us / 1000).toFixed(1);

const files = fs
  .readdirSync(dir)
  .filter((f) => f.endsWith(".cpuprofile"))
  .sort();
if (files.length === 0) {
  console.error(`no .cpuprofile in ${dir}`);
  process.exit(1);
}
for (const file of files) {
  /** @type {Profile} */
  const p = JSON.parse(fs.readFileSync(path.join(dir, file), "utf8"));
  /** @type {Map<number, ProfileNode>} */
  const byId = new Map(p.nodes.map((n) => [n.id, n]));
  /** @type {Map<number, number>} self µs per node */
  const self = new Map();
  for (let i = 0; i < p.samples.length; i++) {
    // A sample's delta is the time up to the next sample: it belongs to that one.
    const dt = p.timeDeltas[i + 1] ?? 0;
    self.set(p.samples[i], (self.get(p.samples[i]) ?? 0) + dt);
  }
  /** @type {Map<string, number>} */
  const byCategory = new Map();
  /** @type {Map<string, number>} self µs per function, per category */
  const byFunction = new Map();
  let total = 0;
  for (const [id, us] of self) {
    const node = byId.get(id);
    if (!node) continue;
    const c = category(node.callFrame);
    byCategory.set(c, (byCategory.get(c) ?? 0) + us);
    if (c !== "idle") total += us;
    const { functionName, url, lineNumber } = node.callFrame;
    const where = url ? `${path.basename(url)}:${lineNumber + 1}` : "native";
    const key = `${c}\t${functionName || "(anonymous)"} ${where}`;
    byFunction.set(key, (byFunction.get(key) ?? 0) + us);
  }
  const per = (/** @type {number} */ us) => (events > 0 ? `  ${(us / events).toFixed(2)} µs/event` : "");
  console.log(`\n== ${file}: ${sideOf(p)}`);
  console.log(`   busy ${ms(total)} ms (idle ${ms(byCategory.get("idle") ?? 0)} ms) over ${ms(p.endTime - p.startTime)} ms${per(total)}`);
  const cats = [...byCategory].filter(([c]) => c !== "idle").sort((a, b) => b[1] - a[1]);
  for (const [c, us] of cats) console.log(`   ${c.padEnd(16)} ${ms(us).padStart(9)} ms  ${((us / total) * 100).toFixed(1).padStart(5)} %${per(us)}`);
  // Inclusive: samples with a frame of this kind anywhere on the stack, by the leaf's category.
  /** @type {Map<number, number>} */
  const parent = new Map();
  for (const n of p.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  for (const kind of ["bridge", "jiti", "TS extension"]) {
    /** @type {Map<string, number>} */
    const under = new Map();
    let sum = 0;
    for (const [id, us] of self) {
      let at = /** @type {number | undefined} */ (id);
      let found = false;
      while (at !== undefined && !found) {
        const n = byId.get(at);
        if (n && category(n.callFrame) === kind) found = true;
        at = parent.get(at);
      }
      if (!found) continue;
      const leaf = category(/** @type {ProfileNode} */ (byId.get(id)).callFrame);
      under.set(leaf, (under.get(leaf) ?? 0) + us);
      sum += us;
    }
    if (sum === 0) continue;
    const parts = [...under].sort((a, b) => b[1] - a[1]).map(([c, us]) => `${c} ${ms(us)}`);
    console.log(`   with ${kind} on the stack: ${ms(sum)} ms${per(sum)} (by leaf: ${parts.join(", ")})`);
  }
  for (const name of underNames) {
    /** @type {Map<string, number>} */
    const under = new Map();
    let sum = 0;
    for (const [id, us] of self) {
      let at = /** @type {number | undefined} */ (id);
      let found = false;
      while (at !== undefined && !found) {
        const n = byId.get(at);
        if (n && n.callFrame.functionName === name) found = true;
        at = parent.get(at);
      }
      if (!found) continue;
      const leaf = byId.get(id)?.callFrame;
      const key = leaf ? `${category(leaf)} ${leaf.functionName || "(anonymous)"}` : "?";
      under.set(key, (under.get(key) ?? 0) + us);
      sum += us;
    }
    const parts = [...under].sort((a, b) => b[1] - a[1]).slice(0, 6).map(([c, us]) => `${c} ${ms(us)}`);
    console.log(`   under ${name}: ${ms(sum)} ms${per(sum)} (by leaf: ${parts.join(", ") || "none"})`);
  }
  console.log(`   top ${top} functions by self time:`);
  const fns = [...byFunction]
    .filter(([k]) => !k.startsWith("idle\t"))
    .sort((a, b) => b[1] - a[1])
    .slice(0, top);
  for (const [k, us] of fns) {
    const [c, fn] = k.split("\t");
    console.log(`     ${ms(us).padStart(8)} ms  ${c.padEnd(14)} ${fn}${per(us)}`);
  }
  const bridge = [...byFunction].filter(([k]) => k.startsWith("bridge\t")).sort((a, b) => b[1] - a[1]);
  if (bridge.length > 0) {
    console.log(`   the bridge's functions:`);
    for (const [k, us] of bridge.slice(0, top)) console.log(`     ${ms(us).padStart(8)} ms  ${k.split("\t")[1]}${per(us)}`);
  }
}
