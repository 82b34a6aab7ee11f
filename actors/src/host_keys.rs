//! SSH host keys of the OLTs (docs/operations.md): which key an OLT's SSH server must show before
//! ponkeeper logs in. The inventory may pin one with `ssh.host_key` ([`HostKeyPin`]: a
//! SHA256 fingerprint or an OpenSSH public key line); without a pin the first successful
//! login records the key in the store (trust on first use, `crate::store::host_keys`).
//! A key that differs from the one in force is refused during the key exchange, before
//! the password or any command is sent, and the error names both fingerprints.
//!
//! The OLT actor's CLI task opens its sessions through [`open_session`]; the service
//! reads what is in force with [`in_force`] for `GET /olts/{id}` and forgets a recorded
//! key through the store for `POST /olts/{id}/ssh/trust-host-key`.

use crate::domain::OltId;
use crate::profile::commands::CliProfile;
use crate::ssh::{CliError, CliSession, CliTarget};
use crate::store::Store;
use chrono::{DateTime, Utc};
use russh::keys::ssh_key::{Fingerprint, PublicKey};
use serde::{Deserialize, Serialize};
use std::time::Duration;

/// The key `ssh.host_key` pins, kept as the inventory wrote it and as its SHA256
/// fingerprint (the form every comparison and message uses).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(try_from = "String", into = "String")]
pub struct HostKeyPin {
    text: String,
    fingerprint: String,
}

impl HostKeyPin {
    /// The pinned key's fingerprint, `SHA256:` and unpadded base64.
    pub fn fingerprint(&self) -> &str {
        &self.fingerprint
    }
}

impl TryFrom<String> for HostKeyPin {
    type Error = String;

    /// Reads `SHA256:<base64>` (as `ssh-keygen -lf` prints it) or an OpenSSH public key
    /// line (`ssh-ed25519 AAAA… comment`, as in `known_hosts` or `ssh-keyscan`).
    fn try_from(text: String) -> Result<Self, Self::Error> {
        let trimmed = text.trim();
        let fingerprint = if trimmed.starts_with("SHA256:") {
            trimmed
                .parse::<Fingerprint>()
                .map_err(|e| format!("`{trimmed}` is not a SHA256 fingerprint: {e}"))?
                .to_string()
        } else {
            let key = PublicKey::from_openssh(trimmed).map_err(|e| {
                format!(
                    "ssh.host_key must be a fingerprint `SHA256:…` or an OpenSSH public key \
                     line `ssh-ed25519 AAAA…`: {e}"
                )
            })?;
            fingerprint_of(&key)
        };
        Ok(HostKeyPin { text, fingerprint })
    }
}

impl From<HostKeyPin> for String {
    fn from(pin: HostKeyPin) -> String {
        pin.text
    }
}

/// Fingerprints are computed by the transport, which checks them during the key
/// exchange; re-exported for the callers that pin or record keys.
pub use crate::ssh::fingerprint_of;

/// Where the key in force comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub enum HostKeySource {
    /// `ssh.host_key` in the inventory.
    Pinned,
    /// Recorded at the first successful login (trust on first use).
    Tofu,
}

/// The key an OLT's SSH server must show.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HostKeyInForce {
    pub fingerprint: String,
    pub source: HostKeySource,
    /// When it was recorded (trust on first use only).
    pub recorded_at: Option<DateTime<Utc>>,
}

impl HostKeyInForce {
    /// How a refusal describes where the expected key comes from.
    fn origin(&self) -> String {
        match (self.source, self.recorded_at) {
            (HostKeySource::Pinned, _) => "pinned by ssh.host_key in the inventory".to_string(),
            (HostKeySource::Tofu, Some(at)) => format!(
                "recorded on first use at {}",
                at.to_rfc3339_opts(chrono::SecondsFormat::Secs, true)
            ),
            (HostKeySource::Tofu, None) => "recorded on first use".to_string(),
        }
    }
}

/// The key in force for `olt`: the pinned fingerprint if there is one, else the
/// recorded key, else none (the next login records one).
pub fn in_force(
    store: &Store,
    olt: OltId,
    pinned: Option<&str>,
) -> Result<Option<HostKeyInForce>, crate::store::StoreError> {
    if let Some(pinned) = pinned {
        return Ok(Some(HostKeyInForce {
            fingerprint: pinned.to_string(),
            source: HostKeySource::Pinned,
            recorded_at: None,
        }));
    }
    Ok(store
        .recorded_host_key(olt)?
        .map(|recorded| HostKeyInForce {
            fingerprint: recorded.fingerprint,
            source: HostKeySource::Tofu,
            recorded_at: Some(recorded.recorded_at),
        }))
}

