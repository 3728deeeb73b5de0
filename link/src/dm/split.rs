//! A message too long for one gift wrap goes as numbered parts, never dropped.
//!
//! The relay refuses events over 64 KiB, and a NIP-17 message is encrypted twice (rumor in seal
//! in wrap), each time growing by base64 (4/3) and NIP-44's padding (up to 1/8 more): a text
//! of about 30 KiB is the most one wrap holds. Longer texts are cut at line ends where there
//! are any (else at character boundaries), and each part starts with `(i/n)` and carries a
//! `["part", "i", "n"]` tag, so a person reads them in order and a program can put them back.

use nostr::{Tag, TagKind};

/// Bytes of one part's text as a JSON string (escapes counted), well under one wrap's room.
pub const PART_BYTES: usize = 24 * 1024;

/// The tag naming part `i` of `n`.
pub fn part_tag(i: usize, n: usize) -> Tag {
    Tag::custom(TagKind::custom("part"), [i.to_string(), n.to_string()])
}

/// What `c` costs inside a JSON string.
fn json_len(c: char) -> usize {
    match c {
        '"' | '\\' | '\n' | '\r' | '\t' | '\u{8}' | '\u{c}' => 2,
        c if (c as u32) < 0x20 => 6,
        c => c.len_utf8(),
    }
}

/// `text` as the messages to send: itself when it fits, else numbered parts.
pub fn parts(text: &str) -> Vec<String> {
    parts_of(text, PART_BYTES)
}

fn parts_of(text: &str, budget: usize) -> Vec<String> {
    let total: usize = text.chars().map(json_len).sum();
    if total <= budget {
        return vec![text.to_owned()];
    }
    // Room for the "(i/n) " prefix.
    let room = budget.saturating_sub(16).max(64);
    let mut chunks: Vec<String> = Vec::new();
    let mut cur = String::new();
    let mut cur_len = 0;
    for line in text.split_inclusive('\n') {
        for c in line.chars() {
            if cur_len + json_len(c) > room {
                // Cut at the last line end inside the chunk when there is one.
                let cut = cur
                    .rfind('\n')
                    .map(|i| i + 1)
                    .filter(|i| *i > cur.len() / 2);
                let rest = match cut {
                    Some(i) => cur.split_off(i),
                    None => String::new(),
                };
                chunks.push(std::mem::replace(&mut cur, rest));
                cur_len = cur.chars().map(json_len).sum();
            }
            cur.push(c);
            cur_len += json_len(c);
        }
    }
    if !cur.is_empty() {
        chunks.push(cur);
    }
    let n = chunks.len();
    chunks
        .into_iter()
        .enumerate()
        .map(|(i, c)| format!("({}/{n}) {c}", i + 1))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_short_text_is_one_message_unchanged() {
        assert_eq!(parts("hello"), vec!["hello".to_owned()]);
    }

    #[test]
    fn a_long_text_goes_in_numbered_parts_that_add_up_to_it() {
        let text: String = (0..3000)
            .map(|i| format!("line {i} \"quoted\" 日本語\n"))
            .collect();
        let got = parts_of(&text, 4096);
        let n = got.len();
        assert!(n > 10, "{n} parts");
        let mut back = String::new();
        for (i, p) in got.iter().enumerate() {
            let prefix = format!("({}/{n}) ", i + 1);
            assert!(p.starts_with(&prefix), "{p:.20}");
            assert!(serde_json::to_string(p).unwrap().len() <= 4096);
            back.push_str(&p[prefix.len()..]);
        }
        assert_eq!(back, text, "nothing lost, nothing added");
    }

    #[test]
    fn one_endless_line_is_cut_at_character_boundaries() {
        let text = "é".repeat(10_000);
        let got = parts_of(&text, 1024);
        let joined: String = got.iter().map(|p| p.split_once(") ").unwrap().1).collect();
        assert_eq!(joined, text);
    }
}
