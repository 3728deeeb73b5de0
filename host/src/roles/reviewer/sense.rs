//! What an NG rule's description means, read from a draft: words that together break the rule
//! in one sentence ("all" + "immigrants", 「犯人」+「捕ま」), and ordinary senses masked first
//! ("club president", "murder mystery"), so a word used in its everyday sense is not a verdict.
//!
//! Words match as the brains' words do (`mind::brain::match_at`): English at word starts with
//! common endings, Japanese on the seams of its scripts, never inside another word.

use soul_mind::brain::features::normalize;
use soul_mind::brain::match_at;

/// One rule's evidence, compiled to the matcher's form.
#[derive(Debug, Clone, Default)]
pub(crate) struct Sense {
    /// Each entry: groups of words; one word of every group in one sentence breaks the rule.
    together: Vec<Vec<Vec<Vec<char>>>>,
    /// Phrases whose words are ordinary; they are blanked before anything is matched.
    ordinary: Vec<Vec<char>>,
    /// Words that put a whole sentence outside the rule ("mystery", 「推理小説」: a crime in a
    /// story is not a crime in town); such a sentence is blanked.
    unless: Vec<Vec<char>>,
}

impl Sense {
    /// Compiles `together` and `ordinary` as written in the rules file.
    pub(crate) fn new(
        together: &[Vec<Vec<String>>],
        ordinary: &[String],
        unless: &[String],
    ) -> Self {
        let form = |w: &String| normalize(w).chars().collect::<Vec<char>>();
        Self {
            together: together
                .iter()
                .map(|groups| {
                    groups
                        .iter()
                        .map(|g| g.iter().map(form).collect())
                        .collect()
                })
                .collect(),
            ordinary: ordinary.iter().map(form).collect(),
            unless: unless.iter().map(form).collect(),
        }
    }

    /// `text` normalised, with every ordinary phrase blanked out, and every sentence that a
    /// word of `unless` puts outside the rule: what the rules may read.
    pub(crate) fn masked(&self, text: &str) -> Vec<char> {
        let mut chars: Vec<char> = normalize(text).chars().collect();
        // Read before anything is blanked: an ordinary phrase may hold the context word.
        let outside: Vec<(usize, usize)> = sentences(&chars)
            .into_iter()
            .filter(|&(from, to)| {
                let sentence = &chars[from..to];
                self.unless.iter().any(|w| Self::contains(sentence, w))
            })
            .collect();
        for phrase in &self.ordinary {
            for start in 0..chars.len() {
                if let Some(end) = match_at(&chars, start, phrase) {
                    chars[start..end].iter_mut().for_each(|c| *c = ' ');
                }
            }
        }
        for (from, to) in outside {
            chars[from..to].iter_mut().for_each(|c| *c = ' ');
        }
        chars
    }

    /// The words of the first sentence in which every group of an entry has a word, joined.
    pub(crate) fn first_match(&self, masked: &[char]) -> Option<String> {
        for (from, to) in sentences(masked) {
            let sentence = &masked[from..to];
            for groups in &self.together {
                let found: Option<Vec<String>> =
                    groups.iter().map(|group| find(sentence, group)).collect();
                if let Some(words) = found {
                    return Some(words.join(" … "));
                }
            }
        }
        None
    }

    /// Whether `word` (normalised) is a word of `masked`.
    pub(crate) fn contains(masked: &[char], word: &[char]) -> bool {
        (0..masked.len()).any(|s| match_at(masked, s, word).is_some())
    }
}

/// The first word of `group` found in `sentence`, as written.
fn find(sentence: &[char], group: &[Vec<char>]) -> Option<String> {
    group.iter().find_map(|w| {
        (0..sentence.len())
            .find_map(|s| match_at(sentence, s, w).map(|e| sentence[s..e].iter().collect()))
    })
}

fn sentences(text: &[char]) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    let mut from = 0;
    for (i, c) in text.iter().enumerate() {
        if matches!(c, '.' | '!' | '?' | '\n' | '。' | '！' | '？') {
            out.push((from, i));
            from = i + 1;
        }
    }
    out.push((from, text.len()));
    out.retain(|(a, b)| a < b);
    out
}
