//! `ponkeeper bench baseline-http --listen ADDR` (hidden): the A1 baseline of
//! docs/benchmarks.md — a bare axum server on the same runtime settings as `serve`, whose only
//! handler returns a constant JSON body, with no authentication, audit, rate limit or
//! actors. `benches/api_load.sh` runs wrk against it in the same run as against `serve`.

use axum::http::header;
use axum::response::IntoResponse;
use axum::Router;
use std::net::SocketAddr;

/// About the size of a `GET /olts/{id}` answer's opening, so the bytes written compare.
const BODY: &str = r#"{"success":true,"data":{"id":1,"ip":"127.0.0.1","vendor":"HUAWEI","model":"MA5800-X7","city":"Kazan","status":"ONLINE","totalPorts":16,"totalOnu":128,"onuOnline":128}}"#;

async fn constant() -> impl IntoResponse {
    ([(header::CONTENT_TYPE, "application/json")], BODY)
}

/// Serves the constant body on every path until SIGINT or SIGTERM.
pub async fn serve(listen: SocketAddr) -> anyhow::Result<()> {
    let listener = tokio::net::TcpListener::bind(listen).await?;
    let app = Router::new().fallback(constant);
    axum::serve(listener, app)
        .with_graceful_shutdown(crate::app::shutdown_signal())
        .await?;
    Ok(())
}
