// @ts-check
// What pi shows of a manifest (tool rows, autocomplete, `/help`-like lists,
// the model selector, `/login`) is the extension's text: sanitized once, when
// the bridge reads a manifest or an item registered at run time, so no
// control character of the extension's reaches pi's terminal. Labels and
// names are one line; text the model reads keeps its newlines and tabs;
// descriptions pi lists keep their lines (pi joins them).

import { sanitize } from "./sanitize.js";

/** @typedef {import("./manifest.js").ToolManifest} ToolManifest */
/** @typedef {import("./manifest.js").CommandManifest} CommandManifest */
/** @typedef {import("./manifest.js").Manifest} Manifest */

/**
 * `s` sanitized if it is a string; otherwise as it is (pi or the checks decide).
 * @template T
 * @param {T} s
 * @param {import("./sanitize.js").Keep} [keep]
 * @returns {T}
 */
const clean = (s, keep) => /** @type {T} */ (typeof s === "string" ? sanitize(s, keep) : s);

/**
 * A tool as pi gets it: its label one line, its description and prompt
 * texts (the model reads them) without control characters but `\n` and tab.
 * @template {Partial<ToolManifest>} T
 * @param {T} tool
 * @returns {T}
 */
export function sanitizeTool(tool) {
  if (tool === null || typeof tool !== "object") return tool;
  const out = { ...tool };
  if ("label" in tool) out.label = clean(tool.label);
  if ("description" in tool) out.description = clean(tool.description, "text");
  if ("promptSnippet" in tool) out.promptSnippet = clean(tool.promptSnippet, "text");
  if (Array.isArray(tool.promptGuidelines)) out.promptGuidelines = tool.promptGuidelines.map((g) => clean(g, "text"));
  return out;
}

/**
 * A command (and its shortcut): its description as pi lists it, its fixed completions one line each.
 * @param {CommandManifest} command
 * @returns {CommandManifest}
 */
export function sanitizeCommand(command) {
  if (command === null || typeof command !== "object") return command;
  const out = { ...command };
  if ("description" in command) out.description = clean(command.description, "lines");
  if (Array.isArray(command.completions)) out.completions = command.completions.map((c) => clean(c));
  return out;
}

/**
 * Argument completions the extension computed (`command/complete`): those
 * with a value and a label, each field one line (the value goes into pi's editor).
 * @param {unknown} items
 * @returns {Array<{ value: string, label: string, description?: string }> | null}
 */
export function sanitizeCompletions(items) {
  if (!Array.isArray(items)) return null;
  const valid = items
    .filter((/** @type {any} */ i) => typeof i?.value === "string" && typeof i?.label === "string")
    .map((/** @type {any} */ i) => {
      const out = { ...i, value: sanitize(i.value), label: sanitize(i.label) };
      if (typeof i.description === "string") out.description = sanitize(i.description);
      else delete out.description;
      return out;
    });
  return valid.length ? valid : null;
}

/**
 * Models as pi lists them (the model selector, `--list-models`): each name one line.
 * @param {unknown} models
 */
export function sanitizeModels(models) {
  if (!Array.isArray(models)) return models;
  return models.map((m) => (m !== null && typeof m === "object" && "name" in m ? { ...m, name: clean(m.name) } : m));
}

/**
 * A provider: its display name, its login's name (`/login`) and its models' names one line.
 * @param {import("./provider.js").ProviderManifest} p
 * @returns {import("./provider.js").ProviderManifest}
 */
export function sanitizeProvider(p) {
  if (p === null || typeof p !== "object") return p;
  const out = { ...p };
  if ("displayName" in p) out.displayName = clean(p.displayName);
  if ("models" in p) out.models = /** @type {any[]} */ (sanitizeModels(p.models));
  if (p.oauth && typeof p.oauth === "object") out.oauth = { ...p.oauth, name: clean(p.oauth.name) };
  return out;
}

/**
 * The manifest with every text pi shows sanitized (see above); what pi
 * does not show (names, schemas) as it is: the checks still see it.
 * @param {Manifest} m
 * @returns {Manifest}
 */
export function sanitizeManifest(m) {
  if (m === null || typeof m !== "object") return m;
  /** @type {(list: any, f: (x: any) => any) => any} */
  const each = (list, f) => (Array.isArray(list) ? list.map(f) : list);
  return {
    ...m,
    ...("tools" in m ? { tools: each(m.tools, sanitizeTool) } : {}),
    ...("builtinTools" in m ? { builtinTools: each(m.builtinTools, sanitizeTool) } : {}),
    ...("commands" in m ? { commands: each(m.commands, sanitizeCommand) } : {}),
    ...("flags" in m ? { flags: each(m.flags, (f) => (f && typeof f === "object" ? { ...f, description: clean(f.description, "lines") } : f)) } : {}),
    ...("providers" in m ? { providers: each(m.providers, sanitizeProvider) } : {}),
    ...("virtualModels" in m ? { virtualModels: each(m.virtualModels, (v) => (v && typeof v === "object" ? { ...v, name: clean(v.name) } : v)) } : {}),
  };
}
