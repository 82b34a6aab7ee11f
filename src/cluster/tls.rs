//! TLS between members, mutual: each member holds a certificate its cluster's CA signed,
//! with the member's name as a DNS name; a member that connects checks the other's
//! certificate against the CA and the peer's configured name, and the member that accepts
//! takes only a client certificate the same CA signed. The files are PEM, named in
//! `[cluster.tls]`; the cookie still authenticates each link inside the TLS session.
//! rustls with the aws-lc-rs provider, as ractor_cluster's own TLS modes use.

use anyhow::{anyhow, Context};
use ractor_cluster::{BoxRead, BoxWrite, ClusterBidiStream};
use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, PrivateKeyDer, ServerName};
use rustls::server::WebPkiClientVerifier;
use rustls::{ClientConfig, RootCertStore, ServerConfig};
use serde::{Deserialize, Serialize};
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;
use tokio::net::TcpStream;
use tokio_rustls::{TlsAcceptor, TlsConnector};

/// `[cluster.tls]`: this member's certificate chain and key, and the CA that signs every
/// member's certificate (PEM files).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TlsFiles {
    pub cert: PathBuf,
    pub key: PathBuf,
    pub ca: PathBuf,
}

/// Both ends of a member's TLS.
#[derive(Clone)]
pub struct MemberTls {
    pub acceptor: TlsAcceptor,
    pub connector: TlsConnector,
}

fn provider() -> Arc<rustls::crypto::CryptoProvider> {
    Arc::new(rustls::crypto::aws_lc_rs::default_provider())
}

fn certificates(path: &Path) -> anyhow::Result<Vec<CertificateDer<'static>>> {
    let certs = CertificateDer::pem_file_iter(path)
        .with_context(|| format!("cannot read {}", path.display()))?
        .collect::<Result<Vec<_>, _>>()
        .with_context(|| format!("{} is not PEM certificates", path.display()))?;
    if certs.is_empty() {
        return Err(anyhow!("{} holds no certificate", path.display()));
    }
    Ok(certs)
}

impl MemberTls {
    /// Reads the files and builds both ends; any file missing or wrong is an error that
    /// names it.
    pub fn load(files: &TlsFiles) -> anyhow::Result<MemberTls> {
        let chain = certificates(&files.cert)?;
        let key = PrivateKeyDer::from_pem_file(&files.key)
            .with_context(|| format!("cannot read a private key from {}", files.key.display()))?;
        let mut roots = RootCertStore::empty();
        for ca in certificates(&files.ca)? {
            roots
                .add(ca)
                .with_context(|| format!("{} is not a usable CA", files.ca.display()))?;
        }
        let roots = Arc::new(roots);
        let verifier = WebPkiClientVerifier::builder_with_provider(roots.clone(), provider())
            .build()
            .context("cannot check members' certificates against the CA")?;
        let server = ServerConfig::builder_with_provider(provider())
            .with_safe_default_protocol_versions()?
            .with_client_cert_verifier(verifier)
            .with_single_cert(chain.clone(), key.clone_key())
            .context("the member's certificate and key do not go together")?;
        let client = ClientConfig::builder_with_provider(provider())
            .with_safe_default_protocol_versions()?
            .with_root_certificates(roots)
            .with_client_auth_cert(chain, key)
            .context("the member's certificate and key do not go together")?;
        Ok(MemberTls {
            acceptor: TlsAcceptor::from(Arc::new(server)),
            connector: TlsConnector::from(Arc::new(client)),
        })
    }

    /// Connects to the member `name` at `address` over TLS within `timeout`.
    pub async fn connect(
        &self,
        name: &str,
        address: SocketAddr,
        timeout: Duration,
    ) -> anyhow::Result<Stream> {
        let server_name = ServerName::try_from(name.to_string()).map_err(|_| {
            anyhow!("member name `{name}` is not a DNS name a certificate can hold")
        })?;
        let connect = async {
            let tcp = TcpStream::connect(address).await?;
            tcp.set_nodelay(true)?;
            let local = tcp.local_addr().ok();
            let tls = self.connector.connect(server_name, tcp).await?;
            Ok::<_, std::io::Error>((tls, local))
        };
        let (tls, local) = tokio::time::timeout(timeout, connect)
            .await
            .map_err(|_| anyhow!("no TLS session with {address} within {timeout:?}"))??;
        let (read, write) = tokio::io::split(tls);
        Ok(Stream {
            read: Box::new(read),
            write: Box::new(write),
            peer: address.to_string(),
            local: local.map(|a| a.to_string()),
        })
    }
}

/// A connection's halves, ready for ractor_cluster's node server (an external stream),
/// labelled with the peer's address.
pub struct Stream {
    pub read: BoxRead,
    pub write: BoxWrite,
    pub peer: String,
    pub local: Option<String>,
}

impl ClusterBidiStream for Stream {
    fn split(self: Box<Self>) -> (BoxRead, BoxWrite) {
        (self.read, self.write)
    }

    fn peer_label(&self) -> Option<String> {
        Some(self.peer.clone())
    }

    fn local_label(&self) -> Option<String> {
        self.local.clone()
    }
}
