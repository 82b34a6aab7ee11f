//! The Russian phrase book over the sentences that cost it most: a refusal quoting a
//! client's value of the longest length it translates (4,096 bytes) made of blanks,
//! backticks, backslashes and the book's own words, which a matcher trying every split
//! point paid for with about the fourth power of its length; a JSON error nested as
//! deep as the book follows; a value past the cap (60 KB, answered in English after a
//! Russian lead without a look at the patterns); and an everyday refusal for scale.
//! Each through `Language::Russian.say`, as the service's layer calls it.

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion};
use ponkeeper::http::russian::Language;
use std::hint::black_box;

/// `piece` repeated to `bytes` (at a character boundary).
fn repeated(piece: &str, bytes: usize) -> String {
    piece.repeat(bytes / piece.len() + 1)[..bytes].to_string()
}

fn sentences() -> Vec<(&'static str, String)> {
    let words = repeated("` at line 1 column 2 must be   {} ", 4000);
    let blanks = repeated(" \\` ", 4000);
    let nested = format!(
        "the body is not the JSON this endpoint takes: {} at line 1 column 2",
        repeated("invalid type: x, expected y at line 1 column 2 ", 3900)
    );
    vec![
        (
            "everyday",
            "parameter `size`: must be between 1 and 500, got 0".into(),
        ),
        (
            "words_4k",
            format!("parameter `mac`: no ONU with MAC `{words}`"),
        ),
        (
            "blanks_4k",
            format!("parameter `page`: must be an integer, got `{blanks}`"),
        ),
        ("nested_4k", nested),
        (
            "over_cap_60k",
            format!("no resource at /{}", repeated("` ", 60_000)),
        ),
    ]
}

fn phrase_book(c: &mut Criterion) {
    let mut group = c.benchmark_group("phrase_book");
    for (name, sentence) in sentences() {
        group.bench_with_input(BenchmarkId::from_parameter(name), &sentence, |b, s| {
            b.iter(|| Language::Russian.say(black_box(s)))
        });
    }
    group.finish();
}

criterion_group!(benches, phrase_book);
criterion_main!(benches);
