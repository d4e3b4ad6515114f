// @ts-check
// pi's built-in tools with their operations in the extension: pi's own
// definitions (texts, truncation), the extension's answers mapped to pi's
// operation contract, bytes as base64, the environment as a difference,
// and user_bash operations kept under a handle until the command ends.
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { test } from "node:test";

import { applyEnvDelta, envDelta } from "../lib/builtin-tools.js";
import { fakeCtx, manifestWith, NO_ANSWER, startBridge, tempDir, until } from "./helpers.js";

const b64 = (/** @type {string} */ s) => Buffer.from(s).toString("base64");

/**
 * The bridge with pi's bash and read overridden; `onBash` answers `ops/bash`.
 * @param {(params: any, id: number, ext: any) => unknown} onBash
 * @param {object} [extra] more manifest entries
 */
async function withBuiltins(onBash, extra = {}) {
  const h = await startBridge(
    manifestWith({ builtinTools: [{ tool: "bash", operations: true, label: "bash (remote)" }, { tool: "read", operations: true }], ...extra }),
    {
      script: (ext) => {
        ext.handle("ops/bash", (p, msg, e) => onBash(p, /** @type {number} */ (msg.id), e));
        ext.handle("ops/read", (p) => {
          if (p.path.endsWith("missing.txt")) return { error: "No such file or directory (os error 2)" };
          if (p.op === "readFile") return { data: b64("line one\nline two") };
          if (p.op === "detectImageMimeType") return { mime: null };
          return {};
        });
      },
    },
  );
  const f = fakeCtx();
  f.ctx.cwd = "/work";
  await h.startSession(f.ctx);
  return { h, ctx: f.ctx };
}

test("bash: pi's definition and label, output as the extension streams it, pi's texts for exit codes", async () => {
  const { h, ctx } = await withBuiltins((p, id, ext) => {
    ext.send({ method: "ops/data", params: { call: id, data: b64("hello ") } });
    ext.send({ method: "ops/data", params: { call: id, data: b64("world\n") } });
    return { exitCode: p.command.includes("fail") ? 3 : 0 };
  });
  const bash = h.fake.tools.get("bash");
  assert.equal(bash.label, "bash (remote)");
  assert.match(bash.description, /^Execute a bash command in the current working directory/);
  assert.equal(typeof bash.renderCall, "function", "pi renders it");
  const ok = await bash.execute("c1", { command: "echo hi" }, undefined, undefined, ctx);
  assert.equal(ok.content[0].text, "hello world\n");
  const [request] = h.ext().sent("ops/bash");
  assert.equal(request.params.command, "echo hi");
  assert.equal(request.params.cwd, "/work", "the call's working directory");
  assert.equal(request.params.toolCallId, "c1");
  assert.equal(request.params.tool, "bash");
  // pi 1.x returns a non-zero exit as an error result (0.73.1 threw it).
  const failed = await bash.execute("c2", { command: "fail" }, undefined, undefined, ctx);
  assert.equal(failed.isError, true);
  assert.match(failed.content[0].text, /hello world\n\n\nCommand exited with code 3$/);
});

test("bash: aborted, timed out and failed answers become pi's own errors", async () => {
  const { h, ctx } = await withBuiltins((p) => {
    if (p.command === "slow") return { timedOut: true };
    if (p.command === "broken") return { error: "Working directory does not exist: /x" };
    return { aborted: true };
  });
  const bash = h.fake.tools.get("bash");
  await assert.rejects(bash.execute("c1", { command: "slow", timeout: 2 }, undefined, undefined, ctx), /^Error: Command timed out after 2 seconds$/);
  await assert.rejects(bash.execute("c2", { command: "broken" }, undefined, undefined, ctx), /Working directory does not exist: \/x/);
  await assert.rejects(bash.execute("c3", { command: "whatever" }, undefined, undefined, ctx), /Command aborted/);
});

