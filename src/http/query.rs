//! A request's query string as a type: each list declares its parameters once, as a struct
//! that [`Query`] deserializes, that `#[derive(IntoParams)]` documents in the OpenAPI
//! document and `#[derive(JsonSchema)]` turns into the input of the MCP tool calling it.
//!
//! The rules every parameter follows, whatever the struct: a value is trimmed; a parameter
//! given with an empty value (`size=`) or with spaces only (`q=%20`) is a mistake, not a
//! default, and so is a control character in a value (`q=%00`); a parameter given twice
//! is refused unless its field is a list
//! (`type=ONU_DOWN&type=ONU_UP`); parameters nobody declared are ignored. Every refusal is
//! `INVALID_PARAMETER` naming the parameter: `parameter `vlanId`: must be between 1 and
//! 4094, got 5000`. The value types here ([`Bounded`], [`LocalDateTime`]) carry their
//! range or shape in the type, so the document, the MCP schema and the check are one
//! declaration; free text is a `String`, closed sets are the domain enums.

use crate::error::ApiError;
use axum::extract::FromRequestParts;
use axum::http::request::Parts;
use schemars::JsonSchema;
use serde::de::{self, DeserializeOwned, IntoDeserializer, Visitor};
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::borrow::Cow;
use std::fmt;
use utoipa::ToSchema;

/// A query string deserialized into `T` under the rules above.
pub struct Query<T>(pub T);

impl<S: Send + Sync, T: DeserializeOwned> FromRequestParts<S> for Query<T> {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, _state: &S) -> Result<Self, ApiError> {
        parse_query(parts.uri.query()).map(Query)
    }
}

/// `raw` (the part after `?`) deserialized into `T`.
pub fn parse_query<T: DeserializeOwned>(raw: Option<&str>) -> Result<T, ApiError> {
    let params = pairs(raw.unwrap_or(""))?;
    T::deserialize(QueryDeserializer { params }).map_err(|e| ApiError::InvalidParameter(e.0))
}

/// The query's parameters in order of first appearance, each with its values, trimmed.
fn pairs(raw: &str) -> Result<Vec<(String, Vec<String>)>, ApiError> {
    let decoded: Vec<(String, String)> = serde_urlencoded::from_str(raw)
        .map_err(|e| ApiError::InvalidParameter(format!("the query string is malformed: {e}")))?;
    let mut params: Vec<(String, Vec<String>)> = Vec::new();
    for (name, value) in decoded {
        // `size=` is a mistake, not a default: a parameter is given a value or left out.
        let value = value.trim_matches(is_blank);
        if value.is_empty() {
            return Err(ApiError::InvalidParameter(format!(
                "parameter `{}` is empty or only spaces; give it a value or leave it out",
                echo(&name)
            )));
        }
        if value.chars().any(char::is_control) {
            return Err(ApiError::InvalidParameter(format!(
                "parameter `{}` holds a control character (such as NUL or a line break)",
                echo(&name)
            )));
        }
        let slot = match params.iter().position(|(known, _)| *known == name) {
            Some(at) => &mut params[at].1,
            None => {
                params.push((name, Vec::new()));
                &mut params.last_mut().expect("just pushed").1
            }
        };
        slot.push(value.to_string());
    }
    Ok(params)
}

/// What a value is trimmed of: white space, and the byte-order mark JSON Schema's `\s`
/// counts as space too (so [`TEXT_PATTERN`] and this check agree).
fn is_blank(c: char) -> bool {
    c.is_whitespace() || c == '\u{feff}'
}

/// What a free-text parameter's value must match, as the documents state it: no control
/// character, and something besides spaces.
pub const TEXT_PATTERN: &str =
    r"^[^\x00-\x1F\x7F-\x9F]*[^\s\x00-\x1F\x7F-\x9F][^\x00-\x1F\x7F-\x9F]*$";

/// A client's text as an error message quotes it: its first 64 characters, each backtick
/// and backslash in them escaped with a backslash, and `…` when there was more. Escaped,
/// nothing a client types can close the quotation around it or pass for the sentence's
/// own words when the message is translated (`src/http/russian/phrases/pattern.rs`).
pub fn echo(text: &str) -> Cow<'_, str> {
    let head = head(text);
    let cut = head.len() < text.len();
    if !cut && !head.contains(['`', '\\']) {
        return text.into();
    }
    let mut echoed = String::with_capacity(head.len() + 8);
    for c in head.chars() {
        if c == '`' || c == '\\' {
            echoed.push('\\');
        }
        echoed.push(c);
    }
    if cut {
        echoed.push('…');
    }
    echoed.into()
}

