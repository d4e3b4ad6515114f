//! pi 1.6's context members and tool definition fields from Rust
//! (issue 21, item 4), in one RPC run of the real pi with
//! `tests/extensions/tool-context`: `Ctx::execute_tool` on a built-in, a codemode
//! and an inactive tool, `Ctx::tools`, the nesting bound, structured
//! output (`#[tool(output = T)]`), `prepare_arguments`, exposure,
//! `default_active`, annotations, namespaces, `reaches_all_tools`, the
//! `ctx.*` members a command reads, `pi.getSettings()` and
//! `sendUserMessage`'s `expandPromptTemplates`.

use pi_ext_e2e::json::{notifications, of_type, tool_end, tool_end_text};
use pi_ext_e2e::{install_example, PiEnv, Reply, ScriptedModel, ToolCall, DEFAULT_TIMEOUT};
use serde_json::{json, Value};

/// The calls of the model's one tool batch: id, tool, arguments.
fn batch() -> Vec<ToolCall> {
    let relay = |id: &str, tool: &str, args: Value| {
        ToolCall::new(id, "relay", json!({"tool": tool, "args": args.to_string()}))
    };
    vec![
        relay("via_add", "add", json!({"a": 2, "b": 3})),
        relay("via_multiply", "multiply", json!({"a": 4, "b": 5})),
        relay("via_dormant", "dormant", json!({})),
        relay("via_read", "read", json!({"path": "listed.txt"})),
        ToolCall::new("read_direct", "read", json!({"path": "listed.txt"})),
        ToolCall::new("add_legacy", "add", json!({"x": 2, "y": 3})),
        ToolCall::new("add_refused", "add", json!({"fail": true})),
        ToolCall::new("deep", "recurse", json!({})),
        ToolCall::new("reachable", "callable", json!({})),
    ]
}

/// The JSON a relay call reported.
fn relayed(events: &[Value], id: &str) -> Value {
    let text = tool_end_text(events, id);
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{id}: {e}: {text}"))
}

