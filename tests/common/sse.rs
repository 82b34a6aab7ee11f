//! Server-Sent Events as a test client reads them: an open response, and its messages one
//! at a time, keep-alive comments skipped.

use serde_json::Value;
use std::time::Duration;

/// An open SSE response and the text received but not parsed yet.
pub struct SseReader {
    response: reqwest::Response,
    pending: String,
}

impl SseReader {
    pub fn new(response: reqwest::Response) -> SseReader {
        SseReader {
            response,
            pending: String::new(),
        }
    }

    /// The next message as its `id:` and its `data:` as JSON; `None` when the stream
    /// ended. Panics when nothing arrives within `patience`.
    pub async fn next(&mut self, patience: Duration) -> Option<(String, Value)> {
        loop {
            if let Some(end) = self.pending.find("\n\n") {
                let block: String = self.pending.drain(..end + 2).collect();
                let (mut id, mut data) = (None, None);
                for line in block.lines() {
                    if let Some(v) = line.strip_prefix("id:") {
                        id = Some(v.trim().to_string());
                    } else if let Some(v) = line.strip_prefix("data:") {
                        data = Some(serde_json::from_str::<Value>(v.trim()).expect("JSON"));
                    }
                }
                match (id, data) {
                    (Some(id), Some(data)) => return Some((id, data)),
                    _ => continue, // a keep-alive comment
                }
            }
            let chunk = tokio::time::timeout(patience, self.response.chunk())
                .await
                .expect("a message in time")
                .expect("readable");
            self.pending
                .push_str(std::str::from_utf8(&chunk?).expect("UTF-8"));
        }
    }
}
