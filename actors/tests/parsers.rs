//! Property tests of everything that reads device output: the CLI templates and the
//! running-configuration reader, the interface-name parsers, and the value decoders of
//! every vendor column. Arbitrary input never panics; input built the way a device builds
//! it reads back to what went in.

use ponkeeper_actors::domain::Vendor;
use ponkeeper_actors::profile::commands::{capture, port_values, render, service_vlans};
use ponkeeper_actors::profile::{
    format_gpon_serial, parse_gpon_serial, Cell, Encoding, Profile, PLAUSIBLE_DBM,
};
use proptest::prelude::*;
use std::collections::HashMap;

/// Every layout ponkeeper reads.
fn profiles() -> impl Strategy<Value = &'static Profile> {
    prop::sample::select(Profile::ALL.to_vec())
}

/// A PON port name in the vendor's shape: `0/1/3` (Huawei, ZTE `1/1/3`, C-Data, SNR) or
/// `0/1` (BDCOM, V-SOL, Eltex's `<slot>/<channel>`).
fn port_name(vendor: Vendor) -> BoxedStrategy<String> {
    match vendor {
        Vendor::Bdcom | Vendor::Vsol | Vendor::Eltex => (0u32..8, 1u32..16)
            .prop_map(|(a, b)| format!("{a}/{b}"))
            .boxed(),
        _ => (0u32..8, 0u32..20, 0u32..16)
            .prop_map(|(a, b, c)| format!("{a}/{b}/{c}"))
            .boxed(),
    }
}

