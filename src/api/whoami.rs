//! `/whoami`: the name and level of the key a request presents. Clients that cannot see
//! the key ring — `ponkeeper mcp` over stdio above all, which hides FULL tools from
//! READ_ONLY keys — ask it here; it is a read, so any valid key may.

use super::doc::Refusals;
use crate::auth::Caller;
use crate::error::ApiError;
use crate::http::Single;
use crate::http::{one, ApiResult};
use crate::records::AccessLevel;
use crate::state::AppState;
use axum::Extension;
use serde::Serialize;
use utoipa::ToSchema;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new().routes(routes!(whoami))
}

/// The presented key as the service knows it.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct WhoamiItem {
    pub key_name: String,
    pub level: AccessLevel,
}

#[utoipa::path(
    get,
    path = "/whoami",
    operation_id = "whoami",
    tag = "keys",
    summary = "The presented key's name and level",
    description = "Lets a client learn whether its key is READ_ONLY or FULL before it tries an action.",
    responses((status = 200, description = "the key", body = Single<WhoamiItem>), Refusals)
)]
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
