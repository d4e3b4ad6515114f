//! The README's promises: the quickstart is the tested `hello` example, the
//! two set-up commands exist, CI runs the test command, the demo works.

use std::process::Command;

use pi_ext_e2e::repo_root;

fn readme() -> String {
    std::fs::read_to_string(repo_root().join("README.md")).unwrap()
}

/// The body of the first fenced block that starts with `marker`.
fn block_starting_with(text: &str, marker: &str) -> String {
    let start = text
        .find(marker)
        .unwrap_or_else(|| panic!("README has no `{marker}`"));
    let rest = &text[start..];
    rest[..rest.find("```").expect("unterminated code block")].to_string()
}

#[test]
fn quickstart_code_is_the_tested_hello_example() {
    let quickstart = block_starting_with(&readme(), "//! The quickstart extension");
    let example = std::fs::read_to_string(repo_root().join("examples/hello/src/main.rs")).unwrap();
    assert_eq!(
        quickstart, example,
        "README quickstart and examples/hello/src/main.rs differ"
    );
}

#[test]
fn readme_has_the_two_setup_commands_and_ci_runs_the_test_one() {
    let setup = block_starting_with(&readme(), "scripts/demo.sh");
    let commands: Vec<&str> = setup
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| l.split('#').next().unwrap().trim())
        .collect();
    assert_eq!(commands, ["scripts/demo.sh", "scripts/test.sh"]);
    let ci = std::fs::read_to_string(repo_root().join(".ci/run")).unwrap();
    assert!(
        ci.lines().any(|l| l.trim() == "exec scripts/test.sh"),
        "{ci}"
    );
}

#[test]
fn the_demo_shows_the_tool_working_inside_pi() {
    let out = Command::new(env!("CARGO_BIN_EXE_demo"))
        .env_remove("PI_EXT_DEMO_REAL")
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "demo failed:\n{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        stdout.contains("model calls tool `greet` with {\"name\":\"Ada\"}"),
        "{stdout}"
    );
    assert!(
        stdout.contains("Rust tool answered: \"Hello, Ada!"),
        "{stdout}"
    );
    assert!(stdout.contains("demo OK"), "{stdout}");
}
