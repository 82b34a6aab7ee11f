//! The simulator's control socket: a Unix socket (`ponkeeper sim --control PATH`) over
//! which a test or an operator changes the fleet's faults while it runs, and reads how
//! hard it is being polled. One request per line, one reply line each:
//!
//! ```text
//! set SPEC        adds the SPEC's faults to the OLTs it names   → ok 3 OLTs
//! clear           heals every OLT                               → ok 20 OLTs
//! clear TARGETS   heals the OLTs named (all, N%, 1,3,10-20)     → ok 2 OLTs
//! show            the current faults as a SPEC                  → ok hang@1-2;los:0/1/0:1-12@5
//! stats           every OLT's requests and ONU reads, as JSON   → ok {"olts":[{"id":1,…}]}
//! stats reset     zeroes those counters                         → ok
//! ```
//!
//! A SPEC's rules are faults of an OLT (`hang`, `slow:300ms`, …) or groups of its ONUs
//! going down (`los:PORT:FIRST-LAST`, `dying-gasp:PORT:FIRST-LAST`, [`super::fault`]);
//! `clear` heals both, bringing a group's ONUs back online before it answers. Replies
//! start with `ok` or `error: <reason>`; a bad request changes nothing. It talks
//! to the same [`FaultBoard`] as [`super::SimFleet::set_faults`] and the same counters as
//! [`super::SimFleet::stats`]: `stats` answers `ok` and one line of
//! [`super::FleetStats`] JSON, e.g.
//! `{"olts":[{"id":1,"requests":12,"peakRequestsPerSecond":7,"onuStatusReads":{"min":1,"max":1,"total":32},"onuOpticsReads":{"min":0,"max":0,"total":0}}]}`.

use super::fault::{FaultSpec, Targets};
use super::fault_board::FaultBoard;
use super::stats::StatsBoard;
use std::path::Path;
use std::sync::Arc;
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::net::{UnixListener, UnixStream};

/// What the control socket changes and reads.
pub(crate) struct Controlled {
    pub board: Arc<FaultBoard>,
    pub counters: Arc<StatsBoard>,
}

/// The requests the control socket knows, for error replies.
const REQUESTS: &str = "set SPEC, clear [TARGETS], show, stats [reset]";

/// The reply to one request line (without the newline).
pub(crate) fn respond(fleet: &Controlled, line: &str) -> String {
    let board = &fleet.board;
    let line = line.trim();
    let (command, argument) = match line.split_once(char::is_whitespace) {
        Some((command, argument)) => (command, argument.trim()),
        None => (line, ""),
    };
    let touched = |count: usize| format!("ok {count} OLT{}", if count == 1 { "" } else { "s" });
    match (command, argument) {
        ("show", "") => {
            let spec = board.describe();
            if spec.rules.is_empty() {
                "ok".to_string()
            } else {
                format!("ok {spec}")
            }
        }
        ("set", "") => {
            "error: `set` needs a SPEC, e.g. set hang@1-3;slow:300ms@5;los:0/1/0:1-12@2".to_string()
        }
        ("set", spec) => match spec.parse::<FaultSpec>() {
            Ok(spec) => match board.apply(&spec) {
                Ok(count) => touched(count),
                Err(e) => format!("error: {e}"),
            },
            Err(e) => format!("error: {e}"),
        },
        ("clear", "") => match board.clear(None) {
            Ok(count) => touched(count),
            Err(reason) => format!("error: {reason}"),
        },
        ("clear", targets) => match targets.parse::<Targets>() {
            Ok(targets) => match board.clear(Some(&targets)) {
                Ok(count) => touched(count),
                Err(reason) => format!("error: {reason}"),
            },
            Err(reason) => format!("error: {reason}"),
        },
        ("show", _) => "error: `show` takes no argument".to_string(),
        ("stats", "") => match serde_json::to_string(&fleet.counters.stats()) {
            Ok(json) => format!("ok {json}"),
            Err(e) => format!("error: cannot encode the counters: {e}"),
        },
        ("stats", "reset") => {
            fleet.counters.reset();
            "ok".to_string()
        }
        ("stats", other) => {
            format!("error: `stats` takes no argument but `reset`, not `{other}`")
        }
        ("", _) => format!("error: empty request ({REQUESTS})"),
        (other, _) => format!("error: unknown request `{other}` ({REQUESTS})"),
    }
}

