//! Starting a fleet whose OLTs share UDP sockets: [`super::FleetSpec::olts_per_socket`]
//! OLTs per socket, each answering its own community `public-<id>`, and no SSH servers.
//! A fleet of 10,000 OLTs then needs 10,000 / N sockets instead of 20,000 descriptors
//! (a UDP and a TCP port each). [`super::SimFleet::start`] calls it; the agents are
//! [`super::agent::serve_shared`] tasks.

use super::launch::{bind_error, invalid, Launch};
use super::{agent, ssh, RunningOlt};
use std::net::SocketAddr;
use std::sync::Arc;
use tokio::net::UdpSocket;
use tokio::task::JoinSet;

/// The community of OLT `id` when it shares its socket.
pub(super) fn shared_community(id: ponkeeper_actors::domain::OltId) -> Vec<u8> {
    format!("public-{id}").into_bytes()
}

impl Launch<'_> {
    /// Binds `ceil(olts / olts_per_socket)` sockets and spawns one shared agent on each.
    pub(super) async fn start_socket_groups(
        &self,
        tasks: &mut JoinSet<()>,
    ) -> std::io::Result<Vec<RunningOlt>> {
        let spec = self.spec;
        if self.usm.is_some() {
            return Err(invalid(
                "SNMPv3 has no community to tell OLTs apart: use one OLT per socket",
            ));
        }
        let per_socket = spec.olts_per_socket.max(1);
        let mut olts = Vec::with_capacity(spec.olts);
        for (group, first) in (0..spec.olts).step_by(per_socket).enumerate() {
            let port = if spec.base_port == 0 {
                0
            } else {
                u16::try_from(group)
                    .ok()
                    .and_then(|g| spec.base_port.checked_add(g))
                    .ok_or_else(|| invalid("base_port + sockets exceeds 65535"))?
            };
            let at = SocketAddr::new(spec.bind, port);
            let first_id = ponkeeper_actors::domain::OltId::try_from(first + 1)
                .map_err(|_| invalid("too many OLTs"))?;
            let socket = UdpSocket::bind(at)
                .await
                .map_err(|e| bind_error(e, "UDP (SNMP)", at, first_id))?;
            let addr = socket.local_addr()?;
            let mut agents = Vec::with_capacity(per_socket);
            for i in first..(first + per_socket).min(spec.olts) {
                let (id, vendor, shared, responder, rng) = self.olt_parts(i)?;
                let community = shared_community(id);
                agents.push((community.clone(), responder.with_community(&community), rng));
                olts.push(RunningOlt {
                    id,
                    addr,
                    ssh_addr: None,
                    vendor,
                    shared,
                    host_key: Arc::new(ssh::HostKeySlot::new(self.host_key.clone())),
                    community,
                });
            }
            tasks.spawn(agent::serve_shared(socket, agents));
        }
        Ok(olts)
    }
}