test("bash: pi's abort settles at once and cancels the command in the extension", async () => {
  const { h, ctx } = await withBuiltins(() => NO_ANSWER);
  const controller = new AbortController();
  const run = h.fake.tools.get("bash").execute("c1", { command: "sleep 30" }, controller.signal, undefined, ctx);
  await until(() => h.ext().sent("ops/bash").length === 1, "the request");
  controller.abort();
  await assert.rejects(run, /Command aborted/);
  await until(() => h.ext().sent("cancel").length === 1, "the cancel");
  assert.equal(h.ext().sent("cancel")[0].params.id, h.ext().sent("ops/bash")[0].id);
});

/**
 * A real process in its own group (`sleep`), as the runtime starts a
 * command; resolves with the signal it ended by.
 */
function commandGroup() {
  const proc = spawn("sleep", ["300"], { detached: true, stdio: "ignore" });
  const ended = new Promise((resolve) => proc.on("exit", (_code, signal) => resolve(signal)));
  return { pgid: /** @type {number} */ (proc.pid), ended, stop: () => proc.kill("SIGKILL") };
}

test("bash: the process groups of commands still running die with the extension process", async () => {
  const group = commandGroup();
  try {
    const { h, ctx } = await withBuiltins((_p, id, ext) => {
      ext.send({ method: "ops/group", params: { call: id, pgid: group.pgid } });
      return NO_ANSWER;
    });
    const run = h.fake.tools.get("bash").execute("c1", { command: "sleep 300 & wait" }, undefined, undefined, ctx);
    await until(() => h.bridge.children.values().next().value?.groups?.size === 1, "the group is known");
    h.ext().exit(null, "SIGKILL");
    await assert.rejects(run, /extension process exited \(signal SIGKILL\)/);
    assert.equal(await group.ended, "SIGKILL");
  } finally {
    group.stop();
  }
});

test("bash: a command's group is left alone once its call has its answer, and odd groups are ignored", async () => {
  const group = commandGroup();
  try {
    const { h, ctx } = await withBuiltins((_p, id, ext) => {
      ext.send({ method: "ops/group", params: { call: id, pgid: group.pgid } });
      return { exitCode: 0 };
    });
    await h.fake.tools.get("bash").execute("c1", { command: "sleep 300 &" }, undefined, undefined, ctx);
    const [child] = h.bridge.children;
    assert.equal(child.groups.size, 0, "forgotten with the answer");
    // Only a waiting request's group, and never one that is no group of the extension's.
    const { id, promise } = child.request("probe", {});
    promise.catch(() => {}); // the fake has no such method
    for (const pgid of [0, 1, -1, 2.5, "7", process.pid]) child.ownsGroup(id, pgid);
    child.ownsGroup(id + 100, group.pgid);
    assert.equal(child.groups.size, 0);
    h.ext().exit(null, "SIGKILL");
    await until(() => child.exited, "the exit");
    assert.equal(process.kill(group.pgid, 0), true, "the background command still runs");
  } finally {
    group.stop();
  }
});

test("read: pi's definition over the extension's bytes, and its errors", async () => {
  const { h, ctx } = await withBuiltins(() => ({ exitCode: 0 }));
  const read = h.fake.tools.get("read");
  const out = await read.execute("r1", { path: "notes.txt" }, undefined, undefined, ctx);
  assert.equal(out.content[0].text, "line one\nline two");
  assert.deepEqual(
    h.ext().sent("ops/read").map((m) => [m.params.op, m.params.path]),
    [["access", "/work/notes.txt"], ["detectImageMimeType", "/work/notes.txt"], ["readFile", "/work/notes.txt"]],
  );
  await assert.rejects(read.execute("r2", { path: "missing.txt" }, undefined, undefined, ctx), /No such file or directory \(os error 2\)/);
});

