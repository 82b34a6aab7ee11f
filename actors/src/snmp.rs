//! SNMP client side: one [`SnmpClient`] per OLT, owned by that OLT's poll task. snmp2 has
//! no timeout and no retries, so every request here runs under `tokio::time::timeout`, is
//! retried, and a fresh UDP session replaces the old one after a timeout or a mismatched
//! reply (a late answer would otherwise surface on the next request). Walks use GETBULK
//! over several table columns per request, the way `snmptable` does, and stop at the end
//! of each column's subtree, at `endOfMibView`, or at an OID that does not increase.

use crate::domain::CompactString;
use crate::inventory::{SnmpSpec, SnmpVersion, UsmCredentials};
use smallvec::SmallVec;
use snmp2::{AsyncSession, Oid, Value};
use std::cmp::Ordering;
use std::net::SocketAddr;
use std::time::Duration;

mod load;
mod usm;

pub use load::{DeviceLoad, LoadFigures};

/// Why a device exchange failed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum DeviceError {
    #[error("no answer within {timeout:?} ({attempts} attempts)")]
    Timeout { timeout: Duration, attempts: u32 },
    #[error("poll exceeded its deadline of {0:?}")]
    Deadline(Duration),
    #[error("cannot reach {addr}: {message}")]
    Unreachable { addr: SocketAddr, message: String },
    #[error("agent answered with error status {status} at varbind {index}")]
    AgentError { status: u32, index: u32 },
    #[error("unusable answer: {0}")]
    Protocol(String),
    /// SNMPv3: the agent refused the user or its keys (a USM report after discovery).
    #[error("authentication failed: wrong password or user")]
    AuthenticationFailed,
    /// `vendor = "auto"`: no rule of the detection table matches what the device says
    /// it is. It answers, so the OLT stays DEGRADED rather than going OFFLINE.
    #[error("vendor not detected: sysObjectID {sys_object_id} and sysDescr {sys_descr:?} match no profile; set `vendor` in the inventory")]
    UnknownVendor {
        sys_object_id: String,
        sys_descr: String,
    },
}

impl DeviceError {
    /// Every [`DeviceError::kind`], for metrics registered before the first failure.
    pub const KINDS: [&'static str; 7] = [
        "timeout",
        "deadline",
        "unreachable",
        "agent_error",
        "protocol",
        "authentication",
        "unknown_vendor",
    ];

    /// The failure's kind as the `kind` label of `ponkeeper_poll_failures_total` says it.
    pub fn kind(&self) -> &'static str {
        match self {
            DeviceError::Timeout { .. } => "timeout",
            DeviceError::Deadline(_) => "deadline",
            DeviceError::Unreachable { .. } => "unreachable",
            DeviceError::AgentError { .. } => "agent_error",
            DeviceError::Protocol(_) => "protocol",
            DeviceError::AuthenticationFailed => "authentication",
            DeviceError::UnknownVendor { .. } => "unknown_vendor",
        }
    }
}

/// A value copied out of a response (snmp2's values borrow the session's buffer).
#[derive(Debug, Clone, PartialEq)]
pub enum SnmpValue {
    Integer(i64),
    OctetString(Vec<u8>),
    ObjectIdentifier(Vec<u32>),
    Unsigned(u64),
    Timeticks(u32),
    Null,
    /// noSuchObject / noSuchInstance.
    Missing,
}

impl SnmpValue {
    pub fn as_i64(&self) -> Option<i64> {
        match *self {
            SnmpValue::Integer(v) => Some(v),
            SnmpValue::Unsigned(v) => i64::try_from(v).ok(),
            SnmpValue::Timeticks(v) => Some(i64::from(v)),
            _ => None,
        }
    }

    pub fn as_bytes(&self) -> Option<&[u8]> {
        match self {
            SnmpValue::OctetString(bytes) => Some(bytes),
            _ => None,
        }
    }

    pub fn as_text(&self) -> Option<String> {
        self.as_compact_text().map(String::from)
    }

    /// [`SnmpValue::as_text`] without an allocation for up to 24 bytes (an ONU's
    /// description, its port name).
    pub fn as_compact_text(&self) -> Option<CompactString> {
        self.as_bytes()
            .map(|b| CompactString::from(String::from_utf8_lossy(b).trim_end_matches('\0')))
    }
}

