//! Eltex LTP-8X / LTP-4X (GPON, ELTEX-LTP8X MIB): the family's driver profile as data —
//! its SNMP tables (`tables.rs`: ONTs indexed by their serial), its CLI (`cli.rs`), and how
//! it introduces itself to detection (`detection.rs`). Facts and sources:
//! docs/devices.md, "Eltex LTP".

pub(super) mod cli;
pub(super) mod detection;
mod tables;

pub use tables::ELTEX;
