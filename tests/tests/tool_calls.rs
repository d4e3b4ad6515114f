//! Rust `#[tool]`s inside the real pi (RPC mode, scripted model): calls, invalid
//! arguments, errors, panics, stdout, logs, installs and protocol mismatches.

use std::path::{Path, PathBuf};

use pi_ext_e2e::{example_binary, install_example};
use pi_ext_test::json::{of_type, tool_definition, tool_end, tool_result, ui_requests};
use pi_ext_test::{install_binary, PiEnv, PiRpc, Reply, ScriptedModel, DEFAULT_TIMEOUT};
use serde_json::json;

/// pi with `package` loaded through `-e <its bridge>` (auto-discovery off).
fn pi_with(env: &PiEnv, package: &str) -> (PiRpc, PathBuf) {
    let dir = install_example(env, package);
    let pi = env.pi().installed(&dir).start();
    (pi, dir)
}

/// No warning of any kind on pi's stderr (Ajv/TypeBox format warnings,
/// extension load errors).
fn assert_clean_stderr(pi: &PiRpc) {
    let stderr = pi.stderr();
    let lower = stderr.to_lowercase();
    assert!(
        !lower.contains("warn") && !lower.contains("error") && !lower.contains("unknown format"),
        "pi printed to stderr:\n{stderr}"
    );
}

#[test]
fn model_calls_a_rust_tool_and_sees_its_text() {
    let model = ScriptedModel::start();
    model.push(Reply::tool("call_greet_1", "greet", json!({"name": "Ada"})));
    model.push(Reply::text("Greeted."));
    let env = PiEnv::new(&model);
    let (pi, _) = pi_with(&env, "hello");

    let events = pi.prompt("Please greet Ada");
    let end = tool_end(&events, "call_greet_1");
    assert_eq!(end["isError"], false);
    let expected = format!("Hello, Ada! (pi runs in {})", env.cwd().display());
    assert_eq!(end["result"]["content"][0]["text"], expected.as_str());

    let requests = model.requests();
    assert_eq!(requests.len(), 2);
    // The tool was offered to the model with its description and schema...
    let def = tool_definition(&requests[0], "greet").expect("greet offered to the model")
        ["function"]
        .clone();
    assert_eq!(def["description"], "Greet someone by name.");
    assert_eq!(def["parameters"]["required"], json!(["name"]));
    // ...and its text came back to the model in the next request.
    assert_eq!(
        tool_result(&requests[1], "call_greet_1").as_deref(),
        Some(expected.as_str())
    );
    assert_clean_stderr(&pi);
}

#[test]
fn an_extension_of_tools_only_loads_its_bridge_at_its_first_call() {
    let model = ScriptedModel::start();
    model.push(Reply::tool("call_greet_1", "greet", json!({"name": "Ada"})));
    model.push(Reply::text("Greeted."));
    let env = PiEnv::new(&model);
    let (pi, dir) = pi_with(&env, "hello");
    // The entry writes bridge.cjs's code cache once it has loaded the bridge
    // (lib/bridge-file.js), before the call it loaded it for runs.
    let caches = || {
        std::fs::read_dir(&dir)
            .unwrap()
            .filter(|e| {
                let name = e.as_ref().unwrap().file_name();
                name.to_string_lossy().ends_with(".v8cache")
            })
            .count()
    };
    assert_eq!(
        caches(),
        0,
        "pi started and its session began without the bridge"
    );
    let events = pi.prompt("Please greet Ada");
    assert_eq!(tool_end(&events, "call_greet_1")["isError"], false);
    assert_eq!(caches(), 1, "the first call loaded the bridge");
    assert_clean_stderr(&pi);
}

#[test]
fn invalid_arguments_are_rejected_by_pi_and_the_tool_does_not_run() {
    let model = ScriptedModel::start();
    model.push(Reply::tool(
        "call_missing",
        "mark",
        json!({"label": "missing"}),
    ));
    model.push(Reply::text("ok"));
    model.push(Reply::tool(
        "call_wrong",
        "mark",
        json!({"label": "wrong", "n": "not a number"}),
    ));
    model.push(Reply::text("ok"));
    model.push(Reply::tool(
        "call_good",
        "mark",
        json!({"label": "good", "n": 7}),
    ));
    model.push(Reply::text("ok"));
    let env = PiEnv::new(&model);
    let (pi, _) = pi_with(&env, "showcase");

    let events = pi.prompt("mark without n");
    assert_eq!(tool_end(&events, "call_missing")["isError"], true);
    let events = pi.prompt("mark with a bad n");
    assert_eq!(tool_end(&events, "call_wrong")["isError"], true);
    let events = pi.prompt("mark properly");
    assert_eq!(tool_end(&events, "call_good")["isError"], false);

    let requests = model.requests();
    let missing = tool_result(&requests[1], "call_missing").unwrap();
    assert!(
        missing.starts_with("Validation failed for tool \"mark\""),
        "{missing}"
    );
    assert!(missing.contains("n"), "{missing}");
    let wrong = tool_result(&requests[3], "call_wrong").unwrap();
    assert!(
        wrong.starts_with("Validation failed for tool \"mark\""),
        "{wrong}"
    );
    // Only the valid call reached the Rust tool.
    let marks = env.cwd().join("marks");
    assert!(!marks.join("missing").exists() && !marks.join("wrong").exists());
    assert_eq!(std::fs::read_to_string(marks.join("good")).unwrap(), "7");
}

