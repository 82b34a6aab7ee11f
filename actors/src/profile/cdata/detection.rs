//! How C-Data's OLTs introduce themselves ([`crate::profile::detection`];
//! docs/devices.md's detection table): the FD12xx / FD16xx answer the enterprise arc
//! 17409 itself as sysObjectID and their host name as sysDescr, so the sysObjectID alone
//! decides.

use super::CDATA;
use crate::profile::detection::DetectionRule;

/// C-Data FD16xx (LibreNMS tests/snmpsim/cdata.snmprec: 1.3.6.1.4.1.17409).
pub const CDATA_RULE: DetectionRule = DetectionRule {
    profile: &CDATA,
    sys_object_ids: &[&[1, 3, 6, 1, 4, 1, 17409]],
    refine: &[],
    sys_descr: &[],
};
