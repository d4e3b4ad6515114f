// @ts-check
// Protocol lines: split on "\n" only (not readline, which also splits on
// U+2028/U+2029), a trailing "\r" ignored, over-long lines dropped without
// being buffered whole.

/** How much of an over-long line is kept to tell whose line it was. */
const HEAD_BYTES = 64;

/**
 * @typedef {object} SplitterEvents
 * @property {(text: string) => void} onLine a whole line, without "\n" or a trailing "\r"
 * @property {(head: string, bytes: number) => void} onOverlong a line longer than the limit
 *   was dropped: its first bytes and its length
 */

export class LineSplitter {
  /**
   * @param {number} maxLineBytes
   * @param {SplitterEvents} events
   */
  constructor(maxLineBytes, events) {
    this.max = maxLineBytes;
    this.events = events;
    /** @type {Buffer[]} the current line's pieces so far */
    this.pieces = [];
    this.size = 0;
    /** @type {Buffer | undefined} the start of an over-long line being skipped */
    this.skipping = undefined;
  }

  /** @param {Buffer} chunk */
  push(chunk) {
    let start = 0;
    let nl = chunk.indexOf(10);
    while (nl !== -1) {
      this.take(chunk.subarray(start, nl), true);
      start = nl + 1;
      nl = chunk.indexOf(10, start);
    }
    if (start < chunk.length) this.take(chunk.subarray(start), false);
  }

  /**
   * @param {Buffer} piece
   * @param {boolean} ends whether a "\n" followed it
   * @private
   */
  take(piece, ends) {
    if (this.skipping === undefined && this.size + piece.length > this.max) {
      this.skipping = Buffer.concat([...this.pieces, piece.subarray(0, HEAD_BYTES)]).subarray(0, HEAD_BYTES);
      this.pieces = [];
    }
    this.size += piece.length;
    if (this.skipping === undefined) this.pieces.push(piece);
    if (!ends) return;
    const size = this.size;
    const skipped = this.skipping;
    const pieces = this.pieces;
    this.pieces = [];
    this.size = 0;
    this.skipping = undefined;
    if (skipped !== undefined) {
      this.events.onOverlong(skipped.toString("utf8"), size);
      return;
    }
    let text = (pieces.length === 1 ? pieces[0] : Buffer.concat(pieces)).toString("utf8");
    if (text.endsWith("\r")) text = text.slice(0, -1);
    this.events.onLine(text);
  }
}

/**
 * The UTF-8 size of `line` if it is over `max` bytes, else 0. Counts bytes
 * only when the UTF-16 length cannot decide.
 * @param {string} line
 * @param {number} max
 */
export function oversize(line, max) {
  if (line.length * 3 <= max) return 0;
  if (line.length > max) return Buffer.byteLength(line, "utf8");
  const bytes = Buffer.byteLength(line, "utf8");
  return bytes > max ? bytes : 0;
}
