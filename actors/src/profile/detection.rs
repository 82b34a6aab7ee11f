//! Layout detection (docs/devices.md, vendor detection): which profile an OLT needs, from
//! the sysObjectID and sysDescr it answers. The table is data ([`DETECTION`]): a rule
//! matches when the sysObjectID starts with one of its prefixes or the sysDescr contains
//! one of its phrases, and the first rule that matches wins, so a vendor's later families
//! (ZTE C600, BDCOM GPON) come before its catch-all. The engine and that order are here;
//! each family's rule is in its folder (`huawei/detection.rs` etc.). Every poll reads the
//! system group and asks [`super::Profile::for_device`]: for `vendor = "auto"` this is
//! vendor detection, for a configured vendor it picks among that vendor's layouts.

use super::Profile;
#[cfg(test)]
use crate::domain::Vendor;

/// How one layout's OLTs introduce themselves.
#[derive(Debug)]
pub struct DetectionRule {
    pub profile: &'static Profile,
    /// sysObjectID prefixes (whole arcs).
    pub sys_object_ids: &'static [&'static [u32]],
    /// Where layouts share a sysObjectID (V-SOL's EPON and GPON), phrases one of which
    /// the sysDescr must also contain for the sysObjectID to pick this rule; empty: the
    /// sysObjectID alone decides.
    pub refine: &'static [&'static str],
    /// Phrases one of which the sysDescr contains (case-sensitive, as devices send them).
    pub sys_descr: &'static [&'static str],
}

/// docs/devices.md's detection table, most specific rule first: a vendor's later
/// families before its catch-all. The rules themselves are in each family's folder.
pub static DETECTION: &[DetectionRule] = &[
    super::huawei::detection::HUAWEI_RULE,
    super::zte::detection::ZTE_C600_RULE,
    super::zte::detection::ZTE_RULE,
    super::bdcom::detection::BDCOM_GPON_RULE,
    super::bdcom::detection::BDCOM_RULE,
    super::eltex::detection::ELTEX_RULE,
    super::vsol::detection::VSOL_GPON_RULE,
    super::vsol::detection::VSOL_EPON_RULE,
    super::cdata::detection::CDATA_RULE,
    super::snr::detection::SNR_RULE,
];

/// The profile whose rule matches, sysObjectID first; `None` when no rule does.
pub fn detect(sys_object_id: Option<&[u32]>, sys_descr: Option<&str>) -> Option<&'static Profile> {
    let refined = |rule: &DetectionRule| {
        rule.refine.is_empty()
            || sys_descr.is_some_and(|descr| rule.refine.iter().any(|p| descr.contains(p)))
    };
    let by_oid = sys_object_id.and_then(|oid| {
        DETECTION
            .iter()
            .find(|rule| rule.sys_object_ids.iter().any(|p| oid.starts_with(p)) && refined(rule))
    });
    let by_descr = || {
        sys_descr.and_then(|descr| {
            DETECTION
                .iter()
                .find(|rule| rule.sys_descr.iter().any(|p| descr.contains(p)))
        })
    };
    by_oid.or_else(by_descr).map(|rule| rule.profile)
}

