// @ts-check
// Sessions other than the current one: pi's list of saved sessions
// (`SessionManager.list` / `listAll`) and another session file read whole,
// for `ctx.sessions()` and `ctx.open_session(path)`.
//
// Reading never writes: pi's `SessionManager.open` initialises an empty file
// and rewrites an old-version one on load, so the file is parsed here and
// handed to an in-memory manager (pi's migration and tree, no persistence).

import { readFileSync, statSync } from "node:fs";

/** The largest session file read whole (the extension's protocol line limit is 64 MiB). */
export const MAX_SESSION_FILE_BYTES = 32 << 20;

/**
 * What of pi's module this needs.
 * @typedef {object} SessionsModule
 * @property {any} SessionManager
 * @property {((text: string) => unknown[]) | undefined} [parseSessionEntries]
 */

/**
 * pi's `SessionInfo` with its dates as ISO strings (JSON has no dates).
 * @param {any} info
 */
function infoJson(info) {
  const iso = (/** @type {unknown} */ d) => (d instanceof Date ? d.toISOString() : typeof d === "string" ? d : null);
  return {
    path: String(info.path ?? ""),
    id: String(info.id ?? ""),
    cwd: String(info.cwd ?? ""),
    name: typeof info.name === "string" ? info.name : null,
    parentSessionPath: typeof info.parentSessionPath === "string" ? info.parentSessionPath : null,
    created: iso(info.created),
    modified: iso(info.modified),
    messageCount: Number(info.messageCount ?? 0),
    firstMessage: String(info.firstMessage ?? ""),
  };
}

/**
 * The saved sessions `/resume` lists: of the session's working directory,
 * or (`all`) of every directory, in the session's own session directory
 * when pi was started with one (`--session-dir`); most recent first.
 * @param {SessionsModule} pi
 * @param {any} sm the current session's `SessionManager`
 * @param {boolean} all
 * @param {AbortSignal} [signal]
 */
export async function listSessions(pi, sm, all, signal) {
  const SM = pi.SessionManager;
  if (!SM || typeof SM.list !== "function") throw new Error("this pi has no SessionManager.list");
  const dir = typeof sm.getSessionDir === "function" ? sm.getSessionDir() : undefined;
  const infos = !all
    ? await SM.list(sm.getCwd(), dir, undefined, signal)
    : typeof sm.usesDefaultSessionDir === "function" && !sm.usesDefaultSessionDir()
      ? await SM.listAll(dir, undefined, signal)
      : await SM.listAll(undefined, signal);
  return (Array.isArray(infos) ? infos : []).map(infoJson);
}

/**
 * A session file's header and entries, without writing to it.
 * @param {SessionsModule} pi
 * @param {unknown} path
 */
export function openSession(pi, path) {
  if (typeof path !== "string" || path === "") throw new Error("a session file's path is needed");
  let size;
  try {
    const stat = statSync(path);
    if (!stat.isFile()) throw new Error(`${path} is not a file`);
    size = stat.size;
  } catch (e) {
    const code = /** @type {{ code?: string }} */ (e).code;
    if (code === "ENOENT") throw new Error(`no session file at ${path}`);
    throw e;
  }
  if (size > MAX_SESSION_FILE_BYTES) {
    throw new Error(
      `${path} is ${(size / 2 ** 20).toFixed(1)} MiB: a session file is read whole up to ${MAX_SESSION_FILE_BYTES >> 20} MiB`,
    );
  }
  const text = readFileSync(path, "utf8");
  const entries = pi.parseSessionEntries ? pi.parseSessionEntries(text) : parseLines(text);
  const header = /** @type {any} */ (entries.find((e) => /** @type {any} */ (e)?.type === "session"));
  if (!header || typeof header.id !== "string") throw new Error(`${path} is not a pi session (it has no session header)`);
  const manager = pi.SessionManager.inMemory(typeof header.cwd === "string" ? header.cwd : undefined, undefined, entries);
  if (manager.getHeader?.()?.id !== header.id) {
    // A pi whose in-memory manager takes no entries (before 1.x): the file as it is.
    const last = /** @type {any} */ (entries[entries.length - 1]);
    const name = entries.filter((e) => /** @type {any} */ (e)?.type === "session_info").pop();
    return {
      header,
      entries: entries.filter((e) => e !== header),
      leafId: last && last !== header ? String(last.id) : null,
      name: /** @type {any} */ (name)?.name?.trim() || null,
    };
  }
  return {
    header: manager.getHeader?.() ?? header,
    entries: manager.getEntries(),
    leafId: manager.getLeafId() ?? null,
    name: manager.getSessionName?.() ?? null,
  };
}

/**
 * pi's own line parsing (for a pi without `parseSessionEntries`): one JSON
 * value per line, malformed lines skipped.
 * @param {string} text
 */
function parseLines(text) {
  /** @type {unknown[]} */
  const entries = [];
  for (const line of text.split("\n")) {
    if (!line.trim()) continue;
    try {
      entries.push(JSON.parse(line));
    } catch {
      // as pi: a malformed line is skipped
    }
  }
  return entries;
}
