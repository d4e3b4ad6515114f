// @ts-check
// pi-tui's own controls inside a component's frame (PROTOCOL.md, "Controls in
// frames"): a frame's `control` block names a SelectList, an Input, a
// Markdown panel, a SettingsList, a DynamicBorder or a Loader, which the
// bridge makes with pi-tui's classes and keeps across frames by its id. Keys the control with the focus uses go to it
// here, with no round trip to the extension; what it reports (selection
// changed, chosen, cancelled, text changed, submitted, a panel's line count)
// goes to the extension as `ui/control`. Everything the extension sends is
// sanitized and bounded first (a panel's Markdown as a Markdown view's is,
// tui-markdown.js).

import { getKeybindings, Input, SelectList } from "@mariozechner/pi-tui";

import { boundedInt, boundedText } from "./sanitize.js";
import { borderLine, borderSpec, editorLines, editorSpec, editorText, loaderSpec, makeEditor, makeLoader, makeSettingsList, MAX_EDITOR_TEXT, settingsPlain, settingsSpec } from "./tui-controls-more.js";
import { decodeKey } from "./tui-keys.js";
import { cutBytes, MAX_MARKDOWN, markdownComponent, markdownGeneration, markdownNote, markdownPlain } from "./tui-markdown.js";

/** @typedef {import("./tui-render.js").ThemeLike} ThemeLike */

/** Most items a select list holds (the runtime's `MAX_SELECT_ITEMS`): the rest are left out. */
export const MAX_SELECT_ITEMS = 1000;

/** Most characters of an item's value, label or description, and of a filter (the runtime's `MAX_CONTROL_TEXT`). */
export const MAX_CONTROL_TEXT = 1024;

/** Most characters an input holds (the runtime's `MAX_INPUT`): typing past it is dropped. */
export const MAX_INPUT = 4096;

/** Most rows a select list shows at once (the runtime's `MAX_VISIBLE`). */
export const MAX_VISIBLE = 100;

/** Most controls one frame holds (the runtime's `MAX_CONTROLS`): the others draw nothing. */
export const MAX_CONTROLS = 16;

/** Most rows a Markdown panel shows at once (the runtime's `MAX_PANEL_HEIGHT`, a frame's line limit). */
export const MAX_PANEL_HEIGHT = 2000;

/** Highest scroll offset a Markdown panel takes (more than its text can draw: it shows its end). */
const MAX_SCROLL = 1_000_000;

/** Most padding of a Markdown panel, in columns or rows (the runtime's `MAX_PADDING`). */
const MAX_PADDING = 16;

/**
 * @typedef {{ value: string, label: string, description?: string }} Item
 * @typedef {{ id: string, kind: "select", items: Item[], maxVisible: number, filter: string,
 *   selected: number | undefined, colors: Record<string, unknown>, focused: boolean }} SelectSpec
 * @typedef {{ id: string, kind: "input", value: string | undefined, focused: boolean }} InputSpec
 * @typedef {{ id: string, kind: "markdown", markdown: string, more: number, height: number | undefined,
 *   scroll: number, paddingX: number, paddingY: number, focused: false }} MarkdownSpec
 * @typedef {import("./tui-controls-more.js").SettingsSpec} SettingsSpec
 * @typedef {import("./tui-controls-more.js").BorderSpec} BorderSpec
 * @typedef {import("./tui-controls-more.js").LoaderSpec} LoaderSpec
 * @typedef {import("./tui-controls-more.js").EditorSpec} EditorSpec
 * @typedef {SelectSpec | InputSpec | MarkdownSpec | SettingsSpec | BorderSpec | LoaderSpec | EditorSpec} ControlSpec
 * @typedef {{ event: string, index?: number, value?: string, text?: string, lines?: number, item?: string }} ControlEvent
 */

/**
 * `text` as a control shows it: a string, control characters dropped, at most `max` characters.
 * @param {unknown} text
 * @param {number} [max]
 */
export function controlText(text, max = MAX_CONTROL_TEXT) {
  return boundedText(text, max);
}

/**
 * A wire `control` block's spec, checked and bounded; undefined for one that is not a control.
 * @param {unknown} raw
 * @returns {ControlSpec | undefined}
 */
