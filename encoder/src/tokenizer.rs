//! Text to piece ids: the model's sentencepiece unigram tokenizer.
//!
//! Normalisation is sentencepiece's `nmt_nfkc`: NFKC, plus the few code points where the
//! model's precompiled charsmap disagrees with NFKC (whitespace and format characters become a
//! space; some characters newer than the charsmap stay as they are). That list comes from
//! `tools/convert_use.py --normalizer-diff`, which compares all of Unicode; every multi-character
//! rule of the charsmap agrees with NFKC. Then the whitespace rules: spaces are trimmed and
//! collapsed, and each word starts with U+2581. Segmentation is the unigram Viterbi, with a run
//! of characters no piece covers read as one `<unk>`, as sentencepiece does.

use std::borrow::Cow;

use unicode_normalization::UnicodeNormalization;

use crate::format::{Kind, Piece};

/// What sentencepiece adds to the lowest piece score to score an unknown character.
const UNKNOWN_PENALTY: f32 = 10.0;

/// The vocabulary, sorted by piece bytes (a piece's id is its index), and the special ids.
pub(crate) struct Vocab {
    pub text: Cow<'static, [u8]>,
    pub pieces: Vec<Piece>,
    pub unk: u32,
    pub bos: u32,
    pub eos: u32,
    /// Score of an unknown character: the untrimmed vocabulary's lowest score minus the penalty.
    pub unk_score: f32,
    /// Highest normal score, from which sentencepiece scores user-defined pieces.
    pub max_score: f32,
    /// Longest piece in bytes: no match is looked for beyond it.
    pub longest: usize,
}

impl Vocab {
    pub fn new(
        text: Cow<'static, [u8]>,
        pieces: Vec<Piece>,
        ids: [u32; 3],
        scores: [f32; 2],
    ) -> Self {
        let longest = pieces.iter().map(|p| p.len as usize).max().unwrap_or(0);
        let [unk, bos, eos] = ids;
        let [min_score, max_score] = scores;
        Vocab {
            text,
            pieces,
            unk,
            bos,
            eos,
            unk_score: min_score - UNKNOWN_PENALTY,
            max_score,
            longest,
        }
    }

    pub fn len(&self) -> usize {
        self.pieces.len()
    }

    /// The bytes of piece `id`.
    pub fn bytes(&self, id: usize) -> &[u8] {
        let p = self.pieces[id];
        &self.text[p.start as usize..p.start as usize + p.len as usize]
    }

    /// The text of piece `id` (checked to be UTF-8 when the file was read).
    pub fn piece(&self, id: u32) -> &str {
        std::str::from_utf8(self.bytes(id as usize)).unwrap_or("\u{FFFD}")
    }

    /// `<s>`, the pieces of `text`, `</s>`. Text that normalises to nothing reads as `<unk>`,
    /// as in the Python package the weights come from.
    pub fn encode(&self, text: &str) -> Vec<u32> {
        let normalized = normalize(text);
        let mut ids = vec![self.bos];
        if normalized.is_empty() {
            ids.push(self.unk);
        } else {
            self.segment(&normalized, &mut ids);
        }
        ids.push(self.eos);
        ids
    }

