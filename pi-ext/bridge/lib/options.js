// @ts-check
// The bridge's limits and timeouts, with their environment overrides.

const MiB = 1024 * 1024;

/**
 * @typedef {object} Limits
 * @property {number} handshakeTimeoutMs how long `initialize` may take (PI_EXT_HANDSHAKE_TIMEOUT_MS)
 * @property {number} hookTimeoutMs default deadline of a hook call (PI_EXT_HOOK_TIMEOUT_MS)
 * @property {number} livenessTimeoutMs how long a ping may go unanswered (PI_EXT_LIVENESS_TIMEOUT_MS)
 * @property {number} pingIntervalMs how often the bridge pings while it waits on the extension
 * @property {number} maxLineBytes the longest protocol line, both directions (PI_EXT_MAX_LINE_BYTES)
 * @property {number} logMaxBytes the log is rotated when it would grow past this
 * @property {number} shutdownGraceMs how long a stopping child may take before it is killed
 * @property {number} drainMs how long calls in flight may finish at session_shutdown or a hot reload
 */

/**
 * The limits, from `env` where it sets them (a value that is not a positive
 * number is ignored: `NaN` would make every timer fire at once).
 * @param {Record<string, string | undefined>} env
 * @returns {Limits}
 */
export function limitsFrom(env) {
  const livenessTimeoutMs = positive(env.PI_EXT_LIVENESS_TIMEOUT_MS, 10_000);
  return {
    handshakeTimeoutMs: positive(env.PI_EXT_HANDSHAKE_TIMEOUT_MS, 10_000),
    hookTimeoutMs: positive(env.PI_EXT_HOOK_TIMEOUT_MS, 30_000),
    livenessTimeoutMs,
    // Every 5 s, or more often when the timeout is shorter, so that a stuck
    // process is noticed within about one timeout.
    pingIntervalMs: Math.min(5_000, Math.max(1, Math.floor(livenessTimeoutMs / 2))),
    maxLineBytes: positive(env.PI_EXT_MAX_LINE_BYTES, 64 * MiB),
    logMaxBytes: 10 * MiB,
    shutdownGraceMs: 1_000,
    drainMs: 10_000,
  };
}

/**
 * @param {string | undefined} text
 * @param {number} fallback
 */
function positive(text, fallback) {
  const n = Number(text);
  return text !== undefined && text !== "" && Number.isFinite(n) && n > 0 ? n : fallback;
}

/**
 * A duration for messages: "30 s", "1.5 s", "250 ms".
 * @param {number} ms
 */
export function seconds(ms) {
  return ms < 1000 ? `${ms} ms` : `${Math.round(ms / 100) / 10} s`;
}
