//! The SNMPv3 side of [`super::SnmpClient`]: snmp2's USM session (RFC 3414 keys
//! localised to the agent's engine id, HMAC-SHA-2 of RFC 7860, AES-CFB of RFC 3826) built
//! from the inventory's [`UsmCredentials`], engine discovery under the client's timeout,
//! and what each snmp2 failure of a v3 exchange means for the client's retry loop:
//! resend after a time-window re-synchronisation, re-discover the engine after a reboot
//! or a replaced agent, or stop with `authentication failed: wrong password or user`.

use super::DeviceError;
use crate::inventory::{AuthProtocol, PrivProtocol, UsmCredentials};
use snmp2::v3::{Auth, AuthErrorKind, Cipher, KeyExtension, Security};
use snmp2::AsyncSession;
use std::net::SocketAddr;
use std::time::Duration;

/// snmp2's security parameters for these credentials (keys are localised at discovery).
pub(super) fn security(credentials: &UsmCredentials) -> Security {
    let (auth_protocol, auth_password) = match &credentials.auth {
        Some((protocol, password)) => (Some(*protocol), password.as_slice()),
        None => (None, &[][..]),
    };
    let mut security = Security::new(credentials.user.as_bytes(), auth_password)
        .with_context_name(&credentials.context);
    let Some(auth_protocol) = auth_protocol else {
        return security.with_auth(Auth::NoAuthNoPriv);
    };
    security = security.with_auth_protocol(match auth_protocol {
        AuthProtocol::Md5 => snmp2::v3::AuthProtocol::Md5,
        AuthProtocol::Sha => snmp2::v3::AuthProtocol::Sha1,
        AuthProtocol::Sha224 => snmp2::v3::AuthProtocol::Sha224,
        AuthProtocol::Sha256 => snmp2::v3::AuthProtocol::Sha256,
        AuthProtocol::Sha384 => snmp2::v3::AuthProtocol::Sha384,
        AuthProtocol::Sha512 => snmp2::v3::AuthProtocol::Sha512,
    });
    match &credentials.privacy {
        None => security.with_auth(Auth::AuthNoPriv),
        Some((protocol, password)) => security
            .with_auth(Auth::AuthPriv {
                cipher: match protocol {
                    PrivProtocol::Des => Cipher::Des,
                    PrivProtocol::Aes => Cipher::Aes128,
                    PrivProtocol::Aes192 => Cipher::Aes192,
                    PrivProtocol::Aes256 => Cipher::Aes256,
                },
                privacy_password: password.clone(),
            })
            // AES-192/256 keys longer than the hash: the extension net-snmp's
            // AES192/AES256 use (draft-blumenthal-aes-usm).
            .with_key_extension_method(KeyExtension::Blumenthal),
    }
}

/// Opens a v3 session and discovers the agent's engine id, boots and time (RFC 3414
/// section 4), within `timeout`.
pub(super) async fn open(
    addr: SocketAddr,
    credentials: &UsmCredentials,
    request_id: i32,
    timeout: Duration,
) -> Result<AsyncSession, DeviceError> {
    let mut session = AsyncSession::new_v3(addr, request_id, security(credentials))
        .await
        .map_err(|e| DeviceError::Unreachable {
            addr,
            message: e.to_string(),
        })?;
    match tokio::time::timeout(timeout, session.init()).await {
        Ok(Ok(())) => Ok(session),
        Ok(Err(snmp2::Error::Send | snmp2::Error::Receive)) => Err(DeviceError::Unreachable {
            addr,
            message: "nothing listens there (ICMP port unreachable)".into(),
        }),
        Ok(Err(error)) => Err(DeviceError::Protocol(format!(
            "SNMPv3 engine discovery failed: {error}"
        ))),
        Err(_elapsed) => Err(DeviceError::Timeout {
            timeout,
            attempts: 1,
        }),
    }
}

/// What the retry loop does after snmp2 refused a v3 answer.
#[derive(Debug, PartialEq, Eq)]
pub(super) enum Recovery {
    /// The agent's boots/time were re-synchronised from its report (notInTimeWindow):
    /// send again on the same session.
    Resend,
    /// The engine changed (rebooted, replaced, time out of window): discover it again.
    Rediscover,
    /// An unauthenticated report after discovery (unknownUserNames, wrongDigests,
    /// decryptionErrors, unsupportedSecLevels: RFC 3414 section 3.2), or an answer
    /// signed with other keys: the credentials are wrong.
    Refused,
    /// Not a USM matter: the client's usual handling.
    Other,
}

pub(super) fn recovery(error: &snmp2::Error) -> Recovery {
    match error {
        snmp2::Error::AuthUpdated => Recovery::Resend,
        snmp2::Error::AuthFailure(kind) => match kind {
            AuthErrorKind::NotAuthenticated
            | AuthErrorKind::SignatureMismatch
            | AuthErrorKind::UsernameMismatch => Recovery::Refused,
            AuthErrorKind::EngineBootsMismatch
            | AuthErrorKind::EngineTimeMismatch
            | AuthErrorKind::EngineIdMismatch
            | AuthErrorKind::EngineBootsNotProvided
            | AuthErrorKind::SecurityNotReady => Recovery::Rediscover,
            _ => Recovery::Other,
        },
        _ => Recovery::Other,
    }
}

/// The error an operator sees for refused credentials.
pub(super) fn refused() -> DeviceError {
    DeviceError::AuthenticationFailed
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn usm_failures_map_to_the_right_recovery() {
        use snmp2::Error as E;
        assert_eq!(recovery(&E::AuthUpdated), Recovery::Resend);
        assert_eq!(
            recovery(&E::AuthFailure(AuthErrorKind::NotAuthenticated)),
            Recovery::Refused
        );
        assert_eq!(
            recovery(&E::AuthFailure(AuthErrorKind::EngineIdMismatch)),
            Recovery::Rediscover
        );
        assert_eq!(recovery(&E::AsnParse), Recovery::Other);
        assert_eq!(
            refused().to_string(),
            "authentication failed: wrong password or user"
        );
    }
}
