//! Room on the data directory's filesystem ([`Space`]). sled cannot recover from a write
//! the disk refused: the first `ENOSPC` becomes an error every later operation returns,
//! until the process restarts. So the store stops writing before the disk is full: each
//! write path asks [`Space::check`] first, which refuses (a [`super::StoreError::NoSpace`]
//! naming what is free) while less than `storage.min_free_mb` is available, and lets
//! writes through again as soon as there is, with no restart. The filesystem is asked at
//! most once a second. The margin is what sled's own flushes and the writes that are not
//! checked (API keys, subscriber bindings: rare and small) may still use.
//!
//! Should sled fail anyway (another process filled the last bytes between two checks),
//! [`Space::note_failure`] keeps sled's error, and readiness says a restart is needed.

use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// How long one answer of the filesystem is trusted.
const PROBE_EVERY: Duration = Duration::from_secs(1);
/// The default margin: 256 MiB.
pub const DEFAULT_MIN_FREE: u64 = 256 * 1024 * 1024;

/// The free space of the store's filesystem, as the write paths see it.
#[derive(Debug)]
pub struct Space {
    dir: PathBuf,
    min_free: AtomicU64,
    /// The last answer: when, and the bytes available then.
    last: Mutex<Option<(Instant, u64)>>,
    /// Test builds: what the filesystem is pretended to have free.
    #[cfg(any(test, feature = "test-support"))]
    pretended: Mutex<Option<u64>>,
    /// A write sled itself failed: its error is permanent until a restart.
    failure: Mutex<Option<String>>,
    /// Whether writes are being refused now (logged once when it starts and ends).
    refusing: std::sync::atomic::AtomicBool,
}

impl Space {
    pub fn new(dir: PathBuf) -> Space {
        Space {
            dir,
            min_free: AtomicU64::new(DEFAULT_MIN_FREE),
            last: Mutex::new(None),
            #[cfg(any(test, feature = "test-support"))]
            pretended: Mutex::new(None),
            failure: Mutex::new(None),
            refusing: std::sync::atomic::AtomicBool::new(false),
        }
    }

    /// Writes are refused while less than `bytes` are free (`storage.min_free_mb`).
    pub fn set_min_free(&self, bytes: u64) {
        self.min_free.store(bytes, Ordering::Relaxed);
        *lock(&self.last) = None;
    }

    pub fn min_free(&self) -> u64 {
        self.min_free.load(Ordering::Relaxed)
    }

    /// Bytes available to the service on the store's filesystem (asked at most once a
    /// second); `None` when the filesystem cannot say.
    pub fn available(&self) -> Option<u64> {
        #[cfg(any(test, feature = "test-support"))]
        if let Some(bytes) = *lock(&self.pretended) {
            return Some(bytes);
        }
        let mut last = lock(&self.last);
        if let Some((at, bytes)) = *last {
            if at.elapsed() < PROBE_EVERY {
                return Some(bytes);
            }
        }
        let bytes = fs2::available_space(&self.dir).ok()?;
        *last = Some((Instant::now(), bytes));
        Some(bytes)
    }

    /// Whether a write may go ahead: refused while the filesystem has less than the
    /// margin free. A filesystem that cannot say is not held against the write.
    pub fn check(&self) -> Result<(), super::StoreError> {
        let min_free = self.min_free();
        let available = self.available();
        let refusing = available.is_some_and(|bytes| bytes < min_free);
        if self.refusing.swap(refusing, Ordering::Relaxed) != refusing {
            match available {
                Some(bytes) if refusing => tracing::warn!(
                    free = %mib(bytes),
                    reserve = %mib(min_free),
                    "the data directory's filesystem is nearly full: writes are held back until space is freed"
                ),
                _ => {
                    tracing::info!("space on the data directory's filesystem again: writes resume")
                }
            }
        }
        match available {
            Some(available) if refusing => Err(super::StoreError::NoSpace {
                available,
                min_free,
            }),
            _ => Ok(()),
        }
    }

    /// Keeps a write error sled returned (its first is permanent until a restart).
    pub fn note_failure(&self, error: &str) {
        let mut failure = lock(&self.failure);
        if failure.is_none() {
            tracing::error!(%error, "the store failed a write; a restart is needed once the cause is fixed");
            *failure = Some(error.to_string());
        }
    }

    /// The store's state for readiness: whether writes go through, and why not.
    pub fn status(&self) -> Result<String, String> {
        if let Some(failure) = lock(&self.failure).as_ref() {
            return Err(format!(
                "a write failed ({failure}); restart the service once the cause is fixed"
            ));
        }
        let min_free = self.min_free();
        match self.available() {
            Some(available) if available < min_free => Err(format!(
                "writes refused: {} free on the data directory's filesystem, below storage.min_free_mb ({}); they resume once space is freed",
                mib(available),
                mib(min_free)
            )),
            Some(available) => Ok(format!("writable, {} free", mib(available))),
            None => Ok("writable (free space unknown)".into()),
        }
    }

    /// Test builds: pretend the filesystem has `bytes` free (`None`: ask it again).
    #[cfg(any(test, feature = "test-support"))]
    pub fn pretend_available(&self, bytes: Option<u64>) {
        *lock(&self.pretended) = bytes;
    }
}

fn mib(bytes: u64) -> String {
    format!("{} MiB", bytes / (1024 * 1024))
}

fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(|e| e.into_inner())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn writes_are_refused_below_the_margin_and_resume_above_it() {
        let dir = tempfile::tempdir().expect("tempdir");
        let space = Space::new(dir.path().to_path_buf());
        // The real filesystem answers.
        assert!(space.available().is_some_and(|bytes| bytes > 0));
        space.set_min_free(64 * 1024 * 1024);
        space.pretend_available(Some(10 * 1024 * 1024));
        let refused = space.check().expect_err("below the margin");
        assert!(refused.to_string().contains("10 MiB"), "{refused}");
        let status = space.status().expect_err("not writable");
        assert!(status.contains("storage.min_free_mb (64 MiB)"), "{status}");
        space.pretend_available(Some(100 * 1024 * 1024));
        assert!(space.check().is_ok());
        assert_eq!(space.status().as_deref(), Ok("writable, 100 MiB free"));
        space.note_failure("No space left on device");
        let status = space.status().expect_err("failed");
        assert!(status.contains("restart"), "{status}");
    }
}
