//! A tour of what a pi-ext tool can be. The end-to-end tests run these
//! inside the real pi.
use pi_ext::prelude::*;
use pi_ext::schemars;
use serde::Deserialize;

/// Where a parcel goes.
#[derive(Debug, Deserialize, schemars::JsonSchema)]
#[schemars(crate = "pi_ext::schemars")]
struct Address {
    /// Street and number.
    street: String,
    /// City name.
    city: String,
}

/// How fast to ship.
#[derive(Debug, Deserialize, schemars::JsonSchema)]
#[schemars(crate = "pi_ext::schemars")]
#[serde(rename_all = "lowercase")]
enum Speed {
    /// Cheapest, about a week.
    Economy,
    /// Next day.
    Express,
}

/// A shipping order.
#[derive(Debug, Deserialize, schemars::JsonSchema)]
#[schemars(crate = "pi_ext::schemars")]
struct Order {
    /// Destination.
    to: Address,
    /// Shipping speed.
    speed: Speed,
    /// Number of parcels (1 or more).
    parcels: u32,
    /// Item names.
    items: Vec<String>,
    /// Note for the courier.
    note: Option<String>,
}

/// Plan a shipment and report what was understood.
#[tool(label = "Ship")]
async fn ship(Params(order): Params<Order>) -> ToolResult {
    let text = format!(
        "shipping {} parcel(s) of [{}] to {}, {} by {:?}{}",
        order.parcels,
        order.items.join(", "),
        order.to.street,
        order.to.city,
        order.speed,
        order
            .note
            .map(|n| format!(" (note: {n})"))
            .unwrap_or_default()
    );
    ToolResult::text(text).with_details(pi_ext::serde_json::json!({ "parcels": order.parcels }))
}

/// Divide two numbers; fails on division by zero.
#[tool]
async fn divide(a: f64, b: f64) -> Result<String, Error> {
    if b == 0.0 {
        return Err(Error::new("cannot divide by zero"));
    }
    Ok(format!("{}", a / b))
}

/// Read a file relative to pi's working directory (errors are `std::io::Error`).
#[tool]
async fn read_text(ctx: &Ctx, path: String) -> anyhow::Result<String> {
    let full = ctx.cwd().join(&path);
    let text =
        std::fs::read_to_string(&full).map_err(|e| anyhow::anyhow!("{}: {e}", full.display()))?;
    Ok(text)
}

/// A tool with a bug: it panics.
#[tool]
async fn buggy(input: String) -> String {
    let n: usize = input.len();
    if n > 0 {
        panic!("buggy tool crashed on {input:?}");
    }
    "never".into()
}

/// Prints to stdout (as careless code and dependencies do), then answers.
#[tool]
fn noisy(word: String) -> String {
    println!("noisy: a stray println that must not reach the protocol: {word}");
    println!("{{\"id\":1,\"result\":\"fake protocol line\"}}");
    format!("still fine: {word}")
}

/// Runs `cat` with the extension's stdin (as careless code might), and
/// reports how many bytes it read: none, since the runtime keeps the
/// protocol input away from child processes.
#[tool]
fn child_reads_stdin() -> anyhow::Result<String> {
    let out = std::process::Command::new("cat")
        .stdin(std::process::Stdio::inherit())
        .output()?;
    Ok(format!("the child read {} bytes", out.stdout.len()))
}

/// Record that it ran: writes `<cwd>/marks/<label>` containing `n`.
#[tool]
async fn mark(ctx: &Ctx, label: String, n: u32) -> anyhow::Result<String> {
    let dir = ctx.cwd().join("marks");
    std::fs::create_dir_all(&dir)?;
    std::fs::write(dir.join(&label), n.to_string())?;
    Ok(format!("marked {label}={n}"))
}

/// Write log records at every level, through `tracing` and through `log`:
/// they land in the extension's log file, filtered by `PI_EXT_LOG`.
#[tool]
async fn logs(word: String) -> String {
    tracing::error!("tracing error {word}");
    tracing::info!("tracing info {word}");
    tracing::debug!("tracing debug {word}");
    log::warn!("log warn {word}");
    log::trace!("log trace {word}");
    format!("logged {word}")
}

/// Kill the extension process (to show that pi survives and the next call
/// gets a fresh process).
#[tool]
fn crash(code: i32) -> String {
    std::process::exit(code)
}

#[extension(name = "showcase")]
struct Showcase;

pi_ext::main!();
