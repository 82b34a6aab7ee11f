//! How Eltex's LTP OLTs introduce themselves ([`crate::profile::detection`];
//! docs/devices.md's detection table).

use super::ELTEX;
use crate::profile::detection::DetectionRule;

/// Eltex LTP-8X (35265.1.22) and LTP-4X (35265.1.70).
pub const ELTEX_RULE: DetectionRule = DetectionRule {
    profile: &ELTEX,
    sys_object_ids: &[
        &[1, 3, 6, 1, 4, 1, 35265, 1, 22],
        &[1, 3, 6, 1, 4, 1, 35265, 1, 70],
    ],
    refine: &[],
    sys_descr: &["LTP8X", "LTP4X", "LTP-8X", "LTP-4X"],
};
