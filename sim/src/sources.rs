//! Which process polled an OLT. Pollers on one host all send from the same address, so
//! the simulator tells them apart by the process that owns the request's source socket:
//! `/proc/net/udp` gives the socket's inode for the source port, and the socket appears
//! among one watched process's `/proc/<pid>/fd`. The lookup runs before the request is
//! answered, while the asker still waits on that socket, so every request is attributed.
//! It costs a read of `/proc` per new source socket and runs only once a test has named
//! the processes to watch ([`crate::SimFleet::count_sources`]); Linux only.

use ponkeeper_actors::domain::OltId;
use std::collections::{BTreeMap, HashMap};
use std::net::SocketAddr;
use std::sync::{Mutex, MutexGuard, PoisonError};

impl crate::SimFleet {
    /// From now on, counts each OLT's SNMP requests by the process of `pids` that sent
    /// them (the owner of the source socket, looked up in `/proc`: Linux only); called
    /// again, watches the new list and keeps the counts. For tests of several pollers on
    /// one host, which all send from the same address.
    pub fn count_sources(&self, pids: Vec<u32>) {
        self.sources.watch(pids);
    }

    /// OLT → process id → requests since [`SimFleet::count_sources`] (or the last
    /// [`SimFleet::reset_sources`]); requests from a process not watched count under 0.
    pub fn requests_by_source(&self) -> BTreeMap<OltId, BTreeMap<u32, u64>> {
        self.sources.counts()
    }

    /// Forgets the counts by source.
    pub fn reset_sources(&self) {
        self.sources.reset();
    }
}

/// The processes watched, and what each OLT received from each.
#[derive(Debug, Default)]
pub(crate) struct SourceBook {
    inner: Mutex<Book>,
}

#[derive(Debug, Default)]
struct Book {
    /// `None`: not counting.
    pids: Option<Vec<u32>>,
    /// Source port → (socket inode, owning process) as last resolved.
    ports: HashMap<u16, (u64, Option<u32>)>,
    /// OLT → process → requests.
    counts: BTreeMap<OltId, BTreeMap<u32, u64>>,
}

impl SourceBook {
    fn lock(&self) -> MutexGuard<'_, Book> {
        self.inner.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Counts requests from these processes from now on (again: the list is replaced, the
    /// counts are kept).
    pub fn watch(&self, pids: Vec<u32>) {
        let mut book = self.lock();
        book.pids = Some(pids);
        book.ports.clear();
    }

    /// Counts one request to `olt` from `peer`, when counting.
    pub fn note(&self, olt: OltId, peer: SocketAddr) {
        let mut book = self.lock();
        let Some(pids) = book.pids.clone() else {
            return;
        };
        let port = peer.port();
        let inode = socket_inode(port);
        let known = book.ports.get(&port).copied();
        let pid = match (known, inode) {
            (Some((cached, pid)), Some(inode)) if cached == inode => pid,
            (_, Some(inode)) => {
                let pid = owner_of(inode, &pids);
                book.ports.insert(port, (inode, pid));
                pid
            }
            (_, None) => None,
        };
        // Requests from a process not watched count under 0.
        *book
            .counts
            .entry(olt)
            .or_default()
            .entry(pid.unwrap_or(0))
            .or_default() += 1;
    }

    /// OLT → process → requests since counting began.
    pub fn counts(&self) -> BTreeMap<OltId, BTreeMap<u32, u64>> {
        self.lock().counts.clone()
    }

    /// Forgets the counts (the watched processes stay).
    pub fn reset(&self) {
        self.lock().counts.clear();
    }
}

/// The inode of this host's UDP socket bound to `port`, IPv4 or IPv6.
fn socket_inode(port: u16) -> Option<u64> {
    ["/proc/net/udp", "/proc/net/udp6"]
        .iter()
        .find_map(|table| {
            let text = std::fs::read_to_string(table).ok()?;
            text.lines()
                .skip(1)
                .find_map(|line| inode_if_port(line, port))
        })
}

/// A `/proc/net/udp` line's inode when its local port is `port`.
fn inode_if_port(line: &str, port: u16) -> Option<u64> {
    let fields: Vec<&str> = line.split_whitespace().collect();
    let local = fields.get(1)?;
    let local_port = u16::from_str_radix(local.rsplit(':').next()?, 16).ok()?;
    (local_port == port).then(|| fields.get(9)?.parse().ok())?
}

/// The process of `pids` that holds socket `inode`.
fn owner_of(inode: u64, pids: &[u32]) -> Option<u32> {
    let wanted = format!("socket:[{inode}]");
    pids.iter().copied().find(|pid| {
        std::fs::read_dir(format!("/proc/{pid}/fd"))
            .into_iter()
            .flatten()
            .flatten()
            .any(|fd| {
                std::fs::read_link(fd.path())
                    .is_ok_and(|target| target.as_os_str() == wanted.as_str())
            })
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_proc_line_gives_its_inode_for_its_port() {
        let line = "  12: 0100007F:A1B2 0100007F:00A1 01 00000000:00000000 00:00000000 00000000  1000        0 987654 2 0000000000000000 0";
        assert_eq!(inode_if_port(line, 0xA1B2), Some(987_654));
        assert_eq!(inode_if_port(line, 0xA1B3), None);
    }

    #[test]
    fn this_process_is_found_as_the_owner_of_its_own_socket() {
        let socket = std::net::UdpSocket::bind("127.0.0.1:0").expect("bind");
        let port = socket.local_addr().expect("addr").port();
        let book = SourceBook::default();
        book.note(1, SocketAddr::from(([127, 0, 0, 1], port)));
        assert!(book.counts().is_empty(), "nothing counted before a watch");
        book.watch(vec![std::process::id()]);
        book.note(1, SocketAddr::from(([127, 0, 0, 1], port)));
        book.note(1, SocketAddr::from(([127, 0, 0, 1], port)));
        let counts = book.counts();
        assert_eq!(counts[&1][&std::process::id()], 2);
        book.reset();
        assert!(book.counts().is_empty());
    }
}
