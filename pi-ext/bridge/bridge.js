// @ts-check
// pi-ext bridge: the part every pi-ext extension in a pi shares (see
// lib/shared.js). Written by `<binary> install` beside the extension's
// index.js as bridge.cjs, with the modules of lib/ inlined, as a CommonJS
// function of pi's packages; run that again instead of editing that file.
import { activate, attach } from "./lib/main.js";
import { OLDEST_PROTOCOL, PROTOCOL, build } from "./lib/shared.js";

/** @type {import("./lib/shared.js").SharedBridge} */
export const bridge = Object.freeze({ protocol: PROTOCOL, oldest: OLDEST_PROTOCOL, version: build.version, features: build.features, activate, attach });
