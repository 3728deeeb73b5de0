//! Finding lexicon words in a task's normalised text.
//!
//! English words match at a word start and may take a common ending; short words must be whole;
//! Japanese words match where `segment` finds a word's seams. Longer words claim their characters first, so a word inside a
//! longer one (検証 in 未検証) is not read twice.

use super::features::{normalize, Category, Hit};
use super::lexicon::{Entry, Lexicon};
use super::{negation, segment};

/// Where each word of a concept was found, and the word as written.
type Places = Vec<(usize, String)>;

/// Word endings an English lexicon word may take ("backup" → "backups", "automate" → "automated").
const ENDINGS: &[&str] = &[
    "", "s", "es", "ed", "d", "ing", "er", "ers", "ly", "ion", "ions", "ation", "ations", "ment",
    "ments", "th", "ally", "ic", "ically", "al", "e", "y", "ies",
];

/// Every concept found, once, with the position of its first word. Longer words are matched first
/// and claim their characters, so 未検証 (unverified) is not also read as 検証 (verify).
pub(crate) fn find_hits(text: &[char], lexicon: &Lexicon) -> Vec<(usize, Hit)> {
    let categories = [
        Category::Risk,
        Category::Urgency,
        Category::Opportunity,
        Category::Safety,
    ];
    let mut words: Vec<(Category, &Entry, Vec<char>)> = Vec::new();
    for (category, (_, entries)) in categories.into_iter().zip(lexicon.lists()) {
        for entry in entries {
            for word in &entry.words {
                words.push((category, entry, normalize(word).chars().collect()));
            }
        }
    }
    words.sort_by_key(|(.., w)| std::cmp::Reverse(w.len()));
    let mut claimed = vec![false; text.len()];
    // (category, entry, every (position, word) found); one concept counts once.
    let mut found: Vec<(Category, &Entry, Places)> = Vec::new();
    let mut removed: Vec<(&Entry, Places)> = Vec::new();
    for (category, entry, word) in &words {
        for start in 0..text.len() {
            let Some(end) = match_at(text, start, word) else {
                continue;
            };
            if claimed[start..end].iter().any(|&c| c) {
                continue;
            }
            claimed[start..end].iter_mut().for_each(|c| *c = true);
            let at = (start, text[start..end].iter().collect::<String>());
            if *category == Category::Safety
                && !entry.disposable
                && negation::negated(text, start, end)
            {
                match removed.iter_mut().find(|(e, _)| e.id == entry.id) {
                    Some((_, places)) => places.push(at),
                    None => removed.push((entry, vec![at])),
                }
                continue;
            }
            match found
                .iter_mut()
                .find(|(c, e, _)| c == category && e.id == entry.id)
            {
                Some((.., places)) => places.push(at),
                None => found.push((*category, entry, vec![at])),
            }
        }
    }
    let mut hits: Vec<(usize, Hit)> = found
        .into_iter()
        .map(|(category, entry, places)| {
            let (at, words) = in_order(places);
            let hit = Hit {
                category,
                id: entry.id.clone(),
                words,
                weight: entry.weight,
                note: entry.note.clone(),
                step: entry.step.clone(),
            };
            (at, hit)
        })
        .collect();
    hits.extend(removed.into_iter().map(|(entry, places)| {
        let (at, words) = in_order(places);
        (at, negation::as_risk(entry, words))
    }));
    hits
}

/// The first position and the distinct words, in order of appearance.
fn in_order(mut places: Places) -> (usize, Vec<String>) {
    places.sort();
    let mut words: Vec<String> = Vec::new();
    for (_, w) in &places {
        if !words.contains(w) {
            words.push(w.clone());
        }
    }
    (places.first().map_or(0, |p| p.0), words)
}

/// Whether `ending` doubles `word`'s last consonant before a vowel ending, as English does after
/// a short vowel: stab → stabbed, rob → robbers, bet → betting.
fn doubled(word: &[char], ending: &str) -> bool {
    let vowel = |c: char| "aeiou".contains(c);
    let [.., v, c] = word else {
        return false;
    };
    let mut tail = ending.chars();
    tail.next() == Some(*c)
        && vowel(*v)
        && !vowel(*c)
        && !"wxy".contains(*c)
        && ["ed", "ing", "er", "ers"].contains(&tail.as_str())
}

/// Where `word` ends if it matches at `start`: English words start at a word boundary and may
/// take an ending (words of 3 letters or less must be whole); Japanese words must sit on
/// the seams `segment` finds.
pub fn match_at(text: &[char], start: usize, word: &[char]) -> Option<usize> {
    as_written(text, start, word)
}

/// [`match_at`] for a harm's act, whose first word may take a verb's ending too: "turn off"
/// reads in "make sure the firewall is turned off". Only acts: an object or a phrase that is
/// the harm by itself ("ask me", "bet on") names something only as the lexicon writes it, so
/// "Maya asked me to …" is no check and "I'm not betting on it" no bet.
pub(crate) fn match_act_at(text: &[char], start: usize, word: &[char]) -> Option<usize> {
    as_written(text, start, word).or_else(|| inflected_head(text, start, word))
}

