// @ts-check
// What a Rust provider is sent, whichever pi calls it. pi 0.73.1 hands a
// provider's `streamSimple` a `Context` (`systemPrompt`, `messages`,
// `tools`); pi ≥ 0.86 a `TranscriptContext`, where the prompt and the tools
// are `role: "system"` messages (`content`, named `sections`,
// `toolsAdded`/`toolsRemoved`) replayed in order. The second becomes the
// first here, as pi-ai's `collapseSystemMessages` +
// `getCurrentSystemPrompt`/`getCurrentTools` do for APIs without
// mid-conversation system messages, so the `provider/stream` wire and the
// Rust provider API stay one form. Decided by shape, not by version.

/**
 * A system message (pi-ai ≥ 0.86's `SystemMessage`).
 * @typedef {object} SystemMessage
 * @property {"system"} role
 * @property {string | Array<{ type: string, text?: string }>} [content]
 * @property {Record<string, string | null>} [sections]
 * @property {Array<{ name: string }>} [toolsAdded]
 * @property {Array<{ name: string }>} [toolsRemoved]
 */

/**
 * Either context, as far as this module reads it.
 * @typedef {{ systemPrompt?: string, tools?: unknown[], messages?: unknown[] }} AnyContext
 */

/** @param {unknown} m @returns {m is SystemMessage} */
const isSystem = (m) => typeof m === "object" && m !== null && /** @type {{ role?: unknown }} */ (m).role === "system";

/**
 * pi-ai's `contentText`: a string, or the text blocks joined with "\n".
 * @param {SystemMessage["content"]} content
 */
function contentText(content) {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return content
    .filter((b) => b?.type === "text" && typeof b.text === "string")
    .map((b) => b.text)
    .join("\n");
}

/**
 * The tools after every system message's removals and additions, in order
 * (pi-ai's `getCurrentTools`).
 * @param {SystemMessage[]} system
 */
export function currentTools(system) {
  /** @type {Map<string, { name: string }>} */
  const tools = new Map();
  for (const m of system) {
    for (const t of m.toolsRemoved ?? []) tools.delete(t?.name);
    for (const t of m.toolsAdded ?? []) if (typeof t?.name === "string") tools.set(t.name, t);
  }
  return [...tools.values()];
}

/**
 * The prompt text after replaying every system message (pi-ai's
 * `getCurrentSystemPrompt`): each message's text, then the named sections
 * as the last message that named them left them (`null` removes one).
 * @param {SystemMessage[]} system
 */
export function currentSystemPrompt(system) {
  /** @type {string[]} */
  const content = [];
  /** @type {Map<string, string>} */
  const sections = new Map();
  for (const m of system) {
    const text = contentText(m.content);
    if (text.length > 0) content.push(text);
    for (const [name, value] of Object.entries(m.sections ?? {})) {
      if (value === null) sections.delete(name);
      else if (typeof value === "string") sections.set(name, value);
    }
  }
  return [content.join("\n\n"), ...sections.values()].filter((part) => part.length > 0).join("\n\n");
}

/**
 * `context` in pi 0.73.1's `Context` form: unchanged when it already is
 * one (it has `systemPrompt` or `tools`, or no system message); otherwise
 * the system messages replayed into `systemPrompt` and `tools` and left
 * out of `messages`. Other fields are kept.
 * @template C typed as pi's `Context` where the caller has one: it is one after this
 * @param {C} context
 * @returns {C}
 */
export function legacyContext(context) {
  const c = /** @type {AnyContext} */ (context);
  const messages = Array.isArray(c?.messages) ? c.messages : undefined;
  if (!messages || c.systemPrompt !== undefined || c.tools !== undefined) return context;
  const system = messages.filter(isSystem);
  if (system.length === 0) return context;
  const systemPrompt = currentSystemPrompt(system);
  const tools = currentTools(system);
  return /** @type {C} */ ({
    ...c,
    ...(systemPrompt ? { systemPrompt } : {}),
    messages: messages.filter((m) => !isSystem(m)),
    ...(tools.length > 0 ? { tools } : {}),
  });
}
