// @ts-check
// Terminal notifications (`ctx.ui().notify_terminal`): the sequences pi's
// notify.ts writes, byte for byte, with hostile text unable to end them
// early or start another, and written only where pi owns a terminal.

import assert from "node:assert/strict";
import { test } from "node:test";

import {
  BODY_MAX,
  notificationSequence,
  notificationText,
  notifyTerminal,
  pickProtocol,
  TITLE_MAX,
  windowsToastScript,
} from "../lib/terminal-notify.js";
import { fakeCtx, manifestWith, startBridge } from "./helpers.js";

/** notify.ts's toast script, verbatim, for comparison. @param {string} title @param {string} body */
function originalToastScript(title, body) {
  const type = "Windows.UI.Notifications";
  const mgr = `[${type}.ToastNotificationManager, ${type}, ContentType = WindowsRuntime]`;
  const template = `[${type}.ToastTemplateType]::ToastText01`;
  const toast = `[${type}.ToastNotification]::new($xml)`;
  return [
    `${mgr} > $null`,
    `$xml = [${type}.ToastNotificationManager]::GetTemplateContent(${template})`,
    `$xml.GetElementsByTagName('text')[0].AppendChild($xml.CreateTextNode('${body}')) > $null`,
    `[${type}.ToastNotificationManager]::CreateToastNotifier('${title}').Show(${toast})`,
  ].join("; ");
}

/** A title and body that try to end the sequence (BEL, ST, C1 ST), start others (OSC 8, CSI) and split OSC 777's fields. */
const HOSTILE_TITLE = "Pi;x\x1b]8;;http://evil.example/\x1b\\link\x07\u009c\x1b[2J";
const HOSTILE_BODY = "done;ok\x07\x1b]8;;\x1b\\\r\nnext\tline\u009b31m";

/** Every control character of `s`, as code points. @param {string} s */
const controls = (s) => Array.from(s).filter((c) => /[\u0000-\u001f\u007f-\u009f]/.test(c)).map((c) => c.codePointAt(0));

test("the sequences are notify.ts's, byte for byte", () => {
  assert.equal(notificationSequence("osc777", "Pi", "Ready for input"), "\x1b]777;notify;Pi;Ready for input\x07");
  assert.equal(
    notificationSequence("osc99", "Pi", "Ready for input"),
    "\x1b]99;i=1:d=0;Pi\x1b\\" + "\x1b]99;i=1:p=body;Ready for input\x1b\\",
  );
  assert.equal(windowsToastScript("Pi", "Ready for input"), originalToastScript("Pi", "Ready for input"));
});

test("the protocol is notify.ts's choice for the terminal", () => {
  assert.equal(pickProtocol({}), "osc777");
  assert.equal(pickProtocol({ KITTY_WINDOW_ID: "1" }), "osc99");
  assert.equal(pickProtocol({ WT_SESSION: "x", KITTY_WINDOW_ID: "1" }), "windows-toast");
});

test("hostile text cannot end a sequence early, start another or split OSC 777's fields", () => {
  const osc777 = notificationSequence("osc777", HOSTILE_TITLE, HOSTILE_BODY);
  assert.equal(osc777, "\x1b]777;notify;Pix]8http://evil.example/\\link[2J;done;ok]8;;\\ next line31m\x07");
  assert.deepEqual(controls(osc777), [0x1b, 0x07], "one ESC to start, one BEL to end");
  const osc99 = notificationSequence("osc99", HOSTILE_TITLE, HOSTILE_BODY);
  assert.equal(
    osc99,
    "\x1b]99;i=1:d=0;Pi;x]8;;http://evil.example/\\link[2J\x1b\\" + "\x1b]99;i=1:p=body;done;ok]8;;\\ next line31m\x1b\\",
  );
  assert.deepEqual(controls(osc99), [0x1b, 0x1b, 0x1b, 0x1b], "each part: its ESC ] and its ESC \\");
  // PowerShell: no control character, quotes (typographic ones too) doubled inside its single-quoted strings.
  const script = windowsToastScript("it's \u2019x\u2019", `${HOSTILE_BODY}'); Remove-Item C:\\ #`);
  assert.deepEqual(controls(script), []);
  assert.ok(script.includes("CreateToastNotifier('it''s ''x''')"), script);
  assert.ok(script.includes("CreateTextNode('done;ok]8;;\\ next line31m''); Remove-Item C:\\ #')"), script);
});