/// Binds the control socket at `path`, replacing a stale socket file left by an earlier
/// run (but not any other file).
pub(crate) fn bind(path: &Path) -> std::io::Result<UnixListener> {
    use std::os::unix::fs::FileTypeExt;
    if let Ok(meta) = std::fs::symlink_metadata(path) {
        if !meta.file_type().is_socket() {
            return Err(std::io::Error::new(
                std::io::ErrorKind::AlreadyExists,
                format!("{} exists and is not a socket", path.display()),
            ));
        }
        std::fs::remove_file(path)?;
    }
    UnixListener::bind(path)
}

/// Serves requests on `listener` until the task is aborted, one task per connection.
pub(crate) async fn serve(listener: UnixListener, fleet: Arc<Controlled>) {
    let mut connections = tokio::task::JoinSet::new();
    loop {
        match listener.accept().await {
            Ok((stream, _)) => {
                connections.spawn(converse(stream, fleet.clone()));
            }
            Err(error) => {
                tracing::warn!(%error, "control socket accept failed");
                tokio::time::sleep(std::time::Duration::from_millis(100)).await;
            }
        }
        while connections.try_join_next().is_some() {}
    }
}

async fn converse(stream: UnixStream, fleet: Arc<Controlled>) {
    let (read, mut write) = stream.into_split();
    let mut lines = BufReader::new(read).lines();
    while let Ok(Some(line)) = lines.next_line().await {
        let mut reply = respond(&fleet, &line);
        tracing::info!(request = %line.trim(), reply = %abridged(&reply), "simulator control");
        reply.push('\n');
        if write.write_all(reply.as_bytes()).await.is_err() {
            break;
        }
    }
}

