//! How SNR's GPON OLTs introduce themselves ([`crate::profile::detection`];
//! docs/devices.md's detection table): enterprise 65268, sysDescr `GPON OLT` (too plain
//! to decide alone, so only the sysObjectID does).

use super::SNR;
use crate::profile::detection::DetectionRule;

/// SNR-OLT-GPON (LibreNMS tests/snmpsim/snr-olt.snmprec: 65268.1.3.34.3).
pub const SNR_RULE: DetectionRule = DetectionRule {
    profile: &SNR,
    sys_object_ids: &[&[1, 3, 6, 1, 4, 1, 65268, 1, 3, 34]],
    refine: &[],
    sys_descr: &[],
};
