// @ts-check
// pi's startup lines for each extension (`PI_TIMING=1`: "module import" and
// "factory"), in microseconds instead of whole milliseconds, over many
// alternating starts: what one extension costs pi's startup, where row 4b of
// the benchmark only has pi's TOTAL at 1 ms resolution.
//
//   node_modules/.bin/node scripts/startup-split.mjs [--starts N] ENTRY...
//
// ENTRY: an extension pi loads with `-e` (an installed `index.js`, a `.ts`).
// pi prints its timings with `Date.now()`. The script copies the pinned pi to
// target/pi-timing/ once (its dependencies still resolve from the project's
// node_modules) with that one function reading `performance.now()` instead,
// and runs the copy in RPC mode with stdin closed, so that pi exits after
// loading. A copy of pi, not pi: use it to split a cost, and the benchmark to
// judge one.

import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { fileURLToPath } from "node:url";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const PACKAGE = path.join("@earendil-works", "pi-coding-agent");

const args = process.argv.slice(2);
let starts = 20;
/** @type {string[]} */
const entries = [];
for (let i = 0; i < args.length; i++) {
  if (args[i] === "--starts") {
    starts = Number(args[++i]);
    if (!Number.isInteger(starts) || starts < 1) fail("--starts needs a positive whole number");
  } else entries.push(path.resolve(args[i]));
}
if (entries.length === 0) fail("usage: node scripts/startup-split.mjs [--starts N] ENTRY...");

/** @param {string} why @returns {never} */
function fail(why) {
  console.error(`startup-split: ${why}`);
  process.exit(2);
}

/**
 * The copy of the pinned pi with its startup timings in fractions of a
 * millisecond (made once per pi version).
 * @returns {string} its cli.js
 */
function timingPi() {
  const original = path.join(root, "node_modules", PACKAGE);
  const version = JSON.parse(fs.readFileSync(path.join(original, "package.json"), "utf8")).version;
  const copy = path.join(root, "target", "pi-timing", "node_modules", PACKAGE);
  const cli = path.join(copy, "dist", "bundle", "cli.js");
  const stamp = path.join(copy, ".pi-timing");
  if (fs.existsSync(stamp) && fs.readFileSync(stamp, "utf8") === version) return cli;
  fs.rmSync(copy, { recursive: true, force: true });
  fs.cpSync(original, copy, { recursive: true });
  const chunks = path.join(copy, "dist", "bundle", "chunks");
  // pi's timings module, as its bundle has it (pi 1.6.0).
  const edits = [
    ["timingNamespaces.set(namespace,{timings:[],lastTime:Date.now()})", "timingNamespaces.set(namespace,{timings:[],lastTime:performance.now()})"],
    ["let now=Date.now();timingNamespaces.has(namespace)", "let now=performance.now();timingNamespaces.has(namespace)"],
    ["console.error(`  ${t.label}: ${t.ms}ms`)", "console.error(`  ${t.label}: ${t.ms.toFixed(3)}ms`)"],
    ["console.error(`  TOTAL: ${printableTimings.reduce((a,b)=>a+b.ms,0)}ms`)", "console.error(`  TOTAL: ${printableTimings.reduce((a,b)=>a+b.ms,0).toFixed(3)}ms`)"],
  ];
  const file = fs
    .readdirSync(chunks)
    .map((f) => path.join(chunks, f))
    .find((f) => fs.readFileSync(f, "utf8").includes(edits[0][0]));
  if (!file) fail(`pi ${version}'s bundle has no timings module this script knows; update its edits`);
  let source = fs.readFileSync(file, "utf8");
  for (const [from, to] of edits) {
    if (source.split(from).length !== 2) fail(`pi ${version}'s timings differ from what this script edits (${from})`);
    source = source.replace(from, to);
  }
  fs.writeFileSync(file, source);
  fs.writeFileSync(stamp, version);
  return cli;
}

/**
 * One start of pi with `entry`: its lines for the extension, and pi's TOTAL.
 * @param {string} cli
 * @param {string} entry
 * @param {string} agentDir
 */
function start(cli, entry, agentDir) {
  const run = spawnSync(process.execPath, [cli, "--mode", "rpc", "--no-extensions", "-e", entry], {
    env: { ...process.env, PI_TIMING: "1", PI_CODING_AGENT_DIR: agentDir },
    input: "",
    encoding: "utf8",
    timeout: 60_000,
  });
  const out = `${run.stdout}${run.stderr}`;
  /** @param {RegExp} re */
  const number = (re) => {
    const m = out.match(re);
    if (!m) fail(`pi printed no ${re} for ${entry}:\n${out}`);
    return Number(m[1]);
  };
  return {
    import: number(/ module import: ([\d.]+)ms/),
    factory: number(/ factory: ([\d.]+)ms/),
    total: number(/Startup Timings: main ---[\s\S]*?TOTAL: ([\d.]+)ms/),
  };
}

/** @param {number[]} xs */
function median(xs) {
  const s = [...xs].sort((a, b) => a - b);
  const mid = s.length >> 1;
  return s.length % 2 ? s[mid] : (s[mid - 1] + s[mid]) / 2;
}

const cli = timingPi();
const agentDir = fs.mkdtempSync(path.join(os.tmpdir(), "pi-ext-startup-"));
// On "exit", not in a `finally`: `fail` ends the process with `process.exit`.
process.on("exit", () => fs.rmSync(agentDir, { recursive: true, force: true }));
/** @type {Map<string, { import: number, factory: number, total: number }[]>} */
const runs = new Map(entries.map((e) => [e, []]));
// One start each first: a transform cache to fill, a code cache to write.
for (const e of entries) start(cli, e, agentDir);
for (let i = 0; i < starts; i++) for (const e of entries) runs.get(e)?.push(start(cli, e, agentDir));
console.log(`medians of ${starts} starts each, alternating (ms): module import + factory = the extension's; pi's TOTAL`);
for (const [e, rs] of runs) {
  const own = median(rs.map((r) => r.import + r.factory));
  console.log(
    `${median(rs.map((r) => r.import)).toFixed(2)} + ${median(rs.map((r) => r.factory)).toFixed(2)} = ${own.toFixed(2)}; TOTAL ${median(rs.map((r) => r.total)).toFixed(2)}  ${path.relative(process.cwd(), e)}`,
  );
}
