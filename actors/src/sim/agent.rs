//! The SNMP agent of one simulated OLT: a task that owns a real UDP socket and answers
//! GET, GETNEXT and GETBULK (v1 and v2c, community `public`) from the OLT's MIB view
//! ([`super::mib`]). Pollers talk to it over the network exactly as to a device;
//! [`super::SimFleet`] spawns one per OLT and can make it silent (every packet dropped, as
//! a hung OLT). Packets it cannot decode, with a wrong community, of SNMPv3 or of a kind
//! an agent never receives are dropped without an answer, as real agents do.

use super::ber::{Name, ResponseWriter, Value};
use super::mib::{AnswerContext, Lookup, MibView};
use super::model::SimOlt;
use super::vendor::SimVendor;
use snmp2::{MessageType, Pdu, Version};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Instant;
use tokio::net::UdpSocket;

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
    pub silent: AtomicBool,
    /// The SSH server reads commands but never answers (a hung CLI).
    pub cli_silent: AtomicBool,
    /// Every line the SSH server received after login, in order.
    pub commands: Mutex<Vec<String>>,
}

impl OltShared {
    pub fn new(state: SimOlt) -> OltShared {
        OltShared {
            state: Mutex::new(state),
            silent: AtomicBool::new(false),
            cli_silent: AtomicBool::new(false),
            commands: Mutex::new(Vec::new()),
        }
    }
}

/// Everything needed to answer one OLT's requests, minus the socket.
pub(crate) struct Responder {
    olt: Arc<OltShared>,
    view: Arc<MibView>,
    vendor: &'static SimVendor,
    /// When the fleet started: sysUpTime counts from here.
    started: Instant,
    writer: ResponseWriter,
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
        }
    }

    /// The response to one request datagram, or `None` when it gets no answer.
    pub fn answer(&mut self, request: &[u8]) -> Option<&[u8]> {
        if self.olt.silent.load(Ordering::Relaxed) {
            return None;
        }
        let pdu = Pdu::from_bytes(request).ok()?;
        if pdu.community != COMMUNITY {
            return None;
        }
        let version = pdu.version().ok()?;
        let v1 = match version {
            Version::V1 => true,
            Version::V2C => false,
            _ => return None,
        };
        let ctx = AnswerContext {
            vendor: self.vendor,
            uptime: (self.started.elapsed().as_millis() / 10) as u32,
        };
        // A poisoned lock only means a ticker panicked mid-step; the state is still readable.
        let olt = match self.olt.state.lock() {
            Ok(guard) => guard,
            Err(poisoned) => poisoned.into_inner(),
        };
        let view = &self.view;
        let writer = &mut self.writer;
        writer.clear();
        let limit = MAX_RESPONSE.saturating_sub(HEADER_ROOM + pdu.community.len());

        // Arcs to search with (an OID with an arc beyond u64 searches as the empty OID),
        // and the OID as received, to echo back.
        let requested: Vec<(Vec<u64>, snmp2::Oid<'_>)> = pdu
            .varbinds
            .clone()
            .map(|(oid, _)| (oid.iter().map(Iterator::collect).unwrap_or_default(), oid))
            .collect();
        let mut error: Option<(u32, usize)> = None;

        match pdu.message_type {
            MessageType::GetRequest => {
                for (i, (oid, raw)) in requested.iter().enumerate() {
                    let value = match view.get(&olt, ctx, oid) {
                        Lookup::Found(value) => value,
                        Lookup::NoSuchObject => Value::NoSuchObject,
                        Lookup::NoSuchInstance => Value::NoSuchInstance,
                    };
                    if v1 && matches!(value, Value::NoSuchObject | Value::NoSuchInstance) {
                        error = Some((NO_SUCH_NAME, i + 1));
                        break;
                    }
                    if !writer.push(Name::Encoded(raw.as_bytes()), value, limit) {
                        error = Some((TOO_BIG, 0));
                        break;
                    }
                }
            }
            MessageType::GetNextRequest => {
                for (i, (oid, raw)) in requested.iter().enumerate() {
                    let pushed = match view.next(&olt, ctx, oid) {
                        Some((name, value)) => writer.push(Name::Arcs(name.arcs()), value, limit),
                        None if v1 => {
                            error = Some((NO_SUCH_NAME, i + 1));
                            break;
                        }
                        None => {
                            writer.push(Name::Encoded(raw.as_bytes()), Value::EndOfMibView, limit)
                        }
                    };
                    if !pushed {
                        error = Some((TOO_BIG, 0));
                        break;
                    }
                }
            }
            MessageType::GetBulkRequest if !v1 => {
                let non_repeaters = (pdu.error_status as usize).min(requested.len());
                let max_repetitions = pdu.error_index as usize;
                let (singles, repeaters) = requested.split_at(non_repeaters);
                for (oid, raw) in singles {
                    let pushed = match view.next(&olt, ctx, oid) {
                        Some((name, value)) => writer.push(Name::Arcs(name.arcs()), value, limit),
                        None => {
                            writer.push(Name::Encoded(raw.as_bytes()), Value::EndOfMibView, limit)
                        }
                    };
                    if !pushed {
                        break;
                    }
                }
                let mut cursors: Vec<Vec<u64>> =
                    repeaters.iter().map(|(oid, _)| oid.clone()).collect();
                let mut ended = vec![false; cursors.len()];
                'rows: for _ in 0..max_repetitions {
                    if cursors.is_empty() || ended.iter().all(|&e| e) {
                        break;
                    }
                    for (cursor, ended) in cursors.iter_mut().zip(ended.iter_mut()) {
                        let found = if *ended {
                            None
                        } else {
                            view.next(&olt, ctx, cursor)
                        };
                        let pushed = match found {
                            Some((name, value)) => {
                                let pushed = writer.push(Name::Arcs(name.arcs()), value, limit);
                                cursor.clear();
                                cursor.extend_from_slice(name.arcs());
                                pushed
                            }
                            None => {
                                *ended = true;
                                writer.push(Name::Arcs(cursor), Value::EndOfMibView, limit)
                            }
                        };
                        if !pushed {
                            break 'rows;
                        }
                    }
                }
            }
            MessageType::SetRequest => {
                error = Some((if v1 { READ_ONLY } else { NOT_WRITABLE }, 1));
            }
            _ => return None,
        }
        drop(olt);

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
        Some(writer.finish(version as i64, pdu.community, pdu.req_id, status, index))
    }
}

