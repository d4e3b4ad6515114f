//! A port of pi's `examples/extensions/provider-payload.ts`: every request
//! body pi sends the model's provider is appended, as pretty JSON, to
//! `<cwd>/.pi/provider-payload.log`, and so is every response's status and
//! headers (`[200] {…}`). The requests go out unchanged.
//!
//! Differs: the JSON's keys are written in sorted order (pi-ext's JSON maps
//! are sorted), the original's in pi's order; the values are the same.
use std::io::Write;
use std::path::Path;

use pi_ext::events::{AfterProviderResponseEvent, BeforeProviderRequestEvent, ProviderPayload};
use pi_ext::prelude::*;

#[extension(name = "provider-payload")]
struct ProviderPayloadLog;

/// Append `text` to `<cwd>/.pi/provider-payload.log` (as the original,
/// the `.pi` folder is not created: without it the hook fails).
fn append(cwd: &Path, text: &str) -> Result<(), Error> {
    let mut log = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(cwd.join(".pi").join("provider-payload.log"))?;
    log.write_all(text.as_bytes())?;
    Ok(())
}

/// Log the body (JavaScript's `JSON.stringify(payload, null, 2)`).
#[hook]
async fn before_provider_request(
    event: BeforeProviderRequestEvent,
    ctx: &Ctx,
) -> Result<ProviderPayload, Error> {
    let body = pi_ext::serde_json::to_string_pretty(&event.payload.to_value())?;
    append(ctx.cwd(), &format!("{body}\n\n"))?;
    Ok(ProviderPayload::Unchanged)
}

/// Log the status and headers.
#[hook]
async fn after_provider_response(
    event: AfterProviderResponseEvent,
    ctx: &Ctx,
) -> Result<(), Error> {
    let headers = pi_ext::serde_json::to_string(&event.headers)?;
    append(ctx.cwd(), &format!("[{}] {headers}\n\n", event.status))
}

pi_ext::main!();
