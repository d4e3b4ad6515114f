//! Extensions as crates inside the real pi: dependency order, failures that
//! do not take pi down, settings, hot reload, process hygiene, packaging.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Mutex;

use pi_ext_e2e::json::{notifications, tool_result};
use pi_ext_e2e::{
    example_binary, example_target, install_binary, pi_cli, repo_root, wait_until, PiEnv, PiRpc,
    Reply, ScriptedModel, DEFAULT_TIMEOUT,
};
use serde_json::{json, Value};

/// `target/debug/greeter` is rebuilt with different contents by the hot
/// reload test: every use of it in this file copies it under this lock.
static GREETER: Mutex<()> = Mutex::new(());

/// A private copy of an example binary (so later rebuilds cannot change it).
fn copy_of(package: &str, env: &PiEnv) -> PathBuf {
    let _guard = GREETER.lock().unwrap_or_else(|e| e.into_inner());
    let built = example_binary(package);
    let copy = env.root().join(format!("bin-{package}"));
    std::fs::copy(&built, &copy).unwrap();
    copy
}

fn greet(pi: &PiRpc, model: &ScriptedModel, id: &str, name: &str) -> String {
    model.push(Reply::tool(id, "greet_person", json!({ "name": name })));
    model.push(Reply::text("ok"));
    pi.prompt("greet");
    tool_result(model.requests().last().unwrap(), id).expect("the greeting reached the model")
}

#[test]
fn extensions_load_in_dependency_order_and_share_state() {
    let model = ScriptedModel::start();
    let env = PiEnv::new(&model);
    let trace = env.root().join("trace.txt");
    let dir = install_binary(&env, &example_binary("host"), &[]);
    let pi = env
        .pi()
        .installed(&dir)
        .env("PI_EXT_EXAMPLE_TRACE", &trace)
        .start();
    let text = std::fs::read_to_string(&trace).unwrap();
    assert_eq!(
        text.lines().collect::<Vec<_>>(),
        ["load greeter", "load audit", "hook greeter", "hook audit"]
    );
    assert!(greet(&pi, &model, "g1", "Ada").starts_with("Hello, Ada."));
    model.push(Reply::tool("a1", "audit_greetings", json!({})));
    model.push(Reply::text("ok"));
    pi.prompt("audit");
    assert_eq!(
        tool_result(model.requests().last().unwrap(), "a1").as_deref(),
        Some("greeter has greeted 1 time(s)")
    );
    // Names, versions and dependencies are in the manifest.
    let out = Command::new(example_binary("host"))
        .arg("--pi-manifest")
        .output()
        .unwrap();
    let manifest: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(manifest["extensions"][1]["name"], "audit");
    assert_eq!(manifest["extensions"][1]["version"], "0.1.0");
    assert_eq!(
        manifest["extensions"][1]["dependencies"],
        json!(["greeter"])
    );
}

#[test]
fn cycles_and_missing_dependencies_are_reported_and_the_rest_loads() {
    let model = ScriptedModel::start();
    let env = PiEnv::new(&model);
    let dir = install_binary(&env, &example_binary("broken-host"), &[]);
    let pi = env.pi().installed(&dir).start();
    let all = notifications(&pi.events()).join("\n");
    assert!(all.contains("`broken-host` depends on `nowhere`"), "{all}");
    assert!(
        all.contains("dependency cycle among `cycle-a`, `cycle-b`"),
        "{all}"
    );
    assert!(greet(&pi, &model, "g1", "Lin").starts_with("Hello, Lin."));
    let tools = pi_ext_e2e::json::tool_names(&model.requests()[0]);
    assert!(tools.contains(&"greet_person".to_string()));
    assert!(
        !tools
            .iter()
            .any(|t| t.starts_with("cycle") || t == "broken_tool"),
        "{tools:?}"
    );
    assert!(pi.exit_status().is_none());
}

