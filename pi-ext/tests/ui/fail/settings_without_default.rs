use pi_ext::prelude::*;
use pi_ext::schemars;

/// How to greet.
#[derive(serde::Deserialize, serde::Serialize, schemars::JsonSchema)]
#[schemars(crate = "pi_ext::schemars")]
struct GreetSettings {
    greeting: String,
}

#[extension(name = "greeter", settings = GreetSettings)]
struct Greeter;

fn main() {}