/// Opens a CLI session on `olt` whose device shows the key in force: the one `target`
/// pins ([`CliTarget::host_key`], from `ssh.host_key`), else the recorded one. With none
/// in force, the key the device showed is recorded once the login has succeeded. A
/// mismatch fails with [`CliError::HostKeyMismatch`] before anything is sent.
pub async fn open_session(
    store: &Store,
    olt: OltId,
    target: &CliTarget,
    profile: &'static CliProfile,
    timeout: Duration,
) -> Result<CliSession, CliError> {
    let expected = in_force(store, olt, target.host_key.as_deref())
        .map_err(|e| CliError::Connect(target.addr, format!("cannot read the host key: {e}")))?;
    let mut target = target.clone();
    target.host_key = expected.as_ref().map(|e| e.fingerprint.clone());
    let session = CliSession::open(&target, profile, timeout)
        .await
        .map_err(|error| match (error, &expected) {
            (CliError::HostKeyRefused { offered, .. }, Some(expected)) => {
                CliError::HostKeyMismatch {
                    addr: target.addr,
                    expected: expected.fingerprint.clone(),
                    origin: expected.origin(),
                    offered,
                }
            }
            (error, _) => error,
        })?;
    if expected.is_none() {
        let recorded = store
            .record_host_key(olt, session.host_key(), Utc::now())
            .map_err(|e| {
                CliError::Connect(target.addr, format!("cannot record the host key: {e}"))
            })?;
        tracing::info!(olt, fingerprint = %recorded.fingerprint, "SSH host key recorded on first use");
    }
    Ok(session)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The OpenSSH line of a key made from a fixed seed.
    fn line() -> String {
        let pair = russh::keys::ssh_key::private::Ed25519Keypair::from_seed(&[7; 32]);
        let key = russh::keys::PrivateKey::from(pair);
        format!("{} olt-1", key.public_key().to_openssh().expect("encodes"))
    }

    #[test]
    fn a_pin_is_a_fingerprint_or_a_public_key_line() {
        let line = line();
        let key = PublicKey::from_openssh(&line).expect("a key");
        let fingerprint = fingerprint_of(&key);
        assert!(fingerprint.starts_with("SHA256:"), "{fingerprint}");
        assert_eq!(fingerprint.len(), "SHA256:".len() + 43);
        let from_line = HostKeyPin::try_from(line.clone()).expect("a line");
        assert_eq!(from_line.fingerprint(), fingerprint);
        let from_print = HostKeyPin::try_from(fingerprint.clone()).expect("a fingerprint");
        assert_eq!(from_print.fingerprint(), fingerprint);
        // Kept as written, so the inventory round-trips.
        assert_eq!(String::from(from_line), line);
        for bad in [
            "SHA256:short",
            "MD5:12:34",
            "ssh-ed25519 notbase64",
            "",
            "SHA256:AAAA;reboot",
        ] {
            assert!(HostKeyPin::try_from(bad.to_string()).is_err(), "{bad}");
        }
    }

    #[test]
    fn the_pin_wins_over_a_recorded_key() {
        let dir = tempfile::tempdir().expect("tempdir");
        let store = Store::open(dir.path()).expect("open");
        assert_eq!(in_force(&store, 1, None).expect("read"), None);
        let at = chrono::TimeZone::with_ymd_and_hms(&Utc, 2026, 11, 23, 10, 0, 0)
            .single()
            .expect("a time");
        store
            .record_host_key(1, "SHA256:recorded", at)
            .expect("record");
        let recorded = in_force(&store, 1, None).expect("read").expect("recorded");
        assert_eq!(recorded.source, HostKeySource::Tofu);
        assert_eq!(recorded.fingerprint, "SHA256:recorded");
        assert_eq!(
            recorded.origin(),
            "recorded on first use at 2026-11-23T10:00:00Z"
        );
        let pin = HostKeyPin::try_from(line()).expect("pin");
        let pinned = in_force(&store, 1, Some(pin.fingerprint()))
            .expect("read")
            .expect("pinned");
        assert_eq!(pinned.source, HostKeySource::Pinned);
        assert_eq!(pinned.fingerprint, pin.fingerprint());
        assert_eq!(pinned.recorded_at, None);
    }
}
