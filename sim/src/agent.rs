//! The SNMP agent of one simulated OLT: a task that owns a real UDP socket and answers
//! GET, GETNEXT and GETBULK (v1 and v2c, community `public`) from the OLT's MIB view
//! ([`super::mib`]). Pollers talk to it over the network exactly as to a device;
//! [`super::SimFleet`] spawns one per OLT. Packets it cannot decode, with a wrong
//! community, of SNMPv3 (unless the fleet has a v3 user: [`super::usm`]) or of a kind an
//! agent never receives are dropped without an answer, as real agents do.
//!
//! Before each answer the task reads its OLT's [`FaultSet`] ([`super::fault`]): it may
//! stay silent (`hang`, `drop`), send the answer late from a task of its own (`slow`, so
//! the next request is not held up), send random bytes (`garbage`), or bend the answer
//! (`wrong-id`, `oversized`, `malformed`). For `gone` it closes its socket and binds the
//! same address again once the fault is cleared.
//!
//! A large fleet may put many OLTs on one socket ([`shared`]): each answers only its own
//! community, and the socket's task hands every request to the OLT it names.

use super::ber::{Name, ResponseWriter, Value};
use super::fault::{self, Fault, FaultSet};
use super::mib::{AnswerContext, InstanceOid, Lookup, MibView};
use super::model::SimOlt;
use super::vendor::SimVendor;
use rand::Rng;
use snmp2::{MessageType, Pdu, Version};
use std::net::SocketAddr;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use tokio::net::UdpSocket;
use tokio::sync::watch;
use tokio::task::JoinSet;

mod shared;
pub(crate) use shared::serve_shared;

/// The community every simulated OLT answers to.
pub(crate) const COMMUNITY: &[u8] = b"public";

/// Largest response datagram; GETBULK repetitions are cut to stay below it.
pub(crate) const MAX_RESPONSE: usize = 65_000;
/// Room for the message and PDU headers around the varbind list.
const HEADER_ROOM: usize = 64;

/// SNMP error-status values the agent uses.
const TOO_BIG: u32 = 1;
const NO_SUCH_NAME: u32 = 2;
const READ_ONLY: u32 = 4;
const NOT_WRITABLE: u32 = 17;

/// What the agent task and the fleet share about one OLT.
#[derive(Debug)]
pub(crate) struct OltShared {
    pub state: Mutex<SimOlt>,
    /// The OLT's faults; the agent task also waits on it to close or rebind its socket.
    pub faults: watch::Sender<FaultSet>,
    /// Every line the SSH server received after login, in order.
    pub commands: Mutex<Vec<String>>,
    /// SNMP datagrams received and datagrams sent back (answers or junk).
    pub received: AtomicU64,
    pub sent: AtomicU64,
}

impl OltShared {
    pub fn new(state: SimOlt) -> OltShared {
        OltShared {
            state: Mutex::new(state),
            faults: watch::Sender::new(FaultSet::new()),
            commands: Mutex::new(Vec::new()),
            received: AtomicU64::new(0),
            sent: AtomicU64::new(0),
        }
    }

    /// Whether the OLT has a fault of `fault`'s kind right now.
    pub fn has(&self, fault: Fault) -> bool {
        self.faults.borrow().has(fault)
    }
}

/// How a faulty OLT bends an answer it does give.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct Bend {
    /// Answer with a request id other than the request's.
    pub wrong_id: bool,
    /// Pad the answer with unrequested varbinds up to the largest datagram.
    pub oversized: bool,
}

/// The filler varbind of an oversized answer: an enterprise OID no profile walks, and a
/// kilobyte of text.
const FILLER_OID: [u64; 8] = [1, 3, 6, 1, 4, 1, 99999, 1];
const FILLER: [u8; 1000] = [b'X'; 1000];

/// Everything needed to answer one OLT's requests, minus the socket.
pub(crate) struct Responder {
    olt: Arc<OltShared>,
    view: Arc<MibView>,
    vendor: &'static SimVendor,
    /// When the fleet started: sysUpTime counts from here.
    started: Instant,
    writer: ResponseWriter,
    /// The SNMPv3 engine when the fleet answers v3 ([`super::usm`]), and its last answer.
    usm: Option<super::usm::UsmEngine>,
    v3_answer: Vec<u8>,
    /// The community this OLT answers to: [`COMMUNITY`] unless it shares its socket.
    community: Vec<u8>,
}

