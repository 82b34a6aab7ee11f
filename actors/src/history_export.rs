//! History points handed to an outside store instead of the local series
//! (`[history] backend = "victoriametrics"`, docs/operations.md, "History"). A poll's merge,
//! on the blocking pool, puts its traffic and optics points with each ONU's labels (OLT,
//! ONU id, serial, PON port, node) on an unbounded channel and returns: the service's
//! writer task batches them, keeps them on disk while the outside store is away and sends
//! them. Nothing here waits on the network, and an actor's message handler never sees it.

use crate::domain::{CompactString, NodeId, OltId, Onu, OnuId, OpticsPoint};
use crate::traffic::TrafficPoint;
use tokio::sync::mpsc;

/// Who a point is of: the labels of its series.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct SeriesLabels {
    pub olt: OltId,
    pub onu: OnuId,
    pub serial: CompactString,
    pub pon: String,
    pub node: Option<NodeId>,
}

impl SeriesLabels {
    /// `onu`'s labels, on an OLT of `node`.
    pub fn of(onu: &Onu, node: Option<NodeId>) -> SeriesLabels {
        SeriesLabels {
            olt: onu.olt_id,
            onu: onu.id,
            serial: onu.serial.clone(),
            pon: onu.pon_port.to_string(),
            node,
        }
    }
}

/// One history point of either kind.
#[derive(Debug, Clone, PartialEq)]
pub enum ExportedPoint {
    Traffic(TrafficPoint),
    Optics(OpticsPoint),
}

/// The sending end, cloned into every OLT actor's poll settings.
#[derive(Debug, Clone)]
pub struct HistoryExport {
    sender: mpsc::UnboundedSender<Vec<(SeriesLabels, ExportedPoint)>>,
}

/// The receiving end, the writer task's.
pub type ExportReceiver = mpsc::UnboundedReceiver<Vec<(SeriesLabels, ExportedPoint)>>;

impl HistoryExport {
    pub fn channel() -> (HistoryExport, ExportReceiver) {
        let (sender, receiver) = mpsc::unbounded_channel();
        (HistoryExport { sender }, receiver)
    }

    /// Hands `points` over; never blocks. Points sent after the writer stopped (at
    /// shutdown) are dropped with a debug line.
    pub fn send(&self, points: Vec<(SeriesLabels, ExportedPoint)>) {
        if points.is_empty() {
            return;
        }
        if self.sender.send(points).is_err() {
            tracing::debug!("history points after the writer stopped, dropped");
        }
    }
}