#[test]
fn an_err_becomes_an_error_result_with_its_message() {
    let model = ScriptedModel::start();
    model.push(Reply::tool("call_div", "divide", json!({"a": 1, "b": 0})));
    model.push(Reply::text("Sorry."));
    model.push(Reply::tool(
        "call_read",
        "read_text",
        json!({"path": "nope.txt"}),
    ));
    model.push(Reply::text("Sorry."));
    let env = PiEnv::new(&model);
    let (pi, _) = pi_with(&env, "showcase");

    let events = pi.prompt("divide 1 by 0");
    assert_eq!(tool_end(&events, "call_div")["isError"], true);
    let events = pi.prompt("read nope.txt");
    assert_eq!(tool_end(&events, "call_read")["isError"], true);

    let requests = model.requests();
    assert_eq!(
        tool_result(&requests[1], "call_div").as_deref(),
        Some("cannot divide by zero")
    );
    let read = tool_result(&requests[3], "call_read").unwrap();
    assert!(
        read.contains("nope.txt") && read.contains("No such file"),
        "{read}"
    );
}

#[test]
fn a_panicking_tool_gives_an_error_and_the_next_call_works() {
    let model = ScriptedModel::start();
    model.push(Reply::tool("call_bug", "buggy", json!({"input": "x"})));
    model.push(Reply::text("It crashed."));
    model.push(Reply::tool("call_div", "divide", json!({"a": 9, "b": 3})));
    model.push(Reply::text("3."));
    let env = PiEnv::new(&model);
    let (pi, dir) = pi_with(&env, "showcase");

    let events = pi.prompt("run the buggy tool");
    let end = tool_end(&events, "call_bug");
    assert_eq!(end["isError"], true);
    let text = end["result"]["content"][0]["text"].as_str().unwrap();
    assert!(
        text.contains("panicked") && text.contains("buggy tool crashed"),
        "{text}"
    );

    let events = pi.prompt("divide 9 by 3");
    let end = tool_end(&events, "call_div");
    assert_eq!(end["isError"], false);
    assert_eq!(end["result"]["content"][0]["text"], "3");
    // The panic message went to the extension's log, not to pi's output.
    let log = std::fs::read_to_string(dir.join("showcase.log")).unwrap();
    assert!(log.contains("buggy tool crashed"), "{log}");
}

#[test]
fn a_tool_that_prints_to_stdout_still_works() {
    let model = ScriptedModel::start();
    model.push(Reply::tool("call_noisy", "noisy", json!({"word": "hi"})));
    model.push(Reply::text("ok"));
    model.push(Reply::tool(
        "call_noisy2",
        "noisy",
        json!({"word": "again"}),
    ));
    model.push(Reply::text("ok"));
    let env = PiEnv::new(&model);
    let (pi, dir) = pi_with(&env, "showcase");

    for (id, word) in [("call_noisy", "hi"), ("call_noisy2", "again")] {
        let events = pi.prompt("be noisy");
        let end = tool_end(&events, id);
        assert_eq!(end["isError"], false);
        assert_eq!(
            end["result"]["content"][0]["text"],
            format!("still fine: {word}")
        );
    }
    let log = std::fs::read_to_string(dir.join("showcase.log")).unwrap();
    assert!(log.contains("a stray println that must not reach the protocol: hi"));
    assert!(log.contains("fake protocol line"), "{log}");
    assert!(pi.non_json_stdout().is_empty());
}

