//! A running set of delivery tasks — the webhooks' ([`crate::webhooks`]) and the
//! notification channels' ([`crate::notify`]) — each kept with its config and the status
//! its task writes. Replacing the set (start-up, a SIGHUP reload) or dropping it aborts
//! every old task: a delivery in flight is made again by its successor, reading from the
//! same cursor, so nothing is lost. A leaf: it knows nothing of what the tasks deliver.

use std::sync::{Arc, Mutex, MutexGuard};
use tokio::task::JoinHandle;

/// The tasks running now, each with its config and status; cheap to clone.
pub struct TaskSet<C, S> {
    running: Arc<Mutex<Vec<Running<C, S>>>>,
}

impl<C, S> Clone for TaskSet<C, S> {
    fn clone(&self) -> Self {
        TaskSet {
            running: self.running.clone(),
        }
    }
}

impl<C, S> Default for TaskSet<C, S> {
    fn default() -> Self {
        TaskSet {
            running: Arc::default(),
        }
    }
}

/// One task: what it was started with, what it reports, and its handle.
pub struct Running<C, S> {
    pub config: C,
    pub status: Arc<Mutex<S>>,
    pub task: JoinHandle<()>,
}

impl<C, S> Drop for Running<C, S> {
    fn drop(&mut self) {
        self.task.abort();
    }
}

impl<C: Clone, S: Clone> TaskSet<C, S> {
    /// Puts `fresh` in place of the running tasks, which stop.
    pub fn replace(&self, fresh: Vec<Running<C, S>>) {
        let old = std::mem::replace(&mut *lock(&self.running), fresh);
        drop(old);
    }

    /// Stops every task (at shutdown).
    pub fn stop(&self) {
        lock(&self.running).clear();
    }

    /// Each task's config and status, in the order they were started.
    pub fn statuses(&self) -> Vec<(C, S)> {
        lock(&self.running)
            .iter()
            .map(|r| (r.config.clone(), lock(&r.status).clone()))
            .collect()
    }
}

/// Locks `mutex`, whatever a panicking holder left.
pub fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}
