// @ts-check
// Providers without the models part (pi-ext built without its `models`
// feature): the binary registers none.

const MISSING = "this extension was built without pi-ext's `models` feature";

/** @param {Record<string, string | undefined>} _env */
export function providerMaxBytes(_env) {
  return 0;
}

/** @param {Record<string, string | undefined>} _env */
export function providerIdleMs(_env) {
  return 0;
}

/**
 * @param {unknown} _p
 * @param {string[]} _builtins
 * @returns {string | undefined}
 */
export function builtinClash(_p, _builtins) {
  return MISSING;
}

/**
 * @param {unknown} _p
 * @param {unknown} _host
 * @param {string} [_piVersion]
 * @returns {never}
 */
export function providerConfig(_p, _host, _piVersion) {
  throw new Error(MISSING);
}
