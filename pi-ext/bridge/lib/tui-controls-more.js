// @ts-check
// The specs and themes of more of pi's controls in a frame (PROTOCOL.md,
// "Controls in frames"): pi-tui's SettingsList, pi's DynamicBorder,
// pi-tui's Loader and its multi-line Editor. tui-controls.js keeps them live; this file checks and
// bounds what the extension sends for them and builds their pi-tui objects.

import { Editor, Loader, SettingsList } from "@mariozechner/pi-tui";

import { boundedInt, boundedText } from "./sanitize.js";

/** Most values one setting cycles through (the runtime's `MAX_SETTING_VALUES`). */
export const MAX_SETTING_VALUES = 64;

/** Most frames of a loader's own indicator (the runtime's `MAX_LOADER_FRAMES`). */
export const MAX_LOADER_FRAMES = 64;

/** Most characters of one indicator frame. */
const MAX_FRAME_TEXT = 16;

/** Most characters an editor holds (the runtime's `MAX_EDITOR_TEXT`): typing past it is cut. */
export const MAX_EDITOR_TEXT = 16_384;

/** Most columns of an editor's padding or inset (the runtime's `MAX_EDITOR_PAD`). */
const MAX_EDITOR_PAD = 16;

/** Shortest and longest time a loader's frame shows, in milliseconds. */
const INTERVAL_MS = [16, 10_000];

/**
 * @typedef {{ id: string, label: string, description?: string, currentValue: string, values: string[] }} Setting
 * @typedef {{ id: string, kind: "settings", items: Setting[], maxVisible: number, search: boolean,
 *   selected: string | undefined, focused: boolean }} SettingsSpec
 * @typedef {{ id: string, kind: "border", color: string | number, focused: false }} BorderSpec
 * @typedef {{ id: string, kind: "editor", value: string | undefined, border: string | number, paddingX: number,
 *   inset: [number, number], focused: boolean }} EditorSpec
 * @typedef {{ id: string, kind: "loader", message: string, spinner: string | number, messageColor: string | number,
 *   frames: string[] | undefined, intervalMs: number, focused: false }} LoaderSpec
 */

/**
 * A colour as the extension may send it (a theme token's name, `#rrggbb`, 0-255), else `fallback`.
 * @param {unknown} color
 * @param {string} fallback
 */
