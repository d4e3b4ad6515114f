// @ts-check
// Markdown blocks of views: drawn by pi-tui's own Markdown with pi's
// getMarkdownTheme(), after the text is bounded (size, lines, nesting, inline
// delimiters) so no extension's Markdown stalls pi. The tests here run in
// order: the first ones draw before pi's theme is loaded.
import assert from "node:assert/strict";
import { test } from "node:test";

import { Markdown, visibleWidth } from "@mariozechner/pi-tui";

import {
  boundMarkdown,
  hasPiMarkdownTheme,
  loadMarkdownThemeWith,
  markdownNote,
  MAX_MARKDOWN,
  MAX_MARKDOWN_DELIMITERS,
  MAX_MARKDOWN_LINES,
  MAX_MARKDOWN_NESTING,
} from "../lib/tui-markdown.js";
import { MAX_LINES, plainLines, renderView, styledText, ViewComponent } from "../lib/tui-render.js";

/** A theme like pi's for the tokens' fallback. */
const tokens = {
  /** @param {string} t */
  getFgAnsi: (t) => `\x1b[38;5;${t.length}m`,
  getBgAnsi: () => "",
  getColorMode: () => "256color",
};

/** Text without SGR sequences. @param {string} s */
const plain = (s) => s.replace(/\x1b\[[0-9;]*m/g, "");

/** @param {unknown} markdown @param {number} [more] */
const view = (markdown, more) => /** @type {any} */ ({ blocks: [more === undefined ? { markdown } : { markdown, more }] });

const SAMPLE = [
  "# Summary",
  "",
  "Some **bold**, *italic*, `code` and a [link](https://example.com).",
  "",
  "- one",
  "  - nested",
  "1. first",
  "",
  "> quoted",
  "",
  "```rust",
  'fn main() { println!("hi"); }',
  "```",
  "",
  "| a | b |",
  "|---|---|",
  "| 1 | 2 |",
].join("\n");

/** @type {any} pi's module, loaded by the first test */
let pi;

test("before pi's theme is loaded, Markdown draws with its tokens, loads pi's module once and repaints what drew", async () => {
  assert.equal(hasPiMarkdownTheme(), false);
  let loads = 0;
  /** @type {(m: any) => void} */
  let arrive = () => {};
  loadMarkdownThemeWith(() => {
    loads++;
    return new Promise((resolve) => (arrive = resolve));
  });
  let repaints = 0;
  const c = new ViewComponent(() => tokens, view(SAMPLE), { repaint: () => repaints++ });
  const first = c.render(60);
  assert.ok(first.some((l) => plain(l).includes("Summary")));
  // The heading in the tokens' colour (mdHeading: 9 letters), as pi's theme would colour it.
  assert.ok(first.some((l) => l.includes("\x1b[38;5;9m") && plain(l).includes("Summary")), first.join("\n"));
  new ViewComponent(() => tokens, view("*x*"), { repaint: () => repaints++ }).render(10);
  // A view without Markdown waits for nothing.
  new ViewComponent(() => tokens, { blocks: [{ text: [["plain"]] }] }, { repaint: () => repaints++ }).render(10);
  assert.equal(loads, 1);
  pi = await import("@mariozechner/pi-coding-agent");
  pi.initTheme("dark");
  arrive(pi);
  await new Promise((resolve) => setImmediate(resolve));
  assert.equal(hasPiMarkdownTheme(), true);
  assert.equal(repaints, 2, "both Markdown views were asked to repaint");
  const again = c.render(60);
  assert.notEqual(again, first, "the cache drawn with the tokens' theme is dropped");
  assert.deepEqual(again, new Markdown(SAMPLE, 0, 0, pi.getMarkdownTheme()).render(60));
});

test("a markdown block is pi-tui's Markdown with pi's getMarkdownTheme, at every width, in a box as with padding", () => {
  const md = pi.getMarkdownTheme();
  for (const width of [1, 2, 5, 20, 37, 80, 200]) {
    const lines = renderView(view(SAMPLE), width, tokens);
    assert.deepEqual(lines, new Markdown(SAMPLE, 0, 0, md).render(width), `width ${width}`);
    for (const l of lines) assert.ok(visibleWidth(l) <= width);
  }
  // pi's `new Markdown(text, 1, 1, theme)` is the block in a box of padding 1, 1.
  const boxed = renderView({ blocks: [{ box: { padX: 1, padY: 1 }, blocks: [{ markdown: SAMPLE }] }] }, 50, tokens);
  assert.deepEqual(boxed.map(plain), new Markdown(SAMPLE, 1, 1, md).render(50).map(plain));
  // The code block is highlighted by pi (its own colours, not the code-block colour on every token).
  const code = boxed.find((l) => plain(l).includes("println"));
  assert.ok(code && (code.match(/\x1b\[/g) ?? []).length > 2, JSON.stringify(code));
});

test("a theme switch repaints a Markdown view in the new theme's colours", () => {
  const c = new ViewComponent(() => tokens, view("# Title"));
  pi.initTheme("dark");
  const dark = c.render(30);
  pi.initTheme("light");
  c.invalidate(); // pi does this on every theme switch
  const light = c.render(30);
  assert.notDeepEqual(light, dark);
  assert.deepEqual(light, new Markdown("# Title", 0, 0, pi.getMarkdownTheme()).render(30));
  pi.initTheme("dark");
});

test("plain and styled text of a Markdown view are its source's lines", () => {
  assert.deepEqual(plainLines(view("# A\n\n- b")), ["# A", "", "- b"]);
  assert.equal(styledText(view("*x*\ny"), tokens), "*x*\ny");
  assert.deepEqual(plainLines(view("x", 10)), ["x", markdownNote(10)]);
  assert.deepEqual(renderView(view(""), 10, tokens), []);
  assert.deepEqual(renderView(view(" \n "), 10, tokens), []);
});

test("Markdown past MAX_MARKDOWN bytes is cut at a character, with a line saying how many bytes were not shown", () => {
  const text = `a${"é".repeat(3000)}`;
  const { text: shown, more } = boundMarkdown(text);
  assert.equal(Buffer.byteLength(shown), MAX_MARKDOWN - 1);
  assert.equal(more, Buffer.byteLength(text) - (MAX_MARKDOWN - 1));
  const lines = renderView(view(text), 80, tokens);
  assert.equal(plain(lines.at(-1) ?? ""), "… 1,906 more bytes (pi-ext caps a Markdown view at 4,096)");
  // What the runtime cut already is added.
  assert.equal(boundMarkdown("x", 5).more, 5);
  assert.equal(boundMarkdown("x", -5).more, 0);
  assert.equal(boundMarkdown("x", "5").more, 0);
  // Lines past MAX_MARKDOWN_LINES are cut as bytes are.
  const many = "x\n".repeat(1000);
  const cut = boundMarkdown(many);
  assert.equal(cut.text.split("\n").length, MAX_MARKDOWN_LINES);
  assert.equal(cut.more, many.length - (2 * MAX_MARKDOWN_LINES - 1));
  assert.equal(boundMarkdown("x\n".repeat(MAX_MARKDOWN_LINES - 1)).more, 0);
});

test("escape sequences and control characters never reach pi-tui; entities stay text", () => {
  const hostile = "# a\x1b[2Jb\n\n\x1b]52;c;aGk=\x07[l](https://e/\x1b]8;;x\x07) \u009b31m &#27;[31m\tx";
  const { text } = boundMarkdown(hostile);
  assert.equal(text, "# a[2Jb\n\n]52;c;aGk=[l](https://e/]8;;x) 31m &#27;[31m   x");
  const out = renderView(view(hostile), 80, tokens).join("\n");
  assert.doesNotMatch(out, /\x1b\[2J|\x1b\]52|\u009b|\x07/);
  assert.match(plain(out), /&#27;\[31m/);
});

test("lists and quotes nested deeper than MAX_MARKDOWN_NESTING are flattened to it", () => {
  const depth = (/** @type {string} */ line) => {
    const m = /^( *)((?:(?:>|[-+*]|\d+[.)]) *)*)/.exec(line) ?? ["", "", ""];
    return (m[2].match(/[>*+-]|\d+[.)]/g) ?? []).length + Math.floor(m[1].length / 2);
  };
  const chain = boundMarkdown(`${"- > ".repeat(1000)}deep`).text;
  assert.equal(chain, `${"- > ".repeat(MAX_MARKDOWN_NESTING / 2)}deep`);
  const list = Array.from({ length: 3000 }, (_, i) => `${"  ".repeat(i)}- item ${i}`).join("\n");
  const flat = boundMarkdown(list).text.split("\n").filter((l) => l.includes("- item"));
  assert.ok(flat.length > 50, `${flat.length}`);
  for (const line of flat) assert.ok(depth(line) <= MAX_MARKDOWN_NESTING, line);
  const quotes = Array.from({ length: 60 }, (_, i) => `${"> ".repeat(i + 1)}q${i}`).join("\n");
  const q = boundMarkdown(quotes).text.split("\n");
  assert.equal(q[0], "> q0");
  assert.equal(q[59], `${"> ".repeat(MAX_MARKDOWN_NESTING)}q59`);
  // At the limit nothing changes, and a line without markers (code) keeps its indentation.
  const ok = `${"> ".repeat(MAX_MARKDOWN_NESTING)}x\n${" ".repeat(40)}code`;
  assert.equal(boundMarkdown(ok).text, ok);
  for (const text of [chain, list, quotes]) {
    const lines = renderView(view(text), 40, tokens);
    assert.ok(lines.length > 0 && lines.length <= MAX_LINES);
  }
});

test("a block with more than MAX_MARKDOWN_DELIMITERS inline delimiters has them all escaped; others are read as Markdown", () => {
  const under = "*a* ".repeat(MAX_MARKDOWN_DELIMITERS / 2);
  assert.equal(boundMarkdown(under).text, under);
  const over = `${"*a ".repeat(MAX_MARKDOWN_DELIMITERS)}_b_`;
  assert.equal(boundMarkdown(over).text, `${"\\*a ".repeat(MAX_MARKDOWN_DELIMITERS)}\\_b\\_`);
  // Shown as written, no italics.
  const lines = renderView(view(over), 500, tokens);
  assert.equal(plain(lines[0]).trimEnd(), over);
  // Escaped ones stay as they are; blocks are counted apart (a blank line, a list item, a heading).
  assert.equal(boundMarkdown(`\\*${"a".repeat(10)}`).text, `\\*${"a".repeat(10)}`);
  const items = Array.from({ length: 40 }, (_, i) => `- \`item\` ${i} **b**`).join("\n");
  assert.equal(boundMarkdown(items).text, items);
  const headed = `# ${"`x` ".repeat(20)}\n${"`y` ".repeat(20)}`;
  assert.equal(boundMarkdown(headed).text, headed);
  const oneBlock = `${"`x` ".repeat(20)}\n${"`y` ".repeat(20)}`;
  assert.notEqual(boundMarkdown(oneBlock).text, oneBlock);
});

test("hostile Markdown draws bounded, the same every time", () => {
  for (const text of ["*a ".repeat(64 * 1024 / 3), "[a](".repeat(16 * 1024), "$a ".repeat(20000), `${"- ".repeat(3000)}x`, "*a\n".repeat(20000)]) {
    const first = renderView(view(text), 60, tokens);
    assert.ok(first.length > 0 && first.length <= MAX_MARKDOWN_LINES + 1, `${first.length} lines`);
    assert.match(plain(first.at(-1) ?? ""), /more bytes \(pi-ext caps a Markdown view at 4,096\)$/);
    assert.deepEqual(renderView(view(text), 60, tokens), first);
  }
});

test("a Markdown view counts the lines pi-tui drew against the view's limit", () => {
  const v = /** @type {any} */ ({ blocks: ["v", "w", "x", "y", "z"].map((c) => ({ markdown: `${c}\n\n`.repeat(250) })) });
  const lines = renderView(v, 80, tokens);
  assert.equal(lines.length, MAX_LINES);
  assert.match(plain(lines.at(-1) ?? ""), /more lines \(pi-ext caps a view at 2,000\)/);
});

test("fenced code keeps its delimiters as they are; a text that may hide a fence from this reading is all counted", () => {
  const code = ["```rust", ...Array.from({ length: 30 }, (_, i) => `let a_${i} = b[*c_${i}]; // \`d\``), "```"].join("\n");
  assert.equal(boundMarkdown(code).text, code);
  const lines = renderView(view(code), 80, tokens).map(plain);
  assert.ok(lines.some((l) => l.includes("let a_3 = b[*c_3]; // `d`")), lines.join("\n"));
  // Closed by the same marker or a longer one; a tilde fence is not closed by backticks.
  const after = "*a ".repeat(80);
  assert.equal(boundMarkdown(`~~~\n${after}\n\`\`\`\n${after}`).text, `~~~\n${after}\n\`\`\`\n${after}`);
  assert.equal(boundMarkdown(`\`\`\`\ncode\n\`\`\`\`\n${after}`).text, `\`\`\`\ncode\n\`\`\`\`\n${after.replaceAll("*", "\\*")}`);
  // An HTML block ends at a blank line where marked reads on; the "fence" in it is no fence here either.
  const hidden = `<div>\n\`\`\`\n\n${after}`;
  assert.equal(boundMarkdown(hidden).text, `<div>\n\`\`\`\n\n${after.replaceAll("*", "\\*")}`);
  for (const hide of ["$$\n```\n$$", "[a]: http://x '\n```\n'", "[a\nb]: http://x '\n```\n'", "\\[\n```\n\\]"]) {
    assert.equal(boundMarkdown(`${hide}\n\n${after}`).text, `${hide}\n\n${after.replaceAll("*", "\\*")}`, hide);
  }
});
