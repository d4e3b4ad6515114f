// @ts-check
// The extension's log file: the child's stderr and the bridge's own lines.
// Private (0600: lines may quote tool arguments), rotated at a size limit to
// `<file>.1` (one old file kept), written synchronously so a child flooding
// stderr costs disk, not pi's memory.

import * as fs from "node:fs";
import * as path from "node:path";

export class Log {
  /**
   * @param {string} file
   * @param {{ maxBytes: number }} options
   */
  constructor(file, { maxBytes }) {
    this.file = file;
    this.maxBytes = maxBytes;
    /** @type {number | undefined} */
    this.fd = undefined;
    /** Bytes in the current file: counted, not asked of the file system at each write. */
    this.bytes = 0;
    /** Opening failed (or a write did): the log is off rather than retried at every line. */
    this.broken = false;
  }

  /** Opened at the first line, not at load: pi's startup should not pay for it. @private */
  open() {
    try {
      fs.mkdirSync(path.dirname(this.file), { recursive: true });
      const fd = fs.openSync(this.file, "a", 0o600);
      const stat = fs.fstatSync(fd);
      // A log written by an older bridge may be readable by others.
      if ((stat.mode & 0o077) !== 0) fs.fchmodSync(fd, 0o600);
      this.fd = fd;
      this.bytes = stat.size;
    } catch {
      this.broken = true;
    }
  }

  /** @private */
  rotate() {
    this.close();
    try {
      fs.renameSync(this.file, `${this.file}.1`);
    } catch {
      // Gone already (removed by hand): start a fresh file all the same.
    }
    this.open();
  }

  /**
   * Append `text` (a newline is added when missing).
   * @param {string} text
   */
  write(text) {
    if (this.fd === undefined && !this.broken) this.open();
    if (this.fd === undefined) return;
    const data = Buffer.from(text.endsWith("\n") ? text : `${text}\n`, "utf8");
    if (this.bytes > 0 && this.bytes + data.length > this.maxBytes) {
      this.rotate();
      if (this.fd === undefined) return;
    }
    try {
      fs.writeSync(this.fd, data);
      this.bytes += data.length;
    } catch {
      this.close();
      this.broken = true;
    }
  }

  /**
   * One line from the bridge itself.
   * @param {"debug" | "info" | "warn" | "error" | string} level
   * @param {string} message
   */
  line(level, message) {
    this.write(`${new Date().toISOString()} [bridge ${level}] ${message}`);
  }

  close() {
    if (this.fd === undefined) return;
    try {
      fs.closeSync(this.fd);
    } catch {
      // Closed already.
    }
    this.fd = undefined;
  }
}
