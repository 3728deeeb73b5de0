//! Safeguards that a task removes: "delete the backups", "without tests", 「テストなしで」.
//!
//! A safety word next to a negation is not a safeguard but its absence, so features reads it as a
//! risk. Only a few words around the match are looked at, because a negation further away is
//! usually about something else ("delete old files after a backup").

use super::lexicon::{Entry, Text};

/// English words that, among the 3 words before a safety word, negate it.
const BEFORE: &[&str] = &[
    "without",
    "no",
    "skip",
    "skipping",
    "disable",
    "disabling",
    "off",
    "stop",
    "stopping",
    "delete",
    "deleting",
    "remove",
    "removing",
    "wipe",
    "erase",
    "purge",
    "drop",
    "never",
    "cancel",
    "ignore",
];
/// Japanese endings that, right after a safety word, negate it.
const AFTER: &[&str] = &[
    "なし",
    "無し",
    "せず",
    "しない",
    "抜き",
    "を削除",
    "を消",
    "を止め",
    "を無効",
    "をやめ",
    "は不要",
];

/// Whether the safety word at `start..end` of `text` (normalised, lowercase) is negated.
pub(crate) fn negated(text: &[char], start: usize, end: usize) -> bool {
    let after: String = text[end..text.len().min(end + 6)].iter().collect();
    if AFTER.iter().any(|a| after.starts_with(a)) {
        return true;
    }
    let from = start.saturating_sub(40);
    let before: String = text[from..start].iter().collect();
    // Only the current sentence or clause counts.
    let clause = before
        .rsplit(['.', ',', ';', '!', '?', '。', '、'])
        .next()
        .unwrap_or("");
    clause
        .split_whitespace()
        .rev()
        .take(3)
        .map(|w| w.trim_matches(|c: char| !c.is_alphanumeric()))
        .any(|w| BEFORE.contains(&w))
}

/// The risk a removed safeguard stands for: the concept's id prefixed `no_`, a smaller weight.
pub(crate) fn as_risk(entry: &Entry, words: Vec<String>) -> super::features::Hit {
    let shown = words.first().cloned().unwrap_or_default();
    super::features::Hit {
        category: super::features::Category::Risk,
        id: format!("no_{}", entry.id),
        words,
        weight: (entry.weight * 0.8).min(1.0),
        note: Text {
            en: format!("it removes or skips a safeguard ({shown})"),
            ja: format!("安全策（{shown}）を外すことになります"),
        },
        step: Text {
            en: format!("keep the safeguard ({shown}) in place until the work is verified"),
            ja: format!("作業を確認できるまで安全策（{shown}）は残しておく"),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn negations_near_a_safety_word_count() {
        let cases = [
            ("delete all old backups", "backups", true),
            ("deploy without tests", "tests", true),
            ("no backup this time", "backup", true),
            ("delete old files after a backup", "backup", false),
            ("make a backup, then delete the old disk", "backup", false),
            ("テストなしで本番に出す", "テスト", true),
            ("バックアップを削除する", "バックアップ", true),
            ("毎晩バックアップする", "バックアップ", false),
        ];
        for (text, word, want) in cases {
            let chars: Vec<char> = text.chars().collect();
            let at = text.find(word).map(|b| text[..b].chars().count()).unwrap();
            let end = at + word.chars().count();
            assert_eq!(negated(&chars, at, end), want, "{text}");
        }
    }
}