impl Responder {
    pub fn new(
        olt: Arc<OltShared>,
        view: Arc<MibView>,
        vendor: &'static SimVendor,
        started: Instant,
    ) -> Self {
        Responder {
            olt,
            view,
            vendor,
            started,
            writer: ResponseWriter::default(),
            usm: None,
            v3_answer: Vec::new(),
            community: COMMUNITY.to_vec(),
        }
    }

    /// Answers to `community` instead of [`COMMUNITY`].
    pub fn with_community(mut self, community: &[u8]) -> Self {
        self.community = community.to_vec();
        self
    }

    /// Answers SNMPv3 too, through `engine`.
    pub fn with_usm(mut self, engine: super::usm::UsmEngine) -> Self {
        self.usm = Some(engine);
        self
    }

    /// A v3 datagram: the engine unwraps it, this responder answers the request inside.
    fn answer_v3(&mut self, request: &[u8], bend: Bend) -> Option<&[u8]> {
        let mut engine = self.usm.take()?;
        let answer = engine.answer(request, |v2c| {
            self.answer_bent(v2c, bend).map(<[u8]>::to_vec)
        });
        self.usm = Some(engine);
        self.v3_answer = answer?;
        Some(&self.v3_answer)
    }

    /// The response to one request datagram, or `None` when it gets no answer.
    pub fn answer(&mut self, request: &[u8]) -> Option<&[u8]> {
        self.answer_bent(request, Bend::default())
    }

    /// The response to one request datagram, bent as a faulty OLT would.
    pub fn answer_bent(&mut self, request: &[u8], bend: Bend) -> Option<&[u8]> {
        if self.usm.is_some() && super::usm::is_v3(request) {
            return self.answer_v3(request, bend);
        }
        let pdu = Pdu::from_bytes(request).ok()?;
        if pdu.community != self.community.as_slice() {
            return None;
        }
        let version = pdu.version().ok()?;
        let v1 = match version {
            Version::V1 => true,
            Version::V2C => false,
            _ => return None,
        };
        let limit = MAX_RESPONSE.saturating_sub(HEADER_ROOM + pdu.community.len());
        let requested: Vec<Requested<'_>> = pdu
            .varbinds
            .clone()
            .map(|(oid, _)| (oid.iter().map(Iterator::collect).unwrap_or_default(), oid))
            .collect();
        let error = self.write_varbinds(&pdu, &requested, v1, limit)?;

        let writer = &mut self.writer;
        let (status, index) = match error {
            Some((status, index)) => {
                // An error response carries the request's varbinds (tooBig: none at all).
                writer.clear();
                if status != TOO_BIG {
                    for (_, raw) in &requested {
                        writer.push(Name::Encoded(raw.as_bytes()), Value::Null, limit);
                    }
                }
                (status, index as u32)
            }
            None => (0, 0),
        };
        if bend.oversized {
            pad_with_filler(writer, limit);
        }
        let request_id = if bend.wrong_id {
            pdu.req_id.wrapping_add(0x1000)
        } else {
            pdu.req_id
        };
        Some(writer.finish(version as i64, pdu.community, request_id, status, index))
    }

    /// Writes the varbinds that answer `pdu`, read from the OLT as it is now. Returns the
    /// error to answer with, if any, or `None` for a request that gets no answer at all.
    fn write_varbinds(
        &mut self,
        pdu: &Pdu<'_>,
        requested: &[Requested<'_>],
        v1: bool,
        limit: usize,
    ) -> Option<Option<ErrorAt>> {
        let ctx = AnswerContext {
            vendor: self.vendor,
            uptime: (self.started.elapsed().as_millis() / 10) as u32,
        };
        // A poisoned lock only means a ticker panicked mid-step; the state is still readable.
        let olt = match self.olt.state.lock() {
            Ok(guard) => guard,
            Err(poisoned) => poisoned.into_inner(),
        };
        self.writer.clear();
        let mut answer = Answer {
            view: &self.view,
            olt: &olt,
            ctx,
            writer: &mut self.writer,
            limit,
        };
        let error = match pdu.message_type {
            MessageType::GetRequest => answer.get(requested, v1),
            MessageType::GetNextRequest => answer.get_next(requested, v1),
            MessageType::GetBulkRequest if !v1 => {
                let non_repeaters = pdu.error_status as usize;
                answer.get_bulk(requested, non_repeaters, pdu.error_index as usize);
                None
            }
            MessageType::SetRequest => Some((if v1 { READ_ONLY } else { NOT_WRITABLE }, 1)),
            _ => return None,
        };
        Some(error)
    }
}

/// A requested OID: its arcs to search with (an OID with an arc beyond u64 searches as the
/// empty OID), and the OID as received, to echo back.
type Requested<'p> = (Vec<u64>, snmp2::Oid<'p>);

