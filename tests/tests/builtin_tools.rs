//! pi's built-in bash, read, write and edit tools with Rust operations (the `ssh`
//! and `bash-spawn-hook` ports), and pi's truncation from Rust (the
//! `truncated-tool` port), in the real pi.

use std::path::{Path, PathBuf};

use pi_ext::truncate::format_size;
use pi_ext_e2e::json::{notifications, statuses, system_prompt, tool_result};
use pi_ext_e2e::{
    install_example, Key, PiEnv, PiRpc, Reply, ScriptedModel, ToolCall, DEFAULT_TIMEOUT,
};
use serde_json::{json, Value};

/// The `tool_execution_end` of `id` in `events`.
fn end_of<'a>(events: &'a [Value], id: &str) -> &'a Value {
    events
        .iter()
        .find(|e| e["type"] == "tool_execution_end" && e["toolCallId"] == id)
        .unwrap_or_else(|| panic!("no tool_execution_end for {id}"))
}

fn text_of(end: &Value) -> String {
    end["result"]["content"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|c| c["text"].as_str())
        .collect::<Vec<_>>()
        .join("\n")
}

/// A 1×1 PNG.
const PNG: &[u8] = b"\x89\x50\x4e\x47\x0d\x0a\x1a\x0a\x00\x00\x00\x0d\x49\x48\x44\x52\x00\x00\x00\x01\x00\x00\x00\x01\x08\x06\x00\x00\x00\x1f\x15\xc4\x89\x00\x00\x00\x0d\x49\x44\x41\x54\x78\x9c\x63\xf8\xcf\xc0\xf0\x1f\x00\x05\x00\x01\xff\x89\x99\x3d\x1d\x00\x00\x00\x00\x49\x45\x4e\x44\xae\x42\x60\x82";

/// pi's own example of this name (the TypeScript original).
fn original(file: &str) -> PathBuf {
    pi_ext_e2e::pi_example(file)
}

