//! The main job: the `hello` example extension working inside a real pi.
//!
//! Installs `target/debug/hello` with its own `install` command into an
//! isolated pi agent directory, starts the pinned pi (which discovers it with
//! no `-e` flag), sends a prompt, and prints what happened. A scripted model
//! on 127.0.0.1 plays the LLM unless `PI_EXT_DEMO_REAL=1`, in which case pi
//! runs in print mode with your own configuration and API key.

use std::process::{Command, ExitCode};

use pi_ext_e2e::json::{final_assistant_text, of_type, tool_result};
use pi_ext_e2e::{example_binary, pi_cli, pi_node, PiEnv, Reply, ScriptedModel};
use serde_json::json;

const PROMPT: &str = "Please greet Ada with the greet tool.";

fn main() -> ExitCode {
    let hello = example_binary("hello");
    if std::env::var_os("PI_EXT_DEMO_REAL").is_some_and(|v| v == "1") {
        return real(&hello);
    }

    println!(
        "== pi-ext demo: the `hello` Rust extension inside pi {}",
        pi_ext_e2e::PI_VERSION
    );
    println!("   (no PI_EXT_DEMO_REAL=1: a scripted model on 127.0.0.1 plays the LLM)\n");
    let model = ScriptedModel::start();
    model.push(Reply::tool("call_greet_1", "greet", json!({"name": "Ada"})));
    model.push(Reply::text("I greeted Ada for you."));
    let env = PiEnv::new(&model);

    let out = Command::new(&hello)
        .arg("install")
        .env("HOME", env.home())
        .env("PI_CODING_AGENT_DIR", env.agent_dir())
        .output()
        .expect("running hello install");
    println!("$ {} install", hello.display());
    print!("{}", String::from_utf8_lossy(&out.stdout));
    if !out.status.success() {
        eprintln!("{}", String::from_utf8_lossy(&out.stderr));
        return ExitCode::FAILURE;
    }

    println!("\n$ pi --mode rpc   (extension auto-discovered, no -e)");
    let pi = env.pi().start();
    println!("> {PROMPT}");
    let events = pi.prompt(PROMPT);
    for e in &events {
        match e["type"].as_str() {
            Some("tool_execution_start") => {
                println!(
                    "  model calls tool `{}` with {}",
                    e["toolName"].as_str().unwrap_or("?"),
                    e["args"]
                )
            }
            Some("tool_execution_end") => println!(
                "  Rust tool answered{}: {}",
                if e["isError"] == true { " (error)" } else { "" },
                e["result"]["content"][0]["text"]
            ),
            _ => {}
        }
    }
    let requests = model.requests();
    let seen = requests
        .get(1)
        .and_then(|r| tool_result(r, "call_greet_1"))
        .unwrap_or_default();
    println!("  the model received the tool result: {seen:?}");
    println!("< {}", final_assistant_text(&events));

    let ok = of_type(&events, "tool_execution_end")
        .first()
        .is_some_and(|e| e["isError"] == false)
        && seen.starts_with("Hello, Ada!");
    if ok {
        println!("\ndemo OK: a Rust #[tool] ran inside a real pi session");
        ExitCode::SUCCESS
    } else {
        eprintln!("\ndemo FAILED\n{}", pi.diagnostics());
        ExitCode::FAILURE
    }
}

/// Print mode with the user's own pi configuration (their model and key).
fn real(hello: &std::path::Path) -> ExitCode {
    let dir = tempfile::tempdir().expect("temp dir");
    let status = Command::new(hello)
        .args(["install", "--dir"])
        .arg(dir.path())
        .status()
        .expect("running hello install");
    if !status.success() {
        return ExitCode::FAILURE;
    }
    let bridge = dir.path().join("hello").join("index.js");
    println!("$ pi -e {} -p {PROMPT:?}", bridge.display());
    let status = Command::new(pi_node())
        .arg(pi_cli())
        .arg("-e")
        .arg(&bridge)
        .args(["-p", PROMPT])
        .status()
        .expect("running pi");
    if status.success() {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}