export function controlSpec(raw) {
  if (!raw || typeof raw !== "object") return undefined;
  const w = /** @type {any} */ (raw);
  const id = controlText(w.id, 64);
  const focused = w.focused !== false;
  if (w.kind === "select") {
    const items = (Array.isArray(w.items) ? w.items : []).slice(0, MAX_SELECT_ITEMS).map((/** @type {any} */ i) => {
      /** @type {Item} */
      const item = { value: controlText(i?.value), label: controlText(i?.label) };
      if (typeof i?.description === "string") item.description = controlText(i.description);
      return item;
    });
    const maxVisible = boundedInt(w.maxVisible, 1, MAX_VISIBLE, 5);
    const selected = Number.isSafeInteger(w.selected) && w.selected >= 0 ? w.selected : undefined;
    const colors = w.colors && typeof w.colors === "object" ? w.colors : {};
    return { id, kind: "select", items, maxVisible, filter: controlText(w.filter), selected, colors, focused };
  }
  if (w.kind === "input") {
    const value = typeof w.value === "string" ? controlText(w.value, MAX_INPUT) : undefined;
    return { id, kind: "input", value, focused };
  }
  if (w.kind === "markdown") {
    // Cut to its bytes here (a peer may send more than the runtime does); boundMarkdown
    // cuts its lines and sanitizes it when it is drawn.
    const [markdown, left] = cutBytes(typeof w.markdown === "string" ? w.markdown : "", MAX_MARKDOWN);
    const more = (Number.isSafeInteger(w.more) && w.more > 0 ? w.more : 0) + left;
    const height = boundedInt(w.height, 1, MAX_PANEL_HEIGHT, undefined);
    const scroll = boundedInt(w.scroll, 0, MAX_SCROLL, 0);
    /** @param {unknown} v */
    const pad = (v) => boundedInt(v, 0, MAX_PADDING, 0);
    // A panel takes no keys: the component scrolls it.
    return { id, kind: "markdown", markdown, more, height, scroll, paddingX: pad(w.paddingX), paddingY: pad(w.paddingY), focused: false };
  }
  if (w.kind === "settings") return settingsSpec(w, id, (t) => controlText(t), { maxItems: MAX_SELECT_ITEMS, maxVisible: MAX_VISIBLE });
  if (w.kind === "border") return borderSpec(w);
  if (w.kind === "loader") return loaderSpec(w, id, (t) => controlText(t));
  if (w.kind === "editor") return editorSpec(w, id);
  return undefined;
}

/**
 * pi's select-list theme (`getSelectListTheme()`: accent, accent, muted,
 * muted, muted) with the spec's colours instead where it names one.
 * @param {Record<string, unknown>} colors
 * @param {(color: unknown) => string} fgOpen a colour's escape sequence
 */
function selectTheme(colors, fgOpen) {
  const paint = (/** @type {string} */ name, /** @type {string} */ token) => (/** @type {string} */ text) => {
    const open = fgOpen(colors[name] ?? token);
    return open ? `${open}${text}\x1b[39m` : text;
  };
  return {
    selectedPrefix: paint("selected", "accent"),
    selectedText: paint("selected", "accent"),
    description: paint("description", "muted"),
    scrollInfo: paint("scrollInfo", "muted"),
    noMatch: paint("noMatch", "muted"),
  };
}

/** SelectList's keybinding ids and the key names used where pi-tui has no keybindings. */
const SELECT_KEYS = /** @type {const} */ ([
  ["tui.select.up", ["up"]],
  ["tui.select.down", ["down"]],
  ["tui.select.pageUp", ["pageUp"]],
  ["tui.select.pageDown", ["pageDown"]],
  ["tui.select.confirm", ["enter"]],
  ["tui.select.cancel", ["escape", "ctrl+c"]],
]);

/** Keys an Input leaves to the component (it does nothing with them). */
const NOT_INPUT = new Set(["tab", "shift+tab", "up", "down", "pageUp", "pageDown"]);

/** Keys a SettingsList with search leaves to the component (its search field does nothing with them). */
const NOT_SEARCH = ["tab", "shift+tab"];

/**
 * An input's text set by the extension, the cursor at its end (pi-tui's
 * `setValue` keeps the cursor's column, which is 0 for a new input).
 * @param {any} input
 * @param {string} text
 */
function setText(input, text) {
  input.setValue(text);
  input.cursor = text.length;
}

/**
 * Whether `data` is one of `names`, as pi decodes it.
 * @param {string} data
 * @param {readonly string[]} names
 */
function isKey(data, names) {
  const { key, aliases } = decodeKey(data);
  return names.some((n) => n === key || aliases.includes(n));
}

/**
 * One live control: pi-tui's object, the spec it was last given, and the
 * events it reported since they were last taken.
 */
