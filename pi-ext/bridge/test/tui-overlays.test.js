// @ts-check
// A component's overlay handles and child overlays: ops applied in order,
// own ops held until pi's onHandle, children shown below the component when
// it opens, their frames, keys and focus kept apart, closed with it; bad and
// late ops do nothing, at most 16 children.
import assert from "node:assert/strict";
import { test } from "node:test";

import { ComponentOverlays, MAX_CHILD_OVERLAYS, MAX_OPS } from "../lib/tui-overlays.js";
import { fakeCtx, manifestWith, settle, startBridge, until } from "./helpers.js";

/** A pi-tui stand-in that records what its overlay handles were asked. */
function fakeTui() {
  /** @type {string[]} */
  const log = [];
  /** @type {any[]} */
  const overlays = [];
  const tui = {
    terminal: { columns: 80, rows: 24 },
    renders: 0,
    requestRender() {
      this.renders++;
    },
    /** @type {any} */
    focused: undefined,
    /** @param {any} component @param {any} options */
    showOverlay(component, options) {
      const entry = { component, options, hidden: false, shown: true };
      overlays.push(entry);
      const name = component.name ?? `child${overlays.length}`;
      log.push(`show ${name}`);
      const setFocus = (/** @type {any} */ c) => {
        if (tui.focused && "focused" in tui.focused) tui.focused.focused = false;
        tui.focused = c;
        if (c && "focused" in c) c.focused = true;
      };
      if (!options?.nonCapturing) setFocus(component);
      return {
        hide: () => {
          entry.shown = false;
          log.push(`hide ${name}`);
        },
        setHidden: (/** @type {boolean} */ h) => {
          entry.hidden = h;
          log.push(`hidden ${name} ${h}`);
        },
        focus: () => {
          setFocus(component);
          log.push(`focus ${name}`);
        },
        unfocus: () => {
          if (tui.focused === component) setFocus(undefined);
          log.push(`unfocus ${name}`);
        },
      };
    },
  };
  return { tui, log, overlays };
}

test("ops run in order; own ops wait for the handle; late, bad and surplus ops do nothing", () => {
  const { tui, log } = fakeTui();
  /** @type {string[]} */
  const warnings = [];
  let known = false;
  const o = new ComponentOverlays({
    tui: () => (known ? tui : undefined),
    makeChild: (id) => ({ name: `c${id}` }),
    overlayOptions: (x) => x,
    warn: (m) => warnings.push(m),
  });
  o.apply([{ op: "open", child: 1, overlay: { nonCapturing: true } }, { op: "hidden", hidden: true }]);
  assert.deepEqual(log, [], "nothing before pi's TUI is known");
  known = true;
  o.flush();
  assert.deepEqual(log, ["show c1"]);
  o.apply([{ op: "focus", child: 1 }, { op: "focus", child: 9 }, { op: "bogus", child: 1 }, "junk", { op: "open", child: -3 }]);
  assert.deepEqual(log, ["show c1", "focus c1"], "an unknown child does nothing");
  assert.equal(warnings.length, 3, warnings.join("\n"));
  // The own handle arrives: the held op runs.
  const own = tui.showOverlay({ name: "own" }, {});
  o.setHandle(own);
  assert.deepEqual(log.slice(-2), ["show own", "hidden own true"]);
  o.apply([{ op: "close", child: 1 }, { op: "hidden", child: 1, hidden: true }]);
  assert.deepEqual(log.slice(-1), ["hide c1"], "a closed child's ops do nothing");
  // At most 16 children.
  o.apply(Array.from({ length: MAX_CHILD_OVERLAYS + 1 }, (_, i) => ({ op: "open", child: 10 + i })));
  assert.equal(o.children.size, MAX_CHILD_OVERLAYS);
  assert.ok(warnings.some((w) => w.includes("at most 16")), warnings.join("\n"));
  // A flood is cut.
  const before = warnings.length;
  o.apply(Array.from({ length: MAX_OPS + 5 }, () => ({ op: "focus", child: 10 })));
  assert.ok(warnings.slice(before).some((w) => w.includes("5 ops past")));
  // Closing hides every child; later ops do nothing.
  const shown = log.length;
  o.closeAll();
  assert.equal(log.length - shown, MAX_CHILD_OVERLAYS);
  o.apply([{ op: "open", child: 99 }]);
  assert.equal(log.length - shown, MAX_CHILD_OVERLAYS);
});

