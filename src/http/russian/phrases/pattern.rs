//! An English pattern of the phrase book and how a sentence fits it, in time linear in the
//! sentence. A pattern is fixed words and holes; the fixed words are anchored at both ends
//! (a pattern that starts or ends with words is ruled out by a prefix or suffix check
//! before anything is searched), and each hole ends at the earliest place its next words
//! occur: for holes that may hold any text that choice fits whenever any does (the usual
//! argument for `*` globs), so no split point is ever tried twice and nothing is copied
//! until the sentence is known to fit.
//!
//! What a client typed never becomes sentence structure: the service quotes a client's
//! text between backticks, escaping any backtick or backslash in it
//! ([`crate::http::query::echo`]), so fixed words are only found where the sentence's
//! backticks stand as the pattern's do (outside a quotation when the pattern's words are,
//! inside when they are), and every hole holds balanced quotations.

/// A piece of an English pattern.
#[derive(Debug, PartialEq)]
pub(super) enum Piece<'a> {
    /// Fixed words, and whether they start inside a quotation (after an odd number of
    /// the pattern's backticks).
    Words(&'a str, bool),
    /// A hole; `true` when it holds a sentence to translate.
    Hole(bool),
}

/// An English pattern cut into fixed words and holes.
#[derive(Debug)]
pub(super) struct Pattern<'a> {
    pub(super) pieces: Vec<Piece<'a>>,
    /// How many characters of the pattern are fixed words: of two patterns a sentence
    /// fits, the one with more wins.
    pub(super) fixed_length: usize,
}

/// A hole's value: where it lies in the sentence, and whether it is a sentence itself.
pub(super) type Hole = (std::ops::Range<usize>, bool);

impl<'a> Pattern<'a> {
    pub(super) fn parse(english: &'a str) -> Pattern<'a> {
        let mut pieces = Vec::new();
        let mut quoted = false;
        let mut words = |pieces: &mut Vec<Piece<'a>>, text: &'a str| {
            if !text.is_empty() {
                pieces.push(Piece::Words(text, quoted));
                quoted ^= text.bytes().filter(|&b| b == b'`').count() % 2 == 1;
            }
        };
        let mut rest = english;
        while let Some(at) = rest.find('{') {
            let (hole, nested) = if rest[at..].starts_with("{s}") {
                (3, true)
            } else if rest[at..].starts_with("{}") {
                (2, false)
            } else {
                break;
            };
            words(&mut pieces, &rest[..at]);
            pieces.push(Piece::Hole(nested));
            rest = &rest[at + hole..];
        }
        words(&mut pieces, rest);
        let fixed_length = pieces
            .iter()
            .map(|piece| match piece {
                Piece::Words(words, _) => words.chars().count(),
                Piece::Hole(_) => 0,
            })
            .sum();
        Pattern {
            pieces,
            fixed_length,
        }
    }

    /// The holes' values (each non-empty), when `sentence` fits the pattern.
    pub(super) fn fit(&self, sentence: &Quotations) -> Option<Vec<Hole>> {
        let text = sentence.text;
        // The anchors first: most patterns are ruled out here, in constant time.
        if let Some(Piece::Words(first, _)) = self.pieces.first() {
            if !text.starts_with(first) {
                return None;
            }
        }
        if let Some(Piece::Words(last, _)) = self.pieces.last() {
            if !text.ends_with(last) {
                return None;
            }
        }
        let mut holes = Vec::new();
        let mut at = 0;
        let mut open_hole: Option<bool> = None;
        for (index, piece) in self.pieces.iter().enumerate() {
            match *piece {
                Piece::Hole(nested) => open_hole = Some(nested),
                Piece::Words(words, quoted) => {
                    let last = index + 1 == self.pieces.len();
                    let found = match open_hole {
                        None if at == 0 => 0,
                        None => return None,
                        Some(_) if last => text.len() - words.len(),
                        Some(_) => sentence.find(words, quoted, at + 1)?,
                    };
                    if found < at + usize::from(open_hole.is_some())
                        || !sentence.stand_as(found, words, quoted)
                    {
                        return None;
                    }
                    if let Some(nested) = open_hole.take() {
                        holes.push((at..found, nested));
                    }
                    at = found + words.len();
                }
            }
        }
        match open_hole {
            Some(nested) if at < text.len() && sentence.balanced(at..text.len()) => {
                holes.push((at..text.len(), nested));
            }
            Some(_) => return None,
            None if at != text.len() => return None,
            None => {}
        }
        Some(holes)
    }
}

/// A sentence with where its quotations (between backticks) open and close; a backtick
/// after a backslash is part of a quoted value, not a quotation mark.
pub(super) struct Quotations<'t> {
    pub(super) text: &'t str,
    /// Whether byte `i` of the text lies inside a quotation, for `i` in `0..=len`.
    inside: Vec<bool>,
}

impl<'t> Quotations<'t> {
    pub(super) fn of(text: &'t str) -> Quotations<'t> {
        let mut inside = Vec::with_capacity(text.len() + 1);
        let (mut quoted, mut escaped) = (false, false);
        for byte in text.bytes() {
            inside.push(quoted);
            match byte {
                _ if escaped => escaped = false,
                b'\\' if quoted => escaped = true,
                b'`' => quoted = !quoted,
                _ => {}
            }
        }
        inside.push(quoted);
        Quotations { text, inside }
    }

    /// Whether the text in `range` holds whole quotations only.
    fn balanced(&self, range: std::ops::Range<usize>) -> bool {
        self.inside[range.start] == self.inside[range.end]
    }

    /// The first place at or after `from` where `words` stand as the pattern gives them.
    fn find(&self, words: &str, quoted: bool, mut from: usize) -> Option<usize> {
        loop {
            while !self.text.is_char_boundary(from) {
                from += 1;
            }
            let found = from + self.text.get(from..)?.find(words)?;
            if self.stand_as(found, words, quoted) {
                return Some(found);
            }
            from = found + 1;
        }
    }

    /// Whether `words` at `at` start inside a quotation exactly when the pattern's do
    /// (`quoted`), and the sentence's quotations within them open and close where the
    /// pattern's backticks stand (a backslash in a value could make one of them part of
    /// the value).
    fn stand_as(&self, at: usize, words: &str, mut quoted: bool) -> bool {
        self.inside[at] == quoted
            && words.bytes().enumerate().all(|(i, byte)| {
                if byte == b'`' {
                    quoted = !quoted;
                }
                self.inside[at + i + 1] == quoted
            })
    }
}
