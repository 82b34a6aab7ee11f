//! Many simulated OLTs behind one UDP socket, told apart by community: what lets
//! `ponkeeper sim --olts 10000` run within a process's file-descriptor limit. One task
//! owns the socket, reads each request's community and answers it with that OLT's
//! [`Responder`], under that OLT's faults; a request to no OLT's community is dropped,
//! as a real agent drops it. [`super::super::SimFleet`] spawns one per socket when the
//! fleet spec asks for more than one OLT per socket.
//!
//! The faults act as on a socket of one's own, except `gone`: the socket stays open for
//! the other OLTs, so a gone OLT simply answers nothing until the fault is cleared. An
//! answer waiting for its OLT's OMCI channel leaves from a task of its own, as a `slow`
//! one does, so the other OLTs on the socket are not held up.

use super::{faulty_response, send_after, Responder};
use crate::fault::Fault;
use rand::Rng;
use snmp2::Pdu;
use std::collections::HashMap;
use std::sync::Arc;
use tokio::net::UdpSocket;
use tokio::task::JoinSet;

/// Serves every OLT of `olts` (community, responder, random source for its faults) on
/// `socket` until the task is aborted.
pub(crate) async fn serve_shared<R: Rng>(socket: UdpSocket, olts: Vec<(Vec<u8>, Responder, R)>) {
    let socket = Arc::new(socket);
    let mut by_community: HashMap<Vec<u8>, (Responder, R)> = olts
        .into_iter()
        .map(|(community, responder, rng)| (community, (responder, rng)))
        .collect();
    // Answers of `slow` OLTs, or waiting for an OLT's OMCI channel, on their way out.
    let mut delayed = JoinSet::new();
    let mut request = vec![0u8; 16 * 1024];
    loop {
        while delayed.try_join_next().is_some() {}
        let (len, peer) = match socket.recv_from(&mut request).await {
            Ok(received) => received,
            Err(error) => {
                tracing::trace!(%error, "simulated shared agent receive failed");
                continue;
            }
        };
        let datagram = &request[..len];
        let Some((responder, rng)) = Pdu::from_bytes(datagram)
            .ok()
            .and_then(|pdu| by_community.get_mut(pdu.community))
        else {
            continue;
        };
        let olt = responder.olt.clone();
        olt.note_request(peer);
        let set = *olt.faults.borrow();
        let response = if set.is_empty() {
            responder.answer(datagram).map(<[u8]>::to_vec)
        } else if set.has(Fault::Gone) {
            None
        } else {
            faulty_response(responder, set, datagram, rng)
        };
        let Some(response) = response else {
            continue;
        };
        let delay = responder.take_omci_wait();
        let delay = delay.saturating_add(set.delay().unwrap_or_default());
        send_after(&mut delayed, &socket, &olt, response, peer, delay).await;
    }
}