    /// Unigram Viterbi over `s`: the highest-scoring sequence of pieces that spells it.
    ///
    /// `best[i]` scores the best segmentation of `s[..i]` and `last[i]` is its final piece
    /// (start, id). Starts are visited left to right and a score must be strictly better to
    /// replace another, so ties go to the earliest start, as in sentencepiece.
    fn segment(&self, s: &str, ids: &mut Vec<u32>) {
        let bytes = s.as_bytes();
        let mut best = vec![f32::NEG_INFINITY; bytes.len() + 1];
        let mut last = vec![(0usize, 0u32); bytes.len() + 1];
        best[0] = 0.0;
        for (start, c) in s.char_indices() {
            let base = best[start];
            let one_char = start + c.len_utf8();
            let mut covered = false;
            let limit = bytes.len().min(start + self.longest);
            let ends = s[start..]
                .char_indices()
                .map(|(i, c)| start + i + c.len_utf8());
            for end in ends.take_while(|&end| end <= limit) {
                let key = &bytes[start..end];
                match self.find(key) {
                    Ok(id) => {
                        let Some(score) = self.score(id) else {
                            continue;
                        };
                        if base + score > best[end] {
                            best[end] = base + score;
                            last[end] = (start, id as u32);
                        }
                        covered |= end == one_char;
                    }
                    // No piece is longer than this key yet starts with it: stop looking.
                    Err(at) if at == self.len() || !self.bytes(at).starts_with(key) => break,
                    Err(_) => {}
                }
            }
            if !covered && base + self.unk_score > best[one_char] {
                best[one_char] = base + self.unk_score;
                last[one_char] = (start, self.unk);
            }
        }
        let first = ids.len();
        let mut end = bytes.len();
        while end > 0 {
            let (start, id) = last[end];
            ids.push(id);
            end = start;
        }
        ids[first..].reverse();
        let unk = self.unk;
        ids.dedup_by(|a, b| *a == unk && *b == unk);
    }

    fn find(&self, key: &[u8]) -> Result<usize, usize> {
        self.pieces.binary_search_by(|p| {
            self.text[p.start as usize..p.start as usize + p.len as usize].cmp(key)
        })
    }

    /// The score of matching piece `id`, or `None` if it never matches text.
    fn score(&self, id: usize) -> Option<f32> {
        let p = self.pieces[id];
        match p.kind {
            Kind::Normal => Some(p.score),
            Kind::UserDefined => Some(p.len as f32 * self.max_score - 0.1),
            Kind::Unknown | Kind::Control | Kind::Unused => None,
        }
    }
}

/// How the model's charsmap departs from NFKC for one character.
enum Fold {
    /// Read as a space (whitespace, format characters, U+2581 itself, U+FFFD).
    Space,
    /// Left as it is, where newer Unicode added an NFKC mapping the model never saw.
    Keep,
}

fn fold(c: char) -> Option<Fold> {
    match c {
        '\t' | '\n' | '\u{0C}' | '\r' | '\u{1680}' | '\u{200B}' | '\u{200E}' | '\u{200F}'
        | '\u{2028}' | '\u{2029}' | '\u{2581}' | '\u{FEFF}' | '\u{FFFD}' => Some(Fold::Space),
        '\u{32FF}'
        | '\u{A7F2}'..='\u{A7F4}'
        | '\u{AB69}'
        | '\u{FF5E}'
        | '\u{10781}'..='\u{107BA}'
        | '\u{1F16C}'
        | '\u{1FBF0}'..='\u{1FBF9}' => Some(Fold::Keep),
        _ => None,
    }
}

/// `text` as the model reads it: normalised, each word prefixed with U+2581, spaces gone.
pub(crate) fn normalize(text: &str) -> String {
    let mut folded = String::with_capacity(text.len());
    let mut run = 0;
    for (i, c) in text.char_indices() {
        if let Some(f) = fold(c) {
            folded.extend(text[run..i].nfkc());
            folded.push(match f {
                Fold::Space => ' ',
                Fold::Keep => c,
            });
            run = i + c.len_utf8();
        }
    }
    folded.extend(text[run..].nfkc());

    let mut out = String::with_capacity(folded.len() + 16);
    for word in folded.split(' ').filter(|w| !w.is_empty()) {
        out.push('\u{2581}');
        out.push_str(word);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::normalize;

    #[test]
    fn spaces_are_trimmed_collapsed_and_marked() {
        assert_eq!(normalize("  a  b\tc\n"), "▁a▁b▁c");
        assert_eq!(normalize(" \u{3000} "), "");
        assert_eq!(normalize(""), "");
    }

    #[test]
    fn nfkc_with_the_model_exceptions() {
        // Fullwidth letters and halfwidth katakana fold; the fullwidth tilde does not.
        assert_eq!(normalize("ＡＩﾌｧｲﾙ"), "▁AIファイル");
        assert_eq!(normalize("9時～18時"), "▁9時～18時");
        // A decomposed accent composes, and U+2581 in the input is a space.
        assert_eq!(normalize("e\u{301}\u{2581}x"), "▁é▁x");
    }
}