class LiveControl {
  /**
   * @param {ControlSpec} spec
   * @param {(color: unknown) => string} fgOpen
   * @param {() => void} [repaint] has pi draw the component again (a loader's animation)
   * @param {() => number} [rows] the terminal's rows (an editor's height is 30% of them)
   */
  constructor(spec, fgOpen, repaint = () => {}, rows = () => 24) {
    this.rows = rows;
    /** @type {ControlSpec} */
    this.spec = spec;
    /** @type {ControlEvent[]} */
    this.events = [];
    this.fgOpen = fgOpen;
    this.repaint = repaint;
    /** @type {any} */
    this.control = undefined;
    this.itemsKey = "";
    /** A panel's Markdown drawn for: its text, pi's Markdown theme and pi's theme (a switch draws it anew). */
    this.mdKey = /** @type {[string, number, number, unknown, number, number] | undefined} */ (undefined);
    /** The line count last reported for a panel (`measured`). */
    this.measured = -1;
    this.build(spec);
  }

  /** @param {ControlSpec} spec */
  build(spec) {
    this.stop();
    if (spec.kind === "border") {
      this.control = undefined; // drawn from its spec
    } else if (spec.kind === "settings") {
      this.control = makeSettingsList(spec, this.fgOpen, (e) => this.events.push(e));
      this.itemsKey = settingsKey(spec);
    } else if (spec.kind === "editor") {
      const live = this;
      const tui = {
        terminal: {
          get rows() {
            return live.rows();
          },
        },
        requestRender: () => this.repaint(),
      };
      this.control = makeEditor(spec, this.fgOpen, tui, {
        submitted: (text) => this.events.push({ event: "submitted", text: editorText(text) }),
        changed: (text) => this.events.push({ event: "changed", text: editorText(text) }),
      });
    } else if (spec.kind === "loader") {
      this.control = makeLoader(spec, this.fgOpen, () => this.repaint());
      this.itemsKey = loaderKey(spec);
    } else if (spec.kind === "markdown") {
      this.control = undefined; // made when drawn, with the theme then
      this.mdKey = undefined;
    } else if (spec.kind === "select") {
      const list = new SelectList(spec.items, spec.maxVisible, selectTheme(spec.colors, this.fgOpen));
      // The index the extension gets is into its own items (the list holds the same objects).
      const at = (/** @type {Item} */ item) => this.spec.kind === "select" ? this.spec.items.indexOf(item) : -1;
      list.onSelectionChange = (item) => this.events.push({ event: "selectionChanged", index: at(item), value: item.value });
      list.onSelect = (item) => this.events.push({ event: "chosen", index: at(item), value: item.value });
      list.onCancel = () => this.events.push({ event: "cancelled" });
      if (spec.filter) list.setFilter(spec.filter);
      if (spec.selected !== undefined) list.setSelectedIndex(spec.selected);
      this.itemsKey = JSON.stringify([spec.items, spec.maxVisible, spec.colors]);
      this.control = list;
    } else {
      const input = new Input();
      if (spec.value !== undefined) setText(input, spec.value);
      input.onSubmit = (value) => this.events.push({ event: "submitted", text: value });
      input.onEscape = () => this.events.push({ event: "cancelled" });
      this.control = input;
    }
  }