/// A client's text as a report shows it: its first 64 characters, and `…` when there was
/// more.
pub fn cut(text: &str) -> Cow<'_, str> {
    let head = head(text);
    match head.len() < text.len() {
        true => format!("{head}…").into(),
        false => text.into(),
    }
}

/// The first 64 characters of `text`.
fn head(text: &str) -> &str {
    match text.char_indices().nth(64) {
        Some((end, _)) => &text[..end],
        None => text,
    }
}

/// `unexpected` with any client text in it as [`echo`] quotes it, handed to `say`.
fn with_echoed<R>(unexpected: de::Unexpected<'_>, say: impl FnOnce(de::Unexpected<'_>) -> R) -> R {
    match unexpected {
        de::Unexpected::Str(text) => say(de::Unexpected::Str(&echo(text))),
        other => say(other),
    }
}

/// Why a query does not deserialize; the message is the client's.
#[derive(Debug)]
pub struct QueryError(String);

impl fmt::Display for QueryError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for QueryError {}

impl de::Error for QueryError {
    fn custom<M: fmt::Display>(message: M) -> Self {
        QueryError(message.to_string())
    }

    fn missing_field(field: &'static str) -> Self {
        QueryError(format!("parameter `{field}` is required"))
    }

    // serde's own messages for these quote the client's text whole; a list of variants
    // after 200 characters of it made a message past 512 bytes. The client's part is
    // echoed as every other message echoes it, in serde's wording.
    fn unknown_variant(variant: &str, expected: &'static [&'static str]) -> Self {
        QueryError(de::value::Error::unknown_variant(&echo(variant), expected).to_string())
    }

    fn invalid_value(unexpected: de::Unexpected<'_>, expected: &dyn de::Expected) -> Self {
        with_echoed(unexpected, |unexpected| {
            QueryError(de::value::Error::invalid_value(unexpected, expected).to_string())
        })
    }

    fn invalid_type(unexpected: de::Unexpected<'_>, expected: &dyn de::Expected) -> Self {
        with_echoed(unexpected, |unexpected| {
            QueryError(de::value::Error::invalid_type(unexpected, expected).to_string())
        })
    }
}

/// The whole query, a map from parameter names to their values.
struct QueryDeserializer {
    params: Vec<(String, Vec<String>)>,
}

impl<'de> Deserializer<'de> for QueryDeserializer {
    type Error = QueryError;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, QueryError> {
        visitor.visit_map(Parameters {
            params: self.params.into_iter(),
            current: None,
        })
    }

    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string bytes
        byte_buf option unit unit_struct newtype_struct seq tuple tuple_struct map struct
        enum identifier ignored_any
    }
}

/// The parameters one by one; a value's error is named after its parameter.
struct Parameters {
    params: std::vec::IntoIter<(String, Vec<String>)>,
    current: Option<(String, Vec<String>)>,
}

impl<'de> de::MapAccess<'de> for Parameters {
    type Error = QueryError;

    fn next_key_seed<K: de::DeserializeSeed<'de>>(
        &mut self,
        seed: K,
    ) -> Result<Option<K::Value>, QueryError> {
        let Some((name, values)) = self.params.next() else {
            return Ok(None);
        };
        let key = seed.deserialize(name.clone().into_deserializer())?;
        self.current = Some((name, values));
        Ok(Some(key))
    }

    fn next_value_seed<V: de::DeserializeSeed<'de>>(
        &mut self,
        seed: V,
    ) -> Result<V::Value, QueryError> {
        let (name, values) = self.current.take().expect("a key comes before its value");
        seed.deserialize(Values(&values))
            .map_err(|e| QueryError(format!("parameter `{}`: {}", echo(&name), e.0)))
    }
}

/// One parameter's values: a list for a list field, else exactly one text.
struct Values<'a>(&'a [String]);

impl<'a> Values<'a> {
    fn single(&self) -> Result<&'a str, QueryError> {
        match self.0 {
            [one] => Ok(one),
            _ => Err(QueryError("is given more than once".to_string())),
        }
    }
}

