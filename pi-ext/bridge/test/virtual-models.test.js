// @ts-check
// Virtual models routed by the extension, a provider's login and model
// list called back in the extension, and the guard on pi's built-in
// provider names.
import assert from "node:assert/strict";
import { test } from "node:test";

import { routeOf, virtualModelDefinition, wireRequest } from "../lib/virtual-models.js";
import { builtinClash, callbacks } from "../lib/provider.js";
import { missingApi } from "../lib/features.js";

const vm = { provider: "jev", id: "auto", name: "Auto", thinkingLevels: ["low", "high"] };
const luna = { provider: "openai-codex", id: "luna", api: "openai-completions", headers: { Authorization: "secret" } };
const registry = { find: (/** @type {string} */ p, /** @type {string} */ id) => (p === "openai-codex" && id === "luna" ? luna : undefined) };

test("a route answer becomes pi's route with the model from pi's registry", async () => {
  /** @type {any[]} */
  const sent = [];
  const def = virtualModelDefinition(vm, () => async (params, o) => {
    sent.push({ params, hasCtx: o.ctx !== undefined });
    return { model: { provider: "openai-codex", id: "luna" }, thinkingLevel: "high", state: { phase: "impl" } };
  });
  assert.deepEqual(def.thinkingLevels, ["low", "high"]);
  const signal = new AbortController().signal;
  const route = await def.route(
    { model: { provider: "jev", id: "auto", headers: { x: "1" } }, thinkingLevel: "low", reason: "user", previous: { model: luna }, messages: [], signal },
    { modelRegistry: registry },
  );
  assert.equal(route.model, luna);
  assert.deepEqual(route.state, { phase: "impl" });
  // Models reach the extension without their headers, and no signal.
  const request = sent[0].params.request;
  assert.equal(request.model.headers, undefined);
  assert.equal(request.previous.model.headers, undefined);
  assert.equal(request.signal, undefined);
  assert.ok(sent[0].hasCtx);
});

test("a route naming an unknown model, or no model, fails with the virtual model's name", () => {
  assert.throws(() => routeOf(vm, { model: { provider: "x", id: "y" }, thinkingLevel: "low" }, registry), /jev\/auto: the route names x\/y, which pi does not know/);
  assert.throws(() => routeOf(vm, { thinkingLevel: "low" }, registry), /named no model/);
  assert.throws(() => routeOf(vm, { model: { provider: "openai-codex", id: "luna" } }, registry), /no thinking level/);
  // No state: pi keeps the current one.
  assert.equal("state" in routeOf(vm, { model: { provider: "openai-codex", id: "luna" }, thinkingLevel: "low" }, registry), false);
  assert.deepEqual(wireRequest(undefined).messages, []);
});

test("a login's key is a field of the credentials; login, refresh and models call the extension", async () => {
  /** @type {any[]} */
  const calls = [];
  const host = () => /** @type {any} */ ({
    providerCall: async (/** @type {string} */ provider, /** @type {string} */ op, /** @type {unknown} */ args) => {
      calls.push([provider, op, args]);
      return op === "refreshModels" ? [{ id: "m" }] : { access: "new", refresh: "r", expires: 1 };
    },
  });
  const p = /** @type {any} */ ({ name: "corp", oauth: { name: "Corp", apiKeyField: "token" }, refreshModels: true, models: [] });
  const c = /** @type {any} */ (callbacks(p, host));
  assert.equal(c.oauth.getApiKey({ token: "t-1", access: "a" }), "t-1");
  assert.throws(() => c.oauth.getApiKey({ access: "a" }), /stored login has no `token`/);
  assert.deepEqual(await c.oauth.refreshToken({ access: "old" }), { access: "new", refresh: "r", expires: 1 });
  assert.deepEqual(await c.refreshModels({ allowNetwork: false, signal: new AbortController().signal }), [{ id: "m" }]);
  assert.deepEqual(calls[0], ["corp", "refreshToken", { access: "old" }]);
  assert.deepEqual(calls[1], ["corp", "refreshModels", { allowNetwork: false, force: false, credential: null }]);
  assert.equal(c.oauth.isSubscription, undefined);
});

test("a Rust stream, login or configuration under a built-in provider's name needs the opt-in", () => {
  const builtins = ["anthropic", "openai"];
  assert.match(String(builtinClash(/** @type {any} */ ({ name: "anthropic", models: [] }), builtins)), /built-in provider and a Rust stream/);
  assert.match(String(builtinClash(/** @type {any} */ ({ name: "openai", configOnly: true, oauth: { name: "x" }, models: [] }), builtins)), /a login/);
  // Configuration too: pi would send its stored key to the base URL the extension names.
  assert.match(String(builtinClash(/** @type {any} */ ({ name: "anthropic", configOnly: true, baseUrl: "http://127.0.0.1:9/v1", models: [] }), builtins)), /its own base URL, where pi would send the key it stores for `anthropic`/);
  assert.equal(builtinClash(/** @type {any} */ ({ name: "anthropic", configOnly: true, replacesBuiltin: true, models: [] }), builtins), undefined);
  assert.equal(builtinClash(/** @type {any} */ ({ name: "anthropic", replacesBuiltin: true, models: [] }), builtins), undefined);
  assert.equal(builtinClash(/** @type {any} */ ({ name: "mine", models: [] }), builtins), undefined);
});

test("features pi 0.73.1 lacks are told once", () => {
  const warned = new Set();
  assert.match(String(missingApi("registerVirtualModel", "virtual model jev/auto", "0.73.1", warned)), /needs pi ≥ 0.99.0/);
  assert.equal(missingApi("registerVirtualModel", "virtual model x/y", "0.73.1", warned), undefined);
  assert.equal(missingApi("refreshModels", "provider p", "1.6.0", warned), undefined);
});
