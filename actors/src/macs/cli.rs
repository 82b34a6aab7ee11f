//! The MAC tables Huawei and ZTE print on the command line, parsed into
//! [`MacSighting`]s, and rendered in the same layout (the simulator's console prints
//! them with [`render`], and the property tests check each renderer's rows parse back).
//!
//! Huawei MA5600T / MA5800, `display mac-address port F/S/P`: one row per MAC,
//! `SRV-P INDEX`, `BUNDLE INDEX`, the port type (`gpon`), the MAC as `xxxx-xxxx-xxxx`,
//! `dynamic`/`static`, the port as `F /S /P` (spaces around the slashes), then `VPI`
//! and `VCI` — for a GPON port the ONT ID and the GEM port — an optional flow type and
//! parameter, and the VLAN last. `display mac-address ont F/S/P ID` prints a table of its
//! own: the port as `0/ 2/6`, the ONT ID, the ONT's port type (`ETH`, `WLAN`) and number,
//! the MAC and the VLAN, `-` for none (a WLAN client): kept as no VLAN (ntc-templates'
//! captures, tests/fixtures/cli/huawei). ZTE C300/C320/C600,
//! `show mac gpon olt <port>` (and `show mac gpon onu <onu>`): the MAC as
//! `xxxx.xxxx.xxxx`, the VLAN, `Dynamic`/`Static`, the ONU interface
//! (`gpon-onu_R/S/P:N`, on the C600 `gpon_onu-R/S/P:N`) and the virtual port. Headers,
//! rulers, totals and anything else are skipped; nothing here panics on any input.
//! docs/devices.md names where each layout was seen.

use super::{Mac, MacSighting};
use crate::profile::commands::MacTable;
use std::fmt::Write as _;

/// Every MAC row of a `format` table in `output`.
pub fn parse(format: MacTable, output: &str) -> Vec<MacSighting> {
    output
        .lines()
        .filter_map(|line| match format {
            MacTable::Huawei => huawei_row(line).or_else(|| huawei_ont_row(line)),
            MacTable::Zte | MacTable::ZteC600 => zte_row(line),
        })
        .collect()
}

/// `   12    -   gpon 0011-2233-4455 dynamic  0 /1 /0  3    1     100`
fn huawei_row(line: &str) -> Option<MacSighting> {
    let words: Vec<&str> = line.split_whitespace().collect();
    let at = words.iter().position(|w| is_spelt(w, '-', 4))?;
    let mac = Mac::parse(words[at])?;
    let kind = words.get(at + 1)?;
    if !matches!(*kind, "dynamic" | "static") {
        return None;
    }
    // `0 /1 /0` → `0/1/0`: the port's numbers are printed with spaces before slashes.
    let rest = words[at + 2..]
        .join(" ")
        .replace(" /", "/")
        .replace("/ ", "/");
    let rest: Vec<&str> = rest.split_whitespace().collect();
    let (port, onu, vlan) = match rest.as_slice() {
        [port, onu, _gem, vlan] | [port, onu, _gem, _, _, vlan] => (*port, *onu, *vlan),
        _ => return None,
    };
    Some(MacSighting {
        pon_port: port_name(port)?,
        onu_index: onu.parse().ok()?,
        mac,
        vlan: Some(vlan_id(vlan)?),
    })
}

/// ` 0/ 2/6      2    ETH              1   805e-0c5c-4277       80` (or `-` for the VLAN)
fn huawei_ont_row(line: &str) -> Option<MacSighting> {
    let words: Vec<&str> = line.split_whitespace().collect();
    let at = words.iter().position(|w| is_spelt(w, '-', 4))?;
    let [vlan] = &words[at + 1..] else {
        return None;
    };
    let before = words[..at].join(" ").replace("/ ", "/").replace(" /", "/");
    let [port, onu, kind, number] = before.split_whitespace().collect::<Vec<_>>()[..] else {
        return None;
    };
    let known_kind = kind.chars().all(|c| c.is_ascii_uppercase()) && !kind.is_empty();
    if !known_kind || number.parse::<u32>().is_err() {
        return None;
    }
    Some(MacSighting {
        pon_port: port_name(port)?,
        onu_index: onu.parse().ok()?,
        mac: Mac::parse(words[at])?,
        vlan: match *vlan {
            "-" => None,
            vlan => Some(vlan_id(vlan)?),
        },
    })
}

