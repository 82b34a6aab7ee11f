//! `[history] backend`: where the traffic and optics history is kept — `sled`, the local
//! store (the default), or `victoriametrics`, an outside VictoriaMetrics at `url`
//! (docs/operations.md, "History"), with basic auth read from the environment variables
//! `username_env` and `password_env` name (never from the file), and `backlog_max`, how
//! many bytes of unsent batches wait on disk while it is away ("1GB"; a byte size is a
//! number of bytes or one with a unit KB, MB, GB, TB, powers of 1024, KiB… alike).

use anyhow::{bail, Context};
use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// Which store keeps the history series.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Backend {
    /// The local store (`data_dir`), in tiers.
    #[default]
    Sled,
    /// An outside VictoriaMetrics, reached at `[history] url`.
    Victoriametrics,
}

/// A byte count written as `"1GB"`, `"512MB"`, `"100KiB"` or a bare number of bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct ByteSize(pub u64);

impl ByteSize {
    pub fn parse(text: &str) -> anyhow::Result<ByteSize> {
        let text = text.trim();
        let split = text
            .find(|c: char| !c.is_ascii_digit())
            .unwrap_or(text.len());
        let (digits, unit) = text.split_at(split);
        let number: u64 = digits
            .parse()
            .with_context(|| format!("`{text}` is not a byte size (e.g. \"1GB\", \"512MB\")"))?;
        let shift = match unit.trim().to_ascii_uppercase().as_str() {
            "" | "B" => 0,
            "K" | "KB" | "KIB" => 10,
            "M" | "MB" | "MIB" => 20,
            "G" | "GB" | "GIB" => 30,
            "T" | "TB" | "TIB" => 40,
            other => bail!("`{text}`: unknown unit `{other}` (B, KB, MB, GB or TB)"),
        };
        number
            .checked_mul(1 << shift)
            .map(ByteSize)
            .with_context(|| format!("`{text}` is too large"))
    }
}

impl Serialize for ByteSize {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(&self.0.to_string())
    }
}

impl<'de> Deserialize<'de> for ByteSize {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        #[derive(Deserialize)]
        #[serde(untagged)]
        enum Given {
            Bytes(u64),
            Text(String),
        }
        match Given::deserialize(deserializer)? {
            Given::Bytes(bytes) => Ok(ByteSize(bytes)),
            Given::Text(text) => ByteSize::parse(&text).map_err(serde::de::Error::custom),
        }
    }
}

/// The default `backlog_max`: 1 GiB.
pub const DEFAULT_BACKLOG_MAX: ByteSize = ByteSize(1 << 30);

/// Where and how to reach VictoriaMetrics, resolved from `[history]` and the environment.
#[derive(Clone)]
pub struct Victoria {
    /// Without a trailing slash.
    pub url: String,
    pub auth: Option<(String, String)>,
    pub backlog_max: u64,
}

impl std::fmt::Debug for Victoria {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Victoria")
            .field("url", &self.url)
            .field("auth", &self.auth.as_ref().map(|(user, _)| user))
            .field("backlog_max", &self.backlog_max)
            .finish()
    }
}

impl super::History {
    /// The backend keys: a `url` (http or https) exactly when the backend is
    /// victoriametrics, the two variable names together, a backlog of at least 1 MB.
    pub fn validate_backend(&self) -> anyhow::Result<()> {
        match (self.backend, &self.url) {
            (Backend::Victoriametrics, None) => bail!(
                "key `history.url`: needed with backend = \"victoriametrics\" (e.g. \"http://127.0.0.1:8428\")"
            ),
            (Backend::Victoriametrics, Some(url)) => {
                let parsed = reqwest::Url::parse(url)
                    .with_context(|| format!("key `history.url`: `{url}` is not a URL"))?;
                if !matches!(parsed.scheme(), "http" | "https") || parsed.host().is_none() {
                    bail!("key `history.url`: `{url}` must be an http:// or https:// URL with a host");
                }
            }
            (Backend::Sled, Some(_)) => {
                bail!("key `history.url`: only with backend = \"victoriametrics\"")
            }
            (Backend::Sled, None) => {}
        }
        if self.username_env.is_some() != self.password_env.is_some() {
            bail!("keys `history.username_env`, `history.password_env`: give both or neither");
        }
        for (key, name) in [
            ("username_env", &self.username_env),
            ("password_env", &self.password_env),
        ] {
            if name.as_deref().is_some_and(|n| n.trim().is_empty()) {
                bail!("key `history.{key}`: must name an environment variable");
            }
        }
        if self.backlog_max.0 < 1 << 20 {
            bail!("key `history.backlog_max`: must be at least 1MB");
        }
        Ok(())
    }

