//! pi's built-in bash and read tools with Rust operations (the `ssh-like`
//! and `bash-spawn-hook` ports), and pi's truncation from Rust (the
//! `truncated-tool` port), in the real pi.

use pi_ext::truncate::format_size;
use pi_ext_e2e::json::{system_prompt, tool_definition, tool_result};
use pi_ext_e2e::{install_example, Key, PiEnv, Reply, ScriptedModel, ToolCall, DEFAULT_TIMEOUT};
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

#[test]
fn bash_and_read_run_on_the_remote_through_rust_and_stay_pis_tools() {
    let model = ScriptedModel::start();
    let env = PiEnv::new(&model);
    let dir = install_example(&env, "ssh-like");
    let remote = env.root().join("remote");
    std::fs::create_dir_all(&remote).unwrap();
    std::fs::write(remote.join("marker.txt"), "remote marker").unwrap();
    std::fs::write(remote.join("notes.txt"), "remote notes").unwrap();
    std::fs::write(remote.join("pic.png"), PNG).unwrap();
    env.write_cwd_file("notes.txt", "local notes");
    let pi = env
        .pi()
        .installed(&dir)
        .arg("--remote")
        .arg(&remote)
        .start();

    let bash = |id: &str, args: Value| ToolCall::new(id, "bash", args);
    let read = |id: &str, path: &str| ToolCall::new(id, "read", json!({ "path": path }));
    model.push(Reply::tools([
        bash("where", json!({"command": "pwd && cat marker.txt"})),
        bash("long", json!({"command": "seq 1 3000"})),
        bash("exit3", json!({"command": "echo out; exit 3"})),
        bash("slow", json!({"command": "sleep 5", "timeout": 1})),
        read("notes", "notes.txt"),
        read("missing", "missing.txt"),
        read("pic", "pic.png"),
    ]));
    model.push(Reply::text("done"));
    let events = pi.prompt("look around");
    let first = &model.requests()[0];
    let second = &model.requests()[1];

    // pi's own tool definitions, and the system prompt rewritten for the remote.
    let bash_def = tool_definition(first, "bash").expect("bash is offered");
    assert!(
        bash_def["function"]["description"]
            .as_str()
            .unwrap()
            .starts_with("Execute a bash command in the current working directory."),
        "{bash_def}"
    );
    let prompt = system_prompt(first).unwrap();
    assert!(
        prompt.contains(&format!(
            "Current working directory: {} (via SSH: remote)",
            remote.display()
        )),
        "{prompt}"
    );

    // The command ran in the remote's directory, its output reached the model.
    let remote_text = remote.display().to_string();
    let out = tool_result(second, "where").unwrap();
    assert_eq!(out, format!("{remote_text}\nremote marker"));
    // pi's own truncation: the tail, the notice, the full output in a temp file.
    let long = end_of(&events, "long");
    let text = text_of(long);
    let full = long["result"]["details"]["fullOutputPath"]
        .as_str()
        .unwrap();
    assert!(
        text.starts_with("1002\n")
            && text.ends_with(&format!(
                "[Showing lines 1002-3001 of 3001. Full output: {full}]"
            )),
        "{text}"
    );
    let saved = std::fs::read_to_string(full).unwrap();
    assert_eq!(saved.lines().count(), 3000);
    assert_eq!(
        long["result"]["details"]["truncation"]["truncatedBy"],
        "lines"
    );
    // pi's texts for an exit code and a timeout.
    let exit3 = end_of(&events, "exit3");
    assert_eq!(exit3["isError"], true);
    assert_eq!(text_of(exit3), "out\n\n\nCommand exited with code 3");
    let slow = end_of(&events, "slow");
    assert_eq!(text_of(slow), "Command timed out after 1 seconds");
    // read: the remote file, pi's error for a missing one, an image as an image.
    assert_eq!(tool_result(second, "notes").unwrap(), "remote notes");
    let missing = end_of(&events, "missing");
    assert_eq!(missing["isError"], true);
    assert!(
        text_of(missing).contains("No such file or directory"),
        "{missing}"
    );
    let pic = end_of(&events, "pic");
    assert!(
        text_of(pic).starts_with("Read image file [image/png]"),
        "{pic}"
    );
    assert!(
        pic["result"]["content"]
            .as_array()
            .unwrap()
            .iter()
            .any(|c| c["type"] == "image"),
        "{pic}"
    );

    // pi's abort reaches the command: pi's "Command aborted".
    model.push(Reply::tool(
        "sleepy",
        "bash",
        json!({"command": "sleep 30"}),
    ));
    let mark = pi.mark();
    pi.send(json!({"type": "prompt", "message": "wait"}));
    pi.wait_event_since(
        mark,
        |e| e["type"] == "tool_execution_start" && e["toolCallId"] == "sleepy",
        DEFAULT_TIMEOUT,
    );
    pi.call(json!({"type": "abort"}));
    let end = pi.wait_event_since(
        mark,
        |e| e["type"] == "tool_execution_end" && e["toolCallId"] == "sleepy",
        DEFAULT_TIMEOUT,
    );
    assert_eq!(text_of(&end), "Command aborted");
}

