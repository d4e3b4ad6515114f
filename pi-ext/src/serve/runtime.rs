//! The tokio runtime an extension serves on (and the test host runs on):
//! tokio's multi-thread runtime with the Cargo feature `rt-multi-thread`
//! (a default), else tokio's current-thread runtime on one thread of its own.
//! Without the feature, tokio's multi-thread scheduler is not compiled, and
//! with it go about 0.3 MB of resident memory (libm, which only its
//! statistics use, and the extra workers' stacks).

use std::future::Future;
use std::io;
use std::time::Duration;

use tokio::runtime::{EnterGuard, Handle};
use tokio::task::JoinHandle;

/// The runtime the dispatcher's tasks run on.
pub(crate) struct Runtime {
    #[cfg(feature = "rt-multi-thread")]
    inner: tokio::runtime::Runtime,
    #[cfg(not(feature = "rt-multi-thread"))]
    inner: one_thread::OneThread,
}

impl Runtime {
    /// With `rt-multi-thread`: `workers` workers (at least two: reading runs
    /// on a worker, so one CPU-bound async handler must leave another free
    /// for reading, `cancel` and other calls). Without it: one thread runs
    /// every task, so a CPU-bound handler holds up the others until it
    /// awaits (`pi_ext::task::spawn_blocking` is the way out). Either way the
    /// threads have the stack that deeply nested protocol lines need.
    pub(crate) fn build(workers: usize) -> io::Result<Self> {
        #[cfg(feature = "rt-multi-thread")]
        let inner = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(workers.max(2))
            .thread_stack_size(crate::wire::framing::PARSE_STACK_BYTES)
            .thread_name("pi-ext-worker")
            .enable_all()
            .build()?;
        #[cfg(not(feature = "rt-multi-thread"))]
        let inner = {
            let _ = workers;
            one_thread::OneThread::start()?
        };
        Ok(Self { inner })
    }

    fn handle(&self) -> &Handle {
        self.inner.handle()
    }

    /// Makes this the current runtime (for registering I/O, spawning).
    pub(crate) fn enter(&self) -> EnterGuard<'_> {
        self.handle().enter()
    }

    /// Spawns `future` on the runtime's threads.
    pub(crate) fn spawn<F>(&self, future: F) -> JoinHandle<F::Output>
    where
        F: Future + Send + 'static,
        F::Output: Send + 'static,
    {
        self.handle().spawn(future)
    }

    /// Runs `future` to completion on this thread, while the runtime's
    /// threads run its tasks.
    pub(crate) fn block_on<F: Future>(&self, future: F) -> F::Output {
        self.inner.block_on(future)
    }

    /// Stops the runtime, giving its tasks at most `grace` to finish.
    pub(crate) fn shutdown_timeout(self, grace: Duration) {
        self.inner.shutdown_timeout(grace)
    }
}

#[cfg(not(feature = "rt-multi-thread"))]
mod one_thread {
    use std::future::Future;
    use std::io;
    use std::sync::mpsc;
    use std::time::Duration;

    use tokio::runtime::Handle;
    use tokio::sync::oneshot;

    use crate::wire::framing::PARSE_STACK_BYTES;

    /// tokio's current-thread runtime, driven by a thread of its own (so
    /// tasks, I/O and timers run while the caller's thread waits, as on a
    /// multi-thread runtime with one worker).
    pub(super) struct OneThread {
        handle: Handle,
        /// Tells the driving thread to stop, with the grace to give tasks.
        stop: Option<oneshot::Sender<Duration>>,
        /// Closed by the driving thread when the runtime is shut down.
        stopped: mpsc::Receiver<()>,
    }

    impl OneThread {
        pub(super) fn start() -> io::Result<Self> {
            let runtime = tokio::runtime::Builder::new_current_thread()
                .thread_stack_size(PARSE_STACK_BYTES)
                .thread_name("pi-ext-worker")
                .enable_all()
                .build()?;
            let handle = runtime.handle().clone();
            let (stop, stop_rx) = oneshot::channel::<Duration>();
            let (stopped_tx, stopped) = mpsc::channel::<()>();
            std::thread::Builder::new()
                .name("pi-ext-worker".into())
                .stack_size(PARSE_STACK_BYTES)
                .spawn(move || {
                    // Only `Runtime::block_on` drives a current-thread
                    // runtime's tasks, I/O and timers.
                    let grace = runtime.block_on(async { stop_rx.await.unwrap_or_default() });
                    runtime.shutdown_timeout(grace);
                    drop(stopped_tx);
                })?;
            Ok(Self {
                handle,
                stop: Some(stop),
                stopped,
            })
        }

        pub(super) fn handle(&self) -> &Handle {
            &self.handle
        }

        pub(super) fn block_on<F: Future>(&self, future: F) -> F::Output {
            // Polled here; the driving thread runs the tasks, I/O and timers
            // it waits for.
            self.handle.block_on(future)
        }

        pub(super) fn shutdown_timeout(mut self, grace: Duration) {
            if let Some(stop) = self.stop.take() {
                let _ = stop.send(grace);
            }
            // A task that never yields keeps the driving thread from
            // stopping: wait for it no longer than tokio would.
            let _ = self
                .stopped
                .recv_timeout(grace + Duration::from_millis(100));
        }
    }

    impl Drop for OneThread {
        fn drop(&mut self) {
            // Stops without waiting (a test host dropped at a test's end).
            if let Some(stop) = self.stop.take() {
                let _ = stop.send(Duration::ZERO);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tasks_timers_and_blocking_work_run_while_the_caller_waits() {
        let runtime = Runtime::build(2).unwrap();
        let (tx, rx) = tokio::sync::oneshot::channel();
        runtime.spawn(async move {
            tokio::time::sleep(Duration::from_millis(1)).await;
            let n = tokio::task::spawn_blocking(|| 6 * 7).await.unwrap();
            tx.send(n).unwrap();
        });
        assert_eq!(runtime.block_on(rx).unwrap(), 42);
        runtime.shutdown_timeout(Duration::from_millis(100));
    }
}
