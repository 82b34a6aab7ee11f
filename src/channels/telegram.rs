//! A Telegram channel: the Bot API's `sendMessage` (`POST {api_url}/bot{token}/sendMessage`
//! with `chat_id` and `text`), plain text so nothing in an alarm can be read as markup,
//! to each chat of the channel. A chat that took the message is not sent it again when
//! another fails; `429 Too Many Requests` waits the `retry_after` Telegram names. The
//! token is never written to a log: errors are told without the URL that holds it.

use super::{secret, ChatId, NotifyConfig, TELEGRAM_API};
use std::time::Duration;

/// Telegram's longest message, in characters.
const MAX_TEXT: usize = 4096;

pub struct Bot {
    base: reqwest::Url,
    token: String,
    chat_ids: Vec<ChatId>,
    client: reqwest::Client,
}

/// Why a send failed, and how long Telegram asked to wait, if it did.
#[derive(Debug)]
pub struct Refused {
    pub reason: String,
    pub retry_after: Option<Duration>,
}

impl Bot {
    pub fn resolve(entry: &NotifyConfig) -> Result<Bot, String> {
        let token = secret("token_env", entry.token_env.as_deref())?;
        let variable = entry.token_env.as_deref().unwrap_or_default();
        let well_formed = token.split_once(':').is_some_and(|(bot, key)| {
            !bot.is_empty()
                && bot.bytes().all(|b| b.is_ascii_digit())
                && !key.is_empty()
                && key
                    .bytes()
                    .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
        });
        if !well_formed {
            return Err(format!(
                "key `token_env`: `{variable}` holds no bot token (digits, a colon, then letters, digits, _ and -, as @BotFather gives it)"
            ));
        }
        if entry.chat_ids.is_empty() {
            return Err("key `chat_ids`: name at least one chat".into());
        }
        let api_url = entry.api_url.as_deref().unwrap_or(TELEGRAM_API);
        let base = reqwest::Url::parse(api_url)
            .ok()
            .filter(|u| matches!(u.scheme(), "http" | "https") && u.host_str().is_some())
            .ok_or_else(|| {
                format!("key `api_url`: `{api_url}` is not an http:// or https:// URL with a host")
            })?;
        Ok(Bot {
            base,
            token,
            chat_ids: entry.chat_ids.clone(),
            client: crate::webhooks::delivery::client().map_err(|e| e.to_string())?,
        })
    }

    /// How many chats each message goes to.
    pub fn chats(&self) -> usize {
        self.chat_ids.len()
    }

    /// Sends `text` to chat number `chat` of the channel.
    pub async fn send(&self, chat: usize, text: &str) -> Result<(), Refused> {
        let refused = |reason: String| Refused {
            reason,
            retry_after: None,
        };
        let mut url = self.base.clone();
        let path = format!(
            "{}/bot{}/sendMessage",
            url.path().trim_end_matches('/'),
            self.token
        );
        url.set_path(&path);
        let chat_id = match &self.chat_ids[chat] {
            ChatId::Number(n) => serde_json::json!(n),
            ChatId::Name(name) => serde_json::json!(name),
        };
        let body = serde_json::json!({
            "chat_id": chat_id,
            "text": clip(text),
            "disable_web_page_preview": true,
        });
        let response = self
            .client
            .post(url)
            .json(&body)
            .send()
            .await
            .map_err(|e| refused(crate::webhooks::delivery::describe(&e.without_url())))?;
        let status = response.status();
        let answer = answer_of(response).await;
        if status.is_success() && answer["ok"] == true {
            return Ok(());
        }
        let said = answer["description"].as_str().unwrap_or("no description");
        Err(Refused {
            reason: format!("the Bot API answered {status}: {said}"),
            retry_after: answer["parameters"]["retry_after"]
                .as_u64()
                .map(Duration::from_secs),
        })
    }
}

/// The most of a Bot API answer read: its answers are a few hundred bytes, and an
/// endpoint (or a proxy standing in) that sends megabytes must not make the channel
/// hold them.
const MOST_ANSWER: usize = 64 * 1024;

/// The JSON of `response`, read up to [`MOST_ANSWER`] bytes; a longer or broken answer
/// is one without fields (the caller says "no description" and backs off on its own).
async fn answer_of(mut response: reqwest::Response) -> serde_json::Value {
    let mut body = Vec::new();
    while let Ok(Some(chunk)) = response.chunk().await {
        if body.len() + chunk.len() > MOST_ANSWER {
            return serde_json::json!({ "description": "an answer over 64 KiB, not read" });
        }
        body.extend_from_slice(&chunk);
    }
    serde_json::from_slice(&body).unwrap_or_default()
}

/// `text` cut to Telegram's limit, with an ellipsis where it was cut.
fn clip(text: &str) -> String {
    if text.chars().count() <= MAX_TEXT {
        return text.to_string();
    }
    let mut clipped: String = text.chars().take(MAX_TEXT - 1).collect();
    clipped.push('…');
    clipped
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn long_texts_are_cut_to_telegrams_limit() {
        let long = "а".repeat(5000);
        let cut = clip(&long);
        assert_eq!(cut.chars().count(), MAX_TEXT);
        assert!(cut.ends_with('…'));
        assert_eq!(clip("short"), "short");
    }
}