/// A directory with executable scripts (`name`, `body`), for the front of pi's `PATH`.
fn fake_bin(env: &PiEnv, scripts: &[(&str, &str)]) -> PathBuf {
    use std::os::unix::fs::PermissionsExt;
    let bin = env.root().join("fake-bin");
    std::fs::create_dir_all(&bin).unwrap();
    for (name, body) in scripts {
        let path = bin.join(name);
        std::fs::write(&path, body).unwrap();
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    bin
}

/// `PATH` with `bin` first.
fn path_with(bin: &Path) -> String {
    format!(
        "{}:{}",
        bin.display(),
        std::env::var("PATH").unwrap_or_default()
    )
}

/// A stand-in for `ssh <host> <command>`: drops the host and runs the
/// command here with `bash -c` (in `$FAKE_SSH_HOME`, the remote's home,
/// when set), in its own session; SIGTERM (Node's
/// `child.kill()`) kills the command's whole group, as a dropped ssh
/// connection ends the remote command. The command writes its group's id
/// before it runs, so a SIGTERM after its first output always finds it
/// (`$!` in this shell may not be set yet then).
const FAKE_SSH: &str = r#"#!/bin/bash
shift
cd "${FAKE_SSH_HOME:-.}" || exit 255
group=$(mktemp)
trap 'exec 2>/dev/null; kill -KILL -- -"$(cat "$group")"; rm -f "$group"; exit 143' TERM
setsid bash -c 'echo $$ > "$0"; exec bash -c "$1"' "$group" "$1" &
wait $!
status=$?
rm -f "$group"
exit $status
"#;

/// pi with the ssh port (`port`) or ssh.ts, with the fake `ssh` first on `PATH`.
fn start_ssh(env: &PiEnv, port: bool, args: &[&str]) -> PiRpc {
    start_ssh_with(env, port, args, None)
}

/// [`start_ssh`], the fake remote's home at `home`.
fn start_ssh_with(env: &PiEnv, port: bool, args: &[&str], home: Option<&Path>) -> PiRpc {
    let bin = fake_bin(env, &[("ssh", FAKE_SSH)]);
    let mut builder = if port {
        let dir = install_example(env, "ssh");
        env.pi().installed(&dir)
    } else {
        env.pi().no_extensions().extension(original("ssh.ts"))
    };
    if let Some(home) = home {
        builder = builder.env("FAKE_SSH_HOME", home);
    }
    builder.env("PATH", path_with(&bin)).args(args).start()
}

/// Replace `from` by `to` in every string of `v`.
fn normalise(v: &mut Value, from: &str, to: &str) {
    match v {
        Value::String(s) => *s = s.replace(from, to),
        Value::Array(a) => a.iter_mut().for_each(|v| normalise(v, from, to)),
        Value::Object(o) => {
            // pi 1.6's bash reports how long a command took: a measurement,
            // not behaviour, so it is checked for its form and left out.
            if let Some(wall) = o.remove("wall_time_seconds") {
                assert!(
                    wall.as_f64().is_some_and(|s| s >= 0.0),
                    "wall_time_seconds: {wall}"
                );
            }
            o.values_mut().for_each(|v| normalise(v, from, to))
        }
        _ => {}
    }
}

/// What one ssh run shows and sends: every tool call's `tool_execution_end`
/// (`isError` and `result`, paths normalised), the system prompt, the status
/// line and notifications, and the remote's files afterwards.
#[derive(Debug)]
struct SshRun {
    ends: Vec<(String, Value)>,
    prompt: String,
    statuses: Vec<String>,
    notifications: Vec<String>,
    written: String,
    edited: String,
}

fn ssh_run(port: bool) -> SshRun {
    let model = ScriptedModel::start();
    let env = PiEnv::new(&model);
    let remote = env.root().join("remote");
    std::fs::create_dir_all(&remote).unwrap();
    std::fs::write(remote.join("marker.txt"), "remote marker").unwrap();
    std::fs::write(remote.join("notes.txt"), "remote notes").unwrap();
    std::fs::write(remote.join("pic.png"), PNG).unwrap();
    std::fs::write(remote.join("config.txt"), "port = 80\nhost = a\n").unwrap();
    env.write_cwd_file("notes.txt", "local notes");
    let target = format!("fake@host:{}", remote.display());
    let pi = start_ssh(&env, port, &["--ssh", &target]);

    let bash = |id: &str, args: Value| ToolCall::new(id, "bash", args);
    let read = |id: &str, path: &str| ToolCall::new(id, "read", json!({ "path": path }));
    model.push(Reply::tools([
        bash("where", json!({"command": "pwd && cat marker.txt"})),
        bash("long", json!({"command": "seq 1 3000"})),
        bash("exit3", json!({"command": "echo err >&2; exit 3"})),
        bash("slow", json!({"command": "sleep 5", "timeout": 1})),
        read("notes", "notes.txt"),
        read("missing", "missing.txt"),
        read("pic", "pic.png"),
    ]));
    model.push(Reply::tools([
        ToolCall::new(
            "write",
            "write",
            json!({"path": "sub/dir/new.txt", "content": "héllo \"remote\"\n"}),
        ),
        ToolCall::new(
            "edit",
            "edit",
            json!({"path": "config.txt", "edits": [{"oldText": "port = 80", "newText": "port = 8080"}]}),
        ),
        ToolCall::new(
            "edit-missing",
            "edit",
            json!({"path": "absent.txt", "edits": [{"oldText": "a", "newText": "b"}]}),
        ),
    ]));
    model.push(Reply::text("done"));
    let events = pi.prompt("look around");
    let prompt = system_prompt(&model.requests()[0]).unwrap();

    // pi's abort reaches the remote command. Abort once it has printed: ssh.ts
    // listens for the abort only after spawning `ssh`, and misses an earlier one.
    model.push(Reply::tool(
        "sleepy",
        "bash",
        json!({"command": "echo started; sleep 30"}),
    ));
    let mark = pi.mark();
    pi.send(json!({"type": "prompt", "message": "wait"}));
    pi.wait_event_since(
        mark,
        |e| {
            e["type"] == "tool_execution_update"
                && e["toolCallId"] == "sleepy"
                && e["partialResult"]["content"][0]["text"] == "started\n"
        },
        DEFAULT_TIMEOUT,
    );
    pi.call(json!({"type": "abort"}));
    let sleepy = pi.wait_event_since(
        mark,
        |e| e["type"] == "tool_execution_end" && e["toolCallId"] == "sleepy",
        DEFAULT_TIMEOUT,
    );

    let cwd = env.cwd().display().to_string();
    let remote_text = remote.display().to_string();
    let ids = [
        "where",
        "long",
        "exit3",
        "slow",
        "notes",
        "missing",
        "pic",
        "write",
        "edit",
        "edit-missing",
    ];
    let ends = ids
        .iter()
        .map(|id| end_of(&events, id))
        .chain([&sleepy])
        .map(|end| {
            let mut v = json!({ "isError": end["isError"], "result": end["result"] });
            if let Some(full) = end["result"]["details"]["fullOutputPath"].as_str() {
                normalise(&mut v, full, "<full output>");
            }
            normalise(&mut v, &remote_text, "<remote>");
            normalise(&mut v, &cwd, "<cwd>");
            (end["toolCallId"].as_str().unwrap().to_string(), v)
        })
        .collect();
    let start = pi.events();
    SshRun {
        ends,
        prompt: prompt
            .replace(&remote_text, "<remote>")
            .replace(&cwd, "<cwd>"),
        statuses: statuses(&start)
            .iter()
            .map(|s| s.replace(&remote_text, "<remote>"))
            .collect(),
        notifications: notifications(&start)
            .iter()
            .map(|s| s.replace(&remote_text, "<remote>"))
            .collect(),
        written: std::fs::read_to_string(remote.join("sub/dir/new.txt")).unwrap_or_default(),
        edited: std::fs::read_to_string(remote.join("config.txt")).unwrap(),
    }
}

#[test]
fn ssh_runs_read_write_edit_and_bash_through_ssh_like_the_original() {
    let rust = ssh_run(true);
    let end = |id: &str| {
        &rust
            .ends
            .iter()
            .find(|(i, _)| i == id)
            .unwrap_or_else(|| panic!("no {id}"))
            .1
    };
    let text = |id: &str| text_of(end(id));
    assert_eq!(rust.statuses.len(), 1, "{:?}", rust.statuses);
    assert!(
        rust.statuses[0].contains("SSH: fake@host:<remote>"),
        "{:?}",
        rust.statuses
    );
    assert_eq!(rust.notifications, ["SSH mode: fake@host:<remote>"]);
    // bash ran on the remote, in its directory, with pi's texts.
    assert_eq!(text("where"), "<remote>\nremote marker");
    let long = text("long");
    // (pi 1.x: a final newline ends the last line, it starts none.)
    assert!(
        long.starts_with("1001\n")
            && long.ends_with("[Showing lines 1001-3000 of 3000. Full output: <full output>]"),
        "{long}"
    );
    assert_eq!(
        end("long")["result"]["details"]["truncation"]["truncatedBy"],
        "lines"
    );
    assert_eq!(end("exit3")["isError"], true);
    assert_eq!(text("exit3"), "err\n\n\nCommand exited with code 3");
    assert_eq!(text("slow"), "Command timed out after 1 seconds");
    assert_eq!(text("sleepy"), "started\n\n\nCommand aborted");
    // read: remote files through `cat`, `test -r` and `file --mime-type`.
    assert_eq!(text("notes"), "remote notes");
    assert_eq!(end("missing")["isError"], true);
    assert_eq!(text("missing"), "SSH failed (1): ");
    // pi 0.73.1's read tool, which gets the call's context, said the scripted
    // model takes no images (ssh.ts calls the tool without the context); pi
    // 1.x shows that in its terminal only.
    let no_images =
        "\n[Current model does not support images. The image will be omitted from this request.]";
    assert_eq!(text("pic"), "Read image file [image/png]");
    assert!(
        end("pic")["result"]["content"]
            .as_array()
            .unwrap()
            .iter()
            .any(|c| c["type"] == "image"),
        "{:?}",
        end("pic")
    );
    // write and edit: through `mkdir -p`, `base64 -d` and `cat`.
    assert_eq!(rust.written, "héllo \"remote\"\n");
    assert_eq!(text("write"), "Successfully wrote to sub/dir/new.txt");
    assert_eq!(rust.edited, "port = 8080\nhost = a\n");
    assert_eq!(end("edit")["isError"], false, "{:?}", end("edit"));
    assert_eq!(end("edit-missing")["isError"], true);
    assert_eq!(
        text("edit-missing"),
        "Could not edit file: absent.txt. Error: SSH failed (1): ."
    );

    let ts = ssh_run(false);
    let mut rust = rust;
    let mut ts = ts;
    for (_, end) in &mut rust.ends {
        normalise(end, no_images, "");
        // pi 1.x keeps that note in the details.
        let result = end.get_mut("result").and_then(Value::as_object_mut);
        if let Some(result) = result {
            let details = result.get_mut("details").and_then(Value::as_object_mut);
            if let Some(details) = details {
                if details.remove("imageUnsupportedByModel").is_some() && details.is_empty() {
                    result.remove("details");
                }
            }
        }
    }
    // pi 1.x's bash results carry the command's wall time.
    for (_, end) in rust.ends.iter_mut().chain(ts.ends.iter_mut()) {
        let structured = end
            .pointer_mut("/result/structuredContent")
            .and_then(Value::as_object_mut);
        if let Some(structured) = structured {
            structured.remove("wall_time_seconds");
        }
    }
    for ((id, r), (ts_id, t)) in rust.ends.iter().zip(&ts.ends) {
        assert_eq!(id, ts_id);
        assert_eq!(r, t, "{id}: the port's end, then the original's");
    }
    assert_eq!(rust.statuses, ts.statuses);
    assert_eq!(rust.notifications, ts.notifications);
    assert_eq!(rust.written, ts.written);
    assert_eq!(rust.edited, ts.edited);
    // The rewritten working directory, and all after pi's tool section, match.
    let tail = |p: &str| p[p.find("Pi documentation").expect("pi's docs section")..].to_string();
    assert_eq!(tail(&rust.prompt), tail(&ts.prompt));
    // Known difference: ssh.ts spreads `createReadTool(..)` (an agent tool,
    // without pi's prompt snippet and guidelines) into its tools, so pi lists
    // none of them; the port registers pi's own definitions, listed as pi's.
    assert!(
        rust.prompt.contains("- read: Read file contents\n"),
        "{}",
        rust.prompt
    );
    assert!(
        !ts.prompt.contains("- read: Read file contents\n"),
        "{}",
        ts.prompt
    );
    // pi 1.x moved the working directory into a `<cwd>` section, so
    // ssh.ts's rewrite of `Current working directory: …` finds nothing to
    // replace and the prompt names the local directory; the port does the
    // same (the two prompts are equal, above; MAPPING.md's ssh row says so).
    assert!(
        rust.prompt.contains("<cwd>\n<cwd>\n</cwd>"),
        "{}",
        rust.prompt
    );
    assert!(!rust.prompt.contains("(via SSH: fake@host)"));
}

#[test]
fn ssh_quotes_hostile_file_names_and_runs_nothing_in_them() {
    let model = ScriptedModel::start();
    let env = PiEnv::new(&model);
    let remote = env.root().join("remote");
    std::fs::create_dir_all(&remote).unwrap();
    // Each name would run `touch M` (in the remote's home, the fake ssh's
    // working directory) if the shell read it unquoted or double-quoted.
    let dollar = "notes$(touch M).txt";
    let ticks = "tick`touch M`.txt";
    let quotes = "we$ird \"name\".txt";
    let single = "it's $(touch M).txt";
    let newline = "two\nlines $(touch M).txt";
    for name in [dollar, ticks, quotes, newline] {
        std::fs::write(remote.join(name), format!("content of {name}")).unwrap();
    }
    std::fs::write(remote.join(single), "port = 80\n").unwrap();
    let written = "new `touch M` 'q' \"d\" $HOME.txt";
    let dir = "sub $(touch M)";
    let target = format!("fake@host:{}", remote.display());
    let pi = start_ssh_with(&env, true, &["--ssh", &target], Some(&remote));
    let read = |id: &str, path: &str| ToolCall::new(id, "read", json!({ "path": path }));
    model.push(Reply::tools([
        read("dollar", dollar),
        read("ticks", ticks),
        read("quotes", quotes),
        read("newline", newline),
        ToolCall::new(
            "edit",
            "edit",
            json!({"path": single, "edits": [{"oldText": "port = 80", "newText": "port = 8080"}]}),
        ),
        ToolCall::new(
            "write",
            "write",
            json!({"path": format!("{dir}/{written}"), "content": "written $(touch M)\n"}),
        ),
    ]));
    model.push(Reply::text("done"));
    let events = pi.prompt("open the odd files");
    for (id, name) in [
        ("dollar", dollar),
        ("ticks", ticks),
        ("quotes", quotes),
        ("newline", newline),
    ] {
        assert_eq!(end_of(&events, id)["isError"], false, "{id}: {events:?}");
        assert_eq!(text_of(end_of(&events, id)), format!("content of {name}"));
    }
    assert_eq!(end_of(&events, "edit")["isError"], false, "{events:?}");
    assert_eq!(
        std::fs::read_to_string(remote.join(single)).unwrap(),
        "port = 8080\n"
    );
    assert_eq!(end_of(&events, "write")["isError"], false, "{events:?}");
    assert_eq!(
        std::fs::read_to_string(remote.join(dir).join(written)).unwrap(),
        "written $(touch M)\n"
    );
    // Nothing in a name ran, here or on the remote.
    assert!(!remote.join("M").exists());
    assert!(!env.cwd().join("M").exists());
}

/// `pid`'s state letter in `/proc/<pid>/stat`, if it is a process whose
/// command line starts with `argv0` (another process may get the pid later).
fn process_state(pid: i32, argv0: &str) -> Option<char> {
    let cmdline = std::fs::read(format!("/proc/{pid}/cmdline")).ok()?;
    if cmdline.split(|b| *b == 0).next() != Some(argv0.as_bytes()) {
        return None;
    }
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // "pid (comm) state ...": comm may hold spaces, the state follows its ')'.
    stat.rsplit_once(") ")?.1.chars().next()
}

#[test]
fn a_killed_extension_takes_the_commands_it_runs_with_it() {
    let model = ScriptedModel::start();
    let env = PiEnv::new(&model);
    // The ssh port without `--ssh` runs bash locally, with `LocalShell`.
    let pi = start_ssh(&env, true, &[]);
    // The shell's parent is the extension; the sleeps run in the background.
    model.push(Reply::tool(
        "sleeps",
        "bash",
        json!({"command": "echo $PPID; sleep 315 & echo $!; sleep 316 & echo $!; wait"}),
    ));
    model.push(Reply::text("done"));
    let mark = pi.mark();
    pi.send(json!({"type": "prompt", "message": "sleep"}));
    let numbers = |e: &Value| -> Vec<i32> {
        let text = e["partialResult"]["content"][0]["text"]
            .as_str()
            .unwrap_or("");
        text.lines().filter_map(|l| l.trim().parse().ok()).collect()
    };
    let update = pi.wait_event_since(
        mark,
        |e| {
            e["type"] == "tool_execution_update"
                && e["toolCallId"] == "sleeps"
                && numbers(e).len() == 3
        },
        DEFAULT_TIMEOUT,
    );
    let pids = numbers(&update);
    let (extension, sleeps) = (pids[0], &pids[1..]);
    let comm = std::fs::read_to_string(format!("/proc/{extension}/comm")).unwrap();
    assert_eq!(comm.trim(), "ssh", "the shell's parent is the extension");
    // SAFETY: kill(2) with the pid of the extension, checked above, and a valid signal.
    assert_eq!(unsafe { libc::kill(extension, libc::SIGKILL) }, 0);
    let end = pi.wait_event_since(
        mark,
        |e| e["type"] == "tool_execution_end" && e["toolCallId"] == "sleeps",
        DEFAULT_TIMEOUT,
    );
    assert_eq!(end["isError"], true, "{end}");
    pi.wait_type("agent_end", DEFAULT_TIMEOUT);
    // Gone, or dead and waiting for a reaper: nothing runs any more.
    let running = || {
        sleeps
            .iter()
            .copied()
            .filter(|&pid| process_state(pid, "sleep").is_some_and(|s| s != 'Z'))
            .collect::<Vec<_>>()
    };
    let mut left = running();
    for _ in 0..1200 {
        if left.is_empty() {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(25));
        left = running();
    }
    for &pid in &left {
        // SAFETY: kill(2) of a `sleep` this test started, checked in /proc just now.
        unsafe { libc::kill(pid, libc::SIGKILL) };
    }
    assert!(
        left.is_empty(),
        "still running after the extension died: {left:?}"
    );
}

/// What one bash-spawn-hook run sends the model and shows: the tool result's
/// text, and its `tool_execution_end` (`isError`, `result`).
fn spawn_hook_run(port: bool) -> (Option<String>, Value) {
    let model = ScriptedModel::start();
    let env = PiEnv::new(&model);
    std::fs::write(env.home().join(".profile"), "export FROM_PROFILE=yes\n").unwrap();
    let builder = if port {
        let dir = install_example(&env, "bash-spawn-hook");
        env.pi().installed(&dir)
    } else {
        env.pi()
            .no_extensions()
            .extension(original("bash-spawn-hook.ts"))
    };
    model.push(Reply::tool(
        "hooked",
        "bash",
        json!({"command": "echo \"$PI_SPAWN_HOOK $FROM_PROFILE\"; pwd"}),
    ));
    model.push(Reply::text("done"));
    let pi = builder.start();
    let events = pi.prompt("check the environment");
    let end = end_of(&events, "hooked");
    let cwd = env.cwd().display().to_string();
    let mut shown = json!({ "isError": end["isError"], "result": end["result"] });
    normalise(&mut shown, &cwd, "<cwd>");
    let sent = tool_result(&model.requests()[1], "hooked").map(|t| t.replace(&cwd, "<cwd>"));
    (sent, shown)
}

#[test]
fn a_rust_spawn_hook_adjusts_every_command_like_the_original() {
    let (sent, shown) = spawn_hook_run(true);
    assert_eq!(sent.as_deref(), Some("1 yes\n<cwd>\n"));
    assert_eq!(shown["isError"], false);
    assert_eq!(text_of(&shown), "1 yes\n<cwd>\n");
    let (ts_sent, ts_shown) = spawn_hook_run(false);
    assert_eq!(sent, ts_sent);
    assert_eq!(shown, ts_shown);
}

/// What a run with `--ssh fake@host` (no path: the remote's `pwd`), or with
/// no `--ssh` (`ssh` false), shows: status lines, notifications, the system
/// prompt's working-directory line, and two tool results (`pwd`; a read).
fn ssh_resolve_run(port: bool, ssh: bool) -> Vec<String> {
    let model = ScriptedModel::start();
    let env = PiEnv::new(&model);
    let home = env.root().join("remote-home");
    std::fs::create_dir_all(&home).unwrap();
    std::fs::write(home.join("notes.txt"), "remote notes").unwrap();
    env.write_cwd_file("notes.txt", "local notes");
    let args: &[&str] = if ssh { &["--ssh", "fake@host"] } else { &[] };
    let pi = start_ssh_with(&env, port, args, Some(&home));
    model.push(Reply::tools([
        ToolCall::new("pwd", "bash", json!({"command": "pwd"})),
        ToolCall::new("notes", "read", json!({"path": "notes.txt"})),
        ToolCall::new("missing", "read", json!({"path": "missing.txt"})),
        ToolCall::new(
            "edit-missing",
            "edit",
            json!({"path": "absent.txt", "edits": [{"oldText": "a", "newText": "b"}]}),
        ),
    ]));
    model.push(Reply::text("done"));
    let events = pi.prompt("where am I");
    let prompt = system_prompt(&model.requests()[0]).unwrap();
    // pi 0.73.1's line, or pi 1.x's `<cwd>` section in that line's words.
    let cwd_line = prompt
        .lines()
        .find(|l| l.starts_with("Current working directory:"))
        .map(str::to_string)
        .or_else(|| {
            let (_, rest) = prompt.split_once("<cwd>\n")?;
            let (dir, _) = rest.split_once("\n</cwd>")?;
            Some(format!("Current working directory: {dir}"))
        })
        .unwrap_or_default();
    let all = pi.events();
    let mut seen: Vec<String> = statuses(&all);
    seen.extend(notifications(&all));
    seen.push(cwd_line);
    seen.push(text_of(end_of(&events, "pwd")));
    for id in ["notes", "missing", "edit-missing"] {
        seen.push(text_of(end_of(&events, id)));
    }
    let (home, cwd) = (home.display().to_string(), env.cwd().display().to_string());
    seen.iter()
        .map(|s| s.replace(&home, "<home>").replace(&cwd, "<cwd>"))
        .collect()
}

#[test]
fn ssh_without_a_path_asks_the_remote_and_without_ssh_stays_local_like_the_original() {
    let remote = ssh_resolve_run(true, true);
    // The status in the theme's accent colour (its code depends on the theme).
    assert!(
        remote[0].starts_with("\u{1b}[38;")
            && remote[0].ends_with("mSSH: fake@host:<home>\u{1b}[39m"),
        "{remote:?}"
    );
    let local = ssh_resolve_run(true, false);
    assert_eq!(local, ssh_resolve_run(false, false));
    assert_eq!(remote, ssh_resolve_run(false, true));
    assert_eq!(
        local,
        [
            "Current working directory: <cwd>",
            "<cwd>\n",
            "local notes",
            "ENOENT: no such file or directory, access '<cwd>/missing.txt'",
            "Could not edit file: absent.txt. Error code: ENOENT.",
        ]
    );
    // On pi 1.x the prompt names the local directory, in ssh.ts as in the
    // port (see `ssh_runs_read_write_edit_and_bash_through_ssh_like_the_original`).
    assert_eq!(
        remote[1..],
        [
            "SSH mode: fake@host:<home>",
            "Current working directory: <cwd>",
            "<home>\n",
            "remote notes",
            "SSH failed (1): ",
            "Could not edit file: absent.txt. Error: SSH failed (1): .",
        ]
    );
}

/// A hostile remote (issue 20, item 4): its `pwd` answers with escape
/// sequences (its home is a directory named so: an OSC 52 clipboard write,
/// a screen clear, a C1 CSI), and the ssh port shows the text without them
/// in its status and its notification.
#[test]
fn a_hostile_remote_pwd_is_shown_without_its_escape_sequences() {
    let model = ScriptedModel::start();
    let env = PiEnv::new(&model);
    let home = env
        .root()
        .join("remote\u{1b}]52;c;aGk=\u{7}\u{1b}[2J\u{9b}31m-home");
    std::fs::create_dir_all(&home).unwrap();
    let pi = start_ssh_with(&env, true, &["--ssh", "fake@host"], Some(&home));
    let notify = pi.wait_ui_request("notify", DEFAULT_TIMEOUT);
    let shown = env.root().join("remote]52;c;aGk=[2J31m-home");
    assert_eq!(
        notify["message"].as_str(),
        Some(format!("SSH mode: fake@host:{}", shown.display()).as_str())
    );
    let all = pi.events();
    let status = statuses(&all);
    assert_eq!(status.len(), 1, "{status:?}");
    // The status is in the theme's accent colour: only its own codes (`CSI … m`).
    let text = status[0]
        .split('\u{1b}')
        .map(|part| part.split_once('m').map_or(part, |(_, rest)| rest))
        .collect::<String>();
    assert_eq!(text, format!("SSH: fake@host:{}", shown.display()));
    assert!(
        !status[0].contains("\u{1b}]")
            && !status[0].contains("\u{1b}[2J")
            && !status[0].contains('\u{9b}'),
        "{status:?}"
    );
}

/// A stand-in for ripgrep (not installed here): `rg --line-number
/// --color=never [--glob G] [--] PATTERN PATH` with `grep`, which, like rg,
/// names no file when PATH is a file, and exits 1 when nothing matched.
const FAKE_RG: &str = r#"#!/bin/bash
glob=
while [ $# -gt 0 ]; do
  case "$1" in
    --line-number|--color=never) shift ;;
    --glob) glob=$2; shift 2 ;;
    --) shift; break ;;
    *) break ;;
  esac
