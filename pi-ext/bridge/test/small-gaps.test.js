// @ts-check
// Smaller parts of pi's extension API: a tool's sequential execution mode,
// `terminate` on tool results, and command completions computed by the
// extension for the typed prefix.
import assert from "node:assert/strict";
import { test } from "node:test";

import { fakeCtx, manifestWith, NO_ANSWER, startBridge, toolManifest } from "./helpers.js";

test("a sequential tool is registered with pi's executionMode; others without one", async () => {
  const h = await startBridge(
    manifestWith({ tools: [toolManifest("one_at_a_time", { executionMode: "sequential" }), toolManifest("parallel")] }),
  );
  assert.equal(h.fake.tools.get("one_at_a_time").executionMode, "sequential");
  assert.equal("executionMode" in h.fake.tools.get("parallel"), false);
});

test("terminate: true on a tool result reaches pi; absent or not true, it is left out", async () => {
  const h = await startBridge(manifestWith({ tools: [toolManifest("finish")] }), {
    script: (ext) =>
      ext.handle("tool/call", (p) => ({
        content: [{ type: "text", text: "done" }],
        details: {},
        isError: false,
        ...(p.args.stop === true ? { terminate: true } : p.args.stop === "yes" ? { terminate: "yes" } : {}),
      })),
  });
  const { ctx } = fakeCtx();
  await h.startSession(ctx);
  const finish = h.fake.tools.get("finish");
  const stop = await finish.execute("c1", { stop: true }, undefined, undefined, ctx);
  assert.equal(stop.terminate, true);
  assert.equal(stop.content[0].text, "done");
  const go = await finish.execute("c2", {}, undefined, undefined, ctx);
  assert.equal("terminate" in go, false);
  const odd = await finish.execute("c3", { stop: "yes" }, undefined, undefined, ctx);
  assert.equal("terminate" in odd, false, "only true terminates");
});

test("completions computed by the extension: the prefix goes to command/complete, its items back to pi", async () => {
  const h = await startBridge(
    manifestWith({ commands: [{ name: "deploy", description: "Deploy", dynamicCompletions: true }, { name: "fixed", completions: ["a", "ab", "b"] }] }),
    {
      script: (ext) =>
        ext.handle("command/complete", (p) => {
          if (p.prefix === "hang") return NO_ANSWER;
          if (p.prefix === "bad") return { not: "a list" };
          if (p.prefix === "none") return [];
          return [
            { value: `${p.prefix}-dev`, label: `${p.prefix}-dev` },
            { value: `${p.prefix}-prod`, label: "prod", description: "careful" },
            { value: 3 },
          ];
        }),
    },
  );
  await h.startSession();
  const deploy = h.fake.commands.get("deploy");
  assert.deepEqual(await deploy.getArgumentCompletions("st"), [
    { value: "st-dev", label: "st-dev" },
    { value: "st-prod", label: "prod", description: "careful" },
  ]);
  const [request] = h.ext().sent("command/complete");
  assert.deepEqual(request.params, { command: "deploy", prefix: "st" });
  assert.equal(await deploy.getArgumentCompletions("none"), null, "no items: no list, as pi's own commands answer");
  assert.equal(await deploy.getArgumentCompletions("bad"), null, "a malformed answer: no list");
  // Fixed completions stay in the bridge: no request.
  assert.deepEqual(await h.fake.commands.get("fixed").getArgumentCompletions("a"), [
    { value: "a", label: "a" },
    { value: "ab", label: "ab" },
  ]);
  assert.equal(h.ext().sent("command/complete").length, 3);
  // An extension that does not answer: the deadline ends the wait with no list.
  const pending = deploy.getArgumentCompletions("hang");
  await h.clock.advance(30_000);
  assert.equal(await pending, null);
});

test("compactAndWait settles with pi's onComplete result or onError message", async () => {
  const h = await startBridge(manifestWith({}));
  const { ctx } = fakeCtx();
  /** @type {any[]} */
  const asked = [];
  ctx.compact = (/** @type {any} */ options) => {
    asked.push(options.customInstructions);
    setTimeout(() => {
      if (options.customInstructions === "fail") options.onError(new Error("Nothing to compact"));
      else options.onComplete({ summary: "short", firstKeptEntryId: "e1", tokensBefore: 10 });
    }, 1);
  };
  await h.startSession(ctx);
  const done = await h.ext().request("api/call", { call: null, method: "compactAndWait", args: ["keep it"] });
  assert.deepEqual(done.result, { summary: "short", firstKeptEntryId: "e1", tokensBefore: 10 });
  const failed = await h.ext().request("api/call", { call: null, method: "compactAndWait", args: ["fail"] });
  assert.match(failed.error.message, /Nothing to compact/);
  assert.deepEqual(asked, ["keep it", "fail"]);
});

test("sourceInfo of commands and tools reaches the extension", async () => {
  const h = await startBridge(manifestWith({}));
  const sourceInfo = { path: "/x/index.js", source: "local", scope: "project", origin: "top-level" };
  h.pi.getCommands = () => [{ name: "c", description: "d", source: "extension", sourceInfo, extra: 1 }];
  h.pi.getAllTools = () => [{ name: "t", description: "d", parameters: {}, sourceInfo, extra: 1 }];
  await h.startSession();
  assert.deepEqual((await h.ext().request("api/call", { call: null, method: "getCommands", args: [] })).result, [
    { name: "c", description: "d", source: "extension", sourceInfo },
  ]);
  assert.deepEqual((await h.ext().request("api/call", { call: null, method: "getAllTools", args: [] })).result, [
    { name: "t", description: "d", parameters: {}, sourceInfo },
  ]);
});

test("the clipboard goes through pi's copyToClipboard in the terminal UI, and is refused elsewhere", async () => {
  /** @type {string[]} */
  const copied = [];
  const loadPi = async () => ({ copyToClipboard: async (/** @type {string} */ text) => void copied.push(text) });
  const tui = await startBridge(manifestWith({}), { mode: "interactive", loadPi: /** @type {any} */ (loadPi) });
  await tui.startSession();
  const ok = await tui.ext().request("api/call", { call: null, method: "copyToClipboard", args: ["hello"] });
  assert.equal(ok.error, undefined);
  assert.deepEqual(copied, ["hello"]);
  const rpc = await startBridge(manifestWith({}), { loadPi: /** @type {any} */ (loadPi) });
  await rpc.startSession();
  const refused = await rpc.ext().request("api/call", { call: null, method: "copyToClipboard", args: ["hello"] });
  assert.match(refused.error.message, /needs pi's terminal UI \(pi runs in rpc mode\)/);
  assert.deepEqual(copied, ["hello"], "nothing written to pi's RPC output");
});

test("the handshake names the extension's directory; resetting the working indicator passes no options", async () => {
  const h = await startBridge(manifestWith({}));
  const f = fakeCtx();
  /** @type {unknown[][]} */
  const indicator = [];
  f.ctx.ui.setWorkingIndicator = (/** @type {unknown[]} */ ...args) => void indicator.push(args);
  await h.startSession(f.ctx);
  const [init] = h.ext().sent("initialize");
  assert.equal(typeof init.params.extensionDir, "string");
  assert.ok(init.params.extensionDir.length > 0);
  await h.ext().request("ui/call", { call: null, method: "setWorkingIndicator", args: [null] });
  assert.deepEqual(indicator, [[undefined]]);
});
