//! A Server-Sent Events client for `bench events`: one `GET /events/stream` connection,
//! read message by message as any SSE library would, yielding each message's `data`.

use anyhow::{bail, Context};
use std::time::Instant;

/// One open stream and the bytes received but not yet read as messages.
pub struct SseReader {
    response: reqwest::Response,
    buffer: Vec<u8>,
}

impl SseReader {
    /// Opens the stream with `query` (the filters of `GET /events`).
    pub async fn open(
        client: &reqwest::Client,
        base: &str,
        key: &str,
        query: &str,
    ) -> anyhow::Result<SseReader> {
        let response = client
            .get(format!("{base}/events/stream?{query}"))
            .header("X-API-Key", key)
            .send()
            .await
            .context("cannot open /events/stream")?;
        if !response.status().is_success() {
            bail!("/events/stream answered {}", response.status());
        }
        Ok(SseReader {
            response,
            buffer: Vec::new(),
        })
    }

    /// The next message's data; `None` when the server ended the stream. Comment lines
    /// (keep-alives) are skipped; past `deadline` it is an error.
    pub async fn next_data(&mut self, deadline: Instant) -> anyhow::Result<Option<String>> {
        loop {
            while let Some(end) = self.buffer.windows(2).position(|w| w == b"\n\n") {
                let bytes: Vec<u8> = self.buffer.drain(..end + 2).collect();
                let message = String::from_utf8_lossy(&bytes);
                let data: Vec<&str> = message
                    .lines()
                    .filter_map(|l| l.strip_prefix("data:"))
                    .map(|d| d.strip_prefix(' ').unwrap_or(d))
                    .collect();
                if !data.is_empty() {
                    return Ok(Some(data.join("\n")));
                }
            }
            let wait = deadline.saturating_duration_since(Instant::now());
            let chunk = tokio::time::timeout(wait, self.response.chunk())
                .await
                .context("no event before the deadline")??;
            match chunk {
                Some(bytes) => self.buffer.extend_from_slice(&bytes),
                None => return Ok(None),
            }
        }
    }
}