  /**
   * The extension's next spec for it: what changed is applied, the rest kept
   * (the selection, the typed text, the cursor).
   * @param {ControlSpec} spec
   */
  update(spec) {
    const old = this.spec;
    this.spec = spec;
    if (spec.kind !== old.kind) return this.build(spec);
    if (spec.kind === "select" && old.kind === "select") {
      const list = this.control;
      if (JSON.stringify([spec.items, spec.maxVisible, spec.colors]) !== this.itemsKey) {
        const keep = list.selectedIndex;
        this.build(spec);
        if (spec.filter === old.filter && (spec.selected === undefined || spec.selected === old.selected)) this.control.setSelectedIndex(keep);
        return;
      }
      // The same items: the list keeps its own objects (events find their index by them).
      this.spec = { ...spec, items: old.items };
      if (spec.filter !== old.filter) list.setFilter(spec.filter);
      if (spec.selected !== undefined && spec.selected !== old.selected) list.setSelectedIndex(this.filteredIndex(spec.selected));
    } else if (spec.kind === "input" && old.kind === "input") {
      if (spec.value !== undefined && spec.value !== old.value) setText(this.control, spec.value);
    } else if (spec.kind === "settings" && old.kind === "settings") {
      // The items as before but for values: the list (its selection, search, the values the user cycled) stays.
      if (settingsKey(spec) !== this.itemsKey) {
        const keep = this.control.selectedIndex; // pi-tui's private index
        this.build(spec);
        if (spec.selected === undefined || spec.selected === old.selected) this.control.selectedIndex = Math.min(keep, Math.max(0, spec.items.length - 1));
        return;
      }
      spec.items.forEach((item, i) => {
        if (item.currentValue !== old.items[i]?.currentValue) this.control.updateValue(item.id, item.currentValue);
      });
      if (spec.selected !== undefined && spec.selected !== old.selected) this.control.selectItem(spec.selected);
    } else if (spec.kind === "editor" && old.kind === "editor") {
      if (spec.paddingX !== old.paddingX || spec.border !== old.border) {
        const text = this.control.getText();
        this.build({ ...spec, value: spec.value !== undefined && spec.value !== old.value ? spec.value : text });
        this.spec = spec;
        return;
      }
      if (spec.value !== undefined && spec.value !== old.value) {
        this.control.setText(spec.value);
        this.events = []; // the extension's own text is no change to report
      }
    } else if (spec.kind === "loader" && old.kind === "loader") {
      if (loaderKey(spec) !== this.itemsKey) {
        this.build(spec);
        return;
      }
      if (spec.message !== old.message) this.control.setMessage(spec.message);
    }
    // A panel: its Markdown is drawn again only if the text changed (render).
  }

  /**
   * A key for an editor: Escape reports `cancelled` (pi-tui's Editor has
   * no use for it without autocomplete); the text is held to
   * MAX_EDITOR_TEXT; a submit's own `changed` (to "") is not reported.
   * @param {string} data
   * @returns {ControlEvent[]}
   */
  editorKey(data) {
    if (isKey(data, ["escape"])) return [{ event: "cancelled" }];
    try {
      this.control.handleInput(data);
    } catch {
      // pi-tui's control failed on the key: nothing happened.
    }
    const text = this.control.getText();
    if (text.length > MAX_EDITOR_TEXT) {
      const cut = text.slice(0, MAX_EDITOR_TEXT);
      this.control.setText(cut);
      this.events.push({ event: "changed", text: editorText(cut) });
    }
    let out = this.events;
    this.events = [];
    if (out.some((e) => e.event === "submitted")) out = out.filter((e) => e.event !== "changed");
    // Only the text it ended with.
    const last = out.filter((e) => e.event === "changed").at(-1);
    return out.filter((e) => e.event !== "changed" || e === last);
  }

  /** Stop what runs on its own (a loader's timer). */
  stop() {
    try {
      this.control?.stop?.();
    } catch {
      // Nothing to stop.
    }
  }

  /**
   * An index into the spec's items as an index into the filtered ones.
   * @param {number} index
   */
  filteredIndex(index) {
    if (this.spec.kind !== "select") return index;
    const at = this.control.filteredItems.indexOf(this.spec.items[index]); // pi-tui's private list: the same objects
    return at < 0 ? 0 : at;
  }

  /**
   * Whether the control uses `data` (else it goes to the component).
   * @param {string} data
   */
  claims(data) {
    if (this.spec.kind === "markdown" || this.spec.kind === "border" || this.spec.kind === "loader") return false;
    if (this.spec.kind === "input") return !isKey(data, [...NOT_INPUT]);
    // Every key but Ctrl+C, which pi-tui's Editor leaves to its parent.
    if (this.spec.kind === "editor") return !isKey(data, ["ctrl+c"]);
    // With search, every key but Tab types into its field; without, Space cycles too.
    if (this.spec.kind === "settings" && (this.spec.search ? !isKey(data, NOT_SEARCH) : data === " ")) return true;
    /** @type {any} */
    let kb;
    try {
      kb = getKeybindings();
    } catch {
      kb = undefined;
    }
    return SELECT_KEYS.some(([id, names]) => {
      try {
        if (kb && kb.matches(data, id)) return true;
      } catch {
        // An id this pi-tui does not know: its key names below.
      }
      return isKey(data, names);
    });
  }

  /**
   * A key for the control: the events it caused.
   * @param {string} data
   * @returns {ControlEvent[]}
   */
  key(data) {
    if (this.spec.kind === "editor") return this.editorKey(data);
    const before = this.spec.kind === "input" ? this.control.getValue() : undefined;
    try {
      this.control.handleInput(data);
    } catch {
      // pi-tui's control failed on the key: nothing happened.
    }
    if (this.spec.kind === "input") {
      let now = this.control.getValue();
      if (now.length > MAX_INPUT) {
        now = now.slice(0, MAX_INPUT);
        this.control.setValue(now);
      }
      // Submitted: the text, then the field as pi-tui left it.
      if (now !== before && !this.events.some((e) => e.event === "submitted")) this.events.push({ event: "changed", text: now });
    }
    const out = this.events;
    this.events = [];
    return out;
  }