function colorOf(color, fallback) {
  if (typeof color === "number") return Number.isInteger(color) && color >= 0 && color <= 255 ? color : fallback;
  return typeof color === "string" && /^(#[0-9a-fA-F]{6}|[A-Za-z][A-Za-z0-9]{0,31})$/.test(color) ? color : fallback;
}

/**
 * A `settings` block's spec, bounded.
 * @param {any} w the wire block
 * @param {string} id
 * @param {(text: unknown) => string} text a label's bounding
 * @param {{ maxItems: number, maxVisible: number }} limits
 * @returns {SettingsSpec}
 */
export function settingsSpec(w, id, text, limits) {
  const items = (Array.isArray(w.items) ? w.items : []).slice(0, limits.maxItems).map((/** @type {any} */ i) => {
    /** @type {Setting} */
    const item = {
      id: text(i?.id),
      label: text(i?.label),
      currentValue: text(i?.value),
      values: (Array.isArray(i?.values) ? i.values : []).slice(0, MAX_SETTING_VALUES).map(text),
    };
    if (typeof i?.description === "string") item.description = text(i.description);
    return item;
  });
  const maxVisible = boundedInt(w.maxVisible, 1, limits.maxVisible, 10);
  const selected = typeof w.selected === "string" ? text(w.selected) : undefined;
  return { id, kind: "settings", items, maxVisible, search: w.search === true, selected, focused: w.focused !== false };
}

/**
 * A `border` block's spec.
 * @param {any} w
 * @returns {BorderSpec}
 */
export function borderSpec(w) {
  return { id: "", kind: "border", color: colorOf(w.color, "border"), focused: false };
}

/**
 * A `loader` block's spec, bounded.
 * @param {any} w
 * @param {string} id
 * @param {(text: unknown) => string} text
 * @returns {LoaderSpec}
 */
export function loaderSpec(w, id, text) {
  const frames = Array.isArray(w.frames) ? w.frames.slice(0, MAX_LOADER_FRAMES).map((/** @type {unknown} */ f) => boundedText(f, MAX_FRAME_TEXT)) : undefined;
  const intervalMs = boundedInt(w.intervalMs, INTERVAL_MS[0], INTERVAL_MS[1], 80);
  return {
    id,
    kind: "loader",
    message: text(w.message),
    spinner: colorOf(w.spinner, "accent"),
    messageColor: colorOf(w.messageColor, "muted"),
    frames,
    intervalMs,
    focused: false,
  };
}

/**
 * `paint(color)`: a function colouring text with it (nothing for a colour pi's theme has not).
 * @param {(color: unknown) => string} fgOpen
 */
function painter(fgOpen) {
  return (/** @type {unknown} */ color) => (/** @type {string} */ text) => {
    const open = fgOpen(color);
    return open ? `${open}${text}\x1b[39m` : text;
  };
}

/**
 * pi's `getSettingsListTheme()`: the selected label and value in accent,
 * the others' values muted, description and hint dim, cursor `→ ` in accent.
 * @param {(color: unknown) => string} fgOpen
 */
export function settingsTheme(fgOpen) {
  const paint = painter(fgOpen);
  return {
    label: (/** @type {string} */ t, /** @type {boolean} */ selected) => (selected ? paint("accent")(t) : t),
    value: (/** @type {string} */ t, /** @type {boolean} */ selected) => (selected ? paint("accent")(t) : paint("muted")(t)),
    description: paint("dim"),
    cursor: paint("accent")("→ "),
    hint: paint("dim"),
  };
}

/**
 * pi-tui's SettingsList over the spec's items (the list cycles those
 * objects' `currentValue`), reporting to `push`.
 * @param {SettingsSpec} spec
 * @param {(color: unknown) => string} fgOpen
 * @param {(event: { event: string, item?: string, value?: string }) => void} push
 */
export function makeSettingsList(spec, fgOpen, push) {
  // pi-tui's items: copies, so the spec stays what the extension last sent.
  const items = spec.items.map((i) => ({ ...i, values: [...i.values] }));
  const list = new SettingsList(
    items,
    spec.maxVisible,
    settingsTheme(fgOpen),
    (id, value) => push({ event: "settingChanged", item: id, value }),
    () => push({ event: "cancelled" }),
    { enableSearch: spec.search },
  );
  if (spec.selected !== undefined) list.selectItem(spec.selected);
  return list;
}

/**
 * pi's DynamicBorder at `width`: `─` across it (at least one) in its colour.
 * @param {BorderSpec} spec
 * @param {number} width
 * @param {(color: unknown) => string} fgOpen
 */
export function borderLine(spec, width, fgOpen) {
  return [painter(fgOpen)(spec.color)("─".repeat(Math.max(1, width)))];
}

/**
 * pi-tui's Loader for the spec, repainting with `repaint` on each frame of
 * its animation (pi-tui's own timer: no round trip). Stop it with `stop()`.
 * @param {LoaderSpec} spec
 * @param {(color: unknown) => string} fgOpen
 * @param {() => void} repaint
 */
export function makeLoader(spec, fgOpen, repaint) {
  const paint = painter(fgOpen);
  const indicator = spec.frames ? { frames: spec.frames, intervalMs: spec.intervalMs } : undefined;
  // pi-tui's Loader uses only its TUI's requestRender.
  const ui = /** @type {any} */ ({ requestRender: repaint });
  return new Loader(ui, paint(spec.spinner), paint(spec.messageColor), spec.message, indicator);
}

/**
 * A settings list's plain lines where there is no live control (RPC mode,
 * logs): `label  value`.
 * @param {SettingsSpec} spec
 */
export function settingsPlain(spec) {
  return spec.items.slice(0, spec.maxVisible).map((i) => `  ${i.label}  ${i.currentValue}`);
}

/**
 * An editor's text as the extension may set it: `\n` and tabs kept, other
 * control characters dropped, at most MAX_EDITOR_TEXT characters.
 * @param {unknown} text
 */
export function editorText(text) {
  return boundedText(text, MAX_EDITOR_TEXT, "text");
}

/**
 * An `editor` block's spec, bounded.
 * @param {any} w
 * @param {string} id
 * @returns {EditorSpec}
 */
export function editorSpec(w, id) {
  /** @param {unknown} v */
  const pad = (v) => boundedInt(v, 0, MAX_EDITOR_PAD, 0);
  const inset = Array.isArray(w.inset) ? w.inset : [];
  return {
    id,
    kind: "editor",
    value: typeof w.value === "string" ? editorText(w.value) : undefined,
    border: colorOf(w.border, "borderMuted"),
    paddingX: pad(w.paddingX),
    inset: [pad(inset[0]), pad(inset[1])],
    focused: w.focused !== false,
  };
}

/**
 * pi-tui's Editor for the spec: `new Editor(tui, theme, { paddingX })`
 * with the spec's border colour and pi's select-list theme (for an
 * autocomplete list it never opens here). `tui` is what the Editor asks of
 * pi's TUI: the terminal's rows (its height limit) and repaints.
 * @param {EditorSpec} spec
 * @param {(color: unknown) => string} fgOpen
 * @param {{ terminal: { rows: number }, requestRender: () => void }} tui
 * @param {{ submitted: (text: string) => void, changed: (text: string) => void }} on
 */
export function makeEditor(spec, fgOpen, tui, on) {
  const paint = painter(fgOpen);
  const theme = {
    borderColor: paint(spec.border),
    selectList: {
      selectedPrefix: paint("accent"),
      selectedText: paint("accent"),
      description: paint("muted"),
      scrollInfo: paint("muted"),
      noMatch: paint("muted"),
    },
  };
  const e = new Editor(/** @type {any} */ (tui), theme, { paddingX: spec.paddingX });
  if (spec.value !== undefined) e.setText(spec.value);
  e.onSubmit = on.submitted;
  e.onChange = on.changed;
  return e;
}

/**
 * An editor's lines at `width`, drawn `inset` in from the sides.
 * @param {any} e pi-tui's Editor
 * @param {EditorSpec} spec
 * @param {number} width
 */
export function editorLines(e, spec, width) {
  const [left, right] = spec.inset;
  const inner = Math.max(1, width - left - right);
  const lead = " ".repeat(Math.max(0, Math.min(left, width - 1)));
  return e.render(inner).map((/** @type {string} */ l) => lead + l);
}
