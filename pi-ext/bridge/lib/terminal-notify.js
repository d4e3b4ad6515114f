// @ts-check
// `ctx.ui().notify_terminal(title, body)`: a desktop notification through
// the user's terminal, written the way pi's examples/extensions/notify.ts
// writes it (OSC 777, OSC 99 for kitty, a Windows toast under Windows
// Terminal). The extension sends title and body as data; only this file
// turns them into an escape sequence, after making them unable to end it
// early or start another one, and only where pi owns a terminal.

import { execFile } from "node:child_process";

/**
 * How a notification reached the user: the protocol's name, as the
 * extension gets it back.
 * @typedef {"osc777" | "osc99" | "windows-toast"} NotifyProtocol
 */

/** The longest title and body written, in characters (code points); longer ones end in "…". */
export const TITLE_MAX = 128;
export const BODY_MAX = 512;

/** C0, DEL and C1 (ESC, BEL and the one-byte ST 0x9c among them). */
const NOTIFY_CONTROLS = /[\u0000-\u001f\u007f-\u009f]/g;

/**
 * The protocol notify.ts picks for the terminal pi runs in: Windows
 * Terminal (`WT_SESSION`) shows a toast, kitty (`KITTY_WINDOW_ID`) reads
 * OSC 99, the rest (Ghostty, iTerm2, WezTerm, rxvt-unicode) OSC 777.
 * @param {NodeJS.ProcessEnv} env
 * @returns {NotifyProtocol}
 */
export function pickProtocol(env) {
  if (env.WT_SESSION) return "windows-toast";
  if (env.KITTY_WINDOW_ID) return "osc99";
  return "osc777";
}

/**
 * `text` as one line that cannot break out of a notification: line breaks
 * and tabs become spaces, every other control character is dropped (so no
 * BEL, ESC or ST ends the sequence, and no ESC starts another), `drop`'s
 * characters are dropped (a separator of the format), and it is cut to
 * `max` characters.
 * @param {unknown} text
 * @param {number} max
 * @param {RegExp} [drop]
 */
export function notificationText(text, max, drop) {
  let s = (typeof text === "string" ? text : String(text ?? "")).replace(/\r\n|[\r\n\t]/g, " ").replace(NOTIFY_CONTROLS, "");
  if (drop) s = s.replace(drop, "");
  const chars = Array.from(s);
  return chars.length <= max ? s : `${chars.slice(0, max - 1).join("")}…`;
}

/**
 * What notify.ts writes to the terminal for `protocol` (none for the
 * Windows toast, which runs PowerShell instead), with title and body made
 * safe: OSC 777's fields are separated by `;`, so the title loses its
 * semicolons (the body is the rest of the sequence and keeps them); OSC
 * 99's payload is everything after its metadata.
 * @param {"osc777" | "osc99"} protocol
 * @param {unknown} title
 * @param {unknown} body
 */
export function notificationSequence(protocol, title, body) {
  if (protocol === "osc99") {
    const t = notificationText(title, TITLE_MAX);
    const b = notificationText(body, BODY_MAX);
    // Kitty: i = the notification's id, d=0 = more parts follow, p=body = this part is the body.
    return `\x1b]99;i=1:d=0;${t}\x1b\\\x1b]99;i=1:p=body;${b}\x1b\\`;
  }
  const t = notificationText(title, TITLE_MAX, /;/g);
  const b = notificationText(body, BODY_MAX);
  return `\x1b]777;notify;${t};${b}\x07`;
}

/**
 * `text` inside a PowerShell single-quoted string: PowerShell reads the
 * typographic single quotes as quotes too, and a quote is written twice.
 * @param {string} text
 */
function powershellQuoted(text) {
  return text.replace(/['\u2018-\u201b]/g, "''");
}

/**
 * The PowerShell script notify.ts runs under Windows Terminal, title and
 * body made safe (`notificationText`) and quoted for PowerShell.
 * @param {unknown} title
 * @param {unknown} body
 */
export function windowsToastScript(title, body) {
  const t = powershellQuoted(notificationText(title, TITLE_MAX));
  const b = powershellQuoted(notificationText(body, BODY_MAX));
  const type = "Windows.UI.Notifications";
  const mgr = `[${type}.ToastNotificationManager, ${type}, ContentType = WindowsRuntime]`;
  const template = `[${type}.ToastTemplateType]::ToastText01`;
  const toast = `[${type}.ToastNotification]::new($xml)`;
  return [
    `${mgr} > $null`,
    `$xml = [${type}.ToastNotificationManager]::GetTemplateContent(${template})`,
    `$xml.GetElementsByTagName('text')[0].AppendChild($xml.CreateTextNode('${b}')) > $null`,
    `[${type}.ToastNotificationManager]::CreateToastNotifier('${t}').Show(${toast})`,
  ].join("; ");
}

/**
 * Where notifications go: the terminal pi paints (its stdout) and a way to
 * run a program (PowerShell for the toast). Tests pass their own.
 * @typedef {object} TerminalOutput
 * @property {{ isTTY?: boolean, write: (s: string) => unknown }} out
 * @property {(file: string, args: string[]) => void} run
 */

/** @type {TerminalOutput} */
const PROCESS_OUTPUT = {
  out: process.stdout,
  run: (file, args) => {
    // As notify.ts: fire and forget; a missing PowerShell is not pi's problem.
    const child = execFile(file, args, () => {});
    child.on("error", () => {});
  },
};

/**
 * The outcome of one `notifyTerminal`: the protocol used, or why nothing
 * was written (`mode`: pi's mode; `"no-tty"`: interactive, but pi's
 * output is not a terminal).
 * @typedef {{ sent: NotifyProtocol } | { sent: null, why: string }} NotifyOutcome
 */

/**
 * Send one notification, as notify.ts does, where pi runs interactively in
 * a terminal; elsewhere nothing is written (in RPC mode pi's stdout is the
 * RPC protocol, in print and json mode its output).
 * @param {{ mode: string, env: NodeJS.ProcessEnv, title: unknown, body: unknown }} what
 * @param {TerminalOutput} [output]
 * @returns {NotifyOutcome}
 */
export function notifyTerminal({ mode, env, title, body }, output = PROCESS_OUTPUT) {
  if (mode !== "interactive") return { sent: null, why: mode };
  if (output.out.isTTY !== true) return { sent: null, why: "no-tty" };
  const protocol = pickProtocol(env);
  if (protocol === "windows-toast") {
    output.run("powershell.exe", ["-NoProfile", "-Command", windowsToastScript(title, body)]);
  } else {
    output.out.write(notificationSequence(protocol, title, body));
  }
  return { sent: protocol };
}
