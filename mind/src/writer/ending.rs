//! Attaching a resident's ending to a clause by the clause's grammar, not by gluing.
//!
//! Japanese endings come in two sorts: closing marks (。！…) that follow anything, and words
//! (かな, かも, っす, 気がする) that need a clause ending in a plain predicate or a noun. A
//! clause that already closes with a sentence-final particle (かな, ね, よ…) or a mark takes
//! only a mark; 気がする follows a verb or an adjective (after そう it needs な); っす, かな and
//! かも drop a copula だ. English endings follow a clause that has no closing mark of its own; one that
//! already ends in ? or ! keeps it, and each sentence starts with a capital.

/// Closing marks of Japanese.
const JA_MARKS: &[char] = &['。', '！', '？', '…', '!', '?'];
/// Sentence-final particles after which a word ending cannot come.
const JA_FINAL: &[&str] = &[
    "かな",
    "かも",
    "ね",
    "よ",
    "な",
    "わ",
    "の",
    "よね",
    "っす",
    "です",
    "ます",
    "だろう",
    "でしょう",
];

/// The mark an ending closes with (。 when it has none).
fn ja_mark(ending: &str) -> &str {
    let word = ending.trim_end_matches(JA_MARKS);
    let mark = &ending[word.len()..];
    if mark.is_empty() {
        "。"
    } else {
        mark
    }
}

/// `clause` with `ending` attached, in Japanese.
pub fn ja(clause: &str, ending: &str) -> String {
    let clause = clause.trim();
    // An ending that opens with a mark ("。うまい！", "…。") follows any clause whole, unless the
    // clause closed itself already.
    let opens_with_mark = ending.starts_with(JA_MARKS);
    if clause.ends_with(JA_MARKS) {
        return if opens_with_mark {
            format!("{clause}{}", ending.trim_start_matches(JA_MARKS))
        } else {
            clause.to_owned()
        };
    }
    let word = ending.trim_end_matches(JA_MARKS);
    if opens_with_mark || word.is_empty() {
        return format!("{clause}{ending}");
    }
    if JA_FINAL.iter().any(|f| clause.ends_with(f)) {
        return format!("{clause}{}", ja_mark(ending));
    }
    if word.starts_with("気が") {
        if clause.ends_with("そう") {
            return format!("{clause}な{ending}");
        }
        // 気がする follows a verb's or an adjective's plain form: る, た, い, う-row endings.
        let plain = clause
            .chars()
            .last()
            .is_some_and(|c| "るたいうくすつむぶぬぐだ".contains(c));
        if !plain || clause.ends_with('だ') {
            return format!("{clause}{}", ja_mark(ending));
        }
        return format!("{clause}{ending}");
    }
    // A copula だ drops before っす, かな and かも (そうだ → そうかも).
    if ["っす", "かな", "かも"].iter().any(|w| word.starts_with(w)) {
        // …but not the だ of a past tense after ん (進んだ, 読んだ).
        if let Some(stem) = clause.strip_suffix('だ').filter(|s| !s.ends_with('ん')) {
            return format!("{stem}{ending}");
        }
    }
    format!("{clause}{ending}")
}

/// `clause` with `ending` attached and its first letter capitalised, in English.
pub fn en(clause: &str, ending: &str) -> String {
    let clause = clause.trim();
    // The first letter, past any opening quote.
    let mut out = String::with_capacity(clause.len() + ending.len());
    let mut done = false;
    for c in clause.chars() {
        if !done && c.is_alphabetic() {
            out.extend(c.to_uppercase());
            done = true;
        } else {
            done |= c.is_alphanumeric();
            out.push(c);
        }
    }
    let closed = out.ends_with(['.', '!', '?']);
    if !closed {
        out.push_str(ending);
    } else if let Some(rest) = ending.trim_start().strip_prefix('.') {
        // "Who's going?" + ". Worth it." keeps its own mark and the rest of the ending.
        if !rest.trim().is_empty() {
            out.push_str(rest);
        }
    } else if ending.trim_start().starts_with(char::is_alphanumeric) {
        out.push(' ');
        out.push_str(ending.trim_start());
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// One row per ending pattern the template residents use, and per kind of clause end.
    #[test]
    fn japanese_endings_follow_the_grammar_of_the_clause() {
        let cases = [
            // Marks follow anything.
            ("今日は晴れた", "。", "今日は晴れた。"),
            ("今日は晴れた", "！", "今日は晴れた！"),
            ("静かな夜", "…。", "静かな夜…。"),
            (
                "ラーメンを食べた",
                "。うまい！",
                "ラーメンを食べた。うまい！",
            ),
            // かな / かも after a plain form or a noun.
            ("少し進んだ", "かな。", "少し進んだかな。"),
            ("いい一日になりそう", "かも。", "いい一日になりそうかも。"),
            ("星がきれい", "かな。", "星がきれいかな。"),
            // …but not after a particle that already ends the sentence.
            ("顔を出してみようかな", "かな。", "顔を出してみようかな。"),
            ("また話そうね", "かも。", "また話そうね。"),
            // 気がする: after a verb or an adjective; そう takes な; a noun takes only the mark.
            (
                "いい一日になりそう",
                "気がする。",
                "いい一日になりそうな気がする。",
            ),
            (
                "少し上手になった",
                "気がする。",
                "少し上手になった気がする。",
            ),
            ("今日はついてる", "気がする。", "今日はついてる気がする。"),
            ("星がきれい", "気がする。", "星がきれい気がする。"),
            ("お昼休み", "気がする。", "お昼休み。"),
            ("今日は雨だ", "気がする。", "今日は雨だ。"),
            // っす, かな, かも: a copula だ is dropped.
            ("最高だ", "っす！", "最高っす！"),
            ("たしかにそうだ", "かも。", "たしかにそうかも。"),
            ("今日は雨だ", "かな。", "今日は雨かな。"),
            ("本を読んだ", "かも。", "本を読んだかも。"),
            ("ラーメンを食べた", "っす。", "ラーメンを食べたっす。"),
            // A clause that closed itself keeps its mark.
            ("誰か一緒に行く人いる？", "かな。", "誰か一緒に行く人いる？"),
            (
                "誰か一緒に行く人いる？",
                "。うまい！",
                "誰か一緒に行く人いる？うまい！",
            ),
        ];
        for (clause, ending, want) in cases {
            assert_eq!(ja(clause, ending), want, "{clause} + {ending}");
        }
    }

    #[test]
    fn english_sentences_are_capitalised_and_keep_their_own_marks() {
        let cases = [
            (
                "saw the news on the board",
                ".",
                "Saw the news on the board.",
            ),
            ("small wins", "!", "Small wins!"),
            ("deep breath", " :)", "Deep breath :)"),
            (
                "rode to the coast",
                ". Worth it.",
                "Rode to the coast. Worth it.",
            ),
            ("who's going?", ". Worth it.", "Who's going? Worth it."),
            ("who's going?", ".", "Who's going?"),
            ("who's going?", "!", "Who's going?"),
            (
                "\"market day\" is coming up",
                "...",
                "\"Market day\" is coming up...",
            ),
        ];
        for (clause, ending, want) in cases {
            assert_eq!(en(clause, ending), want, "{clause} + {ending}");
        }
    }
}