/// Serves `responder` on `socket` until the task is aborted.
pub(crate) async fn serve(socket: UdpSocket, mut responder: Responder) {
    // Requests are small; a larger one is cut short, fails to decode and is dropped.
    let mut request = vec![0u8; 16 * 1024];
    loop {
        let (len, peer) = match socket.recv_from(&mut request).await {
            Ok(received) => received,
            // ICMP port-unreachable from an earlier answer and the like: keep serving.
            Err(error) => {
                tracing::trace!(%error, "simulated agent receive failed");
                continue;
            }
        };
        if let Some(response) = responder.answer(&request[..len]) {
            if let Err(error) = socket.send_to(response, peer).await {
                tracing::trace!(%error, %peer, "simulated agent send failed");
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::Vendor;
    use crate::profile::std_oids;
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
    fn wrong_community_garbage_and_silence_get_no_answer() {
        let mut agent = responder(4);
        let get = request(GET, 1, b"private", &[&u32_arcs(std_oids::SYS_NAME)], 0, 0);
        assert!(agent.answer(&get).is_none());
        assert!(agent.answer(&[0x30, 0x82, 0xFF]).is_none());
        assert!(agent.answer(&[]).is_none());
        let get = request(GET, 1, b"public", &[&u32_arcs(std_oids::SYS_NAME)], 0, 0);
        agent.olt.silent.store(true, Ordering::Relaxed);
        assert!(agent.answer(&get).is_none());
        agent.olt.silent.store(false, Ordering::Relaxed);
        assert!(agent.answer(&get).is_some());
    }
}
