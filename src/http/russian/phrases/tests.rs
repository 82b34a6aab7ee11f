//! The phrase book held to its rules: patterns that parse, Russian that fills every hole
//! and holds no English word, and sentences the service says translated as a reader
//! expects, nested sentences included.

use super::pattern::{Pattern, Piece};
use super::{error_message, translate, PHRASES};
use crate::http::russian::foreign_words;

#[test]
fn every_pattern_parses_and_its_russian_fills_each_hole_once() {
    for (english, russian) in PHRASES {
        let pattern = Pattern::parse(english);
        let holes = pattern
            .pieces
            .iter()
            .filter(|p| matches!(p, Piece::Hole(_)))
            .count();
        let sides = pattern.pieces.windows(2);
        assert!(
            sides
                .into_iter()
                .all(|w| !matches!(w, [Piece::Hole(_), Piece::Hole(_)])),
            "{english}: two holes side by side"
        );
        for n in 1..=holes {
            assert_eq!(
                russian.matches(&format!("{{{n}}}")).count(),
                1,
                "{english}: hole {n} in {russian}"
            );
        }
        assert!(
            !russian.contains(&format!("{{{}}}", holes + 1)),
            "{english}: {russian} names a hole the English lacks"
        );
        let english_holes = english.matches("{}").count() + english.matches("{s}").count();
        assert_eq!(
            english_holes, holes,
            "{english}: a brace that is not a hole"
        );
    }
}

#[test]
fn no_russian_sentence_holds_an_english_word() {
    for (english, russian) in PHRASES {
        let words = foreign_words(russian);
        assert!(words.is_empty(), "{english} → {russian}: {words:?}");
    }
    // And the check itself sees English when it is there.
    assert_eq!(foreign_words("no OLT with id 7"), ["no", "with"]);
    assert!(foreign_words("нет `X-API-Key`, «% Unknown command.», 5s, 20ms, dBm").is_empty());
}

#[test]
fn sentences_are_translated_with_their_values_and_nested_sentences() {
    let cases = [
        ("no ONU with id 12 on this OLT", "на этом OLT нет ONU с id 12"),
        ("no ONU with id 12", "нет ONU с id 12"),
        (
            "parameter `size`: must be between 1 and 500, got 0",
            "параметр `size`: должен быть от 1 до 500, получено 0",
        ),
        (
            "field `description` may hold only ASCII letters, digits, spaces and `-_.,:/()+@=`; control character U+000A is not allowed",
            "поле `description` может содержать только латинские буквы, цифры, пробелы и `-_.,:/()+@=`; управляющий символ U+000A не допускается",
        ),
        (
            "field `name` may not hold bidirectional control U+202E",
            "поле `name` не может содержать символ управления направлением текста U+202E",
        ),
        (
            "a reboot of ONU 5 on OLT 2 is already running",
            "перезагрузка ONU 5 на OLT 2 уже выполняется",
        ),
        (
            "3 failed polls in a row, last: no answer within 2s (3 attempts)",
            "неудачных опросов подряд: 3, последний: нет ответа за 2s (попыток: 3)",
        ),
        (
            "the body is not the JSON this endpoint takes: missing field `serial` at line 1 column 2",
            "тело запроса — не тот JSON, что принимает этот адрес: нет поля `serial` (строка 1, столбец 2)",
        ),
    ];
    for (english, russian) in cases {
        assert_eq!(translate(english).as_deref(), Some(russian), "{english}");
    }
    assert_eq!(translate("something new entirely"), None);
}

#[test]
fn a_device_keeps_its_own_words_and_an_unknown_sentence_is_quoted_after_a_russian_lead() {
    assert_eq!(
        error_message("DEVICE_ERROR", "% Unknown command."),
        "Устройство ответило ошибкой: «% Unknown command.»"
    );
    assert_eq!(
        error_message("CONFLICT", "something new entirely"),
        "Конфликт: «something new entirely»"
    );
    assert_eq!(
        error_message("NOT_FOUND", "no OLT with id 9"),
        "нет OLT с id 9"
    );
}
