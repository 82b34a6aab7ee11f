//! The state of one simulated OLT: its PON ports and ONUs, generated deterministically from
//! the fleet seed and then moved along by the dynamics ticker. It also owns the one
//! translation from ONU state to raw SNMP values ([`SimOlt::onu_raw`]): the MIB view
//! ([`super::mib`]) serves those values and [`SimOlt::expected_onus`] decodes the very
//! same values with the driver profile, so "what the agent says" and "what a correct
//! poller must report" cannot drift apart. Each OLT lives behind its own mutex in
//! [`super::SimFleet`]; the agent task and the ticker lock it briefly. ONUs held down by a
//! fibre or power cut outside the OLT are in [`cut`]; the ONUs' traffic counters, a
//! function of the OLT's uptime, in [`traffic`].

mod cut;
pub(crate) mod macs;
pub(crate) mod traffic;

use super::raw::Raw;
use super::vendor::{PortPosition, RowIndex, SimVendor};
use super::{Dynamics, ExpectedOnu};
use ponkeeper_actors::domain::{round_dbm, DownCause, OltId};
use ponkeeper_actors::profile::{Cell, Encoding, OnuColumn, OnuField};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::collections::HashSet;

pub(crate) use cut::{held, OnuCut, MAX_CUTS};

/// One PON port.
#[derive(Debug, Clone)]
pub(crate) struct SimPort {
    /// As the API names it: `0/1/0`, `1/1/1`, `0/1`.
    pub name: String,
    /// ifName (and ifDescr where the vendor fills it), e.g. `GPON 0/1/0`.
    pub if_name: String,
    pub if_index: u32,
    pub position: PortPosition,
}

/// One IF-MIB row: a PON port, or an ONU's own interface (BDCOM `EPON0/1:3`).
#[derive(Debug, Clone)]
pub(crate) struct SimInterface {
    pub if_index: u32,
    pub if_name: String,
    /// Empty where the vendor leaves ifDescr empty (ZTE).
    pub if_descr: String,
    pub if_type: u32,
}

/// Optical readings in dBm: the current value and the value it drifts around.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Reading {
    pub now: f64,
    pub base: f64,
}

impl Reading {
    pub(crate) fn new(base: f64) -> Reading {
        Reading { now: base, base }
    }
}

/// One ONU on a port.
#[derive(Debug, Clone)]
pub(crate) struct SimOnu {
    /// Index into [`SimOlt::ports`].
    pub port: usize,
    /// Its row index in every ONU table column.
    pub row: RowIndex,
    pub ont_id: u32,
    /// GPON serial, or a MAC in the first 6 bytes ([`SimVendor::serial_len`]).
    pub serial: [u8; 8],
    pub description: String,
    pub online: bool,
    /// Why it last went down; kept after it comes back, as a real OLT does.
    pub last_down_cause: Option<DownCause>,
    /// Ticks until a temporary outage ends; `None` while online or when down for good.
    pub outage_ticks_left: Option<u32>,
    pub distance_m: u32,
    /// Some ONUs are online but report no Rx reading (the absent sentinel).
    pub rx_reported: bool,
    pub rx: Reading,
    pub tx: Reading,
    pub olt_rx: Reading,
    /// Transceiver temperature (°C), supply voltage (V) and bias current (mA), served
    /// while online by vendors whose tables have them.
    pub transceiver: [f64; 3],
    /// Service VLAN of its service port (`None`: no service port configured).
    pub vlan: Option<u16>,
    /// Its line and service profile ids, where it was registered or changed with them.
    pub profiles: [Option<String>; 2],
    /// Counts CLI reboots, so only the latest one brings the ONU back.
    pub reboots: u32,
    /// How often pollers read its status and its optics ([`super::stats`]).
    pub reads: super::stats::OnuReads,
}

