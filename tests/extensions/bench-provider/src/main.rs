//! Row 9 of the benchmark (`cargo run --release -p pi-ext-e2e --bin bench -- --rows 10`): a
//! `before_provider_request` hook that lets every request body through unchanged.
//!
//! `tests/fixtures/bench-provider.ts` is the same extension in TypeScript.
use pi_ext::events::*;
use pi_ext::prelude::*;

/// Let the provider request through unchanged (pi waits for this answer before every request).
#[hook]
async fn pass(_event: BeforeProviderRequestEvent) -> ProviderPayload {
    ProviderPayload::Unchanged
}

#[extension(
    name = "bench-provider",
    description = "pi-ext benchmark: pass-through before_provider_request hook"
)]
struct BenchProvider;

pi_ext::main!();