done
if [ -d "$2" ]; then
  exec grep -rn ${glob:+--include="$glob"} -e "$1" "$2"
else
  exec grep -n -e "$1" "$2"
fi
"#;

/// What one truncated-tool run shows: every search's `tool_execution_end`
/// (`isError`, `result`; the temp file's path normalised), and the saved
/// full output of the truncated one. With `rg` false, ripgrep is missing.
fn rg_run(port: bool, rg: bool) -> (Vec<Value>, Option<String>) {
    let model = ScriptedModel::start();
    let env = PiEnv::new(&model);
    let lines: String = (1..=3000).map(|i| format!("match {i}\n")).collect();
    env.write_cwd_file("big.txt", &lines);
    env.write_cwd_file("docs/a.md", "a needle\n");
    env.write_cwd_file("docs/b.txt", "another needle\n");
    let mut builder = if port {
        let dir = install_example(&env, "truncated-tool");
        env.pi().installed(&dir)
    } else {
        env.pi()
            .no_extensions()
            .extension(original("truncated-tool.ts"))
    };
    if rg {
        let bin = fake_bin(&env, &[("rg", FAKE_RG)]);
        builder = builder.env("PATH", path_with(&bin));
    }
    let search = |id: &str, args: Value| ToolCall::new(id, "rg", args);
    let ids = ["big", "glob", "none"];
    model.push(Reply::tools([
        search(ids[0], json!({"pattern": "match", "path": "big.txt"})),
        search(ids[1], json!({"pattern": "needle", "glob": "*.md"})),
        search(ids[2], json!({"pattern": "absent", "path": "docs"})),
    ]));
    model.push(Reply::text("done"));
    let pi = builder.start();
    let events = pi.prompt("search");
    let mut saved = None;
    let ends = ids
        .iter()
        .map(|id| {
            let end = end_of(&events, id);
            let mut v = json!({ "isError": end["isError"], "result": end["result"] });
            if let Some(full) = end["result"]["details"]["fullOutputPath"].as_str() {
                saved = Some(std::fs::read_to_string(full).unwrap());
                normalise(&mut v, full, "<full output>");
            }
            v
        })
        .collect();
    (ends, saved)
}

