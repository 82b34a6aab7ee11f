//! Splitter and power cuts in the simulator, set over the control socket and read over
//! real UDP SNMP with the client the service polls with, decoded with the driver profile:
//! `los:PORT:FIRST-LAST` takes those ONUs OFFLINE with cause LOS while the rest of the
//! port reads as before, `dying-gasp:PORT:FIRST-LAST` gives DYING_GASP where the layout
//! can say it (BDCOM's status cannot: offline, cause unknown), several groups hold on one
//! OLT at once, `show` prints them back and `clear` brings the ONUs back ONLINE before it
//! answers, on every table layout the simulator speaks.

use ponkeeper_actors::domain::{DownCause, OltId, OnuStatus, Vendor};
use ponkeeper_actors::inventory::SnmpVersion;
use ponkeeper_actors::profile::{OnuField, Profile};
use ponkeeper_actors::snmp::{ClientSettings, SnmpClient, SnmpValue};
use ponkeeper_sim::{Dynamics, FaultSpec, FleetSpec, FleetVendors, SimFleet};
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::time::Duration;
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::net::UnixStream;

/// What a poller reads of one ONU: its status and, when offline, its last down cause.
type Reading = (OnuStatus, Option<DownCause>);

/// Every ONU of an OLT by (port, ONU number).
type Onus = HashMap<(String, u32), Reading>;

const ONLINE: Reading = (OnuStatus::Online, None);

/// Every ONU of OLT `id` by (port, ONU number), read over SNMP: the serial, status and
/// (where the layout has one) down-cause columns, decoded as the poller decodes them; the
/// serial names the ONU in the simulator's own listing.
async fn read_onus(
    sim: &SimFleet,
    id: OltId,
    profile: &Profile,
) -> HashMap<(String, u32), Reading> {
    let inventory = sim.inventory();
    let olt = inventory.olts.iter().find(|o| o.id == id).expect("the OLT");
    let mut client = SnmpClient::new(
        sim.olt_addr(id).expect("an address"),
        &olt.snmp.community,
        SnmpVersion::V2c,
        ClientSettings {
            timeout: Duration::from_secs(3),
            retries: 1,
            bulk_varbinds: 30,
        },
    );
    let fields = [OnuField::Serial, OnuField::Status, OnuField::DownCause];
    let columns: Vec<_> = fields.iter().filter_map(|&f| profile.column(f)).collect();
    let oids: Vec<&[u32]> = columns.iter().map(|c| c.oid).collect();
    let walked = client.walk_columns(&oids).await.expect("walk");
    let mut rows: HashMap<Vec<u32>, (String, Option<i64>, Option<i64>)> = HashMap::new();
    for (column, entries) in columns.iter().zip(&walked) {
        for (index, value) in entries {
            let row = rows.entry(index.to_vec()).or_default();
            match (column.field, value) {
                (OnuField::Serial, SnmpValue::OctetString(bytes)) => {
                    row.0 = column.decode_octets(bytes)
                }
                (OnuField::Status, SnmpValue::Integer(raw)) => row.1 = column.decode_integer(*raw),
                (OnuField::DownCause, SnmpValue::Integer(raw)) => {
                    row.2 = column.decode_integer(*raw)
                }
                (field, value) => panic!("{field:?}: unexpected {value:?}"),
            }
        }
    }
    let by_serial: HashMap<String, (String, u32)> = sim
        .expected_onus(id)
        .into_iter()
        .map(|onu| (onu.serial.into(), (onu.pon_port.into(), onu.onu_index)))
        .collect();
    rows.into_values()
        .map(|(serial, status, cause)| {
            let place = by_serial
                .get(&serial)
                .unwrap_or_else(|| panic!("ONU {serial}"))
                .clone();
            let reading = match profile.status(status.unwrap_or(-1)) {
                OnuStatus::Online => (OnuStatus::Online, None),
                OnuStatus::Offline => (
                    OnuStatus::Offline,
                    Some(profile.last_down_cause(status, cause)),
                ),
            };
            (place, reading)
        })
        .collect()
}

/// Sends `requests` to the control socket, one a line; returns the replies.
async fn control(path: &Path, requests: &[&str]) -> Vec<String> {
    let stream = UnixStream::connect(path).await.expect("connects");
    let (read, mut write) = stream.into_split();
    let mut lines = BufReader::new(read).lines();
    let mut replies = Vec::new();
    for request in requests {
        write
            .write_all(format!("{request}\n").as_bytes())
            .await
            .expect("write");
        let reply = tokio::time::timeout(Duration::from_secs(5), lines.next_line())
            .await
            .expect("a reply in time")
            .expect("read")
            .expect("a line");
        replies.push(reply);
    }
    replies
}

/// A group as the test writes it: ONUs `first..=last` of `port`.
#[derive(Debug, Clone)]
struct Group {
    port: String,
    first: u32,
    last: u32,
}

