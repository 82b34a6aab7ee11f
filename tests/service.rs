//! The service's integration tests in one binary: each module below was a test binary of
//! its own, and each linked the whole service (135 MB apiece in a debug build), so 35 of
//! them filled CI's disk. As modules they share one link; one module runs alone with
//! `cargo test --test service <module>::`. What each proves is in docs/testing.md; the
//! shared harness is `common`. The three-member cluster has its own binary
//! (`tests/cluster_suite.rs`), so that nothing else runs beside it.

mod common;

mod access;
mod actions;
mod api;
mod backup;
mod bench_baseline;
mod bench_events;
mod cis_families;
mod cli_dialogue;
mod cli_dialogue_bdcom;
mod cli_dialogue_huawei;
mod cluster_port;
mod connections;
mod crash;
mod disk_full;
mod event_stream;
mod events;
mod faults;
mod flapping;
mod hardening;
mod hardening_small;
mod hardening_three;
mod host_keys;
mod hostile;
mod macs;
mod mcp;
mod metrics_docs;
mod notify;
mod onu_profile;
mod onus;
mod openapi;
mod operations;
mod outages;
mod polling;
mod provisioning;
mod provisioning_families;
mod russian;
mod storage_estimate;
mod szo;
mod traffic;
mod traps;
mod ui;
mod vendor_auto;
mod victoria;
mod webhooks;
