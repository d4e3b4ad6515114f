// @ts-check
// Time, as the bridge uses it: injectable, so that tests drive every timer.

/**
 * @typedef {object} Clock
 * @property {() => number} now milliseconds on a monotonic clock
 * @property {(fn: () => void, ms: number, background?: boolean) => unknown} setTimeout
 *   `background`: the timer alone does not keep the process (pi) alive
 * @property {(handle: unknown) => void} clearTimeout
 */

/** @type {Clock} */
export const systemClock = {
  now: () => performance.now(),
  setTimeout: (fn, ms, background) => {
    const timer = setTimeout(fn, ms);
    if (background) timer.unref();
    return timer;
  },
  clearTimeout: (handle) => clearTimeout(/** @type {NodeJS.Timeout} */ (handle)),
};

/**
 * A deadline that can be paused: a hook waiting on a dialog it opened is
 * waiting on the user, not hung. Pauses nest; the time left is kept.
 */
export class Deadline {
  /**
   * @param {Clock} clock
   * @param {number} ms
   * @param {() => void} onExpire runs once, unless the deadline was cancelled first
   */
  constructor(clock, ms, onExpire) {
    this.clock = clock;
    this.left = ms;
    this.onExpire = onExpire;
    this.pauses = 0;
    this.done = false;
    /** @type {unknown} */
    this.timer = undefined;
    this.armedAt = 0;
    this.arm();
  }

  /** @private */
  arm() {
    this.armedAt = this.clock.now();
    this.timer = this.clock.setTimeout(() => {
      if (this.done) return;
      this.done = true;
      this.onExpire();
    }, Math.max(0, this.left));
  }

  pause() {
    if (this.done || this.pauses++ > 0) return;
    this.clock.clearTimeout(this.timer);
    this.left -= this.clock.now() - this.armedAt;
  }

  resume() {
    if (this.done || this.pauses === 0 || --this.pauses > 0) return;
    this.arm();
  }

  /** The call settled: the deadline no longer matters. */
  cancel() {
    if (this.done) return;
    this.done = true;
    this.clock.clearTimeout(this.timer);
  }
}