/// `0011.2233.4455   100   Dynamic  gpon-onu_1/1/1:1   vport 1`
fn zte_row(line: &str) -> Option<MacSighting> {
    let words: Vec<&str> = line.split_whitespace().collect();
    let [mac, vlan, kind, interface, ..] = words.as_slice() else {
        return None;
    };
    if !is_spelt(mac, '.', 4) || !matches!(*kind, "Dynamic" | "Static") {
        return None;
    }
    let onu = interface
        .strip_prefix("gpon-onu_")
        .or_else(|| interface.strip_prefix("gpon_onu-"))?;
    let (port, number) = onu.split_once(':')?;
    Some(MacSighting {
        pon_port: port_name(port)?,
        onu_index: number.parse().ok()?,
        mac: Mac::parse(mac)?,
        vlan: Some(vlan_id(vlan)?),
    })
}

/// Whether `word` is three groups of `width` hex digits joined by `separator`.
fn is_spelt(word: &str, separator: char, width: usize) -> bool {
    let groups: Vec<&str> = word.split(separator).collect();
    groups.len() == 3
        && groups
            .iter()
            .all(|g| g.len() == width && g.chars().all(|c| c.is_ascii_hexdigit()))
}

/// A port name of numbers joined by slashes (`0/1/0`), or `None`.
fn port_name(text: &str) -> Option<String> {
    let numbers: Vec<&str> = text.split('/').collect();
    let fits = (2..=4).contains(&numbers.len())
        && numbers
            .iter()
            .all(|n| !n.is_empty() && n.len() <= 4 && n.chars().all(|c| c.is_ascii_digit()));
    fits.then(|| text.to_string())
}

fn vlan_id(text: &str) -> Option<u16> {
    text.parse().ok().filter(|v| (1..=4094).contains(v))
}

/// A VLAN as a table prints it, `-` for none.
fn vlan_text(vlan: Option<u16>) -> String {
    vlan.map_or_else(|| "-".to_string(), |v| v.to_string())
}

