//! The tokio runtime an extension serves on (and the test host runs on).

use std::io;

use crate::wire::framing::PARSE_STACK_BYTES;

/// A multi-thread runtime with `workers` workers (at least two: reading runs
/// on a worker, so one CPU-bound async handler must leave another free for
/// reading, `cancel` and other calls), whose threads have the stack that
/// deeply nested protocol lines need.
pub(crate) fn build(workers: usize) -> io::Result<tokio::runtime::Runtime> {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(workers.max(2))
        .thread_stack_size(PARSE_STACK_BYTES)
        .thread_name("pi-ext-worker")
        .enable_all()
        .build()
}
