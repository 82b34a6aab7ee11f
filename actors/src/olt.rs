//! One actor per OLT. It owns the OLT's SNMP client, its SSH CLI session, its ONU table
//! and its session state (README, "OLT session states"), persists them to sled after
//! every poll, and answers queries from memory. Device I/O never runs in a message
//! handler: a poll is a task the actor spawns, which takes the SNMP client with it and
//! sends it back inside [`OltMsg::PollFinished`]. A hung device therefore never delays
//! an answer; `restart_session` aborts the task, drops the client and polls again at
//! once.
//!
//! The session is an explicit state machine (`session.rs`): a pure `next(state, event)`
//! answers the next state and the effects the actor carries out (`lifecycle.rs`). Every
//! status move, every refusal of a poll, restart or action for the session's sake, and
//! when the timer may poll or back up, is decided there.
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
//!   actor.rs      OltActor, OltArgs, OltState and its parts; pre_start, post_stop, one
//!                 line per message
//!   session.rs    the session state machine: states, events, effects, `next` (pure),
//!                 and its table of moves in session/tests.rs
//!   lifecycle.rs  the actor carrying out the machine's effects: moves recorded, polls
//!                 started and abandoned, callers refused or failed; reconfigure; sled
//!   poll.rs       PollSettings, PollCycle; start_poll, finish_poll, merging a good poll
//!   probe.rs      the poll's first GET as a probe, so hung OLTs hold no poll permit
//!   schedule.rs   which poll groups the next poll reads; the optics sweep
//!   pacing.rs     the OLT's request budget and its back-off
//!   refresh.rs    an operator's "read this ONU's signal now"
//!   merge.rs      a finished poll merged into a copy of the ONU table, off the actor
//!   actions.rs    CliAction, CliQueue; admission, scripts, finish_cli, scheduled backups
//!   provisioned.rs  what a finished provisioning job changes in the actor's state
//!   publish.rs    Publisher: what the fleet view is told, and when
//!   view.rs       OltDetail, SessionInfo, PollingInfo, VlanInfo: what the API reads
//! ```
//!
//! The actor is tested message by message against the simulator in
//! `actors/tests/olt_session.rs`.
//!
//! What the API reads changes in three places only: the session machine's moves (the
//! status, recorded in `lifecycle.rs`), the end of `finish_poll` in `poll.rs` (summary,
//! ports, VLANs, ONU rows) and the end of `finish_cli` in `actions.rs` (an ONU's VLAN or
//! description).

mod actions;
mod actor;
mod cli_queue;
mod handle;
mod lifecycle;
mod mac_reads;
mod merge;
mod msg;
mod optics_turns;
mod pacing;
mod poll;
mod probe;
mod provisioned;
mod publish;
mod refresh;
mod schedule;
mod session;
mod view;
mod wake;

pub use actions::{ActionOutcome, CliAction, ProfileChange};
pub use actor::OltActor;
pub use actor::OltArgs;
pub use handle::{ActionError, OltHandle};
pub use msg::{BusyOnu, CliReport, OltMsg, PollReport};
pub use poll::{default_merges, PollSettings};
pub use schedule::{GroupIntervals, GroupRead};
pub use view::{
    GroupInfo, OltDetail, OltSummary, PollingInfo, SessionInfo, VlanInfo, VENDOR_NOT_DETECTED,
};
