//! V-SOL V1600D (EPON) and V1600G / V1600GS (GPON): the family's driver profiles as
//! data — their SNMP tables (`tables.rs`: rows `<pon>.<onu>`, optics as text), their CLI
//! (`cli.rs`) and how they introduce themselves to detection (`detection.rs`: both
//! answer one sysObjectID, the sysDescr tells them apart). Facts and sources:
//! docs/devices.md, "V-SOL".

pub(super) mod cli;
pub(super) mod detection;
mod tables;

pub use tables::{VSOL_EPON, VSOL_GPON};
