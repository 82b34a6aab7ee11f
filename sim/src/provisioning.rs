//! The simulated OLT's provisioning: the ONUs it sees but has not registered (generated on
//! some ports, and in a live fleet new ones plugged in over time), the profiles it offers,
//! and the CLI lines of [`ponkeeper_actors::profile::provisioning`] that list them, register an ONU
//! and remove it again, with the refusals (index taken, serial registered, unknown
//! profile). Each OLT speaks its own family's dialect, the table of its layout: a C620
//! knows `interface gpon_olt-1/1/1` and not the C320's `interface gpon-olt_1/1/1`, a
//! GP3600 `gpon bind-onu sn` and not the EPON `epon bind-onu mac`; the other family's
//! lines are refused like any unknown command. Registering moves an ONU from the unconfigured list into the ONU
//! table (so the SNMP agent and the next poll see it); removing puts it back, as the
//! fibre is still plugged in. The console ([`super::console`]) hands every line it does
//! not know to [`command`]; the MIB view ([`super::mib`]) serves [`SimProvisioning`]'s
//! rows as the vendor's autofind / uncfg table.

use super::model::{Reading, SimInterface, SimOlt, SimOnu, SimPort};
use super::vendor::SimVendor;
use super::{lock, SimFleet};
use ponkeeper_actors::domain::{round_dbm, OltId};
use ponkeeper_actors::profile::commands::{capture, port_of, CliMode};
use ponkeeper_actors::profile::provisioning::{
    dotted_mac, parse_mac, Discovery, DiscoveryFormat, PortKey, Provisioning, SerialKind,
    UnconfiguredSerial,
};
use ponkeeper_actors::profile::{format_gpon_serial, format_mac, parse_gpon_serial};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::collections::HashMap;
use std::fmt::Write as _;

/// Every `PORT_STRIDE`-th port starts with an unconfigured ONU.
const PORT_STRIDE: usize = 4;
/// Chance per tick of a live fleet that a new ONU is plugged in somewhere on an OLT.
const PLUG_IN: f64 = 0.02;
/// The most unconfigured ONUs one port shows.
const MAX_PER_PORT: usize = 4;

/// Huawei line and service profiles and ZTE ONU types the simulated OLTs offer.
pub(crate) const LINE_PROFILES: [(&str, &str); 2] =
    [("10", "line-internet"), ("20", "line-triple-play")];
pub(crate) const SERVICE_PROFILES: [(&str, &str); 2] =
    [("10", "srv-hgu"), ("20", "srv-sfu-bridge")];
const ONU_TYPES: [(&str, &str); 3] = [
    ("ZTE-F660", "4ETH,2POTS,WIFI"),
    ("ZTE-F601", "1GE"),
    ("HG8245H", "4GE,2POTS,WIFI"),
];
/// Equipment ids unconfigured ONUs report.
const EQUIPMENT: [&str; 3] = ["HG8245H", "ZTE-F660", "HG8546M"];

/// One ONU the OLT sees on a port but has not registered.
#[derive(Debug, Clone)]
pub(crate) struct SimUnconfigured {
    /// Index into [`SimOlt::ports`].
    pub port: usize,
    /// GPON serial, or a MAC in the first 6 bytes.
    pub serial: [u8; 8],
    /// The serial column's value as the agent serves it.
    pub wire: Vec<u8>,
    /// Reported model; empty where the vendor's table has none.
    pub equipment: &'static str,
    /// Row index `<port key>.<n>`.
    pub key: [u32; 2],
    /// Plugged in while the fleet ran (not one of the generated ones): it may be taken
    /// away again.
    pub plugged: bool,
}

/// What one OLT's provisioning side holds.
#[derive(Debug)]
pub(crate) struct SimProvisioning {
    vendor: &'static SimVendor,
    /// Sorted by `key`.
    pub unconfigured: Vec<SimUnconfigured>,
    next_n: u32,
    rng: ChaCha8Rng,
}