#[test]
fn a_search_is_cut_with_pis_limits_and_fails_without_ripgrep_like_the_original() {
    let (ends, saved) = rg_run(true, true);
    // The full output (one `line:text` per match) was saved.
    let saved = saved.expect("the big search was truncated");
    assert_eq!(saved.lines().count(), 3000);
    assert!(saved.starts_with("1:match 1\n"), "{}", &saved[..20]);
    // The first 2000 lines, and the original's notice with pi's sizes.
    let kept: String = saved.lines().take(2000).collect::<Vec<_>>().join("\n");
    let notice = format!(
        "[Output truncated: showing 2000 of 3000 lines ({} of {}). 1000 lines ({}) omitted. Full output saved to: <full output>]",
        format_size(kept.len() as u64),
        format_size(saved.len() as u64),
        format_size((saved.len() - kept.len()) as u64),
    );
    let big = &ends[0];
    assert_eq!(text_of(big), format!("{kept}\n\n{notice}"));
    let details = &big["result"]["details"];
    assert_eq!(details["matchCount"], 3000);
    assert_eq!(details["fullOutputPath"], "<full output>");
    assert_eq!(details["truncation"]["outputLines"], 2000);
    assert_eq!(details["truncation"]["truncatedBy"], "lines");
    assert_eq!(text_of(&ends[1]), "./docs/a.md:1:a needle\n");
    assert_eq!(ends[1]["result"]["details"]["matchCount"], 1);
    assert_eq!(ends[1]["result"]["details"]["glob"], "*.md");
    assert_eq!(text_of(&ends[2]), "No matches found");
    assert_eq!(ends[2]["result"]["details"]["matchCount"], 0);

    let (ts_ends, ts_saved) = rg_run(false, true);
    assert_eq!(ts_saved.as_deref(), Some(saved.as_str()));
    for (id, (r, t)) in ["big", "glob", "none"]
        .iter()
        .zip(ends.iter().zip(&ts_ends))
    {
        assert_eq!(r, t, "{id}: the port's end, then the original's");
    }

    // Without ripgrep: the shell's complaint, as the original reports it.
    let (missing, _) = rg_run(true, false);
    assert_eq!(missing[0]["isError"], true);
    assert_eq!(
        text_of(&missing[0]),
        "ripgrep failed: Command failed: rg --line-number --color=never match big.txt\n/bin/sh: 1: rg: not found\n"
    );
    let (ts_missing, _) = rg_run(false, false);
    assert_eq!(missing, ts_missing);
}

