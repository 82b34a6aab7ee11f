//! ponkeeper: manages and monitors an ISP's optical access network — OLTs, the ONUs on
//! them, and the communication nodes that group OLTs — behind a REST API.
//!
//! This crate is the service edge: CLI, configuration, start-up and shutdown ([`app`]),
//! the state handlers share ([`state`]), the background jobs ([`jobs`]), the REST API
//! ([`api`]), the MCP server ([`mcp`]), the audit log ([`audit`]), API keys ([`auth`],
//! [`keys`], [`admin`]) and the demo. The device side — supervisor, OLT actors, SNMP,
//! sled, simulator — lives in `ponkeeper-actors`, which this crate reaches only through
//! its handles.

pub mod admin;
pub mod api;
pub mod app;
pub mod audit;
pub mod auth;
pub mod bench;
pub mod clock;
pub mod config;
pub mod demo;
pub mod jobs;
pub mod keys;
pub mod mcp;
pub mod metrics;
pub mod rate_limit;
pub mod state;
