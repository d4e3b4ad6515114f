// @ts-check
// The sources' stand-in for the bridge.cjs that `install` writes (bridge.js
// with lib/ inlined, as a CommonJS function of pi's packages): the same
// export over the ES modules themselves, for the bridge's tests, where
// test/pi-aliases.js resolves pi's packages.

/** @type {import("./lib/shared.js").BridgeModule} */
module.exports = async () => await import("./bridge.js");
