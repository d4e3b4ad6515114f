// @ts-check
// pi's event bus for the extension: one pi listener per (process, channel),
// whatever the number of subscriptions in Rust (which delivers each message
// to each of its subscribers), removed when the process goes away.

/** @typedef {import("./child.js").ChildConnection} ChildConnection */

export class BusListeners {
  /**
   * @param {() => import("@mariozechner/pi-coding-agent").ExtensionAPI["events"]} events pi's bus
   * @param {(child: ChildConnection, channel: string, data: unknown) => void} deliver
   */
  constructor(events, deliver) {
    this.events = events;
    this.deliver = deliver;
    /** @type {Map<ChildConnection, Map<string, () => void>>} */
    this.listeners = new Map();
  }

  /**
   * Listen on `channel` for `child` (again: nothing changes).
   * @param {ChildConnection} child
   * @param {string} channel
   */
  subscribe(child, channel) {
    if (child.exited) return;
    let channels = this.listeners.get(child);
    if (!channels) this.listeners.set(child, (channels = new Map()));
    if (channels.has(channel)) return;
    channels.set(
      channel,
      this.events().on(channel, (data) => this.deliver(child, channel, data)),
    );
  }

  /**
   * @param {ChildConnection} child
   * @param {string} channel
   */
  unsubscribe(child, channel) {
    const channels = this.listeners.get(child);
    const off = channels?.get(channel);
    if (!channels || !off) return;
    channels.delete(channel);
    call(off);
  }

  /**
   * Every listener of `child` (it exited or was stopped).
   * @param {ChildConnection} child
   */
  removeAll(child) {
    const channels = this.listeners.get(child);
    if (!channels) return;
    this.listeners.delete(child);
    for (const off of channels.values()) call(off);
  }
}

/** @param {() => void} off */
function call(off) {
  try {
    off();
  } catch {
    // pi's bus is gone already.
  }
}
