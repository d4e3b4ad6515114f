// @ts-check
// Terminal queries for the extension (`ui/query-terminal`): the bridge
// writes only the queries it knows, built here from their parameters (no
// bytes of the extension's reach the terminal), and takes from pi's input
// only what has the shape of their reply. pi-tui hands input listeners one
// sequence at a time, so a reply arrives whole and alone.

const ESC = "\x1b";
/** OSC replies end with BEL or ST. */
const OSC_END = "(?:\\x07|\\x1b\\\\)";

/**
 * The bytes to write and the reply's shape for a query from the extension.
 * @param {unknown} query
 * @returns {{ send: string, reply: RegExp }}
 */
export function terminalQuery(query) {
  const q = /** @type {{ kind?: unknown, code?: unknown, index?: unknown, query?: unknown }} */ (query ?? {});
  const int = (/** @type {unknown} */ v, /** @type {number} */ lo, /** @type {number} */ hi) =>
    typeof v === "number" && Number.isInteger(v) && v >= lo && v <= hi ? v : undefined;
  if (q.kind === "osc") {
    const code = int(q.code, 10, 19);
    if (code === undefined) throw new Error(`OSC colour queries are 10 to 19, not ${JSON.stringify(q.code)}`);
    return { send: `${ESC}]${code};?\x07`, reply: new RegExp(`^\\x1b\\]${code};[^\\x07\\x1b]*${OSC_END}$`) };
  }
  if (q.kind === "palette") {
    const index = int(q.index, 0, 255);
    if (index === undefined) throw new Error(`palette indexes are 0 to 255, not ${JSON.stringify(q.index)}`);
    return { send: `${ESC}]4;${index};?\x07`, reply: new RegExp(`^\\x1b\\]4;${index};[^\\x07\\x1b]*${OSC_END}$`) };
  }
  if (q.kind === "csi" && typeof q.query === "string") {
    const s = q.query;
    /** @type {RegExp | undefined} */
    let reply;
    if (s === "c") reply = /^\x1b\[\?[\d;]*c$/;
    else if (s === ">c") reply = /^\x1b\[>[\d;]*c$/;
    else if (s === "14t" || s === "16t" || s === "18t") reply = new RegExp(`^\\x1b\\[${s[1]};\\d+;\\d+t$`);
    else if (s === "?u") reply = /^\x1b\[\?\d+u$/;
    else {
      const mode = /^\?(\d{1,5})\$p$/.exec(s)?.[1];
      if (mode) reply = new RegExp(`^\\x1b\\[\\?${mode};\\d+\\$y$`);
    }
    if (reply) return { send: `${ESC}[${s}`, reply };
  }
  throw new Error(`pi-ext knows no terminal query ${JSON.stringify(query)}`);
}

/**
 * Queries waiting for their replies, over pi's terminal input: one input
 * listener while any waits, each reply to the oldest query of its shape.
 */
export class TerminalQueries {
  /**
   * @param {import("./clock.js").Clock} clock
   */
  constructor(clock) {
    this.clock = clock;
    /** @type {{ reply: RegExp, finish: (reply: string | null) => void }[]} */
    this.waiting = [];
    /** @type {(() => void) | undefined} */
    this.unsubscribe = undefined;
  }

  /**
   * Write `send` and wait for the reply, or `timeoutMs`.
   * @param {{ send: string, reply: RegExp }} query
   * @param {number} timeoutMs
   * @param {{ write: (s: string) => void, listen: (handler: (data: string) => { consume?: boolean } | undefined) => () => void }} io
   * @returns {Promise<string | null>}
   */
  ask(query, timeoutMs, io) {
    return new Promise((resolve) => {
      /** @type {unknown} */
      let timer;
      const entry = {
        reply: query.reply,
        finish: (/** @type {string | null} */ reply) => {
          const i = this.waiting.indexOf(entry);
          if (i < 0) return;
          this.waiting.splice(i, 1);
          this.clock.clearTimeout(timer);
          if (this.waiting.length === 0) this.stop();
          resolve(reply);
        },
      };
      this.waiting.push(entry);
      if (!this.unsubscribe) this.unsubscribe = io.listen((data) => this.input(data));
      timer = this.clock.setTimeout(() => entry.finish(null), timeoutMs, true);
      try {
        io.write(query.send);
      } catch {
        entry.finish(null);
      }
    });
  }

  /**
   * pi's input: a waiting query's reply is taken, anything else goes on.
   * @param {string} data
   */
  input(data) {
    const entry = this.waiting.find((w) => w.reply.test(data));
    if (!entry) return undefined;
    entry.finish(data);
    return { consume: true };
  }

  /** Every query ends unanswered (pi's session ends). */
  stop() {
    const unsubscribe = this.unsubscribe;
    this.unsubscribe = undefined;
    try {
      unsubscribe?.();
    } catch {
      // pi's terminal stopped.
    }
    for (const w of [...this.waiting]) w.finish(null);
  }
}
