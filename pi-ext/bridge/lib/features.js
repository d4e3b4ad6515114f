// @ts-check
// What the host pi offers, by its version. pi's `pi.on` takes any event
// name and never calls a handler for one it does not fire, so a hook on an
// event newer than the host would wait in silence: the extension's user is
// told once, instead.

/**
 * The first pi version that fires each event pi 0.73.1 does not (from the
 * "Added" entries of pi 1.6.0's CHANGELOG.md).
 * @type {ReadonlyMap<string, string>}
 */
export const EVENT_SINCE = new Map([
  ["project_trust", "0.79.0"],
  ["session_info_changed", "0.80.3"],
  ["agent_settled", "0.80.4"],
  ["before_provider_headers", "0.80.4"],
  ["session_compact_failed", "0.84.3"],
  ["ui_prompt_start", "0.84.4"],
  ["ui_prompt_end", "0.84.4"],
  ["cache_warming_decision", "0.86.0"],
  ["agent_before_settle", "0.87.0"],
  ["context_with_system", "0.87.0"],
  ["mcp_servers_change", "0.99.0"],
  ["provider_stream_event", "0.99.0"],
]);

/**
 * The first pi version with each registration pi 0.73.1 lacks; the bridge
 * skips what the host cannot register and tells the user once
 * (`missingApi`).
 * @type {ReadonlyMap<string, string>}
 */
export const API_SINCE = new Map([
  ["registerEntryRenderer", "0.80.4"],
  ["registerMarkdownTransformer", "0.84.0"],
  ["registerToolRenderer", "1.0.1"],
  ["registerVirtualModel", "0.99.0"],
  ["refreshModels", "0.99.0"],
  ["classifier and image models", "0.99.0"],
]);

/**
 * The notice for `feature` (a key of API_SINCE) on a host pi too old for
 * it, once: `warned` holds the features already told.
 * @param {string} feature
 * @param {string} what the extension's items that need it
 * @param {string} piVersion "" when unknown (no notice then)
 * @param {Set<string>} warned
 * @returns {string | undefined}
 */
export function missingApi(feature, what, piVersion, warned) {
  const since = API_SINCE.get(feature);
  if (since === undefined || warned.has(feature) || !olderThan(piVersion, since)) return undefined;
  warned.add(feature);
  return `${what} needs pi ≥ ${since} (${feature}); this pi is ${piVersion}: it is not registered`;
}

/**
 * `major.minor.patch` as numbers (a pre-release suffix is ignored), or
 * undefined when `version` is not one.
 * @param {string} version
 * @returns {number[] | undefined}
 */
function parts(version) {
  const m = /^(\d+)\.(\d+)\.(\d+)/.exec(version.trim());
  return m ? [Number(m[1]), Number(m[2]), Number(m[3])] : undefined;
}

/**
 * Whether `version` is older than `since` (false when either is unknown).
 * @param {string} version
 * @param {string} since
 */
export function olderThan(version, since) {
  const a = parts(version);
  const b = parts(since);
  if (!a || !b) return false;
  for (let i = 0; i < 3; i++) if (a[i] !== b[i]) return a[i] < b[i];
  return false;
}

/**
 * A notice for each event of `events` the host pi is too old to fire, once
 * per event name: `warned` holds the names already told.
 * @param {Iterable<string>} events
 * @param {string} piVersion "" when unknown (no notices then)
 * @param {Set<string>} warned
 * @returns {string[]}
 */
export function missingEvents(events, piVersion, warned) {
  /** @type {string[]} */
  const notices = [];
  for (const event of events) {
    const since = EVENT_SINCE.get(event);
    if (since === undefined || warned.has(event) || !olderThan(piVersion, since)) continue;
    warned.add(event);
    notices.push(`\`${event}\` needs pi ≥ ${since}; this pi is ${piVersion}: its hooks never run`);
  }
  return notices;
}

/**
 * The pi versions this bridge is tested on: the oldest it supports and the
 * newest it was tested with (README.md's "Supported pi versions"; raise
 * `newest` with the pin).
 */
export const PI_TESTED = Object.freeze({ oldest: "0.73.1", newest: "1.6.0" });