impl Group {
    fn new(port: &str, first: u32, last: u32) -> Group {
        Group {
            port: port.to_string(),
            first,
            last,
        }
    }

    fn holds(&self, onu: &(String, u32)) -> bool {
        onu.0 == self.port && (self.first..=self.last).contains(&onu.1)
    }

    /// The SPEC rule `KIND:PORT:FIRST-LAST@ID`.
    fn rule(&self, kind: &str, id: OltId) -> String {
        format!("{kind}:{}:{}-{}@{id}", self.port, self.first, self.last)
    }
}

/// The ONU numbers on `port`, ascending.
fn numbers(onus: &Onus, port: &str) -> Vec<u32> {
    let mut numbers: Vec<u32> = onus
        .keys()
        .filter(|(p, _)| p == port)
        .map(|(_, n)| *n)
        .collect();
    numbers.sort_unstable();
    numbers
}

/// The offline ONUs of `ports`, by port and number.
fn offline_on(onus: &Onus, ports: &[&str]) -> Vec<(String, u32, Reading)> {
    let mut offline: Vec<(String, u32, Reading)> = onus
        .iter()
        .filter(|(onu, reading)| reading.0 == OnuStatus::Offline && ports.contains(&&*onu.0))
        .map(|((port, n), reading)| (port.clone(), *n, *reading))
        .collect();
    offline.sort_by(|a, b| (&a.0, a.1).cmp(&(&b.0, b.1)));
    offline
}

/// Every ONU of `now` outside `groups` reads as it did `before`.
fn assert_untouched(now: &Onus, before: &Onus, groups: &[&Group], what: &str) {
    assert_eq!(now.len(), before.len(), "{what}");
    for (onu, reading) in now {
        if !groups.iter().any(|group| group.holds(onu)) {
            assert_eq!(
                Some(reading),
                before.get(onu),
                "{what}: {onu:?} is untouched"
            );
        }
    }
}

