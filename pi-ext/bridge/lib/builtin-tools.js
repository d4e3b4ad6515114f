// @ts-check
// pi's built-in tools re-registered by the extension: the tool definitions
// are pi's own (createBashToolDefinition, createReadToolDefinition, …:
// description, parameters, truncation, temp files, progress, error texts);
// bash, read, write, edit, ls and find may have their `operations` in the
// extension (requests `ops/bash`, `ops/read`, `ops/write`, `ops/edit`,
// `ops/ls`, `ops/find`, `ops/spawn-hook`), any of them its rows (`render`, see tui.js). Bytes travel
// as base64. A command's environment travels as the difference from the
// one the extension process was started with.

/** @typedef {typeof import("@mariozechner/pi-coding-agent")} PiModule */
/** @typedef {import("@mariozechner/pi-coding-agent").ExtensionContext} ExtensionContext */
/** @typedef {import("@mariozechner/pi-coding-agent").BashOperations} BashOperations */
/** @typedef {import("@mariozechner/pi-coding-agent").ReadOperations} ReadOperations */
/** @typedef {import("@mariozechner/pi-coding-agent").WriteOperations} WriteOperations */
/** @typedef {import("@mariozechner/pi-coding-agent").EditOperations} EditOperations */
/** @typedef {import("@mariozechner/pi-coding-agent").LsOperations} LsOperations */
/** @typedef {import("@mariozechner/pi-coding-agent").FindOperations} FindOperations */

/**
 * A built-in tool with Rust operations, in the manifest.
 * @typedef {object} BuiltinToolManifest
 * @property {string} tool "bash", "read", "write", "edit", "grep", "find" or "ls"
 * @property {string} [label]
 * @property {string} [commandPrefix]
 * @property {boolean} [operations] the extension runs the operations (bash, read, write, edit, ls, find)
 * @property {boolean} [spawnHook] the extension adjusts bash commands first
 * @property {{ call: boolean, result: boolean }} [render] the extension draws the rows
 */

/**
 * What the operations need of the bridge.
 * @typedef {object} OpsHost
 * @property {() => PiModule | undefined} pi pi's module (its tool factories), when loaded
 * @property {(method: string, params: Record<string, unknown>, o: { ctx?: ExtensionContext, signal?: AbortSignal, onData?: (data: unknown) => void }) => Promise<any>} request
 *   an `ops/*` request on behalf of a pi call; an abort rejects with Error("aborted")
 * @property {Record<string, string | undefined>} baseEnv the environment the extension process was started with
 * @property {(handle: number) => void} release the extension may drop the operations under `handle`
 */

/**
 * Which pi call operations serve: sent with every request (`tool`,
 * `toolCallId`; `handle` for a `user_bash` answer) and the call's context.
 * @typedef {{ params: Record<string, unknown>, ctx?: ExtensionContext }} OpsCall
 */

/**
 * The difference from `base` to `env`: what a command's environment adds or changes, and removes.
 * @param {Record<string, string | undefined>} env
 * @param {Record<string, string | undefined>} base
 */
export function envDelta(env, base) {
  /** @type {Record<string, string>} */
  const set = {};
  for (const [k, v] of Object.entries(env)) if (v !== undefined && base[k] !== v) set[k] = v;
  const unset = Object.keys(base).filter((k) => base[k] !== undefined && env[k] === undefined);
  return { set, unset };
}

/**
 * `base` with `delta` applied.
 * @param {unknown} delta
 * @param {Record<string, string | undefined>} base
 * @returns {Record<string, string>}
 */
export function applyEnvDelta(delta, base) {
  const d = /** @type {{ set?: Record<string, unknown>, unset?: unknown[] }} */ (delta ?? {});
  /** @type {Record<string, string>} */
  const env = {};
  for (const [k, v] of Object.entries(base)) if (v !== undefined) env[k] = v;
  for (const k of Array.isArray(d.unset) ? d.unset : []) delete env[String(k)];
  for (const [k, v] of Object.entries(d.set ?? {})) env[k] = String(v);
  return env;
}

/**
 * pi's BashOperations for `entry`: the spawn hook and/or the operations in
 * the extension, pi's own local shell for whatever the extension does not do.
 * @param {{ operations?: boolean, spawnHook?: boolean }} entry
 * @param {OpsHost} host
 * @param {OpsCall} call
 * @returns {BashOperations}
 */