/// The vendor [`detect`] names (tests read the table by vendor).
#[cfg(test)]
fn detect_vendor(sys_object_id: Option<&[u32]>, sys_descr: Option<&str>) -> Option<Vendor> {
    detect(sys_object_id, sys_descr).map(|profile| profile.vendor)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::profile::{
        BDCOM, BDCOM_GPON, CDATA, ELTEX, HUAWEI, SNR, VSOL_EPON, VSOL_GPON, ZTE, ZTE_C600,
    };

    fn oid(text: &str) -> Vec<u32> {
        text.split('.').map(|a| a.parse().expect("arc")).collect()
    }

    /// The system group of each capture, as the device answered it, and the layout it is.
    #[test]
    fn every_capture_is_detected() {
        let captures = [
            // tests/fixtures/huawei-ma5800.snmprec
            (
                "1.3.6.1.4.1.2011.2.248",
                "Huawei Integrated Access Software",
                &HUAWEI,
            ),
            // LibreNMS tests/snmpsim/smartax.snmprec (sysDescr only).
            ("", "Huawei Integrated Access Software", &HUAWEI),
            // tests/fixtures/zte-c320.snmprec
            (
                "1.3.6.1.4.1.3902.1082.1001.320.2.1",
                "C320 Version V2.1.0 Software, Copyright (c) by ZTE Corporation Compiled",
                &ZTE,
            ),
            // LibreNMS tests/snmpsim/zxa10_c600.snmprec and zxa10_c620.snmprec (C620s).
            (
                "1.3.6.1.4.1.3902.1082.1001.620.1.1",
                "ZXA10 C620, ZTE ZXA10 Software Version: V1.2.2",
                &ZTE_C600,
            ),
            (
                "",
                "ZXA10 C620, ZTE ZXA10 Software Version: V2.0.30",
                &ZTE_C600,
            ),
            // tests/fixtures/bdcom-p3310.snmprec
            (
                "1.3.6.1.4.1.3320.1.164.0",
                "BDCOM(tm) P3310 Software, Version 10.1.0E Build 41588",
                &BDCOM,
            ),
            // LibreNMS tests/snmpsim/bdcom.snmprec (a GP3600-16B).
            (
                "1.3.6.1.4.1.3320.1.390.0",
                "BDCOM(tm) GP3600-16B Software, Version 74104\nhardware version: A",
                &BDCOM_GPON,
            ),
            ("", "BDCOM(tm) GP3600-08 Software", &BDCOM_GPON),
            // LibreNMS tests/snmpsim/eltex-olt.snmprec (an LTP-8X).
            (
                "1.3.6.1.4.1.35265.1.22",
                "Linux AT-LTP8X-BG-1 2.6.22.18 #1 Fri Sep 2 10:00:29 UTC 2016 armv5tejl",
                &ELTEX,
            ),
            // LibreNMS tests/snmpsim/vsolution_v1600d.snmprec and vsolution_v1600gs.snmprec:
            // one sysObjectID, the sysDescr tells them apart.
            ("1.3.6.1.4.1.37950.1.1.5.10.14.1", "V1600D", &VSOL_EPON),
            ("1.3.6.1.4.1.37950.1.1.5.10.14.1", "V1600GS", &VSOL_GPON),
            ("", "V1600G1B", &VSOL_GPON),
            // LibreNMS tests/snmpsim/cdata.snmprec: the host name as sysDescr.
            ("1.3.6.1.4.1.17409", "zaporojskoe-olt", &CDATA),
            // LibreNMS tests/snmpsim/snr-olt.snmprec.
            ("1.3.6.1.4.1.65268.1.3.34.3", "GPON OLT", &SNR),
        ];
        for (object_id, descr, profile) in captures {
            let object_id = (!object_id.is_empty()).then(|| oid(object_id));
            let found = detect(object_id.as_deref(), Some(descr)).map(|p| p.family);
            assert_eq!(found, Some(profile.family), "{descr}");
        }
    }

    /// Every fixture in `tests/fixtures`: its system group picks its `expected.json`
    /// vendor and family.
    #[test]
    fn every_fixture_is_detected_as_its_layout() {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/fixtures");
        let mut checked = 0;
        for entry in std::fs::read_dir(&dir).expect("tests/fixtures") {
            let path = entry.expect("entry").path();
            if path.extension().is_none_or(|e| e != "snmprec") {
                continue;
            }
            let text = std::fs::read_to_string(&path).expect("snmprec");
            let value = |name: &str| {
                text.lines()
                    .find_map(|l| l.strip_prefix(name)?.split_once('|').map(|(_, v)| v))
                    .map(str::to_string)
            };
            // snmpsim takes an OID value with a leading dot too (the C-Data capture's).
            let object_id = value("1.3.6.1.2.1.1.2.0|").map(|v| oid(v.trim_start_matches('.')));
            let descr = value("1.3.6.1.2.1.1.1.0|");
            let expected = std::fs::read_to_string(path.with_extension("expected.json"))
                .expect("expected.json");
            let expected: serde_json::Value = serde_json::from_str(&expected).expect("json");
            let vendor: Vendor =
                serde_json::from_value(expected["vendor"].clone()).expect("vendor");
            let found = detect(object_id.as_deref(), descr.as_deref());
            let shown = path.display();
            assert_eq!(found.map(|p| p.vendor), Some(vendor), "{shown}");
            assert_eq!(
                found.map(|p| p.family),
                expected["family"].as_str(),
                "{shown}"
            );
            checked += 1;
        }
        assert!(checked >= 6, "only {checked} fixtures");
    }

    /// V-SOL's GPON rule takes a `37950` device only when the sysDescr says `V1600G`; a
    /// sysObjectID alone is the V1600D's.
    #[test]
    fn a_refined_rule_needs_its_sysdescr_too() {
        let vsol = oid("1.3.6.1.4.1.37950.1.1.5.10.14.1");
        let family = |descr: Option<&str>| detect(Some(&vsol), descr).map(|p| p.layout);
        assert_eq!(family(Some("V1600GS")), Some("V1600G"));
        assert_eq!(family(Some("V1600D8")), Some("V1600D"));
        assert_eq!(family(None), Some("V1600D"));
        assert_eq!(family(Some("a V1600G in its description")), Some("V1600G"));
    }

    #[test]
    fn either_answer_alone_decides_and_strangers_match_nothing() {
        assert_eq!(
            detect_vendor(Some(&oid("1.3.6.1.4.1.2011.2.133.1")), None),
            Some(Vendor::Huawei)
        );
        assert_eq!(
            detect_vendor(None, Some("BDCOM(tm) P3600")),
            Some(Vendor::Bdcom)
        );
        // A Huawei router is not an access OLT; a prefix matches whole arcs only.
        assert_eq!(
            detect_vendor(Some(&oid("1.3.6.1.4.1.2011.2.62")), None),
            None
        );
        assert_eq!(detect_vendor(Some(&oid("1.3.6.1.4.1.33201.1")), None), None);
        assert_eq!(
            detect_vendor(Some(&oid("1.3.6.1.4.1.9.1.1")), Some("Cisco IOS Software")),
            None
        );
        assert_eq!(detect_vendor(None, None), None);
    }

    #[test]
    fn every_profile_announces_itself_as_its_own_layout() {
        for profile in Profile::ALL {
            let found = detect(Some(profile.sys_object_id), Some(profile.sys_descr));
            assert_eq!(found.map(|p| p.family), Some(profile.family));
        }
    }

    #[test]
    fn a_configured_vendor_picks_among_its_own_layouts_only() {
        let c620 = oid("1.3.6.1.4.1.3902.1082.1001.620.1.1");
        let family = |vendor, oid: Option<&[u32]>| {
            Profile::for_device(vendor, oid, None).map(|profile| profile.family)
        };
        assert_eq!(
            family(Some(Vendor::Zte), Some(&c620)),
            Some(ZTE_C600.family)
        );
        assert_eq!(family(Some(Vendor::Zte), None), Some(ZTE.family));
        // A Huawei named ZTE in the inventory is read as ZTE said, not as detected.
        let huawei = oid("1.3.6.1.4.1.2011.2.248");
        assert_eq!(family(Some(Vendor::Zte), Some(&huawei)), Some(ZTE.family));
        assert_eq!(family(None, Some(&huawei)), Some(HUAWEI.family));
        assert_eq!(family(None, None), None);
    }
}