/// One row of a walked column: the arcs after the column OID, and the value.
pub type ColumnEntry = (RowIndex, SnmpValue);

/// A row's index arcs: inline up to four (every layout but Eltex's slot and serial), so
/// the millions of varbinds a national cycle walks allocate nothing for their index.
pub type RowIndex = SmallVec<[u32; 4]>;

/// Tuning of the client, from `[polling]`.
#[derive(Debug, Clone)]
pub struct ClientSettings {
    pub timeout: Duration,
    pub retries: u32,
    /// GETBULK max-repetitions across all columns of one request.
    pub bulk_varbinds: u32,
}

/// An SNMP v1/v2c/v3 client for one agent.
pub struct SnmpClient {
    addr: SocketAddr,
    community: Vec<u8>,
    version: SnmpVersion,
    /// SNMPv3: the USM credentials, or why they could not be read.
    usm: Result<Option<UsmCredentials>, String>,
    settings: ClientSettings,
    session: Option<AsyncSession>,
    next_request_id: i32,
    /// Varbinds received since the client was made (for throughput figures).
    pub varbinds_received: u64,
    /// The pace requests are sent at and their round trips.
    pub load: DeviceLoad,
}

enum Request<'a> {
    Get(&'a [Oid<'static>]),
    GetNext(&'a Oid<'static>),
    GetBulk(&'a [Oid<'static>], u32),
}

impl SnmpClient {
    pub fn new(
        addr: SocketAddr,
        community: &str,
        version: SnmpVersion,
        settings: ClientSettings,
    ) -> Self {
        SnmpClient {
            addr,
            community: community.as_bytes().to_vec(),
            version,
            usm: Ok(None),
            settings,
            session: None,
            next_request_id: rand::random::<i32>() & 0x3fff_ffff,
            varbinds_received: 0,
            load: DeviceLoad::default(),
        }
    }

    /// Sets the timeout and retries of the next requests (the OLT actor's quick probe
    /// shortens them for one GET, then puts the configured ones back).
    pub fn set_timing(&mut self, timeout: Duration, retries: u32) {
        self.settings.timeout = timeout;
        self.settings.retries = retries;
    }

    /// The client for an OLT's `snmp` table: v1/v2c by community, v3 by its USM user
    /// with the passwords read from the environment now.
    pub fn for_olt(
        addr: SocketAddr,
        olt: crate::domain::OltId,
        spec: &SnmpSpec,
        settings: ClientSettings,
    ) -> Self {
        let mut client = SnmpClient::new(addr, &spec.community, spec.version, settings);
        client.usm = spec.usm(olt);
        client
    }

    /// Drops the UDP session; the next request opens a new one.
    pub fn reset(&mut self) {
        self.session = None;
    }

    /// Drops a v1/v2c session between polls. snmp2 gives every session a socket and two
    /// 64 KB buffers (send and receive), which 10,000 idle OLTs would hold for nothing:
    /// about 1.3 GB and 10,000 descriptors. A v2c session costs one socket to reopen; a
    /// v3 session is kept, because reopening it means discovering the engine again.
    pub fn release_idle(&mut self) {
        if self.version != SnmpVersion::V3 {
            self.session = None;
        }
    }

    async fn session(&mut self) -> Result<&mut AsyncSession, DeviceError> {
        if self.session.is_none() {
            let session = match self.version {
                SnmpVersion::V1 => {
                    AsyncSession::new_v1(self.addr, &self.community, self.next_request_id).await
                }
                SnmpVersion::V2c => {
                    AsyncSession::new_v2c(self.addr, &self.community, self.next_request_id).await
                }
                SnmpVersion::V3 => {
                    let session = match &self.usm {
                        Ok(Some(credentials)) => {
                            usm::open(
                                self.addr,
                                credentials,
                                self.next_request_id,
                                self.settings.timeout,
                            )
                            .await?
                        }
                        Ok(None) => {
                            return Err(DeviceError::Protocol(
                                "SNMPv3 without USM credentials".into(),
                            ))
                        }
                        Err(e) => return Err(DeviceError::Protocol(e.clone())),
                    };
                    Ok(session)
                }
            }
            .map_err(|e| DeviceError::Unreachable {
                addr: self.addr,
                message: e.to_string(),
            })?;
            self.session = Some(session);
        }
        self.session
            .as_mut()
            .ok_or_else(|| DeviceError::Protocol("no session".into()))
    }