/// `rows` as the device prints them in `format`: a header, a row per MAC, a total.
pub fn render(format: MacTable, rows: &[MacSighting]) -> String {
    let mut out = String::new();
    match format {
        MacTable::Huawei => {
            let ruler = "  ".to_string() + &"-".repeat(77) + "\r\n";
            out.push_str(&ruler);
            out.push_str(
                "  SRV-P BUNDLE TYPE MAC            MAC TYPE F /S /P  VPI  VCI   VLAN ID\r\n",
            );
            out.push_str("  INDEX INDEX\r\n");
            out.push_str(&ruler);
            for (i, row) in rows.iter().enumerate() {
                let [a, b, c, d, e, f] = row.mac.0;
                let port = row.pon_port.replace('/', " /");
                let _ = write!(
                    out,
                    "  {:>5} {:>6} gpon {a:02x}{b:02x}-{c:02x}{d:02x}-{e:02x}{f:02x} dynamic  {port:<8} {:<4} {:<5} {}\r\n",
                    i + 1,
                    "-",
                    row.onu_index,
                    1,
                    vlan_text(row.vlan)
                );
            }
            out.push_str(&ruler);
            let _ = write!(out, "  Total: {}\r\n", rows.len());
        }
        MacTable::Zte | MacTable::ZteC600 => {
            let onu = match format {
                MacTable::ZteC600 => "gpon_onu-",
                _ => "gpon-onu_",
            };
            let _ = write!(out, "Total mac address : {}\r\n\r\n", rows.len());
            out.push_str("Mac address      Vlan  Type     Port                      Vc\r\n");
            out.push_str(&"-".repeat(66));
            out.push_str("\r\n");
            for row in rows {
                let [a, b, c, d, e, f] = row.mac.0;
                let interface = format!("{onu}{}:{}", row.pon_port, row.onu_index);
                let _ = write!(
                    out,
                    "{a:02x}{b:02x}.{c:02x}{d:02x}.{e:02x}{f:02x}   {:<5} Dynamic  {interface:<25} vport 1\r\n",
                    vlan_text(row.vlan)
                );
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    const FORMATS: [MacTable; 3] = [MacTable::Huawei, MacTable::Zte, MacTable::ZteC600];

    #[test]
    fn rows_as_the_devices_print_them_parse() {
        let huawei = "  SRV-P BUNDLE TYPE MAC            MAC TYPE F /S /P  VPI  VCI   VLAN ID\n\
                      \x20    12    -   gpon 0011-2233-44aa dynamic  0 /1 /0  3    1     100\n\
                      \x20    13    -   gpon 0011-2233-44bb dynamic  0 /1 /0  4    1  -  -  200\n\
                      \x20 Total: 2\n";
        let rows = parse(MacTable::Huawei, huawei);
        assert_eq!(rows.len(), 2);
        assert_eq!(rows[0].pon_port, "0/1/0");
        assert_eq!(rows[0].onu_index, 3);
        assert_eq!(rows[0].mac.to_string(), "00:11:22:33:44:aa");
        assert_eq!((rows[1].onu_index, rows[1].vlan), (4, Some(200)));
        let zte = "Mac address      Vlan  Type     Port                      Vc\n\
                   0011.2233.4455   100   Dynamic  gpon-onu_1/2/3:7          vport 1\n\
                   0011.2233.4466   101   Dynamic  gpon_onu-1/2/3:8          vport 1\n";
        let rows = parse(MacTable::Zte, zte);
        assert_eq!(rows.len(), 2);
        assert_eq!((rows[0].pon_port.as_str(), rows[0].onu_index), ("1/2/3", 7));
        assert_eq!((rows[1].onu_index, rows[1].vlan), (8, Some(101)));
    }

    #[test]
    fn huaweis_ont_table_is_read_with_its_dashes() {
        let ont = include_str!("../../../tests/fixtures/cli/huawei/display-mac-address-ont.txt");
        let rows = parse(MacTable::Huawei, ont);
        assert_eq!(rows.len(), 3);
        assert_eq!((rows[0].pon_port.as_str(), rows[0].onu_index), ("0/2/6", 2));
        assert_eq!(rows[0].mac.to_string(), "80:5e:0c:5c:42:77");
        assert_eq!(rows[0].vlan, Some(80));
        assert_eq!(rows[2].vlan, Some(1003));
        let wlan = include_str!(
            "../../../tests/fixtures/cli/huawei/display-mac-address-ont-wlan-no-vlan.txt"
        );
        let rows = parse(MacTable::Huawei, wlan);
        assert_eq!(rows.len(), 1);
        assert_eq!((rows[0].pon_port.as_str(), rows[0].vlan), ("0/1/0", None));
        let port = include_str!("../../../tests/fixtures/cli/huawei/display-mac-address.txt");
        let rows = parse(MacTable::Huawei, port);
        // The GPON row (ONT 1 on 0/1/0); the `eth` rows are the OLT's own ports.
        assert_eq!(rows.len(), 1, "{rows:?}");
        assert_eq!((rows[0].pon_port.as_str(), rows[0].onu_index), ("0/1/0", 1));
    }

    fn sighting() -> impl Strategy<Value = MacSighting> {
        (
            prop::collection::vec(0u32..64, 3),
            0u32..256,
            any::<[u8; 6]>(),
            (1u16..=4094).prop_map(Some),
        )
            .prop_map(|(port, onu_index, mac, vlan)| MacSighting {
                pon_port: port
                    .iter()
                    .map(u32::to_string)
                    .collect::<Vec<_>>()
                    .join("/"),
                onu_index,
                mac: Mac(mac),
                vlan,
            })
    }

    proptest! {
        #[test]
        fn rendered_tables_parse_back_exactly(
            rows in prop::collection::vec(sighting(), 0..20),
            which in 0usize..3,
        ) {
            let format = FORMATS[which];
            prop_assert_eq!(parse(format, &render(format, &rows)), rows);
        }

        #[test]
        fn garbage_never_panics(text in ".{0,400}", which in 0usize..3) {
            let _ = parse(FORMATS[which], &text);
        }

        #[test]
        fn near_misses_never_panic(
            words in prop::collection::vec(
                prop::sample::select(vec![
                    "gpon", "0011-2233-4455", "dynamic", "0", "/1", "/", "3", "Dynamic",
                    "0011.2233.4455", "gpon-onu_1/1/1:", "gpon_onu-:3", "99999", "-", "100",
                ]),
                0..12,
            ),
            which in 0usize..3,
        ) {
            let _ = parse(FORMATS[which], &words.join(" "));
        }
    }
}
