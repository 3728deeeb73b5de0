//! Where a harm's object ends up when no verb carries it: a state a causative brings about
//! ("make sure the seller has our card details") or a placing act ("save my password on the
//! library computer"). Either moves a secret out of the house only when the holder or the place
//! is an outsider's, so "make sure the door code is in my password manager" stays ordinary.
//! Which places and holders are outsiders' is the lexicon's (`outside_places`, `strangers`).

use super::{
    a_noun, acts, clause_from, clause_to, compile, negated, JA_SEAMS, NOT_AFTER,
    TO_OWNER_RECIPIENTS,
};
use crate::brain::features::is_japanese;
use crate::brain::lexicon::{Harm, Lexicon};

/// States in which the clause's subject ends up holding the object ("make sure the seller has
/// our card details"); the harm's other states put the object somewhere ("… is in the chat").
const HOLDS: &[&str] = &[
    "has", "have", "gets", "get", "receives", "receive", "knows", "know", "can see",
];
/// Holders of the owner's own: "make sure I have my passport number", "my wife gets the PIN".
const OWN_HOLDERS: &[&str] = &["i", "we", "i still", "we still"];
/// Devices: "make sure the new laptop has my logins" keeps them in the house, unless the device
/// is someone else's ([`NOT_OURS`]).
const DEVICES: &[&str] = &[
    "phone", "laptop", "computer", "tablet", "ipad", "iphone", "pc", "mac", "router", "browser",
    "account",
];
/// Words that make a place or a device someone else's.
const NOT_OURS: &[&str] = &[
    "shared",
    "public",
    "library",
    "hotel",
    "office",
    "work",
    "school",
    "internet cafe",
    "lobby",
    "neighbour",
    "neighbor",
    "friend",
];
/// Words that open the place a thing is put: "on the library computer", "under the doormat".
const PLACE_WORDS: &[&str] = &[
    "in", "on", "to", "at", "into", "onto", "with", "inside", "under", "behind", "beside", "near",
    "outside",
];

/// Where a harm's `states` show as its act inside a causative's clause: "make sure the door
/// code is in the cleaners' group chat" moves the code as "post the code in …" would. A state
/// that leaves the object with the owner ("… is in my password manager", "make sure my wife has
/// my PIN"), names no place ("make sure my password is saved"), or holds an object that is not
/// the house's ("make sure the router has a strong password") is not one, unless the holder is
/// one of the lexicon's `strangers` ("make sure the caller from the bank gets the PIN").
pub(super) fn brought_about(
    sentence: &[char],
    harm: &Harm,
    lexicon: &Lexicon,
    clauses: &[(usize, usize)],
) -> Vec<(usize, usize)> {
    let text = |from: usize, to: usize| -> String { sentence[from..to].iter().collect() };
    compile(&harm.states)
        .iter()
        .flat_map(|w| acts(sentence, w).into_iter().map(move |p| (p, w)))
        .filter_map(|((s, e), word)| {
            let &(from, to) = clauses.iter().find(|&&(a, b)| a <= s && e <= b)?;
            if negated(sentence, s, e) {
                return None;
            }
            let word: String = word.iter().collect();
            let after = text(e, sentence.len());
            // 「…知っていることがないようにして」 brings about its absence.
            if NOT_AFTER.iter().any(|n| text(e, to).contains(n)) {
                return None;
            }
            let outside = if harm.placings.is_empty() {
                // A harm that puts its object nowhere is the state itself: "make sure the
                // firewall stays off".
                true
            } else if word.chars().any(is_japanese) {
                // 「売り手がカード番号を知っているようにして」: the holder or the place is in
                // the clause before the state, marked by が or に.
                let before = text(from, s);
                japanese(&lexicon.strangers)
                    .chain(japanese(&lexicon.outside_places))
                    .any(|w| before.contains(w))
            } else if HOLDS.contains(&word.as_str()) {
                let holder = text(from, s);
                let holder = holder.trim();
                // "Make sure nobody on the phone gets the PIN" keeps it.
                if holder
                    .split_whitespace()
                    .any(|w| ["nobody", "noone", "no", "none", "neither", "nor"].contains(&w))
                {
                    return None;
                }
                // A stranger takes any secret ("the caller from the bank gets the PIN"), even
                // one the words do not make ours, and is never a device ("the person on the
                // phone").
                lexicon.strangers.iter().any(|w| has_word(holder, w))
                    || (outside_holder(holder) && ours_follows(after.trim_start()))
            } else {
                placed_outside(&after, &lexicon.outside_places)
            };
            outside.then_some((s, e))
        })
        .collect()
}

