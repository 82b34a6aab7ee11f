//! ZTE's two GPON families as data, side by side: the C300 / C320 (ZXGPON 1012 MIB) and
//! the C600 / C620 / C650 TITAN generation, whose ports are `gpon_olt-1/1/1` and whose
//! ONU tables moved to the `3902.1082.500` subtree — their SNMP tables and the C600's
//! port ifIndex layout (`tables.rs`), their CLI dialogues and scripts (`cli.rs`), how ZTE
//! shows and registers unconfigured ONUs (`provisioning.rs`) and how each family
//! introduces itself to detection (`detection.rs`). The types and the code that reads
//! them are in [`crate::profile`]. Facts and sources: docs/devices.md, "ZTE C300 /
//! C320" and "ZTE C600 / C620 / C650".

pub(super) mod cli;
pub(super) mod detection;
pub(super) mod provisioning;
mod tables;

pub use tables::{ZTE, ZTE_C600, ZTE_C600_GPON};