#[test]
fn tracing_and_log_records_reach_the_log_file_with_levels_and_a_filter() {
    let model = ScriptedModel::start();
    model.push(Reply::tool("call_logs", "logs", json!({"word": "w1"})));
    model.push(Reply::text("ok"));
    let env = PiEnv::new(&model);
    let dir = install_example(&env, "showcase");
    // Debug for the extension's own crate, warnings for everything else.
    let pi = env
        .pi()
        .installed(&dir)
        .env("PI_EXT_LOG", "warn,showcase=debug")
        .start();
    let events = pi.prompt("log something");
    assert_eq!(
        tool_end(&events, "call_logs")["result"]["content"][0]["text"],
        "logged w1"
    );
    assert!(pi.non_json_stdout().is_empty());
    let log = std::fs::read_to_string(dir.join("showcase.log")).unwrap();
    for (line, level) in [
        ("tracing error w1", "ERROR"),
        ("tracing info w1", "INFO"),
        ("tracing debug w1", "DEBUG"),
        ("log warn w1", "WARN"),
    ] {
        let found = log.lines().find(|l| l.contains(line));
        assert!(
            found.is_some_and(|l| l.contains(level)),
            "{line} at {level}: {log}"
        );
    }
    assert!(
        !log.contains("log trace w1"),
        "trace is filtered out: {log}"
    );
}

#[test]
fn a_child_process_reading_stdin_cannot_eat_protocol_input() {
    let model = ScriptedModel::start();
    model.push(Reply::tool("call_child", "child_reads_stdin", json!({})));
    model.push(Reply::text("ok"));
    model.push(Reply::tool("call_div", "divide", json!({"a": 6, "b": 3})));
    model.push(Reply::text("2."));
    let env = PiEnv::new(&model);
    let (pi, _) = pi_with(&env, "showcase");

    // With the protocol pipe as its stdin, `cat` would block (and swallow
    // the next requests) until pi quits.
    let events = pi.prompt("run a child that reads stdin");
    let end = tool_end(&events, "call_child");
    assert_eq!(end["isError"], false, "{end}");
    assert_eq!(
        end["result"]["content"][0]["text"],
        "the child read 0 bytes"
    );
    // The protocol is intact: the next call works.
    let events = pi.prompt("divide 6 by 3");
    let end = tool_end(&events, "call_div");
    assert_eq!(end["isError"], false);
    assert_eq!(end["result"]["content"][0]["text"], "2");
}

#[test]
fn installed_extension_loads_in_plain_pi_without_e() {
    let model = ScriptedModel::start();
    model.push(Reply::tool("call_1", "greet", json!({"name": "Grace"})));
    model.push(Reply::text("Done."));
    let env = PiEnv::new(&model);
    install_example(&env, "hello");
    // Installing twice is safe.
    install_example(&env, "hello");
    // Auto-discovery on, no -e.
    let pi = env.pi().start();
    let events = pi.prompt("greet Grace");
    assert_eq!(tool_end(&events, "call_1")["isError"], false);
    let text = tool_result(&model.requests()[1], "call_1").unwrap();
    assert!(text.starts_with("Hello, Grace!"), "{text}");
}

#[test]
fn install_project_writes_into_dot_pi() {
    let model = ScriptedModel::start();
    model.push(Reply::tool("call_p", "greet", json!({"name": "Lin"})));
    model.push(Reply::text("Done."));
    let env = PiEnv::new(&model);
    let dir = install_binary(&env, &example_binary("hello"), &["--project"]);
    assert_eq!(dir, env.cwd().join(".pi/extensions/hello"));
    assert!(env.cwd().join(".pi/extensions/hello/index.js").is_file());
    assert!(!env.extensions_dir().join("hello").exists());
    // pi 0.79+ loads a project's `.pi/extensions` only in a trusted project (`--approve`).
    let pi = env.pi().trust_project().start();
    let events = pi.prompt("greet Lin");
    assert_eq!(tool_end(&events, "call_p")["isError"], false);
}

