//! ponkeeper: manages and monitors an ISP's optical access network — OLTs, the ONUs on
//! them, and the communication nodes that group OLTs — behind a REST API.
//!
//! This crate is the service edge: CLI, configuration, start-up and shutdown ([`app`]),
//! the data directory's permissions ([`data_dir`]), the state handlers share
//! ([`state`]), the background jobs ([`jobs`]), the REST API ([`api`]), the MCP server
//! ([`mcp`]), the request body ([`body`]), the audit log ([`audit`]), API keys ([`auth`],
//! [`keys`], [`admin`]), the service's own records in the store ([`records`]), the
//! history reads handlers make ([`history`]), events ([`events`]), outages ([`outages`]), alarms ([`alarms`]) and the demo. The device side —
//! supervisor, OLT actors, fleet view, SNMP, the store, simulator — lives in
//! `ponkeeper-actors`, which this crate reaches only through its handles and its store's
//! typed methods.

pub mod admin;
pub mod alarms;
pub mod api;
pub mod app;
pub mod audit;
pub mod auth;
pub mod backup;
pub mod bench;
pub mod body;
pub mod channels;
pub mod clock;
pub mod cluster;
pub mod config;
pub mod cors;
pub mod data_dir;
pub mod demo;
pub mod error;
pub mod events;
pub mod flapping;
pub mod health;
pub mod history;
pub mod http;
pub mod jobs;
pub mod keys;
pub mod mcp;
pub mod member;
pub mod metrics;
pub mod notify;
pub mod outages;
pub mod rate_limit;
pub mod records;
pub mod router;
pub mod state;
pub mod storage;
pub mod tasks;
pub use ponkeeper_actors::text;
pub mod traps;
pub mod ui;
pub mod webhooks;
