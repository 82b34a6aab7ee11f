//! Where the traffic and optics history is kept, as the reads and the poll path see it
//! (`[history] backend`): the local store's tiers, or VictoriaMetrics
//! ([`super::victoria`]), whose writer task [`HistoryBackend::start`] starts and whose
//! backlog `/readyz` and `/metrics` show. The history reads ask it once
//! ([`super::local_series`]) instead of branching in every handler.

use super::victoria::backlog::{read_status, Backlog, BacklogStatus};
use super::victoria::{writer, Client};
use crate::config::Config;
use anyhow::Context;
use ponkeeper_actors::history_export::HistoryExport;
use std::sync::{Arc, Mutex};
use tokio::task::JoinHandle;

/// The history's store.
#[derive(Clone, Default)]
pub enum HistoryBackend {
    /// The local store (sled), in tiers.
    #[default]
    Sled,
    Victoria(Arc<Victoria>),
}

/// VictoriaMetrics as the history's store: the client the reads use, the backlog's
/// status, the writer task.
pub struct Victoria {
    pub client: Client,
    status: Arc<Mutex<BacklogStatus>>,
    writer: Mutex<Option<JoinHandle<()>>>,
}

impl HistoryBackend {
    /// The backend `config` names; with VictoriaMetrics, its backlog opened in the data
    /// directory, the writer task started, and the export the OLT actors hand their
    /// points to.
    pub fn start(config: &Config) -> anyhow::Result<(HistoryBackend, Option<HistoryExport>)> {
        let Some(target) = config.history.victoria()? else {
            return Ok((HistoryBackend::Sled, None));
        };
        let client = Client::new(target)?;
        metrics::counter!("ponkeeper_history_backlog_dropped_batches_total").increment(0);
        let backlog = Backlog::open(&config.data_dir, client.backlog_max())
            .context("cannot open the history backlog in the data directory")?;
        let status = backlog.status();
        let (export, points) = HistoryExport::channel();
        let writer = tokio::spawn(writer::run(client.clone(), backlog, points));
        tracing::info!(url = client.url(), "history kept in VictoriaMetrics");
        let victoria = Victoria {
            client,
            status,
            writer: Mutex::new(Some(writer)),
        };
        Ok((HistoryBackend::Victoria(Arc::new(victoria)), Some(export)))
    }

    /// Whether the history is this process's own (the local store): in a cluster, the
    /// other members hold the rest; VictoriaMetrics holds every member's.
    pub fn is_local(&self) -> bool {
        matches!(self, HistoryBackend::Sled)
    }

    /// The backlog waiting for VictoriaMetrics, `None` with the local store.
    pub fn backlog(&self) -> Option<(String, BacklogStatus)> {
        match self {
            HistoryBackend::Sled => None,
            HistoryBackend::Victoria(v) => Some((v.client.url().into(), read_status(&v.status))),
        }
    }

    /// Stops the writer (at shutdown): batches made are on disk, sent by the next run;
    /// points of the last few seconds not yet made a batch are lost.
    pub fn stop(&self) {
        if let HistoryBackend::Victoria(v) = self {
            let writer = v.writer.lock().unwrap_or_else(|p| p.into_inner()).take();
            if let Some(writer) = writer {
                writer.abort();
            }
        }
    }
}