    /// The VictoriaMetrics to write to and read from, with the credentials read from the
    /// environment now; `None` with the sled backend. Fails when a named variable is
    /// unset.
    pub fn victoria(&self) -> anyhow::Result<Option<Victoria>> {
        let (Backend::Victoriametrics, Some(url)) = (self.backend, &self.url) else {
            return Ok(None);
        };
        let var = |key: &str, name: &str| {
            std::env::var(name).with_context(|| {
                format!("key `history.{key}`: environment variable {name} is not set")
            })
        };
        let auth = match (&self.username_env, &self.password_env) {
            (Some(user), Some(password)) => {
                Some((var("username_env", user)?, var("password_env", password)?))
            }
            _ => None,
        };
        Ok(Some(Victoria {
            url: url.trim_end_matches('/').to_string(),
            auth,
            backlog_max: self.backlog_max.0,
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_read_with_or_without_a_unit() {
        assert_eq!(ByteSize::parse("1GB").expect("size"), ByteSize(1 << 30));
        assert_eq!(
            ByteSize::parse("512 MiB").expect("size"),
            ByteSize(512 << 20)
        );
        assert_eq!(ByteSize::parse("4096").expect("size"), ByteSize(4096));
        assert!(ByteSize::parse("1PB").is_err());
        assert!(ByteSize::parse("GB").is_err());
    }

    #[test]
    fn the_backend_keys_are_checked() {
        let load = |text: &str| crate::config::tests::load_text(text).map_err(|e| format!("{e:#}"));
        let config = load("").expect("defaults");
        assert_eq!(config.history.backend, Backend::Sled);
        assert!(config.history.victoria().expect("none").is_none());
        let error = load("[history]\nbackend = \"victoriametrics\"\n").expect_err("no url");
        assert!(error.contains("history.url"), "{error}");
        let error = load("[history]\nurl = \"http://127.0.0.1:8428\"\n").expect_err("sled");
        assert!(error.contains("only with backend"), "{error}");
        let error = load("[history]\nbackend = \"victoriametrics\"\nurl = \"ftp://x\"\n")
            .expect_err("scheme");
        assert!(error.contains("http:// or https://"), "{error}");
        let error = load(
            "[history]\nbackend = \"victoriametrics\"\nurl = \"http://vm:8428\"\nusername_env = \"U\"\n",
        )
        .expect_err("half the auth");
        assert!(error.contains("give both or neither"), "{error}");
        let error = load(
            "[history]\nbackend = \"victoriametrics\"\nurl = \"http://vm:8428\"\nbacklog_max = \"10KB\"\n",
        )
        .expect_err("too small");
        assert!(error.contains("history.backlog_max"), "{error}");
        let config = load(
            "[history]\nbackend = \"victoriametrics\"\nurl = \"http://vm:8428/\"\nbacklog_max = \"2GB\"\n",
        )
        .expect("valid");
        let victoria = config.history.victoria().expect("read").expect("victoria");
        assert_eq!(victoria.url, "http://vm:8428");
        assert_eq!(victoria.backlog_max, 2 << 30);
        assert!(victoria.auth.is_none());
    }
}
