//! Every example extension, as its manifest describes it: none shadows one
//! of pi's built-in tools (an accidental `edit` broke the model's real file
//! edits), and every schema is one pi accepts.

use std::process::Command;

use pi_ext_e2e::{example_binary, repo_root, PiEnv, ScriptedModel};
use serde_json::Value;

/// pi's built-in tool names, from the real pi's `--help`.
fn builtin_tools() -> Vec<String> {
    let model = ScriptedModel::start();
    let env = PiEnv::new(&model);
    let out = env
        .pi()
        .no_extensions()
        .command(&["--help"])
        .output()
        .expect("running pi --help");
    // pi prints its help on stdout or stderr depending on the terminal.
    let help = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    let section = help
        .split("Built-in Tool Names:")
        .nth(1)
        .unwrap_or_else(|| panic!("pi --help lists no built-in tools:\n{help}"));
    let names: Vec<String> = section
        .lines()
        .skip(1)
        .take_while(|l| !l.trim().is_empty())
        .filter_map(|l| l.split_whitespace().next())
        .map(|s| {
            // Strip any terminal styling around the name.
            s.trim_matches(|c: char| !c.is_ascii_alphanumeric() && c != '_' && c != '-')
                .to_string()
        })
        .collect();
    assert!(names.contains(&"edit".to_string()), "{names:?}");
    names
}

/// Every example and test-extension crate with a binary.
fn example_binaries() -> Vec<String> {
    let mut names: Vec<String> = ["examples", "tests/extensions"]
        .iter()
        .flat_map(|dir| std::fs::read_dir(repo_root().join(dir)).unwrap())
        .filter_map(|e| e.ok())
        .filter(|e| e.path().join("src/main.rs").is_file())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    assert!(names.len() >= 10, "{names:?}");
    names
}

#[test]
fn no_example_shadows_a_builtin_tool() {
    let builtins = builtin_tools();
    assert_eq!(
        builtins,
        pi_ext::registry::BUILTIN_TOOLS,
        "pi-ext's list of built-in tools is out of date"
    );
    for package in example_binaries() {
        let out = Command::new(example_binary(&package))
            .arg("--pi-manifest")
            .output()
            .unwrap();
        assert!(out.status.success(), "{package} --pi-manifest failed");
        let manifest: Value = serde_json::from_slice(&out.stdout).unwrap();
        for tool in manifest["tools"].as_array().unwrap() {
            let name = tool["name"].as_str().unwrap();
            // The one replacement on purpose (`overrides_builtin`): the port
            // of pi's tool-override.ts.
            let meant = package == "tool-override" && name == "read";
            assert!(
                meant || !builtins.iter().any(|b| b == name),
                "example `{package}` registers `{name}`, replacing pi's built-in tool"
            );
        }
    }
}