/// One simulated OLT.
#[derive(Debug)]
pub(crate) struct SimOlt {
    pub sys_name: String,
    pub firmware: &'static str,
    /// Sorted by ifIndex.
    pub ports: Vec<SimPort>,
    /// IF-MIB rows (ports, and ONU interfaces where the vendor has them), by ifIndex.
    pub interfaces: Vec<SimInterface>,
    /// Sorted by row index: the row order of every ONU table column.
    pub onus: Vec<SimOnu>,
    /// Statically configured VLANs (Q-BRIDGE-MIB dot1qVlanStaticName), sorted by id.
    pub vlans: Vec<(u16, String)>,
    /// Drives the dynamics of this OLT; separate from the generator so a frozen fleet
    /// and a live one start from the same state.
    rng: ChaCha8Rng,
    /// Unconfigured ONUs ([`super::provisioning`]).
    pub provisioning: super::provisioning::SimProvisioning,
    /// Runs of ONUs held down by a fibre or power cut ([`cut`]), in the order added.
    pub cuts: Vec<OnuCut>,
    /// The MACs behind the ONUs ([`macs`]), by (VLAN, MAC).
    pub macs: Vec<macs::SimMac>,
}

/// Share of ONUs offline when the fleet starts.
const INITIALLY_OFFLINE: f64 = 0.08;
/// Share of online ONUs that went down at some point before the fleet started.
const DOWN_BEFORE: f64 = 0.2;
/// Share of online ONUs that report no Rx reading.
const RX_MISSING: f64 = 0.02;
/// Chance that an ONU number is skipped (an ONU was deleted from the port).
const ONT_ID_GAP: f64 = 0.05;
/// Share of outages that are a loss of signal; the rest are dying gasps.
const LOS_SHARE: f64 = 0.6;

/// The VLANs an OLT carries: the usual management, internet, IPTV and voice VLANs, and
/// a customer VLAN of its own (1000 + OLT id).
fn vlans_of(id: OltId) -> Vec<(u16, String)> {
    let mut vlans = vec![
        (10, "mgmt".to_string()),
        (100, "internet".to_string()),
        (200, "iptv".to_string()),
        (300, "voip".to_string()),
    ];
    if let Ok(own) = u16::try_from(1000 + id) {
        if own <= 4094 {
            vlans.push((own, format!("customers-olt-{id}")));
        }
    }
    vlans
}

impl SimOlt {
    /// Builds OLT `id` with `onu_count` ONUs. Description numbers start at `first_contract`.
    pub fn generate(
        vendor: &'static SimVendor,
        seed: u64,
        id: OltId,
        onu_count: usize,
        first_contract: u64,
    ) -> SimOlt {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        rng.set_stream(u64::from(id) * 2);
        let mut dynamics_rng = ChaCha8Rng::seed_from_u64(seed);
        dynamics_rng.set_stream(u64::from(id) * 2 + 1);

        let firmware = vendor
            .firmware
            .get(rng.random_range(0..vendor.firmware.len().max(1)))
            .copied()
            .unwrap_or_default();
        let ports = layout_ports(vendor, onu_count);
        let per_port = spread(onu_count, ports.len());

        let mut serials = HashSet::with_capacity(onu_count);
        let mut onus = Vec::with_capacity(onu_count);
        for (port_no, (port, count)) in ports.iter().zip(per_port).enumerate() {
            let mut ont_id = vendor.first_onu_id;
            let last_id = vendor.first_onu_id + vendor.onu_ids_per_port.max(1) - 1;
            for placed in 0..count {
                // Leave a gap now and then, while the port still has numbers to spare.
                let remaining = (count - placed) as u32;
                if rng.random_bool(ONT_ID_GAP) && ont_id + remaining <= last_id {
                    ont_id += 1;
                }
                let contract = first_contract + onus.len() as u64;
                let mut onu = generate_onu(
                    vendor,
                    &mut rng,
                    &mut serials,
                    port_no,
                    port,
                    ont_id,
                    contract,
                );
                // Most subscribers on the internet VLAN, every 5th on the OLT's own.
                onu.vlan = Some(match u16::try_from(1000 + id) {
                    Ok(own) if contract % 5 == 0 && own <= 4094 => own,
                    _ => 100,
                });
                onus.push(onu);
                ont_id += 1;
            }
        }
        onus.sort_by_key(|onu| onu.row);
        let interfaces = layout_interfaces(vendor, &ports, &onus);
        let provisioning =
            super::provisioning::SimProvisioning::generate(vendor, seed, id, &ports, &onus);
        SimOlt {
            provisioning,
            sys_name: format!("OLT-{id}"),
            firmware,
            ports,
            interfaces,
            vlans: vlans_of(id),
            rng: dynamics_rng,
            cuts: Vec::new(),
            macs: macs::generate(&onus),
            onus,
        }
    }