test("write and edit: pi's definitions over the extension's file operations, and its errors", async () => {
  /** @type {Map<string, string>} */
  const files = new Map([["/work/a.txt", "one two three"]]);
  const h = await startBridge(manifestWith({ builtinTools: [{ tool: "write", operations: true }, { tool: "edit", operations: true }] }), {
    script: (ext) => {
      ext.handle("ops/write", (p) => {
        if (p.path.startsWith("/denied")) return { error: "SSH failed (1): Permission denied" };
        if (p.op === "writeFile") files.set(p.path, p.content);
        return {};
      });
      ext.handle("ops/edit", (p) => {
        if (p.op === "writeFile") files.set(p.path, p.content);
        if (p.path.endsWith("local.txt")) return { error: "ENOENT: no such file or directory, access '/work/local.txt'", code: "ENOENT" };
        if (!files.has(p.path)) return { error: "SSH failed (1): " };
        if (p.op === "readFile") return { data: b64(/** @type {string} */ (files.get(p.path))) };
        return {};
      });
    },
  });
  const f = fakeCtx();
  f.ctx.cwd = "/work";
  await h.startSession(f.ctx);
  const write = h.fake.tools.get("write");
  const edit = h.fake.tools.get("edit");
  assert.match(write.description, /^Write content to a file/);
  assert.equal(typeof edit.renderCall, "function", "pi renders it");
  const wrote = await write.execute("w1", { path: "sub/new.txt", content: "héllo" }, undefined, undefined, f.ctx);
  assert.equal(wrote.content[0].text, "Successfully wrote to sub/new.txt", "pi's own text");
  assert.deepEqual(
    h.ext().sent("ops/write").map((m) => [m.params.op, m.params.path, m.params.content, m.params.tool]),
    [["mkdir", "/work/sub", undefined, "write"], ["writeFile", "/work/sub/new.txt", "héllo", "write"]],
  );
  assert.equal(files.get("/work/sub/new.txt"), "héllo");
  await assert.rejects(write.execute("w2", { path: "/denied/x", content: "x" }, undefined, undefined, f.ctx), /SSH failed \(1\): Permission denied/);
  const edited = await edit.execute("e1", { path: "a.txt", edits: [{ oldText: "two", newText: "2" }] }, undefined, undefined, f.ctx);
  assert.match(edited.content[0].text, /Successfully replaced/);
  assert.equal(files.get("/work/a.txt"), "one 2 three");
  assert.deepEqual(
    h.ext().sent("ops/edit").map((m) => m.params.op),
    ["access", "readFile", "writeFile"],
  );
  await assert.rejects(edit.execute("e2", { path: "gone.txt", edits: [{ oldText: "a", newText: "b" }] }, undefined, undefined, f.ctx), /SSH failed \(1\): /);
  await assert.rejects(
    edit.execute("e3", { path: "local.txt", edits: [{ oldText: "a", newText: "b" }] }, undefined, undefined, f.ctx),
    /Could not edit file: local.txt. Error code: ENOENT/,
    "Node's code reaches pi",
  );
});

test("a spawn hook adjusts the command and environment, then pi's own shell runs it", async () => {
  const h = await startBridge(manifestWith({ builtinTools: [{ tool: "bash", spawnHook: true }] }), {
    script: (ext) =>
      ext.handle("ops/spawn-hook", (p) => ({
        command: `echo hooked; ${p.command}`,
        cwd: p.cwd,
        env: { set: { ...p.env.set, PI_SPAWN_HOOK: "1" }, unset: p.env.unset },
      })),
  });
  const f = fakeCtx();
  f.ctx.cwd = process.cwd();
  await h.startSession(f.ctx);
  const out = await h.fake.tools.get("bash").execute("c1", { command: "echo $PI_SPAWN_HOOK" }, undefined, undefined, f.ctx);
  assert.equal(out.content[0].text, "hooked\n1\n");
});