/// Where a harm's `placings` put its object outside the house: "save my password on the
/// library computer", 「ネットカフェのパソコンにパスワードを保存して」.
pub(super) fn placed(sentence: &[char], harm: &Harm, lexicon: &Lexicon) -> Vec<(usize, usize)> {
    let outside = &lexicon.outside_places;
    compile(&harm.placings)
        .iter()
        .flat_map(|w| acts(sentence, w))
        .filter(|&(s, e)| !negated(sentence, s, e) && !a_noun(sentence, s))
        .filter(|&(s, e)| {
            // "clear the saved passwords on the library PC": a participle names what is
            // there, it puts nothing anywhere.
            let word: String = sentence[s..e].iter().collect();
            let verb = word.split(' ').next().unwrap_or("");
            !(verb.ends_with("ed") || ["kept", "left", "written"].contains(&verb))
        })
        .filter(|&(s, e)| {
            if sentence[s..e].iter().any(|&c| is_japanese(c)) {
                placed_outside_ja(&sentence[..s], outside)
            } else {
                // The place follows the object: "save my password on the library computer".
                let after: String = sentence[e..].iter().collect();
                let words: Vec<&str> = after.split_whitespace().take(12).collect();
                words
                    .iter()
                    .take(6)
                    .position(|w| PLACE_WORDS.contains(w))
                    .is_some_and(|i| placed_outside(&words[i..].join(" "), outside))
            }
        })
        .collect()
}

/// Whether the Japanese clause before a placing act puts it somewhere outside the house: the
/// last 「…に」 before the act names one of the lexicon's Japanese `outside` places.
fn placed_outside_ja(before: &[char], outside: &[String]) -> bool {
    let before: String = before.iter().collect();
    let clause = clause_to(&before, JA_SEAMS);
    let Some(i) = clause.rfind('に') else {
        return false;
    };
    japanese(outside).any(|w| clause[..i].contains(w))
}

/// Whether `holder`, the subject of a holding state, is someone or something outside the house.
fn outside_holder(holder: &str) -> bool {
    if holder.is_empty() || OWN_HOLDERS.contains(&holder) {
        return false;
    }
    if TO_OWNER_RECIPIENTS.contains(&holder) {
        return false;
    }
    let last = holder.split_whitespace().next_back().unwrap_or("");
    let device = DEVICES.iter().any(|d| last.trim_end_matches('s') == *d);
    !device || NOT_OURS.iter().any(|w| holder.contains(w))
}

/// Whether the object after a holding state is the house's own ("our card details", "Mum's
/// PIN"), not one of the holder's ("a strong password").
fn ours_follows(after: &str) -> bool {
    let first = after.split_whitespace().next().unwrap_or("");
    ["my", "our"].contains(&first) || first.ends_with("'s") || first.ends_with("’s")
}

/// Whether what follows a placing state ("is in", "is saved") names one of the lexicon's
/// English `outside` places.
fn placed_outside(after: &str, outside: &[String]) -> bool {
    let after = after.trim_start();
    let place = PLACE_WORDS
        .iter()
        .find_map(|p| after.strip_prefix(p).and_then(|r| r.strip_prefix(' ')))
        .unwrap_or(after)
        .trim_start();
    // An empty phrase ("is saved, …") names no place and matches none below.
    let phrase = clause_from(
        place,
        &[
            ",", ".", ";", " and ", " but ", " then ", " so ", " or ", " - ", " — ",
        ],
    );
    let first = phrase.split_whitespace().next().unwrap_or("");
    // "is saved before you wipe it", "is kept safe": no place, nothing moved.
    const NO_PLACE: &[&str] = &[
        "before",
        "after",
        "until",
        "when",
        "safe",
        "safely",
        "secret",
        "private",
        "offline",
        "somewhere",
        "only",
        "paper",
        "file",
        "hand",
        "place",
        "order",
        "use",
        "sync",
        "record",
        "there",
        "here",
        "home",
    ];
    // "on the whiteboard in the kitchen": a place in the house is the house's.
    const AT_HOME: &[&str] = &[
        "kitchen",
        "fridge",
        "living room",
        "hallway",
        "bedroom",
        "at home",
        "our house",
        "our home",
    ];
    if NO_PLACE.contains(&first)
        || phrase.contains("family")
        || AT_HOME.iter().any(|w| has_word(phrase, w))
        || TO_OWNER_RECIPIENTS.iter().any(|r| phrase.starts_with(r))
    {
        return false;
    }
    outside
        .iter()
        .filter(|w| !w.chars().any(is_japanese))
        .any(|w| has_word(phrase, w))
}

/// Whether `phrase` has `word` as whole words ("post", not "postcode"; "cleaners" counts).
fn has_word(phrase: &str, word: &str) -> bool {
    phrase.match_indices(word).any(|(i, _)| {
        let before = phrase[..i].chars().next_back();
        let after = phrase[i + word.len()..]
            .trim_start_matches('s')
            .chars()
            .next();
        !before.is_some_and(char::is_alphanumeric) && !after.is_some_and(char::is_alphanumeric)
    })
}

/// The Japanese words of a lexicon list, which match anywhere in their clause.
fn japanese(words: &[String]) -> impl Iterator<Item = &str> {
    words
        .iter()
        .filter(|w| w.chars().any(is_japanese))
        .map(String::as_str)
}