    /// Sends one request with timeout and retries; hands each varbind of the answer
    /// (its arcs, its value) to `visit` and returns how many there were. Varbinds are
    /// read in place from the session's buffer: only what `visit` keeps is copied.
    async fn exchange(
        &mut self,
        request: Request<'_>,
        visit: &mut (dyn FnMut(&[u32], &Value<'_>) + Send),
    ) -> Result<u64, DeviceError> {
        let attempts = self.settings.retries + 1;
        let timeout = self.settings.timeout;
        let mut last_error = None;
        let mut arcs = Vec::with_capacity(24);
        // SNMPv3 re-synchronisations and re-discoveries, which do not use up an attempt.
        let mut usm_grace = 2u32;
        let mut discovered_here = false;
        let mut attempt = 0;
        while attempt < attempts {
            attempt += 1;
            self.next_request_id = self.next_request_id.wrapping_add(1);
            discovered_here |= self.session.is_none();
            self.load.pace().await;
            let session = match self.session().await {
                Ok(session) => session,
                // SNMPv3 engine discovery went unanswered: the next attempt tries again.
                Err(DeviceError::Timeout { .. }) => {
                    metrics::counter!("ponkeeper_snmp_timeouts_total").increment(1);
                    last_error = Some(DeviceError::Timeout { timeout, attempts });
                    continue;
                }
                Err(e) => return Err(e),
            };
            let sent = std::time::Instant::now();
            let answer =
                tokio::time::timeout(timeout, ask(session, &request, &mut arcs, visit)).await;
            match &answer {
                Err(_) => self.load.timed_out(),
                Ok(_) => self.load.answered(sent.elapsed()),
            }
            match answer {
                Ok(Ok(Ok(count))) => {
                    self.varbinds_received += count;
                    return Ok(count);
                }
                Ok(Ok(Err(agent_error))) => return Err(agent_error),
                Ok(Err(snmp_error)) => {
                    if self.version == SnmpVersion::V3 {
                        match usm::recovery(&snmp_error) {
                            usm::Recovery::Refused if discovered_here || usm_grace == 0 => {
                                return Err(usm::refused())
                            }
                            usm::Recovery::Resend if usm_grace > 0 => {
                                usm_grace -= 1;
                                attempt -= 1;
                                continue;
                            }
                            usm::Recovery::Refused | usm::Recovery::Rediscover if usm_grace > 0 => {
                                usm_grace -= 1;
                                attempt -= 1;
                                self.session = None;
                                continue;
                            }
                            _ => {}
                        }
                    }
                    // A garbled or stale answer: start over on a new socket.
                    self.session = None;
                    last_error = Some(exchange_error(self.addr, snmp_error));
                }
                Err(_elapsed) => {
                    metrics::counter!("ponkeeper_snmp_timeouts_total").increment(1);
                    self.session = None;
                    last_error = Some(DeviceError::Timeout { timeout, attempts });
                }
            }
        }
        Err(last_error.unwrap_or(DeviceError::Timeout { timeout, attempts }))
    }

    /// [`Self::exchange`], the varbinds copied out.
    async fn exchange_owned(
        &mut self,
        request: Request<'_>,
    ) -> Result<Vec<(Vec<u32>, SnmpValue)>, DeviceError> {
        let mut varbinds = Vec::new();
        self.exchange(request, &mut |oid, value| {
            varbinds.push((oid.to_vec(), copy_value(value)))
        })
        .await?;
        Ok(varbinds)
    }

    /// GET of several scalars; missing ones come back as [`SnmpValue::Missing`].
    pub async fn get(&mut self, oids: &[&[u32]]) -> Result<Vec<SnmpValue>, DeviceError> {
        let wanted: Vec<Oid<'static>> = oids.iter().map(|o| to_oid(o)).collect::<Result<_, _>>()?;
        let answer = match self.exchange_owned(Request::Get(&wanted)).await {
            // SNMPv1 agents answer a GET of an absent object with noSuchName for the whole
            // request: fall back to asking one at a time.
            Err(DeviceError::AgentError { status: 2, .. }) if oids.len() > 1 => {
                let mut values = Vec::with_capacity(oids.len());
                for oid in &wanted {
                    let single = std::slice::from_ref(oid);
                    match self.exchange_owned(Request::Get(single)).await {
                        Ok(mut vb) if vb.len() == 1 => values.push(vb.remove(0).1),
                        Ok(_) | Err(DeviceError::AgentError { status: 2, .. }) => {
                            values.push(SnmpValue::Missing)
                        }
                        Err(e) => return Err(e),
                    }
                }
                return Ok(values);
            }
            other => other?,
        };
        if answer.len() != oids.len() {
            return Err(DeviceError::Protocol(format!(
                "GET of {} objects answered with {} varbinds",
                oids.len(),
                answer.len()
            )));
        }
        Ok(answer.into_iter().map(|(_, value)| value).collect())
    }

    /// Walks several table columns at once; returns each column's rows in order.
    pub async fn walk_columns(
        &mut self,
        columns: &[&[u32]],
    ) -> Result<Vec<Vec<ColumnEntry>>, DeviceError> {
        let mut walk = ColumnWalk::new(columns);
        while !walk.active.is_empty() {
            let request = walk.next_request()?;
            self.walk_step(&request, &mut |oid, value| walk.offer(oid, value))
                .await?;
            walk.retire_finished();
        }
        Ok(walk.rows)
    }

    /// One request of a walk, continuing every column `request` names: a GETNEXT each
    /// (v1) or one GETBULK (v2c). Each varbind of the answers goes to `offer` in order;
    /// returns how many there were.
    async fn walk_step(
        &mut self,
        request: &[Oid<'static>],
        offer: &mut (dyn FnMut(&[u32], SnmpValue) + Send),
    ) -> Result<u64, DeviceError> {
        let width = request.len();
        let repetitions = (self.settings.bulk_varbinds / width as u32).max(1);
        let answered = match self.version {
            SnmpVersion::V1 => {
                for oid in request {
                    match self.exchange_owned(Request::GetNext(oid)).await {
                        Ok(vb) if !vb.is_empty() => {
                            let (oid, value) = &vb[0];
                            offer(oid, value.clone());
                        }
                        // noSuchName: past the end of the MIB.
                        Ok(_) | Err(DeviceError::AgentError { status: 2, .. }) => {
                            offer(&[], SnmpValue::Missing)
                        }
                        Err(e) => return Err(e),
                    }
                }
                request.len() as u64
            }
            SnmpVersion::V2c | SnmpVersion::V3 => {
                self.exchange(Request::GetBulk(request, repetitions), &mut |oid, value| {
                    offer(oid, copy_value(value))
                })
                .await?
            }
        };
        if answered == 0 {
            return Err(DeviceError::Protocol(
                "GETBULK answered with no varbinds".into(),
            ));
        }
        if self.version != SnmpVersion::V1 {
            // More varbinds than asked for is not an answer to this request (the rows
            // taken from it are dropped with the error).
            let asked = width as u64 * u64::from(repetitions);
            if answered > asked {
                return Err(DeviceError::Protocol(format!(
                    "GETBULK for {asked} varbinds answered with {answered}"
                )));
            }
        }
        Ok(answered)
    }
}

/// A walk of several columns at once: each column's rows so far, the OID it has reached,
/// the columns still being walked, and, for the request under way, which of them ended.
struct ColumnWalk<'c> {
    columns: &'c [&'c [u32]],
    rows: Vec<Vec<ColumnEntry>>,
    cursors: Vec<Vec<u32>>,
    /// Columns (indexes into `columns`) still being walked, in request order.
    active: Vec<usize>,
    /// Parallel to `active`: the column ended in this request's answer.
    finished: Vec<bool>,
    /// Varbinds of this request's answer taken so far.
    position: usize,
}

impl<'c> ColumnWalk<'c> {
    fn new(columns: &'c [&'c [u32]]) -> Self {
        ColumnWalk {
            columns,
            rows: vec![Vec::new(); columns.len()],
            cursors: columns.iter().map(|c| c.to_vec()).collect(),
            active: (0..columns.len()).collect(),
            finished: Vec::new(),
            position: 0,
        }
    }

