//! Starting one OLT of a fleet: generating its state, binding its UDP (SNMP) and TCP
//! (SSH) ports and spawning its agent and SSH server, with what the OLTs of a starting
//! fleet share ([`Launch`]). [`super::SimFleet::start`] drives it one OLT at a time, or
//! through [`super::socket_groups`] when OLTs share sockets.

use super::agent::{self, OltShared, Responder};
use super::mib::MibView;
use super::model::SimOlt;
use super::vendor::SimVendor;
use super::{omci, ssh, usm, FleetSpec, RunningOlt};
use ponkeeper_actors::domain::OltId;
use rand::SeedableRng;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Instant;
use tokio::net::{TcpListener, UdpSocket};
use tokio::task::JoinSet;

/// What the OLTs of a starting fleet share: the spec, the start time sysUpTime counts
/// from, one MIB view per vendor, the SSH host key and settings.
pub(crate) struct Launch<'a> {
    pub spec: &'a FleetSpec,
    pub started: Instant,
    pub views: Vec<(&'static str, Arc<MibView>)>,
    pub host_key: russh::keys::PrivateKey,
    pub ssh_settings: Arc<ssh::SshSettings>,
    pub usm: Option<usm::UserKeys>,
}

/// A bind failure that names the port and the OLT it was for, keeping the error's kind
/// (`AddrInUse` lets `ponkeeper sim` suggest `--base-port`).
pub(crate) fn bind_error(
    error: std::io::Error,
    what: &str,
    at: SocketAddr,
    olt: OltId,
) -> std::io::Error {
    std::io::Error::new(
        error.kind(),
        format!(
            "cannot bind {what} port {} on {} for OLT {olt}: {error}",
            at.port(),
            at.ip()
        ),
    )
}

impl Launch<'_> {
    /// Generates OLT number `i` (id `i + 1`), binds its UDP and TCP ports and spawns its
    /// SNMP agent and SSH server on `tasks`.
    pub async fn start_olt(
        &self,
        i: usize,
        tasks: &mut JoinSet<()>,
    ) -> std::io::Result<RunningOlt> {
        let spec = self.spec;
        let port = if spec.base_port == 0 {
            0
        } else {
            u16::try_from(i)
                .ok()
                .and_then(|i| spec.base_port.checked_add(i))
                .ok_or_else(|| invalid("base_port + olts exceeds 65535"))?
        };
        let id = OltId::try_from(i + 1).map_err(|_| invalid("too many OLTs"))?;
        let at = SocketAddr::new(spec.bind, port);
        let socket = UdpSocket::bind(at)
            .await
            .map_err(|e| bind_error(e, "UDP (SNMP)", at, id))?;
        let addr = socket.local_addr()?;
        let (id, vendor, shared, responder, rng) = self.olt_parts(i)?;
        tasks.spawn(agent::serve(socket, responder, rng));
        // SSH listens on the same port number as SNMP (TCP and UDP do not collide).
        let listener = TcpListener::bind(at)
            .await
            .map_err(|e| bind_error(e, "TCP (SSH)", at, id))?;
        let ssh_addr = listener.local_addr()?;
        let host_key = Arc::new(ssh::HostKeySlot::new(self.host_key.clone()));
        tasks.spawn(ssh::serve(
            listener,
            host_key.clone(),
            shared.clone(),
            vendor,
            self.ssh_settings.clone(),
        ));
        Ok(RunningOlt {
            id,
            addr,
            ssh_addr: Some(ssh_addr),
            vendor,
            shared,
            host_key,
            community: agent::COMMUNITY.to_vec(),
        })
    }

    /// OLT number `i` (id `i + 1`) generated, with the responder that answers for it and
    /// the random source of its faults (one stream per OLT, following the seed).
    pub fn olt_parts(&self, i: usize) -> std::io::Result<OltParts> {
        let spec = self.spec;
        let vendor = spec.vendors.sim_vendor(i);
        let view = self
            .views
            .iter()
            .find(|(family, _)| *family == vendor.profile.family)
            .map(|(_, view)| view.clone())
            .ok_or_else(|| invalid("no MIB view for the vendor"))?;
        let id = OltId::try_from(i + 1).map_err(|_| invalid("too many OLTs"))?;
        let first_contract = 100_000 + (i as u64) * (spec.onus_per_olt as u64);
        let state = SimOlt::generate(vendor, spec.seed, id, spec.onus_per_olt, first_contract);
        let shared = Arc::new(OltShared::new(state));
        let omci = omci::OmciSettings {
            cost: spec.omci_cost,
            max_optics_per_hour: spec.max_optics_per_hour,
        };
        let mut responder =
            Responder::new(shared.clone(), view, vendor, self.started).with_omci(id, omci);
        if let Some(keys) = &self.usm {
            responder = responder.with_usm(usm::UsmEngine::new(keys, id, self.started));
        }
        let rng = rand_chacha::ChaCha8Rng::seed_from_u64(
            spec.seed ^ u64::from(id).wrapping_mul(0x9E37_79B9_7F4A_7C15),
        );
        Ok((id, vendor, shared, responder, rng))
    }
}

/// What [`Launch::olt_parts`] makes of one OLT.
type OltParts = (
    OltId,
    &'static SimVendor,
    Arc<OltShared>,
    Responder,
    rand_chacha::ChaCha8Rng,
);

pub(crate) fn invalid(message: &str) -> std::io::Error {
    std::io::Error::new(std::io::ErrorKind::InvalidInput, message.to_string())
}
