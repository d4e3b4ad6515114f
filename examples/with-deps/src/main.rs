//! A port of pi's `examples/extensions/with-deps/`, an extension with
//! dependencies of its own: in Rust that is a Cargo dependency, here
//! `ms-converter` (a Rust port of the `ms` package the original uses). Its
//! `parse_duration` tool turns `"2 days"`, `"1h"` or `"5m"` into
//! milliseconds and fails with `Invalid duration: "…"` for anything else.
//! Differs: `ms` also takes fractions of a millisecond (`"1.5"`), which
//! `ms-converter` does not.
use pi_ext::prelude::*;
use serde::Deserialize;

/// The tool's parameters.
#[derive(Deserialize, pi_ext::schemars::JsonSchema)]
#[schemars(crate = "pi_ext::schemars")]
struct DurationParams {
    /// Duration string like '2 days', '1h', '5m'
    duration: String,
}

/// What `ms(duration)` gives: `None` for an invalid duration (`ms` returns
/// `undefined`); an error for an empty one (`ms` throws).
fn ms(duration: &str) -> Result<Option<i64>, Error> {
    if duration.is_empty() {
        // `ms`'s own error, with the value as JSON.
        let shown = pi_ext::serde_json::to_string(duration).unwrap_or_default();
        return Err(Error::new(format!(
            "val is not a non-empty string or a valid number. val={shown}"
        )));
    }
    // `ms` matches its units case-insensitively and gives up past 100
    // characters.
    if duration.chars().count() > 100 {
        return Ok(None);
    }
    Ok(ms_converter::ms(duration.to_lowercase()).ok())
}

#[tool(
    name = "parse_duration",
    label = "Parse Duration",
    description = "Parse a human-readable duration string (e.g., '2 days', '1h', '5m') to milliseconds"
)]
async fn parse_duration(Params(p): Params<DurationParams>) -> Result<ToolResult, Error> {
    let Some(result) = ms(&p.duration)? else {
        return Err(Error::new(format!("Invalid duration: \"{}\"", p.duration)));
    };
    Ok(
        ToolResult::text(format!("{} = {result} milliseconds", p.duration))
            .with_details(pi_ext::serde_json::json!({})),
    )
}

#[extension(name = "with-deps")]
struct WithDeps;

pi_ext::main!();

#[cfg(test)]
mod tests {
    use super::ms;

    #[test]
    fn durations_as_ms_reads_them() {
        assert_eq!(ms("2 days").unwrap(), Some(172_800_000));
        assert_eq!(ms("1h").unwrap(), Some(3_600_000));
        assert_eq!(ms("2 Days").unwrap(), Some(172_800_000));
        assert_eq!(ms("soon").unwrap(), None);
        assert!(ms("").is_err());
    }
}
