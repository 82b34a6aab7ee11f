//! How BDCOM OLTs introduce themselves: the GPON (GP) models' sysObjectID and sysDescr,
//! and the catch-all for the rest of BDCOM's OLTs, which must come after it
//! ([`crate::profile::detection`]; docs/devices.md's detection table).

use super::{BDCOM, BDCOM_GPON};
use crate::profile::detection::DetectionRule;

/// BDCOM's GPON OLTs are the GP models (GP3600-16B is 3320.1.390).
pub const BDCOM_GPON_RULE: DetectionRule = DetectionRule {
    profile: &BDCOM_GPON,
    sys_object_ids: &[&[1, 3, 6, 1, 4, 1, 3320, 1, 390]],
    refine: &[],
    sys_descr: &["BDCOM(tm) GP"],
};

/// Any other BDCOM OLT: the P3310 / P3600 family (EPON).
pub const BDCOM_RULE: DetectionRule = DetectionRule {
    profile: &BDCOM,
    sys_object_ids: &[&[1, 3, 6, 1, 4, 1, 3320, 1]],
    refine: &[],
    sys_descr: &["BDCOM(tm)"],
};
