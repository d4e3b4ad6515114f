//! The extension's log: `tracing` (and `log`) records written to stderr,
//! which the bridge keeps in `<extension dir>/<name>.log`.
//!
//! The serving binary installs a subscriber before any user code runs, so
//! `tracing::info!`/`log::info!` in an extension and its dependencies just
//! work, with levels, and never reach stdout (the protocol). The filter
//! comes from `PI_EXT_LOG`, in the `target=level` form of `tracing`'s
//! `Targets` (`info` by default; e.g. `PI_EXT_LOG=warn,my_ext=debug`). The
//! runtime's own records use the target `pi_ext`.

use tracing_subscriber::filter::Targets;
use tracing_subscriber::prelude::*;

/// The filter when `PI_EXT_LOG` is unset.
const DEFAULT_FILTER: &str = "info";

/// Install the subscriber (once; a second call, or one made after the
/// program installed its own, does nothing).
pub(crate) fn init() {
    let spec = std::env::var("PI_EXT_LOG").unwrap_or_else(|_| DEFAULT_FILTER.into());
    let (filter, bad) = match spec.parse::<Targets>() {
        Ok(f) => (f, None),
        Err(e) => (DEFAULT_FILTER.parse().expect("valid default"), Some(e)),
    };
    let fmt = tracing_subscriber::fmt::layer()
        .with_writer(std::io::stderr)
        .with_ansi(false);
    let installed = tracing_subscriber::registry()
        .with(fmt.with_filter(filter))
        .try_init()
        .is_ok();
    if installed {
        if let Some(e) = bad {
            tracing::warn!(target: "pi_ext", "PI_EXT_LOG={spec:?} is not a valid filter ({e}); using {DEFAULT_FILTER:?}");
        }
    }
}

/// A runtime diagnostic for the log (something went wrong, but serving goes on).
pub(crate) fn warn(message: &str) {
    tracing::warn!(target: "pi_ext", "{message}");
}

/// A record of the protocol traffic (`PI_EXT_LOG_TRAFFIC=1`).
pub(crate) fn traffic(message: &str) {
    tracing::info!(target: "pi_ext::traffic", "{message}");
}
