// @ts-check
// pi ≥ 0.80's renderer registrations: an older pi is told once, Markdown is
// shown as it is until the extension's answer (made safe) arrives, custom
// entries ask once with the user's keys and show the answer.
import assert from "node:assert/strict";
import { test } from "node:test";

import { Registrations } from "../lib/tui-registrations.js";

/**
 * A TuiHost's shape, around a fake pi and a child that answers from `answer`.
 * @param {Record<string, any>} pi
 * @param {(method: string, params: any) => unknown} answer
 */
function host(pi, answer) {
  /** @type {{ method: string, params: any }[]} */
  const requests = [];
  const counts = { invalidate: 0, render: 0 };
  const child = {
    request(/** @type {string} */ method, /** @type {any} */ params) {
      requests.push({ method, params });
      return { id: requests.length, promise: Promise.resolve(answer(method, params)) };
    },
  };
  const h = {
    b: { mode: "interactive", pi, acquire: () => child, log: { line() {} } },
    tui: { invalidate: () => counts.invalidate++ },
    capture() {},
    currentTheme: () => undefined,
    requestRender: () => counts.render++,
  };
  return { h: /** @type {any} */ (h), requests, counts };
}

const tick = () => new Promise((r) => setImmediate(r));

test("a pi without the registrations is told once per method, and nothing is registered", () => {
  const { h } = host({}, () => null);
  const r = new Registrations(h, "lab", () => "0.73.1");
  const m = { entryRenderers: ["card"], toolRenderers: ["read"], markdownTransformer: ["assistant"] };
  const notices = r.register(m);
  assert.equal(notices.length, 3);
  assert.match(notices[0], /^lab: `pi\.registerEntryRenderer` needs pi ≥ 0\.80\.4; this pi is 0\.73\.1/);
  assert.ok(notices.some((n) => n.includes("registerToolRenderer` needs pi ≥ 1.0.1")));
  assert.deepEqual(r.register(m), [], "told once");
});

test("Markdown shows as it is until the answer, which is made safe, cached and repainted once", async () => {
  /** @type {any} */
  let transformer;
  const pi = { registerMarkdownTransformer: (/** @type {any} */ f, /** @type {any} */ o) => (transformer = { f, o }) };
  const { h, requests, counts } = host(pi, (_m, p) => `**${p.markdown}**\x1b[31m`);
  const r = new Registrations(h, "lab", () => "1.6.0");
  assert.deepEqual(r.register({ markdownTransformer: ["assistant", "custom"] }), []);
  assert.deepEqual(transformer.o, { messageTypes: ["assistant", "custom"] });
  const ctx = { messageType: "assistant", isStreaming: false, availableWidth: 80 };
  assert.equal(transformer.f("hi", ctx), "hi");
  assert.equal(transformer.f("hi", ctx), "hi", "still asking");
  assert.equal(requests.length, 1, "one request per text");
  assert.deepEqual(requests[0].params, { markdown: "hi", context: ctx });
  await tick();
  await tick();
  assert.equal(transformer.f("hi", ctx), "**hi**[31m", "the escape character is dropped");
  assert.equal(counts.invalidate, 1);
  assert.equal(transformer.f("hi", { ...ctx, availableWidth: 40 }), "hi", "another width is asked again");
});

test("an older pi's Markdown surfaces: told that it runs on the default ones", () => {
  const pi = { registerMarkdownTransformer() {} };
  const { h } = host(pi, () => "");
  const notices = new Registrations(h, "lab", () => "1.0.0").register({ markdownTransformer: ["summary"] });
  assert.equal(notices.length, 1);
  assert.match(notices[0], /need pi ≥ 1\.5\.1; this pi is 1\.0\.0: it runs on user, assistant, assistant-thinking/);
});

test("an entry asks once with the user's keys and shows the collapsed or expanded view", async () => {
  /** @type {any} */
  let render;
  const pi = { registerEntryRenderer: (/** @type {string} */ _t, /** @type {any} */ f) => (render = f) };
  const view = (/** @type {string} */ t) => ({ blocks: [{ text: [[t]] }] });
  const { h, requests, counts } = host(pi, () => ({ collapsed: view("short"), expanded: view("long") }));
  const r = new Registrations(h, "lab", () => "1.6.0");
  r.register({ entryRenderers: ["card"] });
  const entry = { type: "custom", customType: "card", id: "e1", data: { n: 1 } };
  const options = { expanded: false, keyText: (/** @type {string} */ id) => (id === "app.tools.expand" ? "ctrl+o" : "") };
  const c = render(entry, options, undefined);
  assert.deepEqual(c.render(20), [], "empty until the answer");
  assert.equal(render(entry, options, undefined), c, "the same component");
  assert.equal(requests.length, 1);
  assert.equal(requests[0].method, "render/entry");
  assert.equal(requests[0].params.keys["app.tools.expand"], "ctrl+o");
  await tick();
  assert.equal(counts.render, 1);
  assert.deepEqual(c.render(20).map((/** @type {string} */ l) => l.trimEnd()), ["short"]);
  render(entry, { ...options, expanded: true }, undefined);
  assert.deepEqual(c.render(20).map((/** @type {string} */ l) => l.trimEnd()), ["long"]);
  // pi draws the entry again (a new object, same id): no new request.
  render({ ...entry }, options, undefined);
  assert.equal(requests.length, 1);
});