#[test]
fn tools_run_tools_and_context_members_reach_rust_in_pi_1_6() {
    let model = ScriptedModel::start();
    let env = PiEnv::new(&model);
    let enabled = json!(["fake/fake-model"]);
    env.edit_settings(|s| {
        s["theme"] = json!("light");
        s["enabledModels"] = enabled.clone();
        s["hideThinkingBlock"] = json!(true);
    });
    env.write_cwd_file("listed.txt", "to be read");
    let dir = install_example(&env, "tool-context");
    let pi = env.pi().installed(&dir).start();

    // ctx.* and pi.getSettings() in a command.
    let shown = notifications(&pi.command_line("/ctx-facts"));
    let facts: Value = serde_json::from_str(shown.first().expect("/ctx-facts notified"))
        .unwrap_or_else(|e| panic!("{e}: {shown:?}"));
    assert_eq!(facts["mode"], "rpc", "{facts:#}");
    let state = pi.call(json!({"type": "get_state"}));
    assert_eq!(facts["thinkingLevel"], state["thinkingLevel"], "{facts:#}");
    assert_eq!(
        facts["thinkingLevel"], facts["apiThinkingLevel"],
        "{facts:#}"
    );
    assert!(facts["trusted"].is_boolean(), "{facts:#}");
    let scoped: Vec<Value> = facts["scoped"]
        .as_array()
        .unwrap_or_else(|| panic!("{facts:#}"))
        .iter()
        .map(|s| s["model"].clone())
        .collect();
    assert_eq!(Value::from(scoped), enabled, "{facts:#}");
    let settings = &facts["settings"];
    assert_eq!(settings["theme"], "light", "{facts:#}");
    assert_eq!(settings["enabledModels"], enabled, "{facts:#}");
    assert_eq!(settings["extra"]["hideThinkingBlock"], true, "{facts:#}");
    let cwd = facts["promptOptions"]["cwd"].as_str().unwrap_or_default();
    assert_eq!(
        std::fs::canonicalize(cwd).ok(),
        std::fs::canonicalize(env.cwd()).ok(),
        "{facts:#}"
    );
    // ctx.tools is a tool call's: a command gets the reason.
    assert!(
        facts["tools"]["error"]
            .as_str()
            .is_some_and(|e| e.contains("only available to tools")),
        "{facts:#}"
    );
    // What pi keeps of the definition fields (pi.getAllTools()).
    let all = facts["allTools"].as_array().cloned().unwrap_or_default();
    let tool = |name: &str| {
        all.iter()
            .find(|t| t["name"] == name)
            .cloned()
            .unwrap_or_else(|| panic!("{name} not in {all:#?}"))
    };
    assert_eq!(
        tool("add")["annotations"],
        json!({"readOnlyHint": true, "idempotentHint": true})
    );
    assert_eq!(tool("add")["namespace"], json!({"name": "math"}));
    assert_eq!(tool("add")["exposure"], "direct");
    assert_eq!(tool("multiply")["exposure"], "codemode");
    assert_eq!(tool("relay")["reachesTools"], true);
    assert_eq!(tool("add")["reachesTools"], false);

    // One batch of tool calls.
    let before = model.request_count();
    model.push(Reply::tools(batch()));
    model.push(Reply::text("done"));
    let events = pi.prompt("use the tools");
    let requests = model.wait_requests(before + 1, DEFAULT_TIMEOUT);
    let mut declared: Vec<String> = requests[before]["tools"]
        .as_array()
        .cloned()
        .unwrap_or_default()
        .iter()
        .filter_map(|t| t["function"]["name"].as_str().map(String::from))
        .collect();
    declared.sort();
    // A codemode and an inactive tool are not declared to the model; the
    // system prompt's options name the declared ones.
    assert!(declared.contains(&"add".to_string()), "{declared:?}");
    assert!(!declared.contains(&"multiply".to_string()), "{declared:?}");
    assert!(!declared.contains(&"dormant".to_string()), "{declared:?}");
    let mut selected: Vec<String> =
        serde_json::from_value(facts["promptOptions"]["selectedTools"].clone()).unwrap_or_default();
    selected.sort();
    assert_eq!(selected, declared);

    // execute_tool: a Rust tool with a structured result, typed back.
    let add = relayed(&events, "via_add");
    assert_eq!(add["isError"], false, "{add:#}");
    assert_eq!(add["structured"], json!({"total": 5}), "{add:#}");
    assert_eq!(add["typedTotal"], 5, "{add:#}");
    assert!(
        add["id"]
            .as_str()
            .is_some_and(|id| id.starts_with("via_add/")),
        "{add:#}"
    );
    // A codemode tool is callable; an inactive one is not.
    let multiply = relayed(&events, "via_multiply");
    assert_eq!(
        (&multiply["isError"], &multiply["text"]),
        (&json!(false), &json!("20"))
    );
    assert_eq!(relayed(&events, "via_dormant")["isError"], true);
    // A built-in answers a nested call as it answers the model.
    let read = relayed(&events, "via_read");
    assert_eq!(read["isError"], false, "{read:#}");
    assert_eq!(read["text"], tool_end_text(&events, "read_direct"));
    assert!(tool_end_text(&events, "read_direct").contains("to be read"));
    // The nested calls' events name their parent.
    let nested_add = of_type(&events, "tool_execution_start")
        .into_iter()
        .find(|e| e["toolCallId"] == add["id"])
        .unwrap_or_else(|| panic!("no start event for {}", add["id"]));
    assert_eq!(nested_add["parentToolCallId"], "via_add");

    // prepare_arguments: the legacy shape is renamed, a refusal is the error.
    let legacy = tool_end(&events, "add_legacy");
    assert_eq!(legacy["isError"], false, "{legacy:#}");
    assert_eq!(legacy["result"]["structuredContent"], json!({"total": 5}));
    assert_eq!(tool_end_text(&events, "add_legacy"), r#"{"total":5}"#);
    let refused = tool_end(&events, "add_refused");
    assert_eq!(refused["isError"], true, "{refused:#}");
    assert!(
        tool_end_text(&events, "add_refused").contains("these arguments cannot be prepared"),
        "{refused:#}"
    );

    // The nesting bound: the model's call and MAX_TOOL_DEPTH nested ones
    // ran, the innermost was refused.
    let deep: Vec<&Value> = of_type(&events, "tool_execution_start")
        .into_iter()
        .filter(|e| e["toolName"] == "recurse")
        .collect();
    assert_eq!(deep.len(), pi_ext::MAX_TOOL_DEPTH + 1, "{deep:#?}");
    for start in &deep[1..] {
        let id = start["toolCallId"].as_str().unwrap_or_default();
        let parent = id.rsplit_once('/').map(|(p, _)| p).unwrap_or_default();
        assert_eq!(start["parentToolCallId"], parent, "{start:#}");
    }
    let said = tool_end_text(&events, "deep");
    assert!(
        said.starts_with("refused:")
            && said.contains(&format!("at most {} deep", pi_ext::MAX_TOOL_DEPTH)),
        "{said}"
    );

    // Ctx::tools lists what execute_tool can call.
    let reachable: Vec<String> = tool_end_text(&events, "reachable")
        .split(',')
        .map(String::from)
        .collect();
    for name in ["add", "multiply", "relay", "read"] {
        assert!(
            reachable.contains(&name.to_string()),
            "{name}: {reachable:?}"
        );
    }
    assert!(!reachable.contains(&"dormant".to_string()), "{reachable:?}");

    // expandPromptTemplates: the message runs the command instead of
    // reaching the model.
    let before = model.request_count();
    let shown = notifications(&pi.command_line("/expand /echo hi"));
    let echoed = pi.wait_event_since(
        0,
        |e| e["type"] == "extension_ui_request" && e["message"] == "echo: hi",
        DEFAULT_TIMEOUT,
    );
    assert_eq!(echoed["method"], "notify", "{shown:?}");
    assert_eq!(
        model.request_count(),
        before,
        "the message reached the model"
    );
}
