//! SNMPv3 user-based security (USM) keys of an OLT's `snmp` table: the protocols an
//! inventory may name, the checks an OLT with `version = "3"` must pass when the
//! inventory is loaded (start-up and reload), and the resolution of its passwords from
//! the environment variables the inventory names (the passwords are never in the file,
//! never logged). The SNMP client (`snmp::usm`) turns [`UsmCredentials`] into a session.

use super::SnmpSpec;
use serde::{Deserialize, Serialize};

/// The authentication protocol (`auth`): HMAC with this hash (RFC 3414, RFC 7860).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum AuthProtocol {
    #[serde(rename = "MD5")]
    Md5,
    #[serde(rename = "SHA")]
    Sha,
    #[serde(rename = "SHA224")]
    Sha224,
    #[serde(rename = "SHA256")]
    Sha256,
    #[serde(rename = "SHA384")]
    Sha384,
    #[serde(rename = "SHA512")]
    Sha512,
}

/// The privacy protocol (`privacy`): DES-CBC (RFC 3414) or AES-CFB (RFC 3826; 192 and
/// 256 with the key extension net-snmp calls AES192/AES256).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum PrivProtocol {
    #[serde(rename = "DES")]
    Des,
    #[serde(rename = "AES")]
    Aes,
    #[serde(rename = "AES192")]
    Aes192,
    #[serde(rename = "AES256")]
    Aes256,
}

/// The shortest password RFC 3414 (section 11.2) and net-snmp accept.
pub const MIN_PASSWORD_LEN: usize = 8;

/// What an SNMPv3 session needs, the passwords read from the environment.
#[derive(Clone, PartialEq, Eq)]
pub struct UsmCredentials {
    pub user: String,
    /// The protocol and the password, when the level is authNoPriv or authPriv.
    pub auth: Option<(AuthProtocol, Vec<u8>)>,
    /// The protocol and the password, when the level is authPriv.
    pub privacy: Option<(PrivProtocol, Vec<u8>)>,
    pub context: String,
}

impl std::fmt::Debug for UsmCredentials {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("UsmCredentials")
            .field("user", &self.user)
            .field("auth", &self.auth.as_ref().map(|(p, _)| p))
            .field("privacy", &self.privacy.as_ref().map(|(p, _)| p))
            .field("context", &self.context)
            .finish_non_exhaustive()
    }
}

impl UsmCredentials {
    /// The security level's RFC 3411 name.
    pub fn level(&self) -> &'static str {
        match (&self.auth, &self.privacy) {
            (None, _) => "noAuthNoPriv",
            (Some(_), None) => "authNoPriv",
            (Some(_), Some(_)) => "authPriv",
        }
    }
}

/// One password from the environment variable `key` names, or why not (naming the OLT
/// and the key, never the value).
fn password(olt: u32, key: &str, variable: Option<&str>) -> Result<Vec<u8>, String> {
    let Some(variable) = variable else {
        return Err(format!(
            "field `snmp.{key}`: OLT {olt} names an SNMPv3 protocol but no `{key}`"
        ));
    };
    match std::env::var_os(variable) {
        None => Err(format!(
            "field `snmp.{key}`: OLT {olt} takes its SNMPv3 password from ${variable}, which is not set"
        )),
        Some(value) if value.len() < MIN_PASSWORD_LEN => Err(format!(
            "field `snmp.{key}`: OLT {olt}: ${variable} is shorter than {MIN_PASSWORD_LEN} characters (RFC 3414)"
        )),
        Some(value) => Ok(value.into_encoded_bytes()),
    }
}

/// The credentials of an OLT's `snmp` table with `version = "3"`, or the inventory error
/// (without the line, which the caller adds).
pub fn credentials(olt: u32, spec: &SnmpSpec) -> Result<UsmCredentials, String> {
    let user = match spec.user.as_deref() {
        Some(user) if !user.trim().is_empty() => user.to_string(),
        _ => {
            return Err(format!(
                "field `snmp.user`: OLT {olt} uses SNMPv3 and needs a `user`"
            ))
        }
    };
    let auth = match spec.auth {
        None if spec.auth_password_env.is_some() => {
            return Err(format!(
                "field `snmp.auth`: OLT {olt} names `auth_password_env` but no `auth` protocol"
            ))
        }
        None => None,
        Some(protocol) => Some((
            protocol,
            password(olt, "auth_password_env", spec.auth_password_env.as_deref())?,
        )),
    };
    let privacy = match spec.privacy {
        None if spec.privacy_password_env.is_some() => {
            return Err(format!(
                "field `snmp.privacy`: OLT {olt} names `privacy_password_env` but no `privacy` protocol"
            ))
        }
        None => None,
        Some(_) if auth.is_none() => {
            return Err(format!(
                "field `snmp.privacy`: OLT {olt}: privacy needs authentication (`auth`) too"
            ))
        }
        Some(protocol) => Some((
            protocol,
            password(
                olt,
                "privacy_password_env",
                spec.privacy_password_env.as_deref(),
            )?,
        )),
    };
    Ok(UsmCredentials {
        user,
        auth,
        privacy,
        context: spec.context.clone(),
    })
}