    /// The OIDs the next request continues from, one per active column.
    fn next_request(&mut self) -> Result<Vec<Oid<'static>>, DeviceError> {
        self.finished = vec![false; self.active.len()];
        self.position = 0;
        self.active
            .iter()
            .map(|&c| to_oid(&self.cursors[c]))
            .collect()
    }

    /// Takes the next varbind of the answer. Varbind i continues the walk of column
    /// `active[i % width]`, which ends at an OID outside its subtree, one that does not
    /// advance, or a missing value.
    fn offer(&mut self, oid: &[u32], value: SnmpValue) {
        let slot = self.position % self.active.len();
        self.position += 1;
        if self.finished[slot] {
            return;
        }
        let column = self.active[slot];
        let prefix = self.columns[column];
        let in_subtree = oid.len() > prefix.len() && oid.starts_with(prefix);
        let advances = compare_arcs(oid, &self.cursors[column]) == Ordering::Greater;
        if !in_subtree || !advances || value == SnmpValue::Missing {
            self.finished[slot] = true;
            return;
        }
        self.rows[column].push((RowIndex::from_slice(&oid[prefix.len()..]), value));
        self.cursors[column].clear();
        self.cursors[column].extend_from_slice(oid);
    }

    /// Drops the columns that ended in the last answer.
    fn retire_finished(&mut self) {
        self.active = self
            .active
            .iter()
            .zip(&self.finished)
            .filter(|(_, done)| !**done)
            .map(|(&c, _)| c)
            .collect();
    }
}