impl SimProvisioning {
    /// Unconfigured ONUs on every [`PORT_STRIDE`]-th port of OLT `id`, none of them a
    /// serial in `taken`.
    pub fn generate(
        vendor: &'static SimVendor,
        seed: u64,
        id: OltId,
        ports: &[SimPort],
        taken: &[SimOnu],
    ) -> SimProvisioning {
        let mut sim = SimProvisioning {
            vendor,
            unconfigured: Vec::new(),
            next_n: 1,
            rng: ChaCha8Rng::seed_from_u64(seed ^ 0x5EED_0F0A ^ (u64::from(id) << 20)),
        };
        for port in (0..ports.len()).step_by(PORT_STRIDE) {
            sim.plug_in(ports, taken, port);
        }
        sim
    }

    /// A new ONU shows up on `port` with a fresh serial; its serial text.
    fn plug_in(&mut self, ports: &[SimPort], taken: &[SimOnu], port: usize) -> Option<String> {
        let vendor = self.vendor;
        let mut serial = [0u8; 8];
        loop {
            let len = vendor.serial_len().min(8);
            let prefix: &[u8] = match len {
                6 => &[0xFC, 0xFA, 0xF7],
                _ => b"HWTC",
            };
            serial[..prefix.len()].copy_from_slice(prefix);
            for byte in &mut serial[prefix.len()..len] {
                *byte = self.rng.random();
            }
            let clash = taken.iter().any(|o| o.serial == serial)
                || self.unconfigured.iter().any(|u| u.serial == serial);
            if !clash {
                break;
            }
        }
        let equipment = EQUIPMENT[self.rng.random_range(0..EQUIPMENT.len())];
        self.add(ports, port, serial, equipment)
    }

    fn add(
        &mut self,
        ports: &[SimPort],
        port: usize,
        serial: [u8; 8],
        equipment: &'static str,
    ) -> Option<String> {
        let vendor = self.vendor;
        let table = Provisioning::for_profile(vendor.profile)?;
        let at = ports.get(port)?;
        let port_key = match table.unconfigured.port_key {
            PortKey::IfIndex => at.if_index,
            PortKey::PonId(layout) => layout.pon_id(at.position.slot, at.position.port)?,
        };
        let (wire, equipment) = match table.unconfigured.serial_encoding {
            UnconfiguredSerial::GponBytes => (serial.to_vec(), equipment),
            UnconfiguredSerial::GponText => (colon_serial(&serial).into_bytes(), ""),
            UnconfiguredSerial::DottedMac => (dotted_mac(&mac_of(&serial)).into_bytes(), ""),
        };
        let key = [port_key, self.next_n];
        self.next_n += 1;
        let at = self.unconfigured.partition_point(|u| u.key < key);
        self.unconfigured.insert(
            at,
            SimUnconfigured {
                port,
                serial,
                wire,
                equipment,
                key,
                plugged: false,
            },
        );
        Some(serial_text(vendor, &serial))
    }

    /// One tick of a live fleet: now and then a new ONU is plugged in, and (with
    /// `unplug` above 0) each one plugged in earlier may be taken away again.
    pub fn step(&mut self, ports: &[SimPort], onus: &[SimOnu], unplug: f64) {
        if unplug > 0.0 {
            let rng = &mut self.rng;
            let unplug = unplug.clamp(0.0, 1.0);
            self.unconfigured
                .retain(|u| !(u.plugged && rng.random_bool(unplug)));
        }
        if ports.is_empty() || !self.rng.random_bool(PLUG_IN) {
            return;
        }
        let port = self.rng.random_range(0..ports.len());
        if self.unconfigured.iter().filter(|u| u.port == port).count() < MAX_PER_PORT {
            if let Some(serial) = self.plug_in(ports, onus, port) {
                self.mark_plugged(&serial);
            }
        }
    }

    /// The unconfigured ONU whose serial text is `serial` came in while the fleet ran.
    fn mark_plugged(&mut self, serial: &str) {
        let vendor = self.vendor;
        if let Some(u) = self
            .unconfigured
            .iter_mut()
            .find(|u| serial_text(vendor, &u.serial) == serial)
        {
            u.plugged = true;
        }
    }
}

fn mac_of(serial: &[u8; 8]) -> [u8; 6] {
    let mut mac = [0u8; 6];
    mac.copy_from_slice(&serial[..6]);
    mac
}

/// `HWTC:1A2B3C4D`, as BDCOM's GPON OLTs write a serial.
fn colon_serial(serial: &[u8; 8]) -> String {
    let text = format_gpon_serial(serial);
    format!("{}:{}", &text[..4], &text[4..])
}