impl<'de> Deserializer<'de> for Values<'_> {
    type Error = QueryError;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, QueryError> {
        visitor.visit_str(self.single()?)
    }

    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, QueryError> {
        visitor.visit_some(self)
    }

    fn deserialize_seq<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, QueryError> {
        let items = self
            .0
            .iter()
            .map(|value| value.as_str().into_deserializer());
        visitor.visit_seq(de::value::SeqDeserializer::new(items))
    }

    fn deserialize_enum<V: Visitor<'de>>(
        self,
        _name: &'static str,
        _variants: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, QueryError> {
        let text: de::value::StrDeserializer<'_, QueryError> = self.single()?.into_deserializer();
        visitor.visit_enum(text)
    }

    fn deserialize_newtype_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        visitor: V,
    ) -> Result<V::Value, QueryError> {
        visitor.visit_newtype_struct(self)
    }

    /// A parameter nobody declared, however often given.
    fn deserialize_ignored_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, QueryError> {
        visitor.visit_unit()
    }

    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string bytes
        byte_buf unit unit_struct tuple tuple_struct map struct identifier
    }
}

/// An integer within `MIN..=MAX`, read from a query's text or a JSON number.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Bounded<const MIN: i64, const MAX: i64>(i64);

/// An id of 32 bits: OLTs, nodes, СЗО.
pub type Id32 = Bounded<0, 4_294_967_295>;
/// An ONU id or an event id: what a JSON number holds exactly (2^53 - 1).
pub type Id53 = Bounded<0, 9_007_199_254_740_991>;

impl<const MIN: i64, const MAX: i64> Bounded<MIN, MAX> {
    pub fn get(self) -> i64 {
        self.0
    }

    fn checked(value: i64) -> Result<Self, String> {
        if (MIN..=MAX).contains(&value) {
            Ok(Bounded(value))
        } else {
            Err(format!("must be between {MIN} and {MAX}, got {value}"))
        }
    }
}

impl Id32 {
    pub fn u32(self) -> u32 {
        self.0 as u32
    }
}

impl Id53 {
    pub fn u64(self) -> u64 {
        self.0 as u64
    }
}

impl<'de, const MIN: i64, const MAX: i64> Deserialize<'de> for Bounded<MIN, MAX> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Integer<const MIN: i64, const MAX: i64>;
        impl<const MIN: i64, const MAX: i64> Visitor<'_> for Integer<MIN, MAX> {
            type Value = Bounded<MIN, MAX>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                write!(f, "an integer between {MIN} and {MAX}")
            }
            fn visit_str<E: de::Error>(self, text: &str) -> Result<Self::Value, E> {
                let value: i64 = text
                    .parse()
                    .map_err(|_| E::custom(format!("must be an integer, got `{}`", echo(text))))?;
                Bounded::checked(value).map_err(E::custom)
            }
            fn visit_i64<E: de::Error>(self, value: i64) -> Result<Self::Value, E> {
                Bounded::checked(value).map_err(E::custom)
            }
            fn visit_u64<E: de::Error>(self, value: u64) -> Result<Self::Value, E> {
                let value = i64::try_from(value).map_err(|_| {
                    E::custom(format!("must be between {MIN} and {MAX}, got {value}"))
                })?;
                Bounded::checked(value).map_err(E::custom)
            }
        }
        deserializer.deserialize_any(Integer::<MIN, MAX>)
    }
}

impl<const MIN: i64, const MAX: i64> Serialize for Bounded<MIN, MAX> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_i64(self.0)
    }
}

impl<const MIN: i64, const MAX: i64> Bounded<MIN, MAX> {
    /// The document's schema of this integer: `int32` where the range fits it.
    pub fn documented() -> utoipa::openapi::schema::Object {
        use utoipa::openapi::schema::{KnownFormat, ObjectBuilder, SchemaFormat, Type};
        let fits_32 = MIN >= i64::from(i32::MIN) && MAX <= i64::from(i32::MAX);
        let format = if fits_32 {
            KnownFormat::Int32
        } else {
            KnownFormat::Int64
        };
        ObjectBuilder::new()
            .schema_type(Type::Integer)
            .format(Some(SchemaFormat::KnownFormat(format)))
            .minimum(Some(MIN as f64))
            .maximum(Some(MAX as f64))
            .build()
    }

    /// The same with the value taken when the parameter is left out.
    pub fn documented_with_default(default: i64) -> utoipa::openapi::schema::Object {
        let mut schema = Self::documented();
        schema.default = Some(default.into());
        schema
    }
}

impl<const MIN: i64, const MAX: i64> utoipa::PartialSchema for Bounded<MIN, MAX> {
    fn schema() -> utoipa::openapi::RefOr<utoipa::openapi::schema::Schema> {
        Self::documented().into()
    }
}

impl<const MIN: i64, const MAX: i64> utoipa::ToSchema for Bounded<MIN, MAX> {}