/// One varbind of an answer: the OID's arcs and the value.
pub type Varbind = (Vec<u32>, SnmpValue);

/// What a response datagram carries, decoded the way the client decodes an answer
/// (snmp2's parser, then the same in-place arc decoding and value copy): the request id and
/// the varbinds, or the agent's error. The fuzz target and the property tests drive the
/// decoding path through this.
pub fn decode_response(bytes: &[u8]) -> Result<(i32, Vec<Varbind>), DeviceError> {
    let pdu = snmp2::Pdu::from_bytes(bytes)
        .map_err(|e| DeviceError::Protocol(format!("undecodable answer: {e:?}")))?;
    if pdu.error_status != 0 {
        return Err(DeviceError::AgentError {
            status: pdu.error_status,
            index: pdu.error_index,
        });
    }
    let mut arcs = Vec::new();
    let varbinds = pdu
        .varbinds
        .map(|(oid, value)| {
            decode_arcs(oid.as_bytes(), &mut arcs);
            (arcs.clone(), copy_value(&value))
        })
        .collect();
    Ok((pdu.req_id, varbinds))
}

/// Arc-by-arc comparison, arcs as unsigned numbers.
pub fn compare_arcs(a: &[u32], b: &[u32]) -> Ordering {
    a.cmp(b)
}

fn to_oid(arcs: &[u32]) -> Result<Oid<'static>, DeviceError> {
    let wide: Vec<u64> = arcs.iter().map(|&a| u64::from(a)).collect();
    Oid::from(&wide).map_err(|e| DeviceError::Protocol(format!("bad OID {arcs:?}: {e:?}")))
}

/// The arcs of a BER-encoded OID (content octets) into `out`, without allocating once
/// `out` has grown; arcs that do not fit 32 bits, or a truncated encoding, leave it empty
/// (unusable), as [`arcs`] does.
fn decode_arcs(bytes: &[u8], out: &mut Vec<u32>) {
    out.clear();
    let mut value: u64 = 0;
    let mut first = true;
    for &byte in bytes {
        value = (value << 7) | u64::from(byte & 0x7f);
        if value > u64::from(u32::MAX) + 80 {
            out.clear();
            return;
        }
        if byte & 0x80 != 0 {
            continue;
        }
        if first {
            // The first sub-identifier carries two arcs: 40 * X + Y.
            let (x, y) = match value {
                0..40 => (0, value),
                40..80 => (1, value - 40),
                _ => (2, value - 80),
            };
            out.push(x as u32);
            match u32::try_from(y) {
                Ok(y) => out.push(y),
                Err(_) => {
                    out.clear();
                    return;
                }
            }
            first = false;
        } else {
            match u32::try_from(value) {
                Ok(arc) => out.push(arc),
                Err(_) => {
                    out.clear();
                    return;
                }
            }
        }
        value = 0;
    }
    if bytes.last().is_some_and(|b| b & 0x80 != 0) {
        out.clear();
    }
}

