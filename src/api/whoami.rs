//! `/whoami`: the name and level of the key a request presents. Clients that cannot see
//! the key ring — `ponkeeper mcp` over stdio above all, which hides FULL tools from
//! READ_ONLY keys — ask it here; it is a read, so any valid key may.

use super::{one, ApiError, ApiResult};
use crate::app::AppState;
use crate::auth::Caller;
use axum::routing::get;
use axum::{Extension, Router};
use ponkeeper_actors::store::AccessLevel;
use serde::Serialize;

pub fn router() -> Router<AppState> {
    Router::new().route("/whoami", get(whoami))
}

/// The presented key as the service knows it.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct WhoamiItem {
    pub key_name: String,
    pub level: AccessLevel,
}

async fn whoami(caller: Option<Extension<Caller>>) -> ApiResult {
    let Some(Extension(caller)) = caller else {
        return Err(ApiError::Internal(
            "whoami reached without an authenticated caller".into(),
        ));
    };
    one(WhoamiItem {
        key_name: caller.key_name,
        level: caller.level,
    })
}