/// Endings an English phrase's first word may take when the phrase is a verb and its particle
/// ("turn off" → "turned off", "turning off", "turns off").
const VERB_ENDINGS: &[&str] = &["s", "es", "ed", "d", "ing"];

/// Where an English phrase of several words ends if it matches at `start` with its first word
/// inflected: "make sure the firewall is turned off" does what "turn off" does, and "shut off"
/// reads in "shutting off". A final silent e gives way to "ing" ("leave on" → "leaving on").
fn inflected_head(text: &[char], start: usize, word: &[char]) -> Option<usize> {
    let space = word.iter().position(|&c| c == ' ')?;
    let (head, rest) = word.split_at(space);
    if head.len() < 3
        || !head.iter().all(char::is_ascii_alphabetic)
        || !rest.iter().all(char::is_ascii)
    {
        return None;
    }
    if start > 0 && text[start - 1].is_ascii_alphanumeric() {
        return None;
    }
    let silent_e = head.last() == Some(&'e');
    let stems: &[(&[char], &[&str])] = if silent_e {
        &[(head, VERB_ENDINGS), (&head[..head.len() - 1], &["ing"])]
    } else {
        &[(head, VERB_ENDINGS)]
    };
    stems.iter().find_map(|&(stem, endings)| {
        let end = start + stem.len();
        if end > text.len() || text[start..end] != *stem {
            return None;
        }
        let tail = text[end..]
            .iter()
            .take_while(|c| c.is_ascii_alphabetic())
            .count();
        let ending: String = text[end..end + tail].iter().collect();
        let doubled = doubled(stem, &ending) && ["ed", "ing"].contains(&&ending[1..]);
        if !(endings.contains(&ending.as_str()) || doubled) {
            return None;
        }
        as_written(text, end + tail, rest)
    })
}

/// Where `word` ends if it matches at `start` as the lexicon writes it, with an ending on its
/// last word only.
fn as_written(text: &[char], start: usize, word: &[char]) -> Option<usize> {
    let end = start + word.len();
    if word.is_empty() || end > text.len() || text[start..end] != *word {
        return None;
    }
    let alnum = |c: &char| c.is_ascii_alphanumeric();
    if word.first().is_some_and(alnum) && start > 0 && alnum(&text[start - 1]) {
        return None;
    }
    if !word.iter().all(char::is_ascii) && !segment::is_word(text, start, end) {
        return None;
    }
    if !word.last().is_some_and(alnum) {
        return Some(end);
    }
    let tail = text[end..]
        .iter()
        .take_while(|c| c.is_ascii_alphabetic())
        .count();
    let ending: String = text[end..end + tail].iter().collect();
    let digit_follows = text.get(end + tail).is_some_and(char::is_ascii_digit);
    let allowed = if word.len() <= 3 {
        ending.is_empty() || doubled(word, &ending)
    } else {
        ENDINGS.contains(&ending.as_str()) || doubled(word, &ending)
    };
    (allowed && !digit_follows).then_some(end + tail)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn finds(text: &str, word: &str) -> bool {
        let text: Vec<char> = text.chars().collect();
        let word: Vec<char> = word.chars().collect();
        (0..text.len()).any(|s| match_at(&text, s, &word).is_some())
    }

    fn finds_act(text: &str, word: &str) -> bool {
        let text: Vec<char> = text.chars().collect();
        let word: Vec<char> = word.chars().collect();
        (0..text.len()).any(|s| match_act_at(&text, s, &word).is_some())
    }

    #[test]
    fn a_phrasal_verb_takes_its_ending_on_the_verb() {
        for (text, phrase) in [
            ("make sure the firewall is turned off", "turn off"),
            ("try turning off the alarm", "turn off"),
            ("she turns off the camera", "turn off"),
            ("keep the parental controls switched off", "switch off"),
            ("shutting off the gas", "shut off"),
            ("leaving on the lights", "leave on"),
            ("we signed up yesterday", "sign up"),
        ] {
            assert!(finds_act(text, phrase), "{phrase} in {text}");
            assert!(!finds(text, phrase), "{phrase} in {text}: not as a word");
        }
        for (text, phrase) in [
            ("return off", "turn off"),
            ("turner off", "turn off"),
            ("turned offline", "turn off"),
            ("turnedoff", "turn off"),
            ("turned on", "turn off"),
        ] {
            assert!(!finds_act(text, phrase), "{phrase} in {text}");
        }
    }

    #[test]
    fn english_words_take_their_endings_and_a_doubled_consonant() {
        assert!(finds("someone stabbed a man", "stab"));
        assert!(finds("the robbers ran", "rob"));
        assert!(finds("betting on horses", "bet"));
        assert!(finds("backups of the photos", "backup"));
        // Not every letter after a word is an ending.
        assert!(!finds("a robin sang", "rob"));
        assert!(!finds("the stable door", "stab"));
        assert!(!finds("administer the server", "minister"));
    }
}