/// The arcs of an OID; arcs that do not fit 32 bits make it unusable (empty).
fn arcs(oid: &Oid<'_>) -> Vec<u32> {
    match oid.iter() {
        Some(iter) => {
            let mut out = Vec::with_capacity(iter.len());
            for arc in iter {
                match u32::try_from(arc) {
                    Ok(a) => out.push(a),
                    Err(_) => return Vec::new(),
                }
            }
            out
        }
        None => Vec::new(),
    }
}

/// What went wrong in words an operator can act on: snmp2's errors name a parse step.
fn exchange_error(addr: SocketAddr, error: snmp2::Error) -> DeviceError {
    use snmp2::Error as E;
    match error {
        // The socket is connected, so an ICMP error from the agent's host fails it.
        E::Send | E::Receive => DeviceError::Unreachable {
            addr,
            message: "nothing listens there (ICMP port unreachable)".into(),
        },
        E::RequestIdMismatch => {
            DeviceError::Protocol("answer ignored: it carried another request's id".into())
        }
        E::CommunityMismatch => {
            DeviceError::Protocol("answer ignored: it carried another community".into())
        }
        E::AsnParse
        | E::AsnInvalidLen
        | E::AsnWrongType
        | E::AsnUnsupportedType
        | E::AsnEof
        | E::AsnIntOverflow
        | E::UnsupportedVersion
        | E::ValueOutOfRange
        | E::BufferOverflow => DeviceError::Protocol(format!(
            "undecodable answer, not a valid SNMP message ({error})"
        )),
        other => DeviceError::Protocol(other.to_string()),
    }
}

fn copy_value(value: &Value<'_>) -> SnmpValue {
    match value {
        Value::Integer(v) => SnmpValue::Integer(*v),
        Value::OctetString(bytes) | Value::Opaque(bytes) => SnmpValue::OctetString(bytes.to_vec()),
        Value::ObjectIdentifier(oid) => SnmpValue::ObjectIdentifier(arcs(oid)),
        Value::Counter32(v) | Value::Unsigned32(v) => SnmpValue::Unsigned(u64::from(*v)),
        Value::Counter64(v) => SnmpValue::Unsigned(*v),
        Value::Timeticks(v) => SnmpValue::Timeticks(*v),
        Value::IpAddress(ip) => SnmpValue::OctetString(ip.to_vec()),
        Value::Boolean(b) => SnmpValue::Integer(i64::from(*b)),
        Value::Null => SnmpValue::Null,
        _ => SnmpValue::Missing,
    }
}

/// One request on `session` and its answer's varbinds to `visit` (with their OIDs decoded
/// into `arcs`): the count, or the agent's error status; the outer error is snmp2's.
async fn ask(
    session: &mut AsyncSession,
    request: &Request<'_>,
    arcs: &mut Vec<u32>,
    visit: &mut (dyn FnMut(&[u32], &Value<'_>) + Send),
) -> Result<Result<u64, DeviceError>, snmp2::Error> {
    let pdu = match request {
        Request::Get(oids) => {
            let refs: Vec<&Oid> = oids.iter().collect();
            session.get_many(&refs).await
        }
        Request::GetNext(oid) => session.getnext(oid).await,
        Request::GetBulk(oids, repetitions) => {
            let refs: Vec<&Oid> = oids.iter().collect();
            session.getbulk(&refs, 0, *repetitions).await
        }
    }?;
    if pdu.error_status != 0 {
        return Ok(Err(DeviceError::AgentError {
            status: pdu.error_status,
            index: pdu.error_index,
        }));
    }
    let mut count = 0u64;
    for (oid, value) in pdu.varbinds {
        decode_arcs(oid.as_bytes(), arcs);
        visit(arcs, &value);
        count += 1;
    }
    Ok(Ok(count))
}

#[cfg(test)]
mod tests;