    /// Advances the OLT by one tick of `dynamics`; ONUs held by a cut stay as they are.
    pub fn step(&mut self, dynamics: &Dynamics) {
        let drift = dynamics.drift_db.abs();
        let outage = dynamics.outage_probability.clamp(0.0, 1.0);
        let (lo, hi) = dynamics.outage_ticks;
        let (lo, hi) = (lo.min(hi).max(1), lo.max(hi).max(1));
        self.provisioning
            .step(&self.ports, &self.onus, dynamics.unplug_probability);
        let carry = dynamics.mac_move_probability.clamp(0.0, 1.0);
        if carry > 0.0 && !self.macs.is_empty() && self.rng.random_bool(carry) {
            let mac = self.macs[self.rng.random_range(0..self.macs.len())].mac;
            let to = self.rng.random_range(0..self.onus.len());
            self.move_mac(mac, to);
        }
        let rng = &mut self.rng;
        for onu in &mut self.onus {
            if held(&self.cuts, onu) {
                continue;
            }
            if onu.online {
                if outage > 0.0 && rng.random_bool(outage) {
                    onu.online = false;
                    onu.last_down_cause = Some(random_cause(rng));
                    onu.outage_ticks_left = Some(rng.random_range(lo..=hi));
                } else if drift > 0.0 {
                    for reading in [&mut onu.rx, &mut onu.tx, &mut onu.olt_rx] {
                        let step = rng.random_range(-drift..=drift);
                        reading.now += step + 0.1 * (reading.base - reading.now);
                    }
                }
            } else if let Some(left) = onu.outage_ticks_left {
                if left <= 1 {
                    onu.online = true;
                    onu.outage_ticks_left = None;
                    for reading in [&mut onu.rx, &mut onu.tx, &mut onu.olt_rx] {
                        reading.now = reading.base;
                    }
                } else {
                    onu.outage_ticks_left = Some(left - 1);
                }
            }
        }
    }

