// @ts-check
// Virtual models without the models part (pi-ext built without its
// `models` feature): the binary registers none.

/**
 * @param {unknown} _vm
 * @param {unknown} _route
 * @returns {never}
 */
export function virtualModelDefinition(_vm, _route) {
  throw new Error("this extension was built without pi-ext's `models` feature");
}
