//! A port of pi's `examples/extensions/prompt-customizer.ts`: a
//! `before_agent_start` hook builds guidance from the tools the prompt
//! lists and the loaded skills, and sets it as the `tool_guidance` section
//! of pi's system prompt options (or deletes the section when there is
//! none), so that pi renders the prompt itself and sends only the sections
//! that changed.
use pi_ext::events::{BeforeAgentStart, BeforeAgentStartEvent, SystemPromptChanges};
use pi_ext::prelude::*;
use pi_ext::serde_json::Value;

/// The original's `buildToolGuidance`.
fn tool_guidance(options: &Value) -> String {
    let has = |name: &str| {
        options["selectedTools"]
            .as_array()
            .is_some_and(|tools| tools.iter().any(|t| t == name))
    };
    let mut rules: Vec<String> = Vec::new();
    if has("read") {
        rules.push("- Use `read` for file contents; it supports text and images.".into());
        rules.push("- For large files, use `offset` and `limit` to read in chunks.".into());
    }
    if has("bash") {
        rules.push("- Use `bash` for file operations such as `ls`, `find`, and `grep`.".into());
    }
    if has("edit") {
        rules.push(
            "- Use `edit` for precise text replacements that match existing content exactly."
                .into(),
        );
    }
    if has("write") {
        rules
            .push("- Use `write` to create new files or replace existing files completely.".into());
    }
    if let Some(skills) = options["skills"].as_array().filter(|s| !s.is_empty()) {
        let names: Vec<&str> = skills
            .iter()
            .map(|s| s["name"].as_str().unwrap_or("undefined"))
            .collect();
        rules.push(format!("- Available skills: {}.", names.join(", ")));
    }
    rules.join("\n")
}

/// Set (or delete) the `tool_guidance` section.
#[hook]
async fn guidance(event: BeforeAgentStartEvent) -> BeforeAgentStart {
    let text = tool_guidance(&event.system_prompt_options);
    let changes = if text.is_empty() {
        SystemPromptChanges::default().remove_section("tool_guidance")
    } else {
        SystemPromptChanges::default().section("tool_guidance", text)
    };
    BeforeAgentStart {
        system_prompt_options: Some(changes),
        ..Default::default()
    }
}

#[extension(name = "prompt-customizer")]
struct PromptCustomizer;

pi_ext::main!();
