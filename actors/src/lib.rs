//! `ponkeeper-actors`: the device side of ponkeeper. It owns the domain types, the
//! store, the supervisor and one actor per OLT, and the SNMP driver profiles. It knows
//! nothing of HTTP: the service reaches device state only through the handle methods of
//! [`supervisor::Fleet`] and [`olt::OltHandle`]. The simulated OLT fleet is a crate of
//! its own, `ponkeeper-sim` (`sim/`), which encodes with this crate's profiles; this
//! crate's integration tests (`tests/`) poll and drive it.

pub mod domain;
pub mod events;
pub mod fleet_view;
pub mod history_export;
pub mod host_keys;
pub mod inventory;
pub mod macs;
pub mod olt;
pub mod onu_table;
pub mod outages;
pub mod poll_workers;
pub mod poller;
pub mod profile;
pub mod provision;
pub mod published;
pub mod snmp;
pub mod sorted_map;
pub mod ssh;
pub mod store;
pub mod supervisor;
pub mod szo;
pub mod text;
pub mod traffic;