#[test]
fn structured_params_validate_in_pi_without_warnings() {
    let model = ScriptedModel::start();
    let order = json!({
        "to": {"street": "1 Main St", "city": "Oslo"},
        "speed": "express",
        "parcels": 2,
        "items": ["book", "lamp"]
    });
    model.push(Reply::tool("call_ship", "ship", order));
    model.push(Reply::text("Shipped."));
    model.push(Reply::tool(
        "call_bad_enum",
        "ship",
        json!({"to": {"street": "x", "city": "y"}, "speed": "teleport", "parcels": 1, "items": []}),
    ));
    model.push(Reply::text("No."));
    model.push(Reply::tool(
        "call_negative",
        "ship",
        json!({"to": {"street": "x", "city": "y"}, "speed": "economy", "parcels": -1, "items": [], "note": "fragile"}),
    ));
    model.push(Reply::text("No."));
    let env = PiEnv::new(&model);
    let (pi, _) = pi_with(&env, "showcase");

    let events = pi.prompt("ship it");
    let end = tool_end(&events, "call_ship");
    assert_eq!(end["isError"], false);
    assert_eq!(
        end["result"]["content"][0]["text"],
        "shipping 2 parcel(s) of [book, lamp] to 1 Main St, Oslo by Express"
    );
    assert_eq!(end["result"]["details"], json!({"parcels": 2}));

    // The schema pi sent the model is the portable one.
    let schema =
        tool_definition(&model.requests()[0], "ship").unwrap()["function"]["parameters"].clone();
    let text = schema.to_string();
    for banned in [
        "$ref",
        "$schema",
        "definitions",
        "nullable",
        "\"null\"",
        "oneOf",
        "anyOf",
        "format",
    ] {
        assert!(!text.contains(banned), "{banned} in {text}");
    }
    assert_eq!(
        schema["properties"]["speed"]["enum"],
        json!(["economy", "express"])
    );
    assert_eq!(
        schema["required"],
        json!(["to", "speed", "parcels", "items"])
    );

    // pi's validator enforces the enum and the u32 bounds.
    let events = pi.prompt("ship by teleport");
    assert_eq!(tool_end(&events, "call_bad_enum")["isError"], true);
    let events = pi.prompt("ship -1 parcels");
    assert_eq!(tool_end(&events, "call_negative")["isError"], true);
    let requests = model.requests();
    for (req, id) in [
        (&requests[3], "call_bad_enum"),
        (&requests[5], "call_negative"),
    ] {
        let text = tool_result(req, id).unwrap();
        assert!(text.starts_with("Validation failed"), "{text}");
    }
    assert_clean_stderr(&pi);
}

#[test]
fn a_crashed_extension_process_fails_the_call_and_is_restarted() {
    let model = ScriptedModel::start();
    model.push(Reply::tool("call_crash", "crash", json!({"code": 3})));
    model.push(Reply::text("It died."));
    model.push(Reply::tool("call_div", "divide", json!({"a": 8, "b": 2})));
    model.push(Reply::text("4."));
    let env = PiEnv::new(&model);
    let (pi, _) = pi_with(&env, "showcase");

    let events = pi.prompt("crash");
    let end = tool_end(&events, "call_crash");
    assert_eq!(end["isError"], true);
    let text = end["result"]["content"][0]["text"].as_str().unwrap();
    assert!(text.contains("extension process exited (code 3)"), "{text}");

    let events = pi.prompt("divide 8 by 2");
    let end = tool_end(&events, "call_div");
    assert_eq!(end["isError"], false);
    assert_eq!(end["result"]["content"][0]["text"], "4");
    assert!(pi.exit_status().is_none(), "pi must keep running");
}

/// Rewrite the installed entry (`index.js`), e.g. to simulate a stale or broken install.
fn patch_bridge(dir: &Path, from: &str, to: &str) {
    patch_file(&dir.join("index.js"), from, to);
}

/// Rewrite one installed file.
fn patch_file(path: &Path, from: &str, to: &str) {
    let src = std::fs::read_to_string(path).unwrap();
    assert!(src.contains(from), "{} has no `{from}`", path.display());
    std::fs::write(path, src.replacen(from, to, 1)).unwrap();
}

#[test]
fn a_broken_install_is_reported_and_pi_keeps_working() {
    let model = ScriptedModel::start();
    model.push(Reply::text("Hi."));
    let env = PiEnv::new(&model);
    let missing = install_example(&env, "hello");
    patch_bridge(&missing, "\"binary\":\"", "\"binary\":\"/nonexistent");

    let pi = env.pi().start();
    let notes = ui_requests(&pi.events(), "notify")
        .into_iter()
        .map(|r| r["message"].as_str().unwrap_or_default().to_string())
        .collect::<Vec<_>>();
    assert!(
        notes
            .iter()
            .any(|n| n.contains("\"hello\" failed to start")),
        "{notes:?}"
    );
    // pi still answers and runs prompts.
    let events = pi.prompt("hello?");
    assert!(!of_type(&events, "agent_end").is_empty());
    assert!(pi.exit_status().is_none());
}

#[test]
fn a_protocol_version_mismatch_is_reported_clearly() {
    let model = ScriptedModel::start();
    let env = PiEnv::new(&model);
    let dir = install_example(&env, "hello");
    // An entry from a newer pi-ext than the binary (its code, beside index.js).
    let ours = pi_ext::protocol::PROTOCOL_VERSION;
    let newer = ours + 1;
    patch_file(
        &dir.join("entry.cjs"),
        &format!("const PROTOCOL = {ours};"),
        &format!("const PROTOCOL = {newer};"),
    );

    let pi = env.pi().start();
    let note = pi.wait_event(
        |e| e["method"] == "notify" && e["message"].as_str().unwrap_or("").contains("mismatch"),
        DEFAULT_TIMEOUT,
    );
    let message = note["message"].as_str().unwrap();
    assert!(
        message.contains(&format!("bridge speaks {newer}")) && message.contains("install"),
        "{message}"
    );
    assert_eq!(note["notifyType"], "error");
}

