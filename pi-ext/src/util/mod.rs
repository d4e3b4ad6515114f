//! Plumbing under everything: atomic file writes, pi's directories, the
//! log, the async runtime.

pub(crate) mod atomic_file;
pub(crate) mod logging;
pub(crate) mod pi_dirs;
pub(crate) mod sanitize;