#[test]
fn in_pis_terminal_a_bang_command_runs_on_the_remote_and_the_bash_row_is_pis() {
    let model = ScriptedModel::start();
    model.push(Reply::tool(
        "hi",
        "bash",
        json!({"command": "echo from-the-model"}),
    ));
    model.push(Reply::text("All done."));
    let env = PiEnv::new(&model);
    let dir = install_example(&env, "ssh");
    let remote = env.root().join("remote-term");
    std::fs::create_dir_all(&remote).unwrap();
    std::fs::write(remote.join("where.txt"), "only-on-the-remote").unwrap();
    let bin = fake_bin(&env, &[("ssh", FAKE_SSH)]);
    let pi = env
        .pi()
        .installed(&dir)
        .env("PATH", path_with(&bin))
        .arg("--ssh")
        .arg(format!("fake@host:{}", remote.display()))
        .terminal(160, 40);
    // ssh.ts's status line.
    pi.wait_for_text(&format!("SSH: fake@host:{}", remote.display()));
    // `!cat where.txt` goes through the user_bash hook's Rust operations, to `ssh`.
    pi.type_text("!cat where.txt");
    pi.press(Key::Enter);
    pi.wait_for_text("only-on-the-remote");
    // A model's bash call is drawn by pi's own renderer: `$ command`, then "Took".
    pi.type_text("say hi");
    pi.press(Key::Enter);
    let screen = pi.wait_for_text("All done.");
    assert!(screen.find("$ echo from-the-model").is_some(), "{screen}");
    assert!(screen.find("Took ").is_some(), "{screen}");
    pi.exit();
}

