//! The port of pi 1.6's `prompt-customizer.ts` (`examples/prompt-customizer`)
//! side by side with the TypeScript original over RPC: the same prompts,
//! with pi's four default tools and a skill, then without tools. pi renders
//! the system prompt from the options the hook changed (the
//! `tool_guidance` section, set or deleted) and sends patches of the
//! sections that change; what the model is sent must be the same for both.

use pi_ext_e2e::json::assert_same;
use pi_ext_e2e::{PiEnv, Reply, ScriptedModel};
use serde_json::{json, Value};

/// The messages and tool names of every request one pi sent.
fn sent(requests: &[Value]) -> Value {
    requests
        .iter()
        .map(|r| {
            let tools: Vec<&Value> = r["tools"]
                .as_array()
                .map(|t| t.iter().map(|t| &t["function"]["name"]).collect())
                .unwrap_or_default();
            json!({"messages": r["messages"], "tools": tools})
        })
        .collect()
}

/// One side: a pi with the skill (two prompts), then one without tools.
fn run(env: &PiEnv, model: &ScriptedModel, rust: bool) -> Value {
    let skill = env.cwd().join("skills/demo");
    let ports = [("prompt-customizer.ts", "prompt-customizer")];
    let (builder, _) = pi_ext_e2e::ports_side(env, &ports, rust);
    let pi = builder.arg("--skill").arg(&skill).start();
    model.push_all([Reply::text("one"), Reply::text("two")]);
    pi.prompt("first");
    pi.prompt("second");
    drop(pi);
    let (builder, _) = pi_ext_e2e::ports_side(env, &ports, rust);
    let pi = builder.arg("--no-tools").arg("--no-skills").start();
    model.push(Reply::text("three"));
    pi.prompt("no tools");
    drop(pi);
    sent(
        &model
            .take_recorded()
            .into_iter()
            .map(|r| r.body)
            .collect::<Vec<_>>(),
    )
}

#[test]
fn prompt_customizer_sets_and_deletes_its_section_like_the_original() {
    let model = ScriptedModel::start();
    let env = PiEnv::new(&model);
    env.write_cwd_file(
        "skills/demo/SKILL.md",
        "---\nname: demo\ndescription: A demo skill for the test.\n---\nDo demo things.\n",
    );
    let original = run(&env, &model, false);
    let port = run(&env, &model, true);
    assert_same("what the model was sent", &original, &port);

    // The comparison saw the section at work.
    let all = original.to_string();
    assert!(
        all.contains("<tool_guidance>") || all.contains("tool_guidance"),
        "{all}"
    );
    assert!(all.contains("Use `read` for file contents; it supports text and images."));
    assert!(all.contains("- Available skills: demo."));
    let without = original[2]["messages"].to_string();
    assert!(
        !without.contains("Use `read` for file contents"),
        "{without}"
    );
}