/**
 * The one notice for a host pi outside the tested range, naming both
 * versions, or undefined for a pi in it (or of unknown version). Older
 * than the oldest: its API may lack what the extension registers; a newer
 * major: its API may have moved.
 * @param {string} piVersion "" when unknown
 * @returns {string | undefined}
 */
export function versionNotice(piVersion) {
  const v = parts(piVersion);
  const newest = /** @type {number[]} */ (parts(PI_TESTED.newest));
  if (!v) return undefined;
  if (olderThan(piVersion, PI_TESTED.oldest)) {
    return `pi ${piVersion} is older than ${PI_TESTED.oldest}, the oldest pi pi-ext supports: update pi (some tools, hooks or commands may fail to register)`;
  }
  if (v[0] > newest[0]) {
    return `pi ${piVersion} is newer than ${PI_TESTED.newest}, the newest pi pi-ext was tested with: if a tool, hook or command misbehaves, update pi-ext`;
  }
  return undefined;
}

/**
 * The tool definition fields of pi ≥ 0.82 (pi 0.73.1 ignores them): the
 * first pi version that reads each (pi 1.6.0's CHANGELOG.md; `defaultActive`
 * is first named in 1.4.0's, it may be older), and the type a tool's
 * manifest value must have for the bridge to pass it to pi as it is
 * (`"any"`: any value; `null`: the bridge makes pi's value itself). A new
 * field that pi takes as JSON needs only a row here.
 * @type {ReadonlyMap<string, { since: string, type: "object" | "string" | "boolean" | "any" | null }>}
 */
export const TOOL_FIELDS = new Map([
  ["constrainedSampling", { since: "0.82.0", type: "any" }],
  ["outputSchema", { since: "0.99.0", type: "object" }],
  ["annotations", { since: "0.99.0", type: "object" }],
  ["exposure", { since: "0.99.0", type: "string" }],
  ["namespace", { since: "0.99.0", type: "object" }],
  ["defaultActive", { since: "1.4.0", type: "boolean" }],
  ["reachesTools", { since: "1.2.0", type: null }],
]);

/** The first pi version that reads each of `TOOL_FIELDS`. @type {ReadonlyMap<string, string>} */
export const TOOL_FIELD_SINCE = new Map([...TOOL_FIELDS].map(([field, { since }]) => [field, since]));

/**
 * The fields of `TOOL_FIELDS` a tool's manifest sets with the type they
 * need, as pi takes them.
 * @param {Record<string, unknown>} manifest
 * @returns {Record<string, unknown>}
 */
export function passedToolFields(manifest) {
  /** @type {Record<string, unknown>} */
  const fields = {};
  for (const [field, { type }] of TOOL_FIELDS) {
    const value = manifest[field];
    const ok =
      type === "any" ? value !== undefined : type === "object" ? value !== null && typeof value === "object" : typeof value === type;
    if (type !== null && ok) fields[field] = value;
  }
  return fields;
}

/**
 * A notice for each field of `tool` the host pi ignores, once per field
 * name: `warned` holds the names already told.
 * @param {string} tool the tool's name
 * @param {Iterable<string>} fields the definition fields it sets
 * @param {string} piVersion "" when unknown (no notices then)
 * @param {Set<string>} warned
 * @returns {string[]}
 */
export function ignoredToolFields(tool, fields, piVersion, warned) {
  /** @type {string[]} */
  const notices = [];
  for (const field of fields) {
    const since = TOOL_FIELD_SINCE.get(field);
    if (since === undefined || warned.has(field) || !olderThan(piVersion, since)) continue;
    warned.add(field);
    notices.push(`tool \`${tool}\` sets \`${field}\`, which needs pi ≥ ${since}; this pi is ${piVersion} and ignores it`);
  }
  return notices;
}

/**
 * The error of a member this pi lacks: which pi added it, and this one's
 * version (an older pi has neither the member nor a useful answer).
 * @param {{ piVersion: string }} c the call (its host pi's version)
 * @param {string} what
 * @param {string} since
 */
export function needsPi(c, what, since) {
  const host = c.piVersion ? `this pi is ${c.piVersion}` : "this pi does not have it";
  return new Error(`${what} needs pi ≥ ${since}; ${host}`);
}