export function bashOperations(entry, host, call) {
  return {
    exec: async (command, cwd, { onData, signal, timeout, env }) => {
      let run = { command, cwd, env: /** @type {Record<string, string | undefined>} */ (env ?? process.env) };
      if (entry.spawnHook) {
        const adjusted = await host.request(
          "ops/spawn-hook",
          { ...call.params, command, cwd, env: envDelta(run.env, host.baseEnv) },
          { ctx: call.ctx, signal },
        );
        run = { command: String(adjusted?.command ?? command), cwd: String(adjusted?.cwd ?? cwd), env: applyEnvDelta(adjusted?.env, host.baseEnv) };
      }
      if (!entry.operations) {
        const pi = host.pi();
        if (!pi) throw new Error("pi's local shell is not available to the bridge");
        return pi.createLocalBashOperations().exec(run.command, run.cwd, { onData, signal, timeout, env: /** @type {NodeJS.ProcessEnv} */ (run.env) });
      }
      const answer = await host.request(
        "ops/bash",
        { ...call.params, command: run.command, cwd: run.cwd, timeout: timeout ?? null, env: envDelta(run.env, host.baseEnv) },
        { ctx: call.ctx, signal, onData: (data) => typeof data === "string" && onData(Buffer.from(data, "base64")) },
      );
      // pi's contract: "aborted" and "timeout:<secs>" are told apart by message.
      if (answer?.aborted) throw new Error("aborted");
      if (answer?.timedOut) throw new Error(`timeout:${timeout}`);
      if (typeof answer?.error === "string") throw new Error(answer.error);
      return { exitCode: typeof answer?.exitCode === "number" ? answer.exitCode : null };
    },
  };
}

/**
 * pi's ReadOperations in the extension.
 * @param {OpsHost} host
 * @param {OpsCall} call
 * @returns {ReadOperations}
 */
export function readOperations(host, call) {
  /** @param {string} op @param {string} path */
  const ask = async (op, path) => {
    const answer = await host.request("ops/read", { ...call.params, op, path }, { ctx: call.ctx });
    throwIfError(answer);
    return answer;
  };
  return {
    readFile: async (path) => Buffer.from(String((await ask("readFile", path))?.data ?? ""), "base64"),
    access: async (path) => {
      await ask("access", path);
    },
    detectImageMimeType: async (path) => {
      const mime = (await ask("detectImageMimeType", path))?.mime;
      return typeof mime === "string" ? mime : null;
    },
  };
}

/**
 * Throw an operation's `{error, code?}` answer as pi's tools expect it: an
 * Error with Node's `code` when there is one (pi's edit shows "Error code: ENOENT").
 * @param {any} answer
 */
export function throwIfError(answer) {
  if (typeof answer?.error !== "string") return;
  const error = /** @type {Error & { code?: string }} */ (new Error(answer.error));
  if (typeof answer.code === "string") error.code = answer.code;
  throw error;
}

/**
 * Ask the extension for one file operation of `method` (`ops/write`,
 * `ops/edit`); its `{error}` is thrown as pi's error.
 * @param {OpsHost} host
 * @param {OpsCall} call
 * @param {string} method
 * @returns {(op: string, path: string, content?: string) => Promise<any>}
 */
function fileAsker(host, call, method) {
  return async (op, path, content) => {
    const answer = await host.request(method, { ...call.params, op, path, ...(content === undefined ? {} : { content }) }, { ctx: call.ctx });
    throwIfError(answer);
    return answer;
  };
}

/**
 * pi's WriteOperations in the extension.
 * @param {OpsHost} host
 * @param {OpsCall} call
 * @returns {WriteOperations}
 */
export function writeOperations(host, call) {
  const ask = fileAsker(host, call, "ops/write");
  return {
    writeFile: async (path, content) => {
      await ask("writeFile", path, content);
    },
    mkdir: async (dir) => {
      await ask("mkdir", dir);
    },
  };
}

/**
 * pi's EditOperations in the extension.
 * @param {OpsHost} host
 * @param {OpsCall} call
 * @returns {EditOperations}
 */
export function editOperations(host, call) {
  const ask = fileAsker(host, call, "ops/edit");
  return {
    readFile: async (path) => Buffer.from(String((await ask("readFile", path))?.data ?? ""), "base64"),
    writeFile: async (path, content) => {
      await ask("writeFile", path, content);
    },
    access: async (path) => {
      await ask("access", path);
    },
  };
}

/**
 * pi's LsOperations in the extension.
 * @param {OpsHost} host
 * @param {OpsCall} call
 * @returns {LsOperations}
 */
