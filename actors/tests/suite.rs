//! The actors' integration tests in one binary: each module below was a test binary of its
//! own, linking the actors and the simulator, and fifteen links filled disk and minutes
//! of CI. One module runs alone with `cargo test -p ponkeeper-actors --test suite
//! <module>::`. What each proves is in docs/testing.md. The helpers they share: `tools`
//! (the service's tests' check for outside programs), `snmpsim`, `expected` (a fixture's
//! expected ONUs) and `net_snmp`.

#[path = "common/expected.rs"]
mod expected;
#[path = "common/net_snmp.rs"]
mod net_snmp;
#[path = "common/snmpsim.rs"]
mod snmpsim;
#[path = "../../tests/common/tools.rs"]
mod tools;

mod fixtures;
mod fleet_view_live;
mod history_crash;
mod olt_session;
mod parsers;
mod poll_sim;
mod sim_faults;
mod sim_provisioning;
mod sim_shared_socket;
mod sim_snmp;
mod sim_snmp_vendors;
mod sim_snmpv3;
mod sim_ssh;
mod snmp_decode;
mod snmpv3_client;
mod supervisor;