/// The rows the ide-tools renderers drew (`◆` calls, `✓`/`✗` results), top to bottom:
/// each one's text (the run's working directory named `<cwd>`) and its runs of styles.
fn ide_rows(screen: &pi_ext_e2e::Screen, cwd: &str) -> Vec<(String, Vec<pi_ext_e2e::Style>)> {
    screen
        .rows()
        .into_iter()
        .enumerate()
        .map(|(r, text)| (r as u16, text))
        .filter(|(_, text)| {
            ["◆ ", "✓ ", "✗ "]
                .iter()
                .any(|m| text.trim_start().starts_with(m))
        })
        .map(|(r, text)| {
            let mut runs: Vec<pi_ext_e2e::Style> = (0..text.chars().count() as u16)
                .map(|c| screen.style_at(r, c))
                .collect();
            runs.dedup();
            (text.trim_end().replace(cwd, "<cwd>"), runs)
        })
        .collect()
}

/// pi's built-in read, ls, find and grep re-registered with their own rows, by the
/// Rust port or its TypeScript twin, after one model turn calling them all.
fn ide_run(
    port: bool,
) -> (
    Vec<(String, Vec<pi_ext_e2e::Style>)>,
    pi_ext_e2e::PiTerminal,
) {
    let model = ScriptedModel::start();
    let env = PiEnv::new(&model);
    env.write_cwd_file("notes/a.txt", "alpha\nbeta\ngamma\n");
    env.write_cwd_file("notes/b.md", "beta again\n");
    model.push(Reply::tools([
        ToolCall::new("r1", "read", json!({"path": "notes/a.txt"})),
        ToolCall::new("l1", "ls", json!({"path": "notes"})),
        ToolCall::new("f1", "find", json!({"pattern": "*.md", "path": "notes"})),
        ToolCall::new("g1", "grep", json!({"pattern": "beta", "path": "notes"})),
        ToolCall::new("r2", "read", json!({"path": "missing.txt"})),
    ]));
    model.push(Reply::text("Looked around."));
    let builder = if port {
        env.pi().installed(install_example(&env, "ide-tools"))
    } else {
        env.pi()
            .no_extensions()
            .extension(pi_ext_e2e::fixture("ide-tools.ts"))
    };
    let pi = builder.terminal(120, 60);
    pi.type_text("look around");
    pi.press(Key::Enter);
    let cwd = env.cwd().display().to_string();
    let screen = pi.wait_for("the five results", |s| {
        s.contains("Looked around.") && ide_rows(s, &cwd).len() >= 10
    });
    (ide_rows(&screen, &cwd), pi)
}

