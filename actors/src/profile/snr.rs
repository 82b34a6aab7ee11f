//! SNR-OLT-GPON (NGPON-MIB): the family's driver profile as data — its SNMP tables
//! (`tables.rs`: rows `<slot>.<port>.<ont>`, optics, distance and serial as text), its CLI
//! (`cli.rs`: none is published, so every CLI action answers 501) and how it introduces
//! itself to detection (`detection.rs`). Facts and sources: docs/devices.md, "SNR".

pub(super) mod cli;
pub(super) mod detection;
mod tables;

pub use tables::SNR;
