// @ts-check
// No `api/call` methods of models and providers (pi-ext built without its
// `models` feature).

/** @type {Array<[string, import("../api.js").ApiMethod]>} */
export const MODEL_API = [];
