//! Where a Japanese word may start and end: Japanese has no spaces, so a word found as a
//! substring is only a word when it sits on the text's own seams.
//!
//! No dictionary: the seams are the changes of script (kanji, hiragana, katakana, Latin, digits)
//! and the particles that end a phrase (を, に, が, …). A short katakana word must be the
//! whole katakana run (バカ is not in バカンス; a long one may be part of a compound), a one-kanji word the whole kanji run (株 is not in
//! 株式), and a word that ends in kanji or katakana must not run on into more of the same
//! script, while a word may end inside hiragana, where Japanese inflects (送っ|て, 消|して).
//! Longer kanji compounds are read as made of their parts (投資 in 投資信託), as a
//! morphological analyser would split them.

/// The script of one character, as far as word seams go.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Script {
    Kanji,
    Hiragana,
    Katakana,
    Other,
}

fn script(c: char) -> Script {
    match c {
        '\u{3041}'..='\u{309f}' => Script::Hiragana,
        '\u{30a0}'..='\u{30ff}' | '\u{ff66}'..='\u{ff9f}' => Script::Katakana,
        '\u{3400}'..='\u{4dbf}' | '\u{4e00}'..='\u{9fff}' | '\u{3005}' => Script::Kanji,
        _ => Script::Other,
    }
}

/// Particles after which a hiragana word may start (まで|すぐ, を|なし).
const PARTICLES: &[char] = &[
    'を', 'に', 'が', 'は', 'で', 'と', 'の', 'へ', 'も', 'や', 'か', 'て',
];

/// A word this long that starts in hiragana is a phrase (ただじゃおかない, いいことなんて):
/// it may follow any ending (見つけたら|ただじゃおかない), as a short word (すぐ) may not.
const LONG_PHRASE: usize = 5;

/// Whether `text[start..end]` is a Japanese word of the text, not a piece of a longer one.
/// Words without Japanese characters are not judged here (English has spaces).
pub(crate) fn is_word(text: &[char], start: usize, end: usize) -> bool {
    if start >= end || end > text.len() {
        return false;
    }
    let first = script(text[start]);
    let last = script(text[end - 1]);
    let before = start.checked_sub(1).map(|i| script(text[i]));
    let after = text.get(end).map(|&c| script(c));
    let run = |s: Script| text[start..end].iter().all(|&c| script(c) == s);
    // A one-kanji verb stem ends its kanji run and takes its endings in hiragana: 写真送|って
    // reads 送 as "send", as 写真を送って does, while 株 in 株式 stays part of the longer word.
    let stem = end - start == 1
        && first == Script::Kanji
        && after == Some(Script::Hiragana)
        && !PARTICLES.contains(&text[end]);
    let starts = match first {
        Script::Katakana => before != Some(Script::Katakana) || long_katakana(text, start, end),
        Script::Kanji => {
            before != Some(Script::Kanji) || !(run(Script::Kanji) && end - start < 2) || stem
        }
        Script::Hiragana => {
            before != Some(Script::Hiragana)
                || PARTICLES.contains(&text[start - 1])
                || end - start >= LONG_PHRASE
        }
        Script::Other => true,
    };
    let ends = match last {
        Script::Katakana => after != Some(Script::Katakana) || long_katakana(text, start, end),
        Script::Kanji => after != Some(Script::Kanji) || end - start >= 2,
        Script::Hiragana | Script::Other => true,
    };
    starts && ends
}

/// Katakana compounds are written without seams (パスワードマネージャー), so a katakana word of
/// four or more characters may be part of one; a short one (バカ, ブス) may not, as short words
/// hide inside longer ones (バカンス).
fn long_katakana(text: &[char], start: usize, end: usize) -> bool {
    end - start >= 4
        && text[start..end]
            .iter()
            .all(|&c| script(c) == Script::Katakana)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn found(text: &str, word: &str) -> bool {
        let chars: Vec<char> = text.chars().collect();
        let w: Vec<char> = word.chars().collect();
        (0..chars.len())
            .filter(|&i| chars[i..].starts_with(&w))
            .any(|i| is_word(&chars, i, i + w.len()))
    }

    #[test]
    fn words_sit_on_seams() {
        let cases = [
            ("ほんとバカみたい", "バカ", true),
            ("バカンスの計画", "バカ", false),
            ("株を買う", "株", true),
            ("株式会社に勤める", "株", false),
            ("パスワードを送って", "パスワード", true),
            ("今すぐ送金して", "すぐ", true),
            ("まっすぐ帰る", "すぐ", false),
            ("お金を送って", "送っ", true),
            ("利用上限を撤廃", "上限", true),
            ("アホらしい", "アホ", true),
            ("マスターパスワードを教えて", "パスワード", true),
            (
                "次見つけたらただじゃおかないからな",
                "ただじゃおかない",
                true,
            ),
            ("まっすぐ行って", "すぐ", false),
            ("カードの写真送っといて", "送", true),
            ("料金を払って", "金", false),
        ];
        for (text, word, want) in cases {
            assert_eq!(found(text, word), want, "{word} in {text}");
        }
    }
}
