//! Russian for clients that ask for it. A request whose `Accept-Language` prefers Russian
//! over English ([`Language::of`]) gets its error envelope's `message` in Russian (the
//! `code` never changes: programs match on it), and the handlers that return the service's
//! own sentences as data (event messages, session reasons) take the [`Language`] as an
//! extractor. The service writes its sentences in English
//! once, where they arise; [`in_russian`] translates a finished sentence against the
//! phrase book ([`phrases`]) — a pattern per sentence, its holes filled with the values
//! it named and, where a hole holds a sentence of its own, that sentence translated too.
//! A sentence the book does not know keeps its words, quoted after a Russian lead for its
//! code, so nothing is lost; the device's own words are always quoted as they came.

use crate::error::ErrorCode;
use axum::extract::Request;
use axum::http::header::{ACCEPT_LANGUAGE, CONTENT_LANGUAGE, CONTENT_LENGTH, VARY};
use axum::http::HeaderValue;
use axum::middleware::Next;
use axum::response::Response;

mod phrases;

/// The language a client reads: English unless its `Accept-Language` prefers Russian.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Language {
    #[default]
    English,
    Russian,
}

impl Language {
    /// Russian when an `Accept-Language` header ranks Russian above English (or names
    /// Russian and not English), else English.
    pub fn of(accept: Option<&str>) -> Language {
        let mut best = (Language::English, 0.0_f32);
        for entry in accept.unwrap_or("").split(',') {
            let mut parts = entry.split(';');
            let tag = parts.next().unwrap_or("").trim().to_ascii_lowercase();
            let quality = parts
                .find_map(|p| p.trim().strip_prefix("q=").map(str::to_owned))
                .and_then(|q| q.parse::<f32>().ok())
                .unwrap_or(1.0);
            let language = match tag.split('-').next() {
                Some("ru") => Language::Russian,
                Some("en") => Language::English,
                _ => continue,
            };
            if quality > best.1 {
                best = (language, quality);
            }
        }
        best.0
    }

    /// The language of a request's headers (its `Accept-Language`).
    pub fn of_headers(headers: &axum::http::HeaderMap) -> Language {
        Language::of(headers.get(ACCEPT_LANGUAGE).and_then(|v| v.to_str().ok()))
    }

    /// `sentence` in this language: as written in English, else translated.
    pub fn say(self, sentence: &str) -> String {
        match self {
            Language::English => sentence.to_string(),
            Language::Russian => phrases::translate(sentence).unwrap_or_else(|| sentence.into()),
        }
    }

    /// The ISO 639-1 code (`en`, `ru`): the operator page's `<html lang>`.
    pub fn code(self) -> &'static str {
        match self {
            Language::English => "en",
            Language::Russian => "ru",
        }
    }
}

/// A handler's reader: the language of the request's `Accept-Language`.
impl<S: Send + Sync> axum::extract::FromRequestParts<S> for Language {
    type Rejection = std::convert::Infallible;

    async fn from_request_parts(
        parts: &mut axum::http::request::Parts,
        _state: &S,
    ) -> Result<Self, Self::Rejection> {
        Ok(Language::of_headers(&parts.headers))
    }
}

/// The layer: when the request's [`Language`] is Russian, puts an error envelope's
/// `message` in Russian and says so (`Content-Language: ru`).
pub async fn in_russian(request: Request, next: Next) -> Response {
    let language = Language::of_headers(request.headers());
    let response = next.run(request).await;
    let Some(ErrorCode(code)) = response.extensions().get::<ErrorCode>().copied() else {
        return response;
    };
    let (mut parts, body) = response.into_parts();
    parts
        .headers
        .append(VARY, HeaderValue::from_static("accept-language"));
    if language == Language::English {
        return Response::from_parts(parts, body);
    }
    // An error's body is its envelope, already whole in memory: read it all, however
    // long its message ([`phrases::error_message`] cuts what it quotes).
    let bytes = match axum::body::to_bytes(body, usize::MAX).await {
        Ok(bytes) => bytes,
        Err(_) => return Response::from_parts(parts, axum::body::Body::empty()),
    };
    let Ok(mut envelope) = serde_json::from_slice::<serde_json::Value>(&bytes) else {
        return Response::from_parts(parts, bytes.into());
    };
    let Some(message) = envelope["error"]["message"].as_str() else {
        return Response::from_parts(parts, bytes.into());
    };
    envelope["error"]["message"] = phrases::error_message(code, message).into();
    parts.headers.remove(CONTENT_LENGTH);
    parts
        .headers
        .insert(CONTENT_LANGUAGE, HeaderValue::from_static("ru"));
    let body = serde_json::to_vec(&envelope).unwrap_or_else(|_| bytes.to_vec());
    Response::from_parts(parts, body.into())
}

/// The English words a Russian text still holds outside what is quoted as it came
/// (`code`, «a device's words»): what the tests hold the phrase book and the service's
/// Russian answers to. Abbreviations (OLT, VLAN, Rx), units (dBm, ms), identifiers
/// (`szo.history_retention`), paths and durations (`5s`) are not words.
pub fn foreign_words(text: &str) -> Vec<&str> {
    const NAMES: [&str; 8] = [
        "dBm",
        "MiB",
        "ms",
        "id",
        "Rx",
        "Tx",
        "sysObjectID",
        "sysDescr",
    ];
    let mut words = Vec::new();
    let mut quoted = None;
    let mut start = None;
    for (at, c) in text.char_indices().chain([(text.len(), ' ')]) {
        match (quoted, c) {
            (Some(close), c) if c == close => quoted = None,
            (Some(_), _) => {}
            (None, '`') => quoted = Some('`'),
            (None, '«') => quoted = Some('»'),
            _ => {}
        }
        let part_of_word = quoted.is_none() && (c.is_ascii_alphanumeric() || "_./+:-".contains(c));
        match (start, part_of_word) {
            (None, true) => start = Some(at),
            (Some(from), false) => {
                words.push(&text[from..at]);
                start = None;
            }
            _ => {}
        }
    }
    words.retain(|word| {
        let word = word.trim_matches(|c: char| ".:-".contains(c));
        let lower_run = word
            .as_bytes()
            .windows(2)
            .any(|w| w[0].is_ascii_alphabetic() && w[1].is_ascii_lowercase());
        let identifier = word.contains('_') || word.trim_matches('.').contains('.');
        let duration = word.starts_with(|c: char| c.is_ascii_digit());
        lower_run && !identifier && !duration && !word.starts_with('/') && !NAMES.contains(&word)
    });
    words
}

#[cfg(test)]
mod tests {
    use super::Language;

    #[test]
    fn the_language_is_the_preferred_of_english_and_russian() {
        let of = |header| Language::of(header).code();
        assert_eq!(of(None), "en");
        assert_eq!(of(Some("ru-RU,ru;q=0.9,en-US;q=0.8")), "ru");
        assert_eq!(of(Some("en-GB,en;q=0.9,ru;q=0.8")), "en");
        assert_eq!(of(Some("de-DE,ru;q=0.5")), "ru");
        assert_eq!(of(Some("de-DE,fr;q=0.5")), "en");
        assert_eq!(of(Some("ru;q=0.3, en;q=0.7")), "en");
        assert_eq!(of(Some("garbage;;;q=x,ru")), "ru");
    }

    #[test]
    fn a_russian_reader_gets_the_sentence_translated_and_the_english_one_as_written() {
        let sentence = "no OLT with id 7";
        assert_eq!(Language::English.say(sentence), sentence);
        assert_eq!(Language::Russian.say(sentence), "нет OLT с id 7");
    }
}
