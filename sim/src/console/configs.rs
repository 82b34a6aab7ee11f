//! Running configurations as each family prints them (`show running-config`,
//! `display current-configuration`): every ONU's description and, where the family
//! keeps one on the ONU, its service VLAN, in the lines the CLI profiles' readers parse.

use super::super::model::{SimOlt, SimOnu};
use super::super::vendor::{ConfigDialect, SimVendor};
use ponkeeper_actors::profile::{self, OnuField};
use std::fmt::Write as _;

/// The running configuration of `olt` as its family prints it.
pub(crate) fn running_config(olt: &SimOlt, vendor: &SimVendor) -> String {
    match vendor.running_config {
        ConfigDialect::Huawei => huawei_config(olt, vendor),
        ConfigDialect::Zte => zte_config(olt, vendor),
        ConfigDialect::ZteC600 => zte_c600_config(olt, vendor),
        ConfigDialect::Bdcom => bdcom_config(olt, vendor),
        ConfigDialect::BdcomGpon => bdcom_gpon_config(olt, vendor),
        ConfigDialect::Eltex => eltex_config(olt),
        ConfigDialect::Vsol => vsol_config(olt, vendor),
        ConfigDialect::Cdata => cdata_config(olt),
        ConfigDialect::Snr => format!("hostname {}\n", olt.sys_name),
    }
}

fn serial_text(olt_vendor: &SimVendor, onu: &SimOnu) -> String {
    olt_vendor
        .profile
        .column(OnuField::Serial)
        .and_then(|c| Some(c.decode_octets(olt_vendor.wire_serial(&onu.serial).octets()?)))
        .unwrap_or_default()
}

/// Huawei `display current-configuration`.
fn huawei_config(olt: &SimOlt, vendor: &SimVendor) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "[{}: {}]\n#", vendor.model, olt.firmware);
    let _ = writeln!(out, "sysname {}\n#", olt.sys_name);
    for (id, name) in &olt.vlans {
        let _ = writeln!(
            out,
            "vlan {id} smart\nvlan desc {id} description \"{name}\""
        );
    }
    let _ = writeln!(out, "#");
    let mut board = None;
    for onu in &olt.onus {
        let port = &olt.ports[onu.port].name;
        let (this_board, number) = port.rsplit_once('/').unwrap_or(("", port));
        if board != Some(this_board) {
            if board.is_some() {
                let _ = writeln!(out, " quit\n#");
            }
            let _ = writeln!(out, "interface gpon {this_board}");
            board = Some(this_board);
        }
        let _ = writeln!(
            out,
            " ont add {number} {} sn-auth \"{}\" omci ont-lineprofile-id 10 ont-srvprofile-id 10 desc \"{}\"",
            onu.ont_id,
            serial_text(vendor, onu),
            onu.description
        );
    }
    if board.is_some() {
        let _ = writeln!(out, " quit\n#");
    }
    for (i, onu) in olt.onus.iter().enumerate() {
        if let Some(vlan) = onu.vlan {
            let _ = writeln!(
                out,
                "service-port {} vlan {vlan} gpon {} ont {} gemport 1 multi-service user-vlan {vlan} tag-transform translate",
                i + 1,
                olt.ports[onu.port].name,
                onu.ont_id
            );
        }
    }
    let _ = writeln!(out, "#\nreturn");
    out
}

/// The head ZTE and BDCOM configurations open with: the hostname, then every VLAN with
/// its name on the next line, indented by `indent`.
fn config_head(olt: &SimOlt, indent: &str) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "Building configuration...\n!\nhostname {}\n!",
        olt.sys_name
    );
    for (id, name) in &olt.vlans {
        let _ = writeln!(out, "vlan {id}\n{indent}name {name}\n!");
    }
    out
}

/// ZTE C300 / C320 `show running-config`.
fn zte_config(olt: &SimOlt, vendor: &SimVendor) -> String {
    zte_family_config(olt, vendor, ["gpon-olt_", "gpon-onu_"])
}

/// ZTE C600 / C620 `show running-config`: the C300's, with TITAN interface names.
fn zte_c600_config(olt: &SimOlt, vendor: &SimVendor) -> String {
    zte_family_config(olt, vendor, ["gpon_olt-", "gpon_onu-"])
}

