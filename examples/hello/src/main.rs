//! The quickstart extension: one tool, `greet`.
use pi_ext::prelude::*;

/// Greet someone by name.
#[tool(label = "Greet", prompt_snippet = "greet: greet a person by name")]
async fn greet(ctx: &Ctx, name: String) -> Result<String, Error> {
    if name.trim().is_empty() {
        return Err(Error::new("name must not be empty"));
    }
    Ok(format!(
        "Hello, {name}! (pi runs in {})",
        ctx.cwd().display()
    ))
}

#[extension(name = "hello", description = "Says hello")]
struct Hello;

pi_ext::main!();