/// A serial as the API shows it.
fn serial_text(vendor: &SimVendor, serial: &[u8; 8]) -> String {
    match vendor.serial_len() {
        6 => format_mac(&serial[..6]),
        _ => format_gpon_serial(serial),
    }
}

/// The sub-modes the provisioning scripts enter beyond the CLI profile's own.
pub(crate) fn modes(vendor: &SimVendor) -> &'static [CliMode] {
    Provisioning::for_profile(vendor.profile).map_or(&[], |table| table.modes)
}

/// The answer to a provisioning line typed at `depth` (1 privileged, 2 configuration, 3
/// a sub-mode entered with `mode_values`), or `None` when the line is not one.
pub(crate) fn command(
    olt: &mut SimOlt,
    vendor: &SimVendor,
    mode_values: &HashMap<String, String>,
    depth: u8,
    line: &str,
) -> Option<String> {
    let table = Provisioning::for_profile(vendor.profile)?;
    if let Some(discovery) = table.discover {
        if line == discovery.command || line.starts_with(&format!("{} ", discovery.command)) {
            return Some(discovery_listing(olt, vendor, discovery));
        }
    }
    if let Some(listing) = table
        .profiles
        .unwrap_or(&[])
        .iter()
        .find(|p| p.command == line)
    {
        return Some(profile_listing(listing.kind));
    }
    if depth < 2 {
        return None;
    }
    let mut values = script_values(table.register, line)
        .map(|v| (true, v))
        .or_else(|| script_values(table.deregister, line).map(|v| (false, v)))?;
    for (name, value) in mode_values {
        values
            .1
            .entry(name.clone())
            .or_insert_with(|| value.clone());
    }
    let (register, values) = values;
    Some(if register {
        register_onu(olt, vendor, table, &values)
    } else {
        deregister_onu(olt, vendor, &values)
    })
}

/// The values of `line` if it is one of `script`'s own lines (not a mode change).
fn script_values(script: &[&str], line: &str) -> Option<HashMap<String, String>> {
    script
        .iter()
        .filter(|t| t.contains('{') && !t.starts_with("interface "))
        .find_map(|template| capture(template, line))
}

fn find_port(olt: &SimOlt, values: &HashMap<String, String>) -> Option<usize> {
    let name = port_of(values)?;
    olt.ports.iter().position(|p| p.name == name)
}

fn register_onu(
    olt: &mut SimOlt,
    vendor: &SimVendor,
    table: &Provisioning,
    values: &HashMap<String, String>,
) -> String {
    let Some(port) = find_port(olt, values) else {
        return vendor.error_unknown.to_string();
    };
    let index = values.get("onu").and_then(|n| n.parse::<u32>().ok());
    let serial = values.get("serial").and_then(|s| match table.serial_kind {
        SerialKind::Gpon => parse_gpon_serial(s),
        SerialKind::GponColon => {
            let (vendor, number) = s.split_once(':')?;
            parse_gpon_serial(&format!("{vendor}{number}"))
        }
        SerialKind::Mac => parse_mac(s).map(|mac| {
            let mut serial = [0u8; 8];
            serial[..6].copy_from_slice(&mac);
            serial
        }),
    });
    let (Some(index), Some(serial)) = (index, serial) else {
        return vendor.error_unknown.to_string();
    };
    if !(table.first_index..=table.last_index).contains(&index) {
        return vendor.error_unknown.to_string();
    }
    let known = |name: &str, list: &[(&str, &str)]| {
        values
            .get(name)
            .is_none_or(|v| list.iter().any(|(id, _)| id == v))
    };
    if !known("line", &LINE_PROFILES)
        || !known("service", &SERVICE_PROFILES)
        || !known("onu_type", &ONU_TYPES)
    {
        return table.refuse_unknown_profile.to_string();
    }
    if olt.onus.iter().any(|o| o.port == port && o.ont_id == index) {
        return table.refuse_index_taken.to_string();
    }
    if olt.onus.iter().any(|o| o.serial == serial) {
        return table.refuse_serial_taken.to_string();
    }
    // Plugged in on this port: it comes up; anywhere else (or nowhere) it stays down.
    let found = olt
        .provisioning
        .unconfigured
        .iter()
        .position(|u| u.serial == serial);
    let online = found.is_some_and(|i| olt.provisioning.unconfigured[i].port == port);
    if let Some(i) = found.filter(|_| online) {
        olt.provisioning.unconfigured.remove(i);
    }
    let profiles = [values.get("line").cloned(), values.get("service").cloned()];
    insert_onu(olt, vendor, port, index, serial, (online, profiles));
    match table.vendor {
        ponkeeper_actors::domain::Vendor::Huawei => format!(
            "  Number of ONTs that can be added: 1, success: 1\n  PortID :{}, ONTID :{index}",
            olt.ports[port].position.port
        ),
        _ => String::new(),
    }
}