/// A frozen fleet with its control socket open in a temporary directory.
async fn fleet(spec: FleetSpec) -> (SimFleet, tempfile::TempDir, PathBuf) {
    let mut sim = SimFleet::start(FleetSpec {
        dynamics: Dynamics::none(),
        ..spec
    })
    .await
    .expect("fleet starts");
    let dir = tempfile::tempdir().expect("tempdir");
    let socket = dir.path().join("control.sock");
    sim.serve_control(&socket).expect("control socket");
    (sim, dir, socket)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_splitter_cut_reads_los_over_snmp_and_clear_brings_it_back() {
    // Seed 34: ports 0/1/0 and 0/1/1 carry 16 ONUs each, numbered 0-15, all online.
    let (sim, _dir, socket) = fleet(FleetSpec {
        seed: 34,
        ..FleetSpec::new(2, 512)
    })
    .await;
    let huawei = Profile::for_vendor(Vendor::Huawei);
    let before = read_onus(&sim, 1, huawei).await;
    let other = read_onus(&sim, 2, huawei).await;
    assert_eq!(before.len(), 512);
    for port in ["0/1/0", "0/1/1"] {
        assert_eq!(numbers(&before, port), (0..16).collect::<Vec<u32>>());
        assert_eq!(offline_on(&before, &[port]), []);
    }

    let replies = control(
        &socket,
        &["set los:0/1/0:1-12@1", "set dying-gasp:0/1/1:3-4@1", "show"],
    )
    .await;
    assert_eq!(
        replies,
        [
            "ok 1 OLT",
            "ok 1 OLT",
            "ok los:0/1/0:1-12@1;dying-gasp:0/1/1:3-4@1"
        ]
    );
    let cut = read_onus(&sim, 1, huawei).await;
    let down = |port: &str, n: u32, cause| (port.to_string(), n, (OnuStatus::Offline, Some(cause)));
    let expected: Vec<_> = (1..=12)
        .map(|n| down("0/1/0", n, DownCause::Los))
        .chain((3..=4).map(|n| down("0/1/1", n, DownCause::DyingGasp)))
        .collect();
    assert_eq!(
        offline_on(&cut, &["0/1/0", "0/1/1"]),
        expected,
        "the 12 ONUs of the splitter and the 2 of the power cut, nothing else on the ports"
    );
    let (los, gasp) = (Group::new("0/1/0", 1, 12), Group::new("0/1/1", 3, 4));
    assert_untouched(&cut, &before, &[&los, &gasp], "OLT 1");
    assert_eq!(
        read_onus(&sim, 2, huawei).await,
        other,
        "OLT 2 is untouched"
    );

    assert_eq!(
        control(&socket, &["clear 1", "show"]).await,
        ["ok 1 OLT", "ok"]
    );
    let healed = read_onus(&sim, 1, huawei).await;
    assert!(healed
        .iter()
        .filter(|(o, _)| los.holds(o))
        .all(|(_, r)| *r == ONLINE));
    assert_eq!(healed, before, "every ONU back as it was");
    sim.shutdown().await;
}

/// One OLT of the every-layout fleet: its ONUs before the cuts, its two groups and what
/// its layout reads for a dying gasp.
struct Layout {
    id: OltId,
    profile: &'static Profile,
    before: Onus,
    los: Group,
    gasp: Group,
    gasp_read: DownCause,
}

impl Layout {
    /// OLT `id`: the second to the fifth ONU of its first port lose light, those of its
    /// second port from the second on lose power.
    async fn new(sim: &SimFleet, id: OltId, family: &str, gasp_read: DownCause) -> Layout {
        let profile = *Profile::ALL
            .iter()
            .find(|p| p.family == family)
            .expect("a profile");
        let before = read_onus(sim, id, profile).await;
        assert_eq!(before.len(), 128, "{family}");
        let ports = sim.expected_ports(id);
        let on_first = numbers(&before, &ports[0]);
        let on_second = numbers(&before, &ports[1]);
        Layout {
            id,
            profile,
            los: Group::new(&ports[0], on_first[1], on_first[4]),
            gasp: Group::new(&ports[1], on_second[1], on_second[on_second.len() - 1]),
            before,
            gasp_read,
        }
    }

    /// Reads the OLT over SNMP while its groups hold.
    async fn assert_cut(&self, sim: &SimFleet) {
        let family = self.profile.family;
        let cut = read_onus(sim, self.id, self.profile).await;
        let (mut lost, mut gasped) = (0, 0);
        for (onu, reading) in &cut {
            if self.los.holds(onu) {
                let los = (OnuStatus::Offline, Some(DownCause::Los));
                assert_eq!(*reading, los, "{family} {onu:?}");
                lost += 1;
            } else if self.gasp.holds(onu) {
                let gasp = (OnuStatus::Offline, Some(self.gasp_read));
                assert_eq!(*reading, gasp, "{family} {onu:?}");
                gasped += 1;
            }
        }
        assert_eq!(lost, 4, "{family}");
        assert!(gasped >= 3, "{family}: {gasped}");
        assert_untouched(&cut, &self.before, &[&self.los, &self.gasp], family);
    }

    /// Reads the OLT over SNMP once cleared.
    async fn assert_healed(&self, sim: &SimFleet) {
        let family = self.profile.family;
        let healed = read_onus(sim, self.id, self.profile).await;
        for (onu, reading) in &healed {
            if self.los.holds(onu) || self.gasp.holds(onu) {
                assert_eq!(*reading, ONLINE, "{family} {onu:?}");
            }
        }
        assert_untouched(&healed, &self.before, &[&self.los, &self.gasp], family);
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_layout_reports_the_cut_it_can() {
    let vendors = FleetVendors::EveryFamily;
    let (sim, _dir, socket) = fleet(FleetSpec {
        vendors,
        ..FleetSpec::new(5, 128)
    })
    .await;
    // What each layout reads for a dying gasp: BDCOM's status has no value for it.
    let gasp_reads = [
        ("MA5600T / MA5800", DownCause::DyingGasp),
        ("C300 / C320", DownCause::DyingGasp),
        ("P3310 / P3600 (EPON)", DownCause::Unknown),
        ("C600 / C620", DownCause::DyingGasp),
        ("GP3600 (GPON)", DownCause::Unknown),
    ];
    let mut layouts = Vec::new();
    for (i, (family, gasp_read)) in gasp_reads.into_iter().enumerate() {
        assert_eq!(vendors.family_of_olt(i), family);
        layouts.push(Layout::new(&sim, i as OltId + 1, family, gasp_read).await);
    }
    let spec = layouts
        .iter()
        .flat_map(|l| [l.los.rule("los", l.id), l.gasp.rule("dying-gasp", l.id)])
        .collect::<Vec<_>>()
        .join(";");
    let replies = control(&socket, &[&format!("set {spec}"), "show"]).await;
    assert_eq!(replies[0], "ok 5 OLTs");
    // `show` folds the OLTs with the same group into one rule; it means the same.
    let shown: FaultSpec = replies[1]
        .strip_prefix("ok ")
        .expect("ok")
        .parse()
        .expect("show prints a SPEC");
    let fleet: Vec<OltId> = (1..=5).collect();
    let set: FaultSpec = spec.parse().expect("a SPEC");
    assert_eq!(shown.resolve(&fleet), set.resolve(&fleet));
    for layout in &layouts {
        layout.assert_cut(&sim).await;
    }
    assert_eq!(
        control(&socket, &["clear", "show"]).await,
        ["ok 5 OLTs", "ok"]
    );
    for layout in &layouts {
        layout.assert_healed(&sim).await;
    }
    sim.shutdown().await;
}