    /// The raw value of one ONU table column, exactly as the agent serves it; `None`
    /// when the device has no such instance (a column without an absent sentinel, such
    /// as ZTE's distance, leaves offline ONUs out).
    pub fn onu_raw<'a>(
        &self,
        vendor: &SimVendor,
        onu: &'a SimOnu,
        column: &OnuColumn,
    ) -> Option<Raw<'a>> {
        let profile = vendor.profile;
        let absent = column.absent.first().copied();
        let reading = |value: Option<f64>| match column.encode_text_reading(value) {
            Some(text) => Some(Raw::inline(&text)),
            None if value.is_some() => Some(Raw::Integer(column.encode_dbm(value))),
            None => absent.map(Raw::Integer),
        };
        let integer = |raw: i64| match column.encoding {
            Encoding::TextEnum(_) | Encoding::TextCode => {
                column.encode_text_integer(raw).map(|t| Raw::inline(&t))
            }
            _ => Some(Raw::Integer(raw)),
        };
        match column.field {
            OnuField::Serial => Some(vendor.wire_serial(&onu.serial)),
            OnuField::Description => Some(Raw::Octets(onu.description.as_bytes())),
            OnuField::Status => integer(vendor.status_value(onu.online, onu.last_down_cause)),
            OnuField::Distance if onu.online => match column.encoding {
                Encoding::TextMetres => Some(Raw::inline(&onu.distance_m.to_string())),
                _ => Some(Raw::Integer(column.encode_metres(onu.distance_m))),
            },
            OnuField::Distance => absent.map(Raw::Integer),
            OnuField::DownCause => integer(
                onu.last_down_cause
                    .and_then(|cause| profile.down_cause_value(cause))
                    .or(absent)
                    .unwrap_or(-1),
            ),
            OnuField::PonChannel => Some(Raw::Integer(i64::from(
                self.ports.get(onu.port)?.position.port,
            ))),
            OnuField::OnuNumber => Some(Raw::Integer(i64::from(onu.ont_id))),
            OnuField::RxPower => reading((onu.online && onu.rx_reported).then_some(onu.rx.now)),
            OnuField::TxPower => reading(onu.online.then_some(onu.tx.now)),
            OnuField::OltRxPower => reading(onu.online.then_some(onu.olt_rx.now)),
            OnuField::Temperature => reading(onu.online.then_some(onu.transceiver[0])),
            OnuField::Voltage => reading(onu.online.then_some(onu.transceiver[1])),
            OnuField::BiasCurrent => reading(onu.online.then_some(onu.transceiver[2])),
        }
    }

    /// What a correct poller reports for every ONU, decoded from the raw values with the
    /// driver profile (the poller's own table).
    pub fn expected_onus(&self, vendor: &SimVendor) -> Vec<ExpectedOnu> {
        let profile = vendor.profile;
        self.onus
            .iter()
            .map(|onu| {
                let raw = |field: OnuField| {
                    let column = profile.column(field)?;
                    Some((column, self.onu_raw(vendor, onu, column)?))
                };
                // Decodes `field`'s value with `decode`, as the poller does.
                fn decoded_with<T>(
                    raw: Option<(&OnuColumn, Raw)>,
                    decode: impl Fn(&OnuColumn, Cell) -> Option<T>,
                ) -> Option<T> {
                    let (column, raw) = raw?;
                    let cell = match raw {
                        Raw::Integer(value) => Cell::Integer(value),
                        _ => Cell::Octets(raw.octets()?),
                    };
                    decode(column, cell)
                }
                let text = |field: OnuField| match raw(field) {
                    Some((column, raw)) => raw
                        .octets()
                        .map(|bytes| column.decode_octets(bytes))
                        .unwrap_or_default(),
                    None => String::new(),
                };
                let dbm = |field: OnuField| decoded_with(raw(field), OnuColumn::reading);
                let decoded = |field: OnuField| decoded_with(raw(field), OnuColumn::integer);
                let raw_status = decoded(OnuField::Status);
                let status = profile.status(raw_status.unwrap_or(-1));
                let last_down_cause = match status {
                    ponkeeper_actors::domain::OnuStatus::Online => None,
                    ponkeeper_actors::domain::OnuStatus::Offline => {
                        Some(profile.last_down_cause(raw_status, decoded(OnuField::DownCause)))
                    }
                };
                ExpectedOnu {
                    pon_port: self.ports[onu.port].name.as_str().into(),
                    onu_index: onu.ont_id,
                    serial: text(OnuField::Serial).into(),
                    description: text(OnuField::Description).into(),
                    status,
                    last_down_cause,
                    distance: decoded_with(raw(OnuField::Distance), OnuColumn::metres),
                    rx_power: dbm(OnuField::RxPower).map(round_dbm).into(),
                    tx_power: dbm(OnuField::TxPower).map(round_dbm).into(),
                    olt_rx_power: dbm(OnuField::OltRxPower).map(round_dbm).into(),
                    temperature: dbm(OnuField::Temperature).map(round_dbm).into(),
                    voltage: dbm(OnuField::Voltage).map(round_dbm).into(),
                    bias_current: dbm(OnuField::BiasCurrent).map(round_dbm).into(),
                    optics_read: true,
                }
            })
            .collect()
    }
}

