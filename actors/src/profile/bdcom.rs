//! BDCOM's two families as data, side by side: the EPON OLTs (P3310 / P3600,
//! NMS-EPON MIB, ports `EPON0/1`) and the GPON ones (GP3600, NMS-GPON-MIB's `3320.10.3`,
//! ports `GPON0/1`) — their SNMP tables (`tables.rs`), their CLI dialogues and scripts
//! (`cli.rs`), how BDCOM binds unconfigured ONUs (`provisioning.rs`) and how each family
//! introduces itself to detection (`detection.rs`). The types and the code that reads
//! them are in [`crate::profile`]. Facts and sources: docs/devices.md, "BDCOM P3310 /
//! P3600" and "BDCOM GP3600".

pub(super) mod cli;
pub(super) mod detection;
pub(super) mod provisioning;
mod tables;

pub use tables::{BDCOM, BDCOM_GPON};