export function lsOperations(host, call) {
  const ask = fileAsker(host, call, "ops/ls");
  return {
    exists: async (path) => (await ask("exists", path))?.exists === true,
    stat: async (path) => {
      const dir = (await ask("stat", path))?.isDirectory === true;
      return { isDirectory: () => dir };
    },
    readdir: async (path) => {
      const entries = (await ask("readdir", path))?.entries;
      return Array.isArray(entries) ? entries.slice(0, MAX_LISTED).map(String) : [];
    },
  };
}

/** At most this many names or paths are taken from one answer (as the runtime sends). */
const MAX_LISTED = 100_000;

/**
 * pi's FindOperations in the extension.
 * @param {OpsHost} host
 * @param {OpsCall} call
 * @returns {FindOperations}
 */
export function findOperations(host, call) {
  /** @param {Record<string, unknown>} params */
  const ask = async (params) => {
    const answer = await host.request("ops/find", { ...call.params, ...params }, { ctx: call.ctx });
    throwIfError(answer);
    return answer;
  };
  return {
    exists: async (path) => (await ask({ op: "exists", path }))?.exists === true,
    glob: async (pattern, cwd, { ignore, limit }) => {
      const paths = (await ask({ op: "glob", path: cwd, pattern, ignore, limit }))?.paths;
      return Array.isArray(paths) ? paths.slice(0, Math.min(limit, MAX_LISTED)).map(String) : [];
    },
  };
}

/**
 * pi's tool definition for `entry`: pi's own, its operations in the
 * extension. Each call builds the tool for the call's working directory.
 * @param {BuiltinToolManifest} entry
 * @param {PiModule} pi
 * @param {OpsHost} host
 */
export function builtinToolDefinition(entry, pi, host) {
  // Without Rust operations, pi's own (bash: see bashOperations).
  const ops = entry.operations === true ? true : undefined;
  /**
   * @param {string} cwd
   * @param {OpsCall} call
   */
  const make = (cwd, call) => {
    switch (entry.tool) {
      case "bash":
        return pi.createBashToolDefinition(cwd, {
          ...(ops || entry.spawnHook ? { operations: bashOperations(entry, host, call) } : {}),
          ...(entry.commandPrefix ? { commandPrefix: entry.commandPrefix } : {}),
        });
      case "read":
        return pi.createReadToolDefinition(cwd, ops && { operations: readOperations(host, call) });
      case "write":
        return pi.createWriteToolDefinition(cwd, ops && { operations: writeOperations(host, call) });
      case "edit":
        return pi.createEditToolDefinition(cwd, ops && { operations: editOperations(host, call) });
      case "grep":
        return pi.createGrepToolDefinition(cwd);
      case "find":
        return pi.createFindToolDefinition(cwd, ops && { operations: findOperations(host, call) });
      case "ls":
        return pi.createLsToolDefinition(cwd, ops && { operations: lsOperations(host, call) });
      default:
        throw new Error(`pi has no built-in tool ${entry.tool}`);
    }
  };
  const base = /** @type {any} */ (make(process.cwd(), { params: {} }));
  return {
    ...base,
    ...(entry.label ? { label: entry.label } : {}),
    /**
     * @param {string} toolCallId
     * @param {any} params
     * @param {AbortSignal | undefined} signal
     * @param {any} onUpdate
     * @param {ExtensionContext | undefined} ctx
     */
    execute: (toolCallId, params, signal, onUpdate, ctx) => {
      const tool = /** @type {any} */ (make(ctx?.cwd ?? process.cwd(), { params: { tool: entry.tool, toolCallId }, ctx }));
      return tool.execute(toolCallId, params, signal, onUpdate, ctx);
    },
  };
}

/**
 * What pi's `user_bash` handler returns for the extension's answer: its
 * operations (the extension keeps them under `handle` until the command
 * ends), or its result.
 * @param {unknown} out
 * @param {OpsHost} host
 * @param {ExtensionContext | undefined} ctx
 */
export function userBashResult(out, host, ctx) {
  const answer = /** @type {{ operations?: { handle?: unknown }, result?: unknown } | null} */ (out);
  const handle = answer?.operations?.handle;
  if (typeof handle === "number") {
    const ops = bashOperations({ operations: true }, host, { params: { handle }, ctx });
    return {
      operations: {
        /** @type {BashOperations["exec"]} */
        exec: (command, cwd, options) => ops.exec(command, cwd, options).finally(() => host.release(handle)),
      },
    };
  }
  if (answer?.result !== undefined && answer.result !== null) return { result: answer.result };
  return undefined;
}