/// v3 keys on an OLT that does not use v3 are a mistake worth naming.
pub fn check_unused(olt: u32, spec: &SnmpSpec) -> Result<(), String> {
    let named = [
        ("user", spec.user.is_some()),
        ("auth", spec.auth.is_some()),
        ("auth_password_env", spec.auth_password_env.is_some()),
        ("privacy", spec.privacy.is_some()),
        ("privacy_password_env", spec.privacy_password_env.is_some()),
        ("context", !spec.context.is_empty()),
    ];
    match named.iter().find(|(_, set)| *set) {
        Some((key, _)) => Err(format!(
            "field `snmp.{key}`: OLT {olt} sets an SNMPv3 key but its version is not \"3\""
        )),
        None => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::inventory::SnmpVersion;

    fn v3(auth: Option<&str>, privacy: Option<&str>) -> SnmpSpec {
        SnmpSpec {
            version: SnmpVersion::V3,
            user: Some("pk".into()),
            auth: Some(AuthProtocol::Sha256),
            auth_password_env: auth.map(str::to_string),
            privacy: Some(PrivProtocol::Aes),
            privacy_password_env: privacy.map(str::to_string),
            ..SnmpSpec::default()
        }
    }

    #[test]
    fn passwords_come_from_the_named_variables() {
        // These variable names are used by this test alone.
        std::env::set_var("PK_USM_TEST_AUTH", "authpass1");
        std::env::set_var("PK_USM_TEST_PRIV", "privpass1");
        std::env::set_var("PK_USM_TEST_SHORT", "short");
        let spec = v3(Some("PK_USM_TEST_AUTH"), Some("PK_USM_TEST_PRIV"));
        let got = credentials(7, &spec).expect("resolves");
        assert_eq!(got.user, "pk");
        assert_eq!(
            got.auth,
            Some((AuthProtocol::Sha256, b"authpass1".to_vec()))
        );
        assert_eq!(
            got.privacy,
            Some((PrivProtocol::Aes, b"privpass1".to_vec()))
        );
        assert_eq!(got.level(), "authPriv");
        assert!(!format!("{got:?}").contains("authpass1"), "never printed");

        let unset = v3(Some("PK_USM_TEST_AUTH"), Some("PK_USM_TEST_UNSET"));
        assert_eq!(
            credentials(7, &unset).expect_err("unset"),
            "field `snmp.privacy_password_env`: OLT 7 takes its SNMPv3 password from $PK_USM_TEST_UNSET, which is not set"
        );
        let short = v3(Some("PK_USM_TEST_SHORT"), Some("PK_USM_TEST_PRIV"));
        assert!(credentials(7, &short)
            .expect_err("short")
            .contains("shorter than 8 characters"));
        let no_env = v3(None, Some("PK_USM_TEST_PRIV"));
        assert!(credentials(7, &no_env)
            .expect_err("no env")
            .starts_with("field `snmp.auth_password_env`: OLT 7"));
        let privacy_alone = SnmpSpec {
            auth: None,
            auth_password_env: None,
            ..spec.clone()
        };
        assert!(credentials(7, &privacy_alone)
            .expect_err("priv without auth")
            .contains("privacy needs authentication"));
        let plain = SnmpSpec {
            auth: None,
            auth_password_env: None,
            privacy: None,
            privacy_password_env: None,
            ..spec
        };
        assert_eq!(
            credentials(7, &plain).expect("noAuthNoPriv").level(),
            "noAuthNoPriv"
        );
    }

    #[test]
    fn an_inventory_with_an_unset_password_variable_is_refused_naming_olt_and_key() {
        std::env::set_var("PK_USM_INV_AUTH", "authpass1");
        let text = r#"
[[olts]]
id = 3
ip = "10.0.0.3"
vendor = "huawei"
model = "MA5800-X7"
city = "Kazan"
snmp = { port = 161, version = "3", user = "pk", auth = "SHA256", auth_password_env = "PK_USM_INV_AUTH", privacy = "AES", privacy_password_env = "PK_USM_INV_UNSET", context = "" }
"#;
        assert_eq!(
            crate::inventory::Inventory::parse(text).expect_err("refused"),
            "line 2: field `snmp.privacy_password_env`: OLT 3 takes its SNMPv3 password from $PK_USM_INV_UNSET, which is not set"
        );
        std::env::set_var("PK_USM_INV_UNSET", "privpass1");
        let inventory = crate::inventory::Inventory::parse(text).expect("accepted once set");
        let olt = &inventory.olts[0];
        let credentials = olt.snmp.usm(olt.id).expect("resolves").expect("v3");
        assert_eq!(credentials.level(), "authPriv");
        assert_eq!(
            credentials.privacy,
            Some((PrivProtocol::Aes, b"privpass1".to_vec()))
        );
        let stray = text.replace("version = \"3\"", "version = \"2c\"");
        assert!(crate::inventory::Inventory::parse(&stray)
            .expect_err("v3 keys on v2c")
            .contains("field `snmp.user`: OLT 3 sets an SNMPv3 key but its version is not \"3\""));
    }
}