#[test]
fn a_tool_only_extension_built_without_the_optional_parts_runs_in_pi() {
    // examples/word-count: `pi-ext` with `default-features = false`.
    let bin = pi_ext_e2e::lean_binary("word-count");
    let model = ScriptedModel::start();
    let env = PiEnv::new(&model);
    std::fs::write(env.cwd().join("notes.txt"), "one two\nthree\n").unwrap();
    model.push(Reply::tool(
        "call_wc_1",
        "word_count",
        json!({"path": "notes.txt"}),
    ));
    model.push(Reply::text("Counted."));
    let dir = install_binary(&env, &bin, &[]);
    // Its bridge has none of the optional parts' JavaScript (the terminal
    // UI's views, providers, streamed JSON), only their stand-ins.
    let bridge = std::fs::read_to_string(dir.join("bridge.cjs")).unwrap();
    let full = std::fs::read_to_string(install_example(&env, "hello").join("bridge.cjs")).unwrap();
    for part in [
        "function renderView(",
        "class ProviderStream",
        "class StreamingJson",
        "function bashOperations(",
    ] {
        assert!(full.contains(part), "the full bridge has {part}");
        assert!(!bridge.contains(part), "the tool-only bridge has {part}");
    }
    assert!(
        bridge.len() * 2 < full.len() + full.len() / 2,
        "tool-only {} bytes, full {}",
        bridge.len(),
        full.len()
    );
    let pi = env.pi().installed(&dir).start();

    let events = pi.prompt("Count the words of notes.txt");
    let end = tool_end(&events, "call_wc_1");
    assert_eq!(end["isError"], false, "{end}");
    assert_eq!(
        end["result"]["content"][0]["text"],
        "notes.txt: 2 lines, 3 words, 14 bytes"
    );
    assert_clean_stderr(&pi);

    // A request of a part it was built without is answered with the feature's name.
    let mut child = std::process::Command::new(&bin)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    {
        use std::io::{BufRead, Write};
        let mut stdin = child.stdin.take().unwrap();
        writeln!(
            stdin,
            r#"{{"id":1,"method":"initialize","params":{{"protocol":2,"mode":"rpc"}}}}"#
        )
        .unwrap();
        writeln!(stdin, r#"{{"id":2,"method":"render/tool","params":{{}}}}"#).unwrap();
        // At the end of its input the process answers what it read and exits.
        drop(stdin);
        let answer = std::io::BufReader::new(child.stdout.take().unwrap())
            .lines()
            .map_while(Result::ok)
            .filter_map(|l| serde_json::from_str::<serde_json::Value>(&l).ok())
            .find(|m| m["id"] == 2)
            .expect("an answer to render/tool");
        let message = answer["error"]["message"].as_str().unwrap_or_default();
        assert!(message.contains("Cargo feature `tui`"), "{answer}");
    }
    child.wait().unwrap();

    // `pack` is the `pack` feature's: the binary says which feature it lacks.
    let out = std::process::Command::new(&bin)
        .args(["pack", "out"])
        .output()
        .unwrap();
    assert!(!out.status.success());
    let said = String::from_utf8_lossy(&out.stderr);
    assert!(
        said.contains("without pi-ext's Cargo feature `pack`"),
        "{said}"
    );
}

#[test]
fn the_model_is_offered_the_tools_in_declaration_order() {
    let model = ScriptedModel::start();
    model.push(Reply::text("ok"));
    let env = PiEnv::new(&model);
    let (pi, _) = pi_with(&env, "showcase");
    pi.prompt("which tools do you have?");
    let requests = model.requests();
    let names: Vec<&str> = requests[0]["tools"]
        .as_array()
        .expect("the model was offered tools")
        .iter()
        .filter_map(|t| t["function"]["name"].as_str())
        .filter(|n| !pi_ext::registry::BUILTIN_TOOLS.contains(n))
        .collect();
    // examples/showcase's `#[tool]`s as written, not by name.
    assert_eq!(
        names,
        [
            "ship",
            "divide",
            "read_text",
            "buggy",
            "noisy",
            "child_reads_stdin",
            "mark",
            "logs",
            "crash"
        ]
    );
}
