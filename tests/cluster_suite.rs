//! The three-member cluster's tests in a binary of their own: each test runs three real
//! `serve` processes and a simulator, one test at a time
//! ([`cluster_members::ONE_AT_A_TIME`]), with nothing else beside them on the machine's
//! two cores. Run with `cargo test --test cluster`.

mod cluster;
mod cluster_members;
mod cluster_records;
#[allow(dead_code)] // the cluster's tests use a part of the shared harness
mod common;
