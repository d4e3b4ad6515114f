//! State that reader threads change and test threads wait on: a mutex, a
//! condition variable and waits with a deadline, in one place (pi's RPC
//! output, its terminal and the scripted model all use it).

use std::sync::{Condvar, Mutex, MutexGuard};
use std::time::Instant;

/// A value behind a mutex whose changes wake the threads waiting on it.
///
/// A poisoned lock is used as it is: a panicking reader or connection
/// thread must not take the whole harness (and every later wait) down.
pub(crate) struct Watched<T> {
    state: Mutex<T>,
    changed: Condvar,
}

impl<T> Watched<T> {
    pub(crate) fn new(value: T) -> Watched<T> {
        Watched {
            state: Mutex::new(value),
            changed: Condvar::new(),
        }
    }

    /// The value, locked, for reading or for a change nobody waits on.
    pub(crate) fn lock(&self) -> MutexGuard<'_, T> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Changes the value and wakes every waiter.
    pub(crate) fn update<R>(&self, change: impl FnOnce(&mut T) -> R) -> R {
        let result = change(&mut self.lock());
        self.changed.notify_all();
        result
    }

    /// Calls `check` on the value now and after every change until it gives
    /// `Some`, or `None` once `deadline` has passed (the lock is released).
    pub(crate) fn wait_until<R>(
        &self,
        deadline: Instant,
        mut check: impl FnMut(&T) -> Option<R>,
    ) -> Option<R> {
        let mut state = self.lock();
        loop {
            if let Some(found) = check(&state) {
                return Some(found);
            }
            let now = Instant::now();
            if now >= deadline {
                return None;
            }
            state = self
                .changed
                .wait_timeout(state, deadline - now)
                .unwrap_or_else(|e| e.into_inner())
                .0;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::Watched;
    use std::sync::Arc;
    use std::time::{Duration, Instant};

    #[test]
    fn a_waiter_sees_the_change_another_thread_makes() {
        let watched = Arc::new(Watched::new(0u32));
        let writer = Arc::clone(&watched);
        let thread = std::thread::spawn(move || {
            for _ in 0..3 {
                writer.update(|n| *n += 1);
            }
        });
        let deadline = Instant::now() + Duration::from_secs(10);
        assert_eq!(
            watched.wait_until(deadline, |n| (*n == 3).then_some(*n)),
            Some(3)
        );
        thread.join().unwrap();
    }

    #[test]
    fn a_wait_past_its_deadline_gives_none() {
        let watched = Watched::new(false);
        assert_eq!(
            watched.wait_until(Instant::now(), |done| done.then_some(())),
            None
        );
    }
}
