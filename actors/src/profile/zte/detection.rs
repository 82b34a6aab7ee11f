//! How ZTE OLTs introduce themselves: the TITAN generation's sysObjectIDs and sysDescr
//! phrases, and the catch-all for the rest of ZTE's OLTs, which must come after it
//! ([`crate::profile::detection`]; docs/devices.md's detection table).

use super::{ZTE, ZTE_C600};
use crate::profile::detection::DetectionRule;

/// ZTE's TITAN generation: C600, C620 (.620 in the LibreNMS captures), C650.
pub const ZTE_C600_RULE: DetectionRule = DetectionRule {
    profile: &ZTE_C600,
    sys_object_ids: &[
        &[1, 3, 6, 1, 4, 1, 3902, 1082, 1001, 600],
        &[1, 3, 6, 1, 4, 1, 3902, 1082, 1001, 620],
        &[1, 3, 6, 1, 4, 1, 3902, 1082, 1001, 650],
    ],
    refine: &[],
    sys_descr: &["ZXA10 C600", "ZXA10 C620", "ZXA10 C650"],
};

/// Any other ZTE OLT: the C300 / C320 family.
pub const ZTE_RULE: DetectionRule = DetectionRule {
    profile: &ZTE,
    sys_object_ids: &[&[1, 3, 6, 1, 4, 1, 3902, 1082]],
    refine: &[],
    sys_descr: &["by ZTE Corporation", "ZTE ZXA10"],
};