test("user_bash: the extension's operations run the command, and are released when it ends", async () => {
  const h = await startBridge(manifestWith({ hooks: [{ id: "x::user_bash", event: "user_bash" }] }), {
    script: (ext) => {
      ext.handle("hook/call", () => ({ operations: { handle: 7 } }));
      ext.handle("ops/bash", (p, msg, e) => {
        e.send({ method: "ops/data", params: { call: msg.id, data: b64(`ran ${p.command} via ${p.handle}`) } });
        return { exitCode: 0 };
      });
    },
  });
  const f = fakeCtx();
  await h.startSession(f.ctx);
  const [answer] = /** @type {any[]} */ (await h.fake.emit("user_bash", { type: "user_bash", command: "ls", excludeFromContext: false, cwd: "/w" }, f.ctx));
  /** @type {string[]} */
  const chunks = [];
  const result = await answer.operations.exec("ls", "/w", { onData: (/** @type {Buffer} */ d) => chunks.push(d.toString()) });
  assert.deepEqual(result, { exitCode: 0 });
  assert.deepEqual(chunks, ["ran ls via 7"]);
  await until(() => h.ext().sent("ops/release").length === 1, "the release");
  assert.deepEqual(h.ext().sent("ops/release")[0].params, { id: 7 });
});

test("the environment travels as the difference from the extension's own", () => {
  const base = { A: "1", B: "2", C: "3" };
  const env = { A: "1", B: "changed", D: "new" };
  const delta = envDelta(env, base);
  assert.deepEqual(delta, { set: { B: "changed", D: "new" }, unset: ["C"] });
  assert.deepEqual(applyEnvDelta(delta, base), env);
});

test("ls, find, grep and read re-registered with the extension's rows: pi's tools and operations, the rows asked of the extension", async () => {
  const dir = tempDir("pi-ext-rows-");
  fs.writeFileSync(path.join(dir, "a.txt"), "one\ntwo\n");
  const render = { call: true, result: true };
  const h = await startBridge(
    manifestWith({ builtinTools: ["ls", "find", "grep", "read"].map((tool) => ({ tool, render })) }),
    { mode: "interactive", script: (ext) => ext.handle("render/tool", () => ({ blocks: [{ lines: [[{ text: "row" }]] }] })) },
  );
  const f = fakeCtx();
  f.ctx.cwd = dir;
  await h.startSession(f.ctx);
  for (const name of ["ls", "find", "grep", "read"]) {
    const tool = h.fake.tools.get(name);
    assert.ok(tool, name);
    assert.equal(tool.name, name);
    assert.equal(typeof tool.renderCall, "function", name);
    assert.equal(typeof tool.renderResult, "function", name);
  }
  // pi's own operations: no `ops/*` request.
  const read = await h.fake.tools.get("read").execute("r1", { path: "a.txt" }, undefined, undefined, f.ctx);
  assert.match(read.content[0].text, /one\ntwo/);
  const ls = await h.fake.tools.get("ls").execute("l1", {}, undefined, undefined, f.ctx);
  assert.match(ls.content[0].text, /a\.txt/);
  assert.equal(h.ext().sent("ops/read").length, 0);
  // The rows are the extension's.
  h.fake.tools.get("ls").renderCall({ path: "." }, { fg: (/** @type {string} */ _t, /** @type {string} */ s) => s, bg: (/** @type {string} */ _t, /** @type {string} */ s) => s, bold: (/** @type {string} */ s) => s }, { state: {}, toolCallId: "l1", invalidate() {} });
  await until(() => h.ext().sent("render/tool").length === 1, "the call row is asked for");
  const [asked] = h.ext().sent("render/tool");
  assert.equal(asked.params.tool, "ls");
  assert.deepEqual(asked.params.args, { path: "." });
});

