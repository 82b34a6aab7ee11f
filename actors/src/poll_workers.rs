//! Where a poll does its work. A poll task talks to its device, decodes what it reads and
//! merges it into the OLT's table; on a fleet of thousands of OLTs that is most of the
//! process's CPU, and it runs back to back. An API request is short and someone waits
//! for it. [`PollWorkers::start`] gives polls a runtime of their own whose threads (its
//! async workers and its blocking pool, where merges run) have a higher nice value
//! than the rest of the process: the kernel then gives the API's threads, the actors
//! and the fleet view the cores first, and the polls everything they leave. Nothing
//! else changes — the OLT actors, their message handlers and every question about the
//! fleet stay on the main runtime, so no answer waits in a poll thread's queue.
//!
//! [`PollWorkers::current`] (the default, and what tests and benchmarks use) runs polls
//! on whatever runtime spawns them, as before.

use std::fmt;
use std::future::Future;
use std::sync::Arc;
use tokio::runtime::{Handle, Runtime};
use tokio::task::JoinHandle;

/// The runtime polls are spawned on; cheap to clone (every OLT actor's settings hold one).
#[derive(Clone, Default)]
pub struct PollWorkers {
    runtime: Option<Arc<OwnedRuntime>>,
}

/// A runtime that shuts down without blocking when the last holder lets it go (a
/// runtime dropped inside async code would panic).
struct OwnedRuntime {
    runtime: Option<Runtime>,
    nice: i32,
}

impl Drop for OwnedRuntime {
    fn drop(&mut self) {
        if let Some(runtime) = self.runtime.take() {
            runtime.shutdown_background();
        }
    }
}

impl PollWorkers {
    /// Polls run on the runtime that spawns them.
    pub fn current() -> PollWorkers {
        PollWorkers::default()
    }

    /// A runtime of one worker per core whose threads run at nice value `nice` (0–19;
    /// 0 starts no runtime: polls share the API's threads and priority).
    pub fn start(nice: i32) -> std::io::Result<PollWorkers> {
        if nice <= 0 {
            return Ok(PollWorkers::current());
        }
        let cores = std::thread::available_parallelism().map_or(2, usize::from);
        // Threads inherit the nice value of the thread that starts them, which may be a
        // poll thread itself: each is set to the starting thread's value plus `nice`.
        let target = (thread_nice().unwrap_or(0) + nice).min(19);
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(cores)
            .thread_name("ponkeeper-poll")
            .on_thread_start(move || lower_priority(target))
            .enable_all()
            .build()?;
        Ok(PollWorkers {
            runtime: Some(Arc::new(OwnedRuntime {
                runtime: Some(runtime),
                nice,
            })),
        })
    }

    /// The nice value polls run at relative to the process (0 when they share its
    /// runtime).
    pub fn nice(&self) -> i32 {
        self.runtime.as_ref().map_or(0, |r| r.nice)
    }

    /// Spawns a poll task on the poll runtime, or on the current one.
    pub(crate) fn spawn<F>(&self, task: F) -> JoinHandle<F::Output>
    where
        F: Future + Send + 'static,
        F::Output: Send + 'static,
    {
        match self.handle() {
            Some(handle) => handle.spawn(task),
            None => tokio::spawn(task),
        }
    }

    fn handle(&self) -> Option<&Handle> {
        self.runtime
            .as_ref()
            .and_then(|r| r.runtime.as_ref())
            .map(Runtime::handle)
    }
}

impl fmt::Debug for PollWorkers {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("PollWorkers")
            .field("own_runtime", &self.runtime.is_some())
            .field("nice", &self.nice())
            .finish()
    }
}

/// Sets the calling thread's nice value to `target` (Linux keeps a nice value per
/// thread). Lowering one's own priority needs no privilege; if the kernel refuses
/// anyway, the thread runs at the process's priority and says so.
fn lower_priority(target: i32) {
    if let Err(error) = rustix::process::setpriority_process(Some(rustix::thread::gettid()), target)
    {
        tracing::warn!(%error, "a poll thread keeps the process's priority");
    }
}

/// The calling thread's nice value.
fn thread_nice() -> rustix::io::Result<i32> {
    rustix::process::getpriority_process(Some(rustix::thread::gettid()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn poll_tasks_and_their_blocking_work_run_below_the_callers_priority() {
        let caller = thread_nice().expect("nice");
        let workers = PollWorkers::start(7).expect("runtime");
        let main = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .expect("main runtime");
        // Several blocking threads at once: threads started by poll threads too.
        let (task, blocking) = main.block_on(async {
            workers
                .spawn(async {
                    let merges: Vec<_> = (0..4)
                        .map(|_| {
                            tokio::task::spawn_blocking(|| {
                                std::thread::sleep(std::time::Duration::from_millis(20));
                                thread_nice().expect("nice")
                            })
                        })
                        .collect();
                    let mut seen = Vec::new();
                    for merge in merges {
                        seen.push(merge.await.expect("blocking"));
                    }
                    (thread_nice().expect("nice"), seen)
                })
                .await
                .expect("poll task")
        });
        let target = (caller + 7).min(19);
        assert_eq!(task, target, "async worker");
        assert_eq!(blocking, vec![target; 4], "blocking pool (merges)");
        assert_eq!(thread_nice().expect("nice"), caller, "the caller's thread");
        // Dropped inside async code: must not panic.
        main.block_on(async move { drop(workers) });
    }

    #[test]
    fn nice_zero_runs_polls_where_they_are_spawned() {
        let workers = PollWorkers::start(0).expect("no runtime");
        assert_eq!(workers.nice(), 0);
        let main = tokio::runtime::Builder::new_current_thread()
            .build()
            .expect("main runtime");
        let here = std::thread::current().id();
        let ran_on =
            main.block_on(async { workers.spawn(async { std::thread::current().id() }).await });
        assert_eq!(ran_on.expect("task"), here);
    }
}