  /**
   * Its lines at `width`.
   * @param {number} width
   * @param {boolean} focused whether the component has the focus (the input shows its cursor then)
   * @param {ThemeLike | undefined} theme pi's theme (a Markdown panel's colours without pi's module)
   * @returns {string[]}
   */
  render(width, focused, theme) {
    if (this.spec.kind === "markdown") return this.panel(this.spec, width, theme);
    if (this.spec.kind === "border") return borderLine(this.spec, width, this.fgOpen);
    if (this.spec.kind === "input" || this.spec.kind === "editor") this.control.focused = focused && this.spec.focused;
    if (this.spec.kind === "editor") {
      try {
        return editorLines(this.control, this.spec, width);
      } catch {
        return [];
      }
    }
    try {
      return this.control.render(width);
    } catch {
      return [];
    }
  }

  /**
   * A Markdown panel's rows at `width`: pi-tui's `new Markdown(text, 0, 0,
   * getMarkdownTheme())` over the bounded text, then the note if it was cut,
   * from `scroll` (held so the last row is the text's last) for `height`
   * rows. Its line count is reported (`measured`) for each new text and
   * whenever it changes, so the component can page within it.
   * @param {MarkdownSpec} spec
   * @param {number} width
   * @param {ThemeLike | undefined} theme
   * @returns {string[]}
   */
  panel(spec, width, theme) {
    /** @type {[string, number, number, unknown, number, number]} */
    const key = [spec.markdown, spec.more, markdownGeneration(), theme, spec.paddingX, spec.paddingY];
    if (!this.mdKey || key.some((k, i) => k !== this.mdKey?.[i])) {
      // pi-tui's Markdown keeps its lines per width: paging costs no parse.
      this.control = markdownComponent(spec.markdown, spec.more, theme, spec.paddingX, spec.paddingY);
      // Another text with as many rows is reported too: the component pages a new text.
      if (this.mdKey?.[0] !== spec.markdown || this.mdKey?.[1] !== spec.more) this.measured = -1;
      this.mdKey = key;
    }
    /** @type {string[]} */
    let all;
    try {
      all = this.control.md ? [...this.control.md.render(width)] : [];
    } catch {
      all = [];
    }
    if (this.control.more > 0) all.push(`\x1b[2m${markdownNote(this.control.more)}\x1b[22m`);
    if (all.length !== this.measured) {
      this.measured = all.length;
      this.events.push({ event: "measured", lines: all.length });
    }
    const height = spec.height ?? all.length;
    const top = Math.min(spec.scroll, Math.max(0, all.length - height));
    return all.slice(top, top + height);
  }
}

/**
 * A component's controls, by id, as its last frame names them.
 */
export class ControlSet {
  /**
   * @param {() => ThemeLike | undefined} getTheme
   * @param {(events: Array<ControlEvent & { control: string }>) => void} [report]
   *   gets what controls report while drawn (a Markdown panel's line count)
   * @param {() => void} [repaint] has pi draw the component again (a loader's next frame)
   * @param {() => number} [rows] the terminal's rows (an editor's height limit)
   */
  constructor(getTheme, report, repaint, rows) {
    this.rows = rows ?? (() => 24);
    this.getTheme = getTheme;
    this.report = report;
    this.repaint = repaint ?? (() => {});
    /** @type {Map<string, LiveControl>} */
    this.live = new Map();
    /** Specs in the frame's order (the first focused one gets keys). */
    /** @type {ControlSpec[]} */
    this.order = [];
  }

  /**
   * The colour's foreground escape sequence with pi's current theme.
   * @param {unknown} color
   */
  fgOpen(color) {
    const theme = this.getTheme();
    if (typeof color === "number" && Number.isInteger(color) && color >= 0 && color <= 255) return `\x1b[38;5;${color}m`;
    if (typeof color === "string" && /^#[0-9a-fA-F]{6}$/.test(color)) {
      const n = parseInt(color.slice(1), 16);
      return `\x1b[38;2;${(n >> 16) & 255};${(n >> 8) & 255};${n & 255}m`;
    }
    try {
      return typeof color === "string" && theme ? theme.getFgAnsi(color) : "";
    } catch {
      return "";
    }
  }