test("a built-in tool's rows keep its definition's shell (edit: its own), or take the one the extension chose", async () => {
  const h = await startBridge(
    manifestWith({
      builtinTools: [
        { tool: "edit", render: { call: true, result: true } },
        { tool: "write", render: { call: true, result: true, shell: "self" } },
        { tool: "read", render: { call: true, result: true } },
      ],
    }),
    { mode: "interactive" },
  );
  await h.startSession(fakeCtx().ctx);
  const shell = (/** @type {string} */ name) => h.fake.tools.get(name).renderShell;
  assert.deepEqual(["edit", "write", "read"].map(shell), ["self", "self", undefined]);
  const box = await startBridge(manifestWith({ builtinTools: [{ tool: "edit", render: { call: true, result: true, shell: "default" } }] }), {
    mode: "interactive",
  });
  await box.startSession(fakeCtx().ctx);
  assert.equal(box.fake.tools.get("edit").renderShell, "default");
});

test("ls and find: pi's definitions over the extension's listing and search (a file system pi cannot see), and their errors", async () => {
  // A file system that exists only in the extension.
  /** @type {Record<string, string[]>} */
  const dirs = { "/vm": ["src", "README.md", "b.txt"], "/vm/src": ["main.rs", "lib.rs"] };
  const h = await startBridge(manifestWith({ builtinTools: [{ tool: "ls", operations: true }, { tool: "find", operations: true }] }), {
    script: (ext) => {
      ext.handle("ops/ls", (p) => {
        if (p.op === "exists") return { exists: p.path in dirs || p.path === "/vm/b.txt" };
        if (p.op === "stat") return p.path === "/vm/denied" ? { error: "VM said no", code: "EACCES" } : { isDirectory: p.path in dirs };
        return p.path in dirs ? { entries: dirs[p.path] } : { error: `ENOTDIR: ${p.path}`, code: "ENOTDIR" };
      });
      ext.handle("ops/find", (p) => {
        if (p.op === "exists") return { exists: p.path in dirs };
        if (p.pattern === "boom") return { error: "the VM's search failed" };
        // Every file, relative to the search's directory; pi limits them.
        return { paths: ["src/main.rs", "src/lib.rs", "README.md", "b.txt"].filter((f) => f.endsWith(p.pattern.replace("*", ""))).concat(Array(50_000).fill(7)) };
      });
    },
  });
  const f = fakeCtx();
  f.ctx.cwd = "/vm";
  await h.startSession(f.ctx);
  const ls = h.fake.tools.get("ls");
  const listed = await ls.execute("l1", {}, undefined, undefined, f.ctx);
  assert.equal(listed.content[0].text, "b.txt\nREADME.md\nsrc/", "pi sorts (in any case) and marks the extension's entries");
  const asked = h.ext().sent("ops/ls").map((m) => `${m.params.tool} ${m.params.op} ${m.params.path}`);
  assert.deepEqual(asked.slice(0, 3), ["ls exists /vm", "ls stat /vm", "ls readdir /vm"]);
  assert.deepEqual(asked.slice(3).sort(), ["ls stat /vm/README.md", "ls stat /vm/b.txt", "ls stat /vm/src"]);
  await assert.rejects(ls.execute("l2", { path: "nowhere" }, undefined, undefined, f.ctx), /Path not found/);
  await assert.rejects(ls.execute("l3", { path: "b.txt" }, undefined, undefined, f.ctx), /Not a directory/);

  const find = h.fake.tools.get("find");
  const found = await find.execute("f1", { pattern: "*.rs", limit: 1 }, undefined, undefined, f.ctx);
  assert.match(found.content[0].text, /^src\/main\.rs\n/, "pi keeps the limit of the extension's paths");
  assert.equal(found.details?.resultLimitReached, 1);
  const glob = h.ext().sent("ops/find").find((m) => m.params.op === "glob");
  assert.ok(glob, "the search was asked of the extension");
  assert.equal(glob.params.path, "/vm");
  assert.equal(glob.params.limit, 2, "pi asks one past its limit, to tell \"exactly N\" from \"more\"");
  assert.ok(Array.isArray(glob.params.ignore));
  await assert.rejects(find.execute("f2", { pattern: "boom" }, undefined, undefined, f.ctx), /the VM's search failed/);
  await assert.rejects(find.execute("f3", { pattern: "*", path: "gone" }, undefined, undefined, f.ctx), /Path not found/);
});