/// A reply as the log shows it: `stats` of a large fleet is megabytes of JSON, so long
/// replies are cut to their start and their length.
fn abridged(reply: &str) -> std::borrow::Cow<'_, str> {
    const SHOWN: usize = 200;
    match reply.char_indices().nth(SHOWN) {
        Some((cut, _)) => format!("{}… ({} bytes)", &reply[..cut], reply.len()).into(),
        None => reply.into(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Dynamics, Fault, FaultSet, FleetSpec, SimFleet};
    use ponkeeper_actors::domain::OnuStatus;
    use std::time::Duration;

    fn controlled(sim: &SimFleet) -> Controlled {
        Controlled {
            board: sim.board.clone(),
            counters: sim.counters.clone(),
        }
    }

    async fn fleet(olts: usize) -> SimFleet {
        SimFleet::start(FleetSpec {
            dynamics: Dynamics::none(),
            ..FleetSpec::new(olts, 1)
        })
        .await
        .expect("fleet starts")
    }

    #[test]
    fn long_replies_are_abridged_in_the_log() {
        assert_eq!(abridged("ok 3 OLTs"), "ok 3 OLTs");
        let long = format!("ok {}", "x".repeat(1000));
        let shown = abridged(&long);
        assert!(shown.starts_with("ok xxx"), "{shown}");
        assert!(shown.ends_with("… (1003 bytes)"), "{shown}");
        assert!(shown.len() < 250, "{} bytes", shown.len());
    }

    #[tokio::test]
    async fn set_clear_and_show() {
        let sim = fleet(20).await;
        let board = &controlled(&sim);
        assert_eq!(respond(board, "show"), "ok");
        assert_eq!(respond(board, "set hang@10%;slow:300ms@5"), "ok 3 OLTs");
        assert_eq!(respond(board, "show"), "ok hang@1-2;slow:300ms@5");
        // set adds to what an OLT has, replacing the same kind.
        assert_eq!(respond(board, "set slow:1s@5,6;ssh-mute@2"), "ok 3 OLTs");
        assert_eq!(
            respond(board, " show "),
            "ok hang@1-2;slow:1s@5-6;ssh-mute@2"
        );
        assert_eq!(
            sim.faults(2),
            FaultSet::new().with(Fault::Hang).with(Fault::SshMute)
        );
        assert_eq!(respond(board, "clear 2,5"), "ok 2 OLTs");
        assert_eq!(respond(board, "show"), "ok hang@1;slow:1s@6");
        assert_eq!(respond(board, "clear"), "ok 20 OLTs");
        assert_eq!(respond(board, "show"), "ok");
        assert_eq!(respond(board, "set drop:30@all"), "ok 20 OLTs");
        assert_eq!(respond(board, "show"), "ok drop:30@1-20");
        assert_eq!(respond(board, "clear all"), "ok 20 OLTs");
        sim.shutdown().await;
    }

    #[tokio::test]
    async fn onu_groups_are_set_shown_and_cleared() {
        // Huawei, 64 ONUs an OLT: 8 ports 0/1/0-0/1/7 of 8 ONUs.
        let sim = SimFleet::start(FleetSpec {
            dynamics: Dynamics::none(),
            ..FleetSpec::new(3, 64)
        })
        .await
        .expect("fleet starts");
        let board = &controlled(&sim);
        let down = |id| {
            sim.expected_onus(id)
                .iter()
                .filter(|onu| onu.status == OnuStatus::Offline)
                .count()
        };
        let (before_1, before_2) = (down(1), down(2));
        assert_eq!(
            respond(
                board,
                "set los:0/1/0:0-127@1;dying-gasp:0/1/3:0-127@1-2;hang@3"
            ),
            "ok 3 OLTs"
        );
        assert_eq!(
            respond(board, "show"),
            "ok hang@3;los:0/1/0:0-127@1;dying-gasp:0/1/3:0-127@1-2"
        );
        assert!(
            down(1) >= 16 && down(1) > before_1,
            "two ports of OLT 1 are down"
        );
        // The same ONUs again replace the group: its cause changes.
        assert_eq!(respond(board, "set los:0/1/3:0-127@2"), "ok 1 OLT");
        assert_eq!(
            respond(board, "show"),
            "ok hang@3;los:0/1/0:0-127@1;dying-gasp:0/1/3:0-127@1;los:0/1/3:0-127@2"
        );
        assert_eq!(respond(board, "clear 1"), "ok 1 OLT");
        assert_eq!(respond(board, "show"), "ok hang@3;los:0/1/3:0-127@2");
        assert!(down(1) <= before_1, "healed at once");
        assert_eq!(
            respond(board, "set los:0/1/9:1@2"),
            "error: bad fault rule `los:0/1/9:1@2`: OLT 2: no PON port `0/1/9` \
             (its ports: 8 from 0/1/0 to 0/1/7)"
        );
        assert_eq!(respond(board, "clear"), "ok 3 OLTs");
        assert_eq!(respond(board, "show"), "ok");
        assert!(down(2) <= before_2);
        sim.shutdown().await;
    }

    #[tokio::test]
    async fn bad_requests_change_nothing() {
        let sim = fleet(4).await;
        let board = &controlled(&sim);
        assert_eq!(respond(board, "set hang@1"), "ok 1 OLT");
        let cases = [
            (
                "set hang@1;bogus@2",
                "error: bad fault rule `bogus@2`: unknown fault",
            ),
            ("set gone@3-9", "error: bad fault rule `gone@3-9`: OLTs 3-9"),
            ("set", "error: `set` needs a SPEC"),
            ("clear 7", "error: OLT 7: the fleet has 4 OLTs (1-4)"),
            ("clear x", "error: `x` is not an OLT id"),
            ("show me", "error: `show` takes no argument"),
            ("reboot", "error: unknown request `reboot`"),
            ("", "error: empty request"),
        ];
        for (request, reply) in cases {
            let got = respond(board, request);
            assert!(got.starts_with(reply), "{request:?} → {got:?}");
        }
        assert_eq!(respond(board, "show"), "ok hang@1", "nothing changed");
        sim.shutdown().await;
    }

    #[tokio::test]
    async fn the_socket_answers_one_line_per_request() {
        let mut sim = fleet(3).await;
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("control.sock");
        std::fs::write(&path, "").expect("a plain file");
        assert!(
            sim.serve_control(&path).is_err(),
            "a plain file is not replaced"
        );
        std::fs::remove_file(&path).expect("remove");
        sim.serve_control(&path).expect("binds");
        let stream = UnixStream::connect(&path).await.expect("connects");
        let (read, mut write) = stream.into_split();
        let mut replies = BufReader::new(read).lines();
        write
            .write_all(b"set wrong-id@2;gone@3\nshow\nnonsense\nclear 3\nshow\n")
            .await
            .expect("write");
        let mut got = Vec::new();
        for _ in 0..5 {
            let line = tokio::time::timeout(Duration::from_secs(5), replies.next_line())
                .await
                .expect("a reply in time")
                .expect("read")
                .expect("a line");
            got.push(line);
        }
        assert_eq!(
            got,
            [
                "ok 2 OLTs",
                "ok wrong-id@2;gone@3",
                "error: unknown request `nonsense` (set SPEC, clear [TARGETS], show, stats [reset])",
                "ok 1 OLT",
                "ok wrong-id@2",
            ]
        );
        assert_eq!(sim.faults(2), FaultSet::new().with(Fault::WrongId));
        sim.shutdown().await;
    }
}
