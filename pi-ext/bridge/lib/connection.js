// @ts-check
// The extension process's lifecycle, as one state machine:
//
//   idle ──start──▶ starting ──handshake done──▶ ready ──session_shutdown──▶ draining
//    ▲                 │                           │                          │
//    └── failed ───────┘◀───── died (restart) ─────┘◀── calls done / 10 s ────┘
//
// `idle.restart` says the last process died: the next start is a restart,
// which replays the session's start to the new process.

import { messageOf } from "./protocol.js";

/** @typedef {import("./child.js").ChildConnection} ChildConnection */

/**
 * @typedef {{ name: "idle", restart: boolean }
 *   | { name: "starting", child: ChildConnection, promise: Promise<ChildConnection>, restart: boolean }
 *   | { name: "ready", child: ChildConnection }
 *   | { name: "draining", child: ChildConnection, timer: unknown }} ConnectionState
 */

/**
 * @typedef {object} ConnectionHooks
 * @property {() => ChildConnection} launch spawn a process
 * @property {(child: ChildConnection, snapshots: Record<string, unknown> | undefined) => Promise<void>} handshake
 * @property {(child: ChildConnection) => Promise<void>} replay after a restart's handshake
 * @property {(child: ChildConnection) => void} retire a process is stopped or gone: drop what belongs to it
 * @property {import("./log.js").Log} log
 * @property {import("./clock.js").Clock} clock
 * @property {number} drainMs
 */

export class Connection {
  /** @param {ConnectionHooks} hooks */
  constructor(hooks) {
    this.hooks = hooks;
    /** @type {ConnectionState} */
    this.state = { name: "idle", restart: false };
  }

  /** The process serving calls (ready or draining), if any. */
  get child() {
    const s = this.state;
    return s.name === "ready" || s.name === "draining" ? s.child : undefined;
  }

  /** A start is under way. */
  get starting() {
    return this.state.name === "starting" ? this.state.promise : undefined;
  }

  /**
   * A live process: the serving one (without an async frame: a call costs a
   * few microseconds less), or one being started.
   * @returns {ChildConnection | Promise<ChildConnection>}
   */
  acquire() {
    const s = this.state;
    if ((s.name === "ready" || s.name === "draining") && !s.child.exited) return s.child;
    if (s.name === "starting") return s.promise;
    return this.begin(s.name === "idle" && s.restart);
  }

  /**
   * Spawn a process and handshake.
   * @param {boolean} restart the last process died: replay the session's start to the new one
   * @param {Record<string, unknown>} [snapshots] the previous process's, on a hot reload
   * @returns {Promise<ChildConnection>}
   * @private
   */
  begin(restart, snapshots) {
    if (restart) this.hooks.log.line("info", "starting a fresh extension process");
    const child = this.hooks.launch();
    const promise = (async () => {
      await this.hooks.handshake(child, snapshots);
      if (restart) await this.hooks.replay(child);
      return child;
    })();
    /** @type {ConnectionState} */
    const starting = { name: "starting", child, promise, restart };
    this.state = starting;
    // Registered before any caller's: the state is right when they resume.
    promise.then(
      () => {
        if (this.state !== starting) return;
        this.state = child.exited ? { name: "idle", restart: true } : { name: "ready", child };
      },
      () => {
        this.retire(child);
        if (this.state === starting) this.state = { name: "idle", restart };
      },
    );
    return promise;
  }

  /**
   * A process ended (crashed, killed as stuck, or stopped).
   * @param {ChildConnection} child
   */
  exited(child) {
    this.hooks.retire(child);
    const s = this.state;
    if (s.name === "ready" && s.child === child) this.state = { name: "idle", restart: true };
    else if (s.name === "draining" && s.child === child) {
      this.hooks.clock.clearTimeout(s.timer);
      this.state = { name: "idle", restart: false };
    }
  }

  /**
   * pi's session ends. Calls in flight may finish first (a command may be
   * replacing the session), for up to `drainMs`.
   * @param {boolean} busy calls are in flight
   */
  stop(busy) {
    const s = this.state;
    if (s.name === "ready" && busy) {
      // In the background: a quitting pi does not wait for it.
      const timer = this.hooks.clock.setTimeout(() => this.drained(), this.hooks.drainMs, true);
      this.state = { name: "draining", child: s.child, timer };
      return;
    }
    if (s.name === "draining") return;
    if (s.name === "ready" || s.name === "starting") this.retire(s.child);
    this.state = { name: "idle", restart: false };
  }

  /** The last call in flight settled: a draining process can go. */
  drained() {
    const s = this.state;
    if (s.name !== "draining") return;
    this.hooks.clock.clearTimeout(s.timer);
    this.retire(s.child);
    this.state = { name: "idle", restart: false };
  }

  /**
   * Dev mode: switch to a rebuilt binary. `unload` asks the old process for
   * its snapshots; the new one gets them.
   * @param {(old: ChildConnection) => Promise<Record<string, unknown>>} unload
   */
  async reload(unload) {
    const old = this.child;
    let snapshots = {};
    if (old && !old.exited) {
      try {
        snapshots = await unload(old);
      } catch (err) {
        this.hooks.log.line("warn", `unload before hot reload failed: ${messageOf(err)}`);
      }
      this.retire(old);
    }
    const s = this.state;
    if (s.name === "starting") return s.promise;
    return this.begin(false, snapshots);
  }

  /** @param {ChildConnection} child @private */
  retire(child) {
    this.hooks.retire(child);
    child.stop();
  }
}