#[test]
fn a_rust_spawn_hook_adjusts_every_command_pis_shell_runs() {
    let model = ScriptedModel::start();
    let env = PiEnv::new(&model);
    let dir = install_example(&env, "bash-spawn-hook");
    std::fs::write(env.home().join(".profile"), "export FROM_PROFILE=yes\n").unwrap();
    model.push(Reply::tool(
        "hooked",
        "bash",
        json!({"command": "echo \"$PI_SPAWN_HOOK $FROM_PROFILE\""}),
    ));
    model.push(Reply::text("done"));
    let pi = env.pi().installed(&dir).start();
    pi.prompt("check the environment");
    assert_eq!(
        tool_result(&model.requests()[1], "hooked").as_deref(),
        Some("1 yes\n")
    );
}

#[test]
fn a_large_search_result_is_cut_with_pis_limits_and_notice() {
    let model = ScriptedModel::start();
    let env = PiEnv::new(&model);
    let dir = install_example(&env, "truncated-tool");
    let lines: String = (1..=3000).map(|i| format!("match {i}\n")).collect();
    env.write_cwd_file("big.txt", &lines);
    model.push(Reply::tool(
        "search",
        "rg",
        json!({"pattern": "match", "path": "big.txt"}),
    ));
    model.push(Reply::text("done"));
    let pi = env.pi().installed(&dir).start();
    let events = pi.prompt("search");
    let end = end_of(&events, "search");
    let details = &end["result"]["details"];
    let full = details["fullOutputPath"].as_str().unwrap();
    // The full output (one `line:text` per match) was saved.
    let saved = std::fs::read_to_string(full).unwrap();
    assert_eq!(saved.lines().count(), 3000);
    assert!(saved.starts_with("1:match 1\n"), "{}", &saved[..20]);
    // The first 2000 lines, and the TypeScript example's notice with pi's sizes.
    let kept: String = saved.lines().take(2000).collect::<Vec<_>>().join("\n");
    let notice = format!(
        "[Output truncated: showing 2000 of 3001 lines ({} of {}). 1001 lines ({}) omitted. Full output saved to: {full}]",
        format_size(kept.len() as u64),
        format_size(saved.len() as u64),
        format_size((saved.len() - kept.len()) as u64),
    );
    assert_eq!(text_of(end), format!("{kept}\n\n{notice}"));
    assert_eq!(details["matchCount"], 3000);
    assert_eq!(details["truncation"]["outputLines"], 2000);
    assert_eq!(details["truncation"]["truncatedBy"], "lines");
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
    let dir = install_example(&env, "ssh-like");
    let remote = env.root().join("remote-term");
    std::fs::create_dir_all(&remote).unwrap();
    let pi = env
        .pi()
        .installed(&dir)
        .arg("--remote")
        .arg(&remote)
        .terminal(160, 40);
    // `!pwd` goes through the user_bash hook's Rust operations.
    pi.type_text("!pwd");
    pi.press(Key::Enter);
    pi.wait_for_text(&remote.display().to_string());
    // A model's bash call is drawn by pi's own renderer: `$ command`, then "Took".
    pi.type_text("say hi");
    pi.press(Key::Enter);
    let screen = pi.wait_for_text("All done.");
    assert!(screen.find("$ echo from-the-model").is_some(), "{screen}");
    assert!(screen.find("Took ").is_some(), "{screen}");
    pi.exit();
}
