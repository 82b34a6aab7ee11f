//! The service's side of outages (docs/outages.md): the `[outages]` config section, and at
//! start the outage book's archive opened and handed to the fleet view with the kept
//! outages, and the outside plant (splitters, placements) read from the records and
//! handed to it too. The book itself is the device side's
//! ([`ponkeeper_actors::outages`]); `GET /outages`, `/splitters` and the placements are
//! [`crate::api`]'s `outages` and `splitters` modules.

use anyhow::bail;
use ponkeeper_actors::inventory::Inventory;
use ponkeeper_actors::outages::{OutageArchive, OutageRules, PlantChange};
use ponkeeper_actors::store::Store;
use ponkeeper_actors::supervisor::Fleet;
use serde::{Deserialize, Serialize};
use std::time::Duration;

/// `[outages]`.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct OutagesConfig {
    /// LOS downs must be at least this share of a port's ONUs for a `PON_OUTAGE` (their
    /// least number is `events.pon_outage_min`).
    pub port_share: f64,
    /// LOS downs behind one splitter that make a `SPLITTER_OUTAGE`…
    pub splitter_min: u32,
    /// …when at least this share of the ONUs behind it.
    pub splitter_share: f64,
    /// Dying-gasp downs of one splitter, address or port that make a `POWER_OUTAGE`.
    pub power_min: u32,
    /// Downs further apart than this are not one fault.
    #[serde(with = "humantime_serde")]
    pub window: Duration,
    /// Ended outages are kept this long.
    #[serde(with = "humantime_serde")]
    pub retention: Duration,
}

impl Default for OutagesConfig {
    fn default() -> Self {
        let rules = OutageRules::default();
        OutagesConfig {
            port_share: rules.port_share,
            splitter_min: rules.splitter_min as u32,
            splitter_share: rules.splitter_share,
            power_min: rules.power_min as u32,
            window: rules.window,
            retention: rules.retention,
        }
    }
}

impl OutagesConfig {
    pub fn validate(&self) -> anyhow::Result<()> {
        for (key, share) in [
            ("port_share", self.port_share),
            ("splitter_share", self.splitter_share),
        ] {
            if !(share > 0.0 && share <= 1.0) {
                bail!("key `outages.{key}`: must be above 0 and at most 1, e.g. 0.5");
            }
        }
        for (key, min) in [
            ("splitter_min", self.splitter_min),
            ("power_min", self.power_min),
        ] {
            if min < 2 {
                bail!("key `outages.{key}`: must be at least 2 (one ONU is not an outage)");
            }
        }
        if self.window.is_zero() || self.retention.is_zero() {
            bail!("keys `outages.window` and `outages.retention`: must be above zero, e.g. 5m and 30d");
        }
        Ok(())
    }

    /// The book's rules, with the port minimum of `[events]`.
    pub fn rules(&self, pon_outage_min: u32) -> OutageRules {
        OutageRules {
            port_min: pon_outage_min as usize,
            port_share: self.port_share,
            splitter_min: self.splitter_min as usize,
            splitter_share: self.splitter_share,
            power_min: self.power_min as usize,
            window: self.window,
            retention: self.retention,
        }
    }
}

/// Opens the archive and hands the fleet view the book (before the event log, so every
/// change it derives events from is seen by the book) and the records' plant, after the
/// inventory's `[[splitters]]` were made real in the records.
pub async fn start(
    rules: OutageRules,
    store: &Store,
    (records, inventory): (&crate::records::Records, &Inventory),
    fleet: &Fleet,
) -> anyhow::Result<()> {
    let declared = records.declare_splitters(&inventory.splitters).await?;
    log_declared(&declared);
    let archive = OutageArchive::open(store)?;
    let kept_since = chrono::Utc::now()
        - chrono::Duration::from_std(rules.retention).unwrap_or(chrono::Duration::days(30));
    let kept = archive.load(kept_since)?;
    let view = fleet.view();
    view.feed_outages(rules, archive, kept);
    view.plant(PlantChange::Splitters(records.splitters()?));
    view.plant(PlantChange::Place(records.placements()?));
    Ok(())
}

/// Logs what the inventory's splitters changed in the records, if anything.
pub fn log_declared(declared: &crate::records::declared::Declared) {
    if !declared.is_empty() {
        tracing::info!(
            created = declared.created,
            changed = declared.changed,
            removed = declared.removed,
            onus_freed = declared.freed.len(),
            "inventory splitters applied"
        );
    }
}