test("titles and bodies are cut to their length, by characters", () => {
  assert.equal(notificationText("x".repeat(TITLE_MAX), TITLE_MAX), "x".repeat(TITLE_MAX));
  const long = notificationText("é".repeat(TITLE_MAX + 10), TITLE_MAX);
  assert.equal(Array.from(long).length, TITLE_MAX);
  assert.ok(long.endsWith("é…"));
  const emoji = notificationText("😀".repeat(BODY_MAX + 1), BODY_MAX);
  assert.equal(Array.from(emoji).length, BODY_MAX, "no surrogate pair split");
  assert.equal(notificationText(undefined, 5), "");
});

/** A terminal double: what was written, what was run. @param {boolean} isTTY */
function terminal(isTTY) {
  /** @type {string[]} */
  const written = [];
  /** @type {Array<{ file: string, args: string[] }>} */
  const ran = [];
  return {
    written,
    ran,
    output: { out: { isTTY, write: (/** @type {string} */ s) => written.push(s) }, run: (/** @type {string} */ file, /** @type {string[]} */ args) => void ran.push({ file, args }) },
  };
}

test("only interactive pi with a terminal gets a notification; elsewhere the outcome says why", () => {
  const what = { env: {}, title: "Pi", body: "Ready for input" };
  for (const mode of ["rpc", "print", "json"]) {
    const t = terminal(true);
    assert.deepEqual(notifyTerminal({ ...what, mode }, t.output), { sent: null, why: mode });
    assert.deepEqual([t.written, t.ran], [[], []]);
  }
  const piped = terminal(false);
  assert.deepEqual(notifyTerminal({ ...what, mode: "interactive" }, piped.output), { sent: null, why: "no-tty" });
  assert.deepEqual(piped.written, []);
  const tty = terminal(true);
  assert.deepEqual(notifyTerminal({ ...what, mode: "interactive" }, tty.output), { sent: "osc777" });
  assert.deepEqual(tty.written, ["\x1b]777;notify;Pi;Ready for input\x07"]);
  const wt = terminal(true);
  assert.deepEqual(notifyTerminal({ ...what, mode: "interactive", env: { WT_SESSION: "1" } }, wt.output), { sent: "windows-toast" });
  assert.deepEqual(wt.written, []);
  assert.deepEqual(wt.ran, [{ file: "powershell.exe", args: ["-NoProfile", "-Command", originalToastScript("Pi", "Ready for input")] }]);
});

test("the extension's notifyTerminal reaches the terminal through the bridge, and RPC mode answers why not", async () => {
  const tty = terminal(true);
  const h = await startBridge(manifestWith({}), { mode: "interactive", terminal: tty.output, env: { KITTY_WINDOW_ID: "3" } });
  await h.startSession(fakeCtx().ctx);
  const answer = await h.ext().request("ui/call", { call: null, method: "notifyTerminal", args: [HOSTILE_TITLE, HOSTILE_BODY] });
  assert.deepEqual(answer.result, { sent: "osc99" });
  assert.deepEqual(tty.written, [notificationSequence("osc99", HOSTILE_TITLE, HOSTILE_BODY)]);

  const rpcTerminal = terminal(true);
  const rpc = await startBridge(manifestWith({}), { mode: "rpc", terminal: rpcTerminal.output });
  await rpc.startSession(fakeCtx().ctx);
  const refused = await rpc.ext().request("ui/call", { call: null, method: "notifyTerminal", args: ["Pi", "Ready"] });
  assert.deepEqual(refused.result, { sent: null, why: "rpc" });
  assert.deepEqual(rpcTerminal.written, []);
});