#[test]
fn builtin_tools_re_registered_with_rust_rows_look_like_the_typescript_twin_and_terminal_queries_are_answered(
) {
    let (ts, ts_pi) = ide_run(false);
    ts_pi.exit();
    let (rust, pi) = ide_run(true);
    let texts: Vec<&str> = rust.iter().map(|(t, _)| t.as_str()).collect();
    assert_eq!(rust.len(), 10, "five calls and five results: {texts:#?}");
    for call in [
        "◆ read notes/a.txt",
        "◆ ls notes",
        "◆ find *.md in notes",
        "◆ grep /beta/ in notes",
    ] {
        assert!(texts.iter().any(|t| t.contains(call)), "{call}: {texts:#?}");
    }
    assert!(
        texts.iter().any(|t| t.contains("✓ 3 lines alpha")),
        "{texts:#?}"
    );
    assert!(texts.iter().any(|t| t.contains("✗ ")), "{texts:#?}");
    assert_eq!(
        rust, ts,
        "the rows of the Rust port and of the TypeScript twin"
    );

    // The terminal query: pi 1.6 asks the terminal's colours at start and waits for the
    // device attributes after them; a terminal answers that (this one reports no colour).
    let da = |out: &[u8]| out.windows(3).filter(|w| w == b"\x1b[c").count();
    for _ in 0..da(&pi.output()) {
        pi.send("\x1b[?62c");
    }
    let query = b"\x1b]11;?\x07";
    let asked = |out: &[u8]| out.windows(query.len()).filter(|w| w == query).count();
    let before = asked(&pi.output());
    pi.type_text("/term-bg");
    pi.press(Key::Enter);
    pi_ext_e2e::wait_until("the OSC 11 query", || asked(&pi.output()) > before);
    // Keys around the reply reach the editor; the reply reaches the extension alone.
    let reply = "\x1b]11;rgb:1a1a/2b2b/3c3c\x1b\\";
    pi.send(format!("xy{reply}z"));
    let shown = format!("terminal background: {}", reply.escape_default());
    let screen = pi.wait_for("the reply and the keys", |s| {
        s.contains(&shown) && s.contains("xyz")
    });
    assert!(
        !screen.contains("rgb:1a1a/2b2b/3c3cz"),
        "the reply reached the editor:\n{screen}"
    );
    // A terminal that never answers: None within the timeout, and pi goes on.
    (0..3).for_each(|_| pi.press(Key::Backspace));
    pi.type_text("/term-bg");
    pi.press(Key::Enter);
    pi.wait_for_text("the terminal did not answer");
    pi.exit();
}

