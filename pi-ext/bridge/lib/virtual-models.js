// @ts-check
// Virtual models routed by the extension (`pi.registerVirtualModel`, pi ≥
// 0.99): pi calls `route(request, ctx)` before every request made with the
// virtual model; the extension answers with a model's provider and id, which
// are looked up here in pi's registry (pi wants the model object).

import { modelInfo } from "./models.js";

/**
 * A virtual model in the manifest: pi's definition without `route`.
 * @typedef {object} VirtualModelManifest
 * @property {string} provider
 * @property {string} id
 * @property {string} name
 * @property {string[]} [thinkingLevels]
 * @property {number} [contextWindow]
 * @property {number} [maxTokens]
 * @property {("text" | "image")[]} [input]
 */

/**
 * Send a route request to the extension.
 * @typedef {(params: { provider: string, id: string, request: unknown },
 *   o: { signal?: AbortSignal, ctx: any }) => Promise<unknown>} RouteCall
 */

/**
 * The request as the extension reads it: models without their headers,
 * no signal (it aborts the call instead).
 * @param {any} request pi's `ModelRouteRequest`
 */
export function wireRequest(request) {
  /** @param {any} pair */
  const pair = (pair) => (pair ? { ...pair, model: modelInfo(pair.model) } : undefined);
  const { signal: _signal, ...rest } = request ?? {};
  return {
    ...rest,
    model: modelInfo(rest.model),
    ...(rest.previous ? { previous: pair(rest.previous) } : {}),
    ...(rest.failed ? { failed: pair(rest.failed) } : {}),
    messages: Array.isArray(rest.messages) ? rest.messages : [],
  };
}

/**
 * pi's route answer from the extension's: `{model: {provider, id},
 * thinkingLevel, state?}` with the model found in pi's registry; what is
 * wrong with it, thrown (pi ends the request with an error response).
 * @param {VirtualModelManifest} vm
 * @param {unknown} answer
 * @param {{ find(provider: string, id: string): unknown }} registry
 */
export function routeOf(vm, answer, registry) {
  const a = /** @type {any} */ (answer);
  const name = `virtual model ${vm.provider}/${vm.id}`;
  if (a === null || typeof a !== "object" || typeof a.model?.provider !== "string" || typeof a.model?.id !== "string") {
    throw new Error(`${name}: the route named no model`);
  }
  if (typeof a.thinkingLevel !== "string") throw new Error(`${name}: the route named no thinking level`);
  const model = registry.find(a.model.provider, a.model.id);
  if (!model) throw new Error(`${name}: the route names ${a.model.provider}/${a.model.id}, which pi does not know`);
  return { model, thinkingLevel: a.thinkingLevel, ...(a.state !== undefined ? { state: a.state } : {}) };
}

/**
 * pi's virtual model definition for `vm`, routing in the extension.
 * @param {VirtualModelManifest} vm
 * @param {() => RouteCall} route
 */
export function virtualModelDefinition(vm, route) {
  return {
    provider: vm.provider,
    id: vm.id,
    name: vm.name,
    ...(vm.thinkingLevels?.length ? { thinkingLevels: vm.thinkingLevels } : {}),
    ...(vm.contextWindow !== undefined ? { contextWindow: vm.contextWindow } : {}),
    ...(vm.maxTokens !== undefined ? { maxTokens: vm.maxTokens } : {}),
    ...(vm.input?.length ? { input: vm.input } : {}),
    /**
     * @param {any} request
     * @param {any} ctx
     */
    route: async (request, ctx) => {
      const answer = await route()({ provider: vm.provider, id: vm.id, request: wireRequest(request) }, { signal: request?.signal, ctx });
      return /** @type {any} */ (routeOf(vm, answer, ctx.modelRegistry));
    },
  };
}
