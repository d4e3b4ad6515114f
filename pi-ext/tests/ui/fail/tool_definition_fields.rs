use pi_ext::prelude::*;

/// Bad values of pi 1.6's definition fields.
#[tool(
    exposure = "public",
    read_only_hint = "yes",
    default_active,
    constrained_sampling = "strict",
    namespace = "",
    output,
    prepare_arguments
)]
async fn fields() -> String {
    String::new()
}

fn main() {}
