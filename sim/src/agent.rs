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
//! same address again once the fault is cleared. An answer that carries optics also
//! waits, from such a task, for its OLT's OMCI channel ([`super::omci`]), after which a
//! `slow` delay still applies; the answers count their ONU reads ([`super::stats`]).
//!
//! A large fleet may put many OLTs on one socket ([`shared`]): each answers only its own
//! community, and the socket's task hands every request to the OLT it names.

use super::ber::{Name, ResponseWriter, Value};
use super::fault::{self, Fault, FaultSet};
use super::mib::{AnswerContext, MibView};
use super::model::SimOlt;
use super::omci::{Omci, OmciSettings};
use super::stats::RequestCounter;
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

mod answer;
mod shared;
use answer::{pad_with_filler, Answer, ErrorAt, Requested};
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
    /// Requests received, resettable, with the busiest second ([`super::stats`]).
    pub requests: RequestCounter,
    /// This OLT's id and the fleet's book of request sources ([`super::sources`]).
    pub sources: std::sync::OnceLock<(
        ponkeeper_actors::domain::OltId,
        Arc<super::sources::SourceBook>,
    )>,
}

impl OltShared {
    pub fn new(state: SimOlt) -> OltShared {
        OltShared {
            state: Mutex::new(state),
            faults: watch::Sender::new(FaultSet::new()),
            commands: Mutex::new(Vec::new()),
            received: AtomicU64::new(0),
            sent: AtomicU64::new(0),
            requests: RequestCounter::default(),
            sources: std::sync::OnceLock::new(),
        }
    }

    /// Counts one datagram received for this OLT from `peer`.
    pub(crate) fn note_request(&self, peer: SocketAddr) {
        self.received.fetch_add(1, Ordering::Relaxed);
        self.requests.note();
        if let Some((id, book)) = self.sources.get() {
            book.note(*id, peer);
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
    /// The OLT's OMCI channel: what its answers' optics cost, and the reads they count.
    omci: Omci,
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
            omci: Omci::new(
                0,
                OmciSettings {
                    cost: Duration::ZERO,
                    max_optics_per_hour: None,
                },
            ),
        }
    }

    /// Charges OLT `olt`'s optics by `settings` (free unless told).
    pub fn with_omci(
        mut self,
        olt: ponkeeper_actors::domain::OltId,
        settings: OmciSettings,
    ) -> Self {
        self.omci = Omci::new(olt, settings);
        self
    }

    /// How long the last answer must still wait for the OLT's OMCI channel before it
    /// may leave (zero unless it carries optics, and zero once taken).
    pub fn take_omci_wait(&mut self) -> Duration {
        self.omci.take_wait(Instant::now())
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
        let mut olt = match self.olt.state.lock() {
            Ok(guard) => guard,
            Err(poisoned) => poisoned.into_inner(),
        };
        self.writer.clear();
        self.omci.begin();
        let mut answer = Answer {
            view: &self.view,
            olt: &olt,
            ctx,
            writer: &mut self.writer,
            limit,
            reads: &mut self.omci.reads,
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
        if error.is_some() {
            // An error answer carries no values: it read nothing.
            self.omci.reads.clear();
        }
        self.omci.settle(&mut olt, Instant::now());
        Some(error)
    }
}

/// Serves `responder` on `socket` until the task is aborted, with its OLT's faults;
/// `rng` decides what `drop` drops and what `garbage` sends.
pub(crate) async fn serve(socket: UdpSocket, mut responder: Responder, mut rng: impl Rng) {
    let olt = responder.olt.clone();
    let mut faults = olt.faults.subscribe();
    let mut socket = Some(Arc::new(socket));
    let addr = socket.as_ref().and_then(|s| s.local_addr().ok());
    // Answers of a `slow` OLT, or waiting for its OMCI channel, on their way out.
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
        olt.note_request(peer);
        let set = *faults.borrow();
        let response = if set.is_empty() {
            responder.answer(&request[..len]).map(<[u8]>::to_vec)
        } else {
            faulty_response(&mut responder, set, &request[..len], &mut rng)
        };
        let Some(response) = response else {
            continue;
        };
        let delay = responder.take_omci_wait();
        let delay = delay.saturating_add(set.delay().unwrap_or_default());
        send_after(&mut delayed, &current, &olt, response, peer, delay).await;
    }
}

/// Sends `response` to `peer` now, or after `delay` from a task on `delayed`, so the
/// next request is not held up: answers of a `slow` OLT, and answers waiting for the
/// OLT's OMCI channel ([`super::omci`]).
async fn send_after(
    delayed: &mut JoinSet<()>,
    socket: &Arc<UdpSocket>,
    olt: &Arc<OltShared>,
    response: Vec<u8>,
    peer: SocketAddr,
    delay: Duration,
) {
    if delay.is_zero() {
        send(socket, olt, &response, peer).await;
        return;
    }
    let (socket, olt) = (socket.clone(), olt.clone());
    delayed.spawn(async move {
        tokio::time::sleep(delay).await;
        send(&socket, &olt, &response, peer).await;
    });
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
        // hwGponOntStatisticDownBytes: the view's last column.
        let last_column = [1, 3, 6, 1, 4, 1, 2011, 6, 128, 1, 1, 4, 23, 1, 4];
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
