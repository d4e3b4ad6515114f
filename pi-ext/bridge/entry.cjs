// @ts-check
// The sources' stand-in for the entry.cjs that `install` writes (entry.js
// with lib/ inlined, as CommonJS): entry.js itself, for the bridge's tests.

/** @type {import("./entry.js").Entry} */
module.exports = require("./entry.js");
