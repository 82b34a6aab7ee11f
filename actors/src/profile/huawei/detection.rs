//! How Huawei MA5600T / MA5800 OLTs introduce themselves: the sysObjectID prefixes and
//! sysDescr phrase [`crate::profile::detection`] matches (docs/devices.md's detection
//! table).

use super::HUAWEI;
use crate::profile::detection::DetectionRule;

/// The MA5600T / MA5800 family.
pub const HUAWEI_RULE: DetectionRule = DetectionRule {
    profile: &HUAWEI,
    sys_object_ids: &[
        &[1, 3, 6, 1, 4, 1, 2011, 2, 80, 8],
        &[1, 3, 6, 1, 4, 1, 2011, 2, 115],
        &[1, 3, 6, 1, 4, 1, 2011, 2, 123],
        &[1, 3, 6, 1, 4, 1, 2011, 2, 133],
        &[1, 3, 6, 1, 4, 1, 2011, 2, 248],
    ],
    refine: &[],
    sys_descr: &["Huawei Integrated Access Software"],
};