impl<const MIN: i64, const MAX: i64> schemars::JsonSchema for Bounded<MIN, MAX> {
    fn schema_name() -> Cow<'static, str> {
        format!("Integer_{MIN}_to_{MAX}").into()
    }

    fn inline_schema() -> bool {
        true
    }

    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({ "type": "integer", "minimum": MIN, "maximum": MAX })
    }
}

/// A local date-time in the service's zone as a client writes it: `2026-11-21T19:15:03`,
/// `2026-11-21T19:15` or `2026-11-21` (midnight), a real calendar date with two-digit
/// fields ([`crate::clock::read_local`]); which instant it names is the clock's to say.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LocalDateTime {
    text: String,
    local: chrono::NaiveDateTime,
}

/// The shapes [`LocalDateTime`] admits, as the documents state them.
const LOCAL_DATE_TIME: &str = r"^(?:[0-9]{4}-(?:(?:0[13578]|1[02])-(?:0[1-9]|[12][0-9]|3[01])|(?:0[469]|11)-(?:0[1-9]|[12][0-9]|30)|02-(?:0[1-9]|1[0-9]|2[0-8]))|(?:[0-9]{2}(?:0[48]|[2468][048]|[13579][26])|(?:[02468][048]|[13579][26])00)-02-29)(?:T(?:[01][0-9]|2[0-3]):[0-5][0-9](?::[0-5][0-9])?)?$";

impl LocalDateTime {
    /// The instant this names in `clock`'s zone.
    pub fn instant(&self, clock: &crate::clock::Clock) -> chrono::DateTime<chrono::Utc> {
        clock.instant_at(self.local)
    }
}

impl<'de> Deserialize<'de> for LocalDateTime {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let text = String::deserialize(deserializer)?;
        match crate::clock::read_local(&text) {
            Some(local) => Ok(LocalDateTime { text, local }),
            None => Err(de::Error::custom(format!(
                "must be a local date-time like 2026-11-21T19:15:03, got `{}`",
                echo(&text)
            ))),
        }
    }
}

impl Serialize for LocalDateTime {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(&self.text)
    }
}

/// What the documents say of a [`LocalDateTime`].
const LOCAL_DATE_TIME_MEANING: &str = "A local date-time without offset, in the service's configured time zone; the time (or\nits seconds) may be left out for midnight (or :00).";

impl utoipa::PartialSchema for LocalDateTime {
    fn schema() -> utoipa::openapi::RefOr<utoipa::openapi::schema::Schema> {
        use utoipa::openapi::schema::{ObjectBuilder, Type};
        ObjectBuilder::new()
            .schema_type(Type::String)
            .description(Some(LOCAL_DATE_TIME_MEANING))
            .pattern(Some(LOCAL_DATE_TIME))
            .examples([serde_json::json!("2026-11-21T19:15:03")])
            .into()
    }
}

impl utoipa::ToSchema for LocalDateTime {}

impl schemars::JsonSchema for LocalDateTime {
    fn schema_name() -> Cow<'static, str> {
        "LocalDateTime".into()
    }

    fn inline_schema() -> bool {
        true
    }

    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({
            "type": "string",
            "pattern": LOCAL_DATE_TIME,
            "description": LOCAL_DATE_TIME_MEANING,
        })
    }
}

/// A yes-or-no query parameter: `true` or `false`, as written in a URL.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize, ToSchema, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Flag {
    True,
    False,
}