/// A ZTE configuration whose port and ONU interfaces are named `names[0]1/1/1` and
/// `names[1]1/1/1:1`.
fn zte_family_config(olt: &SimOlt, vendor: &SimVendor, names: [&str; 2]) -> String {
    let [port_if, onu_if] = names;
    let mut out = config_head(olt, "  ");
    for (p, port) in olt.ports.iter().enumerate() {
        let _ = writeln!(out, "interface {port_if}{}", port.name);
        for onu in olt.onus.iter().filter(|o| o.port == p) {
            let _ = writeln!(
                out,
                "  onu {} type ZTE-F660 sn {}",
                onu.ont_id,
                serial_text(vendor, onu)
            );
        }
        let _ = writeln!(out, "!");
    }
    for onu in &olt.onus {
        let _ = writeln!(
            out,
            "interface {onu_if}{}:{}\n  name onu-{}",
            olt.ports[onu.port].name, onu.ont_id, onu.ont_id
        );
        if !onu.description.is_empty() {
            let _ = writeln!(out, "  description {}", onu.description);
        }
        let _ = writeln!(out, "  tcont 1 profile 1G\n  gemport 1 tcont 1");
        if let Some(vlan) = onu.vlan {
            let _ = writeln!(out, "  service-port 1 vport 1 user-vlan {vlan} vlan {vlan}");
        }
        let _ = writeln!(out, "!");
    }
    let _ = writeln!(out, "end");
    out
}

/// BDCOM P3310 (EPON) `show running-config`.
fn bdcom_config(olt: &SimOlt, vendor: &SimVendor) -> String {
    bdcom_family_config(olt, vendor, false)
}

/// BDCOM GP3600 (GPON) `show running-config`.
fn bdcom_gpon_config(olt: &SimOlt, vendor: &SimVendor) -> String {
    bdcom_family_config(olt, vendor, true)
}

/// A BDCOM configuration: EPON ports bind ONUs by MAC (`fcfa.f710.2030`), GPON ports by
/// serial (`HWTC:1A2B3C4D`).
fn bdcom_family_config(olt: &SimOlt, vendor: &SimVendor, gpon: bool) -> String {
    let (kind, tech) = if gpon {
        ("GPON", "gpon")
    } else {
        ("EPON", "epon")
    };
    let mut out = config_head(olt, " ");
    for (p, port) in olt.ports.iter().enumerate() {
        let _ = writeln!(out, "interface {kind}{}", port.name);
        for onu in olt.onus.iter().filter(|o| o.port == p) {
            let serial = serial_text(vendor, onu);
            let bound = if gpon {
                format!(
                    "sn {}:{}",
                    &serial[..4.min(serial.len())],
                    serial.get(4..).unwrap_or("")
                )
            } else {
                let mac = serial.replace(':', "");
                let dotted: Vec<String> = mac
                    .as_bytes()
                    .chunks(4)
                    .map(|c| String::from_utf8_lossy(c).into_owned())
                    .collect();
                format!("mac {}", dotted.join("."))
            };
            let _ = writeln!(out, " {tech} bind-onu {bound} {}", onu.ont_id);
        }
        let _ = writeln!(out, "!");
    }
    for onu in &olt.onus {
        let _ = writeln!(
            out,
            "interface {kind}{}:{}",
            olt.ports[onu.port].name, onu.ont_id
        );
        if !onu.description.is_empty() {
            let _ = writeln!(out, " description {}", onu.description);
        }
        if let Some(vlan) = onu.vlan {
            let vlan_mode = if gpon {
                "vlan mode tag"
            } else {
                "ctc vlan mode tag"
            };
            let _ = writeln!(out, " {tech} onu port 1 {vlan_mode} {vlan}");
        }
        let _ = writeln!(out, "!");
    }
    let _ = writeln!(out, "end");
    out
}

/// Eltex `show running-config`: each ONT's section under its channel and number.
fn eltex_config(olt: &SimOlt) -> String {
    let mut out = format!("hostname {}\n", olt.sys_name);
    for onu in &olt.onus {
        let port = &olt.ports[onu.port];
        let _ = writeln!(out, "interface ont {}/{}", port.position.port, onu.ont_id);
        let _ = writeln!(
            out,
            "  serial \"{}\"",
            profile::format_gpon_serial(&onu.serial)
        );
        if !onu.description.is_empty() {
            let _ = writeln!(out, "  description \"{}\"", onu.description);
        }
        let _ = writeln!(out, "exit");
    }
    out
}

/// V-SOL `show running-config`: each ONU's description under its PON port.
fn vsol_config(olt: &SimOlt, vendor: &SimVendor) -> String {
    let tech = if vendor.profile.is_epon() {
        "epon"
    } else {
        "gpon"
    };
    let mut out = format!("hostname {}\n", olt.sys_name);
    for (p, port) in olt.ports.iter().enumerate() {
        let _ = writeln!(out, "interface {tech} {}", port.name);
        for onu in olt.onus.iter().filter(|o| o.port == p) {
            let _ = writeln!(out, " onu {} desc {}", onu.ont_id, onu.description);
        }
        let _ = writeln!(out, "exit");
    }
    out
}

/// C-Data `show running-config`: each ONT's description under `interface gpon 0/0`.
fn cdata_config(olt: &SimOlt) -> String {
    let mut out = format!("hostname {}\ninterface gpon 0/0\n", olt.sys_name);
    for onu in &olt.onus {
        let port = &olt.ports[onu.port];
        let _ = writeln!(
            out,
            " ont description {} {} {}",
            port.position.port, onu.ont_id, onu.description
        );
    }
    let _ = writeln!(out, "exit");
    out
}