/// Enough ports for `onu_count` ONUs: at least 8 ONUs a port while the chassis's boards
/// last, never more than the vendor's per-port maximum.
fn layout_ports(vendor: &SimVendor, onu_count: usize) -> Vec<SimPort> {
    let max = vendor.max_onus_per_port.max(1) as usize;
    let per_slot = vendor.ports_per_slot.max(1);
    let chassis = (vendor.slots.max(1) * per_slot) as usize;
    let count = onu_count
        .div_ceil(8)
        .min(chassis)
        .max(onu_count.div_ceil(max))
        .max(1);
    let mut ports: Vec<SimPort> = (0..count as u32)
        .map(|n| {
            let position = PortPosition {
                frame: vendor.frame,
                slot: vendor.first_slot + n / per_slot,
                port: vendor.first_port + n % per_slot,
                ordinal: n,
            };
            let name = vendor.port_name(position);
            SimPort {
                if_name: format!("{}{name}", vendor.profile.port_name_prefix),
                if_index: (vendor.port_if_index)(position),
                name,
                position,
            }
        })
        .collect();
    ports.sort_by_key(|port| port.if_index);
    ports
}

/// The IF-MIB rows of an OLT: its ports, and each ONU's own interface where the vendor
/// indexes ONUs by it (named `EPON0/1:3`), sorted by ifIndex.
fn layout_interfaces(vendor: &SimVendor, ports: &[SimPort], onus: &[SimOnu]) -> Vec<SimInterface> {
    let interface = |if_index: u32, name: String| SimInterface {
        if_index,
        if_descr: if vendor.if_descr_is_name {
            name.clone()
        } else {
            String::new()
        },
        if_name: name,
        if_type: vendor.port_if_type,
    };
    let mut interfaces: Vec<SimInterface> = ports
        .iter()
        .filter(|_| vendor.ports_in_if_mib)
        .map(|port| interface(port.if_index, port.if_name.clone()))
        .collect();
    if let Some(separator) = vendor.profile.onu_indexing.onu_interface_separator() {
        for onu in onus {
            let Some(if_index) = vendor.onu_if_index(ports[onu.port].position, onu.ont_id) else {
                continue;
            };
            let name = format!("{}{separator}{}", ports[onu.port].if_name, onu.ont_id);
            interfaces.push(interface(if_index, name));
        }
    }
    interfaces.sort_by_key(|interface| interface.if_index);
    interfaces
}

/// Splits `total` ONUs over `ports` ports as evenly as possible.
fn spread(total: usize, ports: usize) -> Vec<usize> {
    let ports = ports.max(1);
    (0..ports)
        .map(|i| total / ports + usize::from(i < total % ports))
        .collect()
}

fn random_cause(rng: &mut ChaCha8Rng) -> DownCause {
    if rng.random_bool(LOS_SHARE) {
        DownCause::Los
    } else {
        DownCause::DyingGasp
    }
}

/// A serial of the vendor's length (the rest of the 8 bytes stays zero).
fn random_serial(vendor: &SimVendor, rng: &mut ChaCha8Rng) -> [u8; 8] {
    let total: u32 = vendor.serial_prefixes.iter().map(|(_, w)| *w).sum();
    let mut pick = rng.random_range(0..total.max(1));
    let mut prefix: &[u8] = b"HWTC";
    for (candidate, weight) in vendor.serial_prefixes {
        if pick < *weight {
            prefix = candidate;
            break;
        }
        pick -= weight;
    }
    let len = vendor.serial_len().min(8);
    let prefix = &prefix[..prefix.len().min(len)];
    let mut serial = [0u8; 8];
    serial[..prefix.len()].copy_from_slice(prefix);
    for byte in &mut serial[prefix.len()..len] {
        *byte = rng.random();
    }
    serial
}