fn deregister_onu(
    olt: &mut SimOlt,
    vendor: &SimVendor,
    values: &HashMap<String, String>,
) -> String {
    let index = values.get("onu").and_then(|n| n.parse::<u32>().ok());
    let found = find_port(olt, values).and_then(|port| {
        olt.onus
            .iter()
            .position(|o| o.port == port && Some(o.ont_id) == index)
    });
    let Some(at) = found else {
        return vendor.error_no_onu.to_string();
    };
    let onu = olt.onus.remove(at);
    let position = olt.ports[onu.port].position;
    if let Some(if_index) = vendor.onu_if_index(position, onu.ont_id) {
        olt.interfaces.retain(|i| i.if_index != if_index);
    }
    // Still plugged in: it shows up unconfigured again.
    let SimOlt {
        ports,
        provisioning,
        ..
    } = olt;
    provisioning.add(ports, onu.port, onu.serial, "HG8245H");
    match vendor.profile.vendor {
        ponkeeper_actors::domain::Vendor::Huawei => {
            "  Number of ONTs that can be deleted: 1, success: 1".to_string()
        }
        _ => String::new(),
    }
}

/// Adds a registered ONU to the ONU table (and, where ONUs have interfaces, to IF-MIB).
fn insert_onu(
    olt: &mut SimOlt,
    vendor: &SimVendor,
    port: usize,
    ont_id: u32,
    serial: [u8; 8],
    (online, profiles): (bool, [Option<String>; 2]),
) {
    let position = olt.ports[port].position;
    let row = vendor.onu_row_index(position, ont_id, &serial);
    let if_index = vendor.onu_if_index(position, ont_id);
    let onu = SimOnu {
        port,
        row,
        ont_id,
        serial,
        description: String::new(),
        online,
        last_down_cause: None,
        outage_ticks_left: None,
        distance_m: 1_200 + 150 * ont_id,
        rx_reported: true,
        rx: Reading::new(round_dbm(-19.5 - f64::from(ont_id % 7) * 0.3)),
        tx: Reading::new(2.1),
        olt_rx: Reading::new(round_dbm(-21.0 - f64::from(ont_id % 5) * 0.4)),
        transceiver: super::model::transceiver_of(&serial),
        vlan: None,
        profiles,
        reboots: 0,
        reads: Default::default(),
    };
    let at = olt.onus.partition_point(|o| o.row < row);
    olt.onus.insert(at, onu);
    // Registered where a cut holds the port: no light, so down like its neighbours.
    olt.hold_cut_onus();
    if let (Some(separator), Some(if_index)) = (
        vendor.profile.onu_indexing.onu_interface_separator(),
        if_index,
    ) {
        let name = format!("{}{separator}{ont_id}", olt.ports[port].if_name);
        let interface = SimInterface {
            if_index,
            if_descr: if vendor.if_descr_is_name {
                name.clone()
            } else {
                String::new()
            },
            if_name: name,
            if_type: vendor.port_if_type,
        };
        let at = olt.interfaces.partition_point(|i| i.if_index < if_index);
        olt.interfaces.insert(at, interface);
    }
}