/// One ONU's service VLAN as a device's running configuration writes it.
fn config_entry(profile: &Profile, port: &str, onu: u32, vlan: u16) -> String {
    let mut values: HashMap<&str, String> = port_values(port).into_iter().collect();
    values.insert("onu", onu.to_string());
    values.insert("vlan", vlan.to_string());
    values.insert("_", "1".to_string());
    values.insert(
        "*",
        "multi-service user-vlan 100 tag-transform translate".to_string(),
    );
    let vlan_line = render(profile.cli.vlan_line, &values);
    match profile.cli.onu_section {
        Some(section) => format!(
            "{}\n  description flat {onu}\n  {vlan_line}\n!",
            render(section, &values)
        ),
        None => vlan_line,
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn capture_never_panics(template in "[a-z {}_*:/\"-]{0,40}", line in "\\PC{0,80}") {
        let _ = capture(&template, &line);
        let _ = render(&template, &HashMap::from([("a", line.clone())]));
    }

    #[test]
    fn profile_templates_never_panic_on_device_lines(profile in profiles(), line in "\\PC{0,120}") {
        let cli = profile.cli;
        for template in cli.reboot.iter().chain(cli.set_vlan).chain(cli.set_description) {
            let _ = capture(template, &line);
        }
        let _ = capture(cli.vlan_line, &line);
        if let Some(section) = cli.onu_section {
            let _ = capture(section, &line);
        }
    }

    #[test]
    fn running_configs_of_any_text_never_panic(profile in profiles(), config in "(\\PC{0,60}\n){0,30}") {
        let _ = service_vlans(profile.cli, &config);
    }

    /// A configuration the way the vendor writes it, with unrelated lines in between,
    /// gives back exactly the VLAN of every ONU.
    #[test]
    fn running_configs_read_back_every_service_vlan(
        profile in profiles().prop_filter("names VLANs", |p| !p.cli.vlan_line.is_empty()),
        entries in prop::collection::vec((0usize..4, 1u32..128, 1u16..4095), 1..12),
        noise in prop::collection::vec("[a-z][a-z0-9 ]{0,30}", 12),
    ) {
        let ports: Vec<String> = (0..4)
            .map(|i| match profile.vendor {
                Vendor::Bdcom | Vendor::Vsol | Vendor::Eltex => format!("0/{}", i + 1),
                _ => format!("0/1/{i}"),
            })
            .collect();
        let mut expected = HashMap::new();
        let mut config = String::from("#\n");
        for (i, (port, onu, vlan)) in entries.iter().enumerate() {
            config.push_str(&config_entry(profile, &ports[*port], *onu, *vlan));
            config.push('\n');
            config.push_str(&noise[i % noise.len()]);
            config.push('\n');
            // A later entry for the same ONU wins, as a device's last line does.
            expected.insert((ports[*port].clone(), *onu), *vlan);
        }
        prop_assert_eq!(service_vlans(profile.cli, &config), expected);
    }

    #[test]
    fn interface_names_never_panic(profile in profiles(), name in "\\PC{0,40}") {
        let _ = profile.port_from_if_name(&name);
        let _ = profile.onu_from_if_name(&name);
        let _ = port_values(&name);
    }

    #[test]
    fn interface_names_read_back(
        (profile, port) in profiles()
            .prop_filter("names ports in IF-MIB", |p| !p.port_name_prefix.is_empty())
            .prop_flat_map(|p| (Just(p), port_name(p.vendor))),
        onu in 1u32..256,
        description in "[A-Za-z][A-Za-z0-9 ]{0,20}",
    ) {
        let port_if = format!("{}{port}", profile.port_name_prefix);
        prop_assert_eq!(profile.port_from_if_name(&port_if), Some(port.as_str()));
        // V-SOL's `GPON0/1 Clients`: the port's description after a space.
        let described = format!("{port_if} {description}");
        prop_assert_eq!(profile.port_from_if_name(&described), Some(port.as_str()));
        if let Some(separator) = profile.onu_indexing.onu_interface_separator() {
            let onu_if = format!("{port_if}{separator}{onu}");
            prop_assert_eq!(profile.onu_from_if_name(&onu_if), Some((port.as_str(), onu)));
            prop_assert_eq!(profile.port_from_if_name(&onu_if), None);
        }
    }

    /// Any integer a device may send, in any column, decodes to a value or to absent.
    #[test]
    fn column_values_never_panic(
        profile in profiles(),
        raw in prop_oneof![any::<i64>(), Just(i64::MIN), Just(i64::MAX), Just(i64::MIN + 1)],
        bytes in prop::collection::vec(any::<u8>(), 0..64)) {
        for column in profile.onu_columns {
            if let Some(dbm) = column.decode_dbm(raw) {
                prop_assert!(dbm.is_finite() && dbm.abs() <= PLAUSIBLE_DBM);
            }
            let _ = column.decode_integer(raw);
            let _ = column.decode_octets(&bytes);
            for cell in [Cell::Integer(raw), Cell::Octets(&bytes)] {
                if let Some(reading) = column.reading(cell) {
                    prop_assert!(reading.is_finite() && reading.abs() <= PLAUSIBLE_DBM);
                }
                let _ = column.integer(cell);
                let _ = column.metres(cell);
            }
        }
    }

    /// Text readings (V-SOL, SNR) print as the device prints them and read back to two
    /// decimals; any text at all decodes to a reading or to none.
    #[test]
    fn text_readings_round_trip(profile in profiles(), centi in -4000i64..1000, text in "\\PC{0,30}") {
        let value = centi as f64 / 100.0;
        for column in profile.onu_columns {
            let Some(printed) = column.encode_text_reading(Some(value)) else {
                continue;
            };
            let read = column.reading(Cell::Octets(printed.as_bytes()));
            prop_assert_eq!(read, Some(value), "{:?} printed {}", column.field, printed);
            let absent = column.encode_text_reading(None).expect("a text column");
            prop_assert_eq!(column.reading(Cell::Octets(absent.as_bytes())), None);
            if let Some(reading) = column.reading(Cell::Octets(text.as_bytes())) {
                prop_assert!(reading.is_finite() && reading.abs() <= PLAUSIBLE_DBM);
            }
        }
    }

    /// A reading in the range optics take encodes the way the device does and reads back,
    /// to the column's precision (BDCOM reports tenths of a dB).
    #[test]
    fn dbm_readings_round_trip(profile in profiles(), centi in -4000i64..1000) {
        let dbm = centi as f64 / 100.0;
        for column in profile.onu_columns {
            let precision = match column.encoding {
                Encoding::ScaledDbm { divisor, .. } | Encoding::WrappingDbm { divisor, .. } => {
                    0.5 / divisor + 0.005
                }
                _ => continue,
            };
            let encoded = column.encode_dbm(Some(dbm));
            if let Some(decoded) = column.decode_dbm(encoded) {
                prop_assert!((decoded - dbm).abs() <= precision, "{:?}: {} -> {} -> {}", column.field, dbm, encoded, decoded);
            }
        }
    }

    #[test]
    fn serials_never_panic_and_round_trip(text in "\\PC{0,16}", bytes in prop::collection::vec(any::<u8>(), 0..16), vendor in "[A-Z]{4}", id in any::<u32>()) {
        let _ = parse_gpon_serial(&text);
        let _ = format_gpon_serial(&bytes);
        let serial = format!("{vendor}{id:08X}");
        let parsed = parse_gpon_serial(&serial).expect("a well-formed serial");
        prop_assert_eq!(format_gpon_serial(&parsed), serial);
    }
}
