//! Money amounts in a task's text: "$5,000", "50万円", "1000 yen", "¥3億", "2.5k dollars".
//!
//! A number counts only with a currency next to it, so "1000 photos" is not money. The largest
//! amount wins, compared in dollars, because the biggest sum is what the brains should weigh.

/// A currency the brains recognise, with a rough dollar rate (only to compare sizes).
#[derive(Debug, Clone, Copy, PartialEq)]
enum Currency {
    Usd,
    Yen,
    Eur,
    Gbp,
}

impl Currency {
    fn in_dollars(self, value: f64) -> f64 {
        match self {
            Currency::Usd => value,
            Currency::Yen => value / 150.0,
            Currency::Eur => value * 1.1,
            Currency::Gbp => value * 1.3,
        }
    }
}

/// The largest amount in `text`: (value as written, value in dollars, the text as written).
/// `text` is lowercase with full-width digits folded to ASCII (see `features::normalize`).
pub(crate) fn largest(text: &str) -> Option<(f64, f64, String)> {
    let chars: Vec<char> = text.chars().collect();
    let mut best: Option<(f64, f64, String)> = None;
    let mut i = 0;
    while i < chars.len() {
        let starts_number = chars[i].is_ascii_digit()
            && (i == 0 || !(chars[i - 1].is_ascii_digit() || chars[i - 1] == '.'));
        if !starts_number {
            i += 1;
            continue;
        }
        let (value, end) = number(&chars, i);
        if let Some((amount, currency, from, to)) = money_around(&chars, i, end, value) {
            let dollars = currency.in_dollars(amount);
            let written: String = chars[from..to].iter().collect();
            if best.as_ref().is_none_or(|b| dollars > b.1) {
                best = Some((amount, dollars, written.trim().to_owned()));
            }
        }
        i = end.max(i + 1);
    }
    best
}

/// The number starting at `i` ("5,000", "2.5") and the index after it.
fn number(chars: &[char], i: usize) -> (f64, usize) {
    let mut end = i;
    let mut digits = String::new();
    let mut seen_dot = false;
    while end < chars.len() {
        let c = chars[end];
        let next_is_digit = chars.get(end + 1).is_some_and(char::is_ascii_digit);
        if c.is_ascii_digit() {
            digits.push(c);
        } else if c == ',' && next_is_digit {
            // Thousands separator: skipped.
        } else if c == '.' && !seen_dot && next_is_digit {
            seen_dot = true;
            digits.push('.');
        } else {
            break;
        }
        end += 1;
    }
    (digits.parse().unwrap_or(0.0), end)
}

/// The amount, currency and text span if the number at `start..end` is money.
fn money_around(
    chars: &[char],
    start: usize,
    end: usize,
    value: f64,
) -> Option<(f64, Currency, usize, usize)> {
    let mut from = start;
    let mut prefix = None;
    // "$5,000" or "$ 5,000": the symbol just before, at most one space between.
    let mut j = start;
    if j > 0 && chars[j - 1] == ' ' {
        j -= 1;
    }
    if j > 0 {
        prefix = match chars[j - 1] {
            '$' => Some(Currency::Usd),
            '¥' | '￥' => Some(Currency::Yen),
            '€' => Some(Currency::Eur),
            '£' => Some(Currency::Gbp),
            _ => None,
        };
        if prefix.is_some() {
            from = j - 1;
        }
    }
    let rest: String = chars[end..chars.len().min(end + 16)].iter().collect();
    let (multiplier, after) = multiplier(&rest);
    let (suffix, unit_len) = suffix(after);
    let used = rest.chars().count() - after.chars().count() + unit_len;
    let currency = prefix.or(suffix)?;
    Some((value * multiplier, currency, from, end + used))
}

/// "k", "million", "万", "千万", "億" after the number: the factor and the text after it.
fn multiplier(rest: &str) -> (f64, &str) {
    let mut factor = 1.0;
    let mut s = rest;
    loop {
        let trimmed = s.trim_start();
        let word = |w: &str| {
            trimmed.strip_prefix(w).filter(|after| {
                // "5k" but not "5 kids": an English factor must end the word.
                !after.starts_with(|c: char| c.is_ascii_alphabetic())
            })
        };
        let (f, after) = if let Some(a) = s.strip_prefix('千') {
            (1e3, a)
        } else if let Some(a) = s.strip_prefix('万') {
            (1e4, a)
        } else if let Some(a) = s.strip_prefix('億') {
            (1e8, a)
        } else if let Some(a) = word("thousand").or_else(|| word("k")) {
            (1e3, a)
        } else if let Some(a) = word("million").or_else(|| word("m")) {
            (1e6, a)
        } else if let Some(a) = word("billion").or_else(|| word("bn")) {
            (1e9, a)
        } else {
            return (factor, s);
        };
        factor *= f;
        s = after;
    }
}

/// A currency word after the number and how many characters it took (spaces included).
fn suffix(after: &str) -> (Option<Currency>, usize) {
    let trimmed = after.trim_start();
    let skipped = after.chars().count() - trimmed.chars().count();
    let units: [(&str, Currency); 11] = [
        ("円", Currency::Yen),
        ("yen", Currency::Yen),
        ("jpy", Currency::Yen),
        ("dollars", Currency::Usd),
        ("dollar", Currency::Usd),
        ("usd", Currency::Usd),
        ("ドル", Currency::Usd),
        ("euros", Currency::Eur),
        ("euro", Currency::Eur),
        ("eur", Currency::Eur),
        ("pounds", Currency::Gbp),
    ];
    for (unit, currency) in units {
        if trimmed.starts_with(unit) {
            return (Some(currency), skipped + unit.chars().count());
        }
    }
    (None, 0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn amounts_are_read_with_their_currency() {
        let cases: &[(&str, Option<(f64, &str)>)] = &[
            ("send $5,000 to bob", Some((5000.0, "$5,000"))),
            ("50万円を振り込む", Some((500_000.0, "50万円"))),
            ("pay 1000 yen", Some((1000.0, "1000 yen"))),
            ("¥3億の投資", Some((300_000_000.0, "¥3億"))),
            ("2.5k dollars for a course", Some((2500.0, "2.5k dollars"))),
            ("$ 1.2 million", Some((1_200_000.0, "$ 1.2 million"))),
            ("5千万円", Some((50_000_000.0, "5千万円"))),
            ("back up 1000 photos", None),
            ("5 kids and 3 dogs", None),
            ("$", None),
            ("", None),
        ];
        for (text, want) in cases {
            let got = largest(text).map(|(v, _, w)| (v, w));
            let want = want.map(|(v, w)| (v, w.to_owned()));
            assert_eq!(got, want, "{text}");
        }
    }

    #[test]
    fn the_largest_amount_in_dollars_wins() {
        let (value, _, written) = largest("pay $500 now and 100万円 later").unwrap();
        assert_eq!((value, written.as_str()), (1_000_000.0, "100万円"));
    }
}
