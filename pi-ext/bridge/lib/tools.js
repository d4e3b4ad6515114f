// @ts-check
// A tool's `prepareArguments`, run in a short run of the binary (pi calls it
// synchronously).

import { spawnSync } from "node:child_process";

/** How long a `prepareArguments` run of the binary may take (pi waits for it: it is synchronous). */
export const PREPARE_TIMEOUT_MS = 5000;

/**
 * A tool's `prepareArguments`: pi calls it synchronously, before it
 * validates the arguments, so it runs the extension's function in a short
 * run of the binary (`<bin> --pi-prepare-arguments <tool>`, the raw
 * arguments as JSON on stdin, the prepared ones on stdout). A failure
 * throws, and pi gives the model that error as the call's result.
 * @param {{ binary: string, env: NodeJS.ProcessEnv, tool: string, args: unknown, log: import("./log.js").Log, timeoutMs?: number }} o
 * @returns {unknown}
 */
export function prepareArgumentsSync(o) {
  const input = JSON.stringify(o.args ?? null);
  const run = spawnSync(o.binary, ["--pi-prepare-arguments", o.tool], {
    input,
    env: o.env,
    timeout: o.timeoutMs ?? PREPARE_TIMEOUT_MS,
    maxBuffer: 64 * 1024 * 1024,
    encoding: "utf8",
    windowsHide: true,
  });
  const fail = (/** @type {string} */ why) => {
    o.log.line("warn", `prepareArguments of tool ${o.tool}: ${why}`);
    return new Error(`preparing the arguments of tool \`${o.tool}\` failed: ${why}`);
  };
  if (run.error) throw fail(messageOfError(run.error));
  if (run.status !== 0) throw fail(String(run.stderr ?? "").trim() || `the binary exited with ${run.status ?? run.signal}`);
  try {
    return JSON.parse(String(run.stdout));
  } catch {
    throw fail("the binary's answer is not JSON");
  }
}

/** @param {unknown} err */
function messageOfError(err) {
  const e = /** @type {{ code?: string, message?: string }} */ (err);
  return e?.code === "ETIMEDOUT" ? `no answer within ${PREPARE_TIMEOUT_MS} ms` : String(e?.message ?? err);
}
