//! SSH host keys over the API (docs/devices.md): the `sshHostKey` block of `GET /olts/{id}`
//! ([`in_force`]) and `POST /olts/{id}/ssh/trust-host-key`, which forgets the key
//! recorded on first use so that the next login records the one the device shows then
//! (FULL keys only, audited as `olt.trust_host_key`). Both read the inventory's pin and
//! the store's record through [`ponkeeper_actors::host_keys`]; nothing here touches a
//! device.

use super::doc::{BadParameter, Missing, Refusals, TooLarge};
use super::path::OltPath;
use crate::error::ApiError;
use crate::http::{one, ApiResult, Single};
use crate::state::AppState;
use axum::extract::State;
use ponkeeper_actors::domain::OltId;
use ponkeeper_actors::host_keys::{self, HostKeySource};
use ponkeeper_actors::inventory::Inventory;
use serde::Serialize;
use utoipa::ToSchema;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new().routes(routes!(trust_host_key))
}

/// The SSH host key an OLT must show before ponkeeper logs in.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct SshHostKeyItem {
    /// SHA256 fingerprint, as OpenSSH prints it (`SHA256:` and unpadded base64).
    pub fingerprint: String,
    /// `PINNED` (`ssh.host_key` in the inventory) or `TOFU` (recorded at the first
    /// successful login).
    pub source: HostKeySource,
    /// When the key was recorded (`TOFU` only; null when pinned).
    pub recorded_at: Option<String>,
}

/// What `trust-host-key` did.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct TrustHostKeyItem {
    pub olt_id: OltId,
    /// The recorded key now forgotten; null if none was recorded.
    pub forgotten: Option<SshHostKeyItem>,
}

/// The `sshHostKey` of OLT `id`: its pin, else its recorded key, else null (also when
/// the store cannot be read: the detail is still served, and the error logged).
pub fn in_force(app: &AppState, inventory: &Inventory, id: OltId) -> Option<SshHostKeyItem> {
    let pinned = inventory
        .olt(id)
        .and_then(|olt| olt.ssh.as_ref())
        .and_then(|ssh| ssh.host_key.as_ref())
        .map(|pin| pin.fingerprint());
    match host_keys::in_force(&app.store, id, pinned) {
        Ok(key) => key.map(|key| SshHostKeyItem {
            fingerprint: key.fingerprint,
            source: key.source,
            recorded_at: key.recorded_at.map(|at| app.clock.format(at)),
        }),
        Err(error) => {
            tracing::error!(olt = id, %error, "cannot read the recorded SSH host key");
            None
        }
    }
}

#[utoipa::path(
    post,
    path = "/olts/{id}/ssh/trust-host-key",
    operation_id = "trust_olt_host_key",
    tag = "olts",
    summary = "Forget the OLT's recorded SSH host key",
    description = "FULL keys only. Forgets the SSH host key recorded on first use, so that the next login records the key the device shows then (after a device was replaced or re-keyed). A key pinned with `ssh.host_key` in the inventory is changed there instead: 409.",
    params(("id" = u32, Path, description = "OLT id")),
    responses(
        (status = 200, description = "what was forgotten", body = Single<TrustHostKeyItem>),
        (status = 409, description = "`CONFLICT`: the OLT's key is pinned in the inventory", body = super::doc::ErrorEnvelope),
        BadParameter, Missing, TooLarge, Refusals
    )
)]
async fn trust_host_key(State(app): State<AppState>, OltPath(id): OltPath) -> ApiResult {
    app.olt(id)?;
    let inventory = app.inventory();
    let pinned = inventory
        .olts
        .iter()
        .find(|olt| olt.id == id)
        .and_then(|olt| olt.ssh.as_ref())
        .is_some_and(|ssh| ssh.host_key.is_some());
    if pinned {
        return Err(ApiError::Conflict(format!(
            "the SSH host key of OLT {id} is pinned by ssh.host_key in the inventory; \
             change it there and reload the inventory"
        )));
    }
    let forgotten = app.store.forget_host_key(id)?;
    app.store.flush().await?;
    if let Some(key) = &forgotten {
        tracing::warn!(olt = id, fingerprint = %key.fingerprint, "recorded SSH host key forgotten");
    }
    one(TrustHostKeyItem {
        olt_id: id,
        forgotten: forgotten.map(|key| SshHostKeyItem {
            fingerprint: key.fingerprint,
            source: HostKeySource::Tofu,
            recorded_at: Some(app.clock.format(key.recorded_at)),
        }),
    })
}