/** A pi context whose `ui.custom` shows overlays on the fake TUI, as pi does. */
function overlayCtx() {
  const base = fakeCtx();
  const ui = /** @type {any} */ (base.ctx.ui);
  const t = fakeTui();
  /** @type {any[]} */
  const shown = [];
  ui.theme = { fg: (/** @type {string} */ _t, /** @type {string} */ s) => s, getFgAnsi: () => "", getBgAnsi: () => "", getColorMode: () => "truecolor" };
  ui.custom = (/** @type {any} */ factory, /** @type {any} */ options) =>
    new Promise((resolve) => {
      const entry = { options, component: /** @type {any} */ (undefined), closed: false, handle: /** @type {any} */ (undefined) };
      const done = (/** @type {unknown} */ v) => {
        entry.closed = true;
        entry.handle?.hide();
        resolve(v);
      };
      entry.component = factory(t.tui, ui.theme, {}, done);
      entry.component.name = "parent";
      shown.push(entry);
      Promise.resolve().then(() => {
        entry.handle = t.tui.showOverlay(entry.component, options.overlayOptions);
        options.onHandle?.(entry.handle);
      });
    });
  return { ...base, ...t, shown };
}

test("children opened with the component show below it; their frames, keys and focus are theirs; they close with it", async () => {
  const h = await startBridge(manifestWith({}), { mode: "interactive" });
  const t = overlayCtx();
  await h.startSession(t.ctx);
  const ext = h.ext();
  const opened = ext.request("ui/open", {
    component: 4,
    overlay: { width: 40 },
    ops: [
      { op: "open", child: 1, overlay: { nonCapturing: true, width: 22 } },
      { op: "focus", child: 1 },
      { op: "hidden", hidden: true },
    ],
  });
  await until(() => t.log.includes("show parent"), "pi shows the component");
  await settle();
  assert.deepEqual(t.log, ["show child1", "focus child1", "show parent", "hidden parent true"], "the child first, below it");
  assert.deepEqual(
    ext.sent("ui/resize").map((m) => m.params),
    [
      { component: 4, width: 40, rows: 24 },
      { component: 4, child: 1, width: 22, rows: 24 },
    ],
  );
  // Focus: the child had it, the parent took it (pi's showOverlay).
  assert.deepEqual(
    ext.sent("ui/focus").map((m) => m.params),
    [
      { component: 4, child: 1, focused: true },
      { component: 4, child: 1, focused: false },
      { component: 4, focused: true },
    ],
  );
  const child = t.overlays[0].component;
  // Frames go where they say; a closed child's frame only answers its key.
  ext.send({ method: "ui/frame", params: { component: 4, child: 1, width: 22, styles: [], blocks: [{ text: [["\x1b[31mtimer\x07"]], wrap: false }] } });
  ext.send({ method: "ui/frame", params: { component: 4, width: 40, styles: [], blocks: [{ text: [["parent"]], wrap: false }] } });
  await settle();
  assert.deepEqual(child.render(22), ["[31mtimer"], "hostile text sanitized");
  assert.deepEqual(t.shown[0].component.render(40), ["parent"]);
  // Keys to the child say so.
  ext.send({ method: "ui/overlay", params: { component: 4, ops: [{ op: "focus", child: 1 }] } });
  await until(() => t.log.at(-1) === "focus child1", "the child focused");
  child.handleInput("x");
  await settle();
  assert.deepEqual(ext.sent("ui/key").at(-1)?.params, { component: 4, child: 1, seq: 1, key: "x", aliases: [], data: "x", text: "x", kind: "press" });
  // The component closes: the child with it, and later ops do nothing.
  ext.send({ method: "ui/close", params: { component: 4, reason: "done" } });
  assert.deepEqual((await opened).result, { outcome: "done" });
  assert.ok(t.log.indexOf("hide child1") !== -1 && t.log.indexOf("hide child1") < t.log.indexOf("hide parent"), t.log.join(", "));
  ext.send({ method: "ui/overlay", params: { component: 4, ops: [{ op: "open", child: 2 }] } });
  ext.send({ method: "ui/frame", params: { component: 4, child: 1, width: 22, styles: [], blocks: [] } });
  await settle();
  assert.equal(t.overlays.length, 2, "nothing opened after it closed");
});

test("a child that closes is disposed (its controls stop: a loader's timer), by its own close and with the component", () => {
  const { tui } = fakeTui();
  /** @type {string[]} */
  const disposed = [];
  const o = new ComponentOverlays({
    tui: () => tui,
    makeChild: (id) => ({ name: `c${id}`, dispose: () => disposed.push(`c${id}`) }),
    overlayOptions: (x) => x,
    warn: () => {},
  });
  o.apply([{ op: "open", child: 1 }, { op: "open", child: 2 }, { op: "close", child: 1 }]);
  assert.deepEqual(disposed, ["c1"]);
  o.closeAll();
  assert.deepEqual(disposed, ["c1", "c2"]);
});