/// What pi's `ls` and `find` answered, over a file system only the
/// extension sees (`tests/extensions/virtual-fs`, or its TypeScript twin
/// `tests/fixtures/virtual-fs.ts`): each call's `isError` and result.
fn virtual_fs_run(rust: bool) -> Vec<(String, Value)> {
    let model = ScriptedModel::start();
    let env = PiEnv::new(&model);
    let builder = if rust {
        env.pi().installed(install_example(&env, "virtual-fs"))
    } else {
        env.pi()
            .no_extensions()
            .extension(pi_ext_e2e::fixture("virtual-fs.ts"))
    };
    let calls = [
        ("root", "ls", json!({"path": "/vm"})),
        ("sub", "ls", json!({"path": "/vm/src", "limit": 1})),
        ("missing", "ls", json!({"path": "/vm/nowhere"})),
        ("file", "ls", json!({"path": "/vm/b.txt"})),
        ("rs", "find", json!({"pattern": "*.rs", "path": "/vm"})),
        (
            "limited",
            "find",
            json!({"pattern": "*", "path": "/vm", "limit": 2}),
        ),
        (
            "in-src",
            "find",
            json!({"pattern": "m*", "path": "/vm/src"}),
        ),
        ("none", "find", json!({"pattern": "*.py", "path": "/vm"})),
        ("failed", "find", json!({"pattern": "boom", "path": "/vm"})),
        ("gone", "find", json!({"pattern": "*", "path": "/vm/gone"})),
    ];
    for (id, tool, args) in &calls {
        model.push(Reply::tool(*id, *tool, args.clone()));
    }
    model.push(Reply::text("listed"));
    let pi = builder.start();
    let events = pi.prompt("look around the VM");
    calls
        .iter()
        .map(|(id, _, _)| {
            let end = end_of(&events, id);
            (
                id.to_string(),
                json!({ "isError": end["isError"], "result": end["result"] }),
            )
        })
        .collect()
}

#[test]
fn ls_and_find_run_on_a_file_system_only_the_extension_sees_like_a_typescript_twin() {
    let rust = virtual_fs_run(true);
    let ts = virtual_fs_run(false);
    assert_eq!(rust.len(), ts.len());
    for ((id, r), (_, t)) in rust.iter().zip(&ts) {
        assert_eq!(r, t, "call {id}: Rust, then TypeScript");
    }
    // The comparison saw the virtual files, pi's limits and the errors.
    let text = |id: &str| text_of(&rust.iter().find(|(i, _)| i == id).unwrap().1);
    // `denied` cannot be stat-ed: pi skips it, as it does on its own disk.
    assert_eq!(text("root"), "b.txt\nREADME.md\nsrc/");
    assert!(text("sub").contains("lib.rs"), "{}", text("sub"));
    assert!(text("sub").contains("limit reached"), "{}", text("sub"));
    assert!(text("missing").contains("not found"), "{}", text("missing"));
    assert!(text("rs").contains("src/main.rs"), "{}", text("rs"));
    assert!(
        text("limited").contains("limit reached"),
        "{}",
        text("limited")
    );
    assert_eq!(text("in-src"), "main.rs");
    assert!(
        text("failed").contains("the VM's search failed"),
        "{}",
        text("failed")
    );
}
