//! Huawei MA5600T / MA5800 (GPON, HUAWEI-XPON-MIB): the family's driver profile as
//! data, side by side — its SNMP tables and ifIndex layout (`tables.rs`), its CLI
//! dialogue and scripts (`cli.rs`), how it shows and registers unconfigured ONUs
//! (`provisioning.rs`) and how it introduces itself to detection (`detection.rs`). The
//! types these fill and the code that reads them are in [`crate::profile`], which
//! re-exports what the poller and the simulator name. Facts and sources:
//! docs/devices.md, "Huawei MA5600T / MA5800".

pub(super) mod cli;
pub(super) mod detection;
pub(super) mod provisioning;
mod tables;

pub use tables::{huawei_gpon_if_index, HUAWEI, HUAWEI_GPON};
