//! Batches waiting to be sent to VictoriaMetrics, on disk: one file a batch in
//! `<data_dir>/history-backlog/`, named by a sequence number (so oldest first is name
//! order), written to a temporary name and renamed, so a crash leaves whole batches only.
//! The backlog holds at most `backlog_max` bytes: a batch past it pushes out the oldest,
//! each dropped with a warning and counted (`ponkeeper_history_backlog_dropped_batches_total`).
//! Its size is published as gauges and kept for `/readyz` ([`BacklogStatus`]).

use std::collections::VecDeque;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

/// The directory's name in the data directory.
pub const DIR: &str = "history-backlog";
const SUFFIX: &str = ".jsonl";

/// What `/readyz` and `/metrics` show of the backlog.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct BacklogStatus {
    pub bytes: u64,
    pub batches: u64,
    /// Batches dropped since start: pushed out past `backlog_max`, or refused as malformed.
    pub dropped: u64,
    /// The last failed send, cleared by a good one.
    pub last_error: Option<String>,
}

/// The batches on disk, oldest first, each with its size.
pub struct Backlog {
    dir: PathBuf,
    batches: VecDeque<(u64, u64)>,
    bytes: u64,
    max: u64,
    status: Arc<Mutex<BacklogStatus>>,
}

impl Backlog {
    /// Opens (or creates) the backlog in `data_dir`, with the batches a previous run left.
    pub fn open(data_dir: &Path, max: u64) -> std::io::Result<Backlog> {
        let dir = data_dir.join(DIR);
        std::fs::create_dir_all(&dir)?;
        let mut batches = Vec::new();
        for entry in std::fs::read_dir(&dir)? {
            let entry = entry?;
            let name = entry.file_name();
            let name = name.to_string_lossy();
            match name
                .strip_suffix(SUFFIX)
                .and_then(|n| n.parse::<u64>().ok())
            {
                Some(seq) => batches.push((seq, entry.metadata()?.len())),
                // A batch whose write a crash cut short.
                None => std::fs::remove_file(entry.path())?,
            }
        }
        batches.sort_unstable();
        let bytes = batches.iter().map(|(_, len)| len).sum();
        let backlog = Backlog {
            dir,
            batches: batches.into(),
            bytes,
            max,
            status: Arc::default(),
        };
        backlog.publish();
        Ok(backlog)
    }

    pub fn status(&self) -> Arc<Mutex<BacklogStatus>> {
        self.status.clone()
    }

    pub fn is_empty(&self) -> bool {
        self.batches.is_empty()
    }

    fn path(&self, seq: u64) -> PathBuf {
        self.dir.join(format!("{seq:020}{SUFFIX}"))
    }

    /// Adds `batch` as the newest, dropping the oldest while the backlog would pass its
    /// bound.
    pub fn push(&mut self, batch: &[u8]) -> std::io::Result<()> {
        let len = batch.len() as u64;
        while !self.batches.is_empty() && self.bytes + len > self.max {
            self.drop_oldest("the backlog is full (history.backlog_max)")?;
        }
        let seq = self.batches.back().map_or(1, |(seq, _)| seq + 1);
        let temporary = self.dir.join(format!("{seq:020}.tmp"));
        std::fs::write(&temporary, batch)?;
        std::fs::rename(&temporary, self.path(seq))?;
        self.batches.push_back((seq, len));
        self.bytes += len;
        self.publish();
        Ok(())
    }

    /// The oldest batch's bytes, if any.
    pub fn oldest(&self) -> std::io::Result<Option<Vec<u8>>> {
        match self.batches.front() {
            None => Ok(None),
            Some((seq, _)) => std::fs::read(self.path(*seq)).map(Some),
        }
    }

    /// Removes the oldest batch (sent).
    pub fn remove_oldest(&mut self) -> std::io::Result<()> {
        if let Some((seq, len)) = self.batches.pop_front() {
            std::fs::remove_file(self.path(seq))?;
            self.bytes -= len;
        }
        self.publish();
        Ok(())
    }

    /// Removes the oldest batch unsent, with a warning saying `why`, and counts it.
    pub fn drop_oldest(&mut self, why: &str) -> std::io::Result<()> {
        if let Some((seq, len)) = self.batches.front().copied() {
            tracing::warn!(
                batch = seq,
                bytes = len,
                "history batch dropped unsent: {why}"
            );
            metrics::counter!("ponkeeper_history_backlog_dropped_batches_total").increment(1);
            lock(&self.status).dropped += 1;
            self.remove_oldest()?;
        }
        Ok(())
    }

    /// Notes the outcome of the last send.
    pub fn note_send(&self, error: Option<String>) {
        lock(&self.status).last_error = error;
    }

    fn publish(&self) {
        let mut status = lock(&self.status);
        status.bytes = self.bytes;
        status.batches = self.batches.len() as u64;
        metrics::gauge!("ponkeeper_history_backlog_bytes").set(self.bytes as f64);
        metrics::gauge!("ponkeeper_history_backlog_batches").set(self.batches.len() as f64);
    }
}

fn lock(status: &Mutex<BacklogStatus>) -> std::sync::MutexGuard<'_, BacklogStatus> {
    status
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// The status for `/readyz`.
pub fn read_status(status: &Mutex<BacklogStatus>) -> BacklogStatus {
    lock(status).clone()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn batches_leave_oldest_first_and_the_bound_drops_the_oldest() {
        let dir = tempfile::tempdir().expect("tempdir");
        let mut backlog = Backlog::open(dir.path(), 10).expect("open");
        backlog.push(b"aaaa").expect("push");
        backlog.push(b"bbbb").expect("push");
        backlog.push(b"cccc").expect("push");
        let status = read_status(&backlog.status());
        assert_eq!((status.batches, status.bytes, status.dropped), (2, 8, 1));
        drop(backlog);
        let mut backlog = Backlog::open(dir.path(), 10).expect("reopened");
        assert_eq!(backlog.oldest().expect("read"), Some(b"bbbb".to_vec()));
        backlog.remove_oldest().expect("remove");
        assert_eq!(backlog.oldest().expect("read"), Some(b"cccc".to_vec()));
        backlog.remove_oldest().expect("remove");
        assert!(backlog.is_empty());
        assert_eq!(read_status(&backlog.status()).bytes, 0);
    }
}
