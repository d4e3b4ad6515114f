//! `ctx.models()` in the real pi (the `model-calls` example): the registry,
//! a streamed answer through pi's provider and credentials, an unknown
//! model, a failing model, and a call after the session ended.

use pi_ext_e2e::json::{last_user_text, notifications};
use pi_ext_e2e::{install_example, wait_until, PiEnv, Reply, ScriptedModel, DEFAULT_TIMEOUT};
use serde_json::{json, Value};

/// The messages of the `extension_error`s in `events`.
fn errors(events: &[Value]) -> Vec<String> {
    events
        .iter()
        .filter(|e| e["type"] == "extension_error")
        .map(|e| e["error"].as_str().unwrap_or_default().to_string())
        .collect()
}

#[test]
fn models_are_listed_and_called_through_pi_and_calls_fail_clearly() {
    let model = ScriptedModel::start();
    let env = PiEnv::new(&model);
    // A model whose provider takes options that move the request
    // (`azureBaseUrl`): pi holds its key, and an extension must not be able
    // to send that key to a server of its choosing.
    let attacker = ScriptedModel::start();
    env.edit_models(|models| {
        models["providers"]["azure"] = json!({
            "baseUrl": format!("{}/openai/v1", model.base_url()),
            "api": "azure-openai-responses",
            "apiKey": "sk-azure-secret",
            "models": [{"id": "gpt-x", "name": "gpt-x", "reasoning": false, "input": ["text"],
                        "contextWindow": 1000, "maxTokens": 100,
                        "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0}}]
        });
    });
    let dir = install_example(&env, "model-calls");
    let log_dir = env.root().join("logs");
    let pi = env
        .pi()
        .installed(&dir)
        .env("PI_EXT_LOG_DIR", &log_dir)
        .start();

    // The registry: the current model, and the models pi has a key for.
    let events = pi.command_line("/models");
    let note = notifications(&events).join("\n");
    assert!(
        note.starts_with("current: fake/fake-model; available: ")
            && note.contains("fake/fake-model"),
        "{note}"
    );

    // A streamed answer: each upstream delta arrives as one text delta; pi
    // supplied the key (the extension never saw it).
    model.push(Reply::deltas(["Hel", "lo", " world"]));
    let events = pi.command_line("/ask what is up?");
    assert_eq!(notifications(&events), ["3 deltas: Hello world"]);
    let request = &model.recorded()[0];
    assert_eq!(
        last_user_text(&request.body).as_deref(),
        Some("what is up?")
    );
    assert_eq!(request.header("authorization"), Some("Bearer sk-fake"));
    assert_eq!(request.body["stream"], true);

    // An unknown model: the error names it, and no request is made.
    let mark = pi.mark();
    pi.command_line("/ask @fake/nope hi");
    let error = pi.wait_event_since(mark, |e| e["type"] == "extension_error", DEFAULT_TIMEOUT);
    let message = error["error"].as_str().unwrap();
    assert!(message.contains("pi has no model `fake/nope`"), "{message}");
    assert_eq!(model.request_count(), 1);

    // Options that would send pi's key elsewhere are refused with the
    // reason, and no request leaves pi.
    for options in [
        json!({"azureBaseUrl": format!("{}/openai/v1", attacker.base_url())}),
        json!({"azureResourceName": "attacker"}),
        json!({"apiKey": "sk-mine"}),
    ] {
        let mark = pi.mark();
        pi.command_line(&format!("/ask @azure/gpt-x {options} hi"));
        let error = pi.wait_event_since(mark, |e| e["type"] == "extension_error", DEFAULT_TIMEOUT);
        let message = error["error"].as_str().unwrap();
        let name = options.as_object().unwrap().keys().next().unwrap().clone();
        assert!(
            message.contains(&format!(
                "the model option \"{name}\" cannot be set by an extension"
            )),
            "{message}"
        );
    }
    assert_eq!(
        attacker.request_count(),
        0,
        "pi's key never left for the extension's address"
    );
    assert_eq!(model.request_count(), 1);
    // Allowed options still work.
    model.push(Reply::deltas(["cold"]));
    let events = pi.command_line(r#"/ask {"temperature": 0} be exact"#);
    assert_eq!(notifications(&events), ["1 deltas: cold"]);
    assert_eq!(model.recorded()[1].body["temperature"], 0);
    assert_eq!(
        last_user_text(&model.recorded()[1].body).as_deref(),
        Some("be exact")
    );

    // The model fails: the provider's error reaches the extension.
    model.push(Reply::status(500, "the model is down"));
    let mark = pi.mark();
    pi.command_line("/ask anyone there?");
    let error = pi.wait_event_since(mark, |e| e["type"] == "extension_error", DEFAULT_TIMEOUT);
    let message = error["error"].as_str().unwrap();
    assert!(
        message.contains("the model call failed") && message.contains("500"),
        "{message}"
    );
    assert!(errors(&pi.events_since(mark)).len() == 1);

    // A new session ends the old process's session: its `on_unload` calls
    // the model with the handle it kept and gets a clear error at once.
    pi.call(json!({"type": "new_session"}));
    let log = log_dir.join("model-calls.log");
    wait_until("the late model call's outcome in the log", || {
        std::fs::read_to_string(&log).is_ok_and(|l| l.contains("model call after the session"))
    });
    let text = std::fs::read_to_string(&log).unwrap();
    assert!(
        text.contains(
            "model call after the session: the pi session has ended; model calls are no longer possible"
        ),
        "{text}"
    );
    assert_eq!(model.request_count(), 3, "the late call made no request");
    // pi goes on (a fresh process serves the new session).
    model.push(Reply::deltas(["still", " here"]));
    let events = pi.command_line("/ask again");
    assert_eq!(notifications(&events), ["2 deltas: still here"]);
}
