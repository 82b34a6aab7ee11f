//! Events (docs/events.md): what changed in the fleet that a person would want to know about,
//! kept in a durable log and read by `GET /events`, the stream and webhooks. They are
//! derived from the same changes the OLT actors publish to the fleet view: the fleet
//! view actor compares each change with what it held ([`derive`]) and sends the drafts
//! to the [`EventLog`] actor, which gives them gapless ids and writes them to sled before
//! anyone is told.
//!
//! ```text
//!   OltActor ─ FleetChange ─▶ FleetViewActor ─ drafts ─▶ EventLogActor ─▶ sled `events`
//!                             (derive, then apply)          │ watch(last id)
//!                                                            ▼
//!                                     GET /events, /events/stream, webhooks (read the log)
//! ```

pub mod derive;
pub mod log;
pub mod record;
#[cfg(test)]
pub(crate) mod tests;

pub use derive::{derive, HeldRows};
pub use log::{EventLog, EventSettings};
pub use record::{Draft, Event, EventFilter, EventType, Severity};
