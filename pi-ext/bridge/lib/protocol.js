// @ts-check
// Constants of the bridge ⇄ extension protocol (pi-ext/PROTOCOL.md). The
// protocol version is in index.js, next to CONFIG.

/** The bridge's version, sent in `initialize` (and to the child as PI_EXT_BRIDGE). */
export const BRIDGE_VERSION = "0.1.0";

/**
 * JSON-RPC error codes: the same as Rust's `pi_ext::protocol::codes` (a Rust
 * unit test in install.rs compares the two lists).
 */
export const codes = Object.freeze({
  PARSE_ERROR: -32700,
  INVALID_REQUEST: -32600,
  METHOD_NOT_FOUND: -32601,
  INVALID_PARAMS: -32602,
  INTERNAL_ERROR: -32603,
  VERSION_MISMATCH: -32000,
  UNKNOWN_TOOL: -32001,
  CANCELLED: -32002,
  NO_UI: -32003,
  HANDLER_FAILED: -32004,
  BUSY: -32005,
  NOT_INITIALIZED: -32006,
  UNKNOWN_MODEL: -32020,
  MODEL_AUTH: -32021,
  SESSION_ENDED: -32022,
  NO_MODEL: -32023,
  MIRROR_MISMATCH: -32010,
});

/** An error with a protocol code: from the extension's answer, or for the bridge's own answers. */
export class RpcError extends Error {
  /**
   * @param {number | undefined} code
   * @param {string} message
   */
  constructor(code, message) {
    super(message);
    this.name = "RpcError";
    this.code = code;
  }

  /**
   * The error object of an answer (`{code, message}`), whatever its shape.
   * @param {unknown} error
   */
  static fromWire(error) {
    const e = /** @type {{ code?: unknown, message?: unknown } | null | undefined} */ (
      typeof error === "object" ? error : undefined
    );
    return new RpcError(typeof e?.code === "number" ? e.code : undefined, String(e?.message ?? "extension error"));
  }
}

/**
 * The message of anything thrown.
 * @param {unknown} err
 */
export function messageOf(err) {
  return err instanceof Error ? err.message : String(err);
}
