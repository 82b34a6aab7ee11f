//! `ponkeeper bench baseline-http --listen ADDR` (hidden): the A1 baseline of
//! docs/benchmarks.md — a bare axum server on the same runtime settings as `serve`, whose only
//! handler returns a constant JSON body, with no authentication, audit, rate limit or
//! actors. `benches/api_load.sh` runs wrk against it in the same run as against `serve`,
//! once with the built-in body and once with A1's own answer as the body.

use axum::body::Bytes;
use axum::http::header;
use axum::Router;
use std::net::SocketAddr;
use std::path::Path;

/// The opening of a `GET /olts/{id}` answer (the whole answer is 3.5–4.5 KB: the
/// script's second baseline sends that with `--body-file`).
const BODY: &str = r#"{"success":true,"data":{"id":1,"ip":"127.0.0.1","vendor":"HUAWEI","model":"MA5800-X7","city":"Kazan","status":"ONLINE","totalPorts":16,"totalOnu":128,"onuOnline":128}}"#;

/// Serves the constant body (the file's bytes when `body_file` is given) on every path until
/// SIGINT or SIGTERM.
pub async fn serve(listen: SocketAddr, body_file: Option<&Path>) -> anyhow::Result<()> {
    let body = match body_file {
        Some(path) => Bytes::from(std::fs::read(path)?),
        None => Bytes::from_static(BODY.as_bytes()),
    };
    let listener = tokio::net::TcpListener::bind(listen).await?;
    let constant = move || {
        let body = body.clone();
        async move { ([(header::CONTENT_TYPE, "application/json")], body) }
    };
    let app = Router::new().fallback(constant);
    axum::serve(listener, app)
        .with_graceful_shutdown(crate::app::shutdown_signal())
        .await?;
    Ok(())
}