#[test]
fn a_failed_on_load_is_reported_and_its_tools_answer_why() {
    // The bridge registers the tools from the manifest `install` recorded
    // before the process runs; the failure only shows when it loads.
    let model = ScriptedModel::start();
    let env = PiEnv::new(&model);
    let dir = install_binary(&env, &example_binary("host"), &[]);
    let pi = env
        .pi()
        .installed(&dir)
        .env("GREETER_FAIL_LOAD", "for the test")
        .start();
    let failed = "extension `greeter` failed to load: GREETER_FAIL_LOAD is set (for the test)";
    wait_until("the load failure notice", || {
        notifications(&pi.events()).join("\n").contains(failed)
    });
    let all = notifications(&pi.events()).join("\n");
    assert!(
        all.contains("extension `audit` was not loaded: its dependency `greeter` failed"),
        "{all}"
    );
    let text = greet(&pi, &model, "g1", "Ada");
    assert!(
        text.contains("tool greet_person is not available") && text.contains(failed),
        "{text}"
    );
    assert!(pi.exit_status().is_none());
}

#[test]
fn a_binary_changed_after_install_is_asked_for_its_manifest() {
    let model = ScriptedModel::start();
    let env = PiEnv::new(&model);
    let bin = env.root().join("bin-changing");
    std::fs::copy(example_binary("hello"), &bin).unwrap();
    let dir = install_binary(&env, &bin, &[]);
    // Another binary in its place: the recorded manifest (hello's) is stale.
    std::fs::copy(example_binary("host"), &bin).unwrap();
    let pi = env.pi().installed(&dir).start();
    assert!(greet(&pi, &model, "g1", "Ada").starts_with("Hello, Ada."));
    let tools = pi_ext_e2e::json::tool_names(&model.requests()[0]);
    assert!(!tools.contains(&"hello".to_string()), "{tools:?}");
    let log = std::fs::read_to_string(dir.join("hello.log")).unwrap();
    assert!(log.contains("changed since it was installed"), "{log}");
}

fn settings_file(env: &PiEnv, project: bool) -> PathBuf {
    if project {
        env.cwd().join(".pi/pi-ext/settings/greeter.json")
    } else {
        env.agent_dir().join("pi-ext/settings/greeter.json")
    }
}

fn write(path: &Path, text: &str) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