  /**
   * A new frame: its `control` blocks (top level) made, updated or dropped.
   * @param {unknown} blocks
   */
  sync(blocks) {
    /** @type {ControlSpec[]} */
    const specs = [];
    const seen = new Set();
    for (const b of Array.isArray(blocks) ? blocks : []) {
      if (specs.length >= MAX_CONTROLS) break;
      const spec = controlSpec(b?.control);
      if (!spec) continue;
      // A border keeps nothing: it is drawn from its block (borders count towards the limit).
      if (spec.kind === "border") {
        specs.push(spec);
        continue;
      }
      if (seen.has(spec.id)) continue;
      seen.add(spec.id);
      specs.push(spec);
    }
    for (const [id, w] of [...this.live]) {
      if (seen.has(id)) continue;
      w.stop();
      this.live.delete(id);
    }
    for (const spec of specs) {
      if (spec.kind === "border") continue;
      const w = this.live.get(spec.id);
      if (w) w.update(spec);
      else this.live.set(spec.id, new LiveControl(spec, (c) => this.fgOpen(c), () => this.repaint(), () => this.rows()));
    }
    this.order = specs;
  }

  /** The component closed: its controls stop (a loader's timer) and go. */
  dispose() {
    for (const w of this.live.values()) w.stop();
    this.live.clear();
    this.order = [];
  }

  /** The control that gets keys: the frame's first focused one. */
  focusedControl() {
    const spec = this.order.find((s) => s.focused);
    return spec ? this.live.get(spec.id) : undefined;
  }

  /**
   * A key: to the focused control if it uses it. Undefined: the component's;
   * else the events it caused, with the control's id.
   * @param {string} data
   * @returns {Array<ControlEvent & { control: string }> | undefined}
   */
  key(data) {
    const w = this.focusedControl();
    if (!w || !w.claims(data)) return undefined;
    return w.key(data).map((e) => ({ control: w.spec.id, ...e }));
  }

  /**
   * A control block's lines at `width` (tui-render's `control` callback).
   * @param {unknown} raw the block's `control`
   * @param {number} width
   * @param {boolean} focused
   */
  render(raw, width, focused) {
    // A border is one row from its block alone (the frame's line limit bounds how many).
    if (/** @type {any} */ (raw)?.kind === "border") return borderLine(borderSpec(raw), width, (c) => this.fgOpen(c));
    const id = controlText(/** @type {any} */ (raw)?.id, 64);
    const live = this.live.get(id);
    if (!live) return [];
    const lines = live.render(width, focused, this.getTheme());
    if (live.spec.kind === "markdown" && live.events.length > 0) {
      const events = live.events.map((e) => ({ control: id, ...e }));
      live.events = [];
      try {
        this.report?.(events);
      } catch {
        // The extension's connection is gone: nothing to tell.
      }
    }
    return lines;
  }
}

/**
 * A control block's plain lines where there is no live control (RPC mode,
 * logs): a select list's labels, an input's text.
 * @param {unknown} raw
 * @returns {string[]}
 */
export function controlPlain(raw) {
  const spec = controlSpec(raw);
  if (!spec) return [];
  if (spec.kind === "input") return [`> ${spec.value ?? ""}`];
  if (spec.kind === "settings") return settingsPlain(spec);
  if (spec.kind === "border") return ["─".repeat(10)];
  if (spec.kind === "loader") return ["", ` ${spec.message}`];
  if (spec.kind === "editor") return (spec.value ?? "").split("\n");
  if (spec.kind === "markdown") {
    const lines = markdownPlain(spec.markdown, spec.more);
    const height = spec.height ?? lines.length;
    const top = Math.min(spec.scroll, Math.max(0, lines.length - height));
    return lines.slice(top, top + height);
  }
  return spec.items.slice(0, spec.maxVisible).map((i) => `  ${i.label || i.value}`);
}

/**
 * What rebuilds a settings list when it changes: all but the items' values.
 * @param {SettingsSpec} spec
 */
function settingsKey(spec) {
  return JSON.stringify([spec.items.map((i) => [i.id, i.label, i.description, i.values]), spec.maxVisible, spec.search]);
}

/**
 * What rebuilds a loader when it changes: all but its message.
 * @param {LoaderSpec} spec
 */
function loaderKey(spec) {
  return JSON.stringify([spec.frames, spec.intervalMs, spec.spinner, spec.messageColor]);
}
