//! One actor per OLT. It owns the OLT's SNMP client, its SSH CLI session, its ONU table
//! and its session state (SPEC §3), persists them to sled after every poll, and answers
//! queries from memory. Device I/O never runs in a message handler: a poll is a task the
//! actor spawns, which takes the SNMP client with it and sends it back inside
//! [`OltMsg::PollFinished`]. A hung device therefore never delays an answer;
//! `restart_session` aborts the task, drops the client and polls again at once.
//!
//! CLI actions (ONU reboot, VLAN, description, config backup) follow the same pattern:
//! one [`CliAction`] runs at a time per OLT, in a task that borrows the SSH session
//! ([`crate::ssh::CliSession`], opened on first need) and returns it in
//! [`OltMsg::CliFinished`]; further actions wait in a queue, and one equal to an action
//! already running or queued is refused as busy. Every step has a timeout and the whole
//! action a deadline. `restart_session` drops the SSH session and fails the actions in
//! flight. Backups are also scheduled here (`backup_interval`), and each ONU's VLAN comes
//! from the latest stored running configuration.
//!
//! The outside (the supervisor, and through it the API) talks to it through
//! [`OltHandle`], whose methods carry their own timeouts. One guess finds any behaviour:
//!
//! ```text
//! olt.rs          this overview and the re-exports
//!   handle.rs     OltHandle and ActionError: what callers get
//!   msg.rs        OltMsg and the reports poll and CLI tasks send back
//!   actor.rs      OltActor, OltArgs, OltState; pre_start, post_stop, one line per message
//!   session.rs    status moves (SPEC §3), restart-session, reconfigure, shutdown, sled
//!   poll.rs       PollSettings; the timer, start_poll, finish_poll, merging a good poll
//!   actions.rs    CliAction; admission, the queue, scripts, finish_cli, scheduled backups
//!   view.rs       OltSummary, OltDetail, SessionInfo, VlanInfo: what the API reads
//! ```
//!
//! The session state machine is tested message by message against the simulator in
//! `actors/tests/olt_session.rs`.
//!
//! What the API reads changes in three places only: `record_move` in `session.rs` (the
//! status), the end of `finish_poll` in `poll.rs` (summary, ports, VLANs, ONU rows) and
//! the end of `finish_cli` in `actions.rs` (an ONU's VLAN or description).

mod actions;
mod actor;
mod handle;
mod merge;
mod msg;
mod poll;
mod probe;
mod provisioned;
mod publish;
mod session;
mod view;

pub use actions::{ActionOutcome, CliAction};
pub use actor::OltActor;
pub use actor::OltArgs;
pub use handle::{ActionError, OltHandle};
pub use msg::{CliReport, OltMsg, PollReport};
pub use poll::{default_merges, PollSettings};
pub use view::{OltDetail, OltSummary, SessionInfo, VlanInfo, VENDOR_NOT_DETECTED};
