//! Raw HTTP/1.1 over TCP, so nothing in a client library tidies a request first: send
//! bytes as they are and read one answer (status, headers, body). Used by the tests that
//! send hostile or half-finished requests.

use super::TestService;
use serde_json::Value;
use std::net::SocketAddr;
use std::time::{Duration, Instant};
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

/// An HTTP/1.1 answer: status, lower-case headers and body.
#[derive(Debug)]
pub struct Answer {
    pub status: u16,
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
}

impl Answer {
    pub fn envelope(&self) -> Value {
        serde_json::from_slice(&self.body).unwrap_or_else(|e| {
            panic!(
                "status {} with a body that is not JSON ({e}): {:?}",
                self.status,
                String::from_utf8_lossy(&self.body)
            )
        })
    }

    /// Asserts the answer is the error envelope with `status` and `code`.
    pub fn assert_error(&self, status: u16, code: &str) {
        let body = self.envelope();
        assert_eq!(self.status, status, "{body}");
        assert_eq!(body["success"], false, "{body}");
        assert_eq!(body["error"]["code"], code, "{body}");
        assert!(body["error"]["message"]
            .as_str()
            .is_some_and(|m| !m.is_empty()));
        assert!(
            self.headers
                .iter()
                .any(|(k, v)| k == "content-type" && v.starts_with("application/json")),
            "{:?}",
            self.headers
        );
    }
}

pub fn addr(service: &TestService) -> SocketAddr {
    let authority = service
        .base
        .trim_start_matches("http://")
        .split('/')
        .next()
        .expect("authority");
    authority.parse().expect("socket address")
}

/// Sends `head` (request line and headers, without the blank line) and `body` as they are,
/// and reads one answer.
pub async fn raw(service: &TestService, head: &[u8], body: &[u8]) -> Answer {
    let mut stream = TcpStream::connect(addr(service)).await.expect("connect");
    let mut request = head.to_vec();
    request.extend_from_slice(b"\r\nConnection: close\r\n\r\n");
    request.extend_from_slice(body);
    // The server may answer (and close) before it has read a huge body: a failed write
    // is fine as long as an answer comes.
    let _ = stream.write_all(&request).await;
    let mut bytes = Vec::new();
    tokio::time::timeout(Duration::from_secs(10), async {
        let mut chunk = [0u8; 8192];
        loop {
            match stream.read(&mut chunk).await {
                Ok(0) | Err(_) => break,
                Ok(n) => bytes.extend_from_slice(&chunk[..n]),
            }
        }
    })
    .await
    .expect("an answer within 10 s");
    parse(&bytes)
}

pub fn parse(bytes: &[u8]) -> Answer {
    let split = bytes
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .unwrap_or_else(|| panic!("no HTTP answer: {:?}", String::from_utf8_lossy(bytes)));
    let head = String::from_utf8_lossy(&bytes[..split]);
    let mut lines = head.split("\r\n");
    let status = lines
        .next()
        .and_then(|l| l.split(' ').nth(1))
        .and_then(|s| s.parse().ok())
        .expect("status line");
    let headers: Vec<(String, String)> = lines
        .filter_map(|l| l.split_once(':'))
        .map(|(k, v)| (k.trim().to_ascii_lowercase(), v.trim().to_string()))
        .collect();
    let mut body = bytes[split + 4..].to_vec();
    if headers
        .iter()
        .any(|(k, v)| k == "transfer-encoding" && v.contains("chunked"))
    {
        body = unchunk(&body);
    }
    Answer {
        status,
        headers,
        body,
    }
}

pub fn unchunk(mut bytes: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    while let Some(end) = bytes.windows(2).position(|w| w == b"\r\n") {
        let size = usize::from_str_radix(String::from_utf8_lossy(&bytes[..end]).trim(), 16)
            .expect("chunk size");
        if size == 0 {
            break;
        }
        out.extend_from_slice(&bytes[end + 2..end + 2 + size]);
        bytes = &bytes[end + 2 + size + 2..];
    }
    out
}

pub fn head(method: &str, target: &[u8], key: &str, extra: &[&[u8]]) -> Vec<u8> {
    let mut head = Vec::new();
    head.extend_from_slice(method.as_bytes());
    head.push(b' ');
    head.extend_from_slice(b"/api/v1/external");
    head.extend_from_slice(target);
    head.extend_from_slice(b" HTTP/1.1\r\nHost: 127.0.0.1\r\nX-API-Key: ");
    head.extend_from_slice(key.as_bytes());
    for line in extra {
        head.extend_from_slice(b"\r\n");
        head.extend_from_slice(line);
    }
    head
}

pub fn json_post(target: &[u8], key: &str, body: &[u8]) -> Vec<u8> {
    let length = format!("Content-Length: {}", body.len());
    head(
        "POST",
        target,
        key,
        &[b"Content-Type: application/json", length.as_bytes()],
    )
}

/// `GET /whoami` on `stream` (with `key`, if any), kept alive unless the server says
/// otherwise: the status and the answer's head, lower-cased, its body read to the end.
pub async fn ask_whoami(stream: &mut TcpStream, key: Option<&str>) -> (u16, String) {
    let key = key.map_or(String::new(), |k| format!("X-API-Key: {k}\r\n"));
    let request = format!("GET /api/v1/external/whoami HTTP/1.1\r\nHost: x\r\n{key}\r\n");
    stream.write_all(request.as_bytes()).await.expect("sent");
    let mut bytes = Vec::new();
    let mut buffer = [0u8; 4096];
    loop {
        let n = tokio::time::timeout(Duration::from_secs(5), stream.read(&mut buffer))
            .await
            .expect("an answer within 5 s")
            .expect("read");
        assert!(n > 0, "closed before answering");
        bytes.extend_from_slice(&buffer[..n]);
        let Some(end) = bytes.windows(4).position(|w| w == b"\r\n\r\n") else {
            continue;
        };
        let answer = parse(&bytes);
        let length: usize = answer
            .headers
            .iter()
            .find(|(k, _)| k == "content-length")
            .and_then(|(_, v)| v.parse().ok())
            .expect("a content length");
        if bytes.len() >= end + 4 + length {
            let head = String::from_utf8_lossy(&bytes[..end]).to_lowercase();
            return (answer.status, head);
        }
    }
}

/// Reads from `stream` until the server closes it; how long that took, or `None` if it
/// was still open after `patience`.
pub async fn closed_within(
    stream: &mut (impl AsyncRead + Unpin),
    patience: Duration,
) -> Option<Duration> {
    let started = Instant::now();
    let mut buffer = [0u8; 4096];
    tokio::time::timeout(patience, async {
        loop {
            match stream.read(&mut buffer).await {
                Ok(0) | Err(_) => return started.elapsed(),
                Ok(_) => {}
            }
        }
    })
    .await
    .ok()
}