/// The discovery command's output, as each family prints it.
fn discovery_listing(olt: &SimOlt, vendor: &SimVendor, discovery: Discovery) -> String {
    let list = &olt.provisioning.unconfigured;
    if list.is_empty() {
        return discovery.none.to_string();
    }
    let mut out = String::new();
    match discovery.format {
        DiscoveryFormat::HuaweiAutofind => {
            let rule = format!("   {}", "-".repeat(76));
            for (n, onu) in list.iter().enumerate() {
                let text = serial_text(vendor, &onu.serial);
                let hex: String = onu.serial.iter().map(|b| format!("{b:02X}")).collect();
                let _ = writeln!(out, "{rule}");
                for (key, value) in [
                    ("Number", (n + 1).to_string()),
                    ("F/S/P", olt.ports[onu.port].name.clone()),
                    ("Ont SN", format!("{hex} ({}-{})", &text[..4], &text[4..])),
                    ("VendorID", text[..4].to_string()),
                    ("Ont EquipmentID", onu.equipment.to_string()),
                ] {
                    let _ = writeln!(out, "   {key:<20}: {value}");
                }
            }
            let _ = writeln!(out, "{rule}");
            let _ = write!(out, "   The number of GPON autofind ONT is {}", list.len());
        }
        DiscoveryFormat::ZteTitanUncfg => {
            let _ = writeln!(out, "OltIndex            Model                SN");
            let _ = writeln!(out, "{}", "-".repeat(59));
            for onu in list {
                let index = format!("gpon_olt-{}", olt.ports[onu.port].name);
                let serial = serial_text(vendor, &onu.serial);
                let _ = writeln!(out, "{index:<20}{:<21}{serial}", onu.equipment);
            }
        }
        DiscoveryFormat::ZteUncfg => {
            let _ = writeln!(out, "OnuIndex                 Sn                  State");
            let _ = writeln!(out, "{}", "-".repeat(69));
            for onu in list {
                let index = format!("gpon-onu_{}:{}", olt.ports[onu.port].name, onu.key[1]);
                let serial = serial_text(vendor, &onu.serial);
                let _ = writeln!(out, "{index:<25}{serial:<20}unknown");
            }
        }
        DiscoveryFormat::BdcomMacRows => {
            let _ = writeln!(out, "Interface    MAC Address     Status");
            for onu in list {
                let mac = String::from_utf8_lossy(&onu.wire);
                let port = &olt.ports[onu.port].if_name;
                let _ = writeln!(out, "{port:<13}{mac:<16}unbound");
            }
        }
    }
    out
}

fn profile_listing(kind: ponkeeper_actors::profile::provisioning::ProfileKind) -> String {
    use ponkeeper_actors::profile::provisioning::ProfileKind;
    let mut out = String::new();
    let rows: &[(&str, &str)] = match kind {
        ProfileKind::Line => &LINE_PROFILES,
        ProfileKind::Service => &SERVICE_PROFILES,
        ProfileKind::OnuType => {
            for (name, description) in ONU_TYPES {
                let _ = writeln!(
                    out,
                    "ONU type name:      {name}\nPON type:           gpon\nDescription:        {description}\nMax T-CONT:         8\n"
                );
            }
            return out;
        }
    };
    let rule = format!("  {}", "-".repeat(75));
    let _ = writeln!(
        out,
        "{rule}\n  Profile-ID  Profile-name                      Binding times\n{rule}"
    );
    for (id, name) in rows {
        let _ = writeln!(out, "  {id:<12}{name:<34}0");
    }
    let _ = write!(out, "{rule}\n  Total: {}", rows.len());
    out
}

impl SimFleet {
    /// The unconfigured ONUs OLT `olt_id` shows: (port, serial as the API shows it,
    /// equipment id or empty), in table order.
    pub fn expected_unconfigured(&self, olt_id: OltId) -> Vec<(String, String, String)> {
        let Some(olt) = self.olt(olt_id) else {
            return Vec::new();
        };
        let state = lock(&olt.shared);
        state
            .provisioning
            .unconfigured
            .iter()
            .map(|u| {
                (
                    state.ports[u.port].name.clone(),
                    serial_text(olt.vendor, &u.serial),
                    u.equipment.to_string(),
                )
            })
            .collect()
    }

    /// Plugs a new ONU into port `pon_port` of OLT `olt_id`; its serial, or `None` when
    /// there is no such OLT or port.
    pub fn plug_in_onu(&self, olt_id: OltId, pon_port: &str) -> Option<String> {
        let olt = self.olt(olt_id)?;
        let mut state = lock(&olt.shared);
        let port = state.ports.iter().position(|p| p.name == pon_port)?;
        let SimOlt {
            ports,
            onus,
            provisioning,
            ..
        } = &mut *state;
        provisioning.plug_in(ports, onus, port)
    }
}

#[cfg(test)]
mod tests;