#[test]
fn settings_defaults_merge_and_invalid_values() {
    let model = ScriptedModel::start();
    let env = PiEnv::new(&model);
    let bin = copy_of("greeter", &env);
    let dir = install_binary(&env, &bin, &[]);

    // Defaults.
    let pi = env.pi().installed(&dir).start();
    assert_eq!(
        greet(&pi, &model, "d1", "Ada"),
        "Hello, Ada. (greeting #1, build v1)"
    );
    drop(pi);

    // Global, then project on top.
    write(
        &settings_file(&env, false),
        r#"{"greeting": "Hi", "repeat": 2, "style": "plain"}"#,
    );
    write(&settings_file(&env, true), r#"{"style": "excited"}"#);
    let pi = env.pi().installed(&dir).start();
    assert_eq!(
        greet(&pi, &model, "m1", "Ada"),
        "Hi, Ada! Hi, Ada! (greeting #1, build v1)"
    );
    // Settings problems are reported as soon as the process has started,
    // which a tool call waits for: none by now means none at all.
    assert!(notifications(&pi.events())
        .iter()
        .all(|n| !n.contains("settings")));
    // Broken while pi runs: the next read shows it on screen, once.
    write(
        &settings_file(&env, false),
        r#"{"greeting": "Hi", "repeat": 9}"#,
    );
    let broken = |pi: &PiRpc| -> Vec<String> {
        notifications(&pi.events())
            .into_iter()
            .filter(|n| n.contains("greeter settings:") && n.contains("\"repeat\""))
            .collect()
    };
    assert_eq!(
        greet(&pi, &model, "m2", "Ada"),
        "Hi, Ada! (greeting #2, build v1)"
    );
    wait_until("the new settings problem", || !broken(&pi).is_empty());
    assert!(
        broken(&pi)[0].contains("9 is above the maximum 5"),
        "{:?}",
        broken(&pi)
    );
    greet(&pi, &model, "m3", "Ada");
    assert_eq!(broken(&pi).len(), 1, "{:?}", broken(&pi));
    drop(pi);

    // Every kind of invalid value: pi starts, the user is told which key and
    // why, valid values are used and defaults fill the rest.
    write(
        &settings_file(&env, false),
        r#"{"greeting": "Hey", "repeat": 9, "style": "loud", "shout": "yes", "colour": "red"}"#,
    );
    write(&settings_file(&env, true), r#"{"style": "#);
    let pi = env.pi().installed(&dir).start();
    // Reported when the process has started (pi does not wait for that).
    wait_until("the settings problems", || {
        notifications(&pi.events())
            .join("\n")
            .contains("greeter.json")
    });
    let all = notifications(&pi.events()).join("\n");
    for expected in [
        "\"repeat\"",
        "maximum",
        "\"style\"",
        "\"shout\"",
        "\"colour\"",
        "greeter.json",
    ] {
        assert!(all.contains(expected), "no {expected} in:\n{all}");
    }
    assert_eq!(
        greet(&pi, &model, "i1", "Ada"),
        "Hey, Ada. (greeting #1, build v1)"
    );
}

/// A FIFO at the project's settings file used to block the handshake, and a
/// global one linked to `/dev/zero` to fill the extension's memory: now
/// each is a settings problem on screen, and the defaults are used.
#[cfg(all(unix, not(target_vendor = "apple")))]
#[test]
fn settings_files_that_are_not_regular_files_are_reported_and_skipped() {
    let model = ScriptedModel::start();
    let env = PiEnv::new(&model);
    let bin = copy_of("greeter", &env);
    let dir = install_binary(&env, &bin, &[]);
    let (project, global) = (settings_file(&env, true), settings_file(&env, false));
    for file in [&project, &global] {
        std::fs::create_dir_all(file.parent().unwrap()).unwrap();
    }
    rustix::fs::mkfifoat(
        rustix::fs::CWD,
        &project,
        rustix::fs::Mode::RUSR | rustix::fs::Mode::WUSR,
    )
    .unwrap();
    std::os::unix::fs::symlink("/dev/zero", &global).unwrap();

    let pi = env.pi().installed(&dir).start();
    // The tool call waits for the handshake, which the FIFO used to block.
    assert_eq!(
        greet(&pi, &model, "f1", "Ada"),
        "Hello, Ada. (greeting #1, build v1)"
    );
    wait_until("the settings problems", || {
        notifications(&pi.events())
            .join("\n")
            .contains("not a regular file (a FIFO)")
    });
    let all = notifications(&pi.events()).join("\n");
    assert!(
        all.contains("not a regular file (a character device)"),
        "{all}"
    );
    assert!(pi.exit_status().is_none());
}

#[test]
fn the_settings_command_edits_values_through_dialogs_and_keeps_other_keys() {
    let model = ScriptedModel::start();
    let env = PiEnv::new(&model);
    let bin = copy_of("greeter", &env);
    let dir = install_binary(&env, &bin, &[]);
    let file = settings_file(&env, false);
    write(&file, "{\n  \"repeat\": 2,\n  \"x-note\": \"kept\"\n}\n");

    let pi = env.pi().installed(&dir).start();
    let mark = pi.mark();
    let id = pi.send(json!({"type": "prompt", "message": "/greeter-settings"}));
    // Pick the field…
    let select = pi.wait_ui_request("select", DEFAULT_TIMEOUT);
    let options: Vec<String> = serde_json::from_value(select["options"].clone()).unwrap();
    assert!(
        options.contains(&"Behaviour › repeat = 2".to_string()),
        "{options:?}"
    );
    assert!(
        options.contains(&"Wording › style = plain".to_string()),
        "{options:?}"
    );
    pi.answer_ui(
        select["id"].as_str().unwrap(),
        json!({"value": "Wording › greeting = Hello"}),
    );
    // …the input shows the current value; Enter on it empty keeps it…
    let input = pi.wait_ui_request("input", DEFAULT_TIMEOUT);
    assert_eq!(
        input["title"],
        "greeting: The greeting word. (now \"Hello\"; Enter keeps it)"
    );
    pi.answer_ui(input["id"].as_str().unwrap(), json!({"value": ""}));
    let select = pi.wait_ui_request("select", DEFAULT_TIMEOUT);
    let options: Vec<String> = serde_json::from_value(select["options"].clone()).unwrap();
    assert!(
        options.contains(&"Wording › greeting = Hello".to_string()),
        "{options:?}"
    );
    pi.answer_ui(
        select["id"].as_str().unwrap(),
        json!({"value": "Wording › greeting = Hello"}),
    );
    // …type an invalid value is impossible for a string; set it.
    let input = pi.wait_ui_request("input", DEFAULT_TIMEOUT);
    pi.answer_ui(input["id"].as_str().unwrap(), json!({"value": "Howdy"}));
    // An enum is a select.
    let select = pi.wait_ui_request("select", DEFAULT_TIMEOUT);
    pi.answer_ui(
        select["id"].as_str().unwrap(),
        json!({"value": "Wording › style = plain"}),
    );
    let choice = pi.wait_ui_request("select", DEFAULT_TIMEOUT);
    assert_eq!(choice["options"], json!(["plain", "excited"]));
    pi.answer_ui(choice["id"].as_str().unwrap(), json!({"value": "excited"}));
    // A number is validated against its bounds.
    let select = pi.wait_ui_request("select", DEFAULT_TIMEOUT);
    pi.answer_ui(
        select["id"].as_str().unwrap(),
        json!({"value": "Behaviour › repeat = 2"}),
    );
    let input = pi.wait_ui_request("input", DEFAULT_TIMEOUT);
    pi.answer_ui(input["id"].as_str().unwrap(), json!({"value": "7"}));
    let again = pi.wait_ui_request("input", DEFAULT_TIMEOUT);
    assert!(
        again["title"].as_str().unwrap().contains("maximum"),
        "{again}"
    );
    pi.answer_ui(again["id"].as_str().unwrap(), json!({"value": "3"}));
    // Done.
    let select = pi.wait_ui_request("select", DEFAULT_TIMEOUT);
    pi.answer_ui(select["id"].as_str().unwrap(), json!({"value": "Done"}));
    pi.response(&id, DEFAULT_TIMEOUT);
    assert!(notifications(&pi.events_since(mark))
        .iter()
        .any(|n| n.contains("greeting = Howdy")));

    let saved: Value = serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
    assert_eq!(
        saved,
        json!({"repeat": 3, "x-note": "kept", "greeting": "Howdy", "style": "excited"})
    );
    // The running extension reads the new values at once.
    assert_eq!(
        greet(&pi, &model, "s1", "Ada"),
        "Howdy, Ada! Howdy, Ada! Howdy, Ada! (greeting #1, build v1)"
    );
}

#[test]
fn the_settings_schema_is_printed_for_editors() {
    let out = Command::new(example_binary("host"))
        .arg("--pi-settings-schema")
        .output()
        .unwrap();
    assert!(out.status.success());
    let schema: Value = serde_json::from_slice(&out.stdout).unwrap();
    let props = &schema["properties"];
    assert_eq!(props["greeting"]["default"], "Hello");
    assert_eq!(props["style"]["enum"], json!(["plain", "excited"]));
    assert_eq!(props["repeat"]["minimum"], 1);
    assert_eq!(props["repeat"]["maximum"], 5);
    assert_eq!(props["shout"]["description"], "Upper-case the greeting.");
    let tabs: Vec<&str> = schema["x-tabs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap())
        .collect();
    assert_eq!(tabs, ["Wording", "Behaviour"]);
}

#[test]
fn hot_reload_switches_binaries_and_carries_state_over() {
    let model = ScriptedModel::start();
    let env = PiEnv::new(&model);
    let _guard = GREETER.lock().unwrap_or_else(|e| e.into_inner());
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let build = |flavor: Option<&str>| {
        let mut cmd = Command::new(&cargo);
        cmd.args(["build", "--quiet", "--package", "greeter"])
            .current_dir(repo_root());
        match flavor {
            Some(f) => cmd.env("GREETER_BUILD", f),
            None => cmd.env_remove("GREETER_BUILD"),
        };
        assert!(cmd.status().unwrap().success());
        example_target("greeter")
    };
    let live = env.root().join("greeter-dev");
    std::fs::copy(build(None), &live).unwrap();
    let dir = install_binary(&env, &live, &["--dev"]);
    let pi = env.pi().installed(&dir).start();
    assert_eq!(
        greet(&pi, &model, "h1", "Ada"),
        "Hello, Ada. (greeting #1, build v1)"
    );

    // "cargo build" of a changed tool: a new binary replaces the old file.
    let rebuilt = build(Some("v2"));
    let staged = env.root().join("greeter-dev.new");
    std::fs::copy(&rebuilt, &staged).unwrap();
    std::fs::rename(&staged, &live).unwrap();
    let mark = pi.mark();
    wait_until("the hot reload", || {
        notifications(&pi.events_since(mark))
            .iter()
            .any(|n| n.contains("reloaded \"greeter\""))
    });
    // New output, and the count went on from the old process's snapshot.
    assert_eq!(
        greet(&pi, &model, "h2", "Ada"),
        "Hello, Ada. (greeting #2, build v2)"
    );
    build(None);
}

/// Child processes of `parent` running `exe`.
fn children_running(parent: u32, exe: &Path) -> Vec<u32> {
    let mut found = Vec::new();
    for entry in std::fs::read_dir("/proc").unwrap().flatten() {
        let Ok(pid) = entry.file_name().to_string_lossy().parse::<u32>() else {
            continue;
        };
        let Ok(stat) = std::fs::read_to_string(format!("/proc/{pid}/stat")) else {
            continue;
        };
        // Fields after the command name (which may contain spaces).
        let after = &stat[stat.rfind(')').unwrap() + 2..];
        let ppid: u32 = after.split(' ').nth(1).unwrap().parse().unwrap();
        let same_exe = std::fs::read_link(format!("/proc/{pid}/exe")).is_ok_and(|e| e == exe);
        if ppid == parent && same_exe {
            found.push(pid);
        }
    }
    found
}

fn alive(pid: u32) -> bool {
    // A zombie has exited; only its parent has not reaped it yet.
    std::fs::read_to_string(format!("/proc/{pid}/stat"))
        .is_ok_and(|s| !s[s.rfind(')').unwrap() + 2..].starts_with('Z'))
}

#[test]
fn reload_quit_and_kill_leave_no_stray_processes() {
    let model = ScriptedModel::start();
    let env = PiEnv::new(&model);
    let bin = copy_of("commands", &env);
    let dir = install_binary(&env, &bin, &[]);
    let start = || env.pi().installed(&dir).start();

    // /reload (ctx.reload() from a command): exactly one process afterwards.
    let pi = start();
    let first = children_running(pi.pid(), &bin);
    assert_eq!(first.len(), 1);
    pi.call(json!({"type": "prompt", "message": "/reload-extensions"}));
    wait_until("one fresh extension process", || {
        let now = children_running(pi.pid(), &bin);
        now.len() == 1 && now != first
    });
    assert!(!alive(first[0]) || children_running(pi.pid(), &bin) != first);

    // Quit (stdin closed): no process left.
    let child = children_running(pi.pid(), &bin)[0];
    pi.close_stdin();
    pi.wait_exit(DEFAULT_TIMEOUT);
    wait_until("the extension to exit after pi quit", || !alive(child));

    // SIGKILL: the child sees EOF and exits.
    let pi = start();
    let child = children_running(pi.pid(), &bin)[0];
    let _ = Command::new("kill")
        .args(["-9", &pi.pid().to_string()])
        .status();
    wait_until("the extension to exit after pi was killed", || {
        !alive(child)
    });
}

#[test]
fn pack_makes_a_package_pi_installs() {
    let model = ScriptedModel::start();
    model.push(Reply::tool("p1", "greet", json!({"name": "Pat"})));
    model.push(Reply::text("ok"));
    let env = PiEnv::new(&model);
    let pkg = env.root().join("pkg");
    let out = Command::new(example_binary("hello"))
        .arg("pack")
        .arg(&pkg)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let package: Value =
        serde_json::from_str(&std::fs::read_to_string(pkg.join("package.json")).unwrap()).unwrap();
    assert_eq!(package["pi"]["extensions"], json!(["./index.js"]));
    assert!(package["keywords"]
        .as_array()
        .unwrap()
        .contains(&json!("pi-package")));
    assert!(pkg.join("bin/hello").is_file());

    let status = Command::new(pi_ext_e2e::pi_node())
        .arg(pi_cli())
        .arg("install")
        .arg(&pkg)
        .current_dir(env.cwd())
        .env("HOME", env.home())
        .env("PI_CODING_AGENT_DIR", env.agent_dir())
        .env("PI_OFFLINE", "1")
        .env("PI_TELEMETRY", "0")
        .output()
        .unwrap();
    assert!(
        status.status.success(),
        "{}",
        String::from_utf8_lossy(&status.stderr)
    );
    // Plain pi (discovery on) loads the installed package.
    let pi = env.pi().start();
    pi.prompt("greet Pat");
    let text = tool_result(&model.requests()[1], "p1").unwrap();
    assert!(text.starts_with("Hello, Pat!"), "{text}");
}
