//! How V-SOL's OLTs introduce themselves ([`crate::profile::detection`]; docs/devices.md's
//! detection table): the V1600D and the V1600G / V1600GS answer one sysObjectID, and
//! the sysDescr, which is the model, tells them apart (switcher-core's V-SOL models:
//! `^V1600G` is GPON), so the GPON rule refines the sysObjectID and comes first.

use super::{VSOL_EPON, VSOL_GPON};
use crate::profile::detection::DetectionRule;

const VSOL: &[u32] = &[1, 3, 6, 1, 4, 1, 37950];

/// V1600G, V1600GS, V1600G1B…: sysDescr `V1600G…`.
pub const VSOL_GPON_RULE: DetectionRule = DetectionRule {
    profile: &VSOL_GPON,
    sys_object_ids: &[VSOL],
    refine: &["V1600G"],
    sys_descr: &["V1600G"],
};

/// Any other V-SOL OLT: the V1600D family (EPON).
pub const VSOL_EPON_RULE: DetectionRule = DetectionRule {
    profile: &VSOL_EPON,
    sys_object_ids: &[VSOL],
    refine: &[],
    sys_descr: &["V1600D"],
};
