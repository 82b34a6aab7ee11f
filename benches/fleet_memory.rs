//! Where `serve`'s memory per ONU goes (issue: national scale, N3), and what folding a
//! start's snapshots into the fleet view costs (N4). Builds the national workload's rows
//! (10,000 OLTs × 128 ONUs unless an OLT count is given: `cargo bench --bench
//! fleet_memory -- 1000`) and holds them as `serve` does: each OLT actor's `OnuTable`
//! after a merged poll, and the fleet view's `FleetAggregate` with every OLT's snapshot
//! folded in. The snapshots carry the actors' tables themselves (shared `Arc`s), as
//! `serve`'s do, so the view's line counts its indexes only: the rows are held once. stats_alloc's counting allocator measures the heap each part keeps as
//! requested, and the process's resident set how much memory it took with glibc's
//! chunk headers, rounding and free lists, which is what `serve`'s `VmRSS` counts.

use chrono::Utc;
use ponkeeper_actors::domain::{Onu, OpticsThresholds};
use ponkeeper_actors::fleet_view::text_index::{search_key, TextIndex};
use ponkeeper_actors::fleet_view::{diff_onus, FleetAggregate, FleetChange, OltUpdate};
use ponkeeper_actors::onu_table::OnuTable;
use ponkeeper_actors::poller::PolledOnu;
use stats_alloc::{Region, StatsAlloc, INSTRUMENTED_SYSTEM};
use std::alloc::System;
use std::time::{Duration, Instant};

#[path = "common/fleet_rows.rs"]
mod fleet_rows;
use fleet_rows::{onus_of, summary, ONUS};

#[global_allocator]
static HEAP: &StatsAlloc<System> = &INSTRUMENTED_SYSTEM;

/// What a phase added: heap bytes as requested, and resident memory as the process
/// (glibc's malloc, its chunk headers and rounding included) holds it.
#[derive(Clone, Copy)]
struct Held {
    heap: isize,
    resident: isize,
}

/// Measures what the code between `start` and `Phase::end` keeps.
struct Phase {
    region: Region<'static, System>,
    resident: isize,
}

impl Phase {
    fn start() -> Phase {
        Phase {
            region: Region::new(HEAP),
            resident: resident_bytes(),
        }
    }

    fn end(self) -> Held {
        let change = self.region.change();
        Held {
            // stats_alloc counts a realloc's growth and shrinking in these two as well.
            heap: change.bytes_allocated as isize - change.bytes_deallocated as isize,
            resident: resident_bytes() - self.resident,
        }
    }
}

/// The process's resident set, from /proc/self/statm (pages of 4 KiB).
fn resident_bytes() -> isize {
    std::fs::read_to_string("/proc/self/statm")
        .ok()
        .and_then(|s| s.split_whitespace().nth(1)?.parse::<isize>().ok())
        .map_or(0, |pages| pages * 4096)
}

/// An OLT actor's table as it is after its first poll: loaded, then merged.
fn actor_table(olt: u32, rows: Vec<Onu>, thresholds: &OpticsThresholds) -> OnuTable {
    let polled: Vec<PolledOnu> = rows.iter().map(PolledOnu::from).collect();
    let mut table = OnuTable::new(rows);
    table.merge(
        olt,
        polled,
        Utc::now(),
        thresholds,
        Duration::from_secs(300),
        |_| None,
    );
    table
}

fn per_onu(held: Held, onus: u64) -> String {
    format!(
        "{:>5.0} B heap, {:>5.0} B resident",
        held.heap as f64 / onus as f64,
        held.resident as f64 / onus as f64
    )
}

fn minus(a: Held, b: Held) -> Held {
    Held {
        heap: a.heap - b.heap,
        resident: a.resident - b.resident,
    }
}

fn main() {
    let olts: u32 = std::env::args()
        .skip(1)
        .find_map(|a| a.parse().ok())
        .unwrap_or(10_000);
    let onus = u64::from(olts) * ONUS;
    let thresholds = OpticsThresholds {
        warning_dbm: -25.0,
        critical_dbm: -27.0,
    };
    let at = Utc::now();
    println!("fleet_memory: {olts} OLTs × {ONUS} ONUs = {onus} ONUs; bytes per ONU");

    let phase = Phase::start();
    let rows: Vec<Vec<Onu>> = (1..=olts).map(|olt| onus_of(olt, at)).collect();
    let rows_bytes = phase.end();
    println!(
        "  ONU rows alone (Vec<Onu>)           {}",
        per_onu(rows_bytes, onus)
    );

    let phase = Phase::start();
    let tables: Vec<OnuTable> = rows
        .iter()
        .enumerate()
        .map(|(i, r)| actor_table(i as u32 + 1, r.clone(), &thresholds))
        .collect();
    let tables_bytes = phase.end();
    println!(
        "  OLT actors' tables (rows + indexes)  {}",
        per_onu(tables_bytes, onus)
    );
    let indexes = minus(tables_bytes, rows_bytes);
    println!(
        "    of which indexes and last points    {}",
        per_onu(indexes, onus)
    );

    let phase = Phase::start();
    let mut view = FleetAggregate::new(thresholds);
    let folding = Instant::now();
    for (i, table) in tables.iter().enumerate() {
        let olt = i as u32 + 1;
        let all = table.all();
        view.apply(FleetChange::Olt(Box::new(OltUpdate {
            olt,
            incarnation: 1,
            snapshot: true,
            summary: summary(olt, &all, at),
            ports: Some(Vec::new()),
            vlans: Some(vec![(100, "internet".into())]),
            polled_at: table.polled_at(),
            onus: diff_onus(&[], None, &all, table.polled_at()),
            table: all,
        })));
    }
    let fold = folding.elapsed();
    let posting = Instant::now();
    while view.post_text(16_384) {}
    let post = posting.elapsed();
    let view_bytes = phase.end();
    println!(
        "  fleet view (indexes; rows shared)    {}",
        per_onu(view_bytes, onus)
    );
    let total = Held {
        heap: tables_bytes.heap + view_bytes.heap,
        resident: tables_bytes.resident + view_bytes.resident,
    };
    let phase = Phase::start();
    let mut text = TextIndex::default();
    for onu in rows.iter().flatten() {
        text.insert(onu.id, search_key(&onu.serial, &onu.description));
    }
    println!(
        "    of which its text index (q=)        {}",
        per_onu(phase.end(), onus)
    );
    drop(text);
    println!(
        "  held by serve's ONU state            {}",
        per_onu(total, onus)
    );
    println!(
        "fleet view start: {onus} ONUs folded in {:.2} s = {:.2} µs per ONU; \
         their search keys posted afterwards in {:.2} s",
        fold.as_secs_f64(),
        fold.as_secs_f64() * 1e6 / onus as f64,
        post.as_secs_f64()
    );
    drop(rows);
    drop((view, tables));
}