/// The error-status and error-index (1-based varbind, 0 for none) to answer with.
type ErrorAt = (u32, usize);

/// One answer being written: the OLT's state and MIB view as they are now, and the writer
/// the varbinds go to, up to `limit` bytes.
struct Answer<'a> {
    view: &'a MibView,
    olt: &'a SimOlt,
    ctx: AnswerContext,
    writer: &'a mut ResponseWriter,
    limit: usize,
}

impl Answer<'_> {
    /// GET: the value at each requested OID (in v1 the first missing one is noSuchName).
    fn get(&mut self, requested: &[Requested<'_>], v1: bool) -> Option<ErrorAt> {
        for (i, (oid, raw)) in requested.iter().enumerate() {
            let value = match self.view.get(self.olt, self.ctx, oid) {
                Lookup::Found(value) => value,
                Lookup::NoSuchObject => Value::NoSuchObject,
                Lookup::NoSuchInstance => Value::NoSuchInstance,
            };
            if v1 && matches!(value, Value::NoSuchObject | Value::NoSuchInstance) {
                return Some((NO_SUCH_NAME, i + 1));
            }
            if !self
                .writer
                .push(Name::Encoded(raw.as_bytes()), value, self.limit)
            {
                return Some((TOO_BIG, 0));
            }
        }
        None
    }

    /// GETNEXT: the instance after each requested OID (in v1 the end of the view is
    /// noSuchName).
    fn get_next(&mut self, requested: &[Requested<'_>], v1: bool) -> Option<ErrorAt> {
        for (i, (oid, raw)) in requested.iter().enumerate() {
            let found = self.view.next(self.olt, self.ctx, oid);
            if v1 && found.is_none() {
                return Some((NO_SUCH_NAME, i + 1));
            }
            if !self.push_next(found, raw) {
                return Some((TOO_BIG, 0));
            }
        }
        None
    }

    /// GETBULK: the instance after each of the first `non_repeaters` OIDs, then up to
    /// `max_repetitions` rows of the instances after the others, until every one of them
    /// has reached the end of the view or the datagram is full.
    fn get_bulk(
        &mut self,
        requested: &[Requested<'_>],
        non_repeaters: usize,
        max_repetitions: usize,
    ) {
        let (singles, repeaters) = requested.split_at(non_repeaters.min(requested.len()));
        for (oid, raw) in singles {
            let found = self.view.next(self.olt, self.ctx, oid);
            if !self.push_next(found, raw) {
                break;
            }
        }
        let mut cursors: Vec<Vec<u64>> = repeaters.iter().map(|(oid, _)| oid.clone()).collect();
        let mut ended = vec![false; cursors.len()];
        'rows: for _ in 0..max_repetitions {
            if cursors.is_empty() || ended.iter().all(|&e| e) {
                break;
            }
            for (cursor, ended) in cursors.iter_mut().zip(ended.iter_mut()) {
                let found = if *ended {
                    None
                } else {
                    self.view.next(self.olt, self.ctx, cursor)
                };
                let pushed = match found {
                    Some((name, value)) => {
                        let pushed = self.writer.push(Name::Arcs(name.arcs()), value, self.limit);
                        cursor.clear();
                        cursor.extend_from_slice(name.arcs());
                        pushed
                    }
                    None => {
                        *ended = true;
                        self.writer
                            .push(Name::Arcs(cursor), Value::EndOfMibView, self.limit)
                    }
                };
                if !pushed {
                    break 'rows;
                }
            }
        }
    }

    /// Writes what a GETNEXT found, or the end of the view under the requested name;
    /// `false` when it does not fit.
    fn push_next(&mut self, found: Option<(InstanceOid, Value<'_>)>, raw: &snmp2::Oid<'_>) -> bool {
        match found {
            Some((name, value)) => self.writer.push(Name::Arcs(name.arcs()), value, self.limit),
            None => self.writer.push(
                Name::Encoded(raw.as_bytes()),
                Value::EndOfMibView,
                self.limit,
            ),
        }
    }
}

/// Pads an answer with filler varbinds until the next would pass `limit`.
fn pad_with_filler(writer: &mut ResponseWriter, limit: usize) {
    let mut filler = FILLER_OID.to_vec();
    filler.push(0);
    for n in 1.. {
        filler[FILLER_OID.len()] = n;
        if !writer.push(Name::Arcs(&filler), Value::Octets(&FILLER), limit) {
            break;
        }
    }
}

/// Serves `responder` on `socket` until the task is aborted, with its OLT's faults;
/// `rng` decides what `drop` drops and what `garbage` sends.
pub(crate) async fn serve(socket: UdpSocket, mut responder: Responder, mut rng: impl Rng) {
    let olt = responder.olt.clone();
    let mut faults = olt.faults.subscribe();
    let mut socket = Some(Arc::new(socket));
    let addr = socket.as_ref().and_then(|s| s.local_addr().ok());
    // Answers of a `slow` OLT on their way out.
    let mut delayed = JoinSet::new();
    // Requests are small; a larger one is cut short, fails to decode and is dropped.
    let mut request = vec![0u8; 16 * 1024];
    loop {
        while delayed.try_join_next().is_some() {}
        let gone = faults.borrow_and_update().has(Fault::Gone);
        let current = match (&socket, gone, addr) {
            (Some(current), false, _) => current.clone(),
            (Some(_), true, _) => {
                // Late answers hold the socket too: abort them so the port closes now.
                delayed.abort_all();
                socket = None;
                continue;
            }
            (None, true, _) | (None, false, None) => {
                if faults.changed().await.is_err() {
                    return;
                }
                continue;
            }
            (None, false, Some(addr)) => {
                socket = rebind(addr).await;
                continue;
            }
        };
        let (len, peer) = tokio::select! {
            received = current.recv_from(&mut request) => match received {
                Ok(received) => received,
                // ICMP port-unreachable from an earlier answer and the like: keep serving.
                Err(error) => {
                    tracing::trace!(%error, "simulated agent receive failed");
                    continue;
                }
            },
            changed = faults.changed() => {
                if changed.is_err() {
                    return;
                }
                continue;
            }
        };
        olt.received.fetch_add(1, Ordering::Relaxed);
        let set = *faults.borrow();
        if set.is_empty() {
            if let Some(response) = responder.answer(&request[..len]) {
                send(&current, &olt, response, peer).await;
            }
            continue;
        }
        let Some(response) = faulty_response(&mut responder, set, &request[..len], &mut rng) else {
            continue;
        };
        match set.delay() {
            Some(delay) if !delay.is_zero() => {
                let (socket, olt) = (current.clone(), olt.clone());
                delayed.spawn(async move {
                    tokio::time::sleep(delay).await;
                    send(&socket, &olt, &response, peer).await;
                });
            }
            _ => send(&current, &olt, &response, peer).await,
        }
    }
}

/// The agent's socket bound again at `addr` once `gone` is cleared, or `None` (after a
/// short pause) while the port is still taken.
async fn rebind(addr: SocketAddr) -> Option<Arc<UdpSocket>> {
    match UdpSocket::bind(addr).await {
        Ok(bound) => Some(Arc::new(bound)),
        Err(error) => {
            // A late answer task may still hold the port for a moment.
            tracing::debug!(%error, %addr, "simulated agent cannot rebind yet");
            tokio::time::sleep(Duration::from_millis(20)).await;
            None
        }
    }
}

/// What an OLT with the faults `set` sends for one request, or `None` when it stays
/// silent (`hang`, `drop`, or a request that gets no answer). `slow` is left to the
/// caller.
fn faulty_response(
    responder: &mut Responder,
    set: FaultSet,
    request: &[u8],
    rng: &mut impl Rng,
) -> Option<Vec<u8>> {
    if set.has(Fault::Hang) {
        return None;
    }
    if let Some(percent) = set.drop_percent() {
        if rng.random_range(0..100u8) < percent {
            return None;
        }
    }
    if set.has(Fault::Garbage) {
        return Some(fault::garbage(rng));
    }
    let bend = Bend {
        wrong_id: set.has(Fault::WrongId),
        oversized: set.has(Fault::Oversized),
    };
    let mut response = responder.answer_bent(request, bend)?.to_vec();
    if set.has(Fault::Malformed) {
        fault::malform(&mut response);
    }
    Some(response)
}

async fn send(socket: &UdpSocket, olt: &OltShared, response: &[u8], peer: SocketAddr) {
    match socket.send_to(response, peer).await {
        Ok(_) => {
            olt.sent.fetch_add(1, Ordering::Relaxed);
        }
        Err(error) => tracing::trace!(%error, %peer, "simulated agent send failed"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ponkeeper_actors::domain::Vendor;
    use ponkeeper_actors::profile::std_oids;
    use snmp2::Value as Got;

    const GET: u8 = 0xA0;
    const GETNEXT: u8 = 0xA1;
    const GETBULK: u8 = 0xA5;
    const SERIAL: &[u64] = &[1, 3, 6, 1, 4, 1, 2011, 6, 128, 1, 1, 2, 43, 1, 3];

    fn responder(onus: usize) -> Responder {
        let vendor = SimVendor::for_vendor(Vendor::Huawei);
        let olt = Arc::new(OltShared::new(SimOlt::generate(
            vendor, 5, 1, onus, 100_000,
        )));
        Responder::new(
            olt,
            Arc::new(MibView::for_vendor(vendor)),
            vendor,
            Instant::now(),
        )
    }

    #[allow(clippy::too_many_arguments)]
    fn request(
        pdu: u8,
        version: i64,
        community: &[u8],
        oids: &[&[u64]],
        a: u32,
        b: u32,
    ) -> Vec<u8> {
        let mut writer = ResponseWriter::default();
        writer.clear();
        for oid in oids {
            assert!(writer.push(Name::Arcs(oid), Value::Null, usize::MAX));
        }
        writer
            .finish_pdu(pdu, version, community, 77, a, b)
            .to_vec()
    }

    fn u32_arcs(oid: &[u32]) -> Vec<u64> {
        oid.iter().map(|&a| u64::from(a)).collect()
    }

    /// (error status, error index, [(oid, debug value)]).
    fn decode(bytes: &[u8]) -> (u32, u32, Vec<(Vec<u64>, String)>) {
        let pdu = Pdu::from_bytes(bytes).expect("a response snmp2 decodes");
        assert_eq!(pdu.req_id, 77);
        assert_eq!(pdu.message_type, MessageType::Response);
        let varbinds = pdu
            .varbinds
            .clone()
            .map(|(oid, value)| {
                let arcs: Vec<u64> = oid.iter().map(Iterator::collect).unwrap_or_default();
                let text = match value {
                    Got::OctetString(bytes) => format!("{bytes:?}"),
                    other => format!("{other:?}"),
                };
                (arcs, text)
            })
            .collect();
        (pdu.error_status, pdu.error_index, varbinds)
    }

    #[test]
    fn getbulk_is_cut_to_fit_a_datagram_and_resumes() {
        let mut agent = responder(1024);
        let bulk = request(GETBULK, 1, b"public", &[SERIAL], 0, 100_000);
        let bytes = agent.answer(&bulk).expect("an answer").to_vec();
        assert!(bytes.len() < 65_000, "{} bytes", bytes.len());
        assert!(
            bytes.len() > 60_000,
            "filled the datagram: {} bytes",
            bytes.len()
        );
        let (status, _, varbinds) = decode(&bytes);
        assert_eq!(status, 0);
        assert!(varbinds.len() > 1000, "{} varbinds", varbinds.len());
        assert!(varbinds.windows(2).all(|w| w[0].0 < w[1].0), "increasing");
        let last = varbinds.last().expect("varbinds").0.clone();
        // The walk goes on from where the datagram ended.
        let more = request(GETBULK, 1, b"public", &[&last], 0, 5);
        let (_, _, next) = decode(agent.answer(&more).expect("an answer"));
        assert_eq!(next.len(), 5);
        assert!(next[0].0 > last);
    }

    #[test]
    fn getbulk_honours_non_repeaters_and_ends_the_view() {
        let mut agent = responder(4);
        let sys_name = u32_arcs(std_oids::SYS_NAME);
        let last_column = [1, 3, 6, 1, 4, 1, 2011, 6, 128, 1, 1, 2, 51, 1, 6];
        let bulk = request(GETBULK, 1, b"public", &[&sys_name, &last_column], 1, 10);
        let (_, _, varbinds) = decode(agent.answer(&bulk).expect("an answer"));
        let mut first_if_descr = u32_arcs(std_oids::IF_DESCR);
        first_if_descr.push(4_194_312_192);
        assert_eq!(varbinds[0].0, first_if_descr, "non-repeater: GETNEXT once");
        // 4 rows of the last column, then the end of the view stops the repetitions.
        assert_eq!(varbinds.len(), 1 + 4 + 1);
        assert_eq!(varbinds[5].1, "END OF MIB VIEW");
    }

    #[test]
    fn v2c_reports_missing_instances_and_objects() {
        let mut agent = responder(4);
        let mut bad_row = SERIAL.to_vec();
        bad_row.extend([4_194_312_192, 99]);
        let get = request(
            GET,
            1,
            b"public",
            &[&u32_arcs(std_oids::SYS_NAME), &bad_row, &[1, 3, 6, 1, 6]],
            0,
            0,
        );
        let (status, _, varbinds) = decode(agent.answer(&get).expect("an answer"));
        assert_eq!(status, 0);
        assert_eq!(varbinds[0].1, "[79, 76, 84, 45, 49]"); // "OLT-1"
        assert_eq!(varbinds[1].1, "NO SUCH INSTANCE");
        assert_eq!(varbinds[2].1, "NO SUCH OBJECT");
        let next = request(GETNEXT, 1, b"public", &[&[1, 3, 6, 1, 5]], 0, 0);
        let (_, _, varbinds) = decode(agent.answer(&next).expect("an answer"));
        assert_eq!(
            varbinds[0],
            (vec![1, 3, 6, 1, 5], "END OF MIB VIEW".to_string())
        );
    }

    #[test]
    fn v1_answers_no_such_name_and_refuses_getbulk() {
        let mut agent = responder(4);
        let next = request(
            GETNEXT,
            0,
            b"public",
            &[&u32_arcs(std_oids::SYS_NAME), &[1, 3, 6, 1, 5]],
            0,
            0,
        );
        let (status, index, varbinds) = decode(agent.answer(&next).expect("an answer"));
        assert_eq!((status, index), (NO_SUCH_NAME, 2));
        assert_eq!(varbinds.len(), 2, "the request's varbinds come back");
        let get = request(GET, 0, b"public", &[&[1, 3, 6, 1, 6]], 0, 0);
        let (status, index, _) = decode(agent.answer(&get).expect("an answer"));
        assert_eq!((status, index), (NO_SUCH_NAME, 1));
        let bulk = request(GETBULK, 0, b"public", &[SERIAL], 0, 10);
        assert!(agent.answer(&bulk).is_none());
    }

    #[test]
    fn wrong_community_and_garbage_get_no_answer() {
        let mut agent = responder(4);
        let get = request(GET, 1, b"private", &[&u32_arcs(std_oids::SYS_NAME)], 0, 0);
        assert!(agent.answer(&get).is_none());
        assert!(agent.answer(&[0x30, 0x82, 0xFF]).is_none());
        assert!(agent.answer(&[]).is_none());
        let get = request(GET, 1, b"public", &[&u32_arcs(std_oids::SYS_NAME)], 0, 0);
        assert!(agent.answer(&get).is_some());
    }

    #[test]
    fn bent_answers_carry_another_id_or_fill_a_datagram() {
        let mut agent = responder(4);
        let get = request(GET, 1, b"public", &[&u32_arcs(std_oids::SYS_NAME)], 0, 0);
        let wrong = Bend {
            wrong_id: true,
            oversized: false,
        };
        let bytes = agent.answer_bent(&get, wrong).expect("an answer").to_vec();
        let pdu = Pdu::from_bytes(&bytes).expect("still well-formed");
        assert_ne!(pdu.req_id, 77);
        assert_eq!(pdu.varbinds.count(), 1);
        let big = Bend {
            wrong_id: false,
            oversized: true,
        };
        let bytes = agent.answer_bent(&get, big).expect("an answer").to_vec();
        assert!(bytes.len() > 60_000, "{} bytes", bytes.len());
        assert!(bytes.len() <= MAX_RESPONSE);
        let (status, _, varbinds) = decode(&bytes);
        assert_eq!(status, 0);
        assert_eq!(
            varbinds[0].1, "[79, 76, 84, 45, 49]",
            "the real answer comes first"
        );
        assert!(varbinds.len() > 60, "{} varbinds", varbinds.len());
    }
}
