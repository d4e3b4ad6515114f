//! The extension in the real pi, end to end: pi-ext-test installs pi with
//! npm into its cache the first time (the version pi-ext is made for, or
//! the one `PI_EXT_TEST_PI_VERSION` names; `~/.cache/pi-ext-test`, or
//! `PI_EXT_TEST_CACHE`), installs this crate's binary into a throwaway
//! agent directory as `cargo run -- install` would, and runs pi in RPC
//! mode against a scripted model on 127.0.0.1.
use pi_ext::serde_json::json;
use pi_ext_test::{PiEnv, Reply, ScriptedModel, extension_binary, install_binary, json};

#[test]
fn the_model_calls_greet_in_the_real_pi() {
    let model = ScriptedModel::start();
    model.push(Reply::tool("call_1", "greet", json!({ "name": "Ada" })));
    model.push(Reply::text("Greeted Ada."));
    let env = PiEnv::new(&model);
    let dir = install_binary(&env, extension_binary!(), &[]);
    let pi = env.pi().installed(&dir).start();
    pi.prompt("greet Ada");
    // The tool's result, as pi sent it back to the model.
    let second = &model.requests()[1];
    assert_eq!(
        json::tool_result(second, "call_1").as_deref(),
        Some("Hello, Ada! (greeting #1)")
    );
}
