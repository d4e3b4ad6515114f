// @ts-check
// pi's built-in tools without Rust operations (pi-ext built without its
// `builtin-tools` feature): the binary re-registers none, and a `user_bash`
// hook can answer with a result only.

/**
 * @param {unknown} _entry
 * @param {unknown} _pi
 * @param {unknown} _host
 * @returns {never}
 */
export function builtinToolDefinition(_entry, _pi, _host) {
  throw new Error("this extension was built without pi-ext's `builtin-tools` feature");
}

/**
 * What pi's `user_bash` handler returns for the extension's answer: its result.
 * @param {unknown} out
 * @param {unknown} _host
 * @param {unknown} _ctx
 */
export function userBashResult(out, _host, _ctx) {
  const answer = /** @type {{ result?: unknown } | null} */ (out);
  if (answer?.result !== undefined && answer.result !== null) return { result: answer.result };
  return undefined;
}
