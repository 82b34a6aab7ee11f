//! C-Data FD16xx (GPON, NSCRTV-FTTX-GPON-MIB as C-Data implements it): the family's
//! driver profile as data — its SNMP tables (`tables.rs`: ONUs under one packed index),
//! its CLI (`cli.rs`), and how it introduces itself to detection (`detection.rs`). Facts
//! and sources: docs/devices.md, "C-Data".

pub(super) mod cli;
pub(super) mod detection;
mod tables;

pub use tables::CDATA;
