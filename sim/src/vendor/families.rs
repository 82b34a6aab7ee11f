//! The simulator's tables for the CIS families — Eltex LTP-8X, V-SOL V1600D and
//! V1600G / V1600GS, C-Data FD16xx, SNR-OLT-GPON — laid out as their captures show them
//! (docs/devices.md), and the running configurations their consoles print. Where a
//! capture shows nothing (Eltex's IF-MIB, any family's firmware list), the values are
//! plausible stand-ins and say so. Their consoles' running configurations are in
//! `console/configs.rs`.

use super::{ConfigDialect, PortPosition, SimVendor};
use ponkeeper_actors::profile;

/// (?) Eltex: ports only in the ONT rows (no capture shows the LTP's IF-MIB), so the
/// ifIndex is never served.
fn eltex_port_if_index(at: PortPosition) -> u32 {
    1 + at.ordinal
}

/// V-SOL V1600D: the capture's PON ports are ifIndex 5 and 6, after four uplinks.
fn vsol_epon_port_if_index(at: PortPosition) -> u32 {
    5 + at.ordinal
}

/// (?) V-SOL V1600D: the capture's ONU interfaces follow the ports (8 … 23 for
/// `EPON0/1:1` … `:16`); a block of 64 per port stands in.
fn vsol_epon_onu_if_index(at: PortPosition, onu_id: u32) -> u32 {
    100 + at.ordinal * 64 + onu_id - 1
}

/// V-SOL V1600GS: the capture's PON port is ifIndex 4, after three uplinks.
fn vsol_gpon_port_if_index(at: PortPosition) -> u32 {
    4 + at.ordinal
}

/// C-Data: `0x01000000 | n << 8`, the PON ports after 8 GE and 4 XGE uplinks
/// (`pon0/0/1` is 16780544 in the capture).
fn cdata_port_if_index(at: PortPosition) -> u32 {
    0x0100_0000 | ((13 + at.ordinal) << 8)
}

/// SNR: the capture's `gpon0/2/1` … `/16` are ifIndex 13 … 28, after 12 uplinks.
fn snr_port_if_index(at: PortPosition) -> u32 {
    13 + at.ordinal
}

pub(super) static ELTEX: SimVendor = SimVendor {
    profile: &profile::ELTEX,
    model: "LTP-8X",
    // (?) no capture names a firmware.
    firmware: &["3.38.2", "3.40.1"],
    serial_prefixes: &[(b"ELTX", 70), (b"HWTC", 20), (b"ZTEG", 10)],
    // (?) LTPONTState 8 failed: the state says nothing of why.
    offline_status: 8,
    frame: 0,
    name_has_frame: false,
    first_slot: 1,
    slots: 1,
    first_port: 0,
    ports_per_slot: 8,
    max_onus_per_port: 64,
    first_onu_id: 0,
    onu_ids_per_port: 128,
    port_if_type: 1,
    port_if_index: eltex_port_if_index,
    if_descr_is_name: true,
    onu_if_index: None,
    ports_in_if_mib: false,
    running_config: ConfigDialect::Eltex,
    error_unknown: "Unknown command",
    error_no_onu: "Error: ONT is not configured",
    error_no_vlan: "Error: no such VLAN",
};

pub(super) static VSOL_EPON: SimVendor = SimVendor {
    profile: &profile::VSOL_EPON,
    model: "V1600D",
    // (?) no capture names a firmware.
    firmware: &["V2.1.6R", "V2.1.3R"],
    // MAC OUIs (the rest is random).
    serial_prefixes: &[(&[0x70, 0xA5, 0x6A], 60), (&[0xE0, 0x67, 0xB3], 40)],
    // lineStatus2 0 offline; the cause is a column of its own.
    offline_status: 0,
    frame: 0,
    name_has_frame: false,
    first_slot: 0,
    slots: 1,
    first_port: 1,
    ports_per_slot: 4,
    max_onus_per_port: 64,
    first_onu_id: 1,
    onu_ids_per_port: 64,
    port_if_type: 1,
    port_if_index: vsol_epon_port_if_index,
    // The capture's PON ports have a single space for ifDescr.
    if_descr_is_name: false,
    onu_if_index: Some(vsol_epon_onu_if_index),
    ports_in_if_mib: true,
    running_config: ConfigDialect::Vsol,
    error_unknown: "% Unknown command.",
    error_no_onu: "% Invalid input: the ONU does not exist.",
    error_no_vlan: "% Invalid input: VLAN not configured.",
};

pub(super) static VSOL_GPON: SimVendor = SimVendor {
    profile: &profile::VSOL_GPON,
    model: "V1600GS",
    firmware: &["V1.2.0", "V1.4.4R"],
    serial_prefixes: &[(b"VSOL", 60), (b"HWTC", 25), (b"ZTEG", 15)],
    // gOnuStaInfoPhaseSta 6 offLine; LOS and dying gasp have phases of their own.
    offline_status: 6,
    ports_per_slot: 8,
    max_onus_per_port: 128,
    onu_ids_per_port: 128,
    port_if_index: vsol_gpon_port_if_index,
    if_descr_is_name: true,
    onu_if_index: None,
    ..VSOL_EPON
};

pub(super) static CDATA: SimVendor = SimVendor {
    profile: &profile::CDATA,
    model: "FD1616",
    // (?) the capture's software line is 4.2.7.58 (FD11xx's arc); FD16xx's stand in.
    firmware: &["V3.2.5", "V1.5.0"],
    serial_prefixes: &[(b"CDTC", 50), (b"HWTC", 30), (b"ZTEG", 20)],
    // onuOperationStatus 2 down; the cause is a column of its own.
    offline_status: 2,
    frame: 0,
    name_has_frame: true,
    first_slot: 0,
    slots: 1,
    first_port: 1,
    ports_per_slot: 16,
    max_onus_per_port: 128,
    first_onu_id: 1,
    onu_ids_per_port: 128,
    port_if_type: 117,
    port_if_index: cdata_port_if_index,
    if_descr_is_name: true,
    onu_if_index: None,
    ports_in_if_mib: true,
    running_config: ConfigDialect::Cdata,
    error_unknown: "Unknown command: (",
    error_no_onu: "Failure: The ONT does not exist",
    error_no_vlan: "Failure: The VLAN does not exist",
};

pub(super) static SNR: SimVendor = SimVendor {
    profile: &profile::SNR,
    model: "SNR-OLT-GPON-16-2AC",
    firmware: &["V1.08.B01-4"],
    serial_prefixes: &[(b"HWTC", 40), (b"ZTEG", 30), (b"GPON", 30)],
    // ontRunStatus 0 offline; the reason is a column of its own.
    offline_status: 0,
    frame: 0,
    name_has_frame: true,
    // The capture's PON slot is 2 (`gpon0/2/N`).
    first_slot: 2,
    slots: 1,
    first_port: 1,
    ports_per_slot: 16,
    max_onus_per_port: 128,
    first_onu_id: 1,
    onu_ids_per_port: 128,
    port_if_type: 6,
    port_if_index: snr_port_if_index,
    if_descr_is_name: true,
    onu_if_index: None,
    ports_in_if_mib: true,
    running_config: ConfigDialect::Snr,
    error_unknown: "% Unknown command.",
    error_no_onu: "% Invalid input: the ONT does not exist.",
    error_no_vlan: "% Invalid input: VLAN not configured.",
};