/// Temperature 30–49 °C, voltage 3.20–3.35 V and bias 8–27 mA, taken from the serial's
/// last bytes so that no draw of the generator moves (seeded layouts stay as they were).
pub(super) fn transceiver_of(serial: &[u8; 8]) -> [f64; 3] {
    [
        30.0 + f64::from(serial[7] % 20),
        3.2 + f64::from(serial[6] % 16) / 100.0,
        8.0 + f64::from(serial[5] % 20),
    ]
}

fn generate_onu(
    vendor: &SimVendor,
    rng: &mut ChaCha8Rng,
    serials: &mut HashSet<[u8; 8]>,
    port_no: usize,
    port: &SimPort,
    ont_id: u32,
    contract: u64,
) -> SimOnu {
    let serial = loop {
        let serial = random_serial(vendor, rng);
        if serials.insert(serial) {
            break serial;
        }
    };
    let distance_m: u32 = rng.random_range(100..=20_000);
    // Longer fibre, more splitters: weaker signal, with some spread.
    let loss = f64::from(distance_m) / 20_000.0 * 8.0;
    let rx = (-14.0 - loss - rng.random_range(0.0..6.0)).clamp(-28.0, -14.0);
    let olt_rx = (-15.0 - loss - rng.random_range(0.0..7.0)).clamp(-30.0, -15.0);
    let tx = rng.random_range(0.5..=4.5);
    let online = !rng.random_bool(INITIALLY_OFFLINE);
    let last_down_cause = if !online || rng.random_bool(DOWN_BEFORE) {
        Some(random_cause(rng))
    } else {
        None
    };
    let rx_reported = !rng.random_bool(RX_MISSING);
    let row = vendor.onu_row_index(port.position, ont_id, &serial);
    SimOnu {
        port: port_no,
        row,
        ont_id,
        serial,
        description: format!("contract-{contract}"),
        online,
        last_down_cause,
        outage_ticks_left: None,
        distance_m,
        rx_reported,
        rx: Reading::new(round_dbm(rx)),
        tx: Reading::new(round_dbm(tx)),
        olt_rx: Reading::new(round_dbm(olt_rx)),
        transceiver: transceiver_of(&serial),
        vlan: None,
        profiles: [None, None],
        reboots: 0,
        reads: Default::default(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ponkeeper_actors::domain::Vendor;

    fn huawei() -> &'static SimVendor {
        SimVendor::for_vendor(Vendor::Huawei)
    }

    #[test]
    fn layout_is_realistic() {
        let olt = SimOlt::generate(huawei(), 7, 1, 128, 100_000);
        assert_eq!(olt.ports.len(), 16);
        assert_eq!(olt.ports[0].name, "0/1/0");
        assert_eq!(olt.ports[0].if_name, "GPON 0/1/0");
        assert_eq!(olt.ports[0].if_index, 4_194_312_192);
        assert_eq!(olt.onus.len(), 128);
        let big = SimOlt::generate(huawei(), 7, 1, 2_000, 0);
        assert!(big.ports.len() * 32 >= 2_000);
        for port in 0..big.ports.len() {
            let on_port = big.onus.iter().filter(|o| o.port == port).count();
            assert!(on_port <= 32, "port {port} carries {on_port}");
        }
        let mut keys: Vec<RowIndex> = big.onus.iter().map(|o| o.row).collect();
        let before = keys.clone();
        keys.sort_unstable();
        keys.dedup();
        assert_eq!(keys, before, "rows are sorted and unique");
        assert!(big.onus.iter().all(|o| o.ont_id < 128));
    }

    #[test]
    fn zte_layout_follows_the_c320() {
        let zte = SimVendor::for_vendor(Vendor::Zte);
        let olt = SimOlt::generate(zte, 7, 1, 64, 0);
        assert_eq!(olt.ports.len(), 8);
        assert_eq!(olt.ports[0].name, "1/1/1");
        assert_eq!(olt.ports[0].if_name, "gpon_1/1/1");
        assert_eq!(olt.ports[0].if_index, 268_500_000);
        assert_eq!(olt.interfaces.len(), 8, "IF-MIB holds the ports only");
        assert!(olt.interfaces.iter().all(|i| i.if_descr.is_empty()));
        let first = &olt.onus[0];
        assert_eq!(first.row.arcs()[0], 268_501_248);
        assert!(olt.onus.iter().all(|o| o.ont_id >= 1));
        assert!(olt.onus.iter().all(|o| &o.serial[..4] != b"\0\0\0\0"));
        let expected = olt.expected_onus(zte);
        assert!(expected.iter().all(|o| o.serial.len() == 12));
    }

    #[test]
    fn bdcom_layout_follows_the_p3310() {
        let bdcom = SimVendor::for_vendor(Vendor::Bdcom);
        let olt = SimOlt::generate(bdcom, 7, 1, 128, 0);
        assert_eq!(olt.ports.len(), 4);
        assert_eq!(olt.ports[0].name, "0/1");
        assert_eq!(olt.ports[3].if_name, "EPON0/4");
        assert_eq!(olt.interfaces.len(), 4 + 128, "ports and ONU interfaces");
        let onu = &olt.onus[0];
        let interface = olt
            .interfaces
            .iter()
            .find(|i| i.if_index == onu.row.arcs()[0])
            .expect("the ONU's own interface");
        assert_eq!(interface.if_descr, format!("EPON0/1:{}", onu.ont_id));
        assert_eq!(onu.serial[6..], [0, 0]);
        let expected = olt.expected_onus(bdcom);
        let mac = &expected[0].serial;
        assert_eq!(mac.len(), 17, "{mac}");
        assert_eq!(mac.to_lowercase(), *mac);
        let rows: Vec<RowIndex> = olt.onus.iter().map(|o| o.row).collect();
        let mut sorted = rows.clone();
        sorted.sort_unstable();
        sorted.dedup();
        assert_eq!(rows, sorted);
    }

    #[test]
    fn readings_stay_in_their_ranges() {
        let mut olt = SimOlt::generate(huawei(), 3, 2, 256, 0);
        let dynamics = Dynamics::default();
        for _ in 0..200 {
            olt.step(&dynamics);
        }
        for onu in &olt.onus {
            assert!((100..=20_000).contains(&onu.distance_m));
            assert!((-29.0..=-13.0).contains(&onu.rx.now), "rx {}", onu.rx.now);
            assert!((-0.5..=5.5).contains(&onu.tx.now), "tx {}", onu.tx.now);
            assert!(
                (-31.0..=-14.0).contains(&onu.olt_rx.now),
                "olt rx {}",
                onu.olt_rx.now
            );
        }
    }

    #[test]
    fn outages_come_back() {
        let mut olt = SimOlt::generate(huawei(), 3, 2, 64, 0);
        let dynamics = Dynamics {
            outage_probability: 0.5,
            outage_ticks: (1, 2),
            ..Dynamics::default()
        };
        olt.step(&dynamics);
        let temporary: Vec<usize> = (0..olt.onus.len())
            .filter(|&i| olt.onus[i].outage_ticks_left.is_some())
            .collect();
        assert!(!temporary.is_empty());
        let quiet = Dynamics {
            outage_probability: 0.0,
            ..dynamics
        };
        for _ in 0..3 {
            olt.step(&quiet);
        }
        for i in temporary {
            assert!(olt.onus[i].online);
            assert!(olt.onus[i].last_down_cause.is_some());
        }
    }
}
