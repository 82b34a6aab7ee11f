//! Vendor detection for `vendor = "auto"` (SPEC §7): which profile an OLT needs, from the
//! sysObjectID and sysDescr it answers. The table is data ([`DETECTION`]): a rule matches
//! when the sysObjectID starts with one of its prefixes or the sysDescr contains one of
//! its phrases. The OLT actor asks [`detect`] on the first poll of an `auto` OLT.

use crate::domain::Vendor;

/// How one vendor's OLTs introduce themselves.
#[derive(Debug)]
pub struct DetectionRule {
    pub vendor: Vendor,
    /// sysObjectID prefixes (whole arcs).
    pub sys_object_ids: &'static [&'static [u32]],
    /// Phrases one of which the sysDescr contains (case-sensitive, as devices send them).
    pub sys_descr: &'static [&'static str],
}

/// DEVICES.md's detection table.
pub static DETECTION: &[DetectionRule] = &[
    DetectionRule {
        vendor: Vendor::Huawei,
        sys_object_ids: &[
            &[1, 3, 6, 1, 4, 1, 2011, 2, 80, 8],
            &[1, 3, 6, 1, 4, 1, 2011, 2, 115],
            &[1, 3, 6, 1, 4, 1, 2011, 2, 123],
            &[1, 3, 6, 1, 4, 1, 2011, 2, 133],
            &[1, 3, 6, 1, 4, 1, 2011, 2, 248],
        ],
        sys_descr: &["Huawei Integrated Access Software"],
    },
    DetectionRule {
        vendor: Vendor::Zte,
        sys_object_ids: &[&[1, 3, 6, 1, 4, 1, 3902, 1082]],
        sys_descr: &["by ZTE Corporation", "ZTE ZXA10"],
    },
    DetectionRule {
        vendor: Vendor::Bdcom,
        sys_object_ids: &[&[1, 3, 6, 1, 4, 1, 3320, 1]],
        sys_descr: &["BDCOM(tm)"],
    },
];

/// The vendor whose rule matches, sysObjectID first; `None` when no rule does.
pub fn detect(sys_object_id: Option<&[u32]>, sys_descr: Option<&str>) -> Option<Vendor> {
    let by_oid = sys_object_id.and_then(|oid| {
        DETECTION
            .iter()
            .find(|rule| rule.sys_object_ids.iter().any(|p| oid.starts_with(p)))
    });
    let by_descr = || {
        sys_descr.and_then(|descr| {
            DETECTION
                .iter()
                .find(|rule| rule.sys_descr.iter().any(|p| descr.contains(p)))
        })
    };
    by_oid.or_else(by_descr).map(|rule| rule.vendor)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn oid(text: &str) -> Vec<u32> {
        text.split('.').map(|a| a.parse().expect("arc")).collect()
    }

    /// The system group of each capture, as the device answered it.
    #[test]
    fn every_capture_is_detected() {
        let captures = [
            // tests/fixtures/huawei-ma5800.snmprec
            (
                "1.3.6.1.4.1.2011.2.248",
                "Huawei Integrated Access Software",
                Vendor::Huawei,
            ),
            // LibreNMS tests/snmpsim/smartax.snmprec (sysDescr only).
            ("", "Huawei Integrated Access Software", Vendor::Huawei),
            // tests/fixtures/zte-c320.snmprec
            (
                "1.3.6.1.4.1.3902.1082.1001.320.2.1",
                "C320 Version V2.1.0 Software, Copyright (c) by ZTE Corporation Compiled",
                Vendor::Zte,
            ),
            // LibreNMS tests/snmpsim/zxa10_c600.snmprec (a C620).
            (
                "1.3.6.1.4.1.3902.1082.1001.620.1.1",
                "ZXA10 C620, ZTE ZXA10 Software Version: V1.2.2",
                Vendor::Zte,
            ),
            // tests/fixtures/bdcom-p3310.snmprec
            (
                "1.3.6.1.4.1.3320.1.164.0",
                "BDCOM(tm) P3310 Software, Version 10.1.0E Build 41588",
                Vendor::Bdcom,
            ),
            // LibreNMS tests/snmpsim/bdcom.snmprec (a GP3600-16B).
            (
                "1.3.6.1.4.1.3320.1.390.0",
                "BDCOM(tm) GP3600-16B Software, Version 74104\nhardware version: A",
                Vendor::Bdcom,
            ),
        ];
        for (object_id, descr, vendor) in captures {
            let object_id = (!object_id.is_empty()).then(|| oid(object_id));
            assert_eq!(
                detect(object_id.as_deref(), Some(descr)),
                Some(vendor),
                "{descr}"
            );
        }
    }

    /// Every fixture in `tests/fixtures`: its system group picks its `expected.json` vendor.
    #[test]
    fn every_fixture_is_detected_as_its_vendor() {
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
            let object_id = value("1.3.6.1.2.1.1.2.0|").map(|v| oid(&v));
            let descr = value("1.3.6.1.2.1.1.1.0|");
            let expected = std::fs::read_to_string(path.with_extension("expected.json"))
                .expect("expected.json");
            let expected: serde_json::Value = serde_json::from_str(&expected).expect("json");
            let vendor: Vendor =
                serde_json::from_value(expected["vendor"].clone()).expect("vendor");
            assert_eq!(
                detect(object_id.as_deref(), descr.as_deref()),
                Some(vendor),
                "{}",
                path.display()
            );
            checked += 1;
        }
        assert!(checked >= 4, "only {checked} fixtures");
    }

    #[test]
    fn either_answer_alone_decides_and_strangers_match_nothing() {
        assert_eq!(
            detect(Some(&oid("1.3.6.1.4.1.2011.2.133.1")), None),
            Some(Vendor::Huawei)
        );
        assert_eq!(detect(None, Some("BDCOM(tm) P3600")), Some(Vendor::Bdcom));
        // A Huawei router is not an access OLT; a prefix matches whole arcs only.
        assert_eq!(detect(Some(&oid("1.3.6.1.4.1.2011.2.62")), None), None);
        assert_eq!(detect(Some(&oid("1.3.6.1.4.1.33201.1")), None), None);
        assert_eq!(
            detect(Some(&oid("1.3.6.1.4.1.9.1.1")), Some("Cisco IOS Software")),
            None
        );
        assert_eq!(detect(None, None), None);
    }

    #[test]
    fn every_profile_announces_itself_as_its_own_vendor() {
        for vendor in Vendor::ALL {
            let profile = super::super::Profile::for_vendor(vendor);
            assert_eq!(
                detect(Some(profile.sys_object_id), Some(profile.sys_descr)),
                Some(vendor)
            );
        }
    }
}
