//! Standard Webhooks 1.0 signatures (docs/events.md): a secret is `whsec_` + base64 of 24–64
//! random bytes, and a delivery's `webhook-signature` is `v1,` + base64 of HMAC-SHA256,
//! keyed with those bytes, over `{webhook-id}.{webhook-timestamp}.{body}`. During a
//! rotation the variable holds two secrets separated by a space and each delivery carries
//! both signatures. [`crate::webhooks`] parses the secrets when it reads the config; its
//! delivery task signs the exact bytes it sends.

use base64::engine::general_purpose::STANDARD;
use base64::Engine;
use hmac::{Hmac, Mac};
use sha2::Sha256;

/// How to make a secret, for error messages.
pub const MAKE_ONE: &str = "make one with `echo whsec_$(openssl rand -base64 32)`";

/// The secrets of one webhook (one, or two during a rotation). `Debug` hides them.
#[derive(Clone)]
pub struct Secrets(Vec<Vec<u8>>);

impl std::fmt::Debug for Secrets {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Secrets({} hidden)", self.0.len())
    }
}

impl Secrets {
    /// Parses the value of a `secret_env` variable: one or two `whsec_` secrets.
    pub fn parse(value: &str) -> Result<Secrets, String> {
        let parts: Vec<&str> = value.split_whitespace().collect();
        if parts.is_empty() {
            return Err(format!("the variable is empty; {MAKE_ONE}"));
        }
        if parts.len() > 2 {
            return Err(format!(
                "holds {} secrets; at most two (old and new, during a rotation)",
                parts.len()
            ));
        }
        let keys = parts
            .iter()
            .map(|part| parse_one(part))
            .collect::<Result<Vec<_>, _>>()?;
        Ok(Secrets(keys))
    }

    /// The `webhook-signature` header value for `body` sent as `id` at `timestamp`.
    pub fn sign(&self, id: &str, timestamp: i64, body: &[u8]) -> String {
        self.0
            .iter()
            .map(|key| {
                let mut mac = <Hmac<Sha256> as Mac>::new_from_slice(key)
                    .expect("HMAC takes a key of any length");
                mac.update(id.as_bytes());
                mac.update(b".");
                mac.update(timestamp.to_string().as_bytes());
                mac.update(b".");
                mac.update(body);
                format!("v1,{}", STANDARD.encode(mac.finalize().into_bytes()))
            })
            .collect::<Vec<_>>()
            .join(" ")
    }
}

fn parse_one(secret: &str) -> Result<Vec<u8>, String> {
    let Some(encoded) = secret.strip_prefix("whsec_") else {
        return Err(format!("a secret must start with `whsec_`; {MAKE_ONE}"));
    };
    let key = STANDARD
        .decode(encoded)
        .map_err(|_| format!("the part after `whsec_` is not base64; {MAKE_ONE}"))?;
    if !(24..=64).contains(&key.len()) {
        return Err(format!(
            "the secret holds {} bytes; it must hold 24 to 64; {MAKE_ONE}",
            key.len()
        ));
    }
    Ok(key)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn signs_as_the_standard_webhooks_reference_does() {
        // The example of the Standard Webhooks specification's reference libraries.
        let secrets = Secrets::parse("whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw").expect("secret");
        let body = br#"{"test": 2432232314}"#;
        assert_eq!(
            secrets.sign("msg_p5jXN8AQM9LWM0D4loKWxJek", 1614265330, body),
            "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE="
        );
    }

    #[test]
    fn a_rotation_carries_both_signatures() {
        let old = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";
        let new = format!("whsec_{}", STANDARD.encode([7u8; 32]));
        let both = Secrets::parse(&format!("{old} {new}")).expect("two secrets");
        let signature = both.sign("5", 1_700_000_000, b"{}");
        let parts: Vec<&str> = signature.split(' ').collect();
        assert_eq!(parts.len(), 2);
        assert_eq!(
            parts[0],
            Secrets::parse(old)
                .expect("old")
                .sign("5", 1_700_000_000, b"{}")
        );
        assert_eq!(
            parts[1],
            Secrets::parse(&new)
                .expect("new")
                .sign("5", 1_700_000_000, b"{}")
        );
    }

    #[test]
    fn refuses_secrets_of_another_form() {
        let short = format!("whsec_{}", STANDARD.encode([1u8; 16]));
        let long = format!("whsec_{}", STANDARD.encode([1u8; 65]));
        for (value, reason) in [
            ("", "empty"),
            ("hunter2", "must start with `whsec_`"),
            ("whsec_not base64!", "not base64"),
            (
                "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw hunter2",
                "must start with `whsec_`",
            ),
            ("whsec_@@@@", "not base64"),
            (short.as_str(), "holds 16 bytes"),
            (long.as_str(), "holds 65 bytes"),
        ] {
            let error = Secrets::parse(value).expect_err(value);
            assert!(error.contains(reason), "{value}: {error}");
        }
        let three = format!("{short} {short} {short}");
        assert!(Secrets::parse(&three)
            .expect_err("three")
            .contains("at most two"));
    }
}