impl Flag {
    pub fn yes(self) -> bool {
        self == Flag::True
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ponkeeper_actors::domain::SessionStatus;
    use ponkeeper_actors::events::EventType;
    use utoipa::PartialSchema;

    /// A query with a parameter of every kind.
    #[derive(Debug, Deserialize)]
    #[serde(rename_all = "camelCase")]
    struct Sample {
        q: Option<String>,
        vlan: Option<Bounded<1, 4094>>,
        status: Option<SessionStatus>,
        from: Option<LocalDateTime>,
        #[serde(rename = "type", default)]
        types: Vec<EventType>,
    }

    /// A query whose `to` must be given.
    #[derive(Debug, Deserialize)]
    struct Period {
        #[allow(unused)]
        to: LocalDateTime,
    }

    fn refusal<T: DeserializeOwned + fmt::Debug>(raw: &str) -> String {
        match parse_query::<T>(Some(raw)) {
            Err(ApiError::InvalidParameter(message)) => message,
            other => panic!("{raw}: {other:?}"),
        }
    }

    #[test]
    fn every_refusal_names_its_parameter_and_what_was_wrong() {
        let cases = [
            (
                "size=",
                "parameter `size` is empty or only spaces; give it a value",
            ),
            (
                "size=%20",
                "parameter `size` is empty or only spaces; give it a value",
            ),
            ("q=%00", "parameter `q` holds a control character"),
            ("q=a%0Ab", "parameter `q` holds a control character"),
            (
                "vlan=abc",
                "parameter `vlan`: must be an integer, got `abc`",
            ),
            (
                "vlan=5000",
                "parameter `vlan`: must be between 1 and 4094, got 5000",
            ),
            ("vlan=1&vlan=2", "parameter `vlan`: is given more than once"),
            ("status=LOST", "parameter `status`: unknown variant `LOST`"),
            (
                "from=2026-02-30",
                "parameter `from`: must be a local date-time like",
            ),
            (
                "type=ONU_DOWN&type=NOPE",
                "parameter `type`: unknown variant `NOPE`",
            ),
        ];
        for (raw, expected) in cases {
            let message = refusal::<Sample>(raw);
            assert!(message.starts_with(expected), "{raw}: {message}");
        }
        assert_eq!(refusal::<Period>(""), "parameter `to` is required");
    }

    #[test]
    fn a_long_unknown_variant_is_quoted_short() {
        let variant = "A".repeat(300);
        let message = refusal::<Sample>(&format!("type={variant}"));
        let quoted = format!(
            "parameter `type`: unknown variant `{}…`, expected one of `OLT_STATUS_CHANGED`",
            "A".repeat(64)
        );
        assert!(message.starts_with(&quoted), "{message}");
        assert!(message.len() < 512, "{} bytes: {message}", message.len());
    }

    #[test]
    fn values_are_trimmed_lists_repeat_and_strangers_are_ignored() {
        let sample: Sample = parse_query(Some(
            "q=%20abc%20&status=ONLINE&type=ONU_DOWN&type=ONU_UP&other=1&other=2",
        ))
        .expect("parsed");
        assert_eq!(sample.q.as_deref(), Some("abc"));
        assert!(sample.vlan.is_none());
        assert_eq!(sample.status, Some(SessionStatus::Online));
        assert_eq!(sample.types, [EventType::OnuDown, EventType::OnuUp]);
        assert!(sample.from.is_none());
    }

    /// The document's date-time pattern, without its anchors (proptest generates from it).
    fn date_time_pattern() -> String {
        let schema = serde_json::to_value(LocalDateTime::schema()).expect("schema serializes");
        let pattern = schema["pattern"].as_str().expect("a pattern");
        pattern
            .strip_prefix('^')
            .and_then(|p| p.strip_suffix('$'))
            .expect("an anchored pattern")
            .to_string()
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(1024))]

        /// Any query string is read or refused as INVALID_PARAMETER with a short message,
        /// and what is read is within its bounds.
        #[test]
        fn any_query_string_is_read_or_refused(
            raw in proptest::prop_oneof![
                "\\PC{0,200}",
                "((q|vlan|status|from|type)=[-+0-9a-zA-Z%:.T_]{0,24}&?){0,8}",
            ],
        ) {
            match parse_query::<Sample>(Some(&raw)) {
                Ok(sample) => {
                    if let Some(vlan) = sample.vlan {
                        proptest::prop_assert!((1..=4094).contains(&vlan.get()));
                    }
                }
                Err(ApiError::InvalidParameter(message)) => {
                    proptest::prop_assert!(!message.is_empty() && message.len() < 512, "{message}");
                }
                Err(other) => proptest::prop_assert!(false, "{other:?}"),
            }
        }

        /// Every date-time the document's pattern admits is one the service reads: no
        /// February 30th, no 29th in a common year.
        #[test]
        fn every_date_time_the_pattern_admits_is_read(
            text in proptest::string::string_regex(&date_time_pattern()).expect("a regex"),
        ) {
            proptest::prop_assert!(crate::clock::read_local(&text).is_some(), "{text}");
        }

        #[test]
        fn echoed_text_is_short_and_whole(text in "\\PC{0,300}") {
            let echoed = echo(&text);
            let mut unescaped = String::new();
            let mut escaped = false;
            for c in echoed.trim_end_matches('…').chars() {
                proptest::prop_assert!(escaped || c != '`', "{echoed}: a bare backtick");
                escaped = !escaped && c == '\\';
                if !escaped {
                    unescaped.push(c);
                }
            }
            proptest::prop_assert!(unescaped.chars().count() <= 64);
            proptest::prop_assert!(text.starts_with(&unescaped), "{echoed}");
        }
    }
}
